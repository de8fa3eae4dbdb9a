"""The keyword index on PostgreSQL: full-text search (tsvector, GIN) and pg_trgm, one of the two
implementations of search.keyword_index (the other is search.fts, SQLite FTS5).

Tokenization is the same as on SQLite, done here in Python (search.keyword_base): NFKC, Chinese
runs as bigrams plus their last character, compound tokens' parts marked with PART_MARK; then each
token is lower-cased and its accents folded, as SQLite's unicode61 (remove_diacritics 2) does. A
frame's row holds a tsvector written out lexeme by lexeme (`doc`): PostgreSQL's own parsers and
dictionaries are not used, so "node.js" or "github.com" are the same words on both databases.
Each column's words take positions of their own, with a gap between columns so that a phrase
never spans two; text and window titles are weight A, app, URL and parts weight B (bm25 weighs
them 1.0 and 0.5 on SQLite; ts_rank's default weights give A 1.0 and B 0.4).

A query is a tsquery written the same way: a phrase is its tokens joined by <-> (:* on the last
for a prefix), tiers are joined by & and |, and a later tier excludes an earlier one with & !.
Relevance is ts_rank normalised by the log of the frame's length (PostgreSQL has no bm25: a word
is not weighed by how rare it is).

The index is the partitioned table search_keyword (period, frame_id, timestamp, doc), one
partition per PARTITION_DAYS period (search_kw_<period>, created with the first frame of its
period and recorded in the registry, search.keyword_base.REGISTRY, as on SQLite), each with a GIN
index on `doc`. A row's tsvector also holds the UTC day and hour of the frame as lexemes of their
own (time lexemes, without positions: phrases and ts_rank never see them), and a search ANDs its
words with the days and hours its range covers: the index gives only the frames of the range
that hold the words, and only their rows are read (then the exact time is checked on them). The vocabulary (words inside longer words) is a
table with a pg_trgm GIN index: LIKE '%word%' is answered from it.
"""

import dataclasses
import functools
import math
import re

from search.filters import TEXT_JOIN, Filters
from search.keyword_base import (  # noqa: F401  (vocab_starting: the same query on either database)
    PART_MARK,
    REGISTRY,
    VOCAB,
    period_bounds_s,
    period_of,
    periods_range,
    time_ms,
    token_fold,
    vocab_starting,
    vocab_terms,
)

LAYOUT = 1
TABLE = "search_keyword"
PREFIX = "search_kw_"
VOCAB_TRIGRAM_INDEX = "search_vocab_term_trgm"

# The tables (migration search 0008 on PostgreSQL); pg_trgm is a trusted extension: a database
# owner may create it.
CREATE_SQL = [
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    f"CREATE TABLE {VOCAB} (id bigserial PRIMARY KEY, term text COLLATE \"C\" NOT NULL UNIQUE)",
    f"CREATE INDEX {VOCAB_TRIGRAM_INDEX} ON {VOCAB} USING gin (term gin_trgm_ops)",
    f"CREATE TABLE {TABLE} (period integer NOT NULL, frame_id bigint NOT NULL, timestamp timestamptz NOT NULL,"
    f" doc tsvector NOT NULL, PRIMARY KEY (period, frame_id)) PARTITION BY RANGE (period)",
    f"CREATE INDEX {TABLE}_doc ON {TABLE} USING gin (doc)",
    f"CREATE INDEX {TABLE}_timestamp ON {TABLE} (timestamp)",
]
DROP_SQL = [f"DROP TABLE IF EXISTS {TABLE}", f"DROP TABLE IF EXISTS {VOCAB}"]

# Time lexemes: TIME_MARK, "d" or "h", the UTC day or hour number of the frame's time (whole
# seconds of its time in milliseconds). A search of a range asks for the hours it covers, and for
# a whole day inside it the day. Why not the time column in the index: with a b-tree on it the
# planner took the b-tree for a 1-day range and read every frame of the day from TOAST to test its
# words (60 ms a common word at 33,000 frames a day); with the time in the GIN index (btree_gin)
# each side of the range is a partial match that walks the timestamps of the whole partition
# (30 ms a query at 1,000,000 frames). A day and its hours are single index entries.
# Blocks of 2, 4 and 8 hours too (TIME_MARK, the span, "h", the block's number; migration 0010):
# GIN's cost grows with the entries a query ORs, and a 24-hour range that is not a UTC day took its
# 25 hours (8 ms for a common word at 33,000 frames a day, 2 ms for a whole day's one entry); with
# blocks it takes at most 7 entries, 5 on average.
TIME_MARK = "\ue001"
_HOUR_S = 3600
_DAY_HOURS = 24
_BLOCK_HOURS = (8, 4, 2)  # each divides a day and the next larger block
_TIME_SLACK_S = 1.0  # a row's lexemes come from its time in whole milliseconds: a range asks for a little more

