"""Two machines' worth of MyRecall on one PostgreSQL, one image storage, one Chroma server and one
Redis (`bash scripts/test.sh --scale` starts those): two real `serve` (each a web server and a
worker) on data dirs of their own, sharing nothing else. Frames posted to either are read (OCR)
once, found by words and by meaning through either, their images served by either; a timeline
open on one shows live the frames posted to the other; the agent answers one question at a time
across both."""

import os
import subprocess
import sys
import time

import psycopg
import pytest
import requests
from playwright.sync_api import expect, sync_playwright

from scripts.screenshots import CHROMIUM_ARGS
from tests.agent_bridge.fake_model import FakeAgentModel, text
from tests.conftest import render_text_image
from tests.databases import env_for
from tests.live import sse_events, wait_for
from tests.server import REPO, LiveServer, ocr_wait

pytestmark = pytest.mark.postgresql_only

SHARED = ("REDIS_URL", "CHROMA_URL", "CHROMA_TOKEN")


@pytest.fixture(scope="module")
def model():
    server = FakeAgentModel().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, model):
    missing = [name for name in SHARED if not os.environ.get(name)]
    assert not missing, f"run through `bash scripts/test.sh --scale`: {missing} not set"
    top = tmp_path_factory.mktemp("cluster")
    database = env_for(top / "shared-database")["DATABASE_URL"]  # an empty database of its own
    (top / "shared-images").mkdir()  # the folder every machine mounts
    env = {
        "DATABASE_URL": database,
        "MYRECALL_IMAGES_DIR": str(top / "shared-images"),
        "SECRET_KEY": "one key for every server of the cluster, long enough to sign sessions",
        **{name: os.environ[name] for name in SHARED},
        "CHROMA_DATABASE": f"cluster-{top.name}",  # one memory: one database on the Chroma server
        "LLM_BASE_URL": model.base_url,
        "LLM_MODEL": "fake-agent",
        "LLM_API_KEY": "test-key",
    }
    # Migrated once, as an operator would before starting the servers.
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v0"], cwd=REPO, check=True,
        env={**os.environ, **env, "MYRECALL_DATA_DIR": str(top / "migrate")},
    )
    with LiveServer(top / "machine-a", env=env) as a, LiveServer(top / "machine-b", env=env) as b:
        yield a, b, database


def post(server: LiveServer, lines: list[str], *, at: float, app_name: str = "Notes") -> int:
    response = server.session.post(
        server.url + "/api/v1/frames",
        files={"image": ("shot.png", render_text_image(lines, size=(1280, 400)), "image/png")},
        data={"timestamp": at, "app_name": app_name, "window_name": "cluster", "device_name": "cluster-test"},
        timeout=60,
    )
    assert response.status_code == 201, response.text
    return response.json()["frame_id"]


def shared_rows(database: str, query: str, params=()) -> list[tuple]:
    with psycopg.connect(database, autocommit=True) as conn:
        return conn.execute(query, params).fetchall()


def search(server: LiveServer, q: str, since: float, **extra) -> dict:
    response = server.session.get(
        server.url + "/api/v1/search", params={"q": q, "start_time": since, "limit": 20, **extra}, timeout=60
    )
    assert response.status_code == 200, response.text
    return response.json()


def test_frames_posted_to_either_are_read_once_and_found_through_either(cluster):
    a, b, database = cluster
    since = time.time() - 60
    sent = {}
    for n, word in enumerate(["walrus", "pelican", "giraffe", "octopus", "flamingo", "hedgehog"]):
        server = (a, b)[n % 2]
        sent[word] = (server, post(server, [f"cluster report {word} quarterly", "集群测试 机器学习"], at=since + 30 + n))
    for server in (a, b):
        ocr_wait(server=server, frame_ids=[frame_id for s, frame_id in sent.values() if s is server], timeout_s=300)
    ids = sorted(frame_id for _, frame_id in sent.values())
    # Each frame read once: one OCR task each, run once, by one worker or the other.
    ocr_runs = shared_rows(
        database,
        "SELECT (args_kwargs->'args'->>0)::bigint AS frame, count(*), min(status), max(jsonb_array_length(worker_ids))"
        " FROM django_tasks_database_dbtaskresult WHERE task_path = 'frames.tasks.frame_ocr'"
        " AND (args_kwargs->'args'->>0)::bigint = ANY(%s) GROUP BY frame ORDER BY frame",
        (ids,),
    )
    # One task a frame, finished, claimed by one worker once (a task taken again lists its workers).
    assert ocr_runs == [(i, 1, "SUCCESSFUL", 1) for i in ids]
    attempts = shared_rows(database, "SELECT ocr_attempts FROM frames_frame WHERE id = ANY(%s)", (ids,))
    assert [row[0] for row in attempts] == [1] * len(ids)
    for word, (posted_to, frame_id) in sent.items():
        other = b if posted_to is a else a
        for server in (posted_to, other):
            found = search(server, word, since)
            assert [hit["content"]["frame_id"] for hit in found["data"]] == [frame_id]
    # Chinese, by either server: every frame.
    for server in (a, b):
        assert sorted(hit["content"]["frame_id"] for hit in search(server, "机器学习", since)["data"]) == ids
    # By meaning, through the shared Chroma server, once the workers have embedded them.
    for server in (a, b):
        body = wait_for(lambda: (got := search(server, "quarterly report of the cluster", since, mode="semantic"))["data"] and got)
        assert body["degraded"] is None and {hit["content"]["frame_id"] for hit in body["data"]} <= set(ids)
    # An image stored by one is served by the other, byte for byte.
    for posted_to, frame_id in sent.values():
        other = b if posted_to is a else a
        mine = posted_to.session.get(f"{posted_to.url}/api/v1/frames/{frame_id}", timeout=30)
        theirs = other.session.get(f"{other.url}/api/v1/frames/{frame_id}", timeout=30)
        assert mine.status_code == theirs.status_code == 200 and mine.content == theirs.content


