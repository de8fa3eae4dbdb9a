"""Reads: keyword search over the FTS index, and browsing frames newest first."""

from dataclasses import dataclass
from datetime import datetime
from datetime import timezone as dt_timezone

from django.db import connection

from frames.models import Frame
from search.fts import (
    fts_query,
    partition_bm25,
    partition_table,
    partitions_in,
    rowid_range,
    rowid_range_inside,
)


@dataclass(frozen=True)
class SearchFilters:
    start_time: float
    end_time: float
    app_name: str | None = None
    window_name: str | None = None
    browser_url: str | None = None
    focused: bool | None = None
    min_length: int | None = None
    max_length: int | None = None


@dataclass(frozen=True)
class SearchHit:
    frame_id: int
    timestamp: datetime
    text: str
    app_name: str
    window_name: str
    browser_url: str
    focused: bool | None
    score: float | None


def _like(value: str) -> str:
    return "%" + value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _filter_sql(filters: SearchFilters) -> tuple[list[str], list, bool]:
    """WHERE clauses on frames f (and OCR text o), their params, and whether o is needed."""
    adapt = connection.ops.adapt_datetimefield_value
    start = datetime.fromtimestamp(filters.start_time, tz=dt_timezone.utc)
    end = datetime.fromtimestamp(filters.end_time, tz=dt_timezone.utc)
    where = ["f.timestamp >= %s", "f.timestamp <= %s"]
    params: list = [adapt(start), adapt(end)]
    if filters.app_name:
        where.append("f.app_name = %s COLLATE NOCASE")
        params.append(filters.app_name)
    if filters.window_name:
        where.append("f.window_name LIKE %s ESCAPE '\\'")
        params.append(_like(filters.window_name))
    if filters.browser_url:
        where.append("f.browser_url LIKE %s ESCAPE '\\'")
        params.append(_like(filters.browser_url))
    if filters.focused is not None:
        where.append("f.focused = %s")
        params.append(filters.focused)
    needs_text = False
    if filters.min_length is not None:
        where.append("length(coalesce(o.text, '')) >= %s")
        params.append(filters.min_length)
        needs_text = True
    if filters.max_length is not None:
        where.append("length(coalesce(o.text, '')) <= %s")
        params.append(filters.max_length)
        needs_text = True
    return where, params, needs_text


_TEXT_JOIN = " LEFT JOIN frames_ocrresult o ON o.frame_id = f.id"


def _hits(ranked: list[tuple[int, float | None]]) -> list[SearchHit]:
    """Details of the ranked frame ids, in rank order."""
    frames = Frame.objects.filter(id__in=[frame_id for frame_id, _ in ranked]).values(
        "id", "timestamp", "ocr__text", "app_name", "window_name", "browser_url", "focused"
    )
    by_id = {row["id"]: row for row in frames}
    return [
        SearchHit(
            frame_id=frame_id,
            timestamp=by_id[frame_id]["timestamp"],
            text=by_id[frame_id]["ocr__text"] or "",
            app_name=by_id[frame_id]["app_name"],
            window_name=by_id[frame_id]["window_name"],
            browser_url=by_id[frame_id]["browser_url"],
            focused=by_id[frame_id]["focused"],
            score=score,
        )
        for frame_id, score in ranked
        if frame_id in by_id
    ]


def _page(select: str, base: str, params: list, order: str, limit: int, offset: int) -> tuple[list, int]:
    with connection.cursor() as cursor:
        cursor.execute(f"{select} {base} ORDER BY {order} LIMIT %s OFFSET %s", [*params, limit, offset])
        rows = cursor.fetchall()
        if len(rows) < limit and (rows or offset == 0):
            total = offset + len(rows)
        else:
            cursor.execute(f"SELECT count(*) {base}", params)
            total = cursor.fetchone()[0]
    return rows, total


# bm25 costs 1-2 us a row; past this many matches only the newest ones are ranked, so a word
# that is on most screens of the range still answers quickly. The total stays exact. A range with
# fewer matches ranks them all. bench/search_keyword.py at 1M frames (33k a day), 1-day range,
# p95: stopwords (25k matches) 14 ms with the cap, 59 ranking every match; common words (7k) 13, 25.
RANKED_MAX = 4000


