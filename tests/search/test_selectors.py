"""Keyword search over a range that spans several partitions of the index."""

import pytest
from django.db import connection

from search.fts import PARTITION_MS, partitions_all
from search.filters import Filters
from search.keyword import search_keyword

pytestmark = pytest.mark.django_db

WEEK = PARTITION_MS / 1000
EDGE = (1_750_000_000 // WEEK + 1) * WEEK  # the first moment of a partition


def keyword(q: str, start: float, end: float, *, limit=20, offset=0, **filters) -> tuple[list[int], int, list]:
    hits, total = search_keyword(
        q=q, filters=Filters(start_time=start, end_time=end, **filters), limit=limit, offset=offset
    )
    return [hit.frame_id for hit in hits], total, [hit.score for hit in hits]


def partitions() -> list[int]:
    with connection.cursor() as cursor:
        return partitions_all(cursor)


def test_one_range_finds_frames_in_every_partition_it_spans(frame_make):
    ids = [
        frame_make("roadmap draft", at=EDGE - 3 * 86400),
        frame_make("roadmap review", at=EDGE - 1),
        frame_make("roadmap final", at=EDGE + 2 * 86400),
        frame_make("roadmap shipped", at=EDGE + WEEK + 60),
    ]
    assert len(partitions()) == 3
    found, total, _ = keyword("roadmap", EDGE - WEEK, EDGE + 2 * WEEK)
    assert sorted(found) == sorted(ids) and total == 4
    found, total, _ = keyword("roadmap", EDGE - 2, EDGE + 3 * 86400)
    assert sorted(found) == sorted(ids[1:3]) and total == 2


def test_results_from_several_partitions_are_merged_by_score(frame_make):
    # Each partition holds one match and the same fillers, so its word weighs the same in each.
    texts = {
        EDGE - WEEK + 100: "deploy deploy deploy: deploy checklist before deploy",  # oldest partition, best match
        EDGE + 100: "deploy today, deploy again tomorrow with other words around",
        EDGE + WEEK + 100: "the release notes mention the deploy once among many other words here",
    }
    ids = []
    for at, text in texts.items():
        ids.append(frame_make(text, at=at))
        for i in range(3):
            frame_make(f"unrelated screen {i} with some ordinary words on it", at=at + 10 + i)
    found, total, scores = keyword("deploy", EDGE - WEEK, EDGE + 2 * WEEK)
    assert found == ids and total == 3
    assert scores == sorted(scores, reverse=True)
    assert keyword("deploy", EDGE - WEEK, EDGE + 2 * WEEK, limit=1, offset=1)[0] == [ids[1]]


def test_pages_across_partitions_have_the_total_of_all_and_no_repeats(frame_make):
    ids = [frame_make(f"report page {i}" + " more" * i, at=EDGE + (i - 3) * 2 * 86400) for i in range(7)]
    assert len(partitions()) >= 2
    everything, total, _ = keyword("report", EDGE - WEEK, EDGE + WEEK, limit=10)
    assert sorted(everything) == sorted(ids) and total == 7
    pages = []
    for offset in (0, 3, 6):
        found, total, _ = keyword("report", EDGE - WEEK, EDGE + WEEK, limit=3, offset=offset)
        assert total == 7
        pages += found
    assert pages == everything
    assert keyword("report", EDGE - WEEK, EDGE + WEEK, limit=3, offset=7) == ([], 7, [])


def test_filters_apply_in_every_partition(frame_make):
    firefox = [frame_make("invoice 42", at=EDGE - 60, app_name="Firefox"), frame_make("invoice 43", at=EDGE + 60, app_name="Firefox")]
    frame_make("invoice 44", at=EDGE + 120, app_name="Code")
    found, total, _ = keyword("invoice", EDGE - 3600, EDGE + 3600, app_name="firefox")
    assert sorted(found) == sorted(firefox) and total == 2


def test_a_frame_at_a_partition_edge_belongs_to_the_partition_it_starts(frame_make):
    before = frame_make("edge marker", at=EDGE - 0.001)
    at_edge = frame_make("edge marker", at=EDGE)
    assert len(partitions()) == 2
    assert keyword("edge", EDGE, EDGE)[0] == [at_edge]
    assert keyword("edge", EDGE, EDGE + WEEK)[0] == [at_edge]
    assert keyword("edge", EDGE - WEEK, EDGE - 0.001)[0] == [before]
    assert keyword("edge", EDGE - 0.0005, EDGE - 0.0005)[0] == []
    assert sorted(keyword("edge", EDGE - 0.001, EDGE)[0]) == sorted([before, at_edge])


def test_a_range_without_any_partition_is_empty(frame_make):
    assert keyword("anything", EDGE, EDGE + WEEK) == ([], 0, [])  # no partition at all yet
    frame_make("anything at all", at=EDGE + 10 * WEEK)
    assert keyword("anything", EDGE, EDGE + WEEK) == ([], 0, [])
    assert keyword("anything", 0, 1) == ([], 0, [])
    assert keyword("anything", EDGE, EDGE + 11 * WEEK)[1] == 1


def test_the_newest_matches_are_ranked_when_the_cap_cuts_inside_an_older_partition(frame_make, settings):
    settings.SEARCH_RANK_MAX = 3
    strong = frame_make("alert alert alert alert", at=EDGE - 600)  # the best, but older than the ranked window
    older = frame_make("alert number 1 with a few more words", at=EDGE - 300)
    newer = [frame_make(f"alert number {i} with a few more words", at=EDGE + i) for i in range(2)]
    found, total, _ = keyword("alert", EDGE - 3600, EDGE + 3600, limit=3)
    assert total == 4
    assert sorted(found) == sorted([older, *newer])
    found, total, _ = keyword("alert", EDGE - 3600, EDGE + 3600, limit=4)
    assert total == 4 and found[0] == strong


def test_with_the_cap_a_tier_is_not_cut_short_by_the_matches_of_another(frame_make, settings):
    # The newest partition holds one exact match and many part matches; the exact matches of the
    # older partition must still come in the exact tier, before any part match.
    settings.SEARCH_RANK_MAX = 3
    newer_exact = frame_make("alert raised", at=EDGE + 10)
    for i in range(4):
        frame_make(f"logAlert{i} fired", at=EDGE + 20 + i)
    older_exact = [frame_make(f"alert number {i}", at=EDGE - 600 + i) for i in range(2)]
    found, total, _ = keyword("alert", EDGE - 3600, EDGE + 3600, limit=3)
    assert total == 7
    assert set(found) == {newer_exact, *older_exact}


def test_with_the_cap_more_part_matches_than_it_in_a_newer_partition_leave_the_older_counted(frame_make, settings):
    # Two words: the newest partition holds 2 exact matches and more part matches than the cap,
    # so the cap is spent there; the older partition is only counted (PostgreSQL once refused the
    # search: it asked that partition for a negative number of newest matches).
    settings.SEARCH_RANK_MAX = 5
    newer_exact = [frame_make(f"alert raised number {i}", at=EDGE + 10 + i) for i in range(2)]
    for i in range(6):
        frame_make(f"logAlert{i} was raisedTwice", at=EDGE + 20 + i)
    older_exact = frame_make("alert raised again", at=EDGE - 600)
    found, total, _ = keyword("alert raised", EDGE - 3600, EDGE + 3600, limit=2)
    assert total == 9
    assert set(found) == set(newer_exact)
    # Three wanted: the newest partition gives fewer exact matches than that, so the older one is ranked too.
    found, total, _ = keyword("alert raised", EDGE - 3600, EDGE + 3600, limit=3)
    assert total == 9 and set(found) == {*newer_exact, older_exact}


def test_with_the_cap_a_phrase_ranks_its_newest_matches_and_counts_only_the_phrase(frame_make, settings):
    # Newer frames hold both words apart: they are no match, neither in the total nor in the cap's
    # newest matches (PostgreSQL checks the phrase on each frame's words once, to count and to rank).
    settings.SEARCH_RANK_MAX = 3
    strong = frame_make("quarterly budget quarterly budget", at=EDGE - 600)  # the best, but older than the ranked window
    newer = [frame_make(f"quarterly budget item {i} with a few more words", at=EDGE + i) for i in range(3)]
    for i in range(5):
        frame_make(f"budget for the quarterly review {i}", at=EDGE + 100 + i)
    found, total, _ = keyword('"quarterly budget"', EDGE - 3600, EDGE + 3600, limit=3)
    assert total == 4
    assert sorted(found) == sorted(newer)
    found, total, _ = keyword('"quarterly budget"', EDGE - 3600, EDGE + 3600, limit=10)
    assert total == 4 and sorted(found) == sorted([strong, *newer])


def test_a_word_only_inside_a_compound_comes_after_every_exact_match(frame_make, settings):
    # The newest frame holds the word only as a compound's part; the cap's newest matches are the
    # nine newest exact ones and it. It never comes in the exact tier (scores in (3, 4]), only
    # after it, once.
    settings.SEARCH_RANK_MAX = 10
    exact = [frame_make(f"alert number {i}", at=EDGE + i) for i in range(9)]
    compound = frame_make("logAlert fired", at=EDGE + 100)
    older = frame_make("alert alert alert", at=EDGE - 600)
    found, total, scores = keyword("alert", EDGE - 3600, EDGE + 3600, limit=10)
    assert total == 11 and len(found) == len(set(found)) == 10
    assert set(exact) <= set(found)
    assert set(found) - {compound} <= {*exact, older}
    if compound in found:
        assert found[-1] == compound and scores[-1] <= 3 < min(scores[:-1])
    found, total, scores = keyword("alert", EDGE - 3600, EDGE + 3600, limit=20)  # every match ranked
    assert total == 11 and found[-1] == compound and scores[-1] <= 3 < min(scores[:-1])


def test_with_the_cap_an_older_partition_ranks_its_own_newest_matches(frame_make, settings):
    # The range runs on past the end of the older partition: its newest matches are sought at the
    # end of its own part of the range (PostgreSQL once looked for them in the newer partition's
    # hours and refused the query).
    settings.SEARCH_RANK_MAX = 3
    newer = frame_make("alert raised", at=EDGE + 60)
    older = [frame_make(f"alert number {i} " + "filler " * i, at=EDGE - 3000 + 400 * i) for i in range(7)]
    found, total, _ = keyword("alert", EDGE - 3600, EDGE + 4 * 3600, limit=3)
    assert total == 8
    assert set(found) == {newer, older[-1], older[-2]}
    found, total, _ = keyword("alert", EDGE - 3600, EDGE + 4 * 3600, limit=20)
    assert total == 8 and set(found) == {newer, *older}  # a page past the cap ranks as many
