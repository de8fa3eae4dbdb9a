"""SQLite FTS5 keyword index that works for Chinese as well as English.

unicode61 keeps a run of Chinese characters as one token, so a 2-character word
inside a sentence is never found. Before text reaches FTS5, every run of CJK
characters is rewritten as its overlapping bigrams plus its last character
("机器学习" -> "机器 器学 学习 习"); English words pass unchanged. A Chinese query
becomes the phrase of its bigrams, which matches exactly where the characters
are contiguous; a single character becomes a prefix query.

Row ids are ordered by time (milliseconds * 1000 + frame id mod 1000), so a time
range is a rowid range that FTS5 applies inside the index instead of filtering
every match afterwards.

The index is split by time into one FTS5 table per PARTITION_DAYS period
(search_fts_<period>, periods counted from the epoch). bm25 reads, once per
query, every entry of each query term in the whole table (its document
frequency), so with one table that cost grew with the whole history; with
partitions it grows with one period. A partition is created when the first
frame of its period is indexed and recorded in the registry table, so a search
lists the partitions of its range without reading sqlite_master.
"""

import math
import re
import shlex

from frames.text import CJK_CLASS
from myrecall.errors import ApplicationError

# A week: every new connection (one per request under ASGI) parses the whole schema, about 6
# entries a partition, and pays 1 ms at 52 partitions, 3 ms at 156, 14 ms at 520; a smaller table
# makes bm25's scan of a phrase cheaper (two stopwords: about 21 ms in a week of 233k frames) but
# day tables would cost every request about 55 ms after three years. See bench/search_keyword.py.
PARTITION_DAYS = 7
PARTITION_MS = PARTITION_DAYS * 86_400_000
PREFIX = "search_fts_"
REGISTRY = "search_partition"
REGISTRY_CREATE_SQL = f"CREATE TABLE IF NOT EXISTS {REGISTRY} (period integer PRIMARY KEY)"
COLUMNS = "text, app_name, window_name, browser_url, frame_id"
# Column weights for bm25: on-screen text and window titles count more than app and URL.
BM25_WEIGHTS = "1.0, 0.5, 1.0, 0.5"


_CJK_RUN = re.compile(f"[{CJK_CLASS}]+")
_TOKEN = re.compile(r"[^\W_]+")  # what unicode61 keeps as a token (letters and digits)


def _cjk_run_tokens(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)] + [run[-1]]


def fts_prepare(text: str) -> str:
    """The form of a text that goes into the index."""
    if not text:
        return ""
    return _CJK_RUN.sub(lambda m: " " + " ".join(_cjk_run_tokens(m.group())) + " ", text)


def rowid_for(timestamp_s: float, frame_id: int) -> int:
    return int(timestamp_s * 1000) * 1000 + frame_id % 1000


def rowid_range(start_s: float, end_s: float) -> tuple[int, int]:
    # One millisecond of slack either side; the exact bounds are applied on the frame's timestamp.
    return (int(start_s * 1000) - 1) * 1000, (int(end_s * 1000) + 2) * 1000 - 1


def rowid_range_inside(start_s: float, end_s: float) -> tuple[int, int]:
    """The rowids whose frames are surely inside [start_s, end_s]: only rows between this
    and rowid_range need their exact timestamp checked."""
    # Two milliseconds of margin: a float timestamp may land on either side of a millisecond.
    return (math.ceil(start_s * 1000) + 2) * 1000, (math.floor(end_s * 1000) - 2) * 1000 - 1


def partition_of(rowid: int) -> int:
    """The period of a rowid: from its millisecond, so a frame's partition follows from its rowid alone."""
    return rowid // 1000 // PARTITION_MS


def partition_table(period: int) -> str:
    return f"{PREFIX}{period}" if period >= 0 else f"{PREFIX}m{-period}"


def partition_bm25(period: int) -> str:
    return f"bm25({partition_table(period)}, {BM25_WEIGHTS})"


