"""The user's timezone: the browser names it (IANA, in the `tz` cookie or a `tz`
parameter); the server filters by absolute time and renders local times in it."""

from datetime import date, datetime, time, timedelta
from urllib.parse import unquote
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.http import HttpRequest

TZ_COOKIE = "tz"
DEFAULT_TZ = "UTC"


def timezone_parse(name: str | None) -> ZoneInfo | None:
    if not name:
        return None
    name = unquote(name)  # the cookie holds it URL-encoded ("Asia%2FShanghai")
    if len(name) > 64:
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def request_timezone(request: HttpRequest) -> ZoneInfo:
    for name in (request.GET.get("tz"), request.COOKIES.get(TZ_COOKIE)):
        if zone := timezone_parse(name):
            return zone
    return ZoneInfo(DEFAULT_TZ)


def day_bounds(day: date, zone: ZoneInfo) -> tuple[float, float]:
    """Epoch seconds of the local day's first instant and of the next day's (DST-safe)."""
    start = datetime.combine(day, time.min, tzinfo=zone)
    end = datetime.combine(day + timedelta(days=1), time.min, tzinfo=zone)
    return start.timestamp(), end.timestamp()


def duration_short(seconds: float) -> str:
    """How long, in the one unit that reads best: "12 s", "7 min", "3 h"."""
    if seconds < 60:
        return f"{max(int(seconds), 0)} s"
    minutes = int(seconds // 60)
    return f"{minutes} min" if minutes < 120 else f"{minutes // 60} h"


def local_time(epoch_or_dt: float | datetime, zone: ZoneInfo) -> datetime:
    if isinstance(epoch_or_dt, datetime):
        return epoch_or_dt.astimezone(zone)
    return datetime.fromtimestamp(epoch_or_dt, tz=zone)