# Migration search 0009: the time lexemes in the rows there are, and no b-tree on the time.
TIME_LEXEMES_SQL = [
    f"UPDATE {TABLE} SET doc = doc || array_to_tsvector(ARRAY["
    f"'{TIME_MARK}d' || floor(extract(epoch FROM timestamp) / {_HOUR_S * _DAY_HOURS})::bigint, "
    f"'{TIME_MARK}h' || floor(extract(epoch FROM timestamp) / {_HOUR_S})::bigint])",
    f"DROP INDEX {TABLE}_timestamp",
]
# Migration search 0010: the blocks of hours in the rows there are.
TIME_BLOCKS_SQL = [
    f"UPDATE {TABLE} SET doc = doc || array_to_tsvector(ARRAY["
    + ", ".join(f"'{TIME_MARK}{span}h' || floor(extract(epoch FROM timestamp) / {_HOUR_S * span})::bigint" for span in _BLOCK_HOURS)
    + "])"
]
TIME_BLOCKS_UNDO_SQL = [
    f"UPDATE {TABLE} SET doc = ts_delete(doc, coalesce((SELECT array_agg(w) FROM unnest(tsvector_to_array(doc)) w"
    f" WHERE starts_with(w, '{TIME_MARK}') AND NOT starts_with(w, '{TIME_MARK}d') AND NOT starts_with(w, '{TIME_MARK}h')),"
    " '{}'))"
]
TIME_LEXEMES_UNDO_SQL = [
    f"CREATE INDEX {TABLE}_timestamp ON {TABLE} (timestamp)",
    f"UPDATE {TABLE} SET doc = ts_delete(doc, coalesce((SELECT array_agg(w) FROM unnest(tsvector_to_array(doc)) w"
    f" WHERE starts_with(w, '{TIME_MARK}')), '{{}}'))",
]

# tsvector's limits: a lexeme of at most 2047 bytes, positions up to 16383, 256 positions a lexeme.
_LEXEME_MAX_BYTES = 2046
_POSITION_MAX = 16383
_POSITIONS_MAX = 256
# Columns of an index row (search.keyword_base.index_row) in the order their words are numbered, with their weight.
_COLUMNS = ((1, "A"), (3, "A"), (2, "B"), (4, "B"), (5, "B"))

# match_count_ranked: the share of the newest matches of a tier's superset that must be the tier's
# own for those to stand for the tier's newest matches.
_SUBSET_MIN_SHARE = 0.9
# A query of one word, no prefix or operator: _quote's output.
_SINGLE_LEXEME = re.compile(r"'(?:[^'\\]|''|\\.)*'")
# What unicode61 keeps as a token (letters and digits), a part with its mark.
_TOKEN = re.compile(f"{PART_MARK}?[^\\W_]+")


@functools.lru_cache(maxsize=100_000)  # a screen's words recur from frame to frame
def _lexeme(token: str) -> str | None:
    word = token_fold(token.lower())
    if len(word.encode()) > _LEXEME_MAX_BYTES:
        return None
    return word


def _quote(lexeme: str) -> str:
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


def doc_of(row: tuple) -> str:
    """The tsvector (as text) of an index row: every word at its position, with its column's weight."""
    lexemes: dict[str, list[str]] = {}
    position = 0
    for column, weight in _COLUMNS:
        for token in _TOKEN.findall(row[column]):
            position += 1
            lexeme = _lexeme(token)
            if lexeme is None:
                continue
            positions = lexemes.setdefault(lexeme, [])
            if len(positions) < _POSITIONS_MAX:
                positions.append(f"{min(position, _POSITION_MAX)}{weight}")
        position += 1  # a gap: no phrase spans two columns
    words = " ".join(f"{_quote(lexeme)}:{','.join(positions)}" for lexeme, positions in lexemes.items())
    return " ".join([words, *(_quote(lexeme) for lexeme in _time_lexemes(row[0]))])


