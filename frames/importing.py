"""Import a folder of screenshots.

Each image's metadata comes from a sidecar JSON beside it (same stem + .json), else
from its file name (the names screenshot tools give), else from the file's mtime.
Files are ingested oldest first, so duplicate detection compares each screen with
the one really shown before it, and the path relative to the folder is the
client_frame_id, so a re-import stores nothing twice. Imported frames are read (OCR)
after what capture clients send live, so a large import never delays today's screens.
"""

import dataclasses
import json
import os
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, tzinfo
from datetime import timezone as dt_timezone
from hashlib import sha256
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from frames import services
from myrecall.errors import ApplicationError

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".webp"}
CLIENT_FRAME_ID_MAX = 255
SIDECAR_FIELDS = {"timestamp", "app_name", "window_name", "browser_url", "focused", "device_name"}

# Date, then time, as screenshot tools write them: 2026-11-22_14-03-05, 20261122-140305,
# "Screenshot 2026-11-22 at 14.03.05" (macOS, also "at 2.03.05 PM"),
# "Screenshot from 2026-11-22 14-03-05" (GNOME), Screenshot_20261122_140305 (Android),
# 2026-11-22T14:03:05+08:00; an offset or Z at the end makes the time absolute.
_NAME_DATETIME = re.compile(
    r"(?<!\d)(?P<year>(?:19|20)\d\d)(?P<dsep>[-_.]?)(?P<month>\d\d)(?P=dsep)(?P<day>\d\d)"
    r"(?:\s*at\s*|[ _T-]|)"
    r"(?P<hour>\d{1,2})(?P<tsep>[-_.:h]?)(?P<minute>\d\d)(?P=tsep)(?P<second>\d\d)"
    r"(?:[.,](?P<fraction>\d{1,6}))?"
    r"(?:\s*(?P<ampm>[AaPp])\.?[Mm]\.?)?"
    r"\s*(?P<offset>Z|UTC|[+-]\d\d:?\d\d)?"
    r"(?!\d)"
)
# 10 digits: epoch seconds (2001-2286); 13 digits: epoch milliseconds.
_NAME_EPOCH = re.compile(r"(?<!\d)(\d{13}|\d{10})(?!\d)")
_EARLIEST_EPOCH = 946684800.0  # 2000-01-01


@dataclass(frozen=True)
class ImportItem:
    path: Path
    relpath: str  # relative to the imported folder
    client_frame_id: str
    timestamp: float
    timestamp_source: str  # "sidecar" | "name" | "mtime"
    device_name: str
    app_name: str = ""
    window_name: str = ""
    browser_url: str = ""
    focused: bool | None = None


@dataclass(frozen=True)
class ImportFailure:
    file: str
    reason: str


@dataclass
class ImportSummary:
    created: int = 0
    existing: int = 0
    duplicates: int = 0
    failed: list[ImportFailure] = field(default_factory=list)
    timestamp_sources: Counter = field(default_factory=Counter)


def timezone_local() -> tzinfo:
    """The machine's zone, read from /etc/localtime: Django has already set this process's
    TZ to settings.TIME_ZONE, so the C library's local time is not the user's."""
    link = Path("/etc/localtime")
    try:
        target = str(link.resolve())
        if "zoneinfo/" in target:
            return ZoneInfo(target.split("zoneinfo/", 1)[1])
        with open(link, "rb") as fh:
            return ZoneInfo.from_file(fh, key="localtime")
    except (OSError, ValueError, ZoneInfoNotFoundError):
        return datetime.now().astimezone().tzinfo


def _offset_parse(text: str) -> tzinfo:
    if text in ("Z", "UTC"):
        return dt_timezone.utc
    sign = -1 if text[0] == "-" else 1
    digits = text[1:].replace(":", "")
    return dt_timezone(sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:])))


def _hour_24(hour: int, ampm: str | None) -> int:
    if not ampm:
        return hour
    if not 1 <= hour <= 12:
        raise ValueError("12-hour clock out of range")
    return hour % 12 + (12 if ampm.lower() == "p" else 0)


