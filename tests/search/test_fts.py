import pytest
from django.db import connection

from search.filters import Filters
from search.fts import LAYOUT, SECOND_SLOTS, Partition
from search.keyword import keyword_query
from search.keyword_base import PART_MARK, fts_prepare, index_row, text_parts, token_parts
from search.keyword_index import keyword_index

pytestmark = pytest.mark.django_db

TEXTS = {
    1: "今天下午讨论机器学习项目的进度",
    2: "Deployment of the search server finished",
    3: "OCR识别结果很准确",
    4: "budget review for the quarterly meeting",
    5: "review the budget before the meeting",
    6: "学",
    7: "C++ and node.js: cost ^2 (draft) - not final",
    8: "Unpacking libdouble-conversion3:amd64 (3.2.1-1)",
    9: "Linux 内核由LinusTorvalds编写，使用Ｄｏｃｋｅｒ部署",
    10: "getHTTPResponse returned relative paths",
}


@pytest.fixture
def indexed():
    """The texts indexed at the epoch, through the keyword index of the database in use."""
    with connection.cursor() as cursor:
        rows = [
            index_row(timestamp_s=0.0, frame_id=frame_id, text=text, app_name="", window_name="", browser_url="")
            for frame_id, text in TEXTS.items()
        ]
        keyword_index().rows_write(cursor, rows)


def matches(q: str, tier: str = "strict") -> set[int]:
    """The frames a tier of the query matches, through the index's own primitives."""
    index = keyword_index()
    query = keyword_query(q)
    if not query.terms:
        return set()
    match = {"strict": query.strict, "parts": query.parts, "prefix": lambda s: query.prefix(s, [])}[tier](index.SYNTAX)
    with connection.cursor() as cursor:
        scopes = index.scopes_in(cursor, -10.0, 10.0)
        keys = [
            (scope, key) for scope in scopes for key in index.match_newest(cursor, scope, match, Filters(start_time=-10.0, end_time=10.0), 100)
        ]
        return set(index.frame_ids(cursor, keys).values())


def test_prepare_splits_chinese_runs_into_bigrams_and_keeps_english_words():
    assert fts_prepare("机器学习").split() == ["机器", "器学", "学习", "习"]
    assert fts_prepare("OCR识别 done").split() == ["OCR", "识别", "别", "done"]
    assert fts_prepare("学").split() == ["学"]
    assert fts_prepare("") == ""


@pytest.mark.parametrize(
    "q, expected",
    [
        ("机器", {1}),  # 2 characters at the start of a run
        ("学习", {1}),  # 2 characters inside a sentence
        ("讨论", {1}),
        ("机器学习", {1}),  # 4 characters: the phrase of its bigrams
        ("进度", {1}),  # at the end of the run
        ("识别", {3}),
        ("准确", {3}),
        ("结果很", {3}),  # 3 characters
        ("下午讨", {1}),
        ("学", {1, 6}),  # one character: inside a run, or alone
        ("度", {1}),  # one character at the end of a run
        ("OCR识别", {3}),  # mixed, no space
        ("ocr", {3}),
    ],
)
def test_chinese_words_are_found_inside_sentences(indexed, q, expected):
    assert matches(q) == expected


@pytest.mark.parametrize("q", ["习机", "学器", "识结", "器学习项目会"])
def test_chinese_characters_that_are_not_contiguous_do_not_match(indexed, q):
    assert matches(q) == set()


def test_prepare_makes_full_width_letters_and_digits_ascii():
    assert fts_prepare("Ｄｏｃｋｅｒ ２０２６").split() == ["Docker", "2026"]


@pytest.mark.parametrize(
    "token, parts",
    [
        ("LinusTorvalds", ["Linus", "Torvalds"]),
        ("conversion3", ["conversion", "3"]),
        ("amd64", ["amd", "64"]),
        ("getHTTPResponse", ["get", "HTTP", "Response"]),
        ("HTTPServer2", ["HTTP", "Server", "2"]),
        ("iPhone", ["i", "Phone"]),
        ("ÜberWeg", ["Über", "Weg"]),
        ("Torvalds", []),
        ("release", []),
        ("NASA", []),
        ("2026", []),
    ],
)
def test_compound_tokens_split_at_camel_case_and_digits(token, parts):
    assert token_parts(token) == parts


def test_parts_column_holds_the_marked_parts_of_compound_tokens_only():
    parts = text_parts("by LinusTorvalds on x86", "", "libdouble-conversion3:amd64")
    assert parts == " ".join(PART_MARK + p for p in "Linus Torvalds x 86 conversion 3 amd 64".split())
    assert text_parts("由Linus编写 plain words") == ""


