"""Reads for frames."""

from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

from django.conf import settings
from django.db import connection
from django.db.models import Count, Max, Sum
from django.db.models.functions import TruncHour
from django.utils import timezone

from frames import storage
from frames.models import BrowserTab, CaptureReport, Frame, FrameDeletion, FrameSignature, OcrResult, OcrStatus, PrivacySettings
from frames.text import TEXT_PACK_MIN
from myrecall.browsers import browser_of_app, report_keys_for_app, window_shows_tab
from myrecall.errors import NotFound
from myrecall.privacy_rules import PrivacyRules
from myrecall.space import Part


def frame_get(*, frame_id: int) -> Frame:
    frame = Frame.objects.filter(id=frame_id).first()
    if frame is None:
        raise NotFound(f"Frame {frame_id} does not exist.", extra={"frame_id": frame_id})
    return frame


def frame_metadata_get(*, frame_id: int) -> tuple[Frame, bool | None]:
    """The frame, and whether its image reads back to exactly the pixels captured (None when its
    file is missing)."""
    frame = frame_get(frame_id=frame_id)
    try:
        return frame, storage.image_exact(frame.image_path)
    except storage.ImageMissing:
        return frame, None


def frame_ocr_get(*, frame: Frame) -> OcrResult | None:
    return OcrResult.objects.filter(frame=frame).first()


def frame_context(*, frame: Frame, before: int, after: int) -> tuple[list[Frame], list[Frame]]:
    """The frames just before and after this one in time (any device), nearest first."""
    earlier = Frame.objects.filter(timestamp__lt=frame.timestamp) | Frame.objects.filter(
        timestamp=frame.timestamp, id__lt=frame.id
    )
    later = Frame.objects.filter(timestamp__gt=frame.timestamp) | Frame.objects.filter(
        timestamp=frame.timestamp, id__gt=frame.id
    )
    return (
        list(earlier.order_by("-timestamp", "-id")[:before]),
        list(later.order_by("timestamp", "id")[:after]),
    )


def screen_frames(device_name: str, monitor: str | None, frames=None):
    """The frames of one screen: a device's frames of one monitor (frames that do not say which
    count as one screen of their own), among `frames` (a queryset) when given."""
    return (Frame.objects.all() if frames is None else frames).filter(device_name=device_name, monitor=monitor or None)


def frames_read_latest(*, frame: Frame, limit: int) -> list[tuple[Frame, bytes | None]]:
    """The latest frames of its screen (screen_frames) before this one that were read, of its
    size, newest first, each with its screen signature when it is still kept (FrameSignature).
    Their OCR rows are not read here: only the one chosen to read against needs its lines."""
    frames = list(
        screen_frames(frame.device_name, frame.monitor).filter(
            timestamp__lt=frame.timestamp,
            ocr_status=OcrStatus.DONE,
            width=frame.width,
            height=frame.height,
        ).order_by("-timestamp", "-id")[:limit]
    )
    kept = dict(FrameSignature.objects.filter(frame_id__in=[f.id for f in frames]).values_list("frame_id", "phash"))
    return [(f, bytes(kept[f.id]) if f.id in kept else None) for f in frames]


def frame_signature(*, frame: Frame) -> bytes | None:
    kept = FrameSignature.objects.filter(frame=frame).values_list("phash", flat=True).first()
    return bytes(kept) if kept is not None else None


def _read_before(*, reader: int, since: datetime | None, until: datetime | None):
    """Frames read by a reader older than `reader`, taken from `since` to before `until`."""
    frames = Frame.objects.filter(ocr_status=OcrStatus.DONE, ocr__reader__lt=reader)
    if since is not None:
        frames = frames.filter(timestamp__gte=since)
    if until is not None:
        frames = frames.filter(timestamp__lt=until)
    return frames


def frames_read_before_count(*, reader: int, since: datetime | None = None, until: datetime | None = None) -> int:
    return _read_before(reader=reader, since=since, until=until).count()


def frames_read_before_newest(
    *, reader: int, limit: int, since: datetime | None = None, until: datetime | None = None, skip: Collection[int] = ()
) -> list[Frame]:
    """The newest `limit` frames an older reader read (not those in `skip`), oldest first."""
    frames = _read_before(reader=reader, since=since, until=until).exclude(id__in=list(skip))
    return sorted(frames.order_by("-timestamp", "-id")[:limit], key=lambda frame: (frame.timestamp, frame.id))


