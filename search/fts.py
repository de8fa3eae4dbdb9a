"""The keyword index on SQLite: FTS5, one of the two implementations of search.keyword_index
(the other is search.pg_fts). Text reaches it tokenized as search.keyword_base says (Chinese as
bigrams, compound parts marked, NFKC); unicode61 with remove_diacritics then lower-cases and
folds accents.

Row ids are ordered by time, so a time range is a rowid range that FTS5 applies inside
the index instead of filtering every match afterwards. From layout 4 a rowid is the frame's
second * SECOND_SLOTS + a slot (the frame id mod SECOND_SLOTS, or the next free one): FTS5
keeps, for every word of every row, the distance from the previous row holding it, and a
distance in seconds takes one or two bytes where one in milliseconds * 1000 (layouts 1-3)
took four (the index is a third smaller). A frame whose second is full takes a slot of a
later second; the partition records the most seconds a row was moved (`spill`), and ranges
are widened by it. The partition of a frame follows from its time.

The index is split by time into one FTS5 table per PARTITION_DAYS period
(search_fts_<period>, periods counted from the epoch). bm25 reads, once per
query, every entry of each query term in the whole table (its document
frequency), so with one table that cost grew with the whole history; with
partitions it grows with one period. A week: every new connection (one per request under ASGI)
parses the whole schema, about 6 entries a partition, and pays 1 ms at 52 partitions, 3 ms at
156, 14 ms at 520; a smaller table makes bm25's scan of a phrase cheaper (two stopwords: about
21 ms in a week of 233k frames) but day tables would cost every request about 55 ms after three
years (bench/search_keyword.py). A partition is created when the first
frame of its period is indexed and recorded in the registry table with its layout
(its columns), so a search lists the partitions of its range without reading
sqlite_master. `manage.py reindex --fts` rebuilds partitions from the database beside
the live ones (rows are written to both while it runs) and swaps each in when done.

The vocabulary's trigram index is an FTS5 table with the trigram tokenizer.
"""

import math
from dataclasses import dataclass

from search.filters import TEXT_JOIN, Filters
from search.keyword_base import (  # noqa: F401  (re-exported: what the SQLite index is made of)
    PART_MARK,
    PARTITION_DAYS,
    PARTITION_MS,
    REGISTRY,
    REGISTRY_COLUMNS,
    REGISTRY_CREATE_SQL,
    TEXT_COLUMNS,
    VOCAB,
    VOCAB_MIN_CHARS,
    fts_prepare,
    index_row,
    period_bounds_s,
    period_of,
    periods_between,
    periods_range,
    rebuild_after,
    rebuild_mark,
    term_tokens,
    text_normalize,
    text_parts,
    token_fold,
    token_is_word,
    token_parts,
    time_ms,
    vocab_starting,
    vocab_terms,
)

PREFIX = "search_fts_"
BUILD_SUFFIX = "_next"

# Layout 1: the text columns and frame_id. Layout 2 adds `parts` (compound parts). Layout 3 is
# layout 2 contentless: the index keeps no copy of the text (the OCR rows hold it once), only
# frame_id (contentless_unindexed), and deletes by rowid (contentless_delete; SQLite 3.45+, see
# myrecall/sqlite.py).
# Layout 4 is layout 3 with rowids by the second (see above).
LAYOUT = 4
_LAYOUT_COLUMNS = {1: (*TEXT_COLUMNS, "frame_id"), 2: (*TEXT_COLUMNS, "parts", "frame_id")}
_LAYOUT_COLUMNS[3] = _LAYOUT_COLUMNS[4] = _LAYOUT_COLUMNS[2]
# Column weights for bm25: on-screen text and window titles count more than app, URL and parts.
_LAYOUT_WEIGHTS = {1: "1.0, 0.5, 1.0, 0.5", 2: "1.0, 0.5, 1.0, 0.5, 0.5"}
_LAYOUT_WEIGHTS[3] = _LAYOUT_WEIGHTS[4] = _LAYOUT_WEIGHTS[2]
CONTENTLESS_FROM = 3
SECONDS_FROM = 4
SECOND_SLOTS = 16

