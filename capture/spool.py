"""A bounded queue of frames on disk, in capture order: every frame is written here first and
removed once the server has it, so nothing is lost while the server cannot be reached, and a
restart of the client picks up where it was. When the queue is full the oldest frames go
first (said in the log): the newest screens matter most. Its folder and files are the user's
alone (capture.private)."""

import json
import logging
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from capture.private import dir_private, file_write

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Item:
    path: Path  # the image; its metadata is beside it, same name + ".json"
    meta: dict

    @property
    def size(self) -> int:
        try:
            return self.path.stat().st_size
        except FileNotFoundError:
            return 0


# While the spool stays full, its line is repeated at most this often, with the count so far.
FULL_SAID_EVERY_S = 60.0


class Spool:
    def __init__(self, directory: Path, *, max_bytes: int):
        self.dir = dir_private(Path(directory))
        self.max_bytes = max_bytes
        self.dropped = 0  # frames dropped as the spool was full, since the start
        self._full_said_at: float | None = None
        for leftover in self.dir.glob("*.part"):  # a write cut short by a crash
            leftover.unlink(missing_ok=True)

    def _names(self) -> list[Path]:
        # Names start with the capture time in nanoseconds, zero-padded: sorted is capture order.
        return sorted(path for path in self.dir.glob("*.png"))

    def put(self, image: bytes, meta: dict) -> Item:
        name = f"{meta['timestamp_ns']:020d}-{uuid.uuid4().hex[:8]}"
        path = self.dir / f"{name}.png"
        file_write(path.with_suffix(".json"), json.dumps(meta).encode())
        file_write(path, image)  # the image last: an image in the spool always has its metadata
        self._trim()
        return Item(path=path, meta=meta)

    def _trim(self) -> None:
        names = self._names()
        total = sum(path.stat().st_size for path in names if path.exists())
        while names and total > self.max_bytes and len(names) > 1:
            oldest = names.pop(0)
            total -= oldest.stat().st_size if oldest.exists() else 0
            self.remove(Item(path=oldest, meta={}))
            self.dropped += 1
            now = time.monotonic()
            if self._full_said_at is None or now - self._full_said_at >= FULL_SAID_EVERY_S:
                self._full_said_at = now
                logger.warning(
                    "spool full (%s MB): the oldest frames are dropped to keep the newest; %d dropped so far",
                    f"{self.max_bytes / 2**20:g}", self.dropped,
                )

    def oldest(self) -> Item | None:
        for path in self._names():
            try:
                meta = json.loads(path.with_suffix(".json").read_text())
            except (FileNotFoundError, json.JSONDecodeError):
                logger.warning("spool: %s has no readable metadata; dropped", path.name)
                self.remove(Item(path=path, meta={}))
                continue
            return Item(path=path, meta=meta)
        return None

    def remove(self, item: Item) -> None:
        item.path.unlink(missing_ok=True)
        item.path.with_suffix(".json").unlink(missing_ok=True)

    def count(self, *, besides: Path | None = None) -> int:
        """How many frames the spool holds (but `besides`, when it is one of them)."""
        return sum(1 for path in self._names() if path != besides)

    def bytes(self) -> int:
        return sum(path.stat().st_size for path in self._names() if path.exists())
