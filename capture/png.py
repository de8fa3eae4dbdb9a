"""The one module that encodes screenshots (Pillow)."""

import io

from PIL import Image

from capture.desktop import Shot


def shot_png(shot: Shot) -> bytes:
    """Lossless PNG at the fastest compression: the server re-encodes what it keeps."""
    image = Image.frombuffer("RGB", (shot.width, shot.height), shot.bgra, "raw", "BGRX", 0, 1)
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=1)
    return out.getvalue()
