"""Writes for frames: ingest, OCR, deletion, the capture clients' reports, and the browser
extension's reports of the active tab, paired with the frames of that browser's windows."""

import dataclasses
import logging
import math
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

import numpy as np
from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models.functions import Lower
from django.utils import timezone

from frames import ocr, reading, storage
from frames.live import frame_created_publish
from frames.imaging import hash_distance, image_decode, image_hash
from frames.models import (
    BrowserFrameHold,
    BrowserTab,
    CaptureReport,
    Frame,
    FrameDeletion,
    FrameSignature,
    OcrResult,
    OcrStatus,
    PrivacySettings,
)
from frames.selectors import (
    BROWSER_EXCLUDED_LEAD_S,
    BROWSER_TAB_GAP_S,
    BROWSER_TAB_KEEP_S,
    browser_tab_at,
    browser_tab_latest,
    deletions_stalled,
    frame_signature,
    frames_read_before_newest,
    frames_read_latest,
    images_old,
    screen_frames,
    ocr_lines_old,
    ocr_text_old,
    privacy_rules,
    retention_cutoff,
)
from frames.signals import frame_text_ready, frames_context_changed, frames_deleted, frames_deleting, frames_erasing
from frames.text import text_languages
from myrecall import priorities
from myrecall.browsers import app_classes_for_report, browser_of_name, report_keys_for_app
from myrecall.errors import ApplicationError
from myrecall.privacy_rules import KINDS, PrivacyRules, exclusion_find, rules_clean, secrets_redact
from myrecall.space import space_forget

logger = logging.getLogger(__name__)

EARLIEST_TIMESTAMP = 946684800.0  # 2000-01-01: anything older is a client bug
# A browser frame held for its extension's report is read after this long if no report came.
BROWSER_HOLD_MAX_S = 12.0
# A frame taken at most this long before it arrives is live (a capture client sending what it just
# took); an older one is a resend from a client's spool and is read with the backlog.
LIVE_MAX_AGE_S = 60.0


@dataclass(frozen=True)
class IngestResult:
    status: str  # "created" | "existing" | "duplicate"
    frame_id: int | None
    duplicate_of: int | None = None
    distance: int | None = None


def timestamp_latest() -> float:
    """The newest timestamp accepted: the allowance for a clock that runs ahead, counted from the
    end of the current UTC day, so that it changes once a day and the API schema can state it."""
    return (math.floor(time.time() / 86400) + 1) * 86400 + settings.TIMESTAMP_MAX_FUTURE_S


def timestamp_parse(value: float) -> datetime:
    if value is None or not math.isfinite(value):
        raise ApplicationError("timestamp must be a finite number of epoch seconds.", extra={"field": "timestamp"})
    latest = timestamp_latest()
    if value > latest:
        hint = " It looks like milliseconds; send seconds." if value > 1e11 else ""
        raise ApplicationError(
            f"timestamp {value} lies in the future.{hint}", extra={"field": "timestamp", "max": latest}
        )
    if value < EARLIEST_TIMESTAMP:
        raise ApplicationError(
            f"timestamp {value} is before 2000-01-01.", extra={"field": "timestamp", "min": EARLIEST_TIMESTAMP}
        )
    return datetime.fromtimestamp(value, tz=dt_timezone.utc)


def _existing(device_name: str, client_frame_id: str | None) -> IngestResult | None:
    if not client_frame_id:
        return None
    frame_id = (
        Frame.objects.filter(device_name=device_name, client_frame_id=client_frame_id)
        .values_list("id", flat=True)
        .first()
    )
    return IngestResult(status="existing", frame_id=frame_id) if frame_id else None


def frame_ingest(
    *,
    image_bytes: bytes,
    timestamp: float,
    device_name: str = "default",
    monitor: str = "",
    app_name: str = "",
    window_name: str = "",
    browser_url: str = "",
    focused: bool | None = None,
    client_frame_id: str | None = None,
    imported: bool = False,
) -> IngestResult:
    """Store one screenshot and queue its OCR.

    Idempotent on (device_name, client_frame_id); a near-duplicate of the previous frame of the
    device's monitor (its screen: screen_frames), with the same app and window title, is not stored. The image file and the
    row land together or not at all.
    A live frame's OCR goes ahead of the backlog; an imported one (a folder import or the
    watched folder) or one taken over LIVE_MAX_AGE_S ago (a resend) waits its turn in it.

    A frame of a browser window whose browser's extension reports its tab is paired with the tab
    then active (browser_url filled when the window title shows it; refused, 422, when it was an
    excluded page); one that comes before the report of its time is held (BrowserFrameHold): its
    OCR waits until a report settles it (browser_tab_report), at most BROWSER_HOLD_MAX_S.
    """
    ts = timestamp_parse(timestamp)
    live = not imported and time.time() - timestamp <= LIVE_MAX_AGE_S
    if len(image_bytes) > settings.MAX_UPLOAD_BYTES:
        raise ApplicationError(
            "Upload too large.", extra={"max_bytes": settings.MAX_UPLOAD_BYTES, "bytes": len(image_bytes)}, status_code=413
        )
    device_name = device_name or "default"
    monitor = monitor.strip() or None
    client_frame_id = client_frame_id or None
    if excluded := exclusion_find(privacy_rules(), app_name=app_name, window_name=window_name, browser_url=browser_url):
        raise ApplicationError(
            f"Not stored: {excluded.reason} in the privacy settings.",
            extra={"excluded_by": excluded.kind, "pattern": excluded.pattern},
            status_code=422,
        )
    if found := _existing(device_name, client_frame_id):
        return found

    image = image_decode(image_bytes)
    phash = image_hash(image)
    if settings.DEDUP_MAX_DISTANCE >= 0 and (previous := _previous_signature(device_name, monitor, ts, app_name, window_name, browser_url)):
        distance = hash_distance(previous[1], phash)
        if distance <= settings.DEDUP_MAX_DISTANCE:
            return IngestResult(status="duplicate", frame_id=None, duplicate_of=previous[0], distance=distance)

    staged = storage.image_stage(image, timestamp=ts, quality=settings.IMAGE_QUALITY, bases=_image_bases(device_name, monitor, ts, image.size), exact=settings.IMAGE_EXACT)
    try:
        with transaction.atomic():
            # Locked, so that a deletion storing its base again waits for this frame, and sees it.
            if staged.base is not None and not Frame.objects.select_for_update().filter(id=staged.base, image_path=staged.base_relpath).exists():
                # Its base was deleted or stored again meanwhile (a deletion, the retention, compact): store it whole.
                staged.discard()
                staged = storage.image_stage(image, timestamp=ts, quality=settings.IMAGE_QUALITY, exact=settings.IMAGE_EXACT)
            # In the write transaction, so that a report of the same moment is seen whole or not at all.
            tab = browser_tab_at(app_name=app_name, window_name=window_name, at=ts)
            if tab.excluded:
                raise ApplicationError(
                    "Not stored: the browser's active tab was a page your privacy rules exclude.",
                    extra={"excluded_by": "browser_tab", "pattern": ""},
                    status_code=422,
                )
            browser_url = browser_url or tab.browser_url
            held = tab.extension_seen and not tab.settled
            frame = Frame.objects.create(
                timestamp=ts,
                device_name=device_name,
                monitor=monitor,
                client_frame_id=client_frame_id,
                app_name=app_name or "",
                window_name=window_name or "",
                browser_url=browser_url or "",
                focused=focused,
                image_path=staged.relpath,
                width=image.width,
                height=image.height,
                image_bytes=staged.size,
                image_base_id=staged.base,
                image_form=storage.IMAGE_FORM,
            )
            _signature_keep(frame, phash)
            staged.place()
            if held:
                BrowserFrameHold.objects.create(frame=frame, app_class=frame.app_name.casefold(), timestamp=ts)
                # Read once a report settles it; this is the fallback when none comes.
                transaction.on_commit(
                    lambda: frame_ocr_enqueue(frame_id=frame.id, delay_s=BROWSER_HOLD_MAX_S, priority=priorities.OCR_LIVE)
                )
            elif live:
                transaction.on_commit(lambda: frame_ocr_enqueue_live(frame=frame))
            else:
                transaction.on_commit(lambda: frame_ocr_enqueue(frame_id=frame.id))
            transaction.on_commit(lambda: frame_created_publish(frame=frame))
    except IntegrityError:
        staged.discard()
        # A concurrent retry with the same client_frame_id won the race.
        if found := _existing(device_name, client_frame_id):
            return found
        raise
    except BaseException:
        staged.discard()
        raise
    return IngestResult(status="created", frame_id=frame.id)


