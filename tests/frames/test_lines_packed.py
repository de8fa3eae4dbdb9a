"""OCR lines are stored in a binary form that gives back exactly the lines OCR made; lines it
cannot give back exactly, and rows in the older forms, still read the same."""

import io
import json
import zlib

import pytest
from django.core.management import call_command
from django.db import connection

from frames.models import OcrResult
from frames.selectors import ocr_lines_old
from frames.text import LINES_BINARY, LINES_PACKED_VERSION, lines_pack, lines_packed_form, lines_unpack

LINES = [
    {"t": "Google Chrome File Edit", "b": [6, 0, 390, 28], "c": 0.993, "w": [["Google", 18, 0, 50, 28], ["Chrome", 75, 0, 54, 28], ["File", 150, 0, 21, 28], ["Edit", 192, 0, 31, 28]]},
    {"t": "会议记录 Budget: $1,200", "b": [1782, 40, 132, 30], "c": 1.0, "w": [["会议记录", 1791, 41, 32, 29], ["Budget:", 1825, 38, 9, 33], ["$1,200", 1840, 40, 24, 27]]},
    # Words that do not stand in the line as they are: redacted (""), or read apart from it.
    {"t": "token [redacted] end", "b": [-3, 35, 66, 28], "c": 0.59, "w": [["", 15, 30, 13, 28], ["elsewhere", 0, 100, 13, 28], ["end", 53, 36, 13, 27]]},
    {"t": "", "b": [0, 0, 0, 0], "c": 0.0, "w": []},
]


def _text(lines):
    return "\n".join(line["t"] for line in lines)


@pytest.mark.parametrize("text", [_text(LINES), "a frame text that is not the lines' texts"])
def test_lines_come_back_exactly_from_the_binary_form(text):
    packed = lines_pack(LINES, text=text)
    assert lines_packed_form(packed) == LINES_BINARY
    assert lines_unpack(packed, text=text) == LINES


def test_the_binary_form_is_much_smaller_than_the_json_form_on_many_lines():
    lines = [
        {"t": f"line {n} of the quarterly budget review", "b": [40, 30 * n, 600, 24], "c": 0.987,
         "w": [[word, 40 + 70 * i, 30 * n, 60, 24] for i, word in enumerate(f"line {n} of the quarterly budget review".split())]}
        for n in range(40)
    ]
    text = _text(lines)
    form_1 = zlib.compress(json.dumps([LINES_PACKED_VERSION, lines], separators=(",", ":")).encode(), 9)
    packed = lines_pack(lines, text=text)
    assert lines_unpack(packed, text=text) == lines
    assert len(packed) * 2 < len(form_1)


@pytest.mark.parametrize(
    "odd",
    [
        {"t": "half pixel", "b": [1.5, 2, 30, 10], "c": 0.9, "w": [["half", 1.5, 2, 10, 10]]},
        {"t": "fine confidence", "b": [1, 2, 30, 10], "c": 0.98765, "w": []},
        {"t": "nul\x00inside", "b": [1, 2, 30, 10], "c": 0.5, "w": [["x\x00y", 1, 2, 3, 4]]},
    ],
)
def test_lines_the_binary_form_cannot_keep_exactly_are_kept_in_the_json_form(odd):
    lines = [LINES[0], odd]
    packed = lines_pack(lines, text=_text(lines))
    assert lines_packed_form(packed) == LINES_PACKED_VERSION
    assert lines_unpack(packed, text=_text(lines)) == lines


def _plan(where: str) -> str:
    """How the database finds the OCR rows that meet `where`."""
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute(f"EXPLAIN QUERY PLAN SELECT frame_id FROM frames_ocrresult WHERE {where}")
            return " ".join(str(row) for row in cursor.fetchall())
        cursor.execute("SET enable_seqscan = off")  # a table this small is cheaper to scan: can an index answer?
        try:
            cursor.execute(f"EXPLAIN SELECT frame_id FROM frames_ocrresult WHERE {where}")
            return " ".join(row[0] for row in cursor.fetchall())
        finally:
            cursor.execute("RESET enable_seqscan")


@pytest.mark.django_db(transaction=True)
def test_rows_packed_in_the_older_form_are_packed_again_by_compact(api, immediate_ocr_keyword):
    from tests.conftest import post_frame, render_text_image

    frame_id = post_frame(api, render_text_image(["Quarterly budget review", "会议记录 and invoice 2026"], size=(900, 200))).json()["frame_id"]
    row = OcrResult.objects.get(frame_id=frame_id)
    lines = row.lines
    assert lines and lines_packed_form(bytes(row.lines_packed)) == LINES_BINARY
    assert ocr_lines_old().count() == 0
    older = zlib.compress(json.dumps([LINES_PACKED_VERSION, [[None, l["b"], l["c"], [[w[0], *w[1:]] for w in l["w"]]] for l in lines]]).encode(), 9)
    with connection.cursor() as cursor:
        cursor.execute("UPDATE frames_ocrresult SET lines_packed = %s WHERE frame_id = %s", [older, frame_id])
    assert "frames_ocrresult_lines_old" in _plan(ocr_lines_old().query.where.children[0].sqls[0])  # not a scan of every row
    assert OcrResult.objects.get(frame_id=frame_id).lines == lines  # read as it is meanwhile
    assert list(ocr_lines_old().values_list("frame_id", flat=True)) == [frame_id]
    out = io.StringIO()
    call_command("compact", stdout=out)
    assert "Rewrote 1 (ocr lines)" in out.getvalue()
    row = OcrResult.objects.get(frame_id=frame_id)
    assert lines_packed_form(bytes(row.lines_packed)) == LINES_BINARY and row.lines == lines
    assert ocr_lines_old().count() == 0