def frames_between(*, start: float, end: float) -> list[dict]:
    """Frames with start <= timestamp < end, oldest first, as light rows for the timeline."""
    rows = (
        Frame.objects.filter(
            timestamp__gte=datetime.fromtimestamp(start, tz=dt_timezone.utc),
            timestamp__lt=datetime.fromtimestamp(end, tz=dt_timezone.utc),
        )
        .order_by("timestamp", "id")
        .values_list("id", "timestamp", "app_name", "window_name", "ocr__text_length")
    )
    # text_length: the characters read on it (None before it is read), which picks a slot's card.
    return [
        {"id": i, "ts": ts.timestamp(), "app_name": app, "window_name": window, "text_length": length}
        for i, ts, app, window, length in rows
    ]


def frames_newer_than(*, frame_id: int, limit: int = 200) -> list[Frame]:
    return list(Frame.objects.filter(id__gt=frame_id).order_by("id")[:limit])


def frame_latest_id() -> int:
    return Frame.objects.order_by("-id").values_list("id", flat=True).first() or 0


def app_names() -> list[str]:
    return list(Frame.objects.order_by("app_name").values_list("app_name", flat=True).distinct())


def frame_last_timestamp() -> datetime | None:
    """When the newest frame was taken; None before the first."""
    return Frame.objects.order_by("-timestamp").values_list("timestamp", flat=True).first()


@dataclass(frozen=True)
class DeviceSeen:
    name: str
    last_frame: datetime | None  # its newest frame taken since the time asked for
    report: CaptureReport | None  # its capture client's latest report, if received since then


def devices_seen(*, since: datetime) -> list[DeviceSeen]:
    """Each device that sent a frame taken, or whose capture client reported, since `since`;
    the most recently heard from first."""
    frames = Frame.objects.filter(timestamp__gte=since).values("device_name").annotate(last=Max("timestamp"))
    last_frames = {row["device_name"]: row["last"] for row in frames}
    reports = {report.device_name: report for report in CaptureReport.objects.filter(received_at__gte=since)}
    devices = [DeviceSeen(name=name, last_frame=last_frames.get(name), report=reports.get(name)) for name in last_frames | reports]
    return sorted(devices, key=lambda d: max(d.last_frame or since, d.report.received_at if d.report else since), reverse=True)


def frames_sources(*, frame_ids: list[int]) -> dict[int, tuple[str, str]]:
    """(device_name, image_path) of each frame that exists."""
    rows = Frame.objects.filter(id__in=frame_ids).values_list("id", "device_name", "image_path")
    return {frame_id: (device, image_path) for frame_id, device, image_path in rows}


def frames_texts(*, frame_ids: list[int]) -> dict[int, str]:
    """The OCR text of each frame that has one."""
    return dict(OcrResult.objects.filter(frame_id__in=frame_ids).values_list("frame_id", "text"))


@dataclass
class Usage:
    """Time spent in an app or a window: its frames, the seconds they stand for, and its newest frame."""

    frame_count: int = 0
    seconds: float = 0.0
    first_seen: datetime | None = None
    last_seen: datetime | None = None
    newest_frame_id: int | None = None
    browser_url: str = ""

    def add(self, *, frame_id: int, at: datetime, seconds: float, browser_url: str) -> None:
        self.frame_count += 1
        self.seconds += seconds
        self.first_seen = at if self.first_seen is None else min(self.first_seen, at)
        if self.last_seen is None or at >= self.last_seen:
            self.last_seen, self.newest_frame_id, self.browser_url = at, frame_id, browser_url


def frames_usage(
    *, start: datetime, end: datetime, apps: Collection[str] | None = None, gap_cap_s: float = 300
) -> tuple[dict[str, Usage], dict[tuple[str, str], Usage]]:
    """Time per app and per (app, window; "" when the frame names none) over the frames with
    start <= timestamp <= end.

    A frame stands for the time until its device's next frame, at most gap_cap_s (a longer gap
    is the person away, or a screen that did not change and was not stored again); a device's
    last frame in the range stands for the time until the range's end (or now), with the same
    cap. Devices are separate timelines: two screens at once both count. Frames without an app
    name take their time but count for no app; with `apps`, only those apps are counted."""
    until = min(end, datetime.now(tz=dt_timezone.utc))
    per_app: dict[str, Usage] = defaultdict(Usage)
    per_window: dict[tuple[str, str], Usage] = defaultdict(Usage)
    rows = (
        Frame.objects.filter(timestamp__gte=start, timestamp__lte=end)
        .order_by("device_name", "timestamp", "id")
        .values_list("id", "device_name", "timestamp", "app_name", "window_name", "browser_url")
        .iterator(chunk_size=2000)
    )

    def count(row: tuple, next_at: datetime) -> None:
        frame_id, _, at, app, window, url = row
        if not app or (apps is not None and app not in apps):
            return
        seconds = min(max((next_at - at).total_seconds(), 0.0), gap_cap_s)
        per_app[app].add(frame_id=frame_id, at=at, seconds=seconds, browser_url=url)
        per_window[(app, window)].add(frame_id=frame_id, at=at, seconds=seconds, browser_url=url)

    previous = None
    for row in rows:
        if previous is not None:
            count(previous, row[2] if row[1] == previous[1] else until)
        previous = row
    if previous is not None:
        count(previous, until)
    return dict(per_app), dict(per_window)


