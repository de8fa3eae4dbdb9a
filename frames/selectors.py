"""Reads for frames."""

from datetime import datetime
from datetime import timezone as dt_timezone

from frames.models import Frame, OcrResult
from myrecall.errors import NotFound


def frame_get(*, frame_id: int) -> Frame:
    frame = Frame.objects.filter(id=frame_id).first()
    if frame is None:
        raise NotFound(f"Frame {frame_id} does not exist.", extra={"frame_id": frame_id})
    return frame


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


def frames_between(*, start: float, end: float) -> list[dict]:
    """Frames with start <= timestamp < end, oldest first, as light rows for the timeline."""
    rows = (
        Frame.objects.filter(
            timestamp__gte=datetime.fromtimestamp(start, tz=dt_timezone.utc),
            timestamp__lt=datetime.fromtimestamp(end, tz=dt_timezone.utc),
        )
        .order_by("timestamp", "id")
        .values_list("id", "timestamp", "app_name", "window_name")
    )
    return [{"id": i, "ts": ts.timestamp(), "app_name": app, "window_name": window} for i, ts, app, window in rows]


def frames_newer_than(*, frame_id: int, limit: int = 200) -> list[Frame]:
    return list(Frame.objects.filter(id__gt=frame_id).order_by("id")[:limit])


def frame_latest_id() -> int:
    return Frame.objects.order_by("-id").values_list("id", flat=True).first() or 0


def app_names() -> list[str]:
    return list(Frame.objects.order_by("app_name").values_list("app_name", flat=True).distinct())
