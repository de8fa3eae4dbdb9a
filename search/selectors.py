"""Reads: search by meaning, hybrid search, browsing frames newest first, and how far the indexes are
(keyword search is search.keyword)."""

import heapq
import math
import re
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

from django.conf import settings
from django.db import connection
from django.db.models import Count, Min
from django.utils import timezone

from frames.models import Frame, OcrStatus
from frames.selectors import devices_seen
from myrecall.timezones import duration_short
from search.embeddings import (
    EmbeddingError,
    embed_query,
    embedder_info,
    embedder_load_async,
    embedder_reads_cjk,
    embedder_ready,
    semantic_max_distance,
)
from search.filters import TEXT_JOIN, Filters
from search.fts import partition_of, partitions_in, partitions_outdated, period_bounds_s, rowid_for
from search.hits import SearchHit, SearchResult, hits_load
from search.keyword import search_keyword
from search.vectors import (
    DayHits,
    VectorError,
    VectorHit,
    backend_describe,
    day_bounds_ms,
    day_of,
    day_query,
    days_present,
    vectors_count,
    vectors_health,
)


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


MODES = ("hybrid", "keyword", "semantic")
# The meaning side ranks at most this many frames (a page deeper than that is keyword matches only).
SEMANTIC_MAX_RESULTS = 1000
# Reciprocal rank fusion: a result's hybrid score is the sum over the sides that found it of
# 1 / (RRF_K + its rank there); 60 is the constant of the method's paper.
RRF_K = 60
# How semantic_ranked reads a day's collection. Entries read per frame wanted: a screen's text is
# 4.6 chunks on average (128-token chunks of real screens), and chunks of one frame near the
# query come together.
ENTRIES_PER_FRAME = 4
# Measured over the vector server's HTTP API on a day of 3,300 frames (15k entries): the nearest
# k entries (ids and distances) cost about 2 + 0.0035*k ms; a search among m frames by id
# (frame_id $in) about 7 + 0.011*m ms whatever k. A partly kept day is read the cheaper way.
OPEN_COST_MS = (2.0, 0.0035)
IDS_COST_MS = (7.0, 0.011)
# The search by id reads Chroma's metadata table, which is one for the whole index: with 1M
# frames (4.6M entries) it cost about 90 ms whether for 50 ids or 300 (at 100k: 7 + 0.011*m), so
# its cost is grown by (frames / IDS_COST_FRAMES) ** IDS_COST_GROWTH. A short over-fetched day
# is read again by id only when that is estimated under IDS_FALLBACK_MAX_MS.
IDS_COST_FRAMES = 100_000
IDS_COST_GROWTH = 1.1
IDS_FALLBACK_MAX_MS = 60.0
VECTOR_IDS_MAX = 2000
VECTOR_IDS_EXACT = 8000
OVERFETCH_MAX = 16_000
# A partly kept day's first read is sized for this many times its share of the n nearest frames.
FIRST_READ_MARGIN = 2.0
CJK_UNREAD = (
    "the packaged embedding model reads English only, so Chinese is searched by its words; "
    "set EMBEDDINGS_BASE_URL to a multilingual model to search Chinese by meaning"
)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af]")