def name_timestamp_parse(name: str, *, tz: tzinfo) -> float | None:
    """Epoch seconds from a screenshot's file name, or None. A name without an offset is local time in tz."""
    for match in _NAME_DATETIME.finditer(name):
        parts = match.groupdict()
        try:
            moment = datetime(
                int(parts["year"]),
                int(parts["month"]),
                int(parts["day"]),
                _hour_24(int(parts["hour"]), parts["ampm"]),
                int(parts["minute"]),
                int(parts["second"]),
                int((parts["fraction"] or "0").ljust(6, "0")),
                tzinfo=_offset_parse(parts["offset"]) if parts["offset"] else tz,
            )
        except ValueError:  # e.g. month 13: not a date after all
            continue
        return moment.timestamp()
    latest = time.time() + 86400
    for match in _NAME_EPOCH.finditer(name):
        digits = match.group(1)
        value = int(digits) / (1000 if len(digits) == 13 else 1)
        if _EARLIEST_EPOCH <= value <= latest:
            return float(value)
    return None


def sidecar_timestamp_parse(value, *, tz: tzinfo) -> float:
    """A sidecar's timestamp: epoch seconds (number or numeric string) or ISO-8601 (local in tz without an offset)."""
    if isinstance(value, bool):
        raise ValueError(f"timestamp must be epoch seconds or ISO-8601, not {value!r}")
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            pass
        try:
            moment = datetime.fromisoformat(value.strip())
        except ValueError:
            raise ValueError(f"timestamp {value!r} is neither epoch seconds nor ISO-8601") from None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=tz)
        return moment.timestamp()
    raise ValueError(f"timestamp must be epoch seconds or ISO-8601, not {value!r}")


def _focused_parse(value) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "1", "yes"):
        return True
    if text in ("false", "0", "no"):
        return False
    raise ValueError(f"focused must be true or false, not {value!r}")


def sidecar_find(image: Path) -> Path | None:
    for candidate in (image.with_suffix(".json"), image.with_name(image.name + ".json")):
        if candidate.is_file():
            return candidate
    return None


def sidecar_read(path: Path) -> dict:
    """The sidecar's known fields; raises ValueError saying what is wrong with it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path.name} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path.name} must hold a JSON object")
    for key in ("app_name", "window_name", "browser_url", "device_name"):
        if key in data and data[key] is not None and not isinstance(data[key], str):
            raise ValueError(f"{path.name}: {key} must be a string")
    return {key: value for key, value in data.items() if key in SIDECAR_FIELDS and value is not None}


def client_frame_id_make(relpath: str) -> str:
    if len(relpath) <= CLIENT_FRAME_ID_MAX:
        return relpath
    # Too long to store: keep the end of the path readable and make it unique with a hash.
    digest = sha256(relpath.encode()).hexdigest()[:32]
    return f"{digest}:{relpath[-(CLIENT_FRAME_ID_MAX - len(digest) - 1):]}"


def images_walk(root: Path) -> list[Path]:
    """Screenshots under root, recursively, skipping hidden files and folders (e.g. macOS ._ files)."""
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found += [
            Path(folder) / name
            for name in sorted(files)
            if not name.startswith(".") and Path(name).suffix.lower() in IMAGE_SUFFIXES
        ]
    return found


def import_item_plan(*, path: Path, root: Path, tz: tzinfo, device_name: str, app_name: str) -> ImportItem:
    """Where one file's metadata comes from; raises ValueError or OSError for a file that cannot be planned."""
    relpath = path.relative_to(root).as_posix()
    sidecar_path = sidecar_find(path)
    sidecar = sidecar_read(sidecar_path) if sidecar_path else {}
    if "timestamp" in sidecar:
        timestamp, source = sidecar_timestamp_parse(sidecar["timestamp"], tz=tz), "sidecar"
    elif (from_name := name_timestamp_parse(path.stem, tz=tz)) is not None:
        timestamp, source = from_name, "name"
    else:
        timestamp, source = path.stat().st_mtime, "mtime"
    return ImportItem(
        path=path,
        relpath=relpath,
        client_frame_id=client_frame_id_make(relpath),
        timestamp=timestamp,
        timestamp_source=source,
        device_name=sidecar.get("device_name") or device_name,
        app_name=sidecar.get("app_name", app_name),
        window_name=sidecar.get("window_name", ""),
        browser_url=sidecar.get("browser_url", ""),
        focused=_focused_parse(sidecar.get("focused")),
    )


def import_plan(
    *, root: Path, tz: tzinfo, device_name: str | None = None, app_name: str = ""
) -> tuple[list[ImportItem], list[ImportFailure]]:
    """Every screenshot under root with its metadata, oldest first, and the files that could not be planned."""
    root = root.resolve()
    device_name = device_name or root.name or "import"
    items, failures = [], []
    for path in images_walk(root):
        try:
            items.append(import_item_plan(path=path, root=root, tz=tz, device_name=device_name, app_name=app_name))
        except (ValueError, OSError) as exc:
            failures.append(ImportFailure(file=path.relative_to(root).as_posix(), reason=str(exc)))
    items.sort(key=lambda item: (item.timestamp, item.client_frame_id))
    return items, failures


