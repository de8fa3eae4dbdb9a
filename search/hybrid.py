"""The one search, and browsing: what the search page, the API, the chat and the MCP tools run.

Exports:
- search_run(q=, filters=, mode=, limit=, offset=) -> SearchResult: browse when q is empty, else
  keyword, semantic or hybrid search (MODES; settings.SEARCH_MODE by default), fail-open to the
  keyword side.
- hybrid_fuse: one ranking of frame ids from the keyword and the semantic rankings (reciprocal
  rank fusion, RRF_K), with the sides that found each.
- search_browse(filters=, limit=, offset=): the frames of a range, newest first.
- query_has_words(q): whether q can match anything (a query of punctuation alone matches nothing,
  in every mode).
- MODES, SEMANTIC_MAX_RESULTS, SEMANTIC_MIN_RANKED, CJK_UNREAD.
The hits are search.hits.SearchHit; the sides are search.keyword and search.semantic.
"""

import re
import unicodedata
from dataclasses import replace

from django.conf import settings
from django.db import connection

from search.embeddings import EmbeddingError, embedder_reads_cjk
from search.filters import TEXT_JOIN, Filters
from search.hits import SearchHit, SearchResult, hits_load
from search.keyword import search_keyword
from search.semantic import semantic_fetch_async, semantic_finish, semantic_plan, semantic_total
from search.vectors import VectorError

MODES = ("hybrid", "keyword", "semantic")
# The meaning side ranks at most this many frames (a page deeper than that is keyword matches only).
SEMANTIC_MAX_RESULTS = 1000
# And in hybrid at least this many (screenpipe's clients ask for 20 by default).
SEMANTIC_MIN_RANKED = 20
# Reciprocal rank fusion: a result's hybrid score is the sum over the sides that found it of
# 1 / (RRF_K + its rank there); 60 is the constant of the method's paper.
RRF_K = 60
CJK_UNREAD = (
    "all-MiniLM-L6-v2 reads English only, so Chinese is searched by its words; "
    "leave EMBEDDINGS_MODEL empty (or set it to multilingual-e5-small) to search Chinese by meaning"
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
    if not query_has_words(q):
        # Punctuation or symbols alone ("...", "-"): no word to match, and no meaning an embedder
        # could find (it would rank every frame near one another, all "similar").
        return SearchResult(hits=[], total=0, mode=mode)
    degraded = None
    if mode != "keyword" and _CJK.search(q) and not embedder_reads_cjk():
        # The meaning side cannot read the query: words only (semantic mode says why).
        if mode == "semantic":
            return SearchResult(hits=[], total=0, mode=mode, degraded=CJK_UNREAD)
        hits, total = search_keyword(q=q, filters=filters, limit=limit, offset=offset)
        return SearchResult(hits=_keyword_only(hits, mode=mode, offset=offset), total=total, mode=mode)
    want = max(offset + limit, 50)
    keyword_side = None
    if mode != "keyword":
        try:
            # The meaning side ranks the page's frames, and at least SEMANTIC_MIN_RANKED so that the
            # total (keyword matches and the meaning side's own) is the same for any page of
            # up to that many: deeper ones rarely reach the fused page, and e5's crowded
            # similarities make every one more a deeper read of the vector index
            # (bench/search_hybrid_profile.py at 100k, 50 -> 20: p95 40 -> 21 ms).
            wanted = offset + limit if mode == "semantic" else max(offset + limit, SEMANTIC_MIN_RANKED)
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
        return SearchResult(hits=_keyword_only(hits, mode=mode, offset=offset), total=total, mode=mode, degraded=degraded)
    if mode == "semantic":
        page = semantic[offset : offset + limit]
        return SearchResult(
            hits=[
                replace(hit, matched=("semantic",), passage=plan.passages.get(hit.frame_id))
                for hit in hits_load([(frame_id, _semantic_score(plan, frame_id, distance)) for frame_id, distance in page])
            ],
            total=len(semantic) if len(semantic) < offset + limit else semantic_total(filters, len(semantic)),
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
        replace(
            details[frame_id],
            score=round(_rrf_score(frame_id, ranks), 6),
            matched=sides,
            passage=plan.passages.get(frame_id) if "semantic" in sides else None,
        )
        for frame_id, sides in page
        if frame_id in details
    ]
    return SearchResult(hits=hits, total=keyword_total + extra, mode=mode)


def _semantic_score(plan, frame_id: int, distance: float) -> float:
    """A result by meaning's score: how far it stands out by both models (search.crosscheck: the
    mean of their z, 3 and more counts), the order results come in; the similarity under a fixed
    bar the user set (or when the second model could not answer)."""
    agreement = plan.agreement.get(frame_id)
    return round(agreement, 3) if agreement is not None else round(1 - distance, 4)


def _keyword_only(hits: list[SearchHit], *, mode: str, offset: int) -> list[SearchHit]:
    """Keyword hits as the mode answers them: in hybrid mode on the fused scale (the reciprocal
    rank fusion of the one side that ranked them), so that a hybrid result's score means the
    same whether or not the meaning side found anything; else with the keyword side's score."""
    if mode != "hybrid":
        return [replace(hit, matched=("keyword",)) for hit in hits]
    return [
        replace(hit, matched=("keyword",), score=round(1 / (RRF_K + offset + rank), 6))
        for rank, hit in enumerate(hits, 1)
    ]


def query_has_words(q: str) -> bool:
    """Whether q holds a letter or a digit of any script: what a search, by words or by meaning,
    can look for."""
    return any(unicodedata.category(char)[0] in "LN" for char in q)


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


def search_browse(*, filters: Filters, limit: int, offset: int) -> tuple[list[SearchHit], int]:
    """Frames in the range, newest first (an empty query)."""
    where, params, needs_text = filters.sql()
    base = "FROM frames_frame f" + (TEXT_JOIN if needs_text else "") + " WHERE " + " AND ".join(where)
    rows, total = _page("SELECT f.id", base, params, "f.timestamp DESC, f.id DESC", limit, offset)
    return hits_load([(row[0], None) for row in rows]), total
