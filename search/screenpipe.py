"""screenpipe's API at the root of the site, so that screenpipe's agent skill, its JS client
(@screenpipe/js) and its MCP server work against MyRecall unchanged.

It is an adapter over the same reads as /api/v1 (one Filters, search_run, the frame selectors),
with screenpipe's names, defaults and shapes, and lenient where screenpipe is: ISO-8601 or
relative times ("1h ago", "now"), start_time optional on /search (no lower bound, as in
screenpipe), app_name matched by its words ("Chrome" finds "Google Chrome"), limit 20 by default
and capped rather than refused, and the kinds of content MyRecall does not capture (audio, input,
ui, accessibility, memory) answered with empty data, as screenpipe answers a kind it has nothing
of. /search is a keyword search, as screenpipe's: every word must match (MyRecall's search by
meaning is /api/v1/search). Every route needs a bearer token or a login, and errors keep MyRecall's one error shape.

GET /search shares its URL with the search page: search_or_page picks the side."""

import base64
import re
import time
import unicodedata
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

from django.contrib.auth.decorators import login_not_required, login_required
from django.http import HttpRequest
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_GET
from ninja import NinjaAPI, Query, Router

from frames import selectors as frame_selectors
from frames import storage
from frames.models import Frame
from frames.tools import ACTIVITY_APPS, ACTIVITY_GAP_CAP_S, ACTIVITY_WINDOWS, by_time_spent, key_texts_pick
from frames.views import FRAME_IDS, frame_not_found_body
from myrecall.api import api as main_api
from myrecall.auth import API_AUTH
from myrecall.errors import ApplicationError, NotFound
from myrecall.middleware import cross_origin_readable
from myrecall.schemas import ErrorOut
from myrecall.timezones import instant_parse
from search import views as search_views
from search.filters import filters_parse
from search.hybrid import search_run
from search.screenpipe_schemas import (
    ActivitySummaryOut,
    FrameContextOut,
    FrameMetadataOut,
    FrameNotFoundOut,
    FrameOcrOut,
    HealthOut,
    SearchOut,
    SearchParams,
)

DEFAULT_LIMIT = 20  # screenpipe's default_limit
MAX_LIMIT = 100  # the most /api/v1/search gives in one page; a larger limit gets this many
# Deeper pages answer empty with the total: hybrid search ranks offset + limit candidates.
MAX_OFFSET = 10_000
MAX_INLINE_FRAMES = 20  # include_frames attaches at most this many images, as screenpipe does
MAX_TEXT_LENGTH = 10**9  # past any real text; keeps min_length/max_length inside SQLite's integers
RECENT_TEXTS = 10  # /activity-summary's recent_texts: the first of its key texts
HEALTH_STALE_S = 300  # /health calls capture stale when no frame came for this long
RECENT_CAPTURE_S = 600
CONTEXT_NEIGHBOURS = 5

# Kinds answered with OCR results, and kinds MyRecall does not capture (200 with no data).
OCR_KINDS = {"all", "ocr", "audio+ocr", "ocr+audio", "ocr+ui", "ui+ocr"}
UNCAPTURED_KINDS = {"audio", "input", "accessibility", "ui", "memory", "parsed", "audio+ui", "ui+audio"}

router = Router(tags=["screenpipe"])


# ---- reading screenpipe's parameters ----

# "+02:00" sent unencoded in a query string arrives as " 02:00".
_OFFSET_AS_SPACE = re.compile(r"(.*[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?) (\d{2}(?::?\d{2})?)")


def _instant(name: str, value: str | None) -> float | None:
    """Epoch seconds from screenpipe's time forms: ISO 8601 with an offset or Z, "now", or
    "<n><unit> ago" (s, m, h, d, w; "ago" optional). None when not given."""
    value = (value or "").strip()
    if not value:
        return None
    return instant_parse(_OFFSET_AS_SPACE.sub(r"\1+\2", value), zone=None, name=name, epoch=False)


