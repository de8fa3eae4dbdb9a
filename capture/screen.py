"""The one module that takes screenshots (mss, X11's shared-memory grab) and encodes them
(Pillow): a frame is skipped when not a pixel changed since the last one sent."""

import io
import zlib
from dataclasses import dataclass

import mss
from mss.exception import ScreenShotError
from PIL import Image


@dataclass(frozen=True)
class Shot:
    width: int
    height: int
    bgra: bytes
    checksum: int


class ScreenError(Exception):
    """A screenshot failed (the reason, as mss gives it)."""


class Screen:
    def __init__(self, *, monitor: int = 1, display_name: str | None = None):
        """monitor: 1 the first, 2 the second, ...; 0 every monitor as one image."""
        kwargs = {"display": display_name.encode() if display_name else None} if display_name else {}
        self._mss = mss.mss(**kwargs)
        monitors = self._mss.monitors
        if not 0 <= monitor < len(monitors):
            raise ValueError(f"there is no monitor {monitor}: this display has {len(monitors) - 1}")
        self.area = monitors[monitor]

    def grab(self) -> Shot:
        try:
            raw = self._mss.grab(self.area)
        except Exception as exc:  # mss 10 reports a lost X connection as a bare AssertionError
            raise ScreenError(f"the screenshot failed: {exc!r}") from exc
        data = bytes(raw.bgra)
        return Shot(width=raw.width, height=raw.height, bgra=data, checksum=zlib.crc32(data))

    def close(self) -> None:
        try:
            self._mss.close()
        except ScreenShotError:
            pass  # the display is gone already


def shot_png(shot: Shot) -> bytes:
    """Lossless PNG at the fastest compression: the server re-encodes what it keeps."""
    image = Image.frombuffer("RGB", (shot.width, shot.height), shot.bgra, "raw", "BGRX", 0, 1)
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=1)
    return out.getvalue()