# A device's frames keep their screen signature (FrameSignature) while they are within this time of
# its newest: a new frame is compared with the device's frame just before it, nearly always among them.
SIGNATURE_KEEP_S = 3600.0


def _previous_signature(device_name: str, monitor: str | None, ts: datetime, app_name: str, window_name: str, browser_url: str = "") -> tuple[int, bytes] | None:
    """The screen's frame just before ts (the latest at or before it, then by id) and its signature:
    the one kept for its recent frames, or, for an older frame (one that arrives out of order
    compares with it), made again from its stored image. None when that frame shows another app,
    window title or (when the new frame names one) page address: a new title or address on the
    same pixels (a browser's next page) is a new moment, kept."""
    previous = (
        screen_frames(device_name, monitor).filter(timestamp__lte=ts)
        .order_by("-timestamp", "-id")
        .values_list("id", "image_path", "app_name", "window_name", "browser_url")
        .first()
    )
    if previous is None or previous[2:4] != (app_name or "", window_name or ""):
        return None
    if browser_url and previous[4] != browser_url:
        return None
    frame_id, image_path = previous[:2]
    kept = FrameSignature.objects.filter(frame_id=frame_id).values_list("phash", flat=True).first()
    if kept is not None:
        return frame_id, bytes(kept)
    try:
        return frame_id, image_hash(storage.image_pixels(image_path))
    except Exception:  # its image is unreadable: nothing to compare with
        logger.warning("No signature for frame %s: its image %s could not be read", frame_id, image_path, exc_info=True)
        return None


def _signature_keep(frame: Frame, phash: bytes) -> None:
    """Keep a new frame's signature for the device's next frames, and forget those that are now
    more than SIGNATURE_KEEP_S behind its newest (one indexed DELETE). Runs in the ingest's transaction."""
    newest = (
        FrameSignature.objects.filter(device_name=frame.device_name).order_by("-timestamp").values_list("timestamp", flat=True).first()
    )
    horizon = max(newest or frame.timestamp, frame.timestamp) - timedelta(seconds=SIGNATURE_KEEP_S)
    if frame.timestamp >= horizon:
        FrameSignature.objects.create(frame=frame, device_name=frame.device_name, timestamp=frame.timestamp, phash=phash)
    FrameSignature.objects.filter(device_name=frame.device_name, timestamp__lt=horizon).delete()


# How far back a device's frames stored whole are looked for, to store a new frame against one.
IMAGE_BASE_SPAN = timedelta(hours=1)


def _image_bases(device_name: str, monitor: str | None, ts: datetime, size: tuple[int, int], *, others=None) -> list[storage.Base]:
    """What a new frame may be stored against: its screen's frame just before ts (stored in any
    form: frames.storage bounds the chain), then the screen's latest frames stored whole; of this
    size, newest first; among `others` (a queryset of frames) when given."""
    recent = screen_frames(device_name, monitor, others).filter(
        timestamp__lte=ts, timestamp__gte=ts - IMAGE_BASE_SPAN, width=size[0], height=size[1]
    ).order_by("-timestamp", "-id")
    rows = list(recent.values_list("id", "image_path")[:1])
    rows += [row for row in recent.filter(image_base__isnull=True).values_list("id", "image_path")[: storage.BASES] if row not in rows]
    return [storage.Base(frame_id=frame_id, relpath=relpath) for frame_id, relpath in rows]


def frame_ocr_enqueue(*, frame_id: int, delay_s: float = 0, priority: int = priorities.BACKLOG) -> str:
    """Queue the frame's OCR (with the backlog unless told otherwise); returns the task's id."""
    from frames.tasks import frame_ocr

    task = frame_ocr.using(priority=priority)
    if delay_s and task.get_backend().supports_defer:
        task = task.using(run_after=timezone.now() + timedelta(seconds=delay_s))
    return task.enqueue(frame_id).id