def _flag(name: str, value: str | None) -> bool | None:
    """screenpipe's lenient booleans: true/false, 1/0, yes/no, on/off; empty means not given."""
    value = (value or "").strip().lower()
    if not value:
        return None
    if value in {"true", "1", "yes", "on"}:
        return True
    if value in {"false", "0", "no", "off"}:
        return False
    raise ApplicationError(f"{name} must be true or false.", extra={"field": name})


def _count(name: str, value: int | None, *, default: int | None = None) -> int | None:
    if value is None:
        return default
    if value < 0:
        raise ApplicationError(f"{name} must be 0 or more.", extra={"field": name})
    return value


def _words(text: str) -> list[str]:
    """Words as screenpipe's FTS index (SQLite's unicode61) sees them: runs of letters and
    digits, with letter case and accents folded."""
    folded = unicodedata.normalize("NFKD", text.casefold())
    return re.findall(r"[^\W_]+", "".join(c for c in folded if not unicodedata.combining(c)))


def _has_run(words: list[str], run: list[str]) -> bool:
    return any(words[i : i + len(run)] == run for i in range(len(words) - len(run) + 1))


def apps_matching(app_name: str) -> tuple[str, ...]:
    """The known apps that app_name names the way screenpipe matches it: each space-separated
    part is a word (or, like "zoom.us", a run of words) of the app's name, in any letter case.
    "Chrome" finds "Google Chrome"; "Chro" finds nothing."""
    parts = [words for part in app_name.split() if (words := _words(part))]
    if not parts:
        return ()
    return tuple(app for app in frame_selectors.app_names() if all(_has_run(_words(app), part) for part in parts))


def _truncate_middle(text: str, max_chars: int | None) -> str:
    """screenpipe's max_content_length: the first and last halves around a marker; 0 keeps all."""
    if not max_chars or len(text) <= max_chars:
        return text
    head = max_chars // 2
    tail = max_chars - head
    return f"{text[:head]}...(truncated {len(text) - max_chars} chars)...{text[len(text) - tail:]}"


def _iso(at: datetime | None) -> str | None:
    return None if at is None else at.astimezone(dt_timezone.utc).isoformat().replace("+00:00", "Z")


# ---- routes ----


@router.get("/search", response={200: SearchOut, 400: ErrorOut, 401: ErrorOut}, summary="screenpipe's search")
def search(request: HttpRequest, params: Query[SearchParams]):
    kind = (params.content_type or "all").strip().lower()
    if kind not in OCR_KINDS | UNCAPTURED_KINDS:
        raise ApplicationError(
            f"Unknown content_type {params.content_type!r}.",
            extra={"field": "content_type", "accepted": sorted(OCR_KINDS | UNCAPTURED_KINDS)},
        )
    start = _instant("start_time", params.start_time)
    end = _instant("end_time", params.end_time)
    limit = min(_count("limit", params.limit, default=DEFAULT_LIMIT), MAX_LIMIT)
    offset = _count("offset", params.offset, default=0)
    max_content_length = _count("max_content_length", params.max_content_length)
    include_frames = _flag("include_frames", params.include_frames)
    app_name = (params.app_name or "").strip()
    filters = filters_parse(
        start_time=0.0 if start is None else start,
        end_time=end,
        window_name=params.window_name,
        browser_url=params.browser_url,
        focused=_flag("focused", params.focused),
        min_length=None if params.min_length is None else min(params.min_length, MAX_TEXT_LENGTH),
        max_length=None if params.max_length is None else min(params.max_length, MAX_TEXT_LENGTH),
        apps=apps_matching(app_name) if app_name else None,
    )
    if kind in UNCAPTURED_KINDS:
        return {"data": [], "pagination": {"limit": limit, "offset": offset, "total": 0}}
    beyond = limit == 0 or offset > MAX_OFFSET  # only the total is wanted, or none of the hits exist
    # screenpipe's /search is a keyword search (every word must match), whatever this server's
    # default mode: its clients and skills expect it so.
    result = search_run(
        q=params.q or "", filters=filters, mode="keyword", limit=1 if beyond else limit, offset=0 if beyond else offset
    )
    hits = [] if beyond else result.hits
    sources = frame_selectors.frames_sources(frame_ids=[hit.frame_id for hit in hits])
    data = []
    for number, hit in enumerate(hits):
        device_name, image_path = sources.get(hit.frame_id, ("", ""))
        image = storage.image_location(image_path) if image_path else None
        frame = None
        if include_frames and number < MAX_INLINE_FRAMES and image_path:
            try:
                frame = base64.b64encode(storage.image_bytes(image_path)).decode()
            except storage.ImageMissing:
                pass
        data.append(
            {
                "type": "OCR",
                "content": {
                    "frame_id": hit.frame_id,
                    "text": _truncate_middle(hit.text, max_content_length),
                    "timestamp": hit.timestamp,
                    "file_path": str(image) if image is not None else "",
                    "offset_index": 0,  # each frame is its own image file, not a frame of a video
                    "app_name": hit.app_name,
                    "window_name": hit.window_name,
                    "tags": [],
                    "frame": frame,
                    "frame_name": image_path or None,
                    "browser_url": hit.browser_url or None,
                    "focused": hit.focused,
                    "device_name": device_name,
                },
            }
        )
    return {"data": data, "pagination": {"limit": limit, "offset": offset, "total": result.total}}


