"""Shapes a day of frames for the timeline: app segments, buckets of thumbnails and
active minutes per app per hour. Pure functions over rows from the selectors (it loads no model:
app colours are computed in processes without Django set up)."""

from __future__ import annotations

import hashlib
import logging
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from myrecall.timezones import duration_short

if TYPE_CHECKING:
    from frames.selectors import DeviceSeen

logger = logging.getLogger(__name__)

# Two frames of one app further apart than this are two segments (the person was away).
SEGMENT_GAP_S = 300
# One thumbnail per bucket, never every frame: at most 288 cards for a day and 240 for an
# hour whatever the capture rate; the viewer's previous/next reaches every frame.
DAY_BUCKET_S = 300
HOUR_BUCKET_S = 15


def app_color(app_name: str) -> str:
    """A stable colour per app, the same on every page and every day."""
    digest = hashlib.sha1((app_name or "?").encode()).digest()
    hue = int.from_bytes(digest[:2], "big") % 360
    return f"hsl({hue} 62% 52%)"


@dataclass
class Segment:
    app_name: str
    start: float
    end: float
    first_frame_id: int
    frames: int
    left_pct: float = 0.0
    width_pct: float = 0.0
    color: str = ""


@dataclass
class Bucket:
    start: float  # the bucket's start on the axis
    frame_ts: float  # the time of the frame the card shows (see buckets)
    frame_id: int
    app_name: str
    window_name: str
    frames: int
    apps: list[str] = field(default_factory=list)
    text_length: int = 0  # of the frame shown: the characters read on it


def app_segments(*, rows: list[dict], start: float, end: float, frame_interval_s: float = 3.0) -> list[Segment]:
    """Consecutive frames of one app, merged into spans placed on the [start, end) axis."""
    segments: list[Segment] = []
    for row in rows:
        ts = row["ts"]
        last = segments[-1] if segments else None
        if last and last.app_name == row["app_name"] and ts - last.end <= SEGMENT_GAP_S:
            last.end = ts
            last.frames += 1
        else:
            segments.append(Segment(app_name=row["app_name"], start=ts, end=ts, first_frame_id=row["id"], frames=1))
    span = max(end - start, 1.0)
    for seg in segments:
        seg.left_pct = round((seg.start - start) / span * 100, 3)
        # A lone frame still shows as a sliver: it stands for about one capture interval.
        seg.width_pct = round(max(seg.end - seg.start + frame_interval_s, span * 0.001) / span * 100, 3)
        seg.color = app_color(seg.app_name)
    return segments


