"""Thumbnails: made once per frame on first request, kept beside the images in the storage every
server shares (frames.storage), so one made by any server is served by all, and a deletion on any
machine removes it."""

import io
from pathlib import Path
from typing import BinaryIO

from PIL import Image

from frames import storage
from frames.models import Frame

THUMB_WIDTH = 320


def thumbnail_path(frame: Frame) -> Path | None:
    """Its file, when the storage keeps files on a file system."""
    return storage.thumb_abspath(frame.id, frame.timestamp)


def thumbnail_open(*, frame: Frame) -> BinaryIO:
    """The frame's thumbnail, open (the caller closes it): made and kept on first request."""
    try:
        return storage.thumb_open(frame.id, frame.timestamp)
    except FileNotFoundError:
        pass
    image = storage.image_pixels(frame.image_path)
    height = max(1, round(image.height * THUMB_WIDTH / image.width))
    out = io.BytesIO()
    image.resize((THUMB_WIDTH, height), Image.Resampling.LANCZOS).save(out, format="WEBP", quality=70, method=4)
    storage.thumb_save(frame.id, frame.timestamp, out.getvalue())
    out.seek(0)
    return out


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
