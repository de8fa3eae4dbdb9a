"""What changed between two frames of one device: which tiles differ, and whether the screen
scrolled, so that what moved is not taken for new. The one answer both the image store
(frames/storage.py: a frame stored as what it adds to one before it) and incremental OCR
(frames/incremental.py: what to read again and which lines to carry over) work from.

Pure numpy. Images are arrays of one shape: RGB (H, W, 3) or grey (H, W). A mapping is a
vertical shift: row y of the new image shows row y + shift of the previous one (a page scrolled
down by 80 px is shift +80). Pixels are compared exactly (tolerance 0: what storage needs to
read back the pixels captured) or within a tolerance (what OCR needs against a stored image that
was lossy).

Exports:
- grey(image): grey levels (ITU-R 601 luma) as int16.
- pixels_changed(previous, current, shift=0, tolerance=0): where the new image differs from the
  previous one under a shift; rows with no source count as changed.
- tiles_count(mask, tile): the true pixels of each tile; tiles_changed(previous, current, tile):
  the tiles that differ at all; tiles_pixels(tiles, tile, shape): a tile grid back to pixels;
  tiles_runs(tiles): its true cells as runs along rows.
- scrolls_rank(previous, current, rows, limit): the vertical shifts that best map the given rows
  of the new grey image onto the previous one, best first (by stroke signatures, within noise);
  scrolls_rank_exact: the same by rows of identical pixels (what the image store compares).
- Change, change_find(...): the mapping (none, or the scroll) that explains most of what changed,
  and the tiles it leaves changed.
"""

from dataclasses import dataclass

import numpy as np
from PIL import Image

STRIP = 64  # column strip whose mean stroke energy is a row's signature for scroll matching
STRIP_TOLERANCE = 1.0
STRIP_INK = 2.0  # mean gradient of a strip row with some stroke in it
SHIFT_TRY_SHARE = 0.01  # look for a scroll only when this share of the tiles that count changed
SHIFT_MIN_GAIN = 0.25  # a scroll must explain this share of the changed tiles that count
SHIFTS_TRIED = 3  # the best-ranked scrolls checked on every pixel
ROW_REPEATS = 4  # a row of pixels found more often than this in the previous image votes for no scroll


def grey(image: np.ndarray) -> np.ndarray:
    """Grey levels (ITU-R 601 luma) as int16, so differences do not wrap."""
    if image.ndim == 2:
        return image.astype(np.int16)
    return np.asarray(Image.fromarray(np.ascontiguousarray(image[..., :3])).convert("L"), dtype=np.int16)


def pixels_changed(previous: np.ndarray, current: np.ndarray, *, shift: int = 0, tolerance: int = 0) -> np.ndarray:
    """(H, W) booleans: where current[y] differs from previous[y + shift] by more than
    `tolerance` (in any channel); rows with no source count as changed."""
    height, width = current.shape[:2]
    changed = np.ones((height, width), dtype=bool)
    lo, hi = max(0, -shift), min(height, height - shift)
    if lo < hi:
        now, before = current[lo:hi], previous[lo + shift : hi + shift]

        def differ(a: np.ndarray, b: np.ndarray) -> np.ndarray:
            return np.abs(a.astype(np.int16) - b.astype(np.int16)) > tolerance if tolerance else a != b

        if now.ndim == 3:  # channel by channel: 5x faster than any() over the last axis
            found = differ(now[..., 0], before[..., 0])
            for channel in range(1, now.shape[2]):
                found |= differ(now[..., channel], before[..., channel])
            changed[lo:hi] = found
        else:
            changed[lo:hi] = differ(now, before)
    return changed


