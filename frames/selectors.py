"""Reads for frames."""

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
