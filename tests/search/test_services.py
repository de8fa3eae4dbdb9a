"""Writes to the keyword index land in the partition of the frame's time."""

import pytest
from django.db import connection

from frames.models import Frame, OcrResult
from search.fts import PARTITION_MS, partition_of, partition_table, rowid_for
from search.filters import Filters
from search.keyword import search_keyword
from search.services import frame_index, frame_unindex

pytestmark = pytest.mark.django_db

WEEK = PARTITION_MS / 1000
EDGE = (1_750_000_000 // WEEK + 1) * WEEK


def rows_by_partition() -> dict[int, int]:
    counts = {}
    with connection.cursor() as cursor:
        for period in (partition_of(rowid_for(EDGE - 1, 0)), partition_of(rowid_for(EDGE, 0))):
            cursor.execute(f"SELECT count(*) FROM {partition_table(period)}")
            counts[period] = cursor.fetchone()[0]
    return counts


def found(q: str) -> list[int]:
    hits, _ = search_keyword(q=q, filters=Filters(start_time=EDGE - WEEK, end_time=EDGE + WEEK), limit=20, offset=0)
    return [hit.frame_id for hit in hits]


def test_reindex_and_unindex_touch_only_the_frames_partition(frame_make):
    old = frame_make("first draft of the plan", at=EDGE - 1)
    new = frame_make("first draft of the plan", at=EDGE + 1)
    old_period, new_period = partition_of(rowid_for(EDGE - 1, old)), partition_of(rowid_for(EDGE, new))
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
