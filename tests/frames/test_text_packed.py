"""OCR text is stored compressed and read back as the same text everywhere (the row, values(),
values_list()); its length in characters is kept beside it for the filters by length; rows of an
older install are compressed by the compaction, and the migration gives them their length."""

import io
import random
from datetime import datetime
from datetime import timezone as dt_timezone

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from frames.models import Frame, OcrResult
from frames.selectors import ocr_text_old
from frames.services import ocr_text_compact
from frames.text import TEXT_PACK_MIN, text_pack, text_unpack

ENGLISH = "Quarterly budget review\nInvoice 4411 from the dentist, due 30 November\n" * 6
CHINESE = "会议记录：项目进度与预算评审\n下周三之前提交季度报告，并同步给产品经理\n" * 5
TEXTS = {"english": ENGLISH, "chinese": CHINESE, "empty": "", "short": "OK", "repeated": "x" * 500, "mixed": ENGLISH + CHINESE}


def _frame(n: int = 0) -> Frame:
    return Frame.objects.create(
        timestamp=datetime(2026, 3, 2, 9, n, tzinfo=dt_timezone.utc), image_path=f"x/{n}.webp", width=10, height=10, image_bytes=1
    )


def _stored(frame_id: int) -> tuple[str, int, int]:
    """The stored text's type (on SQLite the value's, 'text' or 'blob'; on PostgreSQL the column's,
    'bytea'), its bytes, and text_length."""
    if connection.vendor == "sqlite":
        kind, size = "typeof(text)", "length(CAST(text AS BLOB))"
    else:
        kind, size = "pg_typeof(text)::text", "octet_length(text)"
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {kind}, {size}, text_length FROM frames_ocrresult WHERE frame_id = %s", [frame_id])
        return cursor.fetchone()


def _bytes() -> str:
    """The type a packed text is stored as."""
    return "blob" if connection.vendor == "sqlite" else "bytea"


def _as_is(text: str) -> tuple[str, int]:
    """How a text too short to compress is stored: on SQLite as text, its UTF-8 as it is; on
    PostgreSQL (a bytes column) its UTF-8 after the one-byte tag of frames.text.text_pack."""
    if connection.vendor == "sqlite":
        return "text", len(text.encode())
    return "bytea", len(text.encode()) + 1


@pytest.mark.django_db
@pytest.mark.parametrize("name", TEXTS)
def test_a_text_comes_back_the_same_from_every_read(name):
    text = TEXTS[name]
    frame = _frame()
    row = OcrResult.objects.create(frame=frame, engine="test", text=text, lines=[])
    assert row.text == text and row.text_length == len(text)
    assert OcrResult.objects.get(frame=frame).text == text
    assert Frame.objects.values_list("ocr__text", flat=True).get(id=frame.id) == text
    assert Frame.objects.values("id", "ocr__text").get(id=frame.id)["ocr__text"] == text
    assert OcrResult.objects.values_list("frame_id", "text").get() == (frame.id, text)
    kind, size, length = _stored(frame.id)
    assert length == len(text)
    if len(text.encode()) < TEXT_PACK_MIN:
        assert (kind, size) == _as_is(text)  # short: as it is
    else:
        assert kind == _bytes() and size < len(text.encode()) * 0.7, (kind, size)


@pytest.mark.django_db
def test_a_long_text_that_deflate_cannot_shrink_is_kept_whole_as_bytes():
    rng = random.Random(3)
    text = "".join(chr(rng.randrange(0x4E00, 0x9FFF)) for _ in range(300))  # 300 random ideographs
    frame = _frame()
    OcrResult.objects.create(frame=frame, engine="test", text=text, lines=[])
    assert OcrResult.objects.get(frame=frame).text == text
    kind, size, _ = _stored(frame.id)
    assert kind == _bytes() and size <= len(text.encode()) + 1
    assert text_unpack(text_pack(text)) == text and not ocr_text_old().exists()


@pytest.mark.django_db
def test_every_write_keeps_the_length_with_the_text():
    frame = _frame()
    row = OcrResult.objects.create(frame=frame, engine="test", text="first", lines=[])
    row.text = CHINESE
    row.save(update_fields=["text"])
    assert _stored(frame.id)[2] == len(CHINESE)
    OcrResult.objects.filter(frame=frame).update(text=ENGLISH)
    assert _stored(frame.id)[2] == len(ENGLISH) and OcrResult.objects.get(frame=frame).text == ENGLISH
    OcrResult.objects.update_or_create(frame=frame, defaults={"engine": "test", "text": "again", "lines": []})
    assert _stored(frame.id) == (*_as_is("again"), 5)
    other = _frame(1)
    OcrResult.objects.bulk_create([OcrResult(frame=other, engine="test", text=CHINESE)])
    assert _stored(other.id)[2] == len(CHINESE)