def search_run(*, q: str, filters: Filters, mode: str | None = None, limit: int, offset: int) -> SearchResult:
    """The one search: browse the range newest first when q is empty; else keyword, semantic or
    hybrid (settings.SEARCH_MODE by default). Semantic and hybrid are fail-open: when the
    embedder or the vector index fails, the keyword side answers and `degraded` says why."""
    if not q.strip():
        hits, total = search_browse(filters=filters, limit=limit, offset=offset)
        return SearchResult(hits=hits, total=total, mode="browse")
    mode = mode or settings.SEARCH_MODE
    degraded = None
    if mode != "keyword" and _CJK.search(q) and not embedder_reads_cjk():
        # The meaning side cannot read the query: words only (semantic mode says why).
        if mode == "semantic":
            return SearchResult(hits=[], total=0, mode=mode, degraded=CJK_UNREAD)
        hits, total = search_keyword(q=q, filters=filters, limit=limit, offset=offset)
        return SearchResult(hits=[replace(hit, matched=("keyword",)) for hit in hits], total=total, mode=mode)
    want = max(offset + limit, 50)
    keyword_side = None
    if mode != "keyword":
        try:
            wanted = offset + limit if mode == "semantic" else want
            plan = semantic_plan(q=q, filters=filters, n=min(wanted, SEMANTIC_MAX_RESULTS))
            reading = semantic_fetch_async(plan)
            if mode == "hybrid":
                # The keyword side runs here while the meaning side waits on the vector index.
                keyword_side = search_keyword(q=q, filters=filters, limit=want, offset=0)
            semantic = semantic_finish(plan, reading.result())
        except (EmbeddingError, VectorError) as exc:
            degraded = str(exc)
    if mode == "keyword" or degraded or (mode == "hybrid" and (not semantic or offset + limit > SEMANTIC_MAX_RESULTS)):
        # The keyword side alone: asked for, the meaning side failed or found nothing, or a page
        # deeper than the meaning side ranks.
        hits, total = search_keyword(q=q, filters=filters, limit=limit, offset=offset)
        return SearchResult(
            hits=[replace(hit, matched=("keyword",)) for hit in hits], total=total, mode=mode, degraded=degraded
        )
    if mode == "semantic":
        page = semantic[offset : offset + limit]
        return SearchResult(
            hits=[replace(hit, matched=("semantic",)) for hit in hits_load([(frame_id, round(1 - distance, 4)) for frame_id, distance in page])],
            total=len(semantic) if len(semantic) < offset + limit else _semantic_total(filters, len(semantic)),
            mode=mode,
        )
    keyword_hits, keyword_total = keyword_side or search_keyword(q=q, filters=filters, limit=want, offset=0)
    fused = hybrid_fuse(
        keyword=[hit.frame_id for hit in keyword_hits],
        semantic=[frame_id for frame_id, _ in semantic],
        keyword_first=bool(_CJK.search(q)),
    )
    extra = sum(1 for _, sides in fused if sides == ("semantic",))
    page = fused[offset : offset + limit]
    ranks = [
        {frame_id: rank for rank, frame_id in enumerate(ranking, 1)}
        for ranking in ([hit.frame_id for hit in keyword_hits], [frame_id for frame_id, _ in semantic])
    ]
    details = {hit.frame_id: hit for hit in hits_load([(frame_id, None) for frame_id, _ in page])}
    hits = [
        replace(details[frame_id], score=round(_rrf_score(frame_id, ranks), 6), matched=sides)
        for frame_id, sides in page
        if frame_id in details
    ]
    return SearchResult(hits=hits, total=keyword_total + extra, mode=mode)


def _rrf_score(frame_id: int, ranks: list[dict[int, int]]) -> float:
    """Its reciprocal rank fusion score: the sum over the rankings that hold it of 1 / (RRF_K + rank)."""
    return sum(1 / (RRF_K + side[frame_id]) for side in ranks if frame_id in side)


def hybrid_fuse(*, keyword: list[int], semantic: list[int], keyword_first: bool = False) -> list[tuple[int, tuple[str, ...]]]:
    """One ranked list of frame ids from the keyword and the semantic rankings, each with the
    sides that found it. Reciprocal rank fusion; with keyword_first (a query in Chinese, which
    the packaged English model cannot read), the keyword ranking is kept as it is and what only
    the meaning side found follows it, so no keyword hit ranks lower than keyword search puts it."""
    keyword_rank = {frame_id: rank for rank, frame_id in enumerate(keyword, 1)}
    semantic_rank = {frame_id: rank for rank, frame_id in enumerate(semantic, 1)}

    def sides(frame_id: int) -> tuple[str, ...]:
        return tuple(side for side, ranks in (("keyword", keyword_rank), ("semantic", semantic_rank)) if frame_id in ranks)

    if keyword_first:
        rest = [frame_id for frame_id in semantic if frame_id not in keyword_rank]
        return [(frame_id, sides(frame_id)) for frame_id in [*keyword, *rest]]
    scores = {frame_id: _rrf_score(frame_id, [keyword_rank, semantic_rank]) for frame_id in {*keyword_rank, *semantic_rank}}
    order = sorted(scores, key=lambda frame_id: (-scores[frame_id], keyword_rank.get(frame_id, 10**9), semantic_rank.get(frame_id, 10**9)))
    return [(frame_id, sides(frame_id)) for frame_id in order]


