from typing import Literal

from django.conf import settings
from django.http import HttpRequest
from ninja import Router
from pydantic import Field, field_validator

from frames.api import frame_url
from myrecall.inputs import EPOCH_MAX, EPOCH_MIN, InputSchema, NullableTextBool, StrictQuery
from myrecall.schemas import responses
from search import selectors
from search.filters import filters_parse
from search.schemas import SearchOut, StatusOut

router = Router(tags=["search"])

AUDIO_CONTENT_TYPES = {"audio", "input", "accessibility", "ui", "audio+ocr", "ocr+audio"}


class SearchParams(InputSchema):
    q: str = Field("", max_length=1000)
    start_time: float = Field(ge=EPOCH_MIN, le=EPOCH_MAX, description="Epoch seconds; required: every search is bounded in time.")
    end_time: float | None = Field(
        None, ge=EPOCH_MIN, le=EPOCH_MAX, description="Epoch seconds, included; default now. A range that ends before it starts holds no frames."
    )
    app_name: str | None = Field(None, max_length=512)
    window_name: str | None = Field(None, max_length=1024, description="Substring, case-insensitive.")
    browser_url: str | None = Field(None, max_length=4096, description="Substring, case-insensitive.")
    focused: NullableTextBool = None
    content_type: Literal["ocr", "all"] = Field("ocr", description="What to search: MyRecall captures screen text (ocr) only.")
    mode: Literal["hybrid", "keyword", "semantic"] | None = Field(
        None,
        description="hybrid (default: keyword and meaning in one ranked list), keyword, or semantic (similar meaning, no shared word needed).",
    )
    limit: int = Field(20, ge=1, le=100)
    offset: int = Field(0, ge=0, le=10**6)
    min_length: int | None = Field(None, ge=0, le=10**9)
    max_length: int | None = Field(None, ge=0, le=10**9)

    @field_validator("content_type", mode="before")
    @classmethod
    def _captured(cls, value):
        if isinstance(value, str) and value.lower() in AUDIO_CONTENT_TYPES:
            raise ValueError(f"content_type={value} is not captured by MyRecall; use ocr")
        return value.lower() if isinstance(value, str) else value


@router.get("/search", response=responses({200: SearchOut}))
def search(request: HttpRequest, params: StrictQuery[SearchParams]):
    """Search what was on screen: by its words (English and Chinese), by meaning, or both in one
    ranked list (hybrid, the default); with an empty q, the frames of the range newest first
    (mode "browse"). Times are epoch seconds. Each result says which side matched it. When the
    meaning side fails (embedder or vector index down), the keyword side answers and
    `degraded` says why."""
    mode = params.mode or settings.SEARCH_MODE
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


@router.get("/status", response=responses({200: StatusOut}))
def status(request: HttpRequest):
    """How far indexing has come: frames by OCR state; keyword index rows; vectors; for each
    index the oldest frame not yet searchable through it (and how long it has waited); the
    embedding model, the vector backend and whether it answers; each device heard from in the
    last day, with when its last frame was taken and its capture client's latest report."""
    return selectors.index_status()