def _as_written_before(frame_id: int, text: str) -> None:
    """The row as a MyRecall before packing stored it: the text as text."""
    with connection.cursor() as cursor:
        cursor.execute("UPDATE frames_ocrresult SET text = %s WHERE frame_id = %s", [text, frame_id])
    assert _stored(frame_id)[0] == "text"


@pytest.mark.sqlite_only  # rows an older install stored as text; on PostgreSQL the column holds bytes since migration 0011
@pytest.mark.django_db(transaction=True)
def test_the_compaction_packs_older_rows_once():
    frames = [_frame(n) for n in range(5)]
    texts = [ENGLISH, CHINESE, "short", "", "x" * 500]
    for frame, text in zip(frames, texts):
        OcrResult.objects.create(frame=frame, engine="test", text=text, lines=[])
        _as_written_before(frame.id, text)
    assert sorted(ocr_text_old().values_list("frame_id", flat=True)) == [frames[0].id, frames[1].id, frames[4].id]
    out = io.StringIO()
    call_command("compact", stdout=out, batch=2)
    assert "3 (ocr text)" in out.getvalue()
    for frame, text in zip(frames, texts):
        assert OcrResult.objects.get(frame=frame).text == text
        assert _stored(frame.id)[0] == ("blob" if len(text.encode()) >= TEXT_PACK_MIN else "text")
    assert not ocr_text_old().exists()
    again = io.StringIO()
    call_command("compact", stdout=again)
    assert "0 (ocr text)" in again.getvalue()
    # A plain row written behind the pass (as a restore would): found from the start again.
    _as_written_before(frames[0].id, ENGLISH)
    assert ocr_text_compact(10) == 1 and ocr_text_compact(10) == 0
    assert _stored(frames[0].id)[0] == "blob"


@pytest.mark.sqlite_only  # SQLite's table altered in place (its root page), its plain rows compacted later
@pytest.mark.django_db(transaction=True)
def test_the_migration_gives_older_rows_their_length_without_rebuilding_the_table():
    executor = MigrationExecutor(connection)
    before = [("frames", "0010_ocrresult_lines_packed")]
    latest = executor.loader.graph.leaf_nodes()
    frame = _frame()
    OcrResult.objects.create(frame=frame, engine="test", text="", lines=[])
    executor.migrate(before)
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1 FROM pragma_table_info('frames_ocrresult') WHERE name = 'text_length'")
            assert cursor.fetchone() is None
            cursor.execute("UPDATE frames_ocrresult SET text = %s WHERE frame_id = %s", [CHINESE, frame.id])
            cursor.execute("SELECT rootpage FROM sqlite_master WHERE name = 'frames_ocrresult'")
            rootpage = cursor.fetchone()[0]
        executor = MigrationExecutor(connection)
        executor.migrate(latest)
    finally:
        MigrationExecutor(connection).migrate(latest)
    assert _stored(frame.id) == ("text", len(CHINESE.encode()), len(CHINESE))
    with connection.cursor() as cursor:
        cursor.execute("SELECT rootpage FROM sqlite_master WHERE name = 'frames_ocrresult'")
        assert cursor.fetchone()[0] == rootpage  # the same table, altered in place
    assert OcrResult.objects.get(frame=frame).text == CHINESE
    assert list(ocr_text_old().values_list("frame_id", flat=True)) == [frame.id]
    assert ocr_text_compact(10) == 1
    assert _stored(frame.id)[0] == "blob" and OcrResult.objects.get(frame=frame).text == CHINESE


@pytest.mark.django_db(transaction=True)
def test_the_migration_keeps_older_rows_text_and_gives_them_their_length():
    """On either database: a row written before texts were packed reads back the same after the
    migration, with its length, and is stored packed once it is written again."""
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    frame = _frame()
    OcrResult.objects.create(frame=frame, engine="test", text=ENGLISH, lines=[])
    executor.migrate([("frames", "0010_ocrresult_lines_packed")])
    try:
        with connection.cursor() as cursor:
            cursor.execute("UPDATE frames_ocrresult SET text = %s WHERE frame_id = %s", [CHINESE, frame.id])
            cursor.execute("SELECT text FROM frames_ocrresult WHERE frame_id = %s", [frame.id])
            assert cursor.fetchone()[0] == CHINESE  # a plain text column again
    finally:
        MigrationExecutor(connection).migrate(latest)
    row = OcrResult.objects.get(frame=frame)
    assert (row.text, row.text_length, _stored(frame.id)[2]) == (CHINESE, len(CHINESE), len(CHINESE))
    row.save()
    kind, size, _ = _stored(frame.id)
    assert kind == _bytes() and size < len(CHINESE.encode()) * 0.7 and OcrResult.objects.get(frame=frame).text == CHINESE
