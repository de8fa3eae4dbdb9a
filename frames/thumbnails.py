"""Thumbnails: made once per frame on first request, kept beside the images."""

import os
import uuid
from pathlib import Path

from PIL import Image

from frames import storage
from frames.models import Frame

THUMB_WIDTH = 320


def thumbnail_path(frame: Frame) -> Path:
    return storage.image_abspath(storage.thumb_relpath(frame.id, frame.timestamp))


def thumbnail_get_or_create(*, frame: Frame) -> Path:
    path = thumbnail_path(frame)
    if path.exists():
        return path
    with Image.open(storage.image_abspath(frame.image_path)) as image:
        height = max(1, round(image.height * THUMB_WIDTH / image.width))
        thumb = image.convert("RGB").resize((THUMB_WIDTH, height), Image.Resampling.LANCZOS)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{uuid.uuid4().hex}.part")
    thumb.save(tmp, format="WEBP", quality=70, method=4)
    os.replace(tmp, path)  # two requests racing both write whole files; the last one wins
    return path
