"""End to end on a real `manage.py serve`: ingest over HTTP with a bearer token, OCR in
the worker, keyword search, the frame's image and boxes, the first-start admin
password, and a stop that takes the web server and the worker down with it, idle
or under load, killed or told to stop."""

import io
import os
import random
import signal
import stat
import threading
import time
from pathlib import Path

import pytest
import requests
from PIL import Image

from tests.server import LiveServer, process_descendants
from tests.screens import Screen, render, session
from tests.live import login

SEARCH_WAIT_S = 60
# A generous bound for "gone": a worker may first finish its task in flight (MYRECALL_WORKER_STOP_S).
GONE_WAIT_S = 90
CLIENTS = 4


def _made_up_word(rng: random.Random) -> str:
    """A pronounceable word no dictionary has, so a hit can only come from our frame."""
    return "".join(rng.choice("bdfgkmnprstvz") + rng.choice("aeou") for _ in range(4))


def _png(screen: Screen) -> bytes:
    out = io.BytesIO()
    render(screen).save(out, format="PNG")
    return out.getvalue()


def _search_until_found(server: LiveServer, *, q: str, frame_id: int, start_time: float) -> bool:
    deadline = time.time() + SEARCH_WAIT_S
    while time.time() < deadline:
        resp = server.session.get(
            server.url + "/api/v1/search", params={"q": q, "start_time": start_time, "mode": "keyword"}, timeout=10
        )
        assert resp.status_code == 200, resp.text
        if frame_id in [hit["content"]["frame_id"] for hit in resp.json()["data"]]:
            return True
        time.sleep(0.2)
    return False


def test_posted_screenshot_becomes_searchable_in_english_and_chinese(live_server_proc):
    server = live_server_proc
    word = _made_up_word(random.Random())
    chinese = "向日葵花园"
    screen = Screen(
        kind="editor",
        app_name="Code",
        window_name=f"{word}.md",
        lines=["meeting notes for the release", f"the {word} arrived this morning", f"下午在{chinese}讨论合同", "deploy the server"],
    )
    timestamp = time.time()
    resp = server.session.post(
        server.url + "/api/v1/frames",
        files={"image": ("shot.png", _png(screen), "image/png")},
        data={"timestamp": timestamp, "app_name": "Code", "window_name": screen.window_name, "device_name": f"e2e-{word}"},
        timeout=30,
    )
    assert resp.status_code == 201, resp.text
    frame_id = resp.json()["frame_id"]

    assert _search_until_found(server, q=word, frame_id=frame_id, start_time=timestamp - 60), server.log_path.read_text()[-3000:]
    assert _search_until_found(server, q=chinese, frame_id=frame_id, start_time=timestamp - 60)

    image = server.session.get(f"{server.url}/api/v1/frames/{frame_id}", timeout=10)
    assert image.status_code == 200
    assert image.headers["Content-Type"] == "image/webp"
    assert Image.open(io.BytesIO(image.content)).size == (1920, 1080)
    assert requests.get(f"{server.url}/api/v1/frames/{frame_id}", timeout=10).status_code == 401

    ocr = server.session.get(f"{server.url}/api/v1/frames/{frame_id}/ocr", timeout=10).json()
    assert ocr["status"] == "done"
    word_boxes = [w["box"] for line in ocr["lines"] for w in line["words"] if w["text"] == word]
    assert word_boxes, ocr["text"]
    x, y, w, h = word_boxes[0]
    assert w > 0 and h > 0 and 0 <= x < 1920 and 0 <= y < 1080


def test_first_start_admin_password_is_kept_private_and_logs_in(live_server_proc):
    server = live_server_proc
    path = server.data_dir / "admin_password.txt"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    password = path.read_text().strip()
    assert server.log_path.read_text().count(password) == 1  # printed once, at first start

    home = login(server, password).get(server.url + "/", allow_redirects=False, timeout=10)
    assert home.status_code == 200
    refused = login(server, password + "x").get(server.url + "/", allow_redirects=False, timeout=10)
    assert refused.status_code == 302
    assert "/login/" in refused.headers["Location"]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


