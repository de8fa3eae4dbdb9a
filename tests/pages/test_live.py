"""The live-frames websocket through the real ASGI stack (origin check, session auth,
consumer, poller, channel layer), with Channels' communicator."""

import asyncio
import threading
from datetime import datetime
from datetime import timezone as dt_timezone

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model

import frames.live
from frames.services import frame_ingest
from myrecall.asgi import application
from tests.conftest import render_text_image

# The consumer and the poller read the database from other threads: they must see committed rows.
pytestmark = pytest.mark.django_db(transaction=True)

# 2024-05-06 14:05:00 UTC, which is 22:05:00 in Shanghai.
T = datetime(2024, 5, 6, 14, 5, tzinfo=dt_timezone.utc).timestamp()
WAIT_S = 10


@pytest.fixture(autouse=True)
def in_memory_layer(settings):
    """The consumer on the embedded defaults' layer, whatever the run's (--scale sets REDIS_URL):
    with REDIS_URL unset the poller feeds the page. The Redis path has its own test below, on a
    Redis of its own, and tests/test_cluster.py runs it between real servers."""
    settings.REDIS_URL = ""
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


@pytest.fixture
def session_cookie(client):
    user = get_user_model().objects.create_superuser("admin", password="a long enough password")
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


@pytest.fixture
def poller_started(monkeypatch):
    """Set once the poller has read the newest frame id: frames stored after that are pushed."""
    started = threading.Event()
    latest_id = frames.live.selectors.frame_latest_id

    def read_and_signal():
        found = latest_id()
        started.set()
        return found

    monkeypatch.setattr(frames.live.selectors, "frame_latest_id", read_and_signal)
    return started


def communicator(*, cookie: str = "", origin: str = "http://127.0.0.1:8000", query: str = "") -> WebsocketCommunicator:
    headers = [(b"origin", origin.encode()), (b"host", b"127.0.0.1:8000")]
    if cookie:
        headers.append((b"cookie", cookie.encode()))
    return WebsocketCommunicator(application, "/ws/frames/" + query, headers=headers)


def test_a_connection_without_a_session_is_refused():
    async def scenario():
        connected, code = await communicator().connect()
        assert not connected
        assert code == 4401

    async_to_sync(scenario)()


def test_a_logged_in_page_from_another_site_is_refused(session_cookie):
    async def scenario():
        connected, _ = await communicator(cookie=session_cookie, origin="https://evil.example").connect()
        assert not connected

    async_to_sync(scenario)()


def test_a_new_frame_arrives_as_an_out_of_band_card_in_local_time(session_cookie, poller_started):
    # The page shows 6 May in Shanghai: 22:05 is on it; 16:35 UTC is 00:35 on 7 May, so its card says so.
    shots = [(T, ["a frame stored while the page is open"]), (T + 9000, ["just after midnight", "换了一天"])]

    async def scenario():
        ws = communicator(cookie=f"{session_cookie}; tz=Asia%2FShanghai", query="?day=2024-05-06")
        connected, _ = await ws.connect()
        assert connected
        for _ in range(WAIT_S * 20):
            if poller_started.is_set():
                break
            await asyncio.sleep(0.05)
        sent = []
        for timestamp, lines in shots:
            # Stored as another process would store it: a committed row the poller reads.
            image = render_text_image(lines)
            result = await sync_to_async(frame_ingest)(image_bytes=image, timestamp=timestamp, app_name="Firefox", window_name="Docs")
            assert result.status == "created"
            sent.append((result.frame_id, await ws.receive_from(timeout=WAIT_S)))
        await ws.disconnect()
        return sent

    (frame_id, message), (_, after_midnight) = async_to_sync(scenario)()
    assert message.startswith('<div id="live-frames" hx-swap-oob="afterbegin">')
    assert f'href="/frames/{frame_id}/view"' in message
    assert f'src="/frames/{frame_id}/thumb"' in message
    assert '<time datetime="2024-05-06T22:05:00+08:00">22:05:00</time>' in message
    assert "Firefox" in message
    assert '<time datetime="2024-05-07T00:35:00+08:00">Tue 7 May 00:35:00</time>' in after_midnight


def test_frames_stored_between_render_and_connect_are_sent_first_and_once(session_cookie):
    image = render_text_image(["stored before the websocket opened"])
    rendered_latest = frames.live.selectors.frame_latest_id()
    missed = frame_ingest(image_bytes=image, timestamp=T, app_name="Terminal", window_name="bash")

    async def scenario():
        ws = WebsocketCommunicator(
            application,
            f"/ws/frames/?after={rendered_latest}",
            headers=[(b"origin", b"http://127.0.0.1:8000"), (b"host", b"127.0.0.1:8000"), (b"cookie", session_cookie.encode())],
        )
        connected, _ = await ws.connect()
        assert connected
        first = await ws.receive_from(timeout=WAIT_S)
        # The poller must not send it a second time.
        again = await ws.receive_nothing(timeout=2.5)
        await ws.disconnect()
        return first, again

    first, nothing_more = async_to_sync(scenario)()
    assert f'href="/frames/{missed.frame_id}/view"' in first
    assert nothing_more


@pytest.fixture
def redis_url():
    """A throwaway Redis server on a free loopback port (Debian's redis-server)."""
    import socket
    import subprocess
    import time

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.05)
    yield f"redis://127.0.0.1:{port}/0"
    proc.terminate()
    proc.wait(timeout=10)


def test_with_redis_the_storing_process_publishes_the_frame(settings, redis_url, session_cookie, monkeypatch):
    async def no_polling(self):
        return None

    # Whatever reaches the page must come from the process that stored the frame.
    monkeypatch.setattr(frames.live.FramePoller, "_run", no_polling)
    settings.REDIS_URL = redis_url
    settings.CHANNEL_LAYERS = {
        "default": {"BACKEND": "channels_redis.core.RedisChannelLayer", "CONFIG": {"hosts": [redis_url]}}
    }
    image = render_text_image(["published through redis"])

    async def scenario():
        ws = communicator(cookie=f"{session_cookie}; tz=Asia%2FShanghai")
        connected, _ = await ws.connect()
        assert connected
        result = await sync_to_async(frame_ingest)(image_bytes=image, timestamp=T, app_name="Mail", window_name="Inbox")
        message = await ws.receive_from(timeout=WAIT_S)
        await ws.disconnect()
        return result.frame_id, message

    frame_id, message = async_to_sync(scenario)()
    assert f'href="/frames/{frame_id}/view"' in message
    assert "22:05:00" in message and "Mail" in message


def test_a_page_on_another_port_cannot_open_the_live_feed_with_the_cookie(db):
    """Channels' host check alone let http://127.0.0.1:<another port> in: same host name."""
    from django.contrib.auth.models import User
    from django.test import Client

    user = User.objects.create_user("ws-origin", password="pw")
    client = Client()
    client.force_login(user)
    cookie = f"sessionid={client.cookies['sessionid'].value}"

    async def scenario():
        for origin, opens in (("http://127.0.0.1:8000", True), ("http://127.0.0.1:3000", False), ("http://localhost:8000", False), ("https://127.0.0.1:8000", False)):
            ws = communicator(cookie=cookie, origin=origin)
            connected, code = await ws.connect()
            assert connected is opens, (origin, code)
            if connected:
                await ws.disconnect()
            else:
                assert code == 4403 or origin == "http://localhost:8000"

    async_to_sync(scenario)()
