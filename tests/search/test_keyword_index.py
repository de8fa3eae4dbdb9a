"""The keyword index of the database in use (search.keyword_index), at its edges: texts past what
an index entry can hold, a week's first frames written by two processes at once, and the same
ranking order on either database."""

import threading
from datetime import datetime
from datetime import timezone as dt_timezone

import pytest
from django.db import connection, connections

from frames.models import Frame, OcrResult, OcrStatus
from search.filters import Filters
from search.keyword import search_keyword
from search.keyword_base import period_of, time_ms
from search.keyword_index import keyword_index
from search.services import frame_index

T0 = 1_770_000_000.0


def found(q: str, start: float = T0 - 3600, end: float = T0 + 3600) -> list[int]:
    hits, total = search_keyword(q=q, filters=Filters(start_time=start, end_time=end), limit=50, offset=0)
    assert total == len(hits)
    return [hit.frame_id for hit in hits]


@pytest.mark.django_db
def test_a_huge_screen_is_indexed_and_found_by_its_words(frame_make):
    # A token longer than a PostgreSQL lexeme may be (2,047 bytes), a word on the screen 400 times
    # (a lexeme keeps 256 positions), 20,000 words (positions stop at 16,383), and a word at the end.
    blob = "x" * 3000
    text = " ".join([blob, *(["ledger"] * 400), *(f"filler{n}" for n in range(20_000)), "zebracorn"])
    frame_id = frame_make(text, at=T0)
    assert found("ledger") == [frame_id]
    assert found("zebracorn") == [frame_id]
    assert found("filler19999 zebracorn") == [frame_id]
    assert found("nothing") == []


@pytest.mark.django_db
def test_a_phrase_never_spans_two_columns(frame_make):
    # The text ends with "quarterly" and the window title starts with "budget".
    frame_id = frame_make("the report is quarterly", at=T0, window_name="budget plans")
    assert found("quarterly budget") == [frame_id]  # every word, anywhere
    assert found('"quarterly budget"') == []  # not a phrase: two columns
    assert found('"budget plans"') == [frame_id]


@pytest.mark.django_db
def test_the_more_a_word_fills_a_screen_the_higher_it_ranks(frame_make):
    sparse = frame_make("invoice " + " ".join(f"word{n}" for n in range(200)), at=T0)
    dense = frame_make("invoice invoice invoice total", at=T0 + 1)
    titled = frame_make("invoice number", at=T0 + 2, window_name="invoice")
    ranked = found("invoice")
    assert set(ranked) == {sparse, dense, titled}
    assert ranked[-1] == sparse  # the word is a small part of a long screen


def _frame(at: float, text: str) -> Frame:
    frame = Frame.objects.create(
        timestamp=datetime.fromtimestamp(at, tz=dt_timezone.utc), app_name="Editor", window_name="w",
        image_path="frames/x.webp", width=10, height=10, image_bytes=1, ocr_status=OcrStatus.DONE,
    )
    OcrResult.objects.create(frame=frame, engine="test", text=text)
    return frame


@pytest.mark.postgresql_only
@pytest.mark.django_db(transaction=True)
def test_two_processes_indexing_a_new_weeks_first_frames_at_once_both_land():
    # Each thread has a connection of its own, as two workers have: the week's partition is made once.
    at = T0 + 400 * 86400
    frames = [_frame(at + n, f"concurrent frame{n} marmalade") for n in range(6)]
    errors = []
    barrier = threading.Barrier(3)

    def index(batch):
        try:
            barrier.wait()
            for frame in batch:
                frame_index(frame=frame)
        except Exception as exc:  # noqa: BLE001 (reported below)
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=index, args=(frames[n::3],)) for n in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(found("marmalade", at - 10, at + 10)) == sorted(frame.id for frame in frames)
    with connection.cursor() as cursor:
        assert keyword_index().periods_in(cursor, at, at) == [period_of(time_ms(at))]


@pytest.mark.postgresql_only
@pytest.mark.django_db
def test_a_days_matches_come_from_the_word_index_with_the_days_hours(frame_make):
    # A week of frames, the word on a third of them: the GIN index gives the frames of the day
    # that hold the word (the words ANDed with the range's hours), so only their rows are read;
    # no row's words are tested on the table (with a b-tree on the time, the planner read and
    # tested the words of every frame of the day).
    from search.pg_fts import TIME_MARK

    day = 86_400
    times = [T0 - 3 * day + n * 900 for n in range(7 * 96)]
    for n, at in enumerate(times):
        frame_make(f"screen {n} " + ("release notes" if n % 3 == 0 else "other things"), at=at)
    expected = sum(1 for n, at in enumerate(times) if n % 3 == 0 and T0 - day <= at <= T0)
    index = keyword_index()
    filters = Filters(start_time=T0 - day, end_time=T0)
    plans, counted = [], 0
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")  # a few hundred rows: else reading them all is cheaper
        for scope in index.scopes_in(cursor, filters.start_time, filters.end_time):
            counted += index.match_count(cursor, scope, "'release'", filters)
            base, params = index._match_sql(scope, "'release'", filters)
            cursor.execute(f"EXPLAIN SELECT count(*) {base}", params)
            plans.append("\n".join(row[0] for row in cursor.fetchall()))
    assert counted == len(found("release", T0 - day, T0)) == expected
    for plan in plans:
        conditions = [line for line in plan.splitlines() if "Index Cond" in line]
        assert conditions and all("@@" in line and TIME_MARK in line for line in conditions), plan
        assert "Filter: (doc @@" not in plan, plan


@pytest.mark.django_db
def test_a_range_finds_its_frames_at_the_edges_of_hours_days_and_weeks(frame_make):
    # Frames a hair before, at and after the start of an hour, of blocks of 2, 4 and 8 hours, of a
    # UTC day and of a week (the keyword index's period), and ranges that start or end at each: a
    # range finds exactly the frames whose time is inside it, on either database.
    hour, day = 3600, 86_400
    week_start = (period_of(time_ms(T0)) + 1) * 7 * day  # the start of the next period
    edges = [week_start - 5 * hour, week_start - day, week_start, week_start - 8 * hour, week_start - 4 * hour,
             week_start - 2 * hour]
    times = sorted({edge + delta for edge in edges for delta in (-1.0, -0.0004, 0.0, 0.0004, 0.5, 1.0)})
    for at in times:
        frame_make("ledger entry", at=at)
    ranges = [(a + da, b + db) for a in edges for b in edges if a < b for da in (-0.0004, 0.0, 0.0004)
              for db in (-0.0004, 0.0, 0.0004)]
    ranges += [(edges[0] - 0.0004, edges[0] + 0.0004), (edges[2], edges[2]), (edges[0] - 2 * day, edges[2] + 2 * day)]
    for start, end in ranges:
        expected = [at for at in times if start <= at <= end]
        hits, total = search_keyword(q="ledger", filters=Filters(start_time=start, end_time=end), limit=100, offset=0)
        got = sorted(Frame.objects.get(id=hit.frame_id).timestamp.timestamp() for hit in hits)
        assert total == len(expected), (start, end)
        assert got == pytest.approx(expected, abs=1e-6), (start, end)