def partitions_in(cursor, lo_rowid: int, hi_rowid: int) -> list[int]:
    """The existing partitions that may hold rowids in [lo_rowid, hi_rowid], newest first."""
    cursor.execute(
        f"SELECT period FROM {REGISTRY} WHERE period BETWEEN %s AND %s ORDER BY period DESC",
        [partition_of(lo_rowid), partition_of(hi_rowid)],
    )
    return [row[0] for row in cursor.fetchall()]


def partitions_all(cursor) -> list[int]:
    cursor.execute(f"SELECT period FROM {REGISTRY} ORDER BY period")
    return [row[0] for row in cursor.fetchall()]


def partition_create(cursor, period: int) -> None:
    """Create the partition of a period and record it, unless it is recorded already."""
    cursor.execute(f"SELECT 1 FROM {REGISTRY} WHERE period = %s", [period])
    if cursor.fetchone():
        return
    cursor.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {partition_table(period)} USING fts5("
        "text, app_name, window_name, browser_url, frame_id UNINDEXED, "
        "tokenize = 'unicode61 remove_diacritics 2')"
    )
    # OR IGNORE: another process may have created the same partition since the check.
    cursor.execute(f"INSERT OR IGNORE INTO {REGISTRY} (period) VALUES (%s)", [period])


def partitions_drop_all(cursor) -> None:
    for period in partitions_all(cursor):
        cursor.execute(f"DROP TABLE IF EXISTS {partition_table(period)}")
    cursor.execute(f"DROP TABLE IF EXISTS {REGISTRY}")


def index_rows_write(cursor, rows: list[tuple[int, str, str, str, str, int]]) -> None:
    """Insert prepared index rows (rowid, text, app_name, window_name, browser_url, frame_id),
    each into the partition of its rowid, creating partitions as needed."""
    by_period: dict[int, list[tuple]] = {}
    for row in rows:
        by_period.setdefault(partition_of(row[0]), []).append(row)
    for period, period_rows in by_period.items():
        partition_create(cursor, period)
        cursor.executemany(
            f"INSERT INTO {partition_table(period)} (rowid, {COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s)", period_rows
        )


def index_row_delete(cursor, rowid: int) -> None:
    """Remove one rowid from its partition, if that partition exists."""
    period = partition_of(rowid)
    cursor.execute(f"SELECT 1 FROM {REGISTRY} WHERE period = %s", [period])
    if cursor.fetchone():
        cursor.execute(f"DELETE FROM {partition_table(period)} WHERE rowid = %s", [rowid])


def _term_tokens(term: str) -> tuple[list[str], bool]:
    """FTS tokens of one query term, and whether the last one is a single CJK character."""
    tokens: list[str] = []
    last_single_cjk = False
    pos = 0
    for m in _CJK_RUN.finditer(term):
        tokens += [t.lower() for t in _TOKEN.findall(term[pos : m.start()])]
        run = m.group()
        tokens += [run[i : i + 2] for i in range(len(run) - 1)] if len(run) > 1 else [run]
        last_single_cjk = len(run) == 1 and m.end() == len(term)
        pos = m.end()
    rest = _TOKEN.findall(term[pos:])
    if rest:
        last_single_cjk = False
    tokens += [t.lower() for t in rest]
    return tokens, last_single_cjk


def fts_query(q: str) -> str:
    """Turn what a person typed into a safe FTS5 query: every word or "quoted phrase"
    must match (AND); a trailing * makes the last word a prefix."""
    try:
        terms = shlex.split(q)
    except ValueError:  # an unbalanced quote: take the words as they are
        terms = q.replace('"', " ").split()
    parts = []
    for term in terms:
        prefix = term.endswith("*")
        tokens, single_cjk = _term_tokens(term.rstrip("*"))
        if not tokens:
            continue
        phrase = '"' + " ".join(tokens) + '"'
        if prefix or single_cjk:
            phrase += "*"
        parts.append(phrase)
    if not parts:
        raise ApplicationError("The query has no searchable words.", extra={"field": "q", "q": q})
    return " AND ".join(parts)
