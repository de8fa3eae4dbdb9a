"""How much disk the memory takes, by part and by day, and what keeping fewer days would free:
the settings page and GET /api/v1/status show it.

Apps take part through one hook: `space_part_register(name, label, measure)`, where
measure(zone) returns a Part: the bytes the app's files or tables take in all, and, when it
knows them, the bytes of each local day (images are counted frame by frame). This module
measures the database file itself. A part that cannot say its days (the database, the vector
index) is shared among the days by their frames: those figures are estimates, and say so.

The report is kept for CACHE_S seconds per process: at a million frames it reads every frame's
row once (a sum by hour).
"""

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import connection

CACHE_S = 60.0
KEEP_CHOICES = (7, 30, 90, 365)


@dataclass
class Part:
    bytes: int
    by_day: dict[date, int] | None = None  # exact bytes of each local day, when the part knows them
    frames_by_day: dict[date, int] | None = None  # the frames part alone says how many frames a day has


@dataclass(frozen=True)
class _Registered:
    name: str
    label: str
    measure: Callable[[ZoneInfo], Part]


@dataclass
class DaySpace:
    day: date
    frames: int
    bytes: int
    exact: dict[str, int] = field(default_factory=dict)


_parts: list[_Registered] = []
_cache: dict[str, tuple[float, dict]] = {}
_cache_lock = threading.Lock()


def space_part_register(name: str, label: str, measure: Callable[[ZoneInfo], Part]) -> None:
    if all(part.name != name for part in _parts):
        _parts.append(_Registered(name, label, measure))


def tree_bytes(path: Path) -> int:
    """Bytes of the files under path (0 when it does not exist)."""
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except FileNotFoundError:
                continue  # removed while counted
    return total


def database_part(zone: ZoneInfo) -> Part:
    """The database: its file and write-ahead log (SQLite), or what the server says it holds."""
    with connection.cursor() as cursor:
        if connection.vendor != "sqlite":
            cursor.execute("SELECT pg_database_size(current_database())")
            return Part(bytes=int(cursor.fetchone()[0]))
        cursor.execute("PRAGMA page_count")
        pages = cursor.fetchone()[0]
        cursor.execute("PRAGMA page_size")
        total = pages * cursor.fetchone()[0]
    wal = Path(f"{settings.DATABASES['default']['NAME']}-wal")
    return Part(bytes=total + (wal.stat().st_size if wal.is_file() else 0))


def _measure(zone: ZoneInfo) -> dict:
    parts = [("database", "Database (frames, text, keyword index)", database_part(zone))]
    parts += [(item.name, item.label, item.measure(zone)) for item in _parts]
    frames_by_day: dict[date, int] = {}
    for _, _, part in parts:
        if part.frames_by_day:
            frames_by_day = part.frames_by_day
    frames_total = sum(frames_by_day.values())
    days = {day: DaySpace(day=day, frames=count, bytes=0) for day, count in frames_by_day.items()}
    for name, _, part in parts:
        if part.by_day is not None:
            for day, size in part.by_day.items():
                entry = days.setdefault(day, DaySpace(day=day, frames=0, bytes=0))
                entry.exact[name] = size
                entry.bytes += size
        elif frames_total:
            for entry in days.values():
                entry.bytes += round(part.bytes * entry.frames / frames_total)
    return {
        "total_bytes": sum(part.bytes for _, _, part in parts),
        "parts": [
            {"name": name, "label": label, "bytes": part.bytes, "per_day": "exact" if part.by_day is not None else "estimated"}
            for name, label, part in parts
        ],
        "frames": frames_total,
        "days": [days[day] for day in sorted(days, reverse=True)],
    }


def space_report(*, zone: ZoneInfo, fresh: bool = False) -> dict:
    """{total_bytes, parts: [{name, label, bytes, per_day}], frames, days: [DaySpace, newest
    first], measured_at}: what each part takes, and each local day (exact for parts that count
    their days, a share by frames for the others)."""
    key = f"{zone.key}|{settings.DATA_DIR}"
    with _cache_lock:
        cached = _cache.get(key)
        if cached and not fresh and time.monotonic() - cached[0] < CACHE_S:
            return cached[1]
    report = _measure(zone) | {"measured_at": datetime.now(tz=zone)}
    with _cache_lock:
        _cache[key] = (time.monotonic(), report)
    return report