def _time_lexeme(hour: int, span: int) -> str:
    """The lexeme of the span of hours (1, a block's or a day's) that starts at `hour`."""
    if span == 1:
        return f"{TIME_MARK}h{hour}"
    if span == _DAY_HOURS:
        return f"{TIME_MARK}d{hour // _DAY_HOURS}"
    return f"{TIME_MARK}{span}h{hour // span}"


def _time_lexemes(ms: int) -> list[str]:
    hour = ms // 1000 // _HOUR_S
    return [_time_lexeme(hour - hour % span, span) for span in (_DAY_HOURS, *_BLOCK_HOURS, 1)]


def _time_query(period: int, start_s: float, end_s: float) -> str | None:
    """The tsquery of the hours (as whole days and blocks where it can) that [start_s, end_s] covers in a period, a little
    more (_TIME_SLACK_S) on each side; None when that is the whole period."""
    first_s, end_period_s = period_bounds_s(period)
    start_s, end_s = max(start_s - _TIME_SLACK_S, first_s), min(end_s + _TIME_SLACK_S, end_period_s)
    if start_s <= first_s and end_s >= end_period_s:
        return None
    hour, last = math.floor(start_s / _HOUR_S), math.floor(end_s / _HOUR_S)
    lexemes = []
    while hour <= last:  # the largest span that starts here and ends in the range
        span = next(span for span in (_DAY_HOURS, *_BLOCK_HOURS, 1) if hour % span == 0 and hour + span - 1 <= last)
        lexemes.append(_time_lexeme(hour, span))
        hour += span
    return "(" + " | ".join(_quote(lexeme) for lexeme in lexemes) + ")"


class _TsquerySyntax:
    """A query as a tsquery: 'a' <-> 'b':* is a phrase (the last word a prefix), & and |, & !."""

    @staticmethod
    def phrase(tokens, prefix: bool = False) -> str:
        words = [_quote(token_fold(token.lower())) for token in tokens]
        if prefix:
            words[-1] += ":*"
        return words[0] if len(words) == 1 else "(" + " <-> ".join(words) + ")"

    @staticmethod
    def any_of(options: list[str]) -> str:
        return "(" + " | ".join(options) + ")" if len(options) > 1 else options[0]

    @staticmethod
    def all_of(clauses: list[str]) -> str:
        return " & ".join(clauses)

    @staticmethod
    def but_not(match: str, excluded: str) -> str:
        return f"({match}) & !({excluded})"


SYNTAX = _TsquerySyntax()


def partition_table(period: int) -> str:
    return f"{PREFIX}{period}" if period >= 0 else f"{PREFIX}m{-period}"


def _periods(cursor, start_s: float | None, end_s: float | None) -> list[int]:
    first, last = periods_range(start_s, end_s)
    cursor.execute(f"SELECT period FROM {REGISTRY} WHERE period BETWEEN %s AND %s ORDER BY period DESC", [first, last])
    return [row[0] for row in cursor.fetchall()]


def _partition_create(cursor, period: int) -> None:
    """Create the partition of a period and record it, unless it is recorded already. Two
    processes creating the same one take turns on an advisory lock."""
    cursor.execute(f"SELECT 1 FROM {REGISTRY} WHERE period = %s", [period])
    if cursor.fetchone():
        return
    cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s), %s)", [TABLE, period])
    cursor.execute(
        f"CREATE TABLE IF NOT EXISTS {partition_table(period)} PARTITION OF {TABLE} FOR VALUES FROM (%s) TO (%s)",
        [period, period + 1],
    )
    cursor.execute(f"INSERT INTO {REGISTRY} (period, layout) VALUES (%s, %s) ON CONFLICT DO NOTHING", [period, LAYOUT])


# Search ----------------------------------------------------------------------------------------


def scopes_in(cursor, start_s: float, end_s: float) -> list[int]:
    """The periods a search of [start_s, end_s] looks in, newest first."""
    return _periods(cursor, start_s, end_s)