def frame_ocr_enqueue_live(*, frame: Frame) -> None:
    """Queue the OCR of a frame a capture client sent as it was taken, ahead of the backlog. The
    device's earlier live frames still waiting step back behind it: when a device sends faster
    than frames are read, its newest screen is read next and the ones it overtook after it."""
    from django_tasks_db.models import DBTaskResult

    from frames.tasks import frame_ocr

    frame_ocr_enqueue(frame_id=frame.id, priority=priorities.OCR_LIVE)
    # The queue's own rows (none when tasks run another way, as in tests that read at once).
    waiting = DBTaskResult.objects.filter(task_path=frame_ocr.module_path, status="READY", priority=priorities.OCR_LIVE)
    task_of = {row["args"][0]: task_id for task_id, row in waiting.values_list("id", "args_kwargs") if row.get("args")}
    task_of.pop(frame.id, None)
    overtaken = Frame.objects.filter(
        id__in=list(task_of), device_name=frame.device_name, timestamp__lte=frame.timestamp
    ).values_list("id", flat=True)
    waiting.filter(id__in=[task_of[frame_id] for frame_id in overtaken]).update(priority=priorities.OCR_OVERTAKEN)


def frames_ocr_requeue() -> int:
    """Queue OCR for pending frames that have no task waiting or running (a crash between the
    commit and the enqueue, or a task that failed outside OCR); returns how many.

    Run at worker start, after the sweep has given back the tasks of dead workers: a RUNNING
    task belongs to a live worker, or to one the sweep will find gone."""
    from django_tasks_db.models import DBTaskResult

    from frames.tasks import frame_ocr

    live = DBTaskResult.objects.filter(task_path=frame_ocr.module_path, status__in=["READY", "RUNNING"])
    queued = {row["args"][0] for row in live.values_list("args_kwargs", flat=True) if row.get("args")}
    pending = Frame.objects.filter(ocr_status=OcrStatus.PENDING).values_list("id", flat=True)
    lost = [frame_id for frame_id in pending if frame_id not in queued]
    for frame_id in lost:
        frame_ocr_enqueue(frame_id=frame_id)
    return len(lost)


def frame_ocr_abandon(*, frame_id: int, attempts: int) -> None:
    """The worker died `attempts` times while reading this frame (killed, or the engine crashed
    the process on its image): a final failure, so the frame stops being pending and stays
    findable by its app, window and URL."""
    with transaction.atomic():
        frame = Frame.objects.filter(id=frame_id, ocr_status=OcrStatus.PENDING).first()
        if frame is None:
            return
        frame.ocr_attempts += attempts
        _ocr_give_up(frame, reason=f"the worker stopped during OCR {attempts} times")


def frame_image_load(frame: Frame) -> np.ndarray:
    return np.asarray(storage.image_pixels(frame.image_path))


# A frame is read against the one among the device's latest read frames it is most like.
READ_BASES = 8


def _ocr_read(frame: Frame) -> tuple[list[ocr.OcrLine], float, Frame | None]:
    """Lines of the frame, the share of it actually OCR'd, and the frame carried from.

    With OCR_INCREMENTAL, only what changed since one of the device's latest read frames of its
    size (reading.base_choose: the one before it, or the window switched back to) is run through
    the engine; any trouble on that path falls back to a full pass.
    """
    image = frame_image_load(frame)
    if settings.OCR_INCREMENTAL:
        try:
            latest = frames_read_latest(frame=frame, limit=READ_BASES)
            if latest:
                chosen = reading.base_choose(signature=frame_signature(frame=frame), bases=[phash for _, phash in latest])
                previous = latest[chosen][0]
                read = reading.screen_read(
                    image=image,
                    previous_image=frame_image_load(previous),
                    previous_lines=[ocr.OcrLine.from_json(line) for line in previous.ocr.lines],
                )
                return read.lines, read.area, previous if read.incremental else None
        except Exception:
            logger.exception("Incremental OCR of frame %s failed; reading it whole", frame.id)
    return reading.whole_read(image=image), 1.0, None


def frame_ocr_run(*, frame_id: int) -> str:
    """Run OCR for a frame, store the text and boxes, and announce it. Returns the new status.

    A failure is recorded with its reason and retried with backoff, up to OCR_MAX_ATTEMPTS.
    """
    frame = Frame.objects.filter(id=frame_id).first()
    if frame is None or frame.ocr_status == OcrStatus.DONE:
        return frame.ocr_status if frame else "missing"
    if BrowserFrameHold.objects.filter(frame_id=frame_id).exists() and not _hold_settle_alone(frame):
        return "excluded"
    started = time.perf_counter()
    try:
        lines, area, carried_from = _ocr_read(frame)
    except Exception as exc:  # any engine or file error becomes a recorded failure
        return _ocr_failed(frame, reason=f"{type(exc).__name__}: {exc}")
    elapsed_ms = int((time.perf_counter() - started) * 1000)
    if not _ocr_store(frame, lines=lines, area=area, carried_from=carried_from, elapsed_ms=elapsed_ms):
        return "missing"
    return OcrStatus.DONE


def _ocr_store(frame: Frame, *, lines: list[ocr.OcrLine], area: float, carried_from: Frame | None, elapsed_ms: int) -> bool:
    """Store what was read of a frame (its secrets redacted when the user asks), mark it read and
    announce its text; False when the frame is gone meanwhile."""
    if privacy_rules().redact_secrets:
        lines = [_line_redact(line) for line in lines]
    text = "\n".join(line.text for line in lines)
    with transaction.atomic():
        # Deleted meanwhile (its browser tab was an excluded page, or a range delete), or paired with
        # its tab's URL: the indexes get what the row says now.
        current = Frame.objects.filter(id=frame.id).values_list("browser_url", flat=True).first()
        if current is None or BrowserFrameHold.objects.filter(frame_id=frame.id, excluded=True).exists():
            return False
        frame.browser_url = current
        OcrResult.objects.update_or_create(
            frame=frame,
            defaults={
                "engine": settings.OCR_ENGINE,
                "text": text,
                "languages": ",".join(text_languages(text)),
                "lines": [line.to_json() for line in lines],
                "ocr_area": round(area, 4),
                "carried_from": carried_from,
                "elapsed_ms": elapsed_ms,
                "reader": reading.READER_VERSION,
            },
        )
        if frame.ocr_status != OcrStatus.DONE:
            frame.ocr_status = OcrStatus.DONE
            frame.ocr_attempts += 1
            frame.ocr_error = ""
            frame.save(update_fields=["ocr_status", "ocr_attempts", "ocr_error"])
        frame_text_ready.send(sender=Frame, frame=frame)
    return True


