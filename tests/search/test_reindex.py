"""`manage.py reindex --fts`: the keyword index rebuilt from the database beside the live one,
older layouts upgraded, resumable, and searchable all along."""

import io
from datetime import datetime
from datetime import timezone as dt_timezone

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from frames.models import Frame, OcrStatus
from search.fts import BUILD_SUFFIX, LAYOUT, REGISTRY, partition_get, partition_table, table_create
from search.keyword_base import PART_MARK, index_row, period_of, time_ms
from search.keyword_index import keyword_index
from search.filters import Filters
from search.keyword import search_keyword, vocab_containing
from search.services import fts_rebuild_batch, fts_rebuild_begin, fts_rebuild_finish

pytestmark = pytest.mark.django_db

T0 = 1_760_000_000.0
PERIOD = period_of(time_ms(T0))


def found(q: str) -> list[int]:
    hits, _ = search_keyword(q=q, filters=Filters(start_time=T0 - 86400, end_time=T0 + 86400), limit=50, offset=0)
    return [hit.frame_id for hit in hits]


def rows_in(table: str) -> list[int]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT frame_id FROM {table} ORDER BY frame_id")
        return [row[0] for row in cursor.fetchall()]


def reindex(*args) -> str:
    out = io.StringIO()
    call_command("reindex", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


@pytest.fixture
def layout_1_partition(frame_make):
    """A partition as the index wrote it before compound parts existed (layout 1)."""
    with connection.cursor() as cursor:
        table_create(cursor, partition_table(PERIOD), 1)
        cursor.execute(f"INSERT INTO {REGISTRY} (period, layout) VALUES (%s, 1)", [PERIOD])
    return [
        frame_make("Unpacking libdouble-conversion3:amd64", at=T0),
        frame_make("written by LinusTorvalds", at=T0 + 1),
        frame_make("conversion rates this quarter", at=T0 + 2),
    ]


@pytest.mark.sqlite_only  # FTS5's table layouts
def test_an_old_layout_is_searched_as_it_is_and_upgraded_by_reindex(layout_1_partition, settings):
    glued, camel, plain = layout_1_partition
    settings.SEARCH_FALLBACK_BELOW = 0  # no prefix and no words inside longer words: parts alone
    assert found("torvalds") == []  # the old layout has no compound parts
    assert found("LinusTorvalds") == [camel]
    output = reindex("--fts")
    assert "3 frames" in output
    with connection.cursor() as cursor:
        assert partition_get(cursor, PERIOD).layout == LAYOUT
    assert found("conversion") == [plain, glued]  # the exact word first
    assert found("torvalds") == [camel]
    assert rows_in(partition_table(PERIOD)) == sorted(layout_1_partition)


@pytest.mark.sqlite_only  # FTS5's table layouts
def test_search_answers_and_new_frames_are_kept_while_a_rebuild_runs(layout_1_partition, frame_make):
    glued, camel, plain = layout_1_partition
    assert fts_rebuild_begin(period=PERIOD) == 3
    assert fts_rebuild_batch(period=PERIOD, size=2) == 2
    newer = frame_make("LinusTorvalds again", at=T0 + 3)  # the live path writes to both tables
    assert sorted(found("LinusTorvalds")) == sorted([camel, newer])  # the old table answers
    while fts_rebuild_batch(period=PERIOD, size=2):
        pass
    fts_rebuild_finish(period=PERIOD)
    assert sorted(found("torvalds")) == sorted([camel, newer])
    assert found("conversion")[0] == plain and glued in found("conversion")
    assert rows_in(partition_table(PERIOD)) == sorted([*layout_1_partition, newer])


@pytest.mark.sqlite_only  # FTS5's table layouts
def test_an_interrupted_rebuild_goes_on_where_it_stopped(layout_1_partition):
    fts_rebuild_begin(period=PERIOD)
    fts_rebuild_batch(period=PERIOD, size=1)  # then the command was stopped
    assert fts_rebuild_begin(period=PERIOD) == 2  # resumed, not restarted
    output = reindex("--fts")
    assert "2 frames" in output
    assert rows_in(partition_table(PERIOD)) == sorted(layout_1_partition)


def test_rows_follow_the_database(frame_make):
    kept = frame_make("quarterly budget", at=T0)
    gone = frame_make("quarterly budget draft", at=T0 + 1)
    Frame.objects.filter(id=gone).delete()  # deleted behind the index's back
    pending = Frame.objects.create(
        timestamp=datetime.fromtimestamp(T0 + 2, tz=dt_timezone.utc),
        image_path="frames/p.jpg", width=1, height=1, image_bytes=1, ocr_status=OcrStatus.PENDING,
        app_name="quarterly",
    )
    lonely = frame_make("quarterly report xylophonist", at=T0 + 30 * 86400)
    Frame.objects.filter(id=lonely).delete()
    with connection.cursor() as cursor:
        assert vocab_containing(cursor, "ylophon") == ["xylophonist"]
    reindex("--fts")
    assert found("quarterly") == [kept]  # not the deleted frame, not the frame whose OCR is still to come
    with connection.cursor() as cursor:  # nor the words only it had
        assert vocab_containing(cursor, "ylophon") == []
        assert vocab_containing(cursor, "uarterl") == ["quarterly"]
    assert pending.id not in rows_in(keyword_index().partition_table(PERIOD))
    with connection.cursor() as cursor:  # a week left without frames loses its partition
        assert period_of(time_ms(T0 + 30 * 86400)) not in keyword_index().periods_in(cursor, None, None)


def test_a_time_range_rebuilds_only_its_weeks(frame_make):
    first = frame_make("budget one", at=T0)
    later = frame_make("budget two", at=T0 + 60 * 86400)
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {keyword_index().partition_table(PERIOD)}")
    assert "1 frames in 1 week" in reindex("--fts", "--start", str(T0 - 3600), "--end", str(T0 + 3600))
    assert found("budget") == [first]
    assert later not in found("budget")


@pytest.mark.parametrize("args", [["--start", "yesterday"], ["--start", "2026-11-02", "--end", "2026-11-01"]])
def test_bad_options_are_refused(args):
    with pytest.raises(CommandError):
        reindex(*args)


def test_index_row_is_the_current_layout():
    row = index_row(timestamp_s=0.0, frame_id=1, text="LinusTorvalds", app_name="", window_name="", browser_url="")
    assert len(row) == 7 and row[5] == f"{PART_MARK}Linus {PART_MARK}Torvalds"


@pytest.mark.sqlite_only  # FTS5's table layouts
def test_the_worker_says_when_weeks_need_a_reindex(layout_1_partition):
    from search.status import index_layout_note

    assert "1 week(s) in an older layout" in index_layout_note()
    reindex("--fts")
    assert index_layout_note() is None


def _tables() -> set[str]:
    """Every table, partitions included (Django's introspection leaves PostgreSQL's partitions out)."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
        else:
            cursor.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        return {row[0] for row in cursor.fetchall()}


@pytest.fixture
def layout_2_partition(frame_make):
    """A partition as the index wrote it before it was contentless (layout 2: a copy of the text)."""
    with connection.cursor() as cursor:
        table_create(cursor, partition_table(PERIOD), 2)
        cursor.execute(f"INSERT INTO {REGISTRY} (period, layout) VALUES (%s, 2)", [PERIOD])
    return [frame_make(f"the quarterly budget xylograph{n} written by LinusTorvalds", at=T0 + n) for n in range(3)]


@pytest.mark.sqlite_only  # FTS5's table layouts
def test_the_index_keeps_no_copy_of_the_text_and_an_older_week_moves_to_it_by_compact(layout_2_partition):
    table = partition_table(PERIOD)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*) FROM {table}_content WHERE c0 LIKE '%%xylograph%%'")
        assert cursor.fetchone()[0] == 3  # layout 2 keeps the text a second time
    assert sorted(found("xylograph1")) == [layout_2_partition[1]]
    out = io.StringIO()
    call_command("compact", stdout=out)
    assert "(keyword index)" in out.getvalue()
    with connection.cursor() as cursor:
        assert partition_get(cursor, PERIOD).layout == LAYOUT
        cursor.execute(f"SELECT * FROM {table}_content ORDER BY id")
        assert [row[1:] for row in cursor.fetchall()] == [(frame_id,) for frame_id in layout_2_partition]  # frame ids only
    assert not [name for name in _tables() if name.endswith(f"{BUILD_SUFFIX}_content") or name.startswith(f"{table}{BUILD_SUFFIX}")]
    assert found("xylograph1") == [layout_2_partition[1]]
    assert sorted(found("torvalds")) == sorted(layout_2_partition)
    # Deleting a frame takes its words out of the index and the vocabulary, by rowid alone.
    from frames.services import frames_delete

    frames_delete(start=datetime.fromtimestamp(T0 + 1, tz=dt_timezone.utc), end=datetime.fromtimestamp(T0 + 1.5, tz=dt_timezone.utc))
    assert found("xylograph1") == []
    with connection.cursor() as cursor:
        assert vocab_containing(cursor, "ylograph1") == []
    assert rows_in(table) == [layout_2_partition[0], layout_2_partition[2]]


def test_a_week_emptied_leaves_no_table_of_its_index_behind(frame_make):
    only = frame_make("a lonely week", at=T0)
    table = keyword_index().partition_table(PERIOD)
    assert table in _tables()
    if connection.vendor == "sqlite":
        assert f"{table}_content" in _tables()  # FTS5's own table of a contentless table's frame ids
    from frames.services import frames_delete

    frames_delete(start=datetime.fromtimestamp(T0 - 1, tz=dt_timezone.utc), end=datetime.fromtimestamp(T0 + 1, tz=dt_timezone.utc))
    assert not Frame.objects.filter(id=only).exists()
    assert not [name for name in _tables() if name.startswith(table)]
    reindex("--fts")
    assert not [name for name in _tables() if name.startswith(table)]


@pytest.mark.sqlite_only  # FTS5's table layouts
def test_a_week_with_millisecond_rowids_is_searched_and_moves_to_rowids_by_the_second(frame_make):
    from search.fts import SECOND_SLOTS

    with connection.cursor() as cursor:  # as layout 3 wrote it: contentless, rowids in milliseconds * 1000
        table_create(cursor, partition_table(PERIOD), 3)
        cursor.execute(f"INSERT INTO {REGISTRY} (period, layout) VALUES (%s, 3)", [PERIOD])
    ids = [frame_make(f"quarterly ledger page{n}", at=T0 + n * 2.5) for n in range(4)]
    table = partition_table(PERIOD)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT rowid, frame_id FROM {table} ORDER BY rowid")
        assert [row[0] for row in cursor.fetchall()] == [time_ms(T0 + n * 2.5) * 1000 + i % 1000 for n, i in enumerate(ids)]
    assert sorted(found("ledger")) == ids
    assert found("page2") == [ids[2]]
    call_command("compact", stdout=io.StringIO())
    with connection.cursor() as cursor:
        assert partition_get(cursor, PERIOD).layout == LAYOUT == 4
        cursor.execute(f"SELECT rowid, frame_id FROM {table} ORDER BY rowid")
        assert cursor.fetchall() == [(int(T0 + n * 2.5) * SECOND_SLOTS + i % SECOND_SLOTS, i) for n, i in enumerate(ids)]
    assert sorted(found("ledger")) == ids
    assert found("page2") == [ids[2]]
    later = frame_make("quarterly ledger page9", at=T0 + 30)
    assert found("page9") == [later]
