"""The search app's reads, for other apps and entry points: each is imported here from the module
that holds it (inside search/, modules import one another directly, not through this one).

- search.hybrid: search_run (the one search: browse, keyword, semantic or hybrid, fail-open),
  search_browse (a range newest first), hybrid_fuse (one ranking from two), MODES.
- search.keyword: search_keyword (a keyword query, from what was typed to ranked hits).
- search.semantic: semantic_ranked (the frames nearest in meaning), vectors_warm and WARM_DAYS
  (have the vector index load the recent days).
- search.hits: SearchHit, SearchResult (what a search answers with).
- search.status: index_status (GET /api/v1/status), index_backlog, index_periods, and the
  notices: index_lag_notice and LAG_NOTICE_S (the timeline), index_layout_note and vectors_note
  (the worker's start).
"""

from search.hits import SearchHit, SearchResult
from search.hybrid import MODES, hybrid_fuse, search_browse, search_run
from search.keyword import search_keyword
from search.semantic import WARM_DAYS, semantic_ranked, vectors_warm
from search.status import (
    LAG_NOTICE_S,
    index_backlog,
    index_lag_notice,
    index_layout_note,
    index_periods,
    index_status,
    vectors_note,
)

__all__ = [
    "LAG_NOTICE_S",
    "MODES",
    "WARM_DAYS",
    "SearchHit",
    "SearchResult",
    "hybrid_fuse",
    "index_backlog",
    "index_lag_notice",
    "index_layout_note",
    "index_periods",
    "index_status",
    "search_browse",
    "search_keyword",
    "search_run",
    "semantic_ranked",
    "vectors_note",
    "vectors_warm",
]
