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
from frames.views import bad_request
from myrecall.errors import ApplicationError
from myrecall.timezones import local_time, request_timezone
from search.filters import filters_parse
from search.hybrid import MODES, search_run
from search.snippets import snippet_html

PAGE_SIZE = 20
# Far past any real result count, and keeps the SQL offset inside SQLite's integers.
MAX_PAGE = 1_000_000
DEFAULT_RANGE = timedelta(days=7)


def _range(request: HttpRequest, zone) -> tuple[float, float]:
    """Epoch seconds from start_time/end_time (sent by the page's script), else from the
    local start/end fields read in the user's timezone; the last 7 days by default."""
    bounds = []
    for epoch_name, local_name, default in (
        ("start_time", "start", time.time() - DEFAULT_RANGE.total_seconds()),
        ("end_time", "end", time.time()),
    ):
        epoch, local = request.GET.get(epoch_name), request.GET.get(local_name)
        if epoch:
            bounds.append(_instant(float(epoch), zone))
        elif local:
            bounds.append(_instant(datetime.fromisoformat(local).replace(tzinfo=zone).timestamp(), zone))
        else:
            bounds.append(default)
    return bounds[0], bounds[1]


def _instant(value: float, zone) -> float:
    """value, if the search and the page can show it: NaN, infinity and times outside the
    years 1-9999 (in UTC or locally) raise ValueError, OverflowError or OSError here."""
    datetime.fromtimestamp(value, tz=dt_timezone.utc)
    local_time(value, zone)
    return value


@require_GET
@vary_on_headers("HX-Target")  # so the browser never shows the cached #results partial as the page
def search_page(request: HttpRequest):
    zone = request_timezone(request)
    q = request.GET.get("q", "").strip()
    app = request.GET.get("app", "").strip()
    mode = request.GET.get("mode", "").strip() or settings.SEARCH_MODE
    if mode not in MODES:
        return bad_request(request, f"Unknown search mode {mode!r}: use hybrid, keyword or semantic.")
    try:
        start, end = _range(request, zone)
        page = max(1, int(request.GET.get("page") or 1))
        if page > MAX_PAGE:
            raise ValueError(f"page {page} is too far")
    except (ValueError, OverflowError, OSError):
        return bad_request(request, "The time range or page is not valid.")
    if end < start:
        return bad_request(request, "The end of the range is before its start.")
    end_chosen = bool(request.GET.get("end_time") or request.GET.get("end"))
    message = degraded = ""
    hits, total = [], 0
    try:
        filters = filters_parse(start_time=start, end_time=end, app_name=app)
        result = search_run(q=q, filters=filters, mode=mode, limit=PAGE_SIZE, offset=(page - 1) * PAGE_SIZE)
        hits, total, degraded = result.hits, result.total, result.degraded or ""
    except ApplicationError as exc:
        message = exc.message
    context = {
        "q": q,
        "app": app,
        "apps": app_names(),
        "zone": zone.key,
        "start_local": local_time(start, zone).strftime("%Y-%m-%dT%H:%M"),
        # Empty unless chosen: the range then ends when the form is sent, not when it was shown.
        "end_local": local_time(end, zone).strftime("%Y-%m-%dT%H:%M") if end_chosen else "",
        "start_time": start,
        "end_time": end,
        "message": message,
        "degraded": degraded,
        "mode": mode,
        "modes": [("hybrid", "Words and meaning"), ("keyword", "Words only"), ("semantic", "Meaning only")],
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
                "snippet": snippet_html(text=hit.text, q=q if "keyword" in hit.matched or not q else ""),
                "by_words": "keyword" in hit.matched,
                "by_meaning": "semantic" in hit.matched,
            }
            for hit in hits
        ],
    }
    template = "search/search.html#results" if request.headers.get("HX-Target") == "results" else "search/search.html"
    return render(request, template, context)
