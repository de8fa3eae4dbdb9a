"""SQLite FTS5 keyword index that works for Chinese as well as English, and for words
that OCR or the page glued to others.

unicode61 keeps a run of Chinese characters as one token, so a 2-character word
inside a sentence is never found. Before text reaches FTS5 it is NFKC-normalised
(full-width letters and digits become ASCII) and every run of CJK characters is
rewritten as its overlapping bigrams plus its last character ("机器学习" -> "机器 器学
学习 习"), which also splits an English word from the Chinese around it ("由Linus
Torvalds编写"). A Chinese query becomes the phrase of its bigrams, which matches
exactly where the characters are contiguous; a single character becomes a prefix query.

Compound tokens are indexed whole and, in the `parts` column, by their parts: camel
case and letter/digit boundaries ("LinusTorvalds" -> "Linus Torvalds",
"conversion3:amd64" -> "conversion 3 amd 64"), so a word inside a longer token is found
without changing what phrases of the on-screen text match. Each part carries the
PART_MARK character (private use, a letter to unicode61), so it is a token of its own:
a query for the word as typed never matches a part, with no column filter to pay for.

Every word the index holds (letters and digits) is also kept once in a vocabulary with
a trigram index, so that a word can be looked for inside longer words ("double" in
"libdouble", or "resolved" where OCR dropped a space: "resolvedby").

A query is parsed, built into its tiers and run by search.keyword; this module only tokenizes
each typed term the way the index tokenizes text (term_tokens, token_is_word).

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
partitions it grows with one period. A partition is created when the first
frame of its period is indexed and recorded in the registry table with its layout
(its columns), so a search lists the partitions of its range without reading
sqlite_master. `manage.py reindex --fts` rebuilds partitions from the database beside
the live ones (rows are written to both while it runs) and swaps each in when done.
"""

import math
import re
import unicodedata
from dataclasses import dataclass

from frames.text import CJK_CLASS
from myrecall.errors import ApplicationError

# A week: every new connection (one per request under ASGI) parses the whole schema, about 6
# entries a partition, and pays 1 ms at 52 partitions, 3 ms at 156, 14 ms at 520; a smaller table
# makes bm25's scan of a phrase cheaper (two stopwords: about 21 ms in a week of 233k frames) but
# day tables would cost every request about 55 ms after three years. See bench/search_keyword.py.
PARTITION_DAYS = 7
PARTITION_MS = PARTITION_DAYS * 86_400_000
PREFIX = "search_fts_"
BUILD_SUFFIX = "_next"
REGISTRY = "search_partition"
REGISTRY_CREATE_SQL = f"CREATE TABLE IF NOT EXISTS {REGISTRY} (period integer PRIMARY KEY)"

# Layout 1: the text columns and frame_id. Layout 2 adds `parts` (compound parts). Layout 3 is
# layout 2 contentless: the index keeps no copy of the text (the OCR rows hold it once), only
# frame_id (contentless_unindexed), and deletes by rowid (contentless_delete; SQLite 3.45+, see
# myrecall/sqlite.py).
# Layout 4 is layout 3 with rowids by the second (see above).
LAYOUT = 4
TEXT_COLUMNS = ("text", "app_name", "window_name", "browser_url")
PART_MARK = "\ue000"
_LAYOUT_COLUMNS = {1: (*TEXT_COLUMNS, "frame_id"), 2: (*TEXT_COLUMNS, "parts", "frame_id")}
_LAYOUT_COLUMNS[3] = _LAYOUT_COLUMNS[4] = _LAYOUT_COLUMNS[2]
# Column weights for bm25: on-screen text and window titles count more than app, URL and parts.
_LAYOUT_WEIGHTS = {1: "1.0, 0.5, 1.0, 0.5", 2: "1.0, 0.5, 1.0, 0.5, 0.5"}
_LAYOUT_WEIGHTS[3] = _LAYOUT_WEIGHTS[4] = _LAYOUT_WEIGHTS[2]
CONTENTLESS_FROM = 3
SECONDS_FROM = 4
SECOND_SLOTS = 16

