"""Live frames first: the order the worker reads frames in (OCR, and with it the keyword index),
on the real task table with the claim the worker makes; and on a real `serve`, a frame posted
during a backlog is searchable before the backlog is done, and the backlog still drains."""

import time

import pytest
from django_tasks_db.models import DBTaskResult

from frames.services import LIVE_MAX_AGE_S, frame_ingest
from frames.tasks import frame_ocr
from tests.conftest import render_text_image

pytestmark = pytest.mark.django_db


def _ingest(word: str, *, device: str, age_s: float = 0.0, imported: bool = False) -> int:
    image = render_text_image([f"{word} on the screen of {device}"])
    result = frame_ingest(image_bytes=image, timestamp=time.time() - age_s, device_name=device, imported=imported)
    assert result.status == "created"
    return result.frame_id


def _claims() -> list[int]:
    """The frames whose OCR the worker takes, in the order it takes them (its own claim query)."""
    order = []
    while (task := DBTaskResult.objects.ready().get_locked()) is not None:
        task.claim("test-worker")
        if task.task_path == frame_ocr.module_path:
            order.append(task.args_kwargs["args"][0])
    return order


def test_live_frames_are_read_before_imports_and_resends_each_devices_newest_first(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        imported = [_ingest(f"imported{n}", device="archive", imported=True) for n in range(3)]
        resent = [_ingest(f"spooled{n}", device="laptop", age_s=LIVE_MAX_AGE_S + 600 - n) for n in range(2)]
        laptop_first = _ingest("typed", device="laptop")
        desktop = _ingest("reading", device="desktop")
        laptop_newest = _ingest("sent", device="laptop")
    # Each device's newest screen first, then the live ones they overtook, then the backlog as it came.
    assert _claims() == [desktop, laptop_newest, laptop_first, *imported, *resent]


def test_a_live_frame_taken_before_a_waiting_one_does_not_overtake_it(django_capture_on_commit_callbacks):
    """A client that sends out of order (a retry of an older capture) does not push its newer frame back."""
    with django_capture_on_commit_callbacks(execute=True):
        newer = _ingest("newer", device="laptop", age_s=1)
        older = _ingest("older", device="laptop", age_s=5)
    assert _claims() == [newer, older]
