"""Every file of a frame in the data dir: its image (written to a temp file, then moved into
place) and its thumbnail, by path relative to the data dir, and their removal."""

import os
import shutil
import uuid
from datetime import datetime
from pathlib import Path

from django.conf import settings

IMAGE_SUFFIX = ".webp"


def frames_root() -> Path:
    return Path(settings.DATA_DIR) / "frames"


def _tmp_dir() -> Path:
    path = frames_root() / ".tmp"
    path.mkdir(parents=True, exist_ok=True)
    return path


def image_relpath(timestamp: datetime) -> str:
    return f"frames/{timestamp:%Y/%m/%d}/{uuid.uuid4().hex}{IMAGE_SUFFIX}"


def image_abspath(relpath: str) -> Path:
    return Path(settings.DATA_DIR) / relpath


def thumb_relpath(frame_id: int, timestamp: datetime) -> str:
    return f"thumbs/{timestamp:%Y/%m/%d}/{frame_id}{IMAGE_SUFFIX}"


def frame_relpaths(frame_id: int, timestamp: datetime, image_path: str) -> list[str]:
    """The files a frame may have: its image and its thumbnail (made on first request)."""
    return [image_path, thumb_relpath(frame_id, timestamp)]


def files_remove(relpaths: list[str]) -> tuple[int, int]:
    """Remove these files of the data dir, those that exist, and then the day folders they
    leave empty; returns (files removed, bytes given back). Safe to run again."""
    root = Path(settings.DATA_DIR).resolve()
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


def image_write_temp(data: bytes) -> Path:
    path = _tmp_dir() / f"{uuid.uuid4().hex}.part"
    with open(path, "wb") as fh:
        fh.write(data)
    return path


def image_place(tmp: Path, relpath: str) -> Path:
    final = image_abspath(relpath)
    final.parent.mkdir(parents=True, exist_ok=True)
    os.replace(tmp, final)
    return final


def image_discard(*paths: Path) -> None:
    for path in paths:
        try:
            path.unlink()
        except FileNotFoundError:
            pass


def tmp_sweep() -> int:
    """Remove temp files left by a process that died mid-ingest; returns how many."""
    tmp = frames_root() / ".tmp"
    if not tmp.exists():
        return 0
    count = sum(1 for _ in tmp.iterdir())
    shutil.rmtree(tmp, ignore_errors=True)
    return count
