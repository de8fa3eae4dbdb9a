"""Reads: keyword search over the FTS index, and browsing frames newest first."""

from dataclasses import dataclass, replace
from datetime import datetime
from datetime import timezone as dt_timezone

from django.conf import settings
from django.db import connection

from frames.models import Frame
from search.filters import Filters
from search.fts import (
    KeywordQuery,
    Partition,
    keyword_query,
    partition_of,
    partitions_in,
    partitions_outdated,
    vocab_containing,
    vocab_starting,
    period_bounds_s,
    rowid_for,
    rowid_range,
    rowid_range_inside,
)


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
    # Which sides found it: "keyword" (its words), "semantic" (similar meaning); empty when browsing.
    matched: tuple[str, ...] = ()


@dataclass(frozen=True)
class SearchResult:
    hits: list[SearchHit]
    total: int
    mode: str  # the mode that ran: keyword, semantic, hybrid, or browse (an empty query)
    # Why the meaning side was left out, when it failed (fail-open: the keyword side answered).
    degraded: str | None = None


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


def _match_sql(partition: Partition, match: str, filters: Filters, rowid_from: int | None = None) -> tuple[str, list]:
    """FROM and WHERE of the frames of one partition in the range (from rowid_from on) whose
    index entry matches the FTS query."""
    table = partition.table
    lo, hi = rowid_range(filters.start_time, filters.end_time)
    lo = lo if rowid_from is None else rowid_from
    where, params, needs_text = filters.sql()
    if len(where) > 2 or needs_text:
        # Filters on the frame: join every match to its frame.
        base = (
            f"FROM {table} JOIN frames_frame f ON f.id = {table}.frame_id"
            + (_TEXT_JOIN if needs_text else "")
            + f" WHERE {table} MATCH %s AND {table}.rowid BETWEEN %s AND %s AND "
            + " AND ".join(where)
        )
        return base, [match, lo, hi, *params]
    # Time only: the rowid range is the time range to the millisecond, so only the rows in the
    # first and last milliseconds are looked up in frames_frame for their exact timestamp.
    inside_lo, inside_hi = rowid_range_inside(filters.start_time, filters.end_time)
    base = (
        f"FROM {table} WHERE {table} MATCH %s AND {table}.rowid BETWEEN %s AND %s"
        f" AND ({table}.rowid BETWEEN %s AND %s OR EXISTS (SELECT 1 FROM frames_frame f"
        f" WHERE f.id = {table}.frame_id AND {where[0]} AND {where[1]}))"
    )
    return base, [match, lo, hi, inside_lo, inside_hi, *params]


@dataclass
class _Tier:
    """The matches of one tier of a query in each partition of the range, newest partition
    first, with an upper bound of their count in each; ranked by bm25, or newest first."""

    matches: list[tuple[Partition, str]]
    bounds: list[int]
    by_bm25: bool = True


def _counts(cursor, matches: list[tuple[Partition, str]], filters: Filters) -> list[int]:
    counts = []
    for partition, match in matches:
        base, params = _match_sql(partition, match, filters)
        cursor.execute(f"SELECT count(*) {base}", params)
        counts.append(cursor.fetchone()[0])
    return counts


def _tiers(cursor, query: KeywordQuery, partitions: list[Partition], filters: Filters) -> tuple[list[_Tier], int]:
    """The tiers of a query in the range and the exact count of all their matches: exact
    matches; matches through compound parts only; when those are few and the last word as typed
    is rare in the range (so likely unfinished), matches through it as a prefix only; and when
    all those are still few, matches of words inside longer words ("double" in "libdouble")."""
    strict = [(p, query.strict()) for p in partitions]
    parts = query.parts()
    counts = _counts(cursor, [(p, parts) for p in partitions], filters)  # strict matches are a subset of these
    tiers = [_Tier(strict, counts), _Tier([(p, f"({parts}) NOT ({query.strict()})") for p in partitions], counts)]
    total = sum(counts)
    few = settings.SEARCH_FALLBACK_BELOW
    previous = parts
    completions = None
    word = query.prefix_word()
    if (
        word
        and total < few
        and (len(query.terms) == 1 or sum(_counts(cursor, [(p, query.last_word()) for p in partitions], filters)) < few)
    ):
        completions = vocab_starting(cursor, word) or []
        prefix = query.prefix(completions)
        prefix_counts = _counts(cursor, [(p, prefix) for p in partitions], filters)
        # Newest first: bm25 would scan the whole week for every completion, to rank a guess.
        tiers.append(_Tier([(p, f"({prefix}) NOT ({previous})") for p in partitions], prefix_counts, by_bm25=False))
        total = sum(prefix_counts)
        previous = prefix
    longer = {word: vocab_containing(cursor, word) for word in query.inside_words()} if total < few else {}
    if any(longer.values()):
        inside = query.inside(longer, completions=completions)
        inside_counts = _counts(cursor, [(p, inside) for p in partitions], filters)
        tiers.append(_Tier([(p, f"({inside}) NOT ({previous})") for p in partitions], inside_counts, by_bm25=False))
        total = sum(inside_counts)
    return tiers, total


