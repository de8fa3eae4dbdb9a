"""How a screen is read: the one place that decides which regions of a frame go through the OCR
engine, at what scale and with which settings. The live path, imports, re-reading old frames
(`manage.py reocr`) and the benchmarks all read through screen_read, so they read alike.

Given the device's previous frame and the lines read from it, frames/incremental.py's plan of
what changed is the input: the regions it marks are read, its carried lines are kept.

Scale: text detection sees the screen shrunk only as far as its smallest common text allows
(detect_scale). Terminals, editors and dense apps show 7-9 pixel glyphs at 1920x1080: shrunk to
960 pixels (the reader before versions), whole lines of them were never found. A HiDPI screen's
text is larger, so it is shrunk more, and never past DETECT_PIXELS_MAX: bounded time on any
screen. Recognition always reads the lines at the screen's own resolution.
"""

from dataclasses import dataclass

import numpy as np

from frames.imaging import hash_distance
from frames.incremental import RegionPlan, image_grey, regions_plan
from frames.ocr import OcrLine, ocr_engine

# Stored with each frame's text (OcrResult.reader): `manage.py reocr` reads again what an older
# version read.
READER_VERSION = 2

# Detection finds a line whose glyphs are at least this tall at its input (measured on the hard
# screen set, tests/hard_screens: 7-pixel terminal glyphs are found at full scale, not at 0.75;
# the set reads the same at 7 and 8, and 8 costs 18% more CPU).
DETECT_TEXT_PX = 7
# Detection input at most this many pixels: a 2560x1440 screen at its own scale.
DETECT_PIXELS_MAX = 2560 * 1440
# An image or region narrower than this holds no line a person could read.
READ_MIN_PX = 6
# The engine pads a strip longer than 8:1 with blank rows to 4:1 before detection: such a strip's
# detection input is side x side / 4 pixels.
STRIP_RATIO = 8
# Detection rounds its input's sides to multiples of 32: a small region shrunk below this many
# pixels on its shorter side would be stretched out of shape, so it is shrunk less (it costs little).
DETECT_SHORT_MIN = 128
# A screen with no text-like ink (blank, a photo, noise) is looked at this far shrunk.
DETECT_SCALE_NO_TEXT = 0.5
# Measuring text height: glyph edges are steps of this many grey levels between neighbours; the
# rows of a column strip with an edge form runs, and runs of these heights are glyphs.
TEXT_EDGE = 24
TEXT_STRIP = 32
TEXT_RUN = (4, 80)
TEXT_PERCENTILE = 10


@dataclass
class ScreenRead:
    lines: list[OcrLine]
    area: float  # share of the image's pixels run through the engine
    incremental: bool  # True when lines were carried over from the previous image


def base_choose(*, signature: bytes | None, bases: list[bytes | None]) -> int:
    """Which of the device's latest read frames (newest first, by their screen signatures) a new
    frame is read against: the one just before it, unless another is far nearer (a switch back to a
    window seen minutes ago). A scroll changes most of the signature's tiles yet is read cheaply
    from the frame before, so that one keeps the lead unless another is twice as near."""
    if signature is None or len(bases) < 2:
        return 0
    distances = [hash_distance(signature, base) if base is not None else None for base in bases]
    known = [(distance, index) for index, distance in enumerate(distances) if distance is not None]
    if not known or distances[0] is None:
        return 0
    nearest, index = min(known)
    return index if nearest * 2 < distances[0] else 0


