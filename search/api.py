from django.conf import settings
from django.http import HttpRequest
from ninja import Query, Router, Schema
from pydantic import Field

from frames.api import frame_url
from myrecall.errors import ApplicationError
from myrecall.schemas import ErrorOut
from search import selectors
from search.filters import filters_parse
from search.schemas import SearchOut, StatusOut

router = Router(tags=["search"])

AUDIO_CONTENT_TYPES = {"audio", "input", "accessibility", "ui", "audio+ocr", "ocr+audio"}


class SearchParams(Schema):
    q: str = ""
    start_time: float = Field(description="Epoch seconds; required: every search is bounded in time.")
    end_time: float | None = Field(None, description="Epoch seconds; default now.")
    app_name: str | None = None
    window_name: str | None = Field(None, description="Substring, case-insensitive.")
    browser_url: str | None = Field(None, description="Substring, case-insensitive.")
    focused: bool | None = None
    content_type: str = "ocr"
    mode: str | None = Field(
        None,
        description="hybrid (default: keyword and meaning in one ranked list), keyword, or semantic (similar meaning, no shared word needed).",
    )
    limit: int = Field(20, ge=1, le=100)
    offset: int = Field(0, ge=0, le=10**6)
    min_length: int | None = Field(None, ge=0, le=10**9)
    max_length: int | None = Field(None, ge=0, le=10**9)


@router.get("/search", response={200: SearchOut, 400: ErrorOut, 401: ErrorOut})
def search(request: HttpRequest, params: Query[SearchParams]):
    """Search what was on screen: by its words (English and Chinese), by meaning, or both in one
    ranked list (hybrid, the default); with an empty q, the frames of the range newest first
    (mode "browse"). Times are epoch seconds. Each result says which side matched it. When the
    meaning side fails (embedder or vector index down), the keyword side answers and
    `degraded` says why."""
    content_type = params.content_type.lower()
    if content_type in AUDIO_CONTENT_TYPES:
        raise ApplicationError(
            f"content_type={params.content_type} is not captured by MyRecall; use ocr.", extra={"field": "content_type"}
        )
    if content_type not in {"ocr", "all"}:
        raise ApplicationError(
            f"Unknown content_type {params.content_type!r}; use ocr.", extra={"field": "content_type"}
        )
    mode = (params.mode or settings.SEARCH_MODE).lower()
    if mode not in selectors.MODES:
        raise ApplicationError(
            f"Unknown mode {params.mode!r}; use hybrid, keyword or semantic.", extra={"field": "mode", "available": list(selectors.MODES)}
        )
    filters = filters_parse(
        start_time=params.start_time,
        end_time=params.end_time,
        app_name=params.app_name,
        window_name=params.window_name,
        browser_url=params.browser_url,
        focused=params.focused,
        min_length=params.min_length,
        max_length=params.max_length,
    )
    result = selectors.search_run(q=params.q, filters=filters, mode=mode, limit=params.limit, offset=params.offset)
    return {
        "data": [
            {
                "type": "OCR",
                "content": {
                    "frame_id": hit.frame_id,
                    "text": hit.text,
                    "timestamp": hit.timestamp,
                    "app_name": hit.app_name,
                    "window_name": hit.window_name,
                    "browser_url": hit.browser_url,
                    "focused": hit.focused,
                    "frame_url": frame_url(hit.frame_id),
                    "score": hit.score,
                    "matched": list(hit.matched),
                },
            }
            for hit in result.hits
        ],
        "pagination": {"limit": params.limit, "offset": params.offset, "total": result.total},
        "mode": result.mode,
        "degraded": result.degraded,
    }


@router.get("/status", response={200: StatusOut, 401: ErrorOut})
def status(request: HttpRequest):
    """How far indexing has come: frames by OCR state; keyword index rows; vectors; for each
    index the oldest frame not yet searchable through it (and how long it has waited); the
    embedding model, the vector backend and whether it answers."""
    return selectors.index_status()
