import io
import time

import pytest
from PIL import Image

from frames.models import Frame, OcrResult
from tests.conftest import post_frame, render_text_image

pytestmark = pytest.mark.django_db


@pytest.mark.django_db(transaction=True)
def test_ingest_then_ocr_then_search_english_and_chinese(api, immediate_ocr):
    image = render_text_image(["Quarterly budget review with finance", "今天下午讨论机器学习项目"], size=(900, 60))
    resp = post_frame(api, image, client_frame_id="c1", app_name="Firefox", window_name="Budget - Docs")
    assert resp.status_code == 201, resp.content
    frame_id = resp.json()["frame_id"]

    ocr = api.get(f"/api/v1/frames/{frame_id}/ocr").json()
    assert ocr["status"] == "done"
    assert "budget" in ocr["text"].lower()
    assert "机器学习" in ocr["text"]
    assert set(ocr["languages"]) == {"en", "zh"}
    assert any(w["text"].lower() == "budget" for line in ocr["lines"] for w in line["words"])

    for q in ["budget", "budget review", "机器", "学习", "机器学习", "下午"]:
        body = api.get("/api/v1/search", {"q": q, "start_time": time.time() - 60}).json()
        assert [hit["content"]["frame_id"] for hit in body["data"]] == [frame_id], q
        assert body["data"][0]["type"] == "OCR"
        assert body["data"][0]["content"]["frame_url"] == f"/api/v1/frames/{frame_id}"
    body = api.get("/api/v1/search", {"q": "marketing", "start_time": time.time() - 60}).json()
    assert body["data"] == []


def test_retry_with_same_client_frame_id_returns_same_frame(api):
    image = render_text_image(["retry me"])
    first = post_frame(api, image, client_frame_id="abc-1", timestamp=time.time() - 5)
    again = post_frame(api, image, client_frame_id="abc-1", timestamp=time.time() - 5)
    assert first.status_code == 201
    assert again.status_code == 200
    assert again.json()["status"] == "existing"
    assert again.json()["frame_id"] == first.json()["frame_id"]
    assert Frame.objects.count() == 1


def test_near_duplicate_of_previous_frame_is_skipped_and_named(api):
    image = render_text_image(["the same screen twice"], size=(800, 400))
    first = post_frame(api, image, timestamp=time.time() - 10)
    # The same screen again, re-encoded as JPEG: pixels differ slightly, the screen does not.
    jpeg = io.BytesIO()
    Image.open(io.BytesIO(image)).save(jpeg, format="JPEG", quality=90)
    second = post_frame(api, jpeg.getvalue(), timestamp=time.time() - 5)
    assert second.status_code == 200
    assert second.json()["status"] == "duplicate"
    assert second.json()["duplicate_of"] == first.json()["frame_id"]
    # A different screen from the same device is stored.
    third = post_frame(api, render_text_image(["a completely different screen", "with more lines"], size=(800, 400)))
    assert third.status_code == 201
    # The same screen from another device is stored too.
    other = post_frame(api, image, device_name="desktop")
    assert other.status_code == 201
    assert Frame.objects.count() == 3


@pytest.mark.parametrize(
    "fields,status,fragment",
    [
        ({"timestamp": "yesterday"}, 400, "timestamp"),
        ({"timestamp": str(time.time() * 1000)}, 400, "milliseconds"),
        ({"timestamp": "-5"}, 400, "2000"),
        ({"timestamp": "nan"}, 400, "timestamp"),
    ],
)
def test_bad_timestamp_is_400_and_nothing_written(api, data_dir, fields, status, fragment):
    resp = post_frame(api, render_text_image(["bad time"]), **fields)
    assert resp.status_code == status
    body = resp.json()
    assert set(body) == {"message", "extra"}
    assert fragment in body["message"] + str(body["extra"])
    assert Frame.objects.count() == 0
    assert not list((data_dir / "frames").rglob("*.webp")) if (data_dir / "frames").exists() else True


