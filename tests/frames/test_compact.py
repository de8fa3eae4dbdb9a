"""Rows a MyRecall before stored in a larger form (OCR lines as JSON) are rewritten in place, by
`manage.py compact` and by the worker in the background: the same lines come back, in less space."""

import io
import json

import pytest
from django.core.management import call_command
from django.db import connection
from PIL import Image

from frames.imaging import SIGNATURE_BYTES, hash_unpack, image_hash
from frames.models import OcrResult
from frames.selectors import ocr_lines_old
from frames.tasks import storage_compact_start
from tests.conftest import post_frame, render_text_image

pytestmark = pytest.mark.django_db(transaction=True)


def _as_written_before(frame_id: int) -> list[dict]:
    """Turn a frame's OCR row back into the older form; returns its lines."""
    lines = OcrResult.objects.get(frame_id=frame_id).lines
    with connection.cursor() as cursor:
        cursor.execute("UPDATE frames_ocrresult SET lines = %s, lines_packed = NULL WHERE frame_id = %s", [json.dumps(lines), frame_id])
    return lines


def _db_bytes(table: str, column: str) -> int:
    """The bytes a column's values take as stored (PostgreSQL: its own binary form of JSON)."""
    size = "length" if connection.vendor == "sqlite" else "pg_column_size"
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT sum({size}({column})) FROM {table}")
        return cursor.fetchone()[0] or 0


def test_compact_rewrites_older_rows_in_place_and_they_read_the_same(api, immediate_ocr_keyword):
    ids = [
        post_frame(api, render_text_image([f"Quarterly budget review {n}", "会议记录 and invoice 2026", "x" * n], size=(900, 200)),
                   client_frame_id=f"c{n}").json()["frame_id"]
        for n in range(4)
    ]
    new_form = {frame_id: OcrResult.objects.get(frame_id=frame_id).lines_packed for frame_id in ids}
    assert all(new_form.values())  # new rows are packed when written
    before = {frame_id: _as_written_before(frame_id) for frame_id in ids}
    assert ocr_lines_old().count() == 4
    json_bytes = _db_bytes("frames_ocrresult", "lines")

    out = io.StringIO()
    call_command("compact", stdout=out, batch=3)
    assert "Rewrote 4 (ocr lines), 0 (ocr text)" in out.getvalue()
    assert ocr_lines_old().count() == 0
    for frame_id, lines in before.items():
        assert OcrResult.objects.get(frame_id=frame_id).lines == lines
    packed = _db_bytes("frames_ocrresult", "lines_packed")
    assert packed * 2 < json_bytes  # the boxes in less than half the space
    # Run again: nothing left to do; --vacuum then rebuilds the file (PostgreSQL: the tables), giving back what rows left.
    again = io.StringIO()
    call_command("compact", "--vacuum", stdout=again)
    assert "Rewrote 0 (ocr lines), 0 (ocr text)" in again.getvalue()
    assert f"Rebuilt the database {'file' if connection.vendor == 'sqlite' else 'tables'}" in again.getvalue()
    # A new screen is still told from the stored ones, and the same screen is still a duplicate.
    same = post_frame(api, render_text_image(["Quarterly budget review 3", "会议记录 and invoice 2026", "xxx"], size=(900, 200)))
    assert same.json()["status"] == "duplicate"


def test_the_worker_rewrites_them_in_the_background(api, immediate_ocr_keyword):
    frame_id = post_frame(api, render_text_image(["background compaction"], size=(900, 200))).json()["frame_id"]
    later = post_frame(api, render_text_image(["a later screen, other words"], size=(900, 200))).json()["frame_id"]
    _as_written_before(later)
    call_command("compact", stdout=io.StringIO())  # this process's pass has gone past frame_id
    lines = _as_written_before(frame_id)  # an older row behind it (as a restore would write)
    assert "background" in storage_compact_start()  # queued, and with this backend run at once
    assert OcrResult.objects.get(frame_id=frame_id).lines_packed is not None
    assert OcrResult.objects.get(frame_id=frame_id).lines == lines
    assert storage_compact_start() is None  # nothing left: nothing queued


def test_a_screen_signature_is_stored_compressed(db):
    image = Image.open(io.BytesIO(render_text_image(["signature"], size=(1920, 1080)))).convert("RGB")
    signature = image_hash(image)
    assert len(signature) < 300 and len(hash_unpack(signature)) == SIGNATURE_BYTES