def _semantic_total(filters: Filters, found: int) -> int:
    """Every frame of the range that has vectors is a semantic match at some distance; the
    total is that count (at least what was found)."""
    where, params, needs_text = filters.sql()
    base = "FROM frames_frame f JOIN search_framevectors v ON v.frame_id = f.id" + (TEXT_JOIN if needs_text else "")
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*) {base} WHERE v.chunks > 0 AND " + " AND ".join(where), params)
        return max(cursor.fetchone()[0], found)


def _frames_admitted(cursor, filters: Filters, frame_ids: list[int]) -> set[int]:
    """Which of these frames the filters admit, exactly (the vector index knows times to the
    millisecond and nothing of windows and URLs)."""
    if not frame_ids:
        return set()
    where, params, needs_text = filters.sql()
    cursor.execute(
        "SELECT f.id FROM frames_frame f" + (TEXT_JOIN if needs_text else "")
        + f" WHERE f.id IN ({', '.join(['%s'] * len(frame_ids))}) AND " + " AND ".join(where),
        [*frame_ids, *params],
    )
    return {row[0] for row in cursor.fetchall()}


def _cost(model: tuple[float, float], size: int) -> float:
    return model[0] + model[1] * size


def _nth_distance(best: dict[int, float], n: int) -> float:
    """The distance of the n-th nearest frame found so far (infinite while fewer are found)."""
    return heapq.nsmallest(n, best.values())[-1] if len(best) >= n else math.inf


def _merge(best: dict[int, float], hits: list[VectorHit]) -> None:
    for hit in hits:
        if hit.distance < best.get(hit.frame_id, 9.0):
            best[hit.frame_id] = hit.distance


@dataclass
class _DayRead:
    """How one day's collection is read first (see semantic_ranked)."""

    day: int
    filters: Filters  # the query's filters, cut to the day
    kept: int  # frames of the day the filters keep
    frame_ids: list[int] | None  # search among these frames alone
    fetch: int  # entries to read
    admit: bool  # keep only the frames the filters admit (an over-fetched read)


@dataclass
class SemanticPlan:
    """The database's part of a search by meaning, done before the vector index is asked:
    which day collections to read and how. `semantic_fetch` needs no database (it can run in
    another thread while the keyword side runs), `semantic_finish` checks what came back."""

    q: str
    n: int
    key: str
    reads: list[_DayRead] = field(default_factory=list)
    ids_cost: tuple[float, float] = IDS_COST_MS  # grown with the index's size


