"""What changed between two frames of a device (frames.changes): pixels and tiles, exactly or
within a tolerance, and a scroll found on rendered pages of real text, the one answer the image
store and incremental OCR both take."""

import numpy as np
from PIL import Image, ImageDraw

from frames import changes, storage
from frames.incremental import regions_plan
from tests.screens import font

WORDS = "invoice budget review flight delayed gate deploy rollback backup restore parcel tracking".split()


def page(top: int, *, size=(800, 600), rows: int = 60, pitch: int = 26) -> np.ndarray:
    """A long page of distinct lines of real text, seen from `top` down (a window scrolled to it)."""
    full = Image.new("RGB", (size[0], rows * pitch + size[1]), "white")
    draw = ImageDraw.Draw(full)
    face = font(18)
    for row in range(rows):
        words = [WORDS[(row * 7 + i * 3) % len(WORDS)] for i in range(6)]
        draw.text((16, 10 + row * pitch), f"{row:03d} " + " ".join(words), font=face, fill="black")
    return np.asarray(full.crop((0, top, size[0], top + size[1])))


def test_pixels_and_tiles_that_changed_exactly_or_within_a_tolerance():
    before = np.zeros((40, 70, 3), dtype=np.uint8)
    after = before.copy()
    after[5, 9, 2] = 1  # one channel of one pixel, by one level
    after[35, 65] = (200, 0, 0)
    exact = changes.pixels_changed(before, after)
    assert exact.shape == (40, 70) and exact.sum() == 2 and exact[5, 9] and exact[35, 65]
    assert changes.pixels_changed(before, after, tolerance=10).sum() == 1  # the small step is noise to OCR
    tiles = changes.tiles_changed(before, after, 32)
    assert tiles.shape == (2, 3) and tiles.tolist() == [[True, False, False], [False, False, True]]
    assert changes.tiles_count(exact, 32).tolist() == [[1, 0, 0], [0, 0, 1]]
    mask = changes.tiles_pixels(tiles, 32, after.shape)
    assert mask.shape == (40, 70) and mask[:32, :32].all() and not mask[:32, 32:].any() and mask[32:, 64:].all()
    # Under a shift, rows with no source in the previous image count as changed.
    shifted = changes.pixels_changed(before, before, shift=10)
    assert shifted[30:].all() and not shifted[:30].any()
    assert changes.pixels_changed(before, before, shift=-10)[:10].all()


def test_a_scroll_of_real_text_is_found_and_only_what_it_brings_is_left_changed():
    before, after = page(300), page(380)  # scrolled down by 80 px
    change = changes.change_find(before, after, tile=32)
    assert change.shift == 80
    # Under the scroll only the rows that came into view are new.
    rows = np.nonzero(change.left.any(axis=1))[0]
    assert rows.min() * 32 >= 600 - 80 - 32, rows
    assert change.left.sum() < 0.2 * change.tiles.sum()
    # Exact under the scroll: the moved rows are the previous image's, pixel for pixel.
    assert np.array_equal(after[: 600 - 80], before[80:])
    # Up, and grey images within a tolerance (what OCR compares), give the same scroll.
    assert changes.change_find(after, before, tile=32).shift == -80
    grey = changes.change_find(changes.grey(before), changes.grey(after), tile=8, tolerance=40, tile_min=3)
    assert grey.shift == 80
    # Incremental OCR plans from the same answer: it reads the new rows and carries the rest.
    lines = [(12, y, 700, 24) for y in (8 + 26 * row - 300 for row in range(60)) if 0 <= y <= 600 - 24]
    plan = regions_plan(previous=before, current=after, line_boxes=lines)
    assert plan.shift == 80 and not plan.full_pass and plan.carried and plan.crops


def test_nothing_or_everything_changed():
    same = page(0)
    change = changes.change_find(same, same.copy(), tile=32)
    assert change.shift == 0 and not change.tiles.any() and not change.left.any()
    other = 255 - same
    change = changes.change_find(same, other, tile=32)
    assert change.shift == 0 and change.left.mean() > 0.5  # another screen: no scroll explains it
    # The image store asks the same module which tiles differ.
    assert np.array_equal(changes.tiles_changed(same, other, storage.TILE), changes.tiles_count(changes.pixels_changed(same, other), storage.TILE) > 0)


def test_tiles_runs_are_the_true_cells_row_by_row():
    grid = np.array([[0, 1, 1, 0, 1], [0, 0, 0, 0, 0], [1, 1, 1, 1, 1]], dtype=bool)
    assert changes.tiles_runs(grid) == [(0, 1, 3), (0, 4, 5), (2, 0, 5)]
    assert changes.tiles_runs(np.zeros((2, 3), dtype=bool)) == []