def space_parts_bytes(*, zone: ZoneInfo, names: tuple[str, ...]) -> int:
    """The bytes the named parts take now, measured as the report measures them (never cached):
    what a deletion gave back, in the figures the settings page shows."""
    return sum(item.measure(zone).bytes for item in _parts if item.name in names)


def space_forget() -> None:
    """Measure again on the next report (after a deletion, say)."""
    with _cache_lock:
        _cache.clear()


def retention_frees(report: dict, *, days: int, today: date) -> int:
    """Bytes that keeping only the last `days` days (today included) would give back."""
    first_kept = today - timedelta(days=days - 1)
    return sum(entry.bytes for entry in report["days"] if entry.day < first_kept)


def space_summary(*, zone: ZoneInfo, fresh: bool = False) -> dict:
    """space_report plus what the retention set (RETENTION_DAYS) and each of KEEP_CHOICES would
    free; days as {day, frames, bytes, images_bytes}, the newest first."""
    report = space_report(zone=zone, fresh=fresh)
    today = report["measured_at"].date()
    retention = settings.RETENTION_DAYS or None
    return {
        "total_bytes": report["total_bytes"],
        "frames": report["frames"],
        "measured_at": report["measured_at"],
        "parts": report["parts"],
        "days": [
            {"day": entry.day, "frames": entry.frames, "bytes": entry.bytes, "images_bytes": entry.exact.get("images", 0)}
            for entry in report["days"]
        ],
        "retention": {
            "days": retention,
            "frees_bytes": retention_frees(report, days=retention, today=today) if retention else 0,
        },
        "if_kept": [{"days": days, "frees_bytes": retention_frees(report, days=days, today=today)} for days in KEEP_CHOICES],
    }


# Compaction: rows written in an older, larger form, rewritten in place in the background ------


@dataclass(frozen=True)
class Compaction:
    """Rows an app stores more compactly now than it did: `remaining()` counts those left (for
    a progress bar; may scan), `pending()` says cheaply whether any is, `step(n)` rewrites up to n
    of them in one transaction and returns how many it rewrote (0: none left)."""

    name: str
    label: str
    remaining: Callable[[], int]
    pending: Callable[[], bool]
    step: Callable[[int], int]
    unit: str = "row"
    background: bool = True  # False: only `manage.py compact` does it (work the worker should not take on unasked)


_compactions: list[Compaction] = []


def compaction_register(compaction: Compaction) -> None:
    if all(item.name != compaction.name for item in _compactions):
        _compactions.append(compaction)


def compactions() -> list[Compaction]:
    return list(_compactions)


def compaction_pending() -> bool:
    """Whether the worker has rows to rewrite in the background."""
    return any(item.pending() for item in _compactions if item.background)


def compaction_run(*, budget_s: float, batch: int = 500) -> tuple[int, bool]:
    """Rewrite rows for about budget_s seconds; returns (rows rewritten, whether any are left)."""
    done = 0
    deadline = time.monotonic() + budget_s
    for item in _compactions:
        if not item.background:
            continue
        while time.monotonic() < deadline:
            count = item.step(batch)
            done += count
            if not count:
                break
        if time.monotonic() >= deadline:
            return done, compaction_pending()
    return done, compaction_pending()


def compaction_run_all(*, batch: int = 1000, progress: Callable[[Compaction, int, int], None] | None = None) -> dict[str, int]:
    """Rewrite every row left in an older form, compaction by compaction; progress(compaction,
    done, total) after each batch. Returns the rows rewritten per compaction. Stopped midway, it
    goes on where it was when run again (rows in the compact form are not looked at twice)."""
    counts = {}
    for item in _compactions:
        total = item.remaining()
        done = 0
        if progress:
            progress(item, done, total)
        while count := item.step(batch):
            done += count
            if progress:
                progress(item, done, max(total, done))
        counts[item.name] = done
    return counts