def _match_sql(period: int, match: str, filters: SearchFilters, rowid_from: int) -> tuple[str, list]:
    """FROM and WHERE of the frames of one partition in the range, from rowid_from on, whose
    index entry matches the FTS query."""
    table = partition_table(period)
    _, hi = rowid_range(filters.start_time, filters.end_time)
    where, params, needs_text = _filter_sql(filters)
    if len(where) > 2 or needs_text:
        # Filters on the frame: join every match to its frame.
        base = (
            f"FROM {table} JOIN frames_frame f ON f.id = {table}.frame_id"
            + (_TEXT_JOIN if needs_text else "")
            + f" WHERE {table} MATCH %s AND {table}.rowid BETWEEN %s AND %s AND "
            + " AND ".join(where)
        )
        return base, [match, rowid_from, hi, *params]
    # Time only: the rowid range is the time range to the millisecond, so only the rows in the
    # first and last milliseconds are looked up in frames_frame for their exact timestamp.
    inside_lo, inside_hi = rowid_range_inside(filters.start_time, filters.end_time)
    base = (
        f"FROM {table} WHERE {table} MATCH %s AND {table}.rowid BETWEEN %s AND %s"
        f" AND ({table}.rowid BETWEEN %s AND %s OR EXISTS (SELECT 1 FROM frames_frame f"
        f" WHERE f.id = {table}.frame_id AND {where[0]} AND {where[1]}))"
    )
    return base, [match, rowid_from, hi, inside_lo, inside_hi, *params]


def search_keyword(*, q: str, filters: SearchFilters, limit: int, offset: int) -> tuple[list[SearchHit], int]:
    """Frames whose text or metadata match every word of q, best bm25 first (among the
    newest RANKED_MAX matches when there are more).

    Each partition of the range is counted and ranked on its own and the pages are merged by
    score; bm25 weighs a word by how rare it is in its partition's period."""
    match = fts_query(q)
    lo, hi = rowid_range(filters.start_time, filters.end_time)
    with connection.cursor() as cursor:
        periods = partitions_in(cursor, lo, hi)
        counts = []
        for period in periods:
            base, params = _match_sql(period, match, filters, lo)
            cursor.execute(f"SELECT count(*) {base}", params)
            counts.append(cursor.fetchone()[0])
        total = sum(counts)
        if offset >= total:
            return [], total
        ranked: list[tuple[float, int, int]] = []  # (score, rowid, period)
        left = max(RANKED_MAX, offset + limit)
        for period, count in zip(periods, counts):
            if left <= 0:
                break
            if not count:
                continue
            table = partition_table(period)
            base, params = _match_sql(period, match, filters, lo)
            if count > left:
                cursor.execute(
                    f"SELECT {table}.rowid {base} ORDER BY {table}.rowid DESC LIMIT 1 OFFSET %s", [*params, left - 1]
                )
                base, params = _match_sql(period, match, filters, cursor.fetchone()[0])
            # Only rowid and score go through the sort; frame ids are read for the page alone.
            cursor.execute(
                f"SELECT {table}.rowid, -{partition_bm25(period)} AS score {base}"
                f" ORDER BY score DESC, {table}.rowid DESC LIMIT %s",
                [*params, offset + limit],
            )
            ranked += [(score, rowid, period) for rowid, score in cursor.fetchall()]
            left -= count
        ranked.sort(reverse=True)
        page = ranked[offset : offset + limit]
        frame_ids: dict[int, int] = {}
        for period in {period for _, _, period in page}:
            rowids = [rowid for _, rowid, p in page if p == period]
            cursor.execute(
                f"SELECT rowid, frame_id FROM {partition_table(period)} WHERE rowid IN ({', '.join(['%s'] * len(rowids))})",
                rowids,
            )
            frame_ids.update(cursor.fetchall())
    return _hits([(frame_ids[rowid], score) for score, rowid, _ in page]), total


def search_browse(*, filters: SearchFilters, limit: int, offset: int) -> tuple[list[SearchHit], int]:
    """Frames in the range, newest first (an empty query)."""
    where, params, needs_text = _filter_sql(filters)
    base = "FROM frames_frame f" + (_TEXT_JOIN if needs_text else "") + " WHERE " + " AND ".join(where)
    rows, total = _page("SELECT f.id", base, params, "f.timestamp DESC, f.id DESC", limit, offset)
    return _hits([(row[0], None) for row in rows]), total