def _match_sql(period: int, match: str, filters: Filters) -> tuple[str, list]:
    """FROM and WHERE of the frames of one period in the range whose words match."""
    table = partition_table(period)
    where, params, needs_text = filters.sql()
    time_where = ["k.timestamp >= %s", f"k.timestamp {'<=' if filters.end_inclusive else '<'} %s"]
    if (hours := _time_query(period, filters.start_time, filters.end_time)) is not None:
        match = f"({match}) & {hours}"
    base = f"FROM {table} k"
    if len(where) > 2 or needs_text:
        base += " JOIN frames_frame f ON f.id = k.frame_id" + (TEXT_JOIN if needs_text else "")
    base += " WHERE k.doc @@ %s::tsquery AND " + " AND ".join(time_where + where[2:])
    return base, [match, *params]


def match_count(cursor, period: int, match: str, filters: Filters) -> int:
    base, params = _match_sql(period, match, filters)
    cursor.execute(f"SELECT count(*) {base}", params)
    return cursor.fetchone()[0]


def match_ranked(
    cursor, period: int, match: str, filters: Filters, n: int, *, newest: int | None = None, expected: int | None = None
) -> tuple[list[tuple[float, int]], bool]:
    """The n best matches of the period by ts_rank (normalised by length), as (score, frame id),
    best first; with `newest`, among the newest that many matches only. Also whether `newest` cut
    the matches. `expected`: about how many matches there are, when known.

    With `newest`, one scan of the word index: the newest matches by their time and row address
    alone, then only their tsvectors read (from TOAST, most of them) and ranked; from the end of
    the range that should hold them when many more are expected (each match of the range is
    read otherwise, its words too for a query with !), and from the whole range when the tail
    holds too few."""
    if newest is not None and expected and expected > newest and (tail := _tail(period, filters, expected, newest)) is not None:
        rows, cut = _ranked(cursor, period, match, tail, n, newest)
        if cut:  # more than `newest` in the tail: it holds the newest of the range
            return rows, cut
    return _ranked(cursor, period, match, filters, n, newest)


def _ranked(cursor, period: int, match: str, filters: Filters, n: int, newest: int | None) -> tuple[list[tuple[float, int]], bool]:
    base, params = _match_sql(period, match, filters)
    order = "ORDER BY score DESC, k.timestamp DESC, k.frame_id DESC LIMIT %s"
    if newest is None:
        cursor.execute(f"SELECT ts_rank(k.doc, %s::tsquery, 1) AS score, k.frame_id {base} {order}", [match, *params, n])
        return [(score, frame_id) for score, frame_id in cursor.fetchall()], False
    cursor.execute(
        f"WITH hit AS MATERIALIZED (SELECT k.ctid AS tid, k.timestamp, k.frame_id {base}"
        " ORDER BY k.timestamp DESC, k.frame_id DESC LIMIT %s)"
        " SELECT ts_rank(k.doc, %s::tsquery, 1) AS score, k.frame_id, (SELECT count(*) FROM hit)"
        f" FROM {partition_table(period)} k"
        " WHERE k.ctid = ANY(ARRAY(SELECT tid FROM hit ORDER BY timestamp DESC, frame_id DESC LIMIT %s))"
        f" {order}",
        [*params, newest + 1, match, newest, n],
    )
    rows = cursor.fetchall()
    return [(score, frame_id) for score, frame_id, _ in rows], bool(rows) and rows[0][2] > newest