def tiles_count(mask: np.ndarray, tile: int) -> np.ndarray:
    """True pixels per tile x tile cell of an (H, W) mask (edge tiles padded with False)."""
    height, width = mask.shape
    rows, cols = -(-height // tile), -(-width // tile)
    if (rows * tile, cols * tile) != (height, width):
        padded = np.zeros((rows * tile, cols * tile), dtype=bool)
        padded[:height, :width] = mask
        mask = padded
    counter = np.uint8 if tile < 16 else np.int32  # a row of a tile holds at most `tile` pixels
    across = mask.view(np.uint8).reshape(rows * tile, cols, tile).sum(axis=2, dtype=counter)
    return across.reshape(rows, tile, cols).sum(axis=1, dtype=np.int32)


def tiles_changed(previous: np.ndarray, current: np.ndarray, tile: int, *, shift: int = 0) -> np.ndarray:
    """A boolean grid, `tile` pixels a cell: where current differs in any pixel from previous
    (under a shift)."""
    return tiles_count(pixels_changed(previous, current, shift=shift), tile) > 0


def tiles_runs(tiles: np.ndarray) -> list[tuple[int, int, int]]:
    """The true cells of a tile grid as runs along its rows: (row, first column, column after
    the last), row by row. A region copied run by run costs a slice each, not a pixel mask."""
    runs = []
    for row in np.nonzero(tiles.any(axis=1))[0]:
        edges = np.diff(np.concatenate(([0], tiles[row].astype(np.int8), [0])))
        runs += [(int(row), int(start), int(end)) for start, end in zip(np.nonzero(edges == 1)[0], np.nonzero(edges == -1)[0])]
    return runs


def tiles_pixels(tiles: np.ndarray, tile: int, shape: tuple[int, ...]) -> np.ndarray:
    """A tile grid as an (H, W) pixel mask of the image's shape."""
    return np.kron(tiles, np.ones((tile, tile), dtype=bool))[: shape[0], : shape[1]]


def scrolls_rank(previous: np.ndarray, current: np.ndarray, *, rows: np.ndarray, limit: int = SHIFTS_TRIED) -> list[int]:
    """Vertical shifts that best map the given rows of `current` onto `previous` (grey images),
    best first.

    A row is signed by the stroke energy (mean horizontal gradient) of its column strips, which
    a tinted background behind the text (chat bubbles, selections) leaves alone; only strips
    with ink in `current` vote, so blank background matches nothing.
    """
    height, width = current.shape
    strips = (width - 1) // STRIP
    if strips == 0 or not rows.any():
        return []
    cut = strips * STRIP

    def energy(image: np.ndarray) -> np.ndarray:
        return np.abs(np.diff(image[:, : cut + 1], axis=1)).reshape(height, strips, STRIP).mean(axis=2, dtype=np.float32)

    sig_cur, sig_prev = energy(current), energy(previous)
    # Every third row is plenty to rank shifts; the winner is checked on every pixel after.
    sampled = rows.copy()
    sampled[np.arange(height) % 3 != 0] = False
    ys, xs = np.nonzero((sig_cur > STRIP_INK) & sampled[:, None])
    if len(ys) == 0:
        return []
    wanted = sig_cur[ys, xs]
    tolerance = np.maximum(STRIP_TOLERANCE, wanted * 0.1)
    candidates = np.arange(-(height - 1), height)
    candidates = candidates[candidates != 0]
    hits = np.zeros(len(candidates), dtype=np.int64)
    # Shifts in blocks: one vectorised comparison per block instead of a loop per shift.
    step = max(1, 400_000 // len(ys))
    for start in range(0, len(candidates), step):
        block = candidates[start : start + step]
        source = ys[None, :] + block[:, None]
        valid = (source >= 0) & (source < height)
        found = sig_prev[np.clip(source, 0, height - 1), xs[None, :]]
        hits[start : start + step] = ((np.abs(found - wanted) < tolerance) & valid).sum(axis=1)
    best = np.argsort(-hits, kind="stable")[:limit]
    return [int(candidates[i]) for i in best if hits[i] > 0]


def scrolls_rank_exact(previous: np.ndarray, current: np.ndarray, *, rows: np.ndarray, limit: int = SHIFTS_TRIED) -> list[int]:
    """scrolls_rank for images compared exactly (the image store): each given row of `current`
    that is not one colour votes for the shifts that bring a row of `previous` with the very same
    pixels onto it (a row repeated more than ROW_REPEATS times votes for none). A few ms, where
    the stroke signatures take 60."""
    height = current.shape[0]
    flat_prev, flat_cur = previous.reshape(height, -1), current.reshape(height, -1)
    plain_prev = (flat_prev == flat_prev[:, :1]).all(axis=1)
    found: dict[bytes, list[int]] = {}
    for y in np.nonzero(~plain_prev)[0]:
        found.setdefault(flat_prev[y].tobytes(), []).append(int(y))
    votes: dict[int, int] = {}
    wanted = rows & ~(flat_cur == flat_cur[:, :1]).all(axis=1)
    for y in np.nonzero(wanted)[0]:
        sources = found.get(flat_cur[y].tobytes(), ())
        if len(sources) <= ROW_REPEATS:
            for source in sources:
                if source != y:
                    votes[source - int(y)] = votes.get(source - int(y), 0) + 1
    return [shift for shift, _ in sorted(votes.items(), key=lambda item: (-item[1], abs(item[0])))[:limit]]


@dataclass
class Change:
    """What changed from a previous frame to the current one: in place (`changed`, `tiles`), and,
    when the screen scrolled, under the scroll too (`shift` non-zero, `shifted`,
    `shifted_tiles`). `left` are the tiles that count and neither mapping explains."""

    changed: np.ndarray  # (H, W) pixels that differ in place
    tiles: np.ndarray  # tiles with at least `tile_min` of them
    left: np.ndarray  # the tiles that count, changed under every mapping found
    shift: int = 0  # the scroll found (0: none)
    shifted: np.ndarray | None = None  # pixels that differ under the scroll
    shifted_tiles: np.ndarray | None = None


def change_find(
    previous: np.ndarray,
    current: np.ndarray,
    *,
    tile: int,
    tolerance: int = 0,
    tile_min: int = 1,
    counts: np.ndarray | None = None,
    previous_grey: np.ndarray | None = None,
    current_grey: np.ndarray | None = None,
) -> Change:
    """What changed from `previous` to `current` (arrays of one shape), in tiles of `tile`
    pixels (a tile changed when `tile_min` of its pixels did, by more than `tolerance`).

    `counts` says which tiles matter (OCR: those with ink; storage: all, the default). When more
    than SHIFT_TRY_SHARE of them changed in place, the best-ranked scrolls (on the rows with
    changed tiles: scrolls_rank within a tolerance, scrolls_rank_exact without) are checked on
    every pixel; the one that leaves the fewest of them changed is kept if it explains at least
    SHIFT_MIN_GAIN of them."""
    changed = pixels_changed(previous, current, tolerance=tolerance)
    tiles = tiles_count(changed, tile) >= tile_min
    matter = counts if counts is not None else np.ones_like(tiles)
    left = tiles & matter
    found = Change(changed=changed, tiles=tiles, left=left)
    if left.mean() <= SHIFT_TRY_SHARE or not left.any():
        return found
    height = current.shape[0]
    rows = np.repeat(left.any(axis=1), tile)[:height]
    if tolerance:  # against a lossy image: rows are matched by their strokes
        prev_grey = previous_grey if previous_grey is not None else grey(previous)
        cur_grey = current_grey if current_grey is not None else grey(current)
        ranked = scrolls_rank(prev_grey, cur_grey, rows=rows)
    else:
        ranked = scrolls_rank_exact(previous, current, rows=rows)
    best = None
    for shift in ranked:
        pixels = pixels_changed(previous, current, shift=shift, tolerance=tolerance)
        shifted_tiles = tiles_count(pixels, tile) >= tile_min
        remaining = int((left & shifted_tiles).sum())
        if best is None or remaining < best[0]:
            best = (remaining, shift, pixels, shifted_tiles)
    if best and best[0] <= (1 - SHIFT_MIN_GAIN) * left.sum():
        _, found.shift, found.shifted, found.shifted_tiles = best
        found.left = left & found.shifted_tiles
    return found
