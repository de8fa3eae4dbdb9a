"""`manage.py reocr`: frames an older reader read are read again with the current one, newest
first, each indexed as it is read; a run stopped midway is finished by the next."""

import time
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from frames import services
from frames.models import Frame, OcrResult
from frames.reading import READER_VERSION
from tests.conftest import post_frame, render_text_image

pytestmark = pytest.mark.django_db(transaction=True)

WORDS = ["invoice_line_count overdue", "deployment-redis.yaml replicas", "api-worker-03 restarted", "季度预算 审批通过"]


@pytest.fixture
def old_frames(api, immediate_ocr_keyword):
    """Four frames a minute apart, read, then made to look read by an older reader that missed
    their words (as the reader before versions did on small text)."""
    now = time.time()
    ids = []
    for i, words in enumerate(WORDS):
        response = post_frame(api, render_text_image([words], size=(900, 80)), timestamp=now - 600 + 60 * i)
        assert response.status_code == 201, response.content
        ids.append(response.json()["frame_id"])
    assert all(OcrResult.objects.get(frame_id=frame_id).reader == READER_VERSION for frame_id in ids)
    for frame_id in ids:
        OcrResult.objects.filter(frame_id=frame_id).update(reader=0, text="", lines_packed=None, lines_json=[])
        services.frame_text_ready.send(sender=Frame, frame=Frame.objects.get(id=frame_id))
    return ids


def _found(api, query: str) -> list[int]:
    response = api.get("/api/v1/search", {"q": query, "start_time": time.time() - 3600, "mode": "keyword"})
    assert response.status_code == 200, response.content
    return [item["content"]["frame_id"] for item in response.json()["data"]]


def test_reocr_reads_old_frames_again_and_indexes_them(api, old_frames):
    assert _found(api, "deployment-redis.yaml") == []
    call_command("reocr")
    assert all(OcrResult.objects.get(frame_id=frame_id).reader == READER_VERSION for frame_id in old_frames)
    assert _found(api, "deployment-redis.yaml") == [old_frames[1]]
    assert _found(api, "api-worker-03") == [old_frames[2]]
    assert _found(api, "季度预算") == [old_frames[3]]


def test_reocr_takes_a_range_and_a_stopped_run_is_finished_by_the_next(api, old_frames, monkeypatch):
    first = Frame.objects.get(id=old_frames[0]).timestamp
    call_command("reocr", since=(first + timedelta(seconds=30)).isoformat())
    readers = dict(OcrResult.objects.filter(frame_id__in=old_frames).values_list("frame_id", "reader"))
    assert readers[old_frames[0]] == 0 and all(readers[i] == READER_VERSION for i in old_frames[1:])

    for frame_id in old_frames:
        OcrResult.objects.filter(frame_id=frame_id).update(reader=0)
    monkeypatch.setattr(services, "REREAD_CHUNK", 2)
    calls = []

    def stop_after_two(count):
        calls.append(count)
        if len(calls) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        services.frames_reread(progress=stop_after_two)
    readers = dict(OcrResult.objects.filter(frame_id__in=old_frames).values_list("frame_id", "reader"))
    # The newest two were read first.
    assert [readers[i] for i in old_frames] == [0, 0, READER_VERSION, READER_VERSION]
    call_command("reocr")
    assert all(OcrResult.objects.get(frame_id=frame_id).reader == READER_VERSION for frame_id in old_frames)
    assert _found(api, "invoice_line_count") == [old_frames[0]]


def test_reocr_refuses_a_date_it_cannot_read(db):
    with pytest.raises(CommandError, match="not a date"):
        call_command("reocr", since="yesterday-ish")