def _ranked(cursor, tier: _Tier, filters: Filters, n: int) -> list[tuple[float, int, int]]:
    """The n best of a tier's matches by bm25, as (score, rowid, period), best first; fewer
    only when the tier has fewer. Past SEARCH_RANK_MAX matches only about the newest that many
    are ranked (0: every match)."""
    if not tier.by_bm25:
        return _newest(cursor, tier, filters, n)
    cap = settings.SEARCH_RANK_MAX
    left = max(cap, n) if cap else sum(tier.bounds)
    ranked = []
    for (partition, match), bound in zip(tier.matches, tier.bounds):
        if left <= 0:
            break
        if not bound:
            continue
        table = partition.table
        base, params = _match_sql(partition, match, filters)
        boundary = None
        if bound > left:
            cursor.execute(f"SELECT {table}.rowid {base} ORDER BY {table}.rowid DESC LIMIT 1 OFFSET %s", [*params, left - 1])
            if boundary := cursor.fetchone():
                base, params = _match_sql(partition, match, filters, rowid_from=boundary[0])
        # Only rowid and score go through the sort; frame ids are read for the page alone.
        cursor.execute(
            f"SELECT -{partition.bm25} AS score, {table}.rowid {base} ORDER BY score DESC, {table}.rowid DESC LIMIT %s",
            [*params, n],
        )
        rows = cursor.fetchall()
        ranked += [(score, rowid, partition.period) for score, rowid in rows]
        # The bound may be far above the tier's matches here: fewer than n rows are all of them.
        left = 0 if boundary else left - (bound if len(rows) >= n else len(rows))
    ranked.sort(reverse=True)
    return ranked[:n]


def _newest(cursor, tier: _Tier, filters: Filters, n: int) -> list[tuple[float, int, int]]:
    """The n newest of a tier's matches, as (score, rowid, period) with a score that falls
    down the list."""
    newest = []
    for (partition, match), bound in zip(tier.matches, tier.bounds):
        if len(newest) >= n:
            break
        if bound:
            base, params = _match_sql(partition, match, filters)
            cursor.execute(
                f"SELECT {partition.table}.rowid {base} ORDER BY {partition.table}.rowid DESC LIMIT %s",
                [*params, n - len(newest)],
            )
            newest += [(rowid, partition.period) for (rowid,) in cursor.fetchall()]
    return [(1 / (1 + position), rowid, period) for position, (rowid, period) in enumerate(newest)]


def _frame_ids(cursor, entries: list[tuple[int, int]], partitions: list[Partition]) -> dict[tuple[int, int], int]:
    """Frame ids of (period, rowid) index entries."""
    tables = {p.period: p.table for p in partitions}
    found = {}
    for period in {period for period, _ in entries}:
        rowids = [rowid for p, rowid in entries if p == period]
        cursor.execute(
            f"SELECT rowid, frame_id FROM {tables[period]} WHERE rowid IN ({', '.join(['%s'] * len(rowids))})", rowids
        )
        found.update({(period, rowid): frame_id for rowid, frame_id in cursor.fetchall()})
    return found


def _tier_score(tier: int, bm25_score: float) -> float:
    """One scale for the whole list, higher is better: exact matches score in (3, 4], matches
    through compound parts in (2, 3], through a prefix or inside longer words below; by bm25
    inside a tier."""
    return 4 - tier - 1 / (1 + max(bm25_score, 0.0))


