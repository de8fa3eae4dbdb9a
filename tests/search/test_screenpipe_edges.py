"""The cases screenpipe's clients hit at the root surface, answered as screenpipe 0.4.50 answers them:
a frame id no frame has (its text routes give empty text and lists, its image and metadata a 404
that deep-link handlers read), ids that are not ids, and any Unicode query."""

import http.client
import json
import socket
import time
from datetime import datetime
from datetime import timezone as dt_timezone

import pytest
from django.contrib.auth import get_user_model

from frames import storage
from frames.models import Frame, OcrResult
from tests.pages.test_browser import frame_post
from tests.server import ocr_wait

pytestmark = pytest.mark.django_db

T0 = 1_750_000_000.0
MISSING = 424242


@pytest.fixture(autouse=True)
def keyword_mode(settings):
    """The keyword side of search: the default hybrid would load the embedding model here."""
    settings.SEARCH_MODE = "keyword"


def frame_with_text(text: str) -> Frame:
    frame = Frame.objects.create(
        timestamp=datetime.fromtimestamp(T0, tz=dt_timezone.utc), image_path="frames/edge.webp", width=1000,
        height=500, image_bytes=10, ocr_status="done", app_name="Firefox", window_name="Docs",
        device_name="laptop", focused=True,
    )
    OcrResult.objects.create(frame=frame, engine="test", text=text, lines=[{"t": text, "b": [0, 0, 500, 50], "c": 0.9}])
    return frame


def assert_error_shape(resp, status: int):
    assert resp.status_code == status, resp.content
    body = resp.json()
    assert isinstance(body["message"], str) and body["message"] and isinstance(body["extra"], dict)
    return body


# ---- a frame id no frame has ----


@pytest.mark.parametrize("frame_id", [MISSING, 0, -1, 2**63 - 1, -(2**63)])
def test_text_routes_of_an_unknown_frame_answer_200_with_nothing_in_them(api, frame_id):
    frame_with_text("a real frame, which the unknown ids are not")
    ocr = api.get(f"/frames/{frame_id}/ocr", HTTP_ACCEPT="*/*")
    assert ocr.status_code == 200, ocr.content
    assert ocr.json() == {"frame_id": frame_id, "text": "", "text_positions": []}
    context = api.get(f"/frames/{frame_id}/context", HTTP_ACCEPT="*/*")
    assert context.status_code == 200, context.content
    assert context.json() == {
        "frame_id": frame_id, "text": None, "nodes": [], "urls": [], "text_source": "ocr", "before": [], "after": [],
    }


@pytest.mark.parametrize("frame_id", [MISSING, 0, -1, 2**63 - 1])
def test_image_and_metadata_of_an_unknown_frame_are_screenpipes_404(api, frame_id):
    for path in (f"/frames/{frame_id}", f"/frames/{frame_id}/metadata"):
        resp = api.get(path, HTTP_ACCEPT="*/*")
        assert resp.status_code == 404, (path, resp.content)
        assert resp["Content-Type"].startswith("application/json")
        body = resp.json()
        # What screenpipe's deep-link handlers read, and MyRecall's one error shape beside it.
        assert body["error"] == "Frame not found" and body["frame_id"] == frame_id
        assert body["message"] == f"Frame {frame_id} does not exist." and body["extra"] == {"frame_id": frame_id}


def test_a_known_frame_still_answers_in_full(api, data_dir):
    frame = frame_with_text("see https://example.org/page")
    image = storage.image_location(frame.image_path)
    image.parent.mkdir(parents=True, exist_ok=True)
    image.write_bytes(b"webp bytes")
    assert b"".join(api.get(f"/frames/{frame.id}").streaming_content) == b"webp bytes"
    assert api.get(f"/frames/{frame.id}/ocr").json()["text"] == "see https://example.org/page"
    assert api.get(f"/frames/{frame.id}/context").json()["urls"] == ["https://example.org/page"]
    assert api.get(f"/frames/{frame.id}/metadata").json()["app_name"] == "Firefox"


def test_a_frame_whose_image_file_is_gone_is_not_an_unknown_frame(api):
    frame = frame_with_text("the file was never written")
    body = assert_error_shape(api.get(f"/frames/{frame.id}"), 404)
    assert "missing" in body["message"] and "error" not in body


@pytest.mark.parametrize("frame_id", ["abc", "1.5", "1e3", "0x10", "٣", "9223372036854775808", "-9223372036854775809",
                                      "99999999999999999999999", "1" * 200])
@pytest.mark.parametrize("suffix", ["", "/ocr", "/metadata", "/context"])
def test_ids_that_are_not_ids_are_a_400(api, frame_id, suffix):
    resp = api.get(f"/frames/{frame_id}{suffix}", HTTP_ACCEPT="*/*")
    body = assert_error_shape(resp, 400)
    assert "frame" in body["message"].lower()


def test_unknown_frames_still_need_a_token(client):
    for path in (f"/frames/{MISSING}", f"/frames/{MISSING}/ocr", f"/frames/{MISSING}/metadata", f"/frames/{MISSING}/context"):
        assert_error_shape(client.get(path, HTTP_ACCEPT="*/*"), 401)


def test_the_strict_api_keeps_its_404s(api):
    for suffix in ("", "/ocr", "/metadata", "/context"):
        resp = api.get(f"/api/v1/frames/{MISSING}{suffix}")
        body = assert_error_shape(resp, 404)
        assert set(body) == {"message", "extra"}


# ---- any Unicode query is a query ----