def match_count_ranked(
    cursor, period: int, match: str, subset: str, filters: Filters, n: int, *, newest: int | None = None
) -> tuple[int, list[tuple[float, int]], bool]:
    """How many frames of the range in the period match `match`, and the n best matches of
    `subset` (a query whose matches all match `match`) by ts_rank as match_ranked gives them;
    when `match` has more than `newest` matches, among the newest `newest` of `subset`. Also
    whether `newest` cut `subset`'s matches.

    Without a phrase, the word index counts (each match's row read for its time, not its words)
    and match_ranked ranks `subset`'s newest, from the end of the range that should hold them.
    A phrase is checked on the words of every frame that holds all of them: in one scan, which
    counts them and reads only the newest `newest` ones' tsvectors (from TOAST, most of them)
    again to test `subset` and rank (a single word as `subset` needs no test: ts_rank is above 0
    exactly on the frames that hold it); when fewer than _SUBSET_MIN_SHARE of those are
    `subset`'s, match_ranked ranks `subset`'s own newest."""
    if "<->" not in match:
        count = match_count(cursor, period, match, filters)
        if not count:
            return 0, [], False
        cut = newest is not None and count > newest
        return count, *match_ranked(cursor, period, subset, filters, n, newest=newest if cut else None, expected=count)
    single = _SINGLE_LEXEME.fullmatch(subset) is not None
    base, params = _match_sql(period, match, filters)
    test, test_params = ("", []) if subset == match or single else (" AND k.doc @@ %s::tsquery", [subset])
    cursor.execute(
        f"WITH hit AS MATERIALIZED (SELECT k.ctid AS tid, k.timestamp, k.frame_id {base})"
        " SELECT c.count, r.score, r.frame_id, r.exact FROM (SELECT count(*) FROM hit) c LEFT JOIN LATERAL ("
        f" SELECT z.score, z.frame_id, count(*) FILTER (WHERE {'z.score > 0' if single else 'true'}) OVER () AS exact FROM ("
        # OFFSET 0: ts_rank once a row, for the order and the count of `subset`'s matches.
        f"  SELECT ts_rank(k.doc, %s::tsquery, 1) AS score, k.frame_id, k.timestamp FROM {partition_table(period)} k"
        f"  WHERE k.ctid = ANY(ARRAY(SELECT tid FROM hit ORDER BY timestamp DESC, frame_id DESC LIMIT %s)){test} OFFSET 0"
        " ) z ORDER BY z.score DESC, z.timestamp DESC, z.frame_id DESC LIMIT %s"
        ") r ON true",
        [*params, subset, newest, *test_params, max(n, 1)],
    )
    rows = cursor.fetchall()
    count, exact = rows[0][0], rows[0][3] or 0
    cut = newest is not None and count > newest
    if cut and exact < newest * _SUBSET_MIN_SHARE:
        return count, *match_ranked(cursor, period, subset, filters, n, newest=newest)
    # A frame that holds a single word only through the phrase of its parts ranks 0, last: the LIMIT kept every frame that holds it.
    return count, [(score, frame_id) for _, score, frame_id, _ in rows[:n] if frame_id is not None and (score > 0 or not single)], cut


# A tail of a range expected to hold this many times the newest matches asked for (matches spread evenly).
_TAIL_MARGIN = 1.5


def _tail(period: int, filters: Filters, count: int, newest: int) -> Filters | None:
    """The end of the range in the period that should hold the newest `newest` of its `count`
    matches there, or None when that is all of it."""
    share = newest / count * _TAIL_MARGIN
    first_s, end_s = period_bounds_s(period)
    start_s, last_s = max(filters.start_time, first_s), min(filters.end_time, end_s)
    if share >= 1 or last_s <= start_s:
        return None
    return dataclasses.replace(filters, start_time=last_s - (last_s - start_s) * share)


def match_count_newest(
    cursor, period: int, match: str, excluded: str, excluded_most: int, filters: Filters, n: int
) -> tuple[int, list[int] | None]:
    """How many frames of the range in the period match `match`, and the n newest of those that do
    not match `excluded` (a query whose matches all match `match`, at most `excluded_most` of them
    here), newest first: one scan of the word index. The newest n + excluded_most matches hold
    them all, so only those rows' tsvectors are read to test `excluded`."""
    base, params = _match_sql(period, match, filters)
    cursor.execute(
        f"WITH hit AS MATERIALIZED (SELECT k.ctid AS tid, k.timestamp, k.frame_id {base})"
        " SELECT c.count, z.frame_id FROM (SELECT count(*) FROM hit) c LEFT JOIN LATERAL ("
        f" SELECT k.frame_id, k.timestamp FROM {partition_table(period)} k"
        "  WHERE k.ctid = ANY(ARRAY(SELECT tid FROM hit ORDER BY timestamp DESC, frame_id DESC LIMIT %s))"
        "  AND NOT (k.doc @@ %s::tsquery) ORDER BY k.timestamp DESC, k.frame_id DESC LIMIT %s"
        ") z ON true",
        [*params, n + excluded_most, excluded, max(n, 1)],
    )
    rows = cursor.fetchall()
    return rows[0][0], [frame_id for _, frame_id in rows[:n] if frame_id is not None]


