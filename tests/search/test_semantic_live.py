"""Search by meaning on a real `serve`: the web server and the worker share the vector server it
runs, a screenshot becomes findable by a paraphrase, and losing the vector files degrades search
to keyword matches (never a 500) until `reindex --vectors` brings them back."""

import shutil
import time

import pytest

from tests.live import wait_for
from tests.server import LiveServer
from tests.conftest import render_text_image


def search(server: LiveServer, q: str, since: float, mode: str = "hybrid") -> dict:
    resp = server.session.get(server.url + "/api/v1/search", params={"q": q, "start_time": since, "mode": mode}, timeout=30)
    assert resp.status_code == 200, resp.text
    return resp.json()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    # The embedded vector server (its socket, its files), whatever this run's CHROMA_URL.
    with LiveServer(tmp_path_factory.mktemp("semantic") / "data", env={"CHROMA_URL": ""}) as live:
        yield live


def test_a_screenshot_is_found_by_a_paraphrase_through_the_shared_vector_server(server):
    since = time.time() - 5
    image = render_text_image(["Zahnarztpraxis Dr. Weber", "Invoice 4411: dental cleaning and x-ray", "Amount due 240 EUR by 30 Nov"], size=(1100, 60))
    resp = server.session.post(
        server.url + "/api/v1/frames",
        files={"image": ("f.png", image, "image/png")},
        data={"timestamp": time.time(), "app_name": "Firefox", "window_name": "Praxis Weber"},
        timeout=30,
    )
    assert resp.status_code == 201, resp.text
    frame_id = resp.json()["frame_id"]

    def found():
        body = search(server, "bill from my dentist", since, mode="semantic")
        return body if [item["content"]["frame_id"] for item in body["data"]] == [frame_id] else None

    body = wait_for(found)
    assert body["degraded"] is None and body["data"][0]["content"]["matched"] == ["semantic"]
    status = server.session.get(server.url + "/api/v1/status", timeout=30).json()
    assert status["semantic"]["healthy"] and status["semantic"]["backend"] == f"chroma server {server.data_dir / 'chroma' / 'server.sock'}"
    assert status["semantic"]["frames"]["done"] == 1 and status["semantic"]["vectors"] >= 1

    # The vector files vanish under the running server: word matches still answer, and say why.
    shutil.rmtree(server.data_dir / "chroma" / "db")
    body = search(server, "Zahnarztpraxis", since)
    assert [item["content"]["frame_id"] for item in body["data"]] == [frame_id]
    assert body["degraded"] and "gone" in body["degraded"]
    # The vector server starts an empty index; a rebuild from the database brings the frame back.
    wait_for(lambda: (server.data_dir / "chroma" / "db").exists() and (server.data_dir / "chroma" / "server.json").exists())
    out = server.manage("reindex", "--vectors")
    assert "1 frames embedded" in out
    body = wait_for(lambda: (b := search(server, "bill from my dentist", since, mode="semantic"))["data"] and b)
    assert [item["content"]["frame_id"] for item in body["data"]] == [frame_id] and body["degraded"] is None