# Frames re-read a chunk at a time: the newest chunk first, its frames oldest first, so that each
# is read from the one before it on its device (only what changed) as the live path reads.
REREAD_CHUNK = 40


def frames_reread(
    *, since: datetime | None = None, until: datetime | None = None, progress: Callable[[int], None] | None = None
) -> tuple[int, int]:
    """Read again, with the current reader, the frames an older reader read (from `since` to before
    `until`), newest first; returns (frames read, frames left as they were: an image that could not
    be read, or a frame deleted meanwhile).

    Each frame's text is replaced in a transaction of its own and indexed again as it is read, so
    search answers throughout and finds the new words as they come; stopped midway, a new run goes
    on with the frames left."""
    done, left = 0, set()
    while chunk := frames_read_before_newest(
        reader=reading.READER_VERSION, limit=REREAD_CHUNK, since=since, until=until, skip=left
    ):
        before: dict[tuple[str, str | None, int, int], tuple[Frame, np.ndarray, list[ocr.OcrLine]]] = {}
        for frame in chunk:
            started = time.perf_counter()
            try:
                image = frame_image_load(frame)
                base = before.get((frame.device_name, frame.monitor, frame.width, frame.height))
                read = reading.screen_read(
                    image=image, previous_image=base[1] if base else None, previous_lines=base[2] if base else None
                )
            except Exception:
                logger.exception("Frame %s could not be read again; it keeps its text", frame.id)
                left.add(frame.id)
                continue
            elapsed_ms = int((time.perf_counter() - started) * 1000)
            carried_from = base[0] if base and read.incremental else None
            if not _ocr_store(frame, lines=read.lines, area=read.area, carried_from=carried_from, elapsed_ms=elapsed_ms):
                left.add(frame.id)
                continue
            before[(frame.device_name, frame.monitor, frame.width, frame.height)] = (frame, image, read.lines)
            done += 1
            if progress:
                progress(1)
    return done, len(left)


def _line_redact(line: ocr.OcrLine) -> ocr.OcrLine:
    """The line with its secrets replaced; its words too (a word of a secret spread over several
    words, such as a card number's groups, loses its text but keeps its box)."""
    text = secrets_redact(line.text)
    if text == line.text:
        return line
    kept = set(text.split())
    words = [
        dataclasses.replace(word, text=word.text if word.text in kept else "")
        for word in line.words
    ]
    return dataclasses.replace(line, text=text, words=words)


def _ocr_failed(frame: Frame, *, reason: str) -> str:
    logger.warning("OCR of frame %s failed: %s", frame.id, reason)
    with transaction.atomic():
        frame.ocr_attempts += 1
        if frame.ocr_attempts >= settings.OCR_MAX_ATTEMPTS:
            _ocr_give_up(frame, reason=reason)
        else:
            frame.ocr_error = reason[:2000]
            frame.save(update_fields=["ocr_attempts", "ocr_error"])
            delay = 2 ** frame.ocr_attempts
            transaction.on_commit(lambda: frame_ocr_enqueue(frame_id=frame.id, delay_s=delay))
    return frame.ocr_status


def _ocr_give_up(frame: Frame, *, reason: str) -> None:
    frame.ocr_status = OcrStatus.FAILED
    frame.ocr_error = reason[:2000]
    frame.save(update_fields=["ocr_status", "ocr_attempts", "ocr_error"])
    # Still searchable by its app, window and URL.
    frame_text_ready.send(sender=Frame, frame=frame)


# Deletion ------------------------------------------------------------------------------------

# Frames whose rows go in one write transaction: ingest waits at most that long.
DELETE_BATCH = 500


@dataclass(frozen=True)
class FrameGone:
    """A frame being deleted, as the other apps need it: its id and time."""

    id: int
    timestamp: datetime

    @property
    def ts_ms(self) -> int:
        return math.floor(self.timestamp.timestamp() * 1000)


def _counts_add(total: dict, responses) -> None:
    for _receiver, counts in responses:
        for kind, count in (counts or {}).items():
            total[kind] = total.get(kind, 0) + count


def frames_delete_begin(*, end: datetime, start: datetime | None = None, app_name: str = "", reason: str = "delete") -> FrameDeletion:
    """Record a deletion of the frames from `start` (or the first) to before `end`, of one app
    when given; frames_delete_run carries it out. A range that ends where (or before) it starts
    holds no frames: its job deletes nothing."""
    max_frame_id = Frame.objects.order_by("-id").values_list("id", flat=True).first() or 0
    return FrameDeletion.objects.create(
        reason=reason, start_time=start, end_time=end, app_name=app_name or "", max_frame_id=max_frame_id
    )


def _deletion_frames(job: FrameDeletion):
    frames = Frame.objects.filter(id__lte=job.max_frame_id, timestamp__lt=job.end_time)
    if job.start_time is not None:
        frames = frames.filter(timestamp__gte=job.start_time)
    if job.app_name:
        frames = frames.filter(app_name__iexact=job.app_name)
    return frames