def semantic_plan(*, q: str, filters: Filters, n: int) -> SemanticPlan:
    """Which days of the range hold vectors and how each is read. Raises EmbeddingError while
    the model loads, VectorError when the index cannot answer.

    The index has one collection per UTC day; the SQL filters decide which frames count, the
    same as for keyword search. For each day of the range:
    - the filters keep the whole day: its collection is searched whole;
    - else, the cheaper of two reads (by the measured costs OPEN_COST_MS and IDS_COST_MS, the
      latter grown with the index's size):
      the search on the kept frames alone (at most VECTOR_IDS_MAX, their ids inside the vector
      query), or the day's nearest entries, keeping the admitted ones (semantic_finish). An
      over-fetched read is sized for the day's share of the n nearest frames (its frames kept
      over those kept in the whole range, times FIRST_READ_MARGIN): a day the range keeps a
      sliver of is read shallow, and read deeper only if the other days leave room for it.
    Chroma's own time filter is never used: its metadata index spans every collection and cost
    480 ms p50 for a 1-day range at 1M entries here."""
    if not embedder_ready():
        embedder_load_async()
        raise EmbeddingError("the embedding model is still loading; try again in a few seconds")
    key = embedder_info().key
    plan = SemanticPlan(q=q, n=n, key=key)
    first_day, last_day = day_of(filters.start_ms), day_of(filters.end_ms)
    present = days_present(embedder_key=key, expect_day=min(last_day, day_of(int(time.time() * 1000))))
    entries_wanted = n * ENTRIES_PER_FRAME
    with connection.cursor() as cursor:
        cursor.execute("SELECT max(id) FROM frames_frame")  # about the frames indexed, at no cost
        frames = cursor.fetchone()[0] or 0
        growth = max(1.0, frames / IDS_COST_FRAMES) ** IDS_COST_GROWTH
        plan.ids_cost = (IDS_COST_MS[0] * growth, IDS_COST_MS[1] * growth)
        days = []  # (day, its filters, frames kept, frames in the day)
        for day in sorted((day for day in present if first_day <= day <= last_day), reverse=True):
            day_lo, day_hi = day_bounds_ms(day)
            day_filters = filters.with_range(max(filters.start_time, day_lo / 1000), min(filters.end_time, day_hi / 1000))
            kept = _count(cursor, day_filters)
            if kept:
                in_day = _count(cursor, Filters(start_time=day_lo / 1000, end_time=day_hi / 1000, end_inclusive=False))
                days.append((day, day_filters, kept, in_day))
        total_kept = sum(kept for _, _, kept, _ in days)
        for day, day_filters, kept, in_day in days:
            read = _DayRead(day=day, filters=day_filters, kept=kept, frame_ids=None, fetch=entries_wanted, admit=False)
            # Over-fetched: the day's share of the n nearest frames (n * kept / total_kept, with a
            # margin), reading in_day / kept entries for each admitted one; never more than all n.
            share = min(FIRST_READ_MARGIN * kept / total_kept, 1.0)
            fetch = min(math.ceil(entries_wanted * share * in_day / kept), OVERFETCH_MAX)
            if kept >= in_day and not filters.narrowed():
                pass  # the whole day
            elif kept <= VECTOR_IDS_MAX and _cost(plan.ids_cost, kept) < _cost(OPEN_COST_MS, fetch):
                read.frame_ids = _ids(cursor, day_filters)
            else:
                read.fetch, read.admit = fetch, True
            plan.reads.append(read)
    return plan


# Vector reads of several days at once (the index answers over HTTP: threads wait, not compute).
# A read never waits on another job, so this pool cannot deadlock; the fetches that wait on these
# reads run in a pool of their own (a fetch inside this pool, waiting on reads queued behind it,
# hung the web server once four searches ran at once).
_reads_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="vector-read")
_fetch_pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="vector-fetch")


def semantic_fetch_async(plan: "SemanticPlan") -> Future:
    """semantic_fetch in the background (search_run runs the keyword side meanwhile)."""
    return _fetch_pool.submit(semantic_fetch, plan)


@dataclass
class SemanticFetched:
    embedding: list[float]
    found: list[DayHits]  # one per plan.reads, in order


def semantic_fetch(plan: SemanticPlan) -> SemanticFetched:
    """The query's embedding and the first read of every planned day, the days at once. Touches
    no database. Raises EmbeddingError or VectorError."""
    if not plan.reads:
        return SemanticFetched(embedding=[], found=[])
    embedding = embed_query(plan.q)
    jobs = [
        _reads_pool.submit(day_query, embedder_key=plan.key, day=read.day, embedding=embedding, n=read.fetch, frame_ids=read.frame_ids)
        for read in plan.reads
    ]
    return SemanticFetched(embedding=embedding, found=[job.result() for job in jobs])