def search_keyword(*, q: str, filters: Filters, limit: int, offset: int) -> tuple[list[SearchHit], int]:
    """Frames whose text or metadata match every word of q: exact word matches first, then
    matches through a compound token's parts, both ranked by bm25 (see _ranked for the cap);
    then, when those are few, through the last word as a prefix, then through words inside
    longer words, newest first.

    Each partition of the range is counted and ranked on its own and the pages are merged by
    score; bm25 weighs a word by how rare it is in its partition's period."""
    query = keyword_query(q)
    lo, hi = rowid_range(filters.start_time, filters.end_time)
    with connection.cursor() as cursor:
        partitions = partitions_in(cursor, lo, hi)
        tiers, total = _tiers(cursor, query, partitions, filters)
        page: list[tuple[int, int, float]] = []  # (period, rowid, score)
        skip = offset
        for number, tier in enumerate(tiers):
            if len(page) >= limit or skip >= total:
                break
            want = skip + limit - len(page)
            ranked = _ranked(cursor, tier, filters, want)
            page += [(period, rowid, _tier_score(number, score)) for score, rowid, period in ranked[skip:]]
            # A tier that gave fewer than asked has no more: what is left to skip goes on to the next.
            skip = max(0, skip - len(ranked))
        frame_ids = _frame_ids(cursor, [(period, rowid) for period, rowid, _ in page], partitions)
    return _hits([(frame_ids[(period, rowid)], score) for period, rowid, score in page]), total


MODES = ("hybrid", "keyword", "semantic")


def search_run(*, q: str, filters: Filters, mode: str | None = None, limit: int, offset: int) -> SearchResult:
    """The one search: browse the range newest first when q is empty; else keyword, semantic or
    hybrid (settings.SEARCH_MODE by default). Semantic and hybrid are fail-open: when the
    embedder or the vector index fails, the keyword side answers and `degraded` says why."""
    if not q.strip():
        hits, total = search_browse(filters=filters, limit=limit, offset=offset)
        return SearchResult(hits=hits, total=total, mode="browse")
    mode = mode or settings.SEARCH_MODE
    hits, total = search_keyword(q=q, filters=filters, limit=limit, offset=offset)
    hits = [replace(hit, matched=("keyword",)) for hit in hits]
    degraded = None if mode == "keyword" else "semantic search is not built yet"
    return SearchResult(hits=hits, total=total, mode=mode, degraded=degraded)


def search_browse(*, filters: Filters, limit: int, offset: int) -> tuple[list[SearchHit], int]:
    """Frames in the range, newest first (an empty query)."""
    where, params, needs_text = filters.sql()
    base = "FROM frames_frame f" + (_TEXT_JOIN if needs_text else "") + " WHERE " + " AND ".join(where)
    rows, total = _page("SELECT f.id", base, params, "f.timestamp DESC, f.id DESC", limit, offset)
    return _hits([(row[0], None) for row in rows]), total


def index_periods(*, start_time: float | None = None, end_time: float | None = None) -> list[int]:
    """The periods of the keyword index that overlap [start_time, end_time] and have frames or
    a partition, oldest first: what a rebuild of that range goes through."""
    frames = Frame.objects.all()
    if start_time is not None:
        frames = frames.filter(timestamp__gte=datetime.fromtimestamp(start_time, tz=dt_timezone.utc))
    if end_time is not None:
        frames = frames.filter(timestamp__lte=datetime.fromtimestamp(end_time, tz=dt_timezone.utc))
    periods: set[int] = set()
    first = frames.order_by("timestamp").values_list("timestamp", flat=True).first()
    last = frames.order_by("-timestamp").values_list("timestamp", flat=True).first()
    if first is not None:
        for period in range(partition_of(rowid_for(first.timestamp(), 0)), partition_of(rowid_for(last.timestamp(), 0)) + 1):
            start_s, end_s = period_bounds_s(period)
            if frames.filter(
                timestamp__gte=datetime.fromtimestamp(start_s, tz=dt_timezone.utc),
                timestamp__lt=datetime.fromtimestamp(end_s, tz=dt_timezone.utc),
            ).exists():
                periods.add(period)
    lo = -(2**62) if start_time is None else rowid_for(start_time, 0)
    hi = 2**62 if end_time is None else rowid_for(end_time, 999)
    with connection.cursor() as cursor:
        periods |= {p.period for p in partitions_in(cursor, lo, hi)}
    return sorted(periods)


def index_layout_note() -> str | None:
    """A line for the worker's start when weeks of the keyword index predate its current layout."""
    with connection.cursor() as cursor:
        outdated = partitions_outdated(cursor)
    if not outdated:
        return None
    return (
        f"the keyword index has {len(outdated)} week(s) in an older layout, where words inside compound tokens "
        "are not found: run `manage.py reindex --fts` (searches keep working while it runs)"
    )