def _frame(frame_id: int) -> Frame | None:
    """The frame, or None for an id no frame has; an id screenpipe could not read (past 64 bits) is a 400."""
    if frame_id not in FRAME_IDS:
        raise ApplicationError(
            "The frame id must be a whole number (a frame's id, as in /frames/123/ocr).", extra={"field": "frame_id"}
        )
    try:
        return frame_selectors.frame_get(frame_id=frame_id)
    except NotFound:
        return None


@router.get("/frames/{frame_id}/ocr", response={200: FrameOcrOut, 400: ErrorOut, 401: ErrorOut})
def frame_ocr(request: HttpRequest, frame_id: int):
    """The frame's text lines with their boxes as fractions of the screen (screenpipe's text_positions).
    A frame id no frame has gets no text, as in screenpipe."""
    frame = _frame(frame_id)
    if frame is None:
        return {"frame_id": frame_id, "text": "", "text_positions": []}
    ocr = frame_selectors.frame_ocr_get(frame=frame)
    width, height = max(frame.width, 1), max(frame.height, 1)
    return {
        "frame_id": frame.id,
        "text": ocr.text if ocr else "",
        "text_positions": [
            {
                "text": line["t"],
                "confidence": line.get("c", 1.0),
                "bounds": {
                    "left": round(line["b"][0] / width, 5),
                    "top": round(line["b"][1] / height, 5),
                    "width": round(line["b"][2] / width, 5),
                    "height": round(line["b"][3] / height, 5),
                },
            }
            for line in (ocr.lines if ocr else [])
        ],
    }


@router.get(
    "/frames/{frame_id}/metadata", response={200: FrameMetadataOut, 400: ErrorOut, 401: ErrorOut, 404: FrameNotFoundOut}
)
def frame_metadata(request: HttpRequest, frame_id: int):
    """What a screenpipe://frame/ID link resolves through: the frame's time, and its context."""
    frame = _frame(frame_id)
    if frame is None:
        return 404, frame_not_found_body(frame_id)
    return {
        "frame_id": frame.id,
        "timestamp": frame.timestamp,
        "app_name": frame.app_name,
        "window_name": frame.window_name,
        "browser_url": frame.browser_url or None,
        "focused": frame.focused,
        "device_name": frame.device_name,
    }


_URL_EDGES = "()[]<>{},.;:!?\"'"  # what text puts around an address