def buckets(*, rows: list[dict], start: float, bucket_s: float) -> list[Bucket]:
    """The frames in slots of bucket_s seconds from start, oldest first. Each slot is shown by the
    frame with the most text read on it (the earliest of those): a blank page or a screen not yet
    read says least about the slot; with no text read anywhere in it, its first frame."""
    out: dict[int, Bucket] = {}
    for row in rows:
        key = int((row["ts"] - start) // bucket_s)
        bucket = out.get(key)
        text_length = row.get("text_length") or 0
        if bucket is None:
            out[key] = Bucket(
                start=start + key * bucket_s,
                frame_ts=row["ts"],
                frame_id=row["id"],
                app_name=row["app_name"],
                window_name=row["window_name"],
                frames=1,
                apps=[row["app_name"]],
                text_length=text_length,
            )
            continue
        bucket.frames += 1
        if row["app_name"] not in bucket.apps:
            bucket.apps.append(row["app_name"])
        if text_length > bucket.text_length:
            bucket.frame_ts, bucket.frame_id, bucket.text_length = row["ts"], row["id"], text_length
            bucket.app_name, bucket.window_name = row["app_name"], row["window_name"]
    return [out[key] for key in sorted(out)]


def local_clocks(*, rows: list[dict], zone: ZoneInfo) -> list[tuple[int, int]]:
    """Local (hour, minute) of each row."""
    # Zone offsets are whole minutes, so each UTC minute is converted once rather than each frame.
    by_minute: dict[int, tuple[int, int]] = {}
    clocks = []
    for row in rows:
        minute = int(row["ts"] // 60)
        clock = by_minute.get(minute)
        if clock is None:
            local = datetime.fromtimestamp(minute * 60, tz=zone)
            clock = by_minute[minute] = (local.hour, local.minute)
        clocks.append(clock)
    return clocks


def active_minutes(*, rows: list[dict], zone: ZoneInfo) -> dict[str, list[int]]:
    """Minutes in each local hour (0-23) in which an app had at least one frame."""
    minutes: dict[str, set[tuple[int, int]]] = defaultdict(set)
    for row, clock in zip(rows, local_clocks(rows=rows, zone=zone)):
        minutes[row["app_name"]].add(clock)
    per_app = {}
    for app, seen in minutes.items():
        hours = [0] * 24
        for hour, _ in seen:
            hours[hour] += 1
        per_app[app] = hours
    return dict(sorted(per_app.items(), key=lambda item: -sum(item[1])))


@dataclass
class Device:
    name: str
    last: float | None  # its newest frame's time; None without one in the last day
    summary: str  # what the device line says after its name: "capturing · last frame 3 min ago (screen unchanged since)"
    silent: bool  # it captured today but nothing has been heard from it for a while
    quiet_for: str  # how long nothing has been heard from it, "7 min"
    reports: bool  # its capture client reports (else only its frames tell whether it runs)
    reported_ago: str | None  # how long since its client's latest report


def _client_said(report, has_frame: bool) -> tuple[str, list[str]]:
    """What a capture client's latest report says it is doing, and why no frame came if none did."""
    if report.paused:
        return "paused", []
    if report.locked:  # why, as the client says it: "the screen is locked (swaylock runs)"
        return f"not capturing: {report.locked}", [f"{report.spooled} frame(s) waiting to be sent"] if report.spooled else []
    details = [f"{report.spooled} frame(s) waiting to be sent"] if report.spooled else []
    if report.sent or not (report.unchanged or report.excluded):
        return "capturing", details
    if not report.unchanged:
        return "skipping an excluded window", details
    since = " since" if has_frame else ""
    why = "screen unchanged or excluded" if report.excluded else "screen unchanged"
    return "capturing", [why + since, *details]


def devices_status(*, devices: list[DeviceSeen], now: float, today_start: float, silent_after_s: float) -> list[Device]:
    """The capturing devices for the timeline. A device whose capture client reported within
    silent_after_s (or two of its report periods, if longer) runs, whether or not it sent a frame,
    and its line says what the client is doing. Silent: heard from today (a frame or a report),
    not in the last silent_after_s; a device that stopped before today (left off overnight) is not."""
    shown = []
    for seen in devices:
        last = seen.last_frame.timestamp() if seen.last_frame else None
        report = seen.report
        heard = report.received_at.timestamp() if report else None
        latest = max(t for t in (last, heard) if t is not None)
        frame_part = f"last frame {duration_short(now - last)} ago" if last is not None else "no frame in the last day"
        if report and report.stopped and (last is None or last <= heard):
            # Its client said it ended (Ctrl-C, the session closed): no warning for a stop that was meant.
            summary, silent = f"capture stopped {duration_short(now - heard)} ago ({report.stopped}) · {frame_part}", False
        elif report and now - heard <= max(silent_after_s, 2 * report.period_s):
            state, details = _client_said(report, has_frame=last is not None)
            summary, silent = f"{state} · {frame_part}" + (f" ({'; '.join(details)})" if details else ""), False
        else:
            silent = latest >= today_start and now - latest > silent_after_s
            summary = f"not heard from for {duration_short(now - latest)} · {frame_part}" if silent and report else frame_part
        shown.append(
            Device(
                name=seen.name,
                last=last,
                summary=summary,
                silent=silent,
                quiet_for=duration_short(now - latest),
                reports=report is not None,
                reported_ago=duration_short(now - heard) if report else None,
            )
        )
    return shown


# Lines shown above the timeline when something needs the user's eye (indexing far behind, search
# by meaning down), from the apps after frames: each provider returns a line or None.
notice_providers: list = []


def timeline_notice_register(provider) -> None:
    if provider not in notice_providers:
        notice_providers.append(provider)


def timeline_notices() -> list[str]:
    notices = []
    for provider in notice_providers:
        try:
            line = provider()
        except Exception:  # a notice must never take the timeline down
            logger.exception("timeline notice %s failed", provider)
            continue
        if line:
            notices.append(line)
    return notices
