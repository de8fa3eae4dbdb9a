"""Writes for frames: ingest and OCR."""

import logging
import math
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

import numpy as np
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from PIL import Image

from frames import ocr, storage
from frames.live import frame_created_publish
from frames.imaging import hash_distance, image_decode, image_encode, image_hash
from frames.models import Frame, OcrResult, OcrStatus
from frames.signals import frame_text_ready
from frames.text import text_languages
from myrecall.errors import ApplicationError

logger = logging.getLogger(__name__)

EARLIEST_TIMESTAMP = 946684800.0  # 2000-01-01: anything older is a client bug


@dataclass(frozen=True)
class IngestResult:
    status: str  # "created" | "existing" | "duplicate"
    frame_id: int | None
    duplicate_of: int | None = None
    distance: int | None = None


def timestamp_parse(value: float) -> datetime:
    if value is None or not math.isfinite(value):
        raise ApplicationError("timestamp must be a finite number of epoch seconds.", extra={"field": "timestamp"})
    latest = time.time() + settings.TIMESTAMP_MAX_FUTURE_S
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
    app_name: str = "",
    window_name: str = "",
    browser_url: str = "",
    focused: bool | None = None,
    client_frame_id: str | None = None,
) -> IngestResult:
    """Store one screenshot and queue its OCR.

    Idempotent on (device_name, client_frame_id); a near-duplicate of the device's
    previous frame is not stored. The image file and the row land together or not at all.
    """
    ts = timestamp_parse(timestamp)
    if len(image_bytes) > settings.MAX_UPLOAD_BYTES:
        raise ApplicationError(
            "Upload too large.", extra={"max_bytes": settings.MAX_UPLOAD_BYTES, "bytes": len(image_bytes)}, status_code=413
        )
    device_name = device_name or "default"
    client_frame_id = client_frame_id or None
    if found := _existing(device_name, client_frame_id):
        return found

    image = image_decode(image_bytes)
    phash = image_hash(image)
    if settings.DEDUP_MAX_DISTANCE >= 0:
        previous = (
            Frame.objects.filter(device_name=device_name, timestamp__lte=ts)
            .order_by("-timestamp", "-id")
            .values("id", "phash")
            .first()
        )
        if previous:
            distance = hash_distance(previous["phash"], phash)
            if distance <= settings.DEDUP_MAX_DISTANCE:
                return IngestResult(status="duplicate", frame_id=None, duplicate_of=previous["id"], distance=distance)

    encoded = image_encode(image, quality=settings.IMAGE_QUALITY)
    tmp = storage.image_write_temp(encoded)
    relpath = storage.image_relpath(ts)
    final = storage.image_abspath(relpath)
    try:
        with transaction.atomic():
            frame = Frame.objects.create(
                timestamp=ts,
                device_name=device_name,
                client_frame_id=client_frame_id,
                app_name=app_name or "",
                window_name=window_name or "",
                browser_url=browser_url or "",
                focused=focused,
                image_path=relpath,
                width=image.width,
                height=image.height,
                image_bytes=len(encoded),
                phash=phash,
            )
            storage.image_place(tmp, relpath)
            transaction.on_commit(lambda: frame_ocr_enqueue(frame_id=frame.id))
            transaction.on_commit(lambda: frame_created_publish(frame=frame))
    except IntegrityError:
        storage.image_discard(tmp, final)
        # A concurrent retry with the same client_frame_id won the race.
        if found := _existing(device_name, client_frame_id):
            return found
        raise
    except BaseException:
        storage.image_discard(tmp, final)
        raise
    return IngestResult(status="created", frame_id=frame.id)


def frame_ocr_enqueue(*, frame_id: int, delay_s: float = 0) -> None:
    from frames.tasks import frame_ocr

    task = frame_ocr
    if delay_s and task.get_backend().supports_defer:
        task = task.using(run_after=timezone.now() + timedelta(seconds=delay_s))
    task.enqueue(frame_id)


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
    path = storage.image_abspath(frame.image_path)
    if not path.exists():
        raise FileNotFoundError(f"image file is missing: {frame.image_path}")
    with Image.open(path) as im:
        return np.asarray(im.convert("RGB"))


def _ocr_read(frame: Frame) -> tuple[list[ocr.OcrLine], float, Frame | None]:
    """Lines of the frame, the share of it actually OCR'd, and the frame carried from.

    With OCR_INCREMENTAL, only what changed since the device's previous frame (read, same
    size) is run through the engine; any trouble on that path falls back to a full pass.
    """
    image = frame_image_load(frame)
    if settings.OCR_INCREMENTAL:
        try:
            previous = (
                Frame.objects.filter(
                    device_name=frame.device_name,
                    timestamp__lt=frame.timestamp,
                    ocr_status=OcrStatus.DONE,
                    width=frame.width,
                    height=frame.height,
                )
                .select_related("ocr")
                .order_by("-timestamp", "-id")
                .first()
            )
            if previous is not None:
                read = ocr.ocr_read(
                    image=image,
                    previous_image=frame_image_load(previous),
                    previous_lines=[ocr.OcrLine.from_json(line) for line in previous.ocr.lines],
                )
                return read.lines, read.area, previous if read.incremental else None
        except Exception:
            logger.exception("Incremental OCR of frame %s failed; reading it whole", frame.id)
    return ocr.ocr_read(image=image).lines, 1.0, None


def frame_ocr_run(*, frame_id: int) -> str:
    """Run OCR for a frame, store the text and boxes, and announce it. Returns the new status.

    A failure is recorded with its reason and retried with backoff, up to OCR_MAX_ATTEMPTS.
    """
    frame = Frame.objects.filter(id=frame_id).first()
    if frame is None or frame.ocr_status == OcrStatus.DONE:
        return frame.ocr_status if frame else "missing"
    started = time.perf_counter()
    try:
        lines, area, carried_from = _ocr_read(frame)
    except Exception as exc:  # any engine or file error becomes a recorded failure
        return _ocr_failed(frame, reason=f"{type(exc).__name__}: {exc}")
    elapsed_ms = int((time.perf_counter() - started) * 1000)
    text = "\n".join(line.text for line in lines)
    with transaction.atomic():
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
            },
        )
        frame.ocr_status = OcrStatus.DONE
        frame.ocr_attempts += 1
        frame.ocr_error = ""
        frame.save(update_fields=["ocr_status", "ocr_attempts", "ocr_error"])
        frame_text_ready.send(sender=Frame, frame=frame)
    return OcrStatus.DONE


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