@pytest.mark.parametrize(
    "sig,group",
    [(signal.SIGTERM, False), (signal.SIGINT, False), (signal.SIGINT, True)],
    ids=["SIGTERM", "SIGINT", "Ctrl-C to the process group"],
)
def test_stopping_serve_stops_web_server_and_worker(tmp_path, sig, group):
    with LiveServer(tmp_path / "serve") as server:
        children = process_descendants(server.proc.pid)
        commands = [Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode() for pid in children]
        assert any("myrecall.web" in c for c in commands) and any("manage.py worker" in c for c in commands), commands

        code = server.stop(sig=sig, group=group)
    left = [pid for pid in children if _alive(pid)]

    assert code == 0
    assert left == []
    with pytest.raises(requests.ConnectionError):
        requests.get(server.url + "/login/", timeout=2)


def test_a_killed_serve_takes_its_web_server_and_worker_down_with_it_when_idle(tmp_path):
    with LiveServer(tmp_path / "serve") as server:
        children = process_descendants(server.proc.pid)
        server.proc.kill()  # no handler runs: the children learn it from the kernel
        server.proc.wait()

        deadline = time.time() + 60
        while any(_alive(pid) for pid in children) and time.time() < deadline:
            time.sleep(0.2)
    assert [pid for pid in children if _alive(pid)] == []


def _processes_of(data_dir: Path) -> dict[int, str]:
    """Every live process run on this data dir (serve and all it started: found by the
    MYRECALL_DATA_DIR in its environment), with its command line."""
    marker = f"MYRECALL_DATA_DIR={data_dir}".encode()
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or not _alive(int(entry.name)):
            continue
        try:
            if marker in (entry / "environ").read_bytes().split(b"\0"):
                found[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:  # it ended while we looked
            continue
    return found


class Load:
    """CLIENTS capture clients posting screenshots as fast as they are answered, and searching now and then."""

    def __init__(self, server: LiveServer):
        self.server = server
        self.pngs = [_png(screen) for screen, _ in session(random.Random(8), 6)]
        self.stopping = threading.Event()
        self.answered = 0
        self.threads = [threading.Thread(target=self._client, args=(n,), daemon=True) for n in range(CLIENTS)]
        for thread in self.threads:
            thread.start()

    def _client(self, n: int) -> None:
        http = requests.Session()
        http.headers["Authorization"] = f"Bearer {self.server.token}"
        for i in range(10**6):
            if self.stopping.is_set():
                return
            try:
                resp = http.post(
                    self.server.url + "/api/v1/frames",
                    files={"image": ("shot.png", self.pngs[i % len(self.pngs)], "image/png")},
                    data={"timestamp": time.time() - i, "app_name": "Code", "window_name": f"w{n}", "device_name": f"load-{n}"},
                    timeout=30,
                )
                if i % 4 == 3:
                    http.get(self.server.url + "/api/v1/search", params={"q": "release", "start_time": time.time() - 86400}, timeout=30)
            except requests.RequestException:  # the server is going away
                continue
            self.answered += resp.status_code == 201

    def wait_answered(self, count: int) -> None:
        deadline = time.time() + 120
        while self.answered < count and time.time() < deadline:
            time.sleep(0.1)
        assert self.answered >= count, f"only {self.answered} uploads answered"

    def stop(self) -> None:
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=60)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_serve_stopped_under_load_leaves_no_process(tmp_path, sig):
    data_dir = tmp_path / "serve"
    with LiveServer(data_dir) as server:
        # serve, web, worker, and the vector server (and its Chroma) unless CHROMA_URL names a server elsewhere
        assert len(_processes_of(data_dir)) >= (3 if server.env.get("CHROMA_URL") else 4)
        load = Load(server)
        try:
            load.wait_answered(3 * CLIENTS)  # every client is now posting, the worker reading
            os.kill(server.proc.pid, sig)
            code = server.proc.wait(timeout=GONE_WAIT_S)
        finally:
            load.stop()

        deadline = time.time() + GONE_WAIT_S
        while _processes_of(data_dir) and time.time() < deadline:
            time.sleep(0.2)
    left = _processes_of(data_dir)
    for pid in left:  # not to leave them running past a failure
        os.kill(pid, signal.SIGKILL)
    log = server.log_path.read_text()
    assert left == {}, log[-3000:]
    assert code == (-signal.SIGKILL if sig == signal.SIGKILL else 0)
    assert "did not stop in time" not in log  # each stopped by itself, none had to be killed