def _urls(frame: Frame, text: str) -> list[str]:
    """The frame's browser URL, then every web address in its text, once each."""
    found = [frame.browser_url] if frame.browser_url.startswith(("http://", "https://")) else []
    for word in text.split():
        word = word.strip(_URL_EDGES)
        if word.startswith(("http://", "https://")) and len(word) > 10 and word not in found:
            found.append(word)
    return found


def _brief(frame: Frame) -> dict:
    return {"frame_id": frame.id, "timestamp": frame.timestamp, "app_name": frame.app_name, "window_name": frame.window_name}


@router.get("/frames/{frame_id}/context", response={200: FrameContextOut, 400: ErrorOut, 401: ErrorOut})
def frame_context(request: HttpRequest, frame_id: int):
    """The frame's text and the web addresses in it (MyRecall reads no accessibility tree, so
    `nodes` is empty and `text_source` is "ocr"), with the frames just before and after it.
    A frame id no frame has gets no text and empty lists, as in screenpipe."""
    frame = _frame(frame_id)
    if frame is None:
        return {"frame_id": frame_id, "text": None, "nodes": [], "urls": [], "text_source": "ocr", "before": [], "after": []}
    ocr = frame_selectors.frame_ocr_get(frame=frame)
    text = ocr.text if ocr else ""
    earlier, later = frame_selectors.frame_context(frame=frame, before=CONTEXT_NEIGHBOURS, after=CONTEXT_NEIGHBOURS)
    return {
        "frame_id": frame.id,
        "text": text or None,
        "nodes": [],
        "urls": _urls(frame, text),
        "text_source": "ocr",
        "before": [_brief(f) for f in earlier],
        "after": [_brief(f) for f in later],
    }


@router.get("/activity-summary", response={200: ActivitySummaryOut, 400: ErrorOut, 401: ErrorOut})
def activity_summary(
    request: HttpRequest, start_time: str | None = None, end_time: str | None = None, app_name: str = "", q: str = ""
):
    """Minutes per app and per window over a range (both ends required), with a line of text
    from each window's latest screen. A frame counts for the time until its device's next
    frame, at most 5 minutes."""
    start, end = _instant("start_time", start_time), _instant("end_time", end_time)
    for name, value in (("start_time", start), ("end_time", end)):
        if value is None:
            raise ApplicationError(
                f"{name} is required (ISO 8601, or relative: start_time=1h ago&end_time=now).", extra={"field": name}
            )
    filters = filters_parse(start_time=start, end_time=end, allow_empty=False)
    apps = apps_matching(app_name) if app_name.strip() else None
    per_app, per_window = frame_selectors.frames_usage(
        start=filters.start, end=filters.end, apps=apps, gap_cap_s=ACTIVITY_GAP_CAP_S
    )
    q = q.strip()
    key_texts = [
        {"text": line, "app_name": app, "window_name": window, "timestamp": _iso(usage.last_seen)}
        for app, window, usage, line in key_texts_pick(per_window, q=q)
    ]
    total_frames = sum(usage.frame_count for usage in per_app.values())
    last_frame = frame_selectors.frame_last_timestamp()
    recent = last_frame is not None and time.time() - last_frame.timestamp() <= RECENT_CAPTURE_S
    if total_frames:
        data_status = "ok"
    elif last_frame is None:
        data_status = "not_recording"
    else:
        data_status = "empty_but_recording" if recent else "no_capture_in_range"
    return {
        "apps": [
            {
                "name": app,
                "frame_count": usage.frame_count,
                "minutes": round(usage.seconds / 60, 1),
                "first_seen": _iso(usage.first_seen),
                "last_seen": _iso(usage.last_seen),
            }
            for app, usage in by_time_spent(per_app)[:ACTIVITY_APPS]
        ],
        "windows": [
            {
                "app_name": app,
                "window_name": window,
                "browser_url": usage.browser_url,
                "minutes": round(usage.seconds / 60, 1),
                "frame_count": usage.frame_count,
            }
            for (app, window), usage in by_time_spent(per_window)
            if len(window) >= 3
        ][:ACTIVITY_WINDOWS],
        "key_texts": key_texts,
        "recent_texts": [
            {"text": item["text"], "app_name": item["app_name"], "timestamp": item["timestamp"]}
            for item in key_texts[:RECENT_TEXTS]
        ],
        "edited_files": [],
        "audio_summary": {"segment_count": 0, "speakers": [], "top_transcriptions": []},
        "total_frames": total_frames,
        "time_range": {
            "start": filters.start.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "end": filters.end.strftime("%Y-%m-%dT%H:%M:%SZ"),
        },
        "data_status": data_status,
        "query_status": "not_requested" if not q else ("matched" if key_texts else "no_query_matches"),
        "recording": {
            "last_frame_at": _iso(last_frame),
            "last_audio_at": None,
            "frames_in_range": total_frames,
            "audio_segments_in_range": 0,
            "recent_capture": recent,
        },
    }