# The vocabulary's trigram index (see search.keyword_base for the vocabulary).
VOCAB_TRIGRAMS = "search_vocab_trigram"
VOCAB_CREATE_SQL = [
    f"CREATE TABLE {VOCAB} (id integer PRIMARY KEY, term text NOT NULL UNIQUE)",
    f"CREATE VIRTUAL TABLE {VOCAB_TRIGRAMS} USING fts5(term, content='{VOCAB}', content_rowid='id',"
    " tokenize='trigram', detail='none')",
    f"CREATE TRIGGER {VOCAB}_added AFTER INSERT ON {VOCAB} BEGIN"
    f" INSERT INTO {VOCAB_TRIGRAMS} (rowid, term) VALUES (new.id, new.term); END",
]
VOCAB_DROP_SQL = [f"DROP TRIGGER {VOCAB}_added", f"DROP TABLE {VOCAB_TRIGRAMS}", f"DROP TABLE {VOCAB}"]


def _rowid_wanted(layout: int, ms: int, frame_id: int) -> int:
    if layout < SECONDS_FROM:
        return ms * 1000 + frame_id % 1000
    return ms // 1000 * SECOND_SLOTS + frame_id % SECOND_SLOTS


def partition_table(period: int) -> str:
    return f"{PREFIX}{period}" if period >= 0 else f"{PREFIX}m{-period}"


@dataclass(frozen=True)
class Partition:
    period: int
    layout: int
    build_layout: int | None = None  # a rebuild in this layout is under way beside it
    spill: int = 0  # the most seconds a row's rowid was moved past its own (layout 4 on)
    build_spill: int = 0

    @property
    def table(self) -> str:
        return partition_table(self.period)

    @property
    def build_table(self) -> str:
        return partition_table(self.period) + BUILD_SUFFIX

    @property
    def bm25(self) -> str:
        return f"bm25({self.table}, {_LAYOUT_WEIGHTS[self.layout]})"

    def rowid_range(self, start_s: float, end_s: float) -> tuple[int, int]:
        """The rowids of the live table that may hold frames of [start_s, end_s]; the exact
        bounds are applied on the frames' timestamps."""
        if self.layout < SECONDS_FROM:  # a millisecond of slack either side
            return (time_ms(start_s) - 1) * 1000, (time_ms(end_s) + 2) * 1000 - 1
        # Two seconds of slack either side (a float time may land in the second before), and the spill.
        return (math.floor(start_s) - 1) * SECOND_SLOTS, (math.floor(end_s) + 2 + self.spill) * SECOND_SLOTS - 1

    def rowid_range_inside(self, start_s: float, end_s: float) -> tuple[int, int]:
        """The rowids whose frames are surely inside [start_s, end_s]: only rows between this
        and rowid_range need their exact timestamp checked."""
        if self.layout < SECONDS_FROM:  # two milliseconds of margin
            return (math.ceil(start_s * 1000) + 2) * 1000, (math.floor(end_s * 1000) - 2) * 1000 - 1
        # A row's own second is at most `spill` seconds before its rowid's.
        return (math.floor(start_s) + 2 + self.spill) * SECOND_SLOTS, (math.floor(end_s) - 1) * SECOND_SLOTS - 1


def partitions_in(cursor, start_s: float | None, end_s: float | None) -> list[Partition]:
    """The existing partitions that may hold frames of [start_s, end_s] (None: no bound), newest first."""
    first, last = periods_range(start_s, end_s)
    cursor.execute(
        f"SELECT {REGISTRY_COLUMNS} FROM {REGISTRY} WHERE period BETWEEN %s AND %s ORDER BY period DESC", [first, last]
    )
    return [Partition(*row) for row in cursor.fetchall()]


def partitions_all(cursor) -> list[int]:
    cursor.execute(f"SELECT period FROM {REGISTRY} ORDER BY period")
    return [row[0] for row in cursor.fetchall()]


def partition_get(cursor, period: int) -> Partition | None:
    cursor.execute(f"SELECT {REGISTRY_COLUMNS} FROM {REGISTRY} WHERE period = %s", [period])
    row = cursor.fetchone()
    return Partition(*row) if row else None