def _deletion_batch(job_id: int) -> int:
    """Delete the rows of the job's next batch of frames, in one transaction, and record what
    the batch still owes outside the database; returns how many (0: none left)."""
    with transaction.atomic():
        job = FrameDeletion.objects.select_for_update().get(id=job_id)
        rows = list(_deletion_frames(job).order_by("id").values_list("id", "timestamp", "image_path")[:DELETE_BATCH])
        if not rows:
            return 0
        gone = [FrameGone(id=frame_id, timestamp=moment) for frame_id, moment, _ in rows]
        ids = [frame.id for frame in gone]
        removed = dict(job.removed)
        _counts_add(removed, frames_deleting.send(sender=Frame, frames=gone))
        removed["ocr_texts"] = removed.get("ocr_texts", 0) + OcrResult.objects.filter(frame_id__in=ids).count()
        # Frames whose unchanged regions were carried over from these keep their own text.
        OcrResult.objects.filter(carried_from_id__in=ids).update(carried_from=None)
        # Frames that stay and whose images are stored against these are stored again first.
        restaged = _images_restage(ids)
        Frame.objects.filter(id__in=ids).delete()
        removed["frames"] = removed.get("frames", 0) + len(ids)
        job.removed = removed
        job.pending = {
            "frames": [[frame.id, frame.ts_ms] for frame in gone],
            "files": [path for frame_id, moment, image in rows for path in storage.frame_relpaths(frame_id, moment, image)]
            + restaged,
        }
        job.save(update_fields=["removed", "pending", "updated_at"])
    return len(ids)


def _images_restage(ids: list[int]) -> list[str]:
    """Store again the images of the frames stored against one of these frames (see
    frames.storage), and of the frames stored against those in turn: a delta names its base's
    file, which changes. Every frame left after the batch opens, whether the job deletes it later
    or not. Returns the files they no longer use, to remove once the batch is committed. Runs in
    the batch's transaction."""
    found = Frame.objects.filter(id__in=_images_below(ids, lock=True)).values_list("id", "image_path", "timestamp", "device_name", "monitor")
    groups: dict[tuple[str, str | None], list[tuple[storage.Base, datetime]]] = defaultdict(list)
    for frame_id, relpath, moment, device, monitor in sorted(found, key=lambda row: (row[2], row[0])):
        groups[(device, monitor)].append((storage.Base(frame_id=frame_id, relpath=relpath), moment))
    placed: list[storage.StagedImage] = []
    old: list[str] = []
    try:
        for group in groups.values():
            frames = [frame for frame, _ in group]
            restaged = storage.image_restage(frames, timestamps=[moment for _, moment in group], quality=settings.IMAGE_QUALITY, exact=settings.IMAGE_EXACT)
            for frame, staged in zip(frames, restaged):
                if staged is None:
                    continue  # unreadable (a file of its chain gone or damaged): left as it is
                placed.append(staged)
                staged.place()
                Frame.objects.filter(id=frame.frame_id).update(
                    image_path=staged.relpath, image_bytes=staged.size, image_base_id=staged.base, image_form=storage.IMAGE_FORM
                )
                old.append(frame.relpath)
    except BaseException:
        for staged in placed:
            staged.discard()
        raise
    return old


# Images stored in an older form, stored again in today's (`manage.py compact`) -----------------


def _images_below(ids: list[int], *, lock: bool = False) -> list[int]:
    """The frames stored against one of these frames, or against those in turn (a chain is at
    most storage.CHAIN_MAX deep). With `lock` (in a transaction), each level is locked before its
    frames below are asked for: a frame being stored against one of them (frame_ingest locks its
    base) is committed first, and found."""
    seen, found, above = set(ids), [], list(ids)
    while above:
        if lock:
            list(Frame.objects.select_for_update().filter(id__in=above).values_list("id", flat=True))
        above = list(Frame.objects.filter(image_base_id__in=above).exclude(id__in=seen).values_list("id", flat=True))
        seen.update(above)
        found += above
    return found


_TREE_FIELDS = ("id", "image_path", "timestamp", "device_name", "width", "height", "image_bytes", "monitor")


def _images_tree_compact(root_id: int, before: datetime) -> int:
    """Store again in today's form the images of a frame in an older form and of every frame
    stored against it (the frames whose files name its file), in one transaction; returns how many
    frames it did (0: none, the tree reaches past `before` or changed meanwhile). A lossy frame
    is kept as it is (its pixels are what is left). The tree is stored again only when that makes
    it smaller; either way its frames count as done."""
    ids = [root_id, *_images_below([root_id])]
    rows = list(
        Frame.objects.filter(id__in=ids).order_by("timestamp", "id").values_list(*_TREE_FIELDS)
    )
    if not rows or rows[-1][2] >= before:  # frames a new one may still be stored against
        return 0
    first = rows[0]
    # What the first may be stored against besides: its screen's frames in today's form just before.
    settled = Frame.objects.filter(image_form__isnull=False).exclude(id__in=ids)
    bases = _image_bases(first[3], first[7], first[2], (first[4], first[5]), others=settled)
    def exact(relpath: str) -> bool:
        try:
            return storage.image_exact(relpath)
        except OSError:  # its file is gone: nothing to store again
            return False

    again = [row for row in rows if exact(row[1])]
    restaged = storage.image_restage(
        [storage.Base(frame_id=row[0], relpath=row[1]) for row in again], timestamps=[row[2] for row in again],
        quality=settings.IMAGE_QUALITY, exact=settings.IMAGE_EXACT, bases=bases,
    )
    # A frame a file of whose chain is gone or damaged (None) is kept as it is.
    again, staged = [row for row, item in zip(again, restaged) if item], [item for item in restaged if item]
    smaller = bool(staged) and sum(item.size for item in staged) < sum(row[6] for row in again)
    placed: list[storage.StagedImage] = []
    old: list[str] = []
    try:
        with transaction.atomic():
            # Locked (see _images_restage): a frame being stored against one of them is seen below.
            now = list(Frame.objects.select_for_update().filter(id__in=ids).order_by("timestamp", "id").values_list(*_TREE_FIELDS))
            if now != rows or Frame.objects.filter(image_base_id__in=ids).exclude(id__in=ids).exists():
                for item in staged:
                    item.discard()
                return 0
            if smaller:
                for row, item in zip(again, staged):
                    placed.append(item)
                    item.place()
                    Frame.objects.filter(id=row[0]).update(image_path=item.relpath, image_bytes=item.size, image_base_id=item.base)
                old = [row[1] for row in again]
            else:
                for item in staged:
                    item.discard()
            Frame.objects.filter(id__in=ids).update(image_form=storage.IMAGE_FORM)
    except BaseException:
        for item in placed:
            item.discard()
        raise
    storage.files_remove(old)  # committed: no row names them (a crash just before leaves them behind)
    return len(ids)


