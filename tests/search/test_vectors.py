"""The embedded vector server asks for a key: a real `manage.py vector_server` answers on a socket
only its user can open (0600 in a 0700 folder), and only to a peer that proves it holds the key
kept (0600) in the data dir; the app's vectors module sends it. CHROMA_URL with CHROMA_TOKEN reaches
a server of the user's own that asks for a key (Chroma's `chroma run` behind a proxy that checks it
and refuses as Chroma's token auth does). A refused key is said while search answers by keywords."""

import http.client
import json
import os
import pwd
import shutil
import socket
import stat
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from multiprocessing.connection import AuthenticationError, Client
from pathlib import Path

import pytest
import requests

from search import vectors
from search.embeddings import embedder_warm_up
from search.vectors import FrameEntry, VectorError
from tests.search.test_semantic import T0, frame_add
from tests.server import REPO

DAY = vectors.day_of(int(T0 * 1000))
OWN_KEY = "the-key-of-my-own-chroma-server"


@contextmanager
def vector_server_run(data_dir: Path):
    """`manage.py vector_server` on data_dir, as `serve` runs it; yields its socket once announced."""
    log = open(data_dir / "vector_server.log", "ab")
    proc = subprocess.Popen(
        [sys.executable, "manage.py", "vector_server"],
        cwd=REPO, env={**os.environ, "MYRECALL_DATA_DIR": str(data_dir)}, stdout=log, stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.time() + 90
        while not (data_dir / "chroma" / "server.json").exists():  # written once the socket listens
            assert proc.poll() is None and time.time() < deadline, (data_dir / "vector_server.log").read_text()
            time.sleep(0.1)
        yield json.loads((data_dir / "chroma" / "server.json").read_text())["socket"]
    finally:
        vectors.vectors_release()
        proc.terminate()
        proc.wait(timeout=30)
        log.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("vector-server")
    with vector_server_run(data_dir) as socket_path:
        yield data_dir, socket_path


class KeyCheckingProxy(BaseHTTPRequestHandler):
    """In front of Chroma's server: every request but the heartbeat needs "Authorization: Bearer
    OWN_KEY"; without it, the answer of Chroma's token auth (403 AuthError)."""

    protocol_version = "HTTP/1.1"
    upstream = ""

    def _relay(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path != "/api/v2/heartbeat" and self.headers.get("Authorization") != f"Bearer {OWN_KEY}":
            status, payload = 403, json.dumps({"error": "AuthError", "message": "Forbidden"}).encode()
        else:
            upstream = http.client.HTTPConnection(self.upstream, timeout=30)
            upstream.request(self.command, self.path, body=body, headers={"Content-Type": "application/json"})
            answer = upstream.getresponse()
            status, payload = answer.status, answer.read()
            upstream.close()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = do_PUT = do_DELETE = _relay

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def own_server(tmp_path_factory):
    """A Chroma server of the user's own that asks for OWN_KEY; yields its URL."""
    folder = tmp_path_factory.mktemp("own-chroma")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    chroma = subprocess.Popen(
        [str(Path(sys.executable).with_name("chroma")), "run", "--path", str(folder / "db"), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
    )
    proxy = ThreadingHTTPServer(("127.0.0.1", 0), type("Proxy", (KeyCheckingProxy,), {"upstream": f"127.0.0.1:{port}"}))
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{proxy.server_port}"
    try:
        deadline = time.time() + 60
        while True:
            assert chroma.poll() is None and time.time() < deadline
            try:
                if requests.get(url + "/api/v2/heartbeat", timeout=2).ok:
                    break
            except requests.RequestException:
                pass
            time.sleep(0.2)
        yield url
    finally:
        vectors.vectors_release()
        proxy.shutdown()
        chroma.terminate()
        chroma.wait(timeout=30)


@pytest.fixture(autouse=True)
def embedded_by_default(settings):
    """Each test names the index it tries: the embedded one unless it sets CHROMA_URL itself."""
    settings.CHROMA_URL = ""


def entries(*frame_ids: int) -> list[FrameEntry]:
    return [FrameEntry(frame_id=frame_id, ts_ms=int(T0 * 1000), embeddings=[[1.0, frame_id, 0.0]]) for frame_id in frame_ids]


def nearest(frame_id: int) -> list[int]:
    found = vectors.day_query(embedder_key="test", day=DAY, embedding=[1.0, frame_id, 0.0], n=1)
    return [hit.frame_id for hit in found.hits]


def collection_names(socket_path: str, key: bytes) -> list[str]:
    with Client(socket_path, family="AF_UNIX", authkey=key) as connection:
        connection.send((None, "list_collections", {}))
        ok, names = connection.recv()
    assert ok
    return names


def test_the_vector_server_answers_only_a_peer_holding_the_key_in_the_data_dir(server):
    data_dir, socket_path = server
    key_file = data_dir / "chroma" / "server.key"
    key = key_file.read_bytes()
    modes = {path.name: stat.S_IMODE(path.stat().st_mode) for path in (key_file, Path(socket_path), data_dir / "chroma")}
    assert modes == {"server.key": 0o600, "server.sock": 0o600, "chroma": 0o700} and len(key) >= 43
    intrusion = (None, "get_or_create_collection", {"name": "intruder", "metadata": None})

    # Without the key, what a peer sends is taken for its answer to the challenge, refused, never unpickled.
    bare = Client(socket_path, family="AF_UNIX")
    bare.send(intrusion)
    assert bare.recv_bytes().startswith(b"#CHALLENGE#") and bare.recv_bytes() == b"#FAILURE#"
    with pytest.raises(EOFError):
        bare.recv_bytes()
    bare.close()
    with pytest.raises(AuthenticationError):
        Client(socket_path, family="AF_UNIX", authkey=b"not-the-key")
    assert "intruder" not in collection_names(socket_path, key)

    with Client(socket_path, family="AF_UNIX", authkey=key) as keyed:
        keyed.send(intrusion)
        assert keyed.recv()[0] is True
    assert "intruder" in collection_names(socket_path, key)

    if os.geteuid() == 0:  # another account cannot even open the socket
        assert connect_as("nobody", socket_path) == "PermissionError"
        assert connect_as("root", socket_path) == "connected"  # what the check above would say if it could


def connect_as(user: str, socket_path: str) -> str:
    """Connect to the socket from a child process that runs as another account (the test runs as root)."""
    account = pwd.getpwnam(user)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.setgroups([])
            os.setgid(account.pw_gid)
            os.setuid(account.pw_uid)
            socket.socket(socket.AF_UNIX).connect(socket_path)
            code = 0
        except PermissionError:
            code = 13
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return {0: "connected", 13: "PermissionError"}.get(os.waitstatus_to_exitcode(status), "failed otherwise")


def test_the_app_sends_the_embedded_servers_key_and_says_when_it_is_refused(server, settings):
    data_dir, socket_path = server
    settings.DATA_DIR = data_dir
    assert vectors.backend_describe() == f"chroma server {socket_path}" and vectors.vectors_health() == (True, "ok")
    vectors.day_write(embedder_key="test", day=DAY, entries=entries(11, 12))
    assert nearest(12) == [12]

    key_file = data_dir / "chroma" / "server.key"
    key = key_file.read_text()
    key_file.write_text("a-key-that-is-not-the-servers-own-key-0123456789")
    try:
        healthy, reason = vectors.vectors_health()
        assert not healthy and reason.startswith("the vector server refused the key") and str(key_file) in reason
        with pytest.raises(VectorError, match="the vector server refused the key"):
            nearest(12)
    finally:
        key_file.write_text(key)
    assert nearest(11) == [11]


def test_chroma_url_with_chroma_token_reaches_a_server_that_asks_for_a_key(own_server, settings):
    settings.CHROMA_URL, settings.CHROMA_TOKEN = own_server, OWN_KEY
    assert vectors.backend_describe() == f"chroma server {own_server}" and vectors.vectors_health() == (True, "ok")
    vectors.day_write(embedder_key="test", day=DAY, entries=entries(21))
    assert nearest(21) == [21]

    settings.CHROMA_TOKEN = ""
    healthy, reason = vectors.vectors_health()
    assert not healthy and reason.startswith("the vector server refused the key") and "CHROMA_TOKEN" in reason


def test_memories_sharing_one_chroma_server_keep_their_vectors_apart(own_server, settings):
    # CHROMA_DATABASE names each memory's database on the server, made by its first write.
    settings.CHROMA_URL, settings.CHROMA_TOKEN = own_server, OWN_KEY
    settings.CHROMA_DATABASE = "memory-of-ann"
    vectors.day_write(embedder_key="test", day=DAY, entries=entries(31))
    settings.CHROMA_DATABASE = "memory-of-bob"
    assert vectors.days_present(embedder_key="test") == []
    vectors.day_write(embedder_key="test", day=DAY, entries=entries(32))
    assert nearest(31) == [32]  # Bob's index holds Bob's frame alone
    vectors.embedders_drop(keep="another-model")  # Bob moves to another model: his collections go
    settings.CHROMA_DATABASE = "memory-of-ann"
    assert vectors.days_present(embedder_key="test") == [DAY] and nearest(31) == [31]


def test_a_wrong_chroma_token_is_said_and_search_answers_by_keywords(own_server, settings, api):
    settings.CHROMA_URL, settings.CHROMA_TOKEN = own_server, "not-the-key"
    embedder_warm_up()  # the query's vector is made; the index refuses to search with it
    frame_id = frame_add(0, "Firefox", "Praxis Weber", "Zahnarztpraxis Dr. Weber\nRechnung #4411")
    body = api.get("/api/v1/search", {"q": "Zahnarztpraxis", "start_time": T0 - 60, "end_time": T0 + 60, "mode": "hybrid"}).json()
    assert body["degraded"].startswith("the vector server refused the key") and "CHROMA_TOKEN" in body["degraded"]
    assert [item["content"]["frame_id"] for item in body["data"]] == [frame_id]
    status = api.get("/api/v1/status").json()["semantic"]
    assert status["healthy"] is False and status["problem"].startswith("the vector server refused the key")


def test_an_index_written_in_a_process_of_its_own_opens_in_the_vector_server(data_dir, settings):
    # Chroma's files written by this process (a command run alone; `chroma run` served the same files before).
    vectors.day_write(embedder_key="test", day=DAY, entries=entries(31, 32, 33))
    vectors.vectors_release()
    with vector_server_run(data_dir) as socket_path:
        assert vectors.backend_describe() == f"chroma server {socket_path}"
        assert nearest(32) == [32] and vectors.day_count(embedder_key="test", day=DAY) == 3


def test_a_data_dir_too_deep_for_a_socket_path_still_gets_a_keyed_server(tmp_path):
    deep = tmp_path / ("a-data-dir-on-a-deep-path-" * 4)
    deep.mkdir()
    assert len(os.fsencode(deep / "chroma" / "server.sock")) > vectors.SOCKET_PATH_MAX
    with vector_server_run(deep) as socket_path:
        folder = Path(socket_path).parent
        assert folder != deep / "chroma" and stat.S_IMODE(folder.stat().st_mode) == 0o700
        key = (deep / "chroma" / "server.key").read_bytes()
        assert collection_names(socket_path, key) == []
        with pytest.raises(AuthenticationError):
            Client(socket_path, family="AF_UNIX", authkey=b"not-the-key")
    assert not folder.exists()


def test_an_entry_holds_its_frame_id_alone(data_dir):
    # What queries and deletions filter by, and nothing else: the rest of a frame lives in the database.
    vectors.day_write(embedder_key="test", day=DAY, entries=entries(41, 42))

    def metadatas(client):
        return vectors._collection(client, "test", DAY, create=False).get(include=["metadatas"])

    stored = vectors._call("read", metadatas)
    assert sorted(zip(stored["ids"], (m for m in stored["metadatas"]))) == [("41:0", {"frame_id": 41}), ("42:0", {"frame_id": 42})]
    vectors.vectors_release()


def test_a_write_after_the_index_was_replaced_under_the_vector_server_goes_to_the_new_index(tmp_path, settings):
    # The worker had the day's collection cached; the files are removed and the server starts an
    # empty index. The next frame's vectors are written there at once, not after a retry 30 s later.
    settings.DATA_DIR = tmp_path
    with vector_server_run(tmp_path):
        vectors.day_write(embedder_key="test", day=DAY, entries=entries(51, 52))
        assert nearest(52) == [52]
        shutil.rmtree(tmp_path / "chroma" / "db")
        deadline = time.time() + 30
        while not (tmp_path / "chroma" / "db").exists():  # the server looks every second
            assert time.time() < deadline
            time.sleep(0.1)
        vectors.day_write(embedder_key="test", day=DAY, entries=entries(53))
        assert vectors.day_count(embedder_key="test", day=DAY) == 1 and nearest(53) == [53]
