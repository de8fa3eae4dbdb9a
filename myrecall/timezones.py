"""The user's timezone: the browser names it (IANA, in the `tz` cookie or a `tz`
parameter); the server filters by absolute time and renders local times in it."""

import os
import re
import time as clock
from datetime import date, datetime, time, timedelta
from functools import cache
from pathlib import Path
from urllib.parse import unquote
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from django.http import HttpRequest

from myrecall.errors import ApplicationError

TZ_COOKIE = "tz"
DEFAULT_TZ = "UTC"


@cache
def zone_names() -> frozenset[str]:
    """Every IANA timezone name this machine knows."""
    return frozenset(available_timezones())


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


@cache
def machine_timezone() -> ZoneInfo:
    """This machine's timezone (TZ, else /etc/localtime's zone name, else UTC): the user's, for
    callers that name none (an assistant over MCP runs on the user's machine)."""
    name = os.environ.get("TZ", "").lstrip(":")
    if not name:
        try:
            name = str(Path("/etc/localtime").resolve()).split("/zoneinfo/", 1)[1]
        except (OSError, IndexError):
            name = ""
        if not name and Path("/etc/timezone").is_file():
            name = Path("/etc/timezone").read_text().strip()
    return timezone_parse(name) or ZoneInfo(DEFAULT_TZ)


_UNITS = {
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), 1),
    **dict.fromkeys(("m", "min", "mins", "minute", "minutes"), 60),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), 3600),
    **dict.fromkeys(("d", "day", "days"), 86400),
    **dict.fromkeys(("w", "week", "weeks"), 7 * 86400),
}
_RELATIVE = re.compile(r"(\d+(?:\.\d+)?)\s*([a-z]+?)\s*(?:ago)?", re.IGNORECASE)
_DAYS_BACK = {"today": 0, "yesterday": 1}
_EPOCH = re.compile(r"\d{1,12}(?:\.\d+)?")
EPOCH_LAST = 253402300799.0  # 9999-12-31T23:59:59Z


def instant_parse(text: str, *, zone: ZoneInfo | None, name: str = "time", epoch: bool = True) -> float:
    """Epoch seconds from how people and assistants write a time: ISO 8601 (with an offset or Z;
    without one it is local time in `zone`, refused when zone is None), epoch seconds, "now", or
    "<n><unit> ago" (s, m, h, d, w; "ago" optional), or "today" and "yesterday" (the start of that
    local day, in `zone` or else this machine's). Raises ApplicationError naming `name`.
    With epoch=False a bare number is not a time (screenpipe's forms)."""
    value = text.strip()
    at = None
    if value.lower() == "now":
        at = clock.time()
    elif value.lower() in _DAYS_BACK:
        # The start of the local day (in `zone`, else this machine's: the user's).
        local = zone or machine_timezone()
        day = datetime.now(local).date() - timedelta(days=_DAYS_BACK[value.lower()])
        at = day_bounds(day, local)[0]
    elif epoch and _EPOCH.fullmatch(value):
        at = float(value)
    elif relative := _RELATIVE.fullmatch(value):
        unit = _UNITS.get(relative[2].lower())
        if unit is not None:
            at = clock.time() - float(relative[1]) * unit
    else:
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            parsed = None
        if parsed is not None and parsed.tzinfo is None:
            if zone is None:
                raise ApplicationError(f"{name} has no timezone; add an offset or Z (2024-01-15T10:00:00Z).", extra={"field": name})
            parsed = parsed.replace(tzinfo=zone)
        at = parsed.timestamp() if parsed is not None else None
    if at is None:
        raise ApplicationError(
            f"{name} is not a time: use ISO 8601 (2026-01-15T10:00:00+01:00, or local 2026-01-15T10:00), epoch seconds, "
            "or a relative time (16h ago, 2d ago, now, today, yesterday).",
            extra={"field": name, "value": value[:100]},
        )
    if not 0 <= at <= EPOCH_LAST:
        raise ApplicationError(f"{name} is before 1970 or after 9999.", extra={"field": name, "value": value[:100]})
    return at