def match_newest(cursor, period: int, match: str, filters: Filters, n: int) -> list[int]:
    base, params = _match_sql(period, match, filters)
    cursor.execute(f"SELECT k.frame_id {base} ORDER BY k.timestamp DESC, k.frame_id DESC LIMIT %s", [*params, n])
    return [frame_id for (frame_id,) in cursor.fetchall()]


def frame_ids(cursor, entries: list[tuple[int, int]]) -> dict[tuple[int, int], int]:
    """A match's key is its frame id."""
    return {(period, frame_id): frame_id for period, frame_id in entries}


def vocab_containing(cursor, word: str, limit: int) -> list[str]:
    """Up to `limit` words of the vocabulary that contain `word` and are longer, the shortest first."""
    # A query word is letters and digits only: nothing in it is a LIKE wildcard.
    cursor.execute(
        f"SELECT term FROM {VOCAB} WHERE term LIKE %s AND term != %s ORDER BY length(term), term LIMIT %s",
        [f"%{word}%", word, limit],
    )
    return [row[0] for row in cursor.fetchall()]


# Writes ----------------------------------------------------------------------------------------


def _vocab_add(cursor, rows: list[tuple]) -> None:
    terms = sorted(vocab_terms(rows))  # sorted: two writers take the same order, never a deadlock
    if terms:
        cursor.execute(
            f"INSERT INTO {VOCAB} (term) SELECT unnest(%s::text[]) ON CONFLICT (term) DO NOTHING", [terms]
        )


def rows_write(cursor, rows: list[tuple]) -> None:
    """Write index rows (search.keyword_base.index_row), each into the partition of its time
    (created as needed), replacing a frame's row if it has one; their words join the vocabulary."""
    if not rows:
        return
    _vocab_add(cursor, rows)
    by_period: dict[int, list[tuple]] = {}
    for row in rows:
        by_period.setdefault(period_of(row[0]), []).append(row)
    for period, period_rows in sorted(by_period.items()):
        _partition_create(cursor, period)
        cursor.executemany(
            f"INSERT INTO {partition_table(period)} (period, frame_id, timestamp, doc)"
            # The frame's exact time (the row's is in whole milliseconds).
            " VALUES (%s, %s, coalesce((SELECT timestamp FROM frames_frame WHERE id = %s), to_timestamp(%s / 1000.0)),"
            " %s::tsvector)"
            " ON CONFLICT (period, frame_id) DO UPDATE SET timestamp = excluded.timestamp, doc = excluded.doc",
            [(period, row[-1], row[-1], row[0], doc_of(row)) for row in period_rows],
        )


def row_delete(cursor, *, timestamp_s: float, frame_id: int) -> None:
    """Remove a frame's row, if it has one (its partition stays: the frame is usually indexed again)."""
    _rows_remove(cursor, [(timestamp_s, frame_id)], drop_empty=False)


def rows_delete(cursor, keys: list[tuple[float, int]], *, rows: list[tuple] = ()) -> tuple[int, set[str]]:
    """Remove the rows of these frames (timestamp_s, frame_id); a partition left empty is dropped.
    Returns how many rows went, and the vocabulary words of `rows` (their index rows, for vocab_forget)."""
    return _rows_remove(cursor, keys, drop_empty=True), vocab_terms(list(rows))


def _rows_remove(cursor, keys: list[tuple[float, int]], *, drop_empty: bool) -> int:
    by_period: dict[int, list[int]] = {}
    for timestamp_s, frame_id in keys:
        by_period.setdefault(period_of(time_ms(timestamp_s)), []).append(frame_id)
    removed = 0
    known = set(_periods(cursor, None, None)) if by_period else set()
    for period, ids in by_period.items():
        if period not in known:
            continue
        table = partition_table(period)
        cursor.execute(f"DELETE FROM {table} WHERE frame_id = ANY(%s)", [ids])
        removed += cursor.rowcount
        if not drop_empty:
            continue
        cursor.execute(f"SELECT 1 FROM {REGISTRY} WHERE period = %s AND build_layout IS NOT NULL", [period])
        rebuilding = cursor.fetchone()
        cursor.execute(f"SELECT 1 FROM {table} LIMIT 1")
        if cursor.fetchone() is None and not rebuilding:  # nothing left in its period: give its pages back
            cursor.execute(f"DROP TABLE {table}")
            cursor.execute(f"DELETE FROM {REGISTRY} WHERE period = %s", [period])
    return removed