def images_compact(limit: int) -> int:
    """Store again in today's form the images of about `limit` frames stored in an older one
    (frames.storage: chains of deltas, patches of changed rows), oldest first, a tree of frames
    stored against each other in each transaction; returns how many frames (0: none left that
    is older than IMAGE_BASE_SPAN). Deltas name their base's file, so a tree goes whole or not
    at all: every frame opens at any moment, and stopped anywhere, this goes on where it was."""
    before = timezone.now() - IMAGE_BASE_SPAN
    done = 0
    while done < limit:
        root = images_old(before=before).order_by("timestamp", "id").values_list("id", flat=True).first()
        if root is None or not (count := _images_tree_compact(root, before)):
            break
        done += count
    return done


def _deletion_settle(job_id: int) -> None:
    """Remove what the job's last batch owes outside the database: its vectors (through
    frames_deleted) and its files. Raises when a receiver fails; the debt then stays."""
    job = FrameDeletion.objects.get(id=job_id)
    if not job.pending:
        return
    gone = [
        FrameGone(id=frame_id, timestamp=datetime.fromtimestamp(ts_ms / 1000, tz=dt_timezone.utc))
        for frame_id, ts_ms in job.pending.get("frames", [])
    ]
    removed = dict(job.removed)
    _counts_add(removed, frames_deleted.send(sender=Frame, frames=gone))
    files, freed = storage.files_remove(job.pending.get("files", []))
    removed["files"] = removed.get("files", 0) + files
    removed["file_bytes"] = removed.get("file_bytes", 0) + freed
    job.removed = removed
    job.pending = {}
    job.save(update_fields=["removed", "pending", "updated_at"])


def frames_delete_run(*, job_id: int, progress: Callable[[int], None] | None = None) -> FrameDeletion:
    """Carry out a deletion to its end (or finish one that was interrupted), erase what the
    deleted rows leave behind and give back the database's free pages; progress(n) is told each
    batch's frames. When the vector index cannot be reached the rows and files are gone and the
    job stays running with the reason: the worker's retry removes the vectors once the index
    answers."""
    while True:
        try:
            _deletion_settle(job_id)
        except Exception as exc:
            _deletion_failed(job_id, exc, "could not remove what its frames keep outside the database")
            break
        count = _deletion_batch(job_id)
        if not count:
            _deletion_finish(job_id)
            break
        if progress:
            progress(count)
    database_space_reclaim()
    return FrameDeletion.objects.get(id=job_id)


def _deletion_failed(job_id: int, exc: Exception, what: str) -> None:
    """The job stays running with the reason, for the worker's retry."""
    logger.exception("Deletion %s %s", job_id, what)
    FrameDeletion.objects.filter(id=job_id).update(error=f"{type(exc).__name__}: {exc}"[:2000], updated_at=timezone.now())


def deletion_erase(job: FrameDeletion) -> None:
    """Erase what a deletion's rows, all gone, leave behind in later apps' stores (through
    frames_erasing); the database zeroes what it frees itself (secure_delete, see settings)."""
    _browser_tabs_forget(job)
    frames_erasing.send(sender=Frame, start=job.start_time, end=job.end_time, removed=job.removed)


def _browser_tabs_forget(job: FrameDeletion) -> None:
    """The extension's reports of the deleted range go with its frames (they hold URLs and titles):
    every browser's, or the deleted app's when it is a browser."""
    spans = BrowserTab.objects.filter(started_at__lt=job.end_time)
    if job.start_time is not None:
        spans = spans.filter(seen_at__gte=job.start_time)
    if job.app_name:
        spans = spans.filter(browser__in=report_keys_for_app(job.app_name))
    spans.delete()


def _deletion_finish(job_id: int) -> None:
    """Every row and file of the job is gone: erase what they leave behind, then the job is
    done. An erase that fails leaves the job running with the reason, for the worker's retry."""
    job = FrameDeletion.objects.get(id=job_id)
    try:
        deletion_erase(job)
    except Exception as exc:
        _deletion_failed(job_id, exc, "could not erase what its frames left behind")
        return
    FrameDeletion.objects.filter(id=job_id).update(
        status=FrameDeletion.Status.DONE, finished_at=timezone.now(), error="", updated_at=timezone.now()
    )
    space_forget()  # the space shown is measured again (in this process; others within a minute)


def frames_delete(
    *, end: datetime, start: datetime | None = None, app_name: str = "", reason: str = "delete", progress=None
) -> FrameDeletion:
    """Delete every copy of the frames of a range (of one app, when given): rows, images,
    thumbnails, OCR text, and through the signals whatever later apps keep of them; then erase
    what they leave behind (deletion_erase)."""
    job = frames_delete_begin(start=start, end=end, app_name=app_name, reason=reason)
    return frames_delete_run(job_id=job.id, progress=progress)


def frames_deletions_finish() -> int:
    """Finish deletions that stopped midway (their process died, or the vector index was down);
    returns how many were taken up."""
    taken = 0
    for job_id in deletions_stalled().values_list("id", flat=True):
        claimed = deletions_stalled().filter(id=job_id).update(updated_at=timezone.now())
        if claimed:  # not taken by another process meanwhile
            frames_delete_run(job_id=job_id)
            taken += 1
    return taken


# Compaction of rows written in an older form (see myrecall.space.Compaction) -------------------

_compact_after = {"lines": 0, "text": 0}  # where this process's pass has got to (ids ascend)


def _compact_rows(key: str, old, id_field: str, limit: int) -> list:
    """The next `limit` rows of `old` (rows in an older form) after this process's pass; once the
    pass reaches the end, from the start once more (rows written behind it: a restore, a crash)."""
    rows = list(old.filter(**{f"{id_field}__gt": _compact_after[key]}).order_by(id_field)[:limit])
    if not rows and _compact_after[key]:
        _compact_after[key] = 0
        rows = list(old.order_by(id_field)[:limit])
    if rows:
        last = rows[-1]
        _compact_after[key] = last[0] if isinstance(last, tuple) else getattr(last, id_field)
    return rows