TEXT = "会议纪要 résumé naïve Ωmega שלום مرحبا ABC 東京 Straße ﬁle ①"
# Symbols, emoji, marks, controls and scripts; none is a word of TEXT the keyword index holds.
NO_MATCH = [
    "😀", "👍🏽", "👨\u200d👩\u200d👧", "🇫🇷", "€", "§", "©", "→", "∑", "±", "°", "…", "—", "·", "•", "¶", "♥", "★",
    "。", "、", "「」", "《》", "！", "？", "～", "・", "〜", "【", "】",
    "\u0301", "\u0301\u0301\u0301", "\u200b", "\u200d", "\u200e", "\u202e", "\u2066", "\ufeff", "\ufffd",
    "\ue000", "\U000f0000", "\U0010fffd", "\x00", "\x01", "\x7f",
    "*", "\"", "'", "(", ")", "-", "^", ":", "+", "NEAR", "AND", "OR", "qz*", "\"unterminated", "(((",
    "日本語", "한국어", "ไทย", "देवनागरी", "Ελληνικά", "Кириллица", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "𠜎𠜱",
    "😀" * 400, "∑" * 1000,
]
# Queries for words of TEXT however they are written: other scripts, letter case, accents as
# combining marks, compatibility forms, and with symbols, punctuation or invisible marks around.
MATCH = [
    "会议", "résumé", "re\u0301sume\u0301", "RÉSUMÉ", "naïve", "ωmega", "שלום", "\u202eשלום", "مرحبا", "ＡＢＣ",
    "\u200bABC", "東京", "Straße", "ﬁle", "file", "会议。", "「会议」", "😀 会议", "→ résumé ←",
]
BLANK = ["\u3000", "\t", "\u0085", "\u2028", "\u3000\u3000 \t"]  # spaces of other kinds: no q, so the range is browsed


def found_as_expected(resp, frame_id: int, q: str) -> bool:
    found = [item["content"]["frame_id"] for item in resp.json()["data"]]
    return found == ([frame_id] if q in MATCH or q in BLANK else [])


@pytest.fixture
def unicode_frame(frame_make):
    return frame_make(TEXT, at=T0)


@pytest.mark.parametrize("q", NO_MATCH + MATCH + BLANK)
def test_any_unicode_query_is_a_query_on_the_root_search(api, unicode_frame, q):
    resp = api.get("/search", {"q": q}, HTTP_ACCEPT="*/*")
    assert resp.status_code == 200, resp.content
    assert found_as_expected(resp, unicode_frame, q), resp.json()


@pytest.mark.parametrize("q", NO_MATCH + MATCH + BLANK)
def test_the_strict_search_takes_them_too_or_says_why(api, unicode_frame, q):
    resp = api.get("/api/v1/search", {"q": q, "start_time": T0 - 60, "mode": "keyword"})
    if resp.status_code == 400:  # its own contract: q is at most 1000 characters, and holds no NUL
        message = assert_error_shape(resp, 400)["message"]
        assert (len(q) > 1000 and "q" in message) or ("\x00" in q and "NUL" in message)
        return
    assert resp.status_code == 200, resp.content
    assert found_as_expected(resp, unicode_frame, q), resp.json()


@pytest.mark.parametrize("raw", ["%FF", "%ED%A0%80", "%C0%80", "%F4%90%80%80", "%E2%80", "%00"])
def test_bytes_that_are_not_utf8_are_a_query_with_no_results(api, unicode_frame, raw):
    for path in ("/search?", f"/api/v1/search?start_time={T0 - 60}&mode=keyword&"):
        resp = api.get(f"{path}q={raw}", HTTP_ACCEPT="*/*")
        if raw == "%00" and path.startswith("/api/v1/"):  # MyRecall's own API refuses a NUL in any text
            assert "NUL" in assert_error_shape(resp, 400)["message"]
            continue
        assert resp.status_code == 200, (path, resp.content)
        assert resp.json()["data"] == []


def test_the_search_page_takes_them_too(client, unicode_frame):
    client.force_login(get_user_model().objects.create_superuser("admin", password="a long enough password"))
    for q in ("😀", "\u0301", "\u202e", "会议", "∑" * 1000):
        resp = client.get("/search", {"q": q, "start_time": T0 - 60}, HTTP_ACCEPT="text/html")
        assert resp.status_code == 200 and resp["Content-Type"].startswith("text/html")


def raw_get(server, target: str) -> tuple[int, bytes]:
    """GET with the target's bytes as they are, as curl sends a URL typed with an emoji or 会议 in it."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=60) as sock:
        sock.sendall(
            b"GET " + target.encode() + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: */*\r\n"
            + f"Authorization: Bearer {server.token}\r\nConnection: close\r\n\r\n".encode()
        )
        resp = http.client.HTTPResponse(sock)
        resp.begin()
        return resp.status, resp.read()


def test_a_live_server_takes_a_query_sent_as_raw_utf8(live_server_proc):
    server = live_server_proc
    frame_id = frame_post(server, ["会议纪要 quillwort 东京", "résumé of the quillwort meeting"], timestamp=time.time() - 30)
    ocr_wait(server=server, frame_ids=[frame_id], timeout_s=180)

    status, body = raw_get(server, "/search?q=会议纪要&content_type=ocr&start_time=1h ago".replace(" ", "%20"))
    assert status == 200, body
    assert frame_id in [item["content"]["frame_id"] for item in json.loads(body)["data"]]
    for q in ("😀", "€", "。", "\u0301", "\u202eשלום"):
        status, body = raw_get(server, f"/search?q={q}&start_time=1h%20ago")
        assert status == 200, (q, body)
    status, body = raw_get(server, f"/api/v1/search?q=会议纪要&mode=keyword&start_time={time.time() - 3600}")
    assert status == 200, body
    assert [item["content"]["frame_id"] for item in json.loads(body)["data"]] == [frame_id]
    # Raw bytes in a path: the route answers, in the error shape.
    status, body = raw_get(server, "/frames/é")
    assert status == 400 and b"frame id" in body