# An unfinished deletion untouched this long was stopped (its process died): a retry takes it.
DELETION_STALE_S = 60


def deletions_stalled():
    """Deletions that stopped midway: their process died, or the vector index was down."""
    stale = timezone.now() - timedelta(seconds=DELETION_STALE_S)
    return FrameDeletion.objects.filter(status=FrameDeletion.Status.RUNNING, updated_at__lt=stale)


def retention_cutoff(*, days: int | None = None) -> datetime | None:
    """The time before which frames are past the retention (RETENTION_DAYS, or `days`); None
    when everything is kept."""
    days = settings.RETENTION_DAYS if days is None else days
    return timezone.now() - timedelta(days=days) if days and days > 0 else None


def frames_past_retention() -> bool:
    """Whether frames older than the retention (RETENTION_DAYS; 0 keeps everything) are stored."""
    cutoff = retention_cutoff()
    return cutoff is not None and Frame.objects.filter(timestamp__lt=cutoff).exists()


def frames_deletions_stalled() -> bool:
    return deletions_stalled().exists()


def frames_range_counts(*, end: datetime, start: datetime | None = None, app_name: str = "") -> dict[str, int]:
    """How many frames a deletion of this range would take, by app, most first."""
    frames = Frame.objects.filter(timestamp__lt=end)
    if start is not None:
        frames = frames.filter(timestamp__gte=start)
    if app_name:
        frames = frames.filter(app_name__iexact=app_name)
    rows = frames.values("app_name").annotate(n=Count("id")).order_by("-n", "app_name")
    return {row["app_name"]: row["n"] for row in rows}


def privacy_rules() -> PrivacyRules:
    """The user's privacy rules (none until they set some)."""
    row = PrivacySettings.objects.filter(pk=1).first()
    if row is None:
        return PrivacyRules()
    return PrivacyRules(
        apps=tuple(row.excluded_apps),
        windows=tuple(row.excluded_windows),
        urls=tuple(row.excluded_urls),
        redact_secrets=row.redact_secrets,
        capture_paused=row.capture_paused,
    )


# Rows in an older, larger form (rewritten by frames.services' compaction) ----------------------


# OCR rows whose lines are in an older form: JSON (before lines were packed), or packed as zlib of
# JSON (form 1 of frames.text, whose first byte is zlib's 0x78) rather than form 2. The condition
# of the partial index frames_ocrresult_lines_old (migration 0013) on SQLite, so that finding them
# reads that index, empty once they are done.
LINES_OLD_WHERE = "(lines_packed IS NULL AND lines <> '[]') OR substr(lines_packed, 1, 1) = x'78'"
# The same in PostgreSQL's terms: the condition of its partial index of the same name (migration 0014).
LINES_OLD_WHERE_POSTGRESQL = "(lines_packed IS NULL AND lines <> '[]'::jsonb) OR substr(lines_packed, 1, 1) = '\\x78'::bytea"


def ocr_lines_old():
    """OCR results whose lines are in an older, larger form (see LINES_OLD_WHERE)."""
    if connection.vendor == "sqlite":
        return OcrResult.objects.extra(where=[LINES_OLD_WHERE])
    return OcrResult.objects.extra(where=[LINES_OLD_WHERE_POSTGRESQL])


def images_old(*, before: datetime):
    """Frames taken before `before` whose images are stored in an older form (Frame.image_form)."""
    return Frame.objects.filter(image_form__isnull=True, timestamp__lt=before)


def ocr_text_old():
    """OCR results whose text is stored plain though it is long enough to pack (written before texts
    were compressed). On SQLite only (elsewhere the column holds bytes since the migration); the
    condition is the one of the partial index frames_ocrresult_text_unpacked (migration 0016), so
    that finding them reads the index, empty once they are done, rather than every row."""
    if connection.vendor != "sqlite":
        return OcrResult.objects.none()
    return OcrResult.objects.extra(where=[f"typeof(text) = 'text' AND length(CAST(text AS BLOB)) >= {TEXT_PACK_MIN}"])


