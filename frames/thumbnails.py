"""Thumbnails: made once per frame on first request, kept beside the images."""

import io
import os
import uuid
from pathlib import Path

from PIL import Image

from frames import storage
from frames.models import Frame

THUMB_WIDTH = 320


def thumbnail_path(frame: Frame) -> Path:
    return storage.thumb_abspath(frame.id, frame.timestamp)


def thumbnail_get_or_create(*, frame: Frame) -> Path:
    path = thumbnail_path(frame)
    if path.exists():
        return path
    image = storage.image_pixels(frame.image_path)
    height = max(1, round(image.height * THUMB_WIDTH / image.width))
    thumb = image.resize((THUMB_WIDTH, height), Image.Resampling.LANCZOS)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{uuid.uuid4().hex}.part")
    thumb.save(tmp, format="WEBP", quality=70, method=4)
    os.replace(tmp, path)  # two requests racing both write whole files; the last one wins
    return path


PREVIEW_MAX_BYTES = 600_000  # an image an assistant is shown: small enough for its context


def frame_preview(*, frame: Frame, max_side: int, max_bytes: int = PREVIEW_MAX_BYTES) -> bytes:
    """The frame's image as WebP with its longer side at most max_side pixels (never enlarged),
    made smaller still until it fits in max_bytes."""
    image = storage.image_pixels(frame.image_path)
    side = min(max_side, max(image.size))
    while True:
        scale = side / max(image.size)
        size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
        shown = image if size == image.size else image.resize(size, Image.Resampling.LANCZOS)
        out = io.BytesIO()
        shown.save(out, format="WEBP", quality=80, method=4)
        if out.tell() <= max_bytes or side <= 320:
            return out.getvalue()
        side = int(side * 0.75)