def ocr_lines_compact(limit: int) -> int:
    """Pack again the OCR lines of up to `limit` rows in an older form (JSON, or packed in form 1);
    returns how many."""
    with transaction.atomic():
        rows = _compact_rows("lines", ocr_lines_old(), "frame_id", limit)
        for row in rows:
            row.lines = row.lines  # read in the form they are in, written in the current one
            row.save(update_fields=[])
    return len(rows)


def ocr_text_compact(limit: int) -> int:
    """Compress the OCR text of up to `limit` rows still stored plain; returns how many."""
    with transaction.atomic():
        rows = _compact_rows("text", ocr_text_old().values_list("frame_id", "text"), "frame_id", limit)
        for frame_id, text in rows:
            OcrResult.objects.filter(frame_id=frame_id).update(text=text)
    return len(rows)


def _tables_owned(cursor) -> list[str]:
    """PostgreSQL: the tables of this schema the role owns (a partitioned table stands for its
    partitions), which it may vacuum; the shared catalogs only a superuser may."""
    cursor.execute(
        "SELECT c.oid::regclass::text FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace "
        "AND c.relkind IN ('r', 'p', 'm') AND NOT c.relispartition AND pg_get_userbyid(c.relowner) = current_user ORDER BY 1"
    )
    return [name for (name,) in cursor.fetchall()]


def _database_bytes() -> int:
    """PostgreSQL's size of the database in use: every table, index and TOAST table."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_database_size(current_database())")
        return cursor.fetchone()[0]


def database_rebuild() -> tuple[int, int]:
    """Rebuild the database's files: rows rewritten smaller leave room inside their pages that only
    this gives back. SQLite: VACUUM of its file. PostgreSQL: VACUUM FULL, which rewrites each table
    and its indexes (each locked while it is rewritten). Returns the database's bytes before and
    after (0, 0 on another database)."""
    if connection.vendor == "postgresql":
        before = _database_bytes()
        with connection.cursor() as cursor:
            if tables := _tables_owned(cursor):
                cursor.execute(f"VACUUM FULL {', '.join(tables)}")
        return before, _database_bytes()
    if connection.vendor != "sqlite":
        return 0, 0
    connection.ensure_connection()
    raw = connection.connection

    def size() -> int:
        return raw.execute("PRAGMA page_count").fetchone()[0] * raw.execute("PRAGMA page_size").fetchone()[0]

    before = size()
    raw.execute("VACUUM")
    raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return before, size()


def database_space_reclaim() -> None:
    """Give the space of deleted rows back. SQLite (in incremental auto-vacuum mode): its free pages
    go back to the file system, and the write-ahead log, which keeps earlier versions of the pages
    (the deleted rows among them), is emptied into the file. PostgreSQL: VACUUM removes the deleted
    rows and their index entries at once (rather than when autovacuum comes by), so new rows reuse
    their room, and gives the empty pages at the end of each table back to the file system."""
    if connection.in_atomic_block:
        return
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            if tables := _tables_owned(cursor):
                cursor.execute(f"VACUUM {', '.join(tables)}")
        return
    if connection.vendor != "sqlite":
        return
    connection.ensure_connection()
    # executescript steps each statement to its end; a cursor's execute frees one page per call.
    connection.connection.executescript("PRAGMA incremental_vacuum;")
    # TRUNCATE waits (busy_timeout) for readers of older snapshots; one still reading keeps the log.
    busy, _, _ = connection.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    if busy:
        logger.warning("The write-ahead log could not be emptied (a reader kept it); the next deletion or checkpoint will")


def frames_retention_apply(*, days: int | None = None, progress=None) -> FrameDeletion | None:
    """Delete every copy of the frames older than the retention; None when there were none."""
    cutoff = retention_cutoff(days=days)
    if cutoff is None or not Frame.objects.filter(timestamp__lt=cutoff).exists():
        return None
    return frames_delete(end=cutoff, reason="retention", progress=progress)


def privacy_update(
    *,
    excluded_apps: list[str],
    excluded_windows: list[str],
    excluded_urls: list[str],
    redact_secrets: bool,
    capture_paused: bool,
) -> PrivacyRules:
    """Replace the privacy rules. Frames already stored are not touched (delete them by range);
    redaction applies to text read from now on."""
    try:
        cleaned = {
            kind: rules_clean(patterns, kind=kind)
            for kind, patterns in zip(KINDS, (excluded_apps, excluded_windows, excluded_urls))
        }
    except ValueError as exc:
        raise ApplicationError(f"Privacy rules not saved: {exc}.") from None
    PrivacySettings.objects.update_or_create(
        pk=1,
        defaults={
            "excluded_apps": list(cleaned["app"]),
            "excluded_windows": list(cleaned["window"]),
            "excluded_urls": list(cleaned["url"]),
            "redact_secrets": redact_secrets,
            "capture_paused": capture_paused,
        },
    )
    return privacy_rules()


def capture_report_record(
    *,
    device_name: str,
    period_s: float,
    sent: int,
    unchanged: int,
    excluded: int,
    spooled: int,
    paused: bool,
    locked: str = "",
    client: str = "",
    stopped: str = "",
) -> CaptureReport:
    """Keep a capture client's latest report (one per device, replacing the one before), stamped
    with the server's time: the timeline judges from it whether the client is still running."""
    report, _ = CaptureReport.objects.update_or_create(
        device_name=device_name,
        defaults={
            "received_at": timezone.now(),
            "period_s": period_s,
            "sent": sent,
            "unchanged": unchanged,
            "excluded": excluded,
            "spooled": spooled,
            "paused": paused,
            "locked": locked,
            "client": client,
            "stopped": stopped,
        },
    )
    return report


# Browser tabs ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class TabReportResult:
    browser: str  # the browser's key
    span: BrowserTab | None  # None: the report was older than the browser's latest (ignored)
    state: str
    paired: int  # frames given this report's URL
    removed: int  # frames deleted: they showed an excluded page
    released: int  # held frames whose OCR may go on


