"""Keyword recall on mixed and glued text: words glued to Chinese, words inside compound
tokens, the last word typed in part; exact matches first, and exact ranking of every match."""

import pytest

from search.filters import Filters
from search.keyword import search_keyword

pytestmark = pytest.mark.django_db

T0 = 1_760_000_000.0


def keyword(q: str, *, limit: int = 20, offset: int = 0) -> tuple[list[int], int, list[float]]:
    hits, total = search_keyword(
        q=q, filters=Filters(start_time=T0 - 3600, end_time=T0 + 86400), limit=limit, offset=offset
    )
    return [hit.frame_id for hit in hits], total, [hit.score for hit in hits]


@pytest.mark.parametrize(
    "text, q",
    [
        ("Linux 内核由Linus Torvalds编写", "Torvalds"),
        ("在服务器上使用Docker部署应用", "docker"),
        ("1993年Ian Murdock建立了Debian项目", "Murdock"),
        ("Ｄｏｃｋｅｒ　镜像已更新", "docker"),  # full-width letters, as some Chinese pages write them
        ("Unpacking libdouble-conversion3:amd64 (3.2.1-1) ...", "conversion"),
        ("Unpacking libdouble-conversion3:amd64 (3.2.1-1) ...", "amd64"),
        ("由LinusTorvalds编写", "torvalds"),
        ("由LinusTorvalds编写", "Linus Torvalds"),
        ("def getHTTPResponse(self):", "response"),
        ("Paths are resolved relative to the project root", "relativ"),
        ("Paths are resolved relative to the project root", "resolved relat"),
        ("Unpacking libdouble-conversion3:amd64 (3.2.1-1) ...", "double"),  # inside a longer word
        ("the path was resolvedby the loader", "resolved"),  # OCR dropped the space
        ("the path was resolvedby the loader", "resolved loader"),
    ],
)
def test_a_word_seen_on_screen_is_found(frame_make, text, q):
    frame_id = frame_make(text, at=T0)
    frame_make("an unrelated screen about budgets", at=T0 + 1)
    assert keyword(q)[:2] == ([frame_id], 1)


def test_exact_word_matches_rank_before_part_and_prefix_matches(frame_make):
    glued = frame_make("by LinusTorvalds torvalds-fan", at=T0 + 1)  # "torvalds" is also a word here
    part_only = frame_make("written by LinusTorvalds in 1991 LinusTorvalds LinusTorvalds", at=T0 + 2)
    exact = frame_make("Torvalds", at=T0)
    found, total, scores = keyword("torvalds")
    assert total == 3
    assert found[-1] == part_only and set(found[:2]) == {glued, exact}
    assert scores == sorted(scores, reverse=True)


def test_the_prefix_tier_comes_after_exact_matches_and_only_when_they_are_few(frame_make, settings):
    exact = frame_make("rel 2.0 notes", at=T0)
    longer = [frame_make(f"release {i} of the product", at=T0 + i) for i in range(1, 4)]
    found, total, scores = keyword("rel")
    assert total == 4 and found[0] == exact and set(found[1:]) == set(longer)
    assert scores[0] > 3 and all(score <= 2 for score in scores[1:])  # one scale: exact above 3, prefix below 2
    settings.SEARCH_FALLBACK_BELOW = 1  # one exact match is enough: the word is taken as typed
    assert keyword("rel")[:2] == ([exact], 1)


def test_a_common_last_word_is_not_expanded_as_a_prefix(frame_make, settings):
    settings.SEARCH_FALLBACK_BELOW = 5
    for i in range(6):
        frame_make(f"the daily standup {i}", at=T0 + i)
    theme = frame_make("zebra theme colours", at=T0 + 10)
    # "zebra the" has no exact match; "the" is on six screens, so it is a finished word, not "theme".
    assert keyword("zebra the")[:2] == ([], 0)
    assert keyword("zebra them")[:2] == ([theme], 1)


def test_pages_run_across_tiers_without_gaps_or_repeats(frame_make):
    exact = [frame_make(f"deploy notes {i}", at=T0 + i) for i in range(5)]
    parts = [frame_make(f"ranDeploy{i} job", at=T0 + 10 + i) for i in range(4)]
    seen = []
    for offset in range(0, 12, 3):
        found, total, _ = keyword("deploy", limit=3, offset=offset)
        assert total == 9
        seen += found
    assert seen[:5] and set(seen[:5]) == set(exact)
    assert set(seen[5:]) == set(parts) and len(seen) == 9


def test_every_match_is_ranked_when_the_cap_is_off(frame_make, settings):
    settings.SEARCH_RANK_MAX = 0
    best = frame_make("invoice invoice invoice invoice", at=T0)  # the morning's best match
    for i in range(30):
        frame_make(f"invoice number {i} with more words around it", at=T0 + 3600 + i)
    assert keyword("invoice", limit=5)[0][0] == best
    settings.SEARCH_RANK_MAX = 10  # with a cap, only the newest matches are ranked: the total stays exact
    found, total, _ = keyword("invoice", limit=5)
    assert total == 31 and best not in found


def test_a_word_inside_longer_words_comes_last_and_only_when_little_else_is_found(frame_make, settings):
    inside = frame_make("Unpacking libdouble-conversion3:amd64", at=T0)
    exact = frame_make("double the budget", at=T0 + 1)
    found, total, scores = keyword("double")
    assert (found, total) == ([exact, inside], 2) and scores[0] > 3 > 1 > scores[1]
    settings.SEARCH_FALLBACK_BELOW = 1  # one exact match is enough
    assert keyword("double")[:2] == ([exact], 1)


def test_a_word_is_not_searched_inside_longer_words_when_too_short(frame_make):
    frame_make("libdouble and subpar results", at=T0)
    assert keyword("par")[:2] == ([], 0)


def test_the_words_that_start_so_come_from_the_vocabulary_unless_there_are_too_many(frame_make):
    from django.db import connection

    from search.keyword import INSIDE_MAX_WORDS, vocab_starting

    frame_make("relative relatively release", at=T0)
    with connection.cursor() as cursor:
        assert vocab_starting(cursor, "relativ") == ["relative", "relatively"]
        assert vocab_starting(cursor, "zzz") == []
    many = frame_make(" ".join(f"qux{i:03d}" for i in range(INSIDE_MAX_WORDS + 1)), at=T0 + 1)
    with connection.cursor() as cursor:
        assert vocab_starting(cursor, "qux") is None  # too many: FTS5's own prefix query finds them
    assert keyword("qux")[:2] == ([many], 1)