def _hours() -> list[tuple[datetime, int, int]]:
    """(UTC hour, frames, image bytes) of every hour with frames. On SQLite the hour is the first
    13 characters of the stored UTC text, which SQLite groups natively: 0.07 s for 300,000 frames,
    against 0.9 s through Django's TruncHour (a Python function called on every row)."""
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT substr(timestamp, 1, 13), count(*), sum(image_bytes) FROM {Frame._meta.db_table} GROUP BY 1")
            return [
                (datetime.strptime(hour, "%Y-%m-%d %H").replace(tzinfo=dt_timezone.utc), count, size or 0)
                for hour, count, size in cursor.fetchall()
            ]
    hours = (
        Frame.objects.annotate(hour=TruncHour("timestamp", tzinfo=dt_timezone.utc))
        .values("hour")
        .annotate(n=Count("id"), size=Sum("image_bytes"))
        .values_list("hour", "n", "size")
    )
    return [(hour, count, size or 0) for hour, count, size in hours]


def images_space(zone) -> Part:
    """The frames' image files: their bytes and frames on each local day of `zone` (summed by
    hour, so each hour falls on its own day)."""
    by_day: dict = defaultdict(int)
    frames_by_day: dict = defaultdict(int)
    for hour, count, size in _hours():
        day = hour.astimezone(zone).date()
        by_day[day] += size
        frames_by_day[day] += count
    return Part(bytes=sum(by_day.values()), by_day=dict(by_day), frames_by_day=dict(frames_by_day))


def thumbnails_space(zone) -> Part:
    """The thumbnails made so far (each on first request)."""
    return Part(bytes=storage.thumbs_bytes())


def archive_images(snapshot) -> list[str]:
    """The image files a database snapshot's frames point to (an sqlite3 connection; see myrecall.archive)."""
    return [row[0] for row in snapshot.execute(f"SELECT image_path FROM {Frame._meta.db_table}")]


# Browser tabs (the extension's reports) -----------------------------------------------------------

# A tab's span stays in effect this long after its last report: the extension reports every 5 s
# while its background runs, and a suspended one is woken every 30 s.
BROWSER_TAB_GAP_S = 40.0
# An excluded page counts from this long before the extension reported it (the page may be drawn
# as its address changes); a frame taken just before is refused rather than kept.
BROWSER_EXCLUDED_LEAD_S = 1.0
# The extension of a browser counts as running while it reported within this time: only then do
# that browser's frames wait for its report (BrowserFrameHold).
BROWSER_EXTENSION_ACTIVE_S = 120.0
# Spans older than this are deleted: they hold URLs and titles, and pairing needs only the recent past.
BROWSER_TAB_KEEP_S = 900.0


@dataclass(frozen=True)
class TabAt:
    """What the browser extensions said about the window of an app at a time."""

    browser: str | None  # the app's browser key, None when the app is not a known browser
    extension_seen: bool  # an extension of that browser reported within BROWSER_EXTENSION_ACTIVE_S
    settled: bool  # an extension of that browser reported at or after that time
    excluded: bool  # the active tab was an excluded page
    browser_url: str  # the active tab's URL, when the window title shows that tab; else ""


def browser_tab_at(*, app_name: str, window_name: str, at: datetime) -> TabAt:
    """Which tab a window of this app showed at `at`, by the extensions' reports: the span of the
    app's browser in effect then (the latest started by then, reported within BROWSER_TAB_GAP_S),
    paired when the window title shows its tab's title. An excluded page that began within
    BROWSER_EXCLUDED_LEAD_S after `at` counts too."""
    browser = browser_of_app(app_name)
    keys = report_keys_for_app(app_name)
    if browser is None:
        return TabAt(browser=None, extension_seen=False, settled=False, excluded=False, browser_url="")
    spans = BrowserTab.objects.filter(browser__in=keys)
    last_seen = spans.aggregate(last=Max("seen_at"))["last"]
    seen = last_seen is not None and last_seen >= at - timedelta(seconds=BROWSER_EXTENSION_ACTIVE_S)
    settled = last_seen is not None and last_seen >= at
    nearby = list(
        spans.filter(
            started_at__lte=at + timedelta(seconds=BROWSER_EXCLUDED_LEAD_S),
            seen_at__gte=at - timedelta(seconds=BROWSER_TAB_GAP_S),
        ).order_by("-started_at", "-id")[:8]
    )
    in_effect = next((span for span in nearby if span.started_at <= at), None)
    excluded = any(span.state == BrowserTab.State.EXCLUDED for span in nearby if span.started_at > at) or (
        in_effect is not None and in_effect.state == BrowserTab.State.EXCLUDED
    )
    url = ""
    if in_effect is not None and in_effect.state == BrowserTab.State.PAGE and window_shows_tab(window_name, in_effect.title):
        url = in_effect.url
    return TabAt(browser=browser.key, extension_seen=seen, settled=settled, excluded=excluded, browser_url=url)


def browser_tab_latest(*, browser: str) -> BrowserTab | None:
    """The browser's latest span."""
    return BrowserTab.objects.filter(browser=browser).order_by("-started_at", "-id").first()