def text_height(*, image: np.ndarray) -> float | None:
    """The height in pixels of the smaller common glyphs on a screen (the TEXT_PERCENTILE-th
    percentile of the ink runs in its column strips), or None when nothing on it looks like text."""
    grey = image_grey(image=image)
    height, width = grey.shape
    cut = (width - 1) // TEXT_STRIP * TEXT_STRIP
    if cut == 0 or height < TEXT_RUN[0]:
        return None
    edges = np.abs(np.diff(grey[:, : cut + 1], axis=1)) > TEXT_EDGE
    inked = edges.reshape(height, cut // TEXT_STRIP, TEXT_STRIP).any(axis=2)
    bounded = np.zeros((height + 2, inked.shape[1]), dtype=np.int8)
    bounded[1:-1] = inked
    steps = np.diff(bounded, axis=0).T  # strip by strip: a run starts at +1 and ends at -1
    runs = np.nonzero(steps == -1)[1] - np.nonzero(steps == 1)[1]
    runs = runs[(runs >= TEXT_RUN[0]) & (runs <= TEXT_RUN[1])]
    return float(np.percentile(runs, TEXT_PERCENTILE)) if len(runs) else None


def detect_scale(*, image: np.ndarray) -> float:
    """How far text detection may shrink this screen (1.0: not at all)."""
    glyphs = text_height(image=image)
    scale = DETECT_SCALE_NO_TEXT if glyphs is None else min(1.0, DETECT_TEXT_PX / glyphs)
    height, width = image.shape[:2]
    return min(scale, (DETECT_PIXELS_MAX / max(height * width, 1)) ** 0.5)


def _side(shape: tuple[int, ...], scale: float) -> int:
    """The detection input's longer side for an image or region of this shape."""
    long, short = max(shape[:2]), max(min(shape[:2]), 1)
    strip = long / short > STRIP_RATIO
    short = max(short, long / 4) if strip else short
    side = long * max(scale, min(1.0, DETECT_SHORT_MIN / short))
    if strip:
        side = min(side, (4 * DETECT_PIXELS_MAX) ** 0.5)
    return max(32, round(side))


def lines_order(lines: list[OcrLine]) -> list[OcrLine]:
    """Reading order: top to bottom, and left to right within a row (tops within a few pixels)."""
    ordered = sorted(lines, key=lambda line: (line.box[1], line.box[0]))
    for i in range(len(ordered) - 1):
        for j in range(i, -1, -1):
            a, b = ordered[j], ordered[j + 1]
            if abs(b.box[1] - a.box[1]) < 10 and b.box[0] < a.box[0]:
                ordered[j], ordered[j + 1] = b, a
            else:
                break
    return ordered


def regions_read(
    *, image: np.ndarray, regions: list[tuple[int, int, int, int]], engine: str | None = None, scale: float | None = None
) -> list[OcrLine]:
    """Read rectangles (x, y, w, h) of an image, at the whole screen's detection scale; boxes come
    back in the whole image's pixels."""
    reader = ocr_engine(engine)
    scale = detect_scale(image=image) if scale is None else scale
    lines = []
    for x, y, w, h in regions:
        if min(w, h) < READ_MIN_PX:
            continue
        crop = np.ascontiguousarray(image[y : y + h, x : x + w])
        lines.extend(line.moved(dx=x, dy=y) for line in reader.recognize(crop, detect_side=_side(crop.shape, scale)))
    return lines


def whole_read(*, image: np.ndarray, engine: str | None = None, scale: float | None = None) -> list[OcrLine]:
    """Every line of a screen read from scratch (at detect_scale unless `scale` is given)."""
    if min(image.shape[:2]) < READ_MIN_PX:
        return []
    scale = detect_scale(image=image) if scale is None else scale
    return ocr_engine(engine).recognize(image, detect_side=_side(image.shape, scale))


def change_plan(*, image: np.ndarray, previous_image: np.ndarray, previous_lines: list[OcrLine]) -> RegionPlan:
    """frames/incremental.py's plan of what changed since the previous image and its lines."""
    return regions_plan(
        previous=previous_image,
        current=image,
        line_boxes=[line.box for line in previous_lines],
        word_boxes=[[word.box for word in line.words] for line in previous_lines],
    )


def screen_read(
    *,
    image: np.ndarray,
    previous_image: np.ndarray | None = None,
    previous_lines: list[OcrLine] | None = None,
    engine: str | None = None,
    scale: float | None = None,
) -> ScreenRead:
    """Read a screen. Given the previous image of the same screen and its lines, read only the
    regions that changed and carry the other lines over (moved if the content scrolled). Text
    detection runs at detect_scale of the whole screen unless `scale` is given."""
    scale = detect_scale(image=image) if scale is None else scale
    if previous_image is not None and previous_lines is not None:
        plan = change_plan(image=image, previous_image=previous_image, previous_lines=previous_lines)
        if not plan.full_pass:
            carried = [previous_lines[index].moved(dy=dy) for index, dy in plan.carried]
            read = regions_read(image=image, regions=plan.crops, engine=engine, scale=scale)
            return ScreenRead(lines=lines_order(carried + read), area=plan.area, incremental=True)
    return ScreenRead(lines=whole_read(image=image, engine=engine, scale=scale), area=1.0, incremental=False)