def _truncated_png() -> bytes:
    data = render_text_image(["cut short"], size=(800, 300))
    return data[: len(data) // 2]


@pytest.mark.parametrize(
    "payload,status",
    [
        (_truncated_png(), 415),
        (b"\x89PNG\r\n\x1a\n" + b"garbage" * 100, 415),
        (b"%PDF-1.4 not an image", 415),
        (b"", 415),
        (b"GIF89a" + bytes(range(256)) * 4, 415),
    ],
)
def test_corrupt_or_non_image_is_4xx_and_nothing_written(api, data_dir, payload, status):
    resp = post_frame(api, payload)
    assert resp.status_code == status
    assert set(resp.json()) == {"message", "extra"}
    assert Frame.objects.count() == 0
    assert not [p for p in data_dir.rglob("*") if p.is_file() and p.suffix == ".webp"]


def test_gif_is_refused_as_unsupported(api):
    gif = io.BytesIO()
    Image.new("RGB", (64, 64), "white").save(gif, format="GIF")
    resp = post_frame(api, gif.getvalue())
    assert resp.status_code == 415
    assert "GIF" in resp.json()["message"]


def test_too_large_upload_is_413(api, settings):
    settings.MAX_UPLOAD_BYTES = 10_000
    big = render_text_image(["x"] * 3, size=(1600, 1200), fmt="BMP")
    resp = post_frame(api, big)
    assert resp.status_code == 413
    assert resp.json()["extra"]["max_bytes"] == 10_000
    assert Frame.objects.count() == 0


def test_an_image_of_too_many_pixels_is_413_and_nothing_written(api, monkeypatch):
    from frames import imaging

    monkeypatch.setattr(imaging, "MAX_PIXELS", 300 * 300)  # the real limit is 8192 x 8192
    resp = post_frame(api, render_text_image(["wide"], size=(400, 300)))
    assert resp.status_code == 413
    assert resp.json()["extra"]["max_pixels"] == 300 * 300
    assert Frame.objects.count() == 0


def test_missing_image_is_400_in_error_shape(api):
    resp = api.post("/api/v1/frames", {"timestamp": time.time()})
    assert resp.status_code == 400
    assert set(resp.json()) == {"message", "extra"}
    assert "image" in resp.json()["message"]


def test_failure_between_image_and_commit_leaves_nothing(api, data_dir, monkeypatch):
    from frames import storage

    real_place = storage.StagedImage.place

    def place_then_fail(staged):
        real_place(staged)
        raise OSError("disk went away")

    monkeypatch.setattr(storage.StagedImage, "place", place_then_fail)
    resp = post_frame(api, render_text_image(["atomic"]))
    assert resp.status_code == 500
    assert set(resp.json()) == {"message", "extra"}
    assert Frame.objects.count() == 0
    assert [p for p in data_dir.rglob("*") if p.is_file()] == []


@pytest.mark.django_db(transaction=True)
def test_image_metadata_context_routes(api, immediate_ocr):
    now = time.time()
    ids = []
    for i, words in enumerate(["alpha screen", "bravo screen here", "charlie screen there now"]):
        resp = post_frame(api, render_text_image([words], size=(700, 200 + 80 * i)), timestamp=now - 30 + i, window_name=f"w{i}")
        ids.append(resp.json()["frame_id"])

    image = api.get(f"/api/v1/frames/{ids[1]}")
    assert image.status_code == 200
    assert image["Content-Type"] == "image/webp"
    assert Image.open(io.BytesIO(b"".join(image.streaming_content))).size == (700, 280)
    bare = api.get(f"/frames/{ids[1]}")
    assert bare.status_code == 200 and bare["Content-Type"] == "image/webp"

    meta = api.get(f"/api/v1/frames/{ids[1]}/metadata").json()
    assert meta["window_name"] == "w1" and meta["device_name"] == "laptop" and meta["ocr_status"] == "done"

    context = api.get(f"/api/v1/frames/{ids[1]}/context").json()
    assert [f["frame_id"] for f in context["before"]] == [ids[0]]
    assert [f["frame_id"] for f in context["after"]] == [ids[2]]

    assert api.get("/api/v1/frames/999999/metadata").status_code == 404
    assert set(api.get("/api/v1/frames/999999").json()) == {"message", "extra"}


@pytest.mark.django_db(transaction=True)
def test_ocr_failure_is_recorded_and_retried_boundedly(api, settings, immediate_ocr, monkeypatch):
    from frames import services

    settings.OCR_MAX_ATTEMPTS = 3
    calls = []

    def broken_read(frame):
        calls.append(frame.id)
        raise RuntimeError("engine crashed")

    monkeypatch.setattr(services, "_ocr_read", broken_read)
    resp = post_frame(api, render_text_image(["will fail"]), app_name="Slack")
    frame = Frame.objects.get(id=resp.json()["frame_id"])
    assert frame.ocr_status == "failed"
    assert frame.ocr_attempts == 3
    assert "engine crashed" in frame.ocr_error
    assert len(calls) == 3
    assert not OcrResult.objects.filter(frame=frame).exists()
    # Still findable by its metadata.
    body = api.get("/api/v1/search", {"q": "slack", "start_time": time.time() - 60}).json()
    assert [h["content"]["frame_id"] for h in body["data"]] == [frame.id]


def test_one_typed_word_on_a_full_hd_screen_is_not_a_duplicate(api):
    import random

    from tests.screens import new_screen, render

    screen = new_screen(random.Random(7), "editor")
    before = io.BytesIO()
    render(screen).save(before, format="PNG")
    screen.lines[screen.scroll + 3] += " ok"
    after = io.BytesIO()
    render(screen).save(after, format="PNG")
    assert post_frame(api, before.getvalue(), timestamp=time.time() - 3).status_code == 201
    resp = post_frame(api, after.getvalue(), timestamp=time.time() - 1)
    assert resp.status_code == 201, resp.json()


def test_worker_start_requeues_pending_frames_whose_task_was_lost(api):
    from django_tasks_db.models import DBTaskResult

    from frames.services import frames_ocr_requeue

    ids = [post_frame(api, render_text_image([f"lost task {i}"], size=(600, 80 + 40 * i))).json()["frame_id"] for i in range(2)]
    # on_commit never ran inside the test transaction: both frames are pending with no task.
    assert DBTaskResult.objects.count() == 0
    assert frames_ocr_requeue() == 2
    assert sorted(r["args"][0] for r in DBTaskResult.objects.values_list("args_kwargs", flat=True)) == sorted(ids)
    assert frames_ocr_requeue() == 0  # already queued: not twice


def test_text_screens_are_stored_lossless(api, data_dir):
    """(Screens of photos, noise and dense text: tests/frames/test_storage.py.)"""
    import numpy as np

    text = render_text_image(["lossless keeps every pixel of text"], size=(800, 200))
    frame_id = post_frame(api, text).json()["frame_id"]
    stored = Image.open(data_dir / Frame.objects.get(id=frame_id).image_path)
    assert np.array_equal(np.asarray(stored.convert("RGB")), np.asarray(Image.open(io.BytesIO(text)).convert("RGB")))



def test_non_image_error_names_no_internal_objects(api):
    body = post_frame(api, b"plain text, not a picture").json()
    assert "object at 0x" not in str(body)


def test_ocr_boxes_are_stored_packed_with_the_text_once(db):
    import json

    from django.db import connection

    from frames.models import OcrResult

    frame = Frame.objects.create(
        timestamp="2026-11-22T10:00:00Z", image_path="x.webp", width=10, height=10, image_bytes=1
    )
    lines = [
        {"t": "机器 学习 Budget", "b": [1, 2, 300, 40], "c": 0.93, "w": [["机器", 1, 2, 40, 40], ["学习", 50, 2, 40, 40], ["Budget", 100, 2, 90, 40]]},
        {"t": "card [redacted]", "b": [1, 50, 300, 40], "c": 0.5, "w": [["card", 1, 50, 40, 40], ["", 50, 50, 40, 40], ["oddword", 90, 50, 9, 40]]},
    ]
    text = "\n".join(line["t"] for line in lines)
    OcrResult.objects.create(frame=frame, engine="rapidocr", text=text, lines=lines)
    with connection.cursor() as cursor:
        cursor.execute("SELECT lines, lines_packed FROM frames_ocrresult WHERE frame_id = %s", [frame.id])
        raw, packed = cursor.fetchone()
    assert raw == "[]"
    assert "机器".encode() not in bytes(packed)  # compressed, and the text is kept once (in `text`)
    assert OcrResult.objects.get(frame=frame).lines == lines  # every word and box back, in the same shape
    big = [dict(lines[0], w=lines[0]["w"] * 20)] * 40
    OcrResult.objects.filter(frame=frame).delete()
    row = OcrResult.objects.create(frame=frame, engine="rapidocr", text="\n".join(line["t"] for line in big), lines=big)
    assert len(bytes(OcrResult.objects.get(frame=frame).lines_packed)) * 3 < len(json.dumps(big, ensure_ascii=False, separators=(",", ":")).encode())
    assert OcrResult.objects.get(frame=frame).lines == big == row.lines
    # A row written before lines were packed reads its JSON.
    with connection.cursor() as cursor:
        cursor.execute("UPDATE frames_ocrresult SET lines = %s, lines_packed = NULL WHERE frame_id = %s", [json.dumps(lines), frame.id])
    assert OcrResult.objects.get(frame=frame).lines == lines