# Every word the index holds (letters and digits, not only digits, from VOCAB_MIN_CHARS on), with
# a trigram index, so that a word typed can be found inside longer words ("double" in "libdouble").
VOCAB = "search_vocab"
VOCAB_TRIGRAMS = "search_vocab_trigram"
VOCAB_MIN_CHARS = 4
VOCAB_CREATE_SQL = [
    f"CREATE TABLE {VOCAB} (id integer PRIMARY KEY, term text NOT NULL UNIQUE)",
    f"CREATE VIRTUAL TABLE {VOCAB_TRIGRAMS} USING fts5(term, content='{VOCAB}', content_rowid='id',"
    " tokenize='trigram', detail='none')",
    f"CREATE TRIGGER {VOCAB}_added AFTER INSERT ON {VOCAB} BEGIN"
    f" INSERT INTO {VOCAB_TRIGRAMS} (rowid, term) VALUES (new.id, new.term); END",
]
VOCAB_DROP_SQL = [f"DROP TRIGGER {VOCAB}_added", f"DROP TABLE {VOCAB_TRIGRAMS}", f"DROP TABLE {VOCAB}"]

_CJK_RUN = re.compile(f"[{CJK_CLASS}]+")
_TOKEN = re.compile(r"[^\W_]+")  # what unicode61 keeps as a token (letters and digits)
# A run of CJK characters, or a token of other letters and digits.
_QUERY_TOKEN = re.compile(f"([{CJK_CLASS}]+)|[^\\W_{CJK_CLASS}]+")
_LATIN_TOKEN = re.compile(f"[^\\W_{CJK_CLASS}]+")


def text_normalize(text: str) -> str:
    """NFKC: full-width and other compatibility forms become the letters and digits they show."""
    if not text or unicodedata.is_normalized("NFKC", text):  # the quick check is 50 times cheaper
        return text or ""
    return unicodedata.normalize("NFKC", text)


def _cjk_run_tokens(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)] + [run[-1]]


def fts_prepare(text: str) -> str:
    """The form of a text that goes into the index's text columns."""
    return _bigrams(text_normalize(text))


def _bigrams(normalized: str) -> str:
    if not normalized:
        return ""
    return _CJK_RUN.sub(lambda m: " " + " ".join(_cjk_run_tokens(m.group())) + " ", normalized)


def _is_simple(token: str) -> bool:
    """A token with no inner boundary: all digits, or letters all lower, all upper or Titlecase."""
    if token.isdigit():
        return True
    return token.isalpha() and (token.islower() or token.isupper() or (token[0].isupper() and token[1:].islower()))


def token_parts(token: str) -> list[str]:
    """The parts of a compound token, split where camel case or a letter/digit change starts
    a new word ("LinusTorvalds" -> Linus, Torvalds; "HTTPServer2" -> HTTP, Server, 2); a token
    with one part gives []."""
    if _is_simple(token):
        return []
    parts, start = [], 0
    for i in range(1, len(token)):
        before, here = token[i - 1], token[i]
        if (
            before.isdigit() != here.isdigit()
            or (before.islower() and here.isupper())
            or (before.isupper() and here.isupper() and i + 1 < len(token) and token[i + 1].islower())
        ):
            parts.append(token[start:i])
            start = i
    parts.append(token[start:])
    return parts if len(parts) > 1 else []


def text_parts(*texts: str) -> str:
    """The parts of every compound token in the texts, in order and marked, for the `parts` column."""
    return _parts(*(text_normalize(text) for text in texts))


def _parts(*normalized: str) -> str:
    out: list[str] = []
    for text in normalized:
        if text:
            for token in _TOKEN.findall(_CJK_RUN.sub(" ", text)):
                out += token_parts(token)
    return " ".join(PART_MARK + part for part in out)


def index_row(
    *, timestamp_s: float, frame_id: int, text: str, app_name: str, window_name: str, browser_url: str
) -> tuple[int, str, str, str, str, str, int]:
    """A frame's row for the index in the current layout: (its time in milliseconds, text,
    app_name, window_name, browser_url, parts, frame_id). The partition it is written to gives
    it its rowid."""
    fields = [text_normalize(value) for value in (text, app_name, window_name, browser_url)]  # once each
    return (time_ms(timestamp_s), *(_bigrams(value) for value in fields), _parts(*fields), frame_id)


def time_ms(timestamp_s: float) -> int:
    return int(timestamp_s * 1000)


def period_of(ms: int) -> int:
    """The period of a time in milliseconds."""
    return ms // PARTITION_MS


def periods_between(start_s: float, end_s: float) -> tuple[int, int]:
    """The first and last periods that may hold frames of [start_s, end_s] (a millisecond of slack)."""
    return period_of(time_ms(start_s) - 1), period_of(time_ms(end_s) + 1)


def _rowid_wanted(layout: int, ms: int, frame_id: int) -> int:
    if layout < SECONDS_FROM:
        return ms * 1000 + frame_id % 1000
    return ms // 1000 * SECOND_SLOTS + frame_id % SECOND_SLOTS


def period_bounds_s(period: int) -> tuple[float, float]:
    """The epoch seconds [start, end) of a period."""
    return period * PARTITION_MS / 1000, (period + 1) * PARTITION_MS / 1000


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


