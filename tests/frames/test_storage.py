"""frames.storage owns how a frame's image is kept: a frame stored in another format than today's
keeps opening everywhere (the API, thumbnails, OCR, an assistant's preview), and a missing file is
a clear 404, never a crash."""

import io
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth import get_user_model
from PIL import Image

from frames import services, storage
from frames.models import Frame, OcrStatus
from frames.tools import FrameImageIn
from myrecall.errors import ApplicationError
from myrecall.tools import Context, tool_get
from tests.conftest import post_frame, render_text_image

pytestmark = pytest.mark.django_db


def _restore_as(frame: Frame, fmt: str, suffix: str) -> Image.Image:
    """Rewrite the frame's file in another format under a path of that suffix, as an older
    install or an archive might hold it; returns the pixels written."""
    pixels = storage.image_pixels(frame.image_path)
    old = storage.image_location(frame.image_path)
    relpath = frame.image_path.rsplit(".", 1)[0] + suffix
    out = io.BytesIO()
    pixels.save(out, format=fmt)
    storage.image_location(relpath).write_bytes(out.getvalue())
    old.unlink()
    Frame.objects.filter(id=frame.id).update(image_path=relpath)
    return pixels


@pytest.mark.parametrize("fmt, suffix, content_type", [("PNG", ".png", "image/png"), ("JPEG", ".jpg", "image/jpeg")])
def test_a_frame_stored_in_another_format_keeps_opening(api, client, fmt, suffix, content_type):
    image = render_text_image(["Invoice from the dentist", "due on Friday"], size=(700, 120))
    frame_id = post_frame(api, image).json()["frame_id"]
    frame = Frame.objects.get(id=frame_id)
    assert frame.image_path.endswith(storage.IMAGE_SUFFIX)
    pixels = _restore_as(frame, fmt, suffix)
    frame.refresh_from_db()

    served = api.get(f"/api/v1/frames/{frame_id}")
    assert served.status_code == 200
    assert served["Content-Type"] == content_type
    with Image.open(io.BytesIO(b"".join(served.streaming_content))) as back:
        assert back.format == fmt and back.size == pixels.size

    assert services.frame_ocr_run(frame_id=frame_id) == "done"
    frame.refresh_from_db()
    assert frame.ocr_status == OcrStatus.DONE
    assert "dentist" in frame.ocr.text.lower()

    user = get_user_model().objects.create_user("viewer", password="pw")
    client.force_login(user)
    thumb = client.get(f"/frames/{frame_id}/thumb")
    assert thumb.status_code == 200
    with Image.open(io.BytesIO(b"".join(thumb.streaming_content))) as small:
        assert small.width == 320


def test_new_frames_are_stored_in_todays_format_and_their_files_listed_for_removal(api):
    frame_id = post_frame(api, render_text_image(["storage"])).json()["frame_id"]
    frame = Frame.objects.get(id=frame_id)
    files = storage.frame_relpaths(frame.id, frame.timestamp, frame.image_path)
    assert files[0] == frame.image_path and storage.image_location(files[0]).is_file()
    assert storage.image_content_type(frame.image_path) == "image/webp"
    assert storage.image_bytes(frame.image_path) == storage.image_location(frame.image_path).read_bytes()
    assert frame.image_bytes == len(storage.image_bytes(frame.image_path))


def test_a_missing_image_is_a_404_in_the_error_shape(api):
    frame_id = post_frame(api, render_text_image(["gone"])).json()["frame_id"]
    storage.image_location(Frame.objects.get(id=frame_id).image_path).unlink()
    for url in (f"/api/v1/frames/{frame_id}", f"/frames/{frame_id}"):  # the API, and screenpipe's bare path
        resp = api.get(url)
        assert resp.status_code == 404, url
        assert set(resp.json()) == {"message", "extra"}
        assert "missing" in resp.json()["message"]
    with pytest.raises(ApplicationError) as raised:  # an assistant's preview (MCP's frame_image)
        tool_get("frame_image").run(FrameImageIn(), Context(zone=ZoneInfo("UTC")), frame_id=frame_id)
    assert raised.value.status_code == 404
    with pytest.raises(storage.ImageMissing):
        storage.image_pixels(Frame.objects.get(id=frame_id).image_path)
