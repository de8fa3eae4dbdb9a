"""The cases screenpipe's clients hit at the root surface, answered as screenpipe 0.4.50 answers them:
a frame id no frame has (its text routes give empty text and lists, its image and metadata a 404
that deep-link handlers read), ids that are not ids, and any Unicode query."""

from datetime import datetime
from datetime import timezone as dt_timezone

import pytest

from frames import storage
from frames.models import Frame, OcrResult

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
        height=500, image_bytes=10, phash=b"", ocr_status="done", app_name="Firefox", window_name="Docs",
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
    image = storage.image_abspath(frame.image_path)
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