def test_a_timeline_open_on_one_server_shows_live_a_frame_posted_to_the_other(cluster):
    a, b, _ = cluster
    password = (a.data_dir / "admin_password.txt").read_text().strip()  # made by the first start, in its data dir
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(timezone_id="UTC")
            context.set_default_timeout(30_000)
            page = context.new_page()
            page.add_init_script("document.addEventListener('htmx:wsOpen', () => { window.liveOpen = true; })")
            page.goto(b.url + "/")
            page.wait_for_function("performance.getEntriesByType('navigation')[0].type === 'reload'")
            page.fill("input[name=password]", password)
            page.click("button[type=submit]")
            page.wait_for_url(b.url + "/")
            page.wait_for_function("window.liveOpen === true")
            page.wait_for_timeout(1500)  # B's poller reads the newest frame id once the socket opens
            frame_id = post(a, ["posted to machine A while B's timeline is open"], at=time.time(), app_name="Terminal")
            card = page.locator(f"#live-frames .card-frame[data-frame-id='{frame_id}']")
            expect(card).to_be_visible()
            expect(card.locator(".app")).to_have_text("Terminal")
        finally:
            browser.close()


def test_the_agent_answers_one_question_at_a_time_across_servers(cluster, model):
    a, b, _ = cluster
    model.play(text(" ".join(f"w{i}" for i in range(30)), chunk_interval_s=0.2))
    first = a.session.post(
        f"{a.url}/api/v1/chat", json={"message": "first", "mode": "agent", "timezone": "UTC"},
        headers={"Accept": "text/event-stream"}, stream=True, timeout=120,
    )
    assert first.status_code == 200, first.text
    events = sse_events(first)
    assert next(events)[0] == "start"
    second = b.session.post(f"{b.url}/api/v1/chat", json={"message": "again", "mode": "agent"}, timeout=30)
    assert second.status_code == 409 and "another MyRecall server" in second.json()["message"]
    assert list(events)[-1][0] == "final"  # the first was not disturbed
    model.play(text("Nothing else was found."))
    after = b.session.post(
        f"{b.url}/api/v1/chat", json={"message": "now", "mode": "agent", "timezone": "UTC"},
        headers={"Accept": "text/event-stream"}, stream=True, timeout=120,
    )
    assert after.status_code == 200 and list(sse_events(after))[-1][0] == "final"  # free again, on the other server


def test_a_frame_deleted_through_one_server_is_gone_from_the_other_and_the_shared_storage(cluster):
    a, b, database = cluster
    at = time.time() - 5
    frame_id = post(a, ["a screen to forget: xylophonic"], at=at)
    ocr_wait(server=a, frame_ids=[frame_id], timeout_s=300)
    (relpath,) = shared_rows(database, "SELECT image_path FROM frames_frame WHERE id = %s", (frame_id,))[0]
    images = a.env["MYRECALL_IMAGES_DIR"]
    assert os.path.exists(os.path.join(images, relpath))
    response = b.session.delete(
        f"{b.url}/api/v1/frames", params={"start_time": at - 0.5, "end_time": at + 0.5}, timeout=60
    )
    assert response.status_code == 200 and response.json()["removed"]["frames"] == 1, response.text
    wait_for(lambda: not os.path.exists(os.path.join(images, relpath)), timeout_s=60)
    assert search(a, "xylophonic", at - 60)["data"] == []
    assert a.session.get(f"{a.url}/api/v1/frames/{frame_id}", timeout=30).status_code == 404
    assert requests.get(f"{b.url}/api/v1/frames/{frame_id}", timeout=30).status_code in (401, 403)
