"""A page on a second local origin calls a real `serve` from headless Chromium (Debian's), as a pipe's
page or screenpipe's browser SDK would: with fetch() and a bearer token it reads the root screenpipe
surface (the browser's own CORS checks pass); with the login cookie instead (credentials: 'include',
from 127.0.0.1 on another port, which is "same-site", so the browser does send the cookie) it gets
nothing, and the server itself answered 401. /api/v1 is not open to other origins. The server's own
pages still call it with the cookie.

screenpipe's JS client (@screenpipe/js 1.0.21) cannot run in a page: it imports Node's fs, express
and node-cron; test_screenpipe_js.py runs it under Node instead."""

import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.pages.test_browser import chromium, frame_post, tab_logged_in  # noqa: F401 (fixtures)
from tests.server import port_pick

WORD = "periwinkle"  # on the frame this module posts, and on nothing else the shared server holds


class PipePage(BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"<!doctype html><title>a pipe</title><p>another origin</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def pipe_port():
    """A second local web server: the page of another origin (http://127.0.0.1:PORT, http://localhost:PORT)."""
    httpd = ThreadingHTTPServer(("127.0.0.1", port_pick()), PipePage)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd.server_address[1]
    httpd.shutdown()
    httpd.server_close()
    thread.join()


@pytest.fixture(scope="module")
def frame_id(live_server_proc) -> int:
    server = live_server_proc
    frame_id = frame_post(server, [f"{WORD} garden notes", "the periwinkle border by the wall"], timestamp=time.time() - 60)
    deadline = time.time() + 180
    while time.time() < deadline:
        found = server.session.get(
            server.url + "/api/v1/search", params={"q": WORD, "start_time": time.time() - 3600, "mode": "keyword"},
            timeout=30,
        ).json()
        if [item["content"]["frame_id"] for item in found["data"]] == [frame_id]:
            return frame_id
        time.sleep(0.5)
    pytest.fail(f"the worker did not OCR and index the frame in time: {found}")


@pytest.fixture
def tab(chromium, live_server_proc):  # noqa: F811
    """A tab logged in to MyRecall: its browser context holds the session cookie for 127.0.0.1."""
    tab = tab_logged_in(chromium, live_server_proc, "UTC")
    yield tab
    tab.context.close()


# Runs in the page: each call's status and what the page could read, or how the browser refused it.
CALL = """async ([url, init]) => {
  try {
    const resp = await fetch(url, init);
    const type = resp.headers.get("content-type") || "";
    const body = type.startsWith("application/json") ? await resp.json() : {bytes: (await resp.arrayBuffer()).byteLength, type};
    return {status: resp.status, body};
  } catch (error) {
    return {blocked: String(error)};
  }
}"""


def call(page, url: str, **init) -> dict:
    return page.evaluate(CALL, [url, init])


def served(server, marker: str, timeout_s: float = 10) -> list[int]:
    """The statuses the server's access log gives requests whose URL holds marker."""
    deadline = time.time() + timeout_s
    while True:
        lines = [line for line in server.log_path.read_text().splitlines() if marker in line and '" ' in line]
        if lines or time.time() > deadline:
            return [int(line.rsplit('" ', 1)[1].split()[0]) for line in lines]
        time.sleep(0.2)


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_a_page_of_another_origin_reads_the_root_surface_with_a_token(tab, live_server_proc, pipe_port, frame_id, host):
    server = live_server_proc
    page = tab.context.new_page()
    page.goto(f"http://{host}:{pipe_port}/")
    bearer = {"headers": {"Authorization": f"Bearer {server.token}"}}

    found = call(page, f"{server.url}/search?q={WORD}&content_type=ocr&start_time=1h%20ago", **bearer)
    assert found["status"] == 200, found
    assert found["body"]["data"][0]["content"]["frame_id"] == frame_id
    assert WORD in found["body"]["data"][0]["content"]["text"].lower()

    image = call(page, f"{server.url}/frames/{frame_id}", **bearer)
    assert image["status"] == 200 and image["body"]["type"] == "image/webp" and image["body"]["bytes"] > 1000
    ocr = call(page, f"{server.url}/frames/{frame_id}/ocr", **bearer)
    assert ocr["status"] == 200 and WORD in ocr["body"]["text"].lower() and ocr["body"]["text_positions"]
    metadata = call(page, f"{server.url}/frames/{frame_id}/metadata", **bearer)
    assert metadata["status"] == 200 and metadata["body"]["app_name"] == "Notes"
    assert call(page, f"{server.url}/health", **bearer)["status"] == 200
    # The answers for a frame that does not exist, readable as screenpipe's clients read them.
    missing = call(page, f"{server.url}/frames/987654321/metadata", **bearer)
    assert missing["status"] == 404 and missing["body"]["error"] == "Frame not found"
    assert call(page, f"{server.url}/frames/987654321/ocr", **bearer)["body"]["text_positions"] == []

    # Without a token: a 401 the page can read.
    assert call(page, f"{server.url}/search?q={WORD}")["status"] == 401
    # MyRecall's own /api/v1 is not open to other origins, token or not.
    strict = call(page, f"{server.url}/api/v1/search?q={WORD}&start_time={time.time() - 3600}", **bearer)
    assert "blocked" in strict, strict
    page.close()


def test_the_login_cookie_reads_nothing_from_a_page_of_another_origin(tab, live_server_proc, pipe_port, frame_id):
    server = live_server_proc
    page = tab.context.new_page()
    page.goto(f"http://127.0.0.1:{pipe_port}/")  # same-site with 127.0.0.1:PORT: SameSite=Lax cookies go along
    marker, control_marker = uuid.uuid4().hex, uuid.uuid4().hex

    # The browser sends the cookie from this page: the timeline (a page route) answers 200 to it, not the login redirect.
    control = call(page, f"{server.url}/?probe={control_marker}", credentials="include", mode="no-cors")
    assert control == {"status": 0, "body": {"bytes": 0, "type": ""}}  # opaque to the page
    assert served(server, control_marker) == [200]

    for path in (f"/search?q={WORD}&start_time=1h%20ago", f"/frames/{frame_id}", f"/frames/{frame_id}/ocr",
                 f"/api/v1/search?q={WORD}&start_time={time.time() - 3600}", f"/api/v1/frames/{frame_id}/ocr"):
        url = f"{server.url}{path}{'&' if '?' in path else '?'}probe={marker}"
        answer = call(page, url, credentials="include")
        assert "blocked" in answer or answer["status"] == 401, (path, answer)
        assert WORD not in json.dumps(answer)
    # The server refused each of them itself (the browser would have kept their answers from the page anyway).
    assert served(server, marker) == [401] * 5
    page.close()


def test_the_servers_own_pages_still_call_it_with_the_cookie(tab, live_server_proc, frame_id):
    found = call(tab, f"/search?q={WORD}&content_type=ocr&start_time=1h%20ago", headers={"Accept": "application/json"})
    assert found["status"] == 200 and found["body"]["data"][0]["content"]["frame_id"] == frame_id
    strict = call(tab, f"/api/v1/search?q={WORD}&start_time={time.time() - 3600}&mode=keyword")
    assert strict["status"] == 200 and [item["content"]["frame_id"] for item in strict["body"]["data"]] == [frame_id]
    image = call(tab, f"/frames/{frame_id}")
    assert image["status"] == 200 and image["body"]["bytes"] > 1000