@pytest.mark.parametrize(
    "q, strict, parts",
    [
        ("torvalds", set(), {9}),  # inside the camel-case token OCR made of "Linus Torvalds"
        ("LinusTorvalds", {9}, {9}),
        ("linus torvalds", set(), {9}),
        ('"Linus Torvalds"', set(), {9}),  # the phrase matches the token's parts in order
        ("conversion", set(), {8}),  # letters glued to digits
        ("amd64", {8}, {8}),
        ("Docker", {9}, {9}),  # full-width on screen, glued to Chinese
        ("内核", {9}, {9}),
        ("http response", set(), {10}),
        ("relative", {10}, {10}),
    ],
)
def test_exact_words_and_compound_parts(indexed, q, strict, parts):
    assert matches(q) == strict
    assert matches(q, "parts") == parts


def test_the_last_word_is_a_prefix_in_the_prefix_tier_only(indexed):
    assert matches("relativ") == set()
    assert matches("relativ", "prefix") == {10}
    assert matches("paths relat", "prefix") == {10}
    assert matches("budget quarterl", "prefix") == {4}
    assert keyword_query("re").prefix_word() is None  # too short to stand for a word
    assert keyword_query("机器").prefix_word() is None
    assert keyword_query('"budget rev"').prefix_word() is None  # a phrase is what was typed
    assert keyword_query("budget rel").prefix_word() == "rel"


def test_english_words_phrases_and_prefixes(indexed):
    assert matches("budget") == {4, 5}
    assert matches("budget meeting") == {4, 5}  # every word, anywhere
    assert matches('"budget review"') == {4}  # a phrase: the words in this order
    assert matches('"review the budget"') == {5}
    assert matches("deploy") == set()
    assert matches("deploy*") == {2}
    assert matches("DEPLOYMENT") == {2}


@pytest.mark.parametrize(
    "q",
    [
        '"',
        '"budget',
        'budget"',
        '"""',
        "budget*review",
        "***",
        "budget AND",
        "AND",
        "OR",
        "NOT budget",
        "budget OR meeting",
        "NEAR(budget meeting",
        "NEAR(budget meeting, 2)",
        "-budget",
        "budget -review",
        "text:budget",
        ":",
        "^budget",
        "^",
        "(budget",
        "budget)",
        "()",
        "{text}: budget",
        "C++",
        "node.js",
        "it's",
        "学 AND (机器",
        "'",
        "\\",
        "%_",
        "\x00budget",
    ],
)
def test_fts_syntax_typed_by_a_user_is_searched_as_words_never_obeyed(indexed, q):
    assert isinstance(matches(q), set)


def test_operators_are_searched_as_words_not_obeyed(indexed):
    # "budget OR nothing" would match 4 and 5 if OR were an operator.
    assert matches("budget OR nothing") == set()
    assert matches("budget -review") == {4, 5}
    assert matches("NEAR(budget meeting") == set()
    assert matches("^2 draft") == {7}
    assert matches("node.js") == {7}


@pytest.mark.parametrize("q", ["", "   ", '""', "*", "-", ":", "^", "()", "，。！", "''"])
def test_a_query_without_words_has_no_terms_and_matches_nothing(indexed, q):
    assert keyword_query(q).terms == ()
    assert matches(q) == set()


@pytest.mark.sqlite_only
@pytest.mark.parametrize("layout", [3, LAYOUT])
def test_rowid_ranges_follow_time(layout):
    from search.fts import _rowid_wanted, time_ms

    partition = Partition(period=0, layout=layout)
    t = 1_700_000_000.5
    assert _rowid_wanted(layout, time_ms(t), 1) < _rowid_wanted(layout, time_ms(t + 1), 0)
    lo, hi = partition.rowid_range(t, t + 60)
    inside_lo, inside_hi = partition.rowid_range_inside(t, t + 60)
    assert lo < inside_lo and inside_hi < hi
    for ts in (t, t + 0.0005, t + 30, t + 60):
        assert lo <= _rowid_wanted(layout, time_ms(ts), 12345) <= hi
    for ts in (t + 3, t + 30, t + 57):
        assert inside_lo <= _rowid_wanted(layout, time_ms(ts), 12345) <= inside_hi
    far = 0.003 if layout < 4 else 3  # beyond the slack: a millisecond, or two seconds from layout 4
    for ts in (t - far, t + 60 + far):
        assert not lo <= _rowid_wanted(layout, time_ms(ts), 7) <= hi


@pytest.mark.sqlite_only
def test_a_second_index_rowid_costs_less_than_a_millisecond_one():
    # What layout 4 is for: consecutive frames a few seconds apart are a small rowid step.
    from search.fts import _rowid_wanted, time_ms

    step = _rowid_wanted(LAYOUT, time_ms(1_700_000_003), 2) - _rowid_wanted(LAYOUT, time_ms(1_700_000_000), 1)
    assert step < 128 <= _rowid_wanted(3, time_ms(1_700_000_003), 2) - _rowid_wanted(3, time_ms(1_700_000_000), 1)
    assert SECOND_SLOTS * 3 - SECOND_SLOTS < step
