"""Frame image files in the data dir: written to a temp file, then moved into place."""

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
