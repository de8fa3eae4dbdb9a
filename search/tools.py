"""The search app's read tool (myrecall/tools.py): search what was on screen, by its words, by
its meaning, or both."""

from typing import Annotated, Literal

from django.conf import settings
from django.urls import reverse
from pydantic import Field, field_validator

from frames.tools import frame_url, place
from myrecall.inputs import EPOCH_MAX, EPOCH_MIN, InputSchema, NullableTextBool
from myrecall.timezones import local_time
from myrecall.tools import INSTANT, Context, TimezoneName, Tool
from search.filters import filters_parse
from search.hybrid import search_run
from search.schemas import SearchOut
from search.snippets import excerpt_text

AUDIO_CONTENT_TYPES = {"audio", "input", "accessibility", "ui", "audio+ocr", "ocr+audio"}


class SearchParams(InputSchema):
    q: str = Field("", max_length=1000, description="Words or a phrase (any language); empty browses the range, newest first.")
    start_time: Annotated[float, INSTANT] = Field(
        ge=EPOCH_MIN, le=EPOCH_MAX, description="Epoch seconds; required: every search is bounded in time."
    )
    end_time: Annotated[float | None, INSTANT] = Field(
        None, ge=EPOCH_MIN, le=EPOCH_MAX, description="Epoch seconds, included; default now. A range that ends before it starts holds no frames."
    )
    app_name: str | None = Field(None, max_length=512, description="The app's whole name, any letter case.")
    window_name: str | None = Field(None, max_length=1024, description="Substring, case-insensitive.")
    browser_url: str | None = Field(None, max_length=4096, description="Substring, case-insensitive.")
    focused: NullableTextBool = None
    content_type: Literal["ocr", "all"] = Field("ocr", description="What to search: MyRecall captures screen text (ocr) only.")
    mode: Literal["hybrid", "keyword", "semantic"] | None = Field(
        None,
        description="hybrid (default: keyword and meaning in one ranked list), keyword (exact names, numbers, codes, Chinese words), or semantic (similar meaning, no shared word needed).",
    )
    limit: int = Field(20, ge=1, le=100)
    offset: int = Field(0, ge=0, le=10**6)
    min_length: int | None = Field(None, ge=0, le=10**9, description="Only frames with at least this many characters of text.")
    max_length: int | None = Field(None, ge=0, le=10**9, description="Only frames with at most this many characters of text.")
    timezone: TimezoneName = None

    @field_validator("content_type", mode="before")
    @classmethod
    def _captured(cls, value):
        if isinstance(value, str) and value.lower() in AUDIO_CONTENT_TYPES:
            raise ValueError(f"content_type={value} is not captured by MyRecall; use ocr")
        return value.lower() if isinstance(value, str) else value


def search(params: SearchParams, context: Context) -> dict:
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
    result = search_run(q=params.q, filters=filters, mode=mode, limit=params.limit, offset=params.offset)
    return {
        "data": [
            {
                "type": "OCR",
                "content": {
                    "frame_id": hit.frame_id,
                    "text": hit.text,
                    # Found by its words: the piece around them; by meaning alone: the passage that matched.
                    "excerpt": excerpt_text(
                        text=hit.text, q=params.q,
                        passage=hit.passage if "keyword" not in hit.matched else None,
                    ),
                    "timestamp": hit.timestamp,
                    "local_time": local_time(hit.timestamp, context.zone).isoformat(timespec="seconds"),
                    "app_name": hit.app_name,
                    "window_name": hit.window_name,
                    "browser_url": hit.browser_url,
                    "focused": hit.focused,
                    "frame_url": context.link(frame_url(hit.frame_id)),
                    "viewer_url": context.link(reverse("frame-view", args=[hit.frame_id])),
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


def search_as_text(answer: dict) -> str:
    """For an assistant: one short block per result (its excerpt, not its whole text)."""
    total = answer["pagination"]["total"]
    lines = [f"{total} frame{'s' if total != 1 else ''} matched (mode {answer['mode']}); showing {len(answer['data'])} from offset {answer['pagination']['offset']}."]
    if answer["degraded"]:
        lines.append(f"Note: {answer['degraded']}")
    for item in answer["data"]:
        hit = item["content"]
        lines += ["", f"frame {hit['frame_id']} at {hit['local_time']} · {place(hit)}", f"  {hit['excerpt']}", f"  open: {hit['viewer_url']}"]
    return "\n".join(lines)


SEARCH = Tool(
    name="search",
    title="Search the screen history",
    description=(
        "Search what was on screen in a time range: by its words (English and Chinese), by its "
        "meaning, or both in one ranked list (hybrid, the default); with an empty q, the frames of "
        "the range newest first. Each result is a frame: its id, time (and local time), app, "
        "window, URL, text, links to its image and its viewer page, and which side matched it. "
        "When search by meaning is unavailable, the keyword side answers and `degraded` says why."
    ),
    params=SearchParams,
    returns=SearchOut,
    run=search,
    path="/search",
    as_text=search_as_text,
    example={"q": "grafana latency", "start_time": "$(date -d '-2 hours' +%s)", "end_time": "$(date +%s)", "limit": "10"},
)