def semantic_finish(plan: SemanticPlan, fetched: SemanticFetched) -> list[tuple[int, float]]:
    """The n nearest frames from what was read, as (frame_id, cosine distance), nearest first,
    none farther than semantic_max_distance(). An over-fetched day keeps the frames the
    filters admit. A day read short (not to its end) is read deeper only while what it left
    unread could still count: its unread entries are all farther than the farthest it read, so
    they matter only when that is nearer than the n-th nearest frame found over every day (and
    than the cutoff). Deeper is the cheaper by measured cost of 4x as many entries (up to
    OVERFETCH_MAX) or, for an over-fetched day that keeps at most VECTOR_IDS_EXACT frames, a
    search among the kept frames by id (within IDS_FALLBACK_MAX_MS once OVERFETCH_MAX is read).
    What it returns is exact (the nearest admitted frames, in order); only a day that keeps more
    than VECTOR_IDS_EXACT frames, none of them among its OVERFETCH_MAX nearest entries, can give
    fewer than n."""
    cutoff = semantic_max_distance()
    n = plan.n
    best: dict[int, float] = {}
    short = []  # (read, farthest distance read) of the days not read to their end
    with connection.cursor() as cursor:

        def admitted(found: DayHits, filters: Filters, admit: bool) -> list[VectorHit]:
            if not admit:
                return found.hits
            keep = _frames_admitted(cursor, filters, [hit.frame_id for hit in found.hits])
            return [hit for hit in found.hits if hit.frame_id in keep]

        for read, found in zip(plan.reads, fetched.found):
            _merge(best, admitted(found, read.filters, read.admit))
            if not found.exhausted:
                short.append((read, found.farthest))
        for read, farthest in short:
            fetch, frame_ids, admit = read.fetch, read.frame_ids, read.admit
            while farthest <= cutoff and farthest < _nth_distance(best, n):
                by_ids = admit and read.kept <= VECTOR_IDS_EXACT
                ids_cost = _cost(plan.ids_cost, read.kept)
                if by_ids and (ids_cost < _cost(OPEN_COST_MS, fetch * 4) if fetch < OVERFETCH_MAX else ids_cost <= IDS_FALLBACK_MAX_MS):
                    frame_ids, admit, fetch = _ids(cursor, read.filters), False, n * ENTRIES_PER_FRAME
                elif fetch < OVERFETCH_MAX:
                    fetch = min(fetch * 4, OVERFETCH_MAX)
                else:
                    break
                found = day_query(embedder_key=plan.key, day=read.day, embedding=fetched.embedding, n=fetch, frame_ids=frame_ids)
                _merge(best, admitted(found, read.filters, admit))
                if found.exhausted:
                    break
                farthest = found.farthest
    ranked = sorted(best.items(), key=lambda item: (item[1], -item[0]))
    return [(frame_id, distance) for frame_id, distance in ranked if distance <= cutoff][:n]


def semantic_ranked(*, q: str, filters: Filters, n: int) -> list[tuple[int, float]]:
    """The n frames of the range nearest to q in meaning (semantic_plan, then semantic_fetch,
    then semantic_finish). Raises EmbeddingError or VectorError."""
    plan = semantic_plan(q=q, filters=filters, n=n)
    return semantic_finish(plan, semantic_fetch(plan))


# The days whose vector collections a web server has the index load when it starts.
WARM_DAYS = 7


def vectors_warm(*, days: int = WARM_DAYS) -> int:
    """Have the vector index load the collections of the last `days` days that hold vectors: the
    first search of a day after the index starts reads its collection from disk (bench/
    search_hybrid.py measures it), and recent days are what people search most. Returns how
    many it read."""
    key = embedder_info().key
    present = days_present(embedder_key=key, expect_day=day_of(int(time.time() * 1000)))
    if not present:
        return 0
    embedding = embed_query("what was on my screen")
    for day in present[-days:]:
        day_query(embedder_key=key, day=day, embedding=embedding, n=1)
    return len(present[-days:])


