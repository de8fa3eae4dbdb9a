"""How a frame's image is kept: its stored format, where its file lives in the data dir, and how
every reader gets it back; also the thumbnails' files, and the removal of a frame's files.

A frame row names its image by a path relative to the data dir (`Frame.image_path`); the path's
suffix says the format it was stored in, so a frame stored in an older format keeps opening after
the format of new frames changes. Nothing outside this module opens an image file or knows the
format: callers ask for pixels (`image_pixels`: OCR, thumbnails, previews), for the stored bytes
as served (`image_open`, `image_bytes`: the viewer and the API), or for the files to copy or
remove (`frame_relpaths`: export, deletion).

Exports: IMAGE_SUFFIX, THUMB_SUFFIX, ImageMissing, StagedImage, image_encode, image_stage, image_pixels,
image_open, image_bytes, image_location, image_content_type, thumb_relpath, thumb_abspath,
frame_relpaths, files_remove, tmp_sweep.
"""

import io
import os
import shutil
import uuid
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import BinaryIO

from django.conf import settings
from PIL import Image

IMAGE_SUFFIX = ".webp"  # the format new frames are stored in
THUMB_SUFFIX = ".webp"  # thumbnails keep theirs, so a frame's thumbnail is found whatever its image's
LOSSLESS_MAX_BYTES = 80 * 1024
# Formats a frame's file may be in: what new frames are stored in, and what an older install or an
# archive may hold. The suffix of the stored path decides.
_CONTENT_TYPES = {".webp": "image/webp", ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}


class ImageMissing(FileNotFoundError):
    """The frame's image file is not in the data dir (removed outside MyRecall, or never placed)."""


def _root() -> Path:
    return Path(settings.DATA_DIR)


def frames_root() -> Path:
    return _root() / "frames"


def _tmp_dir() -> Path:
    path = frames_root() / ".tmp"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _abspath(relpath: str) -> Path:
    return _root() / relpath


# Writing ---------------------------------------------------------------------------------------


def image_encode(image: Image.Image, *, quality: int, lossless_max_bytes: int = LOSSLESS_MAX_BYTES) -> bytes:
    """The stored form: lossless WebP, which is exact and for screens of text about half the
    size of lossy q80; a screen full of photos or video would be huge lossless, so past
    lossless_max_bytes it is stored lossy at `quality` instead."""
    out = io.BytesIO()
    image.save(out, format="WEBP", lossless=True, quality=50, method=4)
    if out.tell() <= lossless_max_bytes:
        return out.getvalue()
    out = io.BytesIO()
    image.save(out, format="WEBP", quality=quality, method=4)
    return out.getvalue()


@dataclass(frozen=True)
class StagedImage:
    """An encoded image written to a temp file, not yet in place: `place()` it inside the
    transaction that creates its row, `discard()` it (and whatever was placed) when that fails."""

    relpath: str
    size: int
    _tmp: Path

    def place(self) -> None:
        final = _abspath(self.relpath)
        final.parent.mkdir(parents=True, exist_ok=True)
        os.replace(self._tmp, final)

    def discard(self) -> None:
        for path in (self._tmp, _abspath(self.relpath)):
            try:
                path.unlink()
            except FileNotFoundError:
                pass


def image_stage(image: Image.Image, *, timestamp: datetime, quality: int) -> StagedImage:
    """Encode a frame's image in the stored format and write it to a temp file of the data dir."""
    data = image_encode(image, quality=quality)
    tmp = _tmp_dir() / f"{uuid.uuid4().hex}.part"
    with open(tmp, "wb") as fh:
        fh.write(data)
    relpath = f"frames/{timestamp:%Y/%m/%d}/{uuid.uuid4().hex}{IMAGE_SUFFIX}"
    return StagedImage(relpath=relpath, size=len(data), _tmp=tmp)


def tmp_sweep() -> int:
    """Remove temp files left by a process that died mid-ingest; returns how many."""
    tmp = frames_root() / ".tmp"
    if not tmp.exists():
        return 0
    count = sum(1 for _ in tmp.iterdir())
    shutil.rmtree(tmp, ignore_errors=True)
    return count


# Reading ---------------------------------------------------------------------------------------


def image_content_type(relpath: str) -> str:
    return _CONTENT_TYPES.get(Path(relpath).suffix.lower(), "application/octet-stream")


def image_location(relpath: str) -> Path:
    """The absolute path of the file that holds the image (what screenpipe's clients are told)."""
    return _abspath(relpath)


def image_open(relpath: str) -> tuple[BinaryIO, str]:
    """The image as stored, to serve: an open binary file (the caller closes it) and its type."""
    try:
        return open(_abspath(relpath), "rb"), image_content_type(relpath)
    except FileNotFoundError as exc:
        raise ImageMissing(f"image file is missing: {relpath}") from exc


def image_bytes(relpath: str) -> bytes:
    stream, _ = image_open(relpath)
    with stream:
        return stream.read()


def image_pixels(relpath: str) -> Image.Image:
    """The image decoded to RGB pixels, whatever format it was stored in."""
    stream, _ = image_open(relpath)
    with stream, Image.open(stream) as image:
        return image.convert("RGB")


# Thumbnails, and every file of a frame ---------------------------------------------------------


def thumb_relpath(frame_id: int, timestamp: datetime) -> str:
    return f"thumbs/{timestamp:%Y/%m/%d}/{frame_id}{THUMB_SUFFIX}"


def thumb_abspath(frame_id: int, timestamp: datetime) -> Path:
    return _abspath(thumb_relpath(frame_id, timestamp))


def frame_relpaths(frame_id: int, timestamp: datetime, image_path: str) -> list[str]:
    """The files a frame may have, relative to the data dir: its image and its thumbnail (made
    on first request). Export copies them; deletion removes them."""
    return [image_path, thumb_relpath(frame_id, timestamp)]


def files_remove(relpaths: list[str]) -> tuple[int, int]:
    """Remove these files of the data dir, those that exist, and then the day folders they
    leave empty; returns (files removed, bytes given back). Safe to run again."""
    root = _root().resolve()
    removed = freed = 0
    folders: set[Path] = set()
    for relpath in relpaths:
        path = (root / relpath).resolve()
        if root not in path.parents:
            continue  # never outside the data dir, whatever a row says
        try:
            size = path.stat().st_size
            path.unlink()
        except FileNotFoundError:
            continue
        removed += 1
        freed += size
        folders.add(path.parent)
    for folder in sorted(folders, key=lambda item: len(item.parts), reverse=True):
        # frames/YYYY/MM/DD, then its month and year when they are left empty too
        for level in (folder, folder.parent, folder.parent.parent):
            if level == root or root not in level.parents:
                break
            try:
                level.rmdir()
            except OSError:
                break
    return removed, freed
