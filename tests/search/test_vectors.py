"""The embedded vector server asks for a key: a real `manage.py vector_server` refuses every request
without the key kept (0600) in the data dir, the app's vectors module sends it, CHROMA_URL with
CHROMA_TOKEN reaches a server that asks for one, and a refused key is said while search answers by
keywords."""

import json
import os
import stat
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
import requests

from search import vectors
from search.embeddings import embedder_warm_up
from search.vectors import FrameEntry, VectorError
from tests.search.test_semantic import T0, frame_add
from tests.server import REPO

DAY = vectors.day_of(int(T0 * 1000))
COLLECTIONS = "/api/v2/tenants/default_tenant/databases/default_database/collections"


@contextmanager
def vector_server_run(data_dir: Path):
    """`manage.py vector_server` on data_dir, as `serve` runs it; yields its URL once it answers."""
    log = open(data_dir / "vector_server.log", "ab")
    proc = subprocess.Popen(
        [sys.executable, "manage.py", "vector_server"],
        cwd=REPO, env={**os.environ, "MYRECALL_DATA_DIR": str(data_dir)}, stdout=log, stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.time() + 90
        while True:
            assert proc.poll() is None and time.time() < deadline, (data_dir / "vector_server.log").read_text()
            try:
                url = json.loads((data_dir / "chroma" / "server.json").read_text())["url"]
                if requests.get(url + "/api/v2/heartbeat", timeout=2).ok:
                    break
            except (OSError, ValueError, requests.RequestException):
                pass
            time.sleep(0.2)
        yield url
    finally:
        vectors.vectors_release()
        proc.terminate()
        proc.wait(timeout=30)
        log.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("vector-server")
    with vector_server_run(data_dir) as url:
        yield data_dir, url


def entries(*frame_ids: int) -> list[FrameEntry]:
    return [FrameEntry(frame_id=frame_id, ts_ms=int(T0 * 1000), meta={"focused": 1, "chars": 10}, embeddings=[[1.0, frame_id, 0.0]]) for frame_id in frame_ids]


def nearest(frame_id: int) -> list[int]:
    found = vectors.day_query(embedder_key="test", day=DAY, embedding=[1.0, frame_id, 0.0], n=1)
    return [hit.frame_id for hit in found.hits]


def test_the_vector_server_refuses_every_request_without_the_key_in_the_data_dir(server):
    data_dir, url = server
    key_file = data_dir / "chroma" / "server.key"
    key = key_file.read_text()
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600 and stat.S_IMODE((data_dir / "chroma").stat().st_mode) == 0o700
    assert len(key) >= 43 and key.strip() == key  # Chroma compares the file's text whole
    assert requests.get(url + COLLECTIONS, timeout=10).status_code in (401, 403)
    assert requests.get(url + COLLECTIONS, headers={"Authorization": "Bearer not-the-key"}, timeout=10).status_code in (401, 403)
    assert requests.post(url + COLLECTIONS, json={"name": "intruder"}, timeout=10).status_code in (401, 403)
    answer = requests.get(url + COLLECTIONS, headers={"Authorization": f"Bearer {key}"}, timeout=10)
    assert answer.status_code == 200 and "intruder" not in answer.text
    assert requests.get(url + "/api/v2/heartbeat", timeout=10).ok  # tells only that it is up


def test_the_app_sends_the_embedded_servers_key_and_says_when_it_is_refused(server, settings):
    data_dir, url = server
    settings.DATA_DIR = data_dir
    assert vectors.backend_describe() == f"chroma server {url}" and vectors.vectors_health() == (True, "ok")
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


def test_chroma_url_with_chroma_token_reaches_a_server_that_asks_for_a_key(server, settings):
    data_dir, url = server
    settings.CHROMA_URL, settings.CHROMA_TOKEN = url, (data_dir / "chroma" / "server.key").read_text()
    assert vectors.backend_describe() == f"chroma server {url}" and vectors.vectors_health() == (True, "ok")
    vectors.day_write(embedder_key="test", day=DAY, entries=entries(21))
    assert nearest(21) == [21]

    settings.CHROMA_TOKEN = ""
    healthy, reason = vectors.vectors_health()
    assert not healthy and reason.startswith("the vector server refused the key") and "CHROMA_TOKEN" in reason


def test_a_wrong_chroma_token_is_said_and_search_answers_by_keywords(server, settings, api):
    settings.CHROMA_URL, settings.CHROMA_TOKEN = server[1], "not-the-key"
    embedder_warm_up()  # the query's vector is made; the index refuses to search with it
    frame_id = frame_add(0, "Firefox", "Praxis Weber", "Zahnarztpraxis Dr. Weber\nRechnung #4411")
    body = api.get("/api/v1/search", {"q": "Zahnarztpraxis", "start_time": T0 - 60, "end_time": T0 + 60, "mode": "hybrid"}).json()
    assert body["degraded"].startswith("the vector server refused the key") and "CHROMA_TOKEN" in body["degraded"]
    assert [item["content"]["frame_id"] for item in body["data"]] == [frame_id]
    status = api.get("/api/v1/status").json()["semantic"]
    assert status["healthy"] is False and status["problem"].startswith("the vector server refused the key")


def test_an_index_written_before_the_server_asked_for_a_key_opens_in_it(data_dir, settings):
    # Written by Chroma's own files in this process (the Rust engine `chroma run` served before).
    vectors.day_write(embedder_key="test", day=DAY, entries=entries(31, 32, 33))
    vectors.vectors_release()
    with vector_server_run(data_dir):
        assert vectors.backend_describe().startswith("chroma server ")
        assert nearest(32) == [32] and vectors.day_count(embedder_key="test", day=DAY) == 3


def test_the_users_own_chroma_settings_do_not_reach_the_embedded_server(monkeypatch):
    from chromadb.config import Settings

    assert [name for name in Settings.model_fields if not vectors.CHROMA_SETTINGS_ENV.fullmatch(name.upper())] == []
    monkeypatch.setenv("CHROMA_SERVER_AUTHN_CREDENTIALS", "a-key-of-the-users")  # Chroma refuses to start with it and a file
    monkeypatch.setenv("CHROMA_SERVER_AUTH_IGNORE_PATHS", '{"/api/v2/tenants": ["GET"]}')
    monkeypatch.setenv("ALLOW_RESET", "TRUE")
    argv, env = vectors.vector_server_process(port=8000)
    assert not {"CHROMA_SERVER_AUTHN_CREDENTIALS", "CHROMA_SERVER_AUTH_IGNORE_PATHS", "ALLOW_RESET"} & set(env)
    assert env["CHROMA_SERVER_AUTHN_CREDENTIALS_FILE"] == str(vectors.server_key_file()) and "--port" in argv
    assert stat.S_IMODE(vectors.server_key_file().stat().st_mode) == 0o600