def table_create(cursor, table: str, layout: int) -> None:
    columns = ", ".join(f"{c} UNINDEXED" if c == "frame_id" else c for c in _LAYOUT_COLUMNS[layout])
    options = ", content = '', contentless_delete = 1, contentless_unindexed = 1" if layout >= CONTENTLESS_FROM else ""
    cursor.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {table} USING fts5({columns}, tokenize = 'unicode61 remove_diacritics 2'{options})"
    )


# FTS5 (3.50, 3.51) neither renames nor drops the `_content` table of a contentless table with an
# unindexed column (contentless_unindexed): these do it after it.
def table_drop(cursor, table: str) -> None:
    cursor.execute(f"DROP TABLE IF EXISTS {table}")
    cursor.execute(f"DROP TABLE IF EXISTS {table}_content")


def table_rename(cursor, old: str, new: str) -> None:
    cursor.execute(f"ALTER TABLE {old} RENAME TO {new}")
    cursor.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = %s", [f"{old}_content"])
    if cursor.fetchone():
        cursor.execute(f"DROP TABLE IF EXISTS {new}_content")
        cursor.execute(f"ALTER TABLE {old}_content RENAME TO {new}_content")


def partition_create(cursor, period: int) -> Partition:
    """Create the partition of a period in the current layout and record it, unless it is recorded already."""
    if found := partition_get(cursor, period):
        return found
    table_create(cursor, partition_table(period), LAYOUT)
    # OR IGNORE: another process may have created the same partition since the check.
    cursor.execute(f"INSERT OR IGNORE INTO {REGISTRY} (period, layout) VALUES (%s, %s)", [period, LAYOUT])
    return partition_get(cursor, period)


def partitions_drop_all(cursor) -> None:
    for period in partitions_all(cursor):
        table_drop(cursor, partition_table(period))
        table_drop(cursor, f"{partition_table(period)}{BUILD_SUFFIX}")
    cursor.execute(f"DROP TABLE IF EXISTS {REGISTRY}")


def _rowids_present(cursor, table: str, rowids) -> set[int]:
    rowids, present = list(rowids), set()
    for at in range(0, len(rowids), 500):
        chunk = rowids[at : at + 500]
        cursor.execute(f"SELECT rowid FROM {table} WHERE rowid IN ({', '.join(['%s'] * len(chunk))})", chunk)
        present.update(row[0] for row in cursor.fetchall())
    return present


