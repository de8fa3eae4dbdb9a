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
def test_a_days_matches_come_from_one_index_on_words_and_time(frame_make):
    # A week of frames, the word on a third of them: the index gives the frames of the day that
    # hold the word, so only their rows are read (with a b-tree on the time beside a GIN on the
    # words, the planner read and tested the words of every frame of the day).
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
        assert conditions and all("@@" in line and "timestamp" in line for line in conditions), plan
        assert "Filter: (doc @@" not in plan, plan
