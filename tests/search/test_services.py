"""Writes to the keyword index land in the partition of the frame's time."""

import pytest
from django.db import connection

from frames.models import Frame, OcrResult
from search.filters import Filters
from search.keyword_base import PARTITION_MS, period_of, time_ms
from search.keyword_index import keyword_index
from search.keyword import search_keyword
from search.services import frame_index, frame_unindex

pytestmark = pytest.mark.django_db

WEEK = PARTITION_MS / 1000
EDGE = (1_750_000_000 // WEEK + 1) * WEEK


def rows_by_partition() -> dict[int, int]:
    counts = {}
    with connection.cursor() as cursor:
        for period in (period_of(time_ms(EDGE - 1)), period_of(time_ms(EDGE))):
            cursor.execute(f"SELECT count(*) FROM {keyword_index().partition_table(period)}")
            counts[period] = cursor.fetchone()[0]
    return counts


def found(q: str) -> list[int]:
    hits, _ = search_keyword(q=q, filters=Filters(start_time=EDGE - WEEK, end_time=EDGE + WEEK), limit=20, offset=0)
    return [hit.frame_id for hit in hits]


def test_reindex_and_unindex_touch_only_the_frames_partition(frame_make):
    old = frame_make("first draft of the plan", at=EDGE - 1)
    new = frame_make("first draft of the plan", at=EDGE + 1)
    old_period, new_period = period_of(time_ms(EDGE - 1)), period_of(time_ms(EDGE + 1))
    assert rows_by_partition() == {old_period: 1, new_period: 1}

    OcrResult.objects.filter(frame_id=old).update(text="final version of the plan")
    frame_index(frame=Frame.objects.get(id=old))
    assert rows_by_partition() == {old_period: 1, new_period: 1}
    assert found("draft") == [new]
    assert found("final") == [old]

    frame_unindex(frame=Frame.objects.get(id=old))
    assert rows_by_partition() == {old_period: 0, new_period: 1}
    assert found("plan") == [new]


def test_unindex_of_a_frame_whose_partition_does_not_exist_is_quiet(frame_make):
    frame_id = frame_make("only frame", at=EDGE)
    frame = Frame.objects.get(id=frame_id)
    frame.timestamp = frame.timestamp.replace(year=2001)
    frame_unindex(frame=frame)
    assert found("only") == [frame_id]


def test_frames_of_one_second_beyond_its_slots_are_all_indexed_found_and_removed(frame_make):
    # More frames in one second than a second has rowid slots (an import of frames sharing a
    # time): the rest take slots of later seconds, and the partition widens its ranges by that.
    from search.fts import SECOND_SLOTS, partition_get

    # The slots are SQLite's (search.fts); PostgreSQL keys rows by frame id and must find them all the same.
    at = EDGE + 100.25
    crowd = [frame_make(f"crowded second frame{n} budget", at=at) for n in range(SECOND_SLOTS * 2 + 5)]
    before = frame_make("budget before", at=at - 3)
    after = frame_make("budget after", at=at + 2)  # in a second whose slots the crowd took
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            assert partition_get(cursor, period_of(time_ms(at))).spill >= 2

    def within(start: float, end: float) -> set[int]:
        hits, total = search_keyword(q="budget", filters=Filters(start_time=start, end_time=end), limit=100, offset=0)
        assert total == len(hits)
        return {hit.frame_id for hit in hits}

    assert within(at - 0.1, at + 0.1) == set(crowd)
    assert within(at + 1, at + 10) == {after}  # the crowd's rows sit in later seconds' slots, not their times
    assert within(at - 10, at - 1) == {before}
    assert within(at - 10, at + 10) == {*crowd, before, after}
    # Each frame's own row goes, wherever its slot is.
    for frame_id in crowd[::3]:
        frame_unindex(frame=Frame.objects.get(id=frame_id))
    assert within(at - 0.1, at + 0.1) == set(crowd) - set(crowd[::3])
    # A frame read again keeps one row.
    OcrResult.objects.filter(frame_id=crowd[1]).update(text="crowded second rewritten")
    frame_index(frame=Frame.objects.get(id=crowd[1]))
    assert within(at - 0.1, at + 0.1) == set(crowd) - set(crowd[::3]) - {crowd[1]}
    with connection.cursor() as cursor:
        table = keyword_index().partition_table(period_of(time_ms(at)))
        cursor.execute(f"SELECT count(*) FROM {table} WHERE frame_id = %s", [crowd[1]])
        assert cursor.fetchone()[0] == 1