def _rowids_assign(cursor, table: str, layout: int, rows: list[tuple]) -> tuple[list[tuple], int]:
    """The rows with their rowids in this table (the first element, a time in ms, replaced), and
    the most seconds a row had to be moved past its own (0 when every wanted slot was free)."""
    wanted = [_rowid_wanted(layout, row[0], row[-1]) for row in rows]
    if layout < SECONDS_FROM:
        return [(rowid, *row[1:]) for rowid, row in zip(wanted, rows)], 0
    checked = set(wanted)
    taken = _rowids_present(cursor, table, checked)
    out, spill = [], 0
    for rowid, row in zip(wanted, rows):
        while rowid in taken:  # the next free slot, into later seconds when this one is full
            rowid += 1
            if rowid not in checked:
                checked.add(rowid)
                taken |= _rowids_present(cursor, table, [rowid])
        taken.add(rowid)
        spill = max(spill, rowid // SECOND_SLOTS - row[0] // 1000)
        out.append((rowid, *row[1:]))
    return out, spill


def _rowids_find(cursor, table: str, layout: int, spill: int, keys: list[tuple[int, int]]) -> list[int]:
    """The rowids that frames (ms, frame_id) have in this table (those it holds)."""
    wanted = {frame_id: _rowid_wanted(layout, ms, frame_id) for ms, frame_id in keys}
    found = []
    rowids = list(wanted.values())
    for at in range(0, len(rowids), 500):
        chunk = rowids[at : at + 500]
        cursor.execute(f"SELECT rowid, frame_id FROM {table} WHERE rowid IN ({', '.join(['%s'] * len(chunk))})", chunk)
        for rowid, frame_id in cursor.fetchall():
            if wanted.get(frame_id) == rowid:
                found.append(rowid)
                del wanted[frame_id]
    if layout >= SECONDS_FROM:  # moved to a later slot by a frame of the same second
        seconds = {frame_id: ms // 1000 for ms, frame_id in keys}
        for frame_id in wanted:
            second = seconds[frame_id]
            cursor.execute(
                f"SELECT rowid FROM {table} WHERE rowid BETWEEN %s AND %s AND frame_id = %s",
                [second * SECOND_SLOTS, (second + spill + 1) * SECOND_SLOTS - 1, frame_id],
            )
            found += [row[0] for row in cursor.fetchall()]
    return found


def _rows_insert(cursor, partition: Partition, rows: list[tuple], *, build: bool = False) -> None:
    """Insert index rows (as index_row makes them) into a partition's live table, or the table
    being rebuilt beside it, with rowids in its layout; a row moved past its second widens the
    partition's spill."""
    table, layout = (partition.build_table, partition.build_layout) if build else (partition.table, partition.layout)
    rows, spill = _rowids_assign(cursor, table, layout, rows)
    if layout == 1:  # no parts column
        rows = [(*row[:5], row[6]) for row in rows]
    columns = _LAYOUT_COLUMNS[layout]
    cursor.executemany(
        f"INSERT INTO {table} (rowid, {', '.join(columns)}) VALUES ({', '.join(['%s'] * (len(columns) + 1))})", rows
    )
    if spill > (partition.build_spill if build else partition.spill):
        column = "build_spill" if build else "spill"
        cursor.execute(f"UPDATE {REGISTRY} SET {column} = max({column}, %s) WHERE period = %s", [spill, partition.period])


def _rows_remove(cursor, partition: Partition, keys: list[tuple[int, int]], *, build: bool = False) -> int:
    """Remove the rows of frames (ms, frame_id) from a partition's live table (or the table being
    rebuilt beside it); returns how many it held."""
    table, layout, spill = (
        (partition.build_table, partition.build_layout, partition.build_spill)
        if build
        else (partition.table, partition.layout, partition.spill)
    )
    rowids = _rowids_find(cursor, table, layout, spill, keys)
    for at in range(0, len(rowids), 500):
        chunk = rowids[at : at + 500]
        cursor.execute(f"DELETE FROM {table} WHERE rowid IN ({', '.join(['%s'] * len(chunk))})", chunk)
    return len(rowids)


def index_rows_write(cursor, rows: list[tuple]) -> None:
    """Insert index rows made by index_row, each into the partition of its time (creating
    partitions as needed) and into the table being rebuilt beside it, if any; their words
    join the vocabulary."""
    cursor.executemany(f"INSERT OR IGNORE INTO {VOCAB} (term) VALUES (%s)", [(t,) for t in vocab_terms(rows)])
    by_period: dict[int, list[tuple]] = {}
    for row in rows:
        by_period.setdefault(period_of(row[0]), []).append(row)
    for period, period_rows in by_period.items():
        partition = partition_create(cursor, period)
        _rows_insert(cursor, partition, period_rows)
        if partition.build_layout:
            _rows_insert(cursor, partition, period_rows, build=True)


def build_rows_write(cursor, partition: Partition, rows: list[tuple]) -> None:
    """(Re)write index rows into the table being rebuilt beside a partition; their words join
    the vocabulary."""
    if rows:
        cursor.executemany(f"INSERT OR IGNORE INTO {VOCAB} (term) VALUES (%s)", [(t,) for t in vocab_terms(rows)])
        _rows_remove(cursor, partition, [(row[0], row[-1]) for row in rows], build=True)
        _rows_insert(cursor, partition, rows, build=True)


def partition_swap(cursor, period: int) -> None:
    """Put the rebuilt table in the place of a partition's live one; a period left without
    rows loses its partition."""
    partition = partition_get(cursor, period)
    table_drop(cursor, partition.table)
    cursor.execute(f"SELECT 1 FROM {partition.build_table} LIMIT 1")
    if cursor.fetchone() is None:
        table_drop(cursor, partition.build_table)
        cursor.execute(f"DELETE FROM {REGISTRY} WHERE period = %s", [period])
        return
    table_rename(cursor, partition.build_table, partition.table)
    cursor.execute(
        f"UPDATE {REGISTRY} SET layout = build_layout, spill = build_spill, build_layout = NULL, build_spill = 0,"
        " build_after_ts = NULL, build_after_id = NULL WHERE period = %s",
        [period],
    )


def partitions_outdated(cursor) -> list[int]:
    """Periods whose partition is in an older layout than the current one."""
    cursor.execute(f"SELECT period FROM {REGISTRY} WHERE layout < %s ORDER BY period", [LAYOUT])
    return [row[0] for row in cursor.fetchall()]


def index_row_delete(cursor, *, timestamp_s: float, frame_id: int) -> None:
    """Remove a frame's row from its partition (and the table being rebuilt beside it), if it has one."""
    ms = time_ms(timestamp_s)
    partition = partition_get(cursor, period_of(ms))
    if partition:
        _rows_remove(cursor, partition, [(ms, frame_id)])
        if partition.build_layout:
            _rows_remove(cursor, partition, [(ms, frame_id)], build=True)


def partitions_merge(cursor, periods: list[int]) -> int:
    """Merge the segments of these partitions (and of the tables being rebuilt beside them) into
    one each: FTS5 keeps a deleted row's words in the segments written before the deletion (and
    in the deletion's own entries) until they are merged. One table at a time, each its own
    write, so new frames wait for one table's merge at most. Returns how many tables were merged."""
    merged = 0
    for period in periods:
        partition = partition_get(cursor, period)
        if partition is None:
            continue
        for table in (partition.table, partition.build_table if partition.build_layout else None):
            if table:
                cursor.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")
                merged += 1
    return merged


def vocab_merge(cursor) -> None:
    """Merge the vocabulary's trigram index into one segment, so the trigrams of forgotten words
    (see vocab_forget) are not kept in older segments."""
    cursor.execute(f"INSERT INTO {VOCAB_TRIGRAMS} ({VOCAB_TRIGRAMS}) VALUES ('optimize')")


def index_rows_delete(cursor, keys: list[tuple[float, int]], *, rows: list[tuple] = ()) -> tuple[int, set[str]]:
    """Remove the rows of these frames (timestamp_s, frame_id) from their partitions (and the
    tables being rebuilt beside them); a partition left empty is dropped. `rows` are their index
    rows as index_row makes them from the frames (a contentless partition cannot give its text
    back). Returns how many rows went, and the vocabulary words they held (for vocab_forget)."""
    by_period: dict[int, list[tuple[int, int]]] = {}
    for timestamp_s, frame_id in keys:
        ms = time_ms(timestamp_s)
        by_period.setdefault(period_of(ms), []).append((ms, frame_id))
    removed, terms = 0, vocab_terms(list(rows))
    for period, period_keys in by_period.items():
        partition = partition_get(cursor, period)
        if partition is None:
            continue
        if partition.layout < CONTENTLESS_FROM:  # its rows give their words back
            rowids = _rowids_find(cursor, partition.table, partition.layout, partition.spill, period_keys)
            for at in range(0, len(rowids), 500):
                chunk = rowids[at : at + 500]
                marks = ", ".join(["%s"] * len(chunk))
                cursor.execute(f"SELECT rowid, {', '.join(TEXT_COLUMNS)} FROM {partition.table} WHERE rowid IN ({marks})", chunk)
                terms |= vocab_terms(cursor.fetchall())
        removed += _rows_remove(cursor, partition, period_keys)
        if partition.build_layout:
            _rows_remove(cursor, partition, period_keys, build=True)
        else:
            cursor.execute(f"SELECT 1 FROM {partition.table} LIMIT 1")
            if cursor.fetchone() is None:  # nothing left in its period: give its pages back
                table_drop(cursor, partition.table)
                cursor.execute(f"DROP TABLE IF EXISTS temp.{partition.table}_vocab")
                cursor.execute(f"DELETE FROM {REGISTRY} WHERE period = %s", [period])
    return removed, terms


def vocab_forget(cursor, terms: set[str], *, first: list[int] = ()) -> int:
    """Remove from the vocabulary the words that no partition holds any more (after their rows
    were deleted), so a deleted screen's words leave no trace; returns how many. The partitions
    in `first` (where the rows were) are looked in first: most words are still there."""
    if not terms:
        return 0
    left = {token_fold(term): term for term in terms}
    periods = list(dict.fromkeys([*first, *reversed(partitions_all(cursor))]))
    for period in periods:
        if not left:
            break
        partition = partition_get(cursor, period)
        if partition is None:
            continue
        for table in (partition.table, partition.build_table if partition.build_layout else None):
            if table is None or not left:
                continue
            vocab = f"temp.{table}_vocab"
            cursor.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS {vocab} USING fts5vocab(main, {table}, 'row')")
            words = list(left)
            for at in range(0, len(words), 500):
                chunk = words[at : at + 500]
                cursor.execute(f"SELECT term FROM {vocab} WHERE term IN ({', '.join(['%s'] * len(chunk))})", chunk)
                for (found,) in cursor.fetchall():
                    left.pop(found, None)
    gone = list(left.values())
    for at in range(0, len(gone), 500):
        chunk = gone[at : at + 500]
        marks = ", ".join(["%s"] * len(chunk))
        cursor.execute(f"SELECT id, term FROM {VOCAB} WHERE term IN ({marks})", chunk)
        rows = cursor.fetchall()
        cursor.executemany(
            f"INSERT INTO {VOCAB_TRIGRAMS} ({VOCAB_TRIGRAMS}, rowid, term) VALUES ('delete', %s, %s)", rows
        )
        cursor.execute(f"DELETE FROM {VOCAB} WHERE term IN ({marks})", chunk)
    return len(gone)


# The interface of search.keyword_index ----------------------------------------------------------


class _Fts5Syntax:
    """A query in FTS5's syntax: "a b"* is a phrase (the last word a prefix), AND, OR, NOT."""

    @staticmethod
    def phrase(tokens, prefix: bool = False) -> str:
        return '"' + " ".join(tokens) + '"' + ("*" if prefix else "")

    @staticmethod
    def any_of(options: list[str]) -> str:
        return "(" + " OR ".join(options) + ")" if len(options) > 1 else options[0]

    @staticmethod
    def all_of(clauses: list[str]) -> str:
        return " AND ".join(clauses)

    @staticmethod
    def but_not(match: str, excluded: str) -> str:
        return f"({match}) NOT ({excluded})"


SYNTAX = _Fts5Syntax()


def scopes_in(cursor, start_s: float, end_s: float) -> list[Partition]:
    """The parts of the index a search of [start_s, end_s] looks in, newest first: its partitions."""
    return partitions_in(cursor, start_s, end_s)


def _match_sql(partition: Partition, match: str, filters: Filters, rowid_from: int | None = None) -> tuple[str, list]:
    """FROM and WHERE of the frames of one partition in the range (from rowid_from on) whose
    index entry matches the FTS query."""
    table = partition.table
    lo, hi = partition.rowid_range(filters.start_time, filters.end_time)
    lo = lo if rowid_from is None else rowid_from
    where, params, needs_text = filters.sql()
    if len(where) > 2 or needs_text:
        # Filters on the frame: join every match to its frame.
        base = (
            f"FROM {table} JOIN frames_frame f ON f.id = {table}.frame_id"
            + (TEXT_JOIN if needs_text else "")
            + f" WHERE {table} MATCH %s AND {table}.rowid BETWEEN %s AND %s AND "
            + " AND ".join(where)
        )
        return base, [match, lo, hi, *params]
    # Time only: the rowid range is the time range (to the second, or the millisecond in older
    # layouts), so only the rows at its edges are looked up in frames_frame for their exact timestamp.
    inside_lo, inside_hi = partition.rowid_range_inside(filters.start_time, filters.end_time)
    base = (
        f"FROM {table} WHERE {table} MATCH %s AND {table}.rowid BETWEEN %s AND %s"
        f" AND ({table}.rowid BETWEEN %s AND %s OR EXISTS (SELECT 1 FROM frames_frame f"
        f" WHERE f.id = {table}.frame_id AND {where[0]} AND {where[1]}))"
    )
    return base, [match, lo, hi, inside_lo, inside_hi, *params]


def match_count(cursor, partition: Partition, match: str, filters: Filters) -> int:
    """How many frames of the range in this partition match."""
    base, params = _match_sql(partition, match, filters)
    cursor.execute(f"SELECT count(*) {base}", params)
    return cursor.fetchone()[0]


def match_ranked(
    cursor, partition: Partition, match: str, filters: Filters, n: int, *, newest: int | None = None, expected: int | None = None
) -> tuple[list[tuple[float, int]], bool]:
    """The n best matches of this partition by bm25, as (score, key) with higher scores better,
    best first; with `newest`, among about the newest that many matches only. Also whether
    `newest` cut the matches (False: every match was ranked). `expected` (about how many
    matches there are) is not needed: FTS5 finds the newest from its own index."""
    table = partition.table
    base, params = _match_sql(partition, match, filters)
    boundary = None
    if newest is not None:
        cursor.execute(f"SELECT {table}.rowid {base} ORDER BY {table}.rowid DESC LIMIT 1 OFFSET %s", [*params, newest - 1])
        if boundary := cursor.fetchone():
            base, params = _match_sql(partition, match, filters, rowid_from=boundary[0])
    # Only rowid and score go through the sort; frame ids are read for the page alone.
    cursor.execute(
        f"SELECT -{partition.bm25} AS score, {table}.rowid {base} ORDER BY score DESC, {table}.rowid DESC LIMIT %s",
        [*params, n],
    )
    return [(score, rowid) for score, rowid in cursor.fetchall()], boundary is not None


def match_count_ranked(
    cursor, partition: Partition, match: str, subset: str, filters: Filters, n: int, *, newest: int | None = None
) -> tuple[int, list[tuple[float, int]], bool]:
    """How many frames of the range in this partition match `match`, and the n best matches of
    `subset` (a query whose matches all match `match`) as match_ranked gives them, among about
    the newest `newest` when `match` has more; also whether `newest` cut `subset`'s matches."""
    count = match_count(cursor, partition, match, filters)
    if not count:
        return 0, [], False
    return count, *match_ranked(cursor, partition, subset, filters, n, newest=newest if newest is not None and count > newest else None)


def match_count_newest(
    cursor, partition: Partition, match: str, excluded: str, excluded_most: int, filters: Filters, n: int
) -> tuple[int, list[int] | None]:
    """How many frames of the range in this partition match `match`; the newest of those that do
    not match `excluded` are left to match_newest (None), read only when a page needs them: FTS5
    counts from its own index, a second query costs little."""
    return match_count(cursor, partition, match, filters), None


def match_newest(cursor, partition: Partition, match: str, filters: Filters, n: int) -> list[int]:
    """The keys of the n newest matches of this partition, newest first."""
    base, params = _match_sql(partition, match, filters)
    cursor.execute(f"SELECT {partition.table}.rowid {base} ORDER BY {partition.table}.rowid DESC LIMIT %s", [*params, n])
    return [rowid for (rowid,) in cursor.fetchall()]


def frame_ids(cursor, entries: list[tuple[Partition, int]]) -> dict[tuple[Partition, int], int]:
    """The frame ids of (partition, key) matches."""
    found = {}
    for partition in {partition for partition, _ in entries}:
        rowids = [rowid for p, rowid in entries if p == partition]
        cursor.execute(
            f"SELECT rowid, frame_id FROM {partition.table} WHERE rowid IN ({', '.join(['%s'] * len(rowids))})", rowids
        )
        found.update({(partition, rowid): frame_id for rowid, frame_id in cursor.fetchall()})
    return found


def vocab_containing(cursor, word: str, limit: int) -> list[str]:
    """Up to `limit` words of the vocabulary that contain `word` and are longer, the shortest first."""
    # A query word is letters and digits only: nothing in it is a LIKE wildcard.
    cursor.execute(
        f"SELECT term FROM {VOCAB} WHERE id IN (SELECT rowid FROM {VOCAB_TRIGRAMS} WHERE term LIKE %s)"
        " AND term != %s ORDER BY length(term), term LIMIT %s",
        [f"%{word}%", word, limit],
    )
    return [row[0] for row in cursor.fetchall()]


def rows_write(cursor, rows: list[tuple]) -> None:
    """Write index rows (search.keyword_base.index_row) of frames not in the index."""
    index_rows_write(cursor, rows)


def row_delete(cursor, *, timestamp_s: float, frame_id: int) -> None:
    """Remove a frame's row, if it has one."""
    index_row_delete(cursor, timestamp_s=timestamp_s, frame_id=frame_id)


def rows_delete(cursor, keys: list[tuple[float, int]], *, rows: list[tuple] = ()) -> tuple[int, set[str]]:
    """Remove the rows of frames (timestamp_s, frame_id); see index_rows_delete."""
    return index_rows_delete(cursor, keys, rows=rows)


def range_scrub(cursor, start_s: float | None, end_s: float, *, vocabulary: bool) -> None:
    """After frames of [start_s, end_s] were deleted: merge the segments of its partitions (and the
    vocabulary's trigram index when words left it), so no segment keeps a deleted frame's words;
    what the merges free is zeroed (secure_delete)."""
    first, last = periods_range(start_s, end_s)
    partitions_merge(cursor, [period for period in partitions_all(cursor) if first <= period <= last])
    if vocabulary:
        vocab_merge(cursor)


def vocab_reset(cursor) -> bool:
    """Empty the vocabulary before a rebuild of everything refills it; not while a rebuild is under
    way (its words so far would be lost). Returns whether it was emptied."""
    cursor.execute(f"SELECT 1 FROM {REGISTRY} WHERE build_layout IS NOT NULL LIMIT 1")
    if cursor.fetchone():
        return False
    cursor.execute(f"DELETE FROM {VOCAB}")
    cursor.execute(f"INSERT INTO {VOCAB_TRIGRAMS} ({VOCAB_TRIGRAMS}) VALUES ('delete-all')")
    return True


def rebuild_under_way(cursor, period: int) -> bool:
    """Whether a rebuild of the period in the current layout is under way."""
    partition = partition_get(cursor, period)
    return partition is not None and partition.build_layout == LAYOUT


def rebuild_begin(cursor, period: int) -> None:
    """Start rebuilding a period's partition in the current layout beside the live one (or go on
    with the rebuild under way); from now on new rows go to both."""
    partition = partition_get(cursor, period) or partition_create(cursor, period)
    if partition.build_layout != LAYOUT:
        table_drop(cursor, partition.build_table)
        table_create(cursor, partition.build_table, LAYOUT)
        cursor.execute(
            f"UPDATE {REGISTRY} SET build_layout = %s, build_after_ts = NULL, build_after_id = NULL WHERE period = %s",
            [LAYOUT, period],
        )


def rebuild_write(cursor, period: int, rows: list[tuple]) -> None:
    """(Re)write rows of the period's frames into its rebuild."""
    build_rows_write(cursor, partition_get(cursor, period), rows)


def rebuild_finish(cursor, period: int) -> None:
    """Put the rebuilt partition in the live one's place."""
    partition_swap(cursor, period)


def periods_in(cursor, start_s: float | None, end_s: float | None) -> list[int]:
    """The periods of [start_s, end_s] (None: no bound) the index holds rows of, newest first."""
    return [partition.period for partition in partitions_in(cursor, start_s, end_s)]


def periods_outdated(cursor) -> list[int]:
    """Periods in an older layout than the current one, oldest first (what compaction rebuilds)."""
    return partitions_outdated(cursor)


def rows_count(cursor) -> int:
    """How many frames the index holds."""
    rows = 0
    for partition in partitions_in(cursor, None, None):
        cursor.execute(f"SELECT count(*) FROM {partition.table}_docsize")
        rows += cursor.fetchone()[0]
    return rows
