import re
import time
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

from django.conf import settings
from django.http import HttpRequest
from django.shortcuts import render
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from frames.selectors import app_names
from frames.timeline import app_color
from myrecall.errors import ApplicationError
from myrecall.timezones import local_time, request_timezone
from search.filters import filters_parse
from search.hybrid import MODES, search_run
from search.snippets import excerpt_html

PAGE_SIZE = 20
# Far past any real result count, and keeps the SQL offset inside SQLite's integers.
MAX_PAGE = 1_000_000
DEFAULT_RANGE = timedelta(days=7)
# The From and To fields: a 24-hour local time whatever the browser's locale (a datetime-local
# input shows 2:30 PM in an English one). A "T" between date and time, as older links have, is taken too.
LOCAL_FORMAT = "%Y-%m-%d %H:%M"
LOCAL_TIME = re.compile(r"(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2})(?::\d{2})?")
FIELD_LABELS = {"start": "From", "end": "To"}
MODE_LABELS = [("hybrid", "Words and meaning"), ("keyword", "Words only"), ("semantic", "Meaning only")]


class _Invalid(Exception):
    """A field of the search form that cannot be used: `field` is its name, `message` says why."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field, self.message = field, message


def _bound(request: HttpRequest, zone, local_name: str, epoch_name: str, default: float) -> float:
    """Epoch seconds from `epoch_name` (sent by the page's script), else from the local field
    read in the user's timezone, else `default`."""
    label = FIELD_LABELS[local_name]
    epoch, local = request.GET.get(epoch_name, "").strip(), request.GET.get(local_name, "").strip()
    if epoch:
        try:
            return _instant(float(epoch), zone)
        except (ValueError, OverflowError, OSError):
            raise _Invalid(local_name, f"“{label}” is not a time a search can use ({epoch_name}={epoch[:40]}).") from None
    if not local:
        return default
    match = LOCAL_TIME.fullmatch(local)
    try:
        parsed = datetime.fromisoformat(f"{match[1]} {match[2]}") if match else None
    except ValueError:
        parsed = None
    if parsed is None:
        raise _Invalid(
            local_name, f"“{label}”: “{local[:40]}” is not a date and time. Write it as YYYY-MM-DD HH:MM, 24-hour (2024-05-06 14:30)."
        )
    try:
        return _instant(parsed.replace(tzinfo=zone).timestamp(), zone)
    except (ValueError, OverflowError, OSError):
        raise _Invalid(local_name, f"“{label}”: {local} is outside the times a search can cover.") from None


def _instant(value: float, zone) -> float:
    """value, if the search and the page can show it: NaN, infinity and times outside the
    years 1-9999 (in UTC or locally) raise ValueError, OverflowError or OSError here."""
    datetime.fromtimestamp(value, tz=dt_timezone.utc)
    local_time(value, zone)
    return value


def _page(request: HttpRequest) -> int:
    try:
        page = max(1, int(request.GET.get("page") or 1))
    except ValueError:
        page = None
    if page is None or page > MAX_PAGE:
        raise _Invalid("page", f"The page must be a whole number from 1 to {MAX_PAGE:,}.")
    return page


@require_GET
@vary_on_headers("HX-Target")  # so the browser never shows the cached #results partial as the page
def search_page(request: HttpRequest):
    """The search form and its results. A field that cannot be used is named above the results
    (status 400), with the form as it was sent, so it can be corrected there."""
    zone = request_timezone(request)
    q = request.GET.get("q", "").strip()
    app = request.GET.get("app", "").strip()
    mode = request.GET.get("mode", "").strip() or settings.SEARCH_MODE
    now = time.time()
    context = {
        "q": q,
        "app": app,
        "apps": app_names(),
        "mode": mode,
        "modes": MODE_LABELS,
        "start_local": request.GET.get("start", "").strip(),
        "end_local": request.GET.get("end", "").strip(),
        "results": [],
        "total": 0,
        "page": 1,
    }
    try:
        if mode not in MODES:
            raise _Invalid("mode", f"Unknown match {mode[:40]!r}: use hybrid, keyword or semantic.")
        start = _bound(request, zone, "start", "start_time", now - DEFAULT_RANGE.total_seconds())
        end = _bound(request, zone, "end", "end_time", now)
        if end < start:
            raise _Invalid("end", "“To” is before “From”.")
        page = _page(request)
    except _Invalid as exc:
        return _render(request, {**context, "invalid": exc.field, "message": exc.message}, status=400)
    end_chosen = bool(request.GET.get("end_time", "").strip() or context["end_local"])
    message = degraded = ""
    hits, total = [], 0
    try:
        filters = filters_parse(start_time=start, end_time=end, app_name=app)
        result = search_run(q=q, filters=filters, mode=mode, limit=PAGE_SIZE, offset=(page - 1) * PAGE_SIZE)
        hits, total, degraded = result.hits, result.total, result.degraded or ""
    except ApplicationError as exc:
        message = exc.message
    context |= {
        "start_local": local_time(start, zone).strftime(LOCAL_FORMAT),
        # Empty unless chosen: the range then ends when the form is sent, not when it was shown.
        "end_local": local_time(end, zone).strftime(LOCAL_FORMAT) if end_chosen else "",
        "start_time": start,
        "end_time": end,
        "message": message,
        "degraded": degraded,
        "total": total,
        "page": page,
        "has_next": page * PAGE_SIZE < total,
        "results": [
            {
                "frame_id": hit.frame_id,
                "local": local_time(hit.timestamp, zone),
                "app_name": hit.app_name,
                "window_name": hit.window_name,
                "color": app_color(hit.app_name),
                "snippet": excerpt_html(
                    text=hit.text,
                    q=q if "keyword" in hit.matched or not q else "",
                    passage=hit.passage if "keyword" not in hit.matched else None,
                ),
                "by_words": "keyword" in hit.matched,
                "by_meaning": "semantic" in hit.matched,
            }
            for hit in hits
        ],
    }
    return _render(request, context)


def _render(request: HttpRequest, context: dict, status: int = 200):
    template = "search/search.html#results" if request.headers.get("HX-Target") == "results" else "search/search.html"
    return render(request, template, context, status=status)