def _count(cursor, filters: Filters) -> int:
    where, params, needs_text = filters.sql()
    cursor.execute("SELECT count(*) FROM frames_frame f" + (TEXT_JOIN if needs_text else "") + " WHERE " + " AND ".join(where), params)
    return cursor.fetchone()[0]


def _ids(cursor, filters: Filters) -> list[int]:
    where, params, needs_text = filters.sql()
    cursor.execute("SELECT f.id FROM frames_frame f" + (TEXT_JOIN if needs_text else "") + " WHERE " + " AND ".join(where), params)
    return [row[0] for row in cursor.fetchall()]


def search_browse(*, filters: Filters, limit: int, offset: int) -> tuple[list[SearchHit], int]:
    """Frames in the range, newest first (an empty query)."""
    where, params, needs_text = filters.sql()
    base = "FROM frames_frame f" + (TEXT_JOIN if needs_text else "") + " WHERE " + " AND ".join(where)
    rows, total = _page("SELECT f.id", base, params, "f.timestamp DESC, f.id DESC", limit, offset)
    return hits_load([(row[0], None) for row in rows]), total


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


def _oldest(frames) -> dict | None:
    first = frames.order_by("timestamp", "id").values("id", "timestamp").first()
    if first is None:
        return None
    return {"frame_id": first["id"], "timestamp": first["timestamp"], "lag_s": round(time.time() - first["timestamp"].timestamp(), 1)}


def vectors_unindexed_count() -> int:
    """Frames whose OCR is over but that the vector index was never asked for (they predate it):
    `manage.py reindex --vectors` embeds them."""
    from search.models import FrameVectors

    return (
        Frame.objects.filter(ocr_status__in=[OcrStatus.DONE, OcrStatus.FAILED])
        .exclude(id__in=FrameVectors.objects.values("frame_id"))
        .count()
    )


def vectors_other_model_count() -> int:
    """Frames whose vectors were made by another model than the one configured now (EMBEDDINGS_MODEL
    or the endpoint changed): search by meaning does not see them until `manage.py reindex --vectors`."""
    from search.models import FrameVectors, VectorStatus

    return FrameVectors.objects.filter(status=VectorStatus.DONE).exclude(embedder=embedder_info().key).count()


def vectors_note() -> str | None:
    """A line for the worker's start when frames predate the vector index or have vectors of
    another model only."""
    notes = []
    if missing := vectors_unindexed_count():
        notes.append(f"{missing} frame(s) predate the vector index and are not searchable by meaning: run `manage.py reindex --vectors`")
    if other := vectors_other_model_count():
        notes.append(_other_model_line(other))
    return "\n".join(notes) or None


def _other_model_line(count: int) -> str:
    return (
        f"{count} frame(s) have vectors of another embedding model than {embedder_info().model} and are not "
        f"searchable by meaning until `manage.py reindex --vectors` (keyword search finds them meanwhile)"
    )


def _waited_s(since: datetime | None) -> float | None:
    return None if since is None else round(max((timezone.now() - since).total_seconds(), 0.0), 1)


def index_backlog() -> dict[str, dict]:
    """How far behind each index is: the frames waiting for it, and how long the one that has
    waited longest has waited (since it arrived, or since a rebuild asked for it again). The
    keyword index waits for OCR (its row is written with the text); the vector index waits for
    OCR, then for embedding."""
    from search.models import FrameVectors, VectorStatus

    unread = Frame.objects.filter(ocr_status=OcrStatus.PENDING)
    unread_since = unread.aggregate(since=Min("created_at"))["since"]
    owed = FrameVectors.objects.filter(status=VectorStatus.PENDING)
    owed_since = owed.aggregate(since=Min("updated_at"))["since"]
    unread_count = unread.count()
    return {
        "keyword": {"frames": unread_count, "oldest_wait_s": _waited_s(unread_since)},
        "semantic": {
            "frames": unread_count + owed.count(),
            "oldest_wait_s": _waited_s(min((at for at in (unread_since, owed_since) if at), default=None)),
        },
    }


