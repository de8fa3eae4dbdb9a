"""Shapes a day of frames for the timeline: app segments, buckets of thumbnails and
active minutes per app per hour. Pure functions over rows from the selectors."""

import hashlib
import logging
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from zoneinfo import ZoneInfo

from myrecall.timezones import duration_short

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
    frame_ts: float  # the time of its first frame, which the card shows
    frame_id: int
    app_name: str
    window_name: str
    frames: int
    apps: list[str] = field(default_factory=list)


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
    out: dict[int, Bucket] = {}
    for row in rows:
        key = int((row["ts"] - start) // bucket_s)
        bucket = out.get(key)
        if bucket is None:
            out[key] = Bucket(
                start=start + key * bucket_s,
                frame_ts=row["ts"],
                frame_id=row["id"],
                app_name=row["app_name"],
                window_name=row["window_name"],
                frames=1,
                apps=[row["app_name"]],
            )
        else:
            bucket.frames += 1
            if row["app_name"] not in bucket.apps:
                bucket.apps.append(row["app_name"])
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
    last: float  # its newest frame's time
    ago: str  # how long before now, "12 s"
    silent: bool  # it captured today but has sent nothing for a while


def devices_status(*, devices: list[tuple[str, float]], now: float, today_start: float, silent_after_s: float) -> list[Device]:
    """The capturing devices for the timeline. Silent: a frame today, none in the last
    silent_after_s; a device that stopped before today (left off overnight) is not."""
    return [
        Device(
            name=name,
            last=last,
            ago=duration_short(now - last),
            silent=last >= today_start and now - last > silent_after_s,
        )
        for name, last in devices
    ]


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