def browser_tab_report(*, browser: str, state: str, at: float, url: str = "", title: str = "", client: str = "") -> TabReportResult:
    """Record what a browser extension says its active tab is at `at` (epoch seconds, its clock), and
    settle the frames of that browser's windows up to then: each is paired with the tab in effect at
    its time (browser_url filled when its window title shows the tab), deleted with every copy when
    that tab was an excluded page, and released to OCR when it was held for this report.

    The server's privacy rules are applied again: a page whose URL or title they exclude is kept as
    an excluded page, without its URL or title. A report older than the browser's latest one is
    ignored (reports arrive in order; this one was overtaken)."""
    found = browser_of_name(browser)
    if found is None:
        raise ApplicationError(
            f"MyRecall does not know the browser “{browser}”, so it cannot tell which windows are its.",
            extra={"field": "browser"},
            status_code=422,
        )
    moment = timestamp_parse(at)
    if state == BrowserTab.State.PAGE and exclusion_find(privacy_rules(), window_name=title, browser_url=url):
        state = BrowserTab.State.EXCLUDED
    if state != BrowserTab.State.PAGE:
        url = title = ""
    removed: list[tuple[int, datetime, str]] = []
    with transaction.atomic():
        latest = browser_tab_latest(browser=found.key)
        if latest is not None and moment < latest.seen_at:
            return TabReportResult(browser=found.key, span=None, state=state, paired=0, removed=0, released=0)
        now = timezone.now()
        same = (
            latest is not None
            and (latest.state, latest.url, latest.title) == (state, url, title)
            and (moment - latest.seen_at).total_seconds() <= BROWSER_TAB_GAP_S
        )
        if same:
            latest.seen_at, latest.received_at, latest.reports = moment, now, latest.reports + 1
            latest.save(update_fields=["seen_at", "received_at", "reports"])
            span = latest
        else:
            span = BrowserTab.objects.create(
                browser=found.key, browser_name=browser[:100], state=state, url=url, title=title,
                started_at=moment, seen_at=moment, received_at=now,
            )
        since = min(latest.seen_at, moment) if latest is not None else moment
        paired, released = _frames_settle(key=found.key, since=since, until=moment, removed=removed)
        BrowserTab.objects.filter(seen_at__lt=moment - timedelta(seconds=BROWSER_TAB_KEEP_S)).delete()
    for frame_id, moment_of, app_name in removed:
        _frame_excluded_delete(frame_id=frame_id, at=moment_of, app_name=app_name)
    return TabReportResult(browser=found.key, span=span, state=state, paired=paired, removed=len(removed), released=len(released))


def _frames_settle(*, key: str, since: datetime, until: datetime, removed: list) -> tuple[int, list[int]]:
    """Pair the frames of the browser's windows that this report settles (held ones up to `until`,
    and those taken since the previous report, which came before it): returns how many got a URL and
    the held frames released. Frames that showed an excluded page are added to `removed` (and their
    holds marked), to be deleted once this commits. Runs in the report's transaction."""
    classes = app_classes_for_report(key)
    holds = dict(
        BrowserFrameHold.objects.filter(app_class__in=classes, timestamp__lte=until, excluded=False).values_list("frame_id", "timestamp")
    )
    lead = timedelta(seconds=BROWSER_EXCLUDED_LEAD_S)
    recent = (
        Frame.objects.annotate(app_class=Lower("app_name"))
        .filter(app_class__in=classes, timestamp__gt=since - lead - timedelta(seconds=1), timestamp__lte=until + lead)
        .values_list("id", flat=True)
    )
    frames = Frame.objects.filter(id__in=set(holds) | set(recent)).values_list("id", "timestamp", "app_name", "window_name", "browser_url")
    fill: dict[str, list[int]] = {}
    excluded: list[int] = []
    for frame_id, moment, app_name, window_name, browser_url in frames:
        tab = browser_tab_at(app_name=app_name, window_name=window_name, at=moment)
        if tab.excluded:
            excluded.append(frame_id)
            removed.append((frame_id, moment, app_name))
        elif tab.browser_url and not browser_url:
            fill.setdefault(tab.browser_url, []).append(frame_id)
    for url, ids in fill.items():
        Frame.objects.filter(id__in=ids, browser_url="").update(browser_url=url)
    filled = [frame_id for ids in fill.values() for frame_id in ids]
    if filled:
        frames_context_changed.send(sender=Frame, frame_ids=filled)
    BrowserFrameHold.objects.filter(frame_id__in=excluded).update(excluded=True)
    released = [frame_id for frame_id in holds if frame_id not in excluded]
    BrowserFrameHold.objects.filter(frame_id__in=released).delete()
    if released:
        transaction.on_commit(lambda: _frames_ocr_release(released))
    return len(filled), released


def _frames_ocr_release(frame_ids: list[int]) -> None:
    """Held frames settled by a report: read now, ahead of the backlog, in time order."""
    for frame in Frame.objects.filter(id__in=frame_ids, ocr_status=OcrStatus.PENDING).order_by("timestamp", "id"):
        frame_ocr_enqueue_live(frame=frame)


def _frame_excluded_delete(*, frame_id: int, at: datetime, app_name: str) -> None:
    """Delete every copy of a frame that showed an excluded page (the deletion's own machinery: its
    rows, files, index entries, and what the deletion erases), as a deletion of its instant and app."""
    frames_delete(start=at, end=at + timedelta(microseconds=1), app_name=app_name, reason="excluded tab")


def _hold_settle_alone(frame: Frame) -> bool:
    """A held frame whose OCR is due with no report to settle it (the extension stopped reporting):
    pair it with what is known. False when it showed an excluded page (it is deleted, not read)."""
    with transaction.atomic():
        hold = BrowserFrameHold.objects.filter(frame_id=frame.id).first()
        if hold is None:
            return True
        if not hold.excluded:
            tab = browser_tab_at(app_name=frame.app_name, window_name=frame.window_name, at=frame.timestamp)
            if not tab.excluded:
                if tab.browser_url and not frame.browser_url:
                    Frame.objects.filter(id=frame.id).update(browser_url=tab.browser_url)
                    frame.browser_url = tab.browser_url
                hold.delete()
                return True
            hold.excluded = True
            hold.save(update_fields=["excluded"])
    _frame_excluded_delete(frame_id=frame.id, at=frame.timestamp, app_name=frame.app_name)
    return False