def index_status() -> dict:
    """What is indexed and what is not yet, for GET /api/v1/status: frames by OCR state; keyword
    index rows, the frames waiting for it (index_backlog) and the oldest frame by capture time
    not yet searchable by its words; vectors, the frames waiting for them and the oldest not yet
    searchable by meaning; the embedder, the vector backend and whether it answers; the devices
    heard from in the last day, with their last frame and their capture client's last report."""
    from search.models import FrameVectors, VectorStatus

    by_state = dict(Frame.objects.values_list("ocr_status").annotate(n=Count("id")).values_list("ocr_status", "n"))
    with connection.cursor() as cursor:
        partitions = partitions_in(cursor, -(2**62), 2**62)
        rows = 0
        for partition in partitions:
            cursor.execute(f"SELECT count(*) FROM {partition.table}_docsize")
            rows += cursor.fetchone()[0]
    vector_states = dict(FrameVectors.objects.values_list("status").annotate(n=Count("frame")).values_list("status", "n"))
    info = embedder_info()
    other_model = vectors_other_model_count()
    healthy, reason = vectors_health()
    vectors = None
    if healthy:
        try:
            vectors = vectors_count(embedder_key=info.key)
        except VectorError as exc:
            healthy, reason = False, str(exc)
    pending_ocr = Frame.objects.filter(ocr_status=OcrStatus.PENDING)
    pending_vectors = Frame.objects.filter(
        id__in=FrameVectors.objects.filter(status=VectorStatus.PENDING).values("frame_id")
    ) | pending_ocr
    backlog = index_backlog()
    return {
        "frames": {"total": sum(by_state.values()), "ocr": {state: by_state.get(state, 0) for state in OcrStatus.values}},
        "keyword": {
            "rows": rows,
            "partitions": len(partitions),
            "waiting": backlog["keyword"],
            "oldest_unsearchable": _oldest(pending_ocr),
        },
        "semantic": {
            "vectors": vectors,
            "waiting": backlog["semantic"],
            "frames": {
                **{state: vector_states.get(state, 0) for state in VectorStatus.values},
                "never": vectors_unindexed_count(),
                # Of the done: with vectors of the model configured now, and of another (owed a reindex).
                "of_model": vector_states.get(VectorStatus.DONE, 0) - other_model,
                "other_model": other_model,
            },
            "oldest_unsearchable": _oldest(pending_vectors),
            "embedder": {"model": info.model, "endpoint": info.endpoint, "dimensions": info.dimensions, "loaded": embedder_ready()},
            "backend": backend_describe(),
            "healthy": healthy,
            "problem": None if healthy else reason,
        },
        "devices": [
            {"device_name": device.name, "last_frame": device.last_frame, "last_report": device.report}
            for device in devices_seen(since=timezone.now() - timedelta(days=1))
        ],
    }


# Frames waiting this long (seconds) for an index are worth a line on the timeline.
LAG_NOTICE_S = 60


def index_lag_notice() -> str | None:
    """A line for the timeline when frames have waited long to become searchable (how many, for
    each index, and the longest wait), or search by meaning is down; None when all is well."""
    parts = []
    backlog = index_backlog()
    keyword, semantic = backlog["keyword"], backlog["semantic"]
    if (keyword["oldest_wait_s"] or 0) > LAG_NOTICE_S:
        parts.append(
            f"{keyword['frames']} frame(s) wait for text recognition and keyword search, the longest for "
            f"{duration_short(keyword['oldest_wait_s'])} (what you capture now is read first)"
        )
    if (semantic["oldest_wait_s"] or 0) > LAG_NOTICE_S:
        parts.append(
            f"{semantic['frames']} frame(s) are not yet searchable by meaning, the longest waiting for {duration_short(semantic['oldest_wait_s'])}"
        )
    if other := vectors_other_model_count():
        parts.append(_other_model_line(other))
    healthy, reason = vectors_health()
    if not healthy:
        parts.append(f"search by meaning is unavailable: {reason}")
    return ("Indexing is behind: " + "; ".join(parts) + ".") if parts else None