_REGISTRY_COLUMNS = "period, layout, build_layout, spill, build_spill"


def partitions_in(cursor, start_s: float | None, end_s: float | None) -> list[Partition]:
    """The existing partitions that may hold frames of [start_s, end_s] (None: no bound), newest first."""
    first = -(2**62) if start_s is None else periods_between(start_s, start_s)[0]
    last = 2**62 if end_s is None else periods_between(end_s, end_s)[1]
    cursor.execute(
        f"SELECT {_REGISTRY_COLUMNS} FROM {REGISTRY} WHERE period BETWEEN %s AND %s ORDER BY period DESC", [first, last]
    )
    return [Partition(*row) for row in cursor.fetchall()]


def partitions_all(cursor) -> list[int]:
    cursor.execute(f"SELECT period FROM {REGISTRY} ORDER BY period")
    return [row[0] for row in cursor.fetchall()]


def partition_get(cursor, period: int) -> Partition | None:
    cursor.execute(f"SELECT {_REGISTRY_COLUMNS} FROM {REGISTRY} WHERE period = %s", [period])
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


def _vocab_terms(rows: list[tuple]) -> set[str]:
    terms: set[str] = set()
    for row in rows:
        for column in row[1:5]:
            terms.update(_LATIN_TOKEN.findall(column.lower()))
    return {term for term in terms if len(term) >= VOCAB_MIN_CHARS and not term.isdigit()}


def index_rows_write(cursor, rows: list[tuple]) -> None:
    """Insert index rows made by index_row, each into the partition of its time (creating
    partitions as needed) and into the table being rebuilt beside it, if any; their words
    join the vocabulary."""
    cursor.executemany(f"INSERT OR IGNORE INTO {VOCAB} (term) VALUES (%s)", [(t,) for t in _vocab_terms(rows)])
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
        cursor.executemany(f"INSERT OR IGNORE INTO {VOCAB} (term) VALUES (%s)", [(t,) for t in _vocab_terms(rows)])
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


def token_is_word(token: str) -> bool:
    """Whether a query token is a word of letters and digits (not Chinese, Japanese or Korean)."""
    return not _CJK_RUN.search(token)


def term_tokens(term: str) -> tuple[list[str], list[str], bool]:
    """The FTS tokens of one typed query term (normalised, without a trailing *), tokenized as the
    index tokenizes text: a run of CJK characters as its bigrams (a single character alone),
    other words lower-cased; the same with compound tokens split into parts; and whether the
    last token is a single CJK character."""
    tokens: list[str] = []
    parts: list[str] = []
    last_single_cjk = False
    for m in _QUERY_TOKEN.finditer(term):
        if m.group(1):
            run = m.group()
            bigrams = [run[i : i + 2] for i in range(len(run) - 1)] if len(run) > 1 else [run]
            tokens += bigrams
            parts += bigrams
            last_single_cjk = len(run) == 1
        else:
            token = m.group()
            tokens.append(token.lower())
            parts += [part.lower() for part in token_parts(token)] or [token.lower()]
            last_single_cjk = False
    return tokens, parts, last_single_cjk


def index_rows_delete(cursor, keys: list[tuple[float, int]], *, rows: list[tuple] = ()) -> tuple[int, set[str]]:
    """Remove the rows of these frames (timestamp_s, frame_id) from their partitions (and the
    tables being rebuilt beside them); a partition left empty is dropped. `rows` are their index
    rows as index_row makes them from the frames (a contentless partition cannot give its text
    back). Returns how many rows went, and the vocabulary words they held (for vocab_forget)."""
    by_period: dict[int, list[tuple[int, int]]] = {}
    for timestamp_s, frame_id in keys:
        ms = time_ms(timestamp_s)
        by_period.setdefault(period_of(ms), []).append((ms, frame_id))
    removed, terms = 0, _vocab_terms(list(rows))
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
                terms |= _vocab_terms(cursor.fetchall())
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


def _token_fold(term: str) -> str:
    """A word as unicode61 (remove_diacritics 2) keeps it: 'café' -> 'cafe'."""
    return "".join(ch for ch in unicodedata.normalize("NFKD", term) if not unicodedata.combining(ch))


def vocab_forget(cursor, terms: set[str], *, first: list[int] = ()) -> int:
    """Remove from the vocabulary the words that no partition holds any more (after their rows
    were deleted), so a deleted screen's words leave no trace; returns how many. The partitions
    in `first` (where the rows were) are looked in first: most words are still there."""
    if not terms:
        return 0
    left = {_token_fold(term): term for term in terms}
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
