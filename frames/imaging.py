"""Decoding and hashing of uploaded frame images (Pillow and numpy only); how an image is
stored is frames.storage's."""

import io
import re
import zlib

import numpy as np
from PIL import Image, UnidentifiedImageError

from myrecall.errors import ApplicationError

ACCEPTED_FORMATS = {"PNG", "JPEG", "WEBP"}
MAX_PIXELS = 8192 * 8192
SIGNATURE_GRID = (48, 27)  # 40x40-pixel tiles on a 1920x1080 screen
NOISE_LEVELS = 3  # grey levels a tile mean may move by re-encoding alone
_OBJECT_REPR = re.compile(r"<[\w.]+ object at 0x[0-9a-f]+>")

Image.MAX_IMAGE_PIXELS = MAX_PIXELS


def image_decode(data: bytes) -> Image.Image:
    """Fully decode an upload; anything that is not a whole PNG, JPEG or WebP is a 415
    (Unsupported Media Type: what came is not an image MyRecall reads)."""
    if not data:
        raise ApplicationError("The image is empty.", extra={"field": "image"}, status_code=415)
    try:
        with Image.open(io.BytesIO(data)) as probe:
            fmt = probe.format
            if fmt not in ACCEPTED_FORMATS:
                raise ApplicationError(
                    f"Unsupported image format {fmt}; send PNG, JPEG or WebP.",
                    extra={"field": "image", "format": fmt},
                    status_code=415,
                )
            if probe.width * probe.height > MAX_PIXELS:  # Pillow itself only warns below twice its limit
                raise Image.DecompressionBombError(f"{probe.width}x{probe.height}")
            probe.load()  # decodes every byte: a truncated or corrupt file fails here
            image = probe.convert("RGB")
    except ApplicationError:
        raise
    except Image.DecompressionBombError as exc:
        raise ApplicationError("The image has too many pixels.", extra={"field": "image", "max_pixels": MAX_PIXELS}, status_code=413) from exc
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        raise ApplicationError(
            "The file does not decode as a PNG, JPEG or WebP image (corrupt or truncated?).",
            extra={"field": "image", "detail": _OBJECT_REPR.sub("", str(exc))[:200].strip()},
            status_code=415,
        ) from exc
    return image


def image_hash(image: Image.Image) -> bytes:
    """Perceptual signature: the mean grey level of each tile of a 48x27 grid, stored compressed
    (hash_pack: about 280 bytes for a screen, against 1,296).

    A global 64- or 256-bit hash cannot tell a typed word from compression noise
    on a 1920x1080 screen (both flip 0-7 bits); tile means can: a new character
    moves its tile by 7+ levels, re-encoding moves tiles by under 1.
    """
    return hash_pack(image.convert("L").resize(SIGNATURE_GRID, Image.Resampling.BOX).tobytes())


SIGNATURE_BYTES = SIGNATURE_GRID[0] * SIGNATURE_GRID[1]  # a raw signature's length
_HASH_PACKED = b"\x01"


def hash_pack(raw: bytes) -> bytes:
    """A signature's stored form: marked and zlib-compressed (a stored signature of exactly
    SIGNATURE_BYTES is raw: rows written before were)."""
    if len(raw) != SIGNATURE_BYTES:
        return raw
    for level in (9, 1):  # a packed form of exactly SIGNATURE_BYTES would read as raw
        packed = _HASH_PACKED + zlib.compress(raw, level)
        if len(packed) != SIGNATURE_BYTES:
            return packed
    return raw


def hash_unpack(stored: bytes) -> bytes:
    stored = bytes(stored)
    if len(stored) != SIGNATURE_BYTES and stored.startswith(_HASH_PACKED):
        try:
            return zlib.decompress(stored[1:])
        except zlib.error:
            return stored
    return stored


def hash_distance(a: bytes, b: bytes) -> int:
    """How many tiles differ by more than compression noise (0 = the same screen)."""
    a, b = hash_unpack(a), hash_unpack(b)
    if len(a) != len(b):
        return len(a) + len(b)
    diff = np.abs(np.frombuffer(a, dtype=np.uint8).astype(np.int16) - np.frombuffer(b, dtype=np.uint8))
    return int((diff > NOISE_LEVELS).sum())