_OBJECT_REPR = re.compile(r"\s*<[\w.]+ object at 0x[0-9a-f]+>")


def _reason(exc: Exception) -> str:
    if isinstance(exc, ApplicationError):
        # Pillow names the in-memory buffer it read from, which tells the user nothing.
        detail = _OBJECT_REPR.sub("", str(exc.extra.get("detail") or ""))
        return f"{exc.message} ({detail})" if detail else exc.message
    return f"{type(exc).__name__}: {exc}"


def frames_import(
    *,
    root: Path,
    tz: tzinfo,
    device_name: str | None = None,
    app_name: str = "",
    progress: Callable[[list[ImportItem]], Iterable[ImportItem]] = iter,
) -> ImportSummary:
    """Ingest every screenshot under root, oldest first. A file that fails is reported and
    skipped; each frame is stored whole or not at all, so an interrupted import can be re-run."""
    items, failures = import_plan(root=root, tz=tz, device_name=device_name, app_name=app_name)
    summary = ImportSummary(failed=failures)
    for item in progress(items):
        summary.timestamp_sources[item.timestamp_source] += 1
        event = _ingest(item)
        if event.status == "failed":
            summary.failed.append(ImportFailure(file=item.relpath, reason=event.reason))
        elif event.status == "created":
            summary.created += 1
        elif event.status == "existing":
            summary.existing += 1
        else:
            summary.duplicates += 1
    return summary


@dataclass(frozen=True)
class WatchEvent:
    relpath: str
    status: str  # created | existing | duplicate | failed
    frame_id: int | None = None
    reason: str = ""


def _ingest(item: ImportItem) -> WatchEvent:
    try:
        result = services.frame_ingest(
            image_bytes=item.path.read_bytes(),
            timestamp=item.timestamp,
            device_name=item.device_name,
            app_name=item.app_name,
            window_name=item.window_name,
            browser_url=item.browser_url,
            focused=item.focused,
            client_frame_id=item.client_frame_id,
            imported=True,
        )
    except (ApplicationError, OSError) as exc:
        return WatchEvent(relpath=item.relpath, status="failed", reason=_reason(exc))
    return WatchEvent(relpath=item.relpath, status=result.status, frame_id=result.frame_id or result.duplicate_of)


def folder_watch(
    *,
    root: Path,
    tz: tzinfo,
    device_name: str | None = None,
    app_name: str = "",
    poll_s: float = 1.0,
    settle_s: float = 2.0,
    stop: Callable[[], bool] = lambda: False,
) -> Iterable[WatchEvent]:
    """Ingest the screenshots that appear under root (and those already there), as the import
    does, yielding what became of each, until stop() is true. A file is taken once it has not
    changed for a poll (a tool may still be writing it) and, when it has no sidecar yet, once it
    is settle_s old (a tool may write the sidecar just after). A file overwritten in place (a tool
    that always saves "screenshot.png") is a new frame: its id then carries its modification time."""
    root = root.resolve()
    device_name = device_name or root.name or "watch"
    taken: dict[Path, tuple[int, int]] = {}  # path -> (size, mtime_ns) when ingested
    seen: dict[Path, tuple[int, int]] = {}  # path -> (size, mtime_ns) at the last poll
    while not stop():
        for path in images_walk(root):
            try:
                stat = path.stat()
            except FileNotFoundError:
                continue
            state = (stat.st_size, stat.st_mtime_ns)
            previous, seen[path] = seen.get(path), state
            if taken.get(path) == state or previous != state or not stat.st_size:
                continue  # done already, or still being written
            if sidecar_find(path) is None and time.time() - stat.st_mtime < settle_s:
                continue
            try:
                item = import_item_plan(path=path, root=root, tz=tz, device_name=device_name, app_name=app_name)
            except (ValueError, OSError) as exc:
                taken[path] = state
                yield WatchEvent(relpath=path.relative_to(root).as_posix(), status="failed", reason=str(exc))
                continue
            if path in taken:
                item = dataclasses.replace(item, client_frame_id=client_frame_id_make(f"{item.relpath}@{stat.st_mtime_ns}"))
            taken[path] = state
            yield _ingest(item)
        for gone in [path for path in seen if not path.exists()]:
            seen.pop(gone, None)
        time.sleep(poll_s)