@router.get("/health", response={200: HealthOut, 401: ErrorOut})
def health(request: HttpRequest):
    """Whether frames are arriving. MyRecall captures no audio; a capture client sends the frames,
    so "stale" means none came for 5 minutes (is it running?). Always 200, as in screenpipe."""
    last = frame_selectors.frame_last_timestamp()
    if last is None:
        frame_status, problem = "not_started", "no frame has been received yet"
    elif time.time() - last.timestamp() < HEALTH_STALE_S:
        frame_status, problem = "ok", None
    else:
        ago = timedelta(seconds=round(time.time() - last.timestamp()))
        frame_status, problem = "stale", f"the last frame arrived {ago} ago"
    return {
        "status": "degraded" if problem else "healthy",
        "status_code": 503 if problem else 200,
        "last_frame_timestamp": last,
        "last_audio_timestamp": None,
        "frame_status": frame_status,
        "audio_status": "disabled",
        "message": f"some systems are not healthy: vision ({problem})" if problem else "all systems are functioning normally.",
        "verbose_instructions": "Check that the capture client is running and can reach this server." if problem else None,
        "device_status_details": None,
    }


# ---- the API at the root ----

api = NinjaAPI(
    title="MyRecall: screenpipe-compatible API",
    version="screenpipe",
    urls_namespace="screenpipe",
    auth=API_AUTH,
    docs_url=None,
    openapi_url=None,
)
api.add_router("/", router)
for _exc_class, _handler in main_api._exception_handlers.items():  # the one error shape of /api/v1
    api.add_exception_handler(_exc_class, _handler)

# Each route answers 401 in the error shape itself, so the login middleware lets it through; pages of
# other origins may call them with a token (screenpipe's browser SDK), never with the login cookie.
_patterns = [pattern for pattern in api.urls[0] if pattern.name != "api-root"]
for _pattern in _patterns:
    cross_origin_readable(login_not_required(_pattern.callback))
_api_search = next(pattern.callback for pattern in _patterns if str(pattern.pattern) == "search")
# Every route but /search, whose URL the search page shares (myrecall/urls.py gives it to search_or_page).
urls = [pattern for pattern in _patterns if str(pattern.pattern) != "search"]

_search_page = login_required(search_views.search_page)


def _wants_api(request: HttpRequest) -> bool:
    """A bearer token, or an Accept that leaves out text/html (curl, fetch and screenpipe's clients
    send */*), outside htmx: the API. A browser's navigation or htmx request: the page. No Accept
    at all accepts anything, the page too."""
    if request.headers.get("Authorization", "").lower().startswith("bearer "):
        return True
    if request.headers.get("HX-Request"):
        return False
    accept = request.headers.get("Accept")
    return accept is not None and "text/html" not in accept.lower()


@cross_origin_readable
@login_not_required  # each side authenticates: the API answers 401, the page sends strangers to log in
@require_GET
def search_or_page(request: HttpRequest):
    response = _api_search(request) if _wants_api(request) else _search_page(request)
    patch_vary_headers(response, ("Accept", "Authorization", "HX-Request"))
    return response
