"""What a search answers with, whichever side found it.

Exports: SearchHit (one frame found, with its details and score, and which sides found it),
SearchResult (a page of hits, the total, the mode that ran and why the meaning side was left
out, if it was), and hits_load (the details of ranked frame ids, in rank order), which the
keyword, semantic and hybrid searches and browsing all shape their hits with.
"""

from dataclasses import dataclass
from datetime import datetime

from frames.models import Frame


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
    # Found by meaning: what the screen says in the passage that matched best (search.passages).
    passage: str | None = None


@dataclass(frozen=True)
class SearchResult:
    hits: list[SearchHit]
    total: int
    mode: str  # the mode that ran: keyword, semantic, hybrid, or browse (an empty query)
    # Why the meaning side was left out, when it failed (fail-open: the keyword side answered).
    degraded: str | None = None


def hits_load(ranked: list[tuple[int, float | None]]) -> list[SearchHit]:
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
