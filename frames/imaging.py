"""Decoding, hashing and encoding of frame images (Pillow and numpy only)."""

import io

import numpy as np
from PIL import Image, UnidentifiedImageError

from myrecall.errors import ApplicationError

ACCEPTED_FORMATS = {"PNG", "JPEG", "WEBP"}
MAX_PIXELS = 8192 * 8192
MIN_SIDE = 16
HASH_SIZE = 16  # 16x16 gradient bits = 256-bit hash

Image.MAX_IMAGE_PIXELS = MAX_PIXELS


def image_decode(data: bytes) -> Image.Image:
    """Fully decode an upload; anything that is not a whole PNG, JPEG or WebP is a 400."""
    if not data:
        raise ApplicationError("The image is empty.", extra={"field": "image"})
    try:
        with Image.open(io.BytesIO(data)) as probe:
            fmt = probe.format
            if fmt not in ACCEPTED_FORMATS:
                raise ApplicationError(
                    f"Unsupported image format {fmt}; send PNG, JPEG or WebP.",
                    extra={"field": "image", "format": fmt},
                    status_code=415,
                )
            probe.load()  # decodes every byte: a truncated or corrupt file fails here
            image = probe.convert("RGB")
    except ApplicationError:
        raise
    except Image.DecompressionBombError as exc:
        raise ApplicationError("The image has too many pixels.", extra={"field": "image", "max_pixels": MAX_PIXELS}, status_code=413) from exc
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        raise ApplicationError(
            "The file does not decode as a PNG, JPEG or WebP image (corrupt or truncated?).",
            extra={"field": "image", "detail": str(exc)[:200]},
        ) from exc
    if min(image.size) < MIN_SIDE:
        raise ApplicationError(f"The image is smaller than {MIN_SIDE} pixels on a side.", extra={"field": "image", "size": list(image.size)})
    return image


def image_hash(image: Image.Image) -> str:
    """256-bit difference hash: signs of horizontal gradients on a 17x16 grey thumbnail."""
    grey = np.asarray(image.convert("L").resize((HASH_SIZE + 1, HASH_SIZE), Image.Resampling.BOX), dtype=np.int16)
    bits = (grey[:, 1:] > grey[:, :-1]).flatten()
    return np.packbits(bits).tobytes().hex()


def hash_distance(a: str, b: str) -> int:
    return (int(a, 16) ^ int(b, 16)).bit_count()


def image_encode(image: Image.Image, *, quality: int) -> bytes:
    """The stored form: WebP, which keeps text sharp at a fraction of PNG's size."""
    out = io.BytesIO()
    image.save(out, format="WEBP", quality=quality, method=4)
    return out.getvalue()
