"""How a screen is read: the one place that decides which regions of a frame go through the OCR
engine, at what scale and with which settings. The live path, imports, re-reading old frames
(`manage.py reocr`) and the benchmarks all read through screen_read, so they read alike.

Given the device's previous frame and the lines read from it, frames/incremental.py's plan of
what changed is the input: the regions it marks are read, its carried lines are kept.
"""

from dataclasses import dataclass

import numpy as np

from frames.imaging import hash_distance
from frames.incremental import RegionPlan, regions_plan
from frames.ocr import OcrLine, ocr_engine

# Stored with each frame's text (OcrResult.reader): `manage.py reocr` reads again what an older
# version read.
READER_VERSION = 1

# Text detection runs on the screen shrunk to this many pixels on its longer side.
DETECT_SIDE = 960


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


def regions_read(*, image: np.ndarray, regions: list[tuple[int, int, int, int]], engine: str | None = None) -> list[OcrLine]:
    """Read rectangles (x, y, w, h) of an image; boxes come back in the whole image's pixels."""
    reader = ocr_engine(engine)
    lines = []
    for x, y, w, h in regions:
        crop = np.ascontiguousarray(image[y : y + h, x : x + w])
        lines.extend(line.moved(dx=x, dy=y) for line in reader.recognize(crop, detect_side=DETECT_SIDE))
    return lines


def whole_read(*, image: np.ndarray, engine: str | None = None) -> list[OcrLine]:
    """Every line of a screen read from scratch."""
    return ocr_engine(engine).recognize(image, detect_side=DETECT_SIDE)


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
) -> ScreenRead:
    """Read a screen. Given the previous image of the same screen and its lines, read only the
    regions that changed and carry the other lines over (moved if the content scrolled)."""
    if previous_image is not None and previous_lines is not None:
        plan = change_plan(image=image, previous_image=previous_image, previous_lines=previous_lines)
        if not plan.full_pass:
            carried = [previous_lines[index].moved(dy=dy) for index, dy in plan.carried]
            read = regions_read(image=image, regions=plan.crops, engine=engine)
            return ScreenRead(lines=lines_order(carried + read), area=plan.area, incremental=True)
    return ScreenRead(lines=whole_read(image=image, engine=engine), area=1.0, incremental=False)