def vocab_forget(cursor, terms: set[str], *, first: list[int] = ()) -> int:
    """Remove from the vocabulary the words no frame's row holds any more; returns how many. The
    partitions in `first` (where the deleted rows were) are looked in first."""
    if not terms:
        return 0
    left = {token_fold(term): term for term in terms}
    periods = list(dict.fromkeys([*first, *_periods(cursor, None, None)]))
    known = set(_periods(cursor, None, None))
    for period in periods:
        if not left or period not in known:
            continue
        words = list(left)
        # The words found in this partition: one GIN probe each.
        cursor.execute(
            f"SELECT w FROM unnest(%s::text[]) w WHERE EXISTS"
            f" (SELECT 1 FROM {partition_table(period)} k WHERE k.doc @@ quote_literal(w)::tsquery)",
            [words],
        )
        for (found,) in cursor.fetchall():
            left.pop(found, None)
    gone = sorted(left.values())
    if gone:
        cursor.execute(f"DELETE FROM {VOCAB} WHERE term = ANY(%s)", [gone])
    return len(gone)


def range_scrub(cursor, start_s: float | None, end_s: float, *, vocabulary: bool) -> None:
    """After frames of [start_s, end_s] were deleted: nothing to merge. Their rows are gone from
    every query; the deletion's VACUUM frees their space, and `compact --vacuum` (VACUUM FULL)
    rewrites the tables (PostgreSQL does not zero freed space; see the README's "Scale out")."""


def rows_count(cursor) -> int:
    cursor.execute(f"SELECT count(*) FROM {TABLE}")
    return cursor.fetchone()[0]


# Rebuild ---------------------------------------------------------------------------------------
# There is one layout: a rebuild rewrites a period's rows in place, then drops the rows of frames
# that are gone.


def vocab_reset(cursor) -> bool:
    cursor.execute(f"SELECT 1 FROM {REGISTRY} WHERE build_layout IS NOT NULL LIMIT 1")
    if cursor.fetchone():
        return False
    cursor.execute(f"DELETE FROM {VOCAB}")
    return True


def rebuild_under_way(cursor, period: int) -> bool:
    cursor.execute(f"SELECT build_layout FROM {REGISTRY} WHERE period = %s", [period])
    row = cursor.fetchone()
    return row is not None and row[0] == LAYOUT


def rebuild_begin(cursor, period: int) -> None:
    _partition_create(cursor, period)
    if not rebuild_under_way(cursor, period):
        cursor.execute(
            f"UPDATE {REGISTRY} SET build_layout = %s, build_after_ts = NULL, build_after_id = NULL WHERE period = %s",
            [LAYOUT, period],
        )


def rebuild_write(cursor, period: int, rows: list[tuple]) -> None:
    rows_write(cursor, rows)


def rebuild_finish(cursor, period: int) -> None:
    """Drop the rows of frames no longer there (or whose OCR is not over), and end the rebuild; a
    period left without rows loses its partition."""
    table = partition_table(period)
    cursor.execute(
        f"DELETE FROM {table} k WHERE NOT EXISTS (SELECT 1 FROM frames_frame f WHERE f.id = k.frame_id"
        " AND f.ocr_status IN ('done', 'failed'))"
    )
    cursor.execute(f"SELECT 1 FROM {table} LIMIT 1")
    if cursor.fetchone() is None:
        cursor.execute(f"DROP TABLE {table}")
        cursor.execute(f"DELETE FROM {REGISTRY} WHERE period = %s", [period])
        return
    cursor.execute(
        f"UPDATE {REGISTRY} SET layout = %s, build_layout = NULL, build_after_ts = NULL, build_after_id = NULL"
        " WHERE period = %s",
        [LAYOUT, period],
    )


def periods_in(cursor, start_s: float | None, end_s: float | None) -> list[int]:
    return _periods(cursor, start_s, end_s)


def periods_outdated(cursor) -> list[int]:
    cursor.execute(f"SELECT period FROM {REGISTRY} WHERE layout < %s ORDER BY period", [LAYOUT])
    return [row[0] for row in cursor.fetchall()]
