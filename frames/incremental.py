"""Incremental OCR planning: what to read again since the device's previous frame.

Pure numpy. Given the previous image, the boxes of the lines read from it and the
new image, decide which rectangles of the new image must be read again and which
previous lines can be carried over (unchanged, or moved by a vertical scroll). What changed,
and whether the screen scrolled, is frames.changes' answer, the one the image store uses too.

The rule that keeps words from being lost: every piece of ink in the new image
that is not inside a crop is pixel-identical (within WebP noise) to the previous
image, at the same place or shifted by the scroll; and every previous line that
shows there is either carried whole or lies whole inside a crop. Crop edges sit
in blank gaps of the new image or in the margin of a carried line, so no crop
cuts a glyph or a word it reads.
"""

from dataclasses import dataclass, field

import numpy as np

from frames import changes

Box = tuple[int, int, int, int]  # x, y, w, h in pixels

TILE = 8
PIXEL_TOLERANCE = 40  # WebP at quality 80 moves unchanged pixels by up to about 35 grey levels
TILE_MIN_PIXELS = 3  # a tile changed if this many of its pixels did
INK_CONTRAST = 40  # a grey step this large between neighbours is a glyph edge, not a background
ROW_GAP = 3  # blank rows that end a crop upwards or downwards
COLUMN_GAP = 20  # blank columns that end a crop sideways: wider than a space between words
MARGIN = 6  # blank pixels kept around a crop so detection sees the whole glyph
FULL_PASS_SHARE = 0.55  # above this share of pixels to read, one full pass is cheaper
GROW_ROUNDS = 12
INK_MIN_PIXELS = 12  # a word box with less ink than this is blank, not a word
MAX_CROPS = 40
RULE_MIN = 96  # a straight run of ink this long is a border, a rule or a scroll bar, not a glyph


@dataclass
class RegionPlan:
    full_pass: bool
    crops: list[Box] = field(default_factory=list)
    carried: list[tuple[int, int]] = field(default_factory=list)  # (previous line index, dy)
    shift: int = 0  # new row y shows previous row y + shift
    area: float = 1.0  # share of the image's pixels to read


@dataclass
class _Placement:
    """A previous line placed in the new image under one mapping (0 or the scroll)."""

    index: int
    shift: int
    box: tuple[int, int, int, int]  # x0, y0, x1, y1 in the new image
    core: tuple[int, int, int, int]  # the middle half of the box's height: where its glyphs are
    matched: bool  # every pixel of its box is unchanged under its mapping


def image_grey(*, image: np.ndarray) -> np.ndarray:
    """Grey levels (ITU-R 601 luma) as int16 (frames.changes.grey)."""
    return changes.grey(image)


def ink_find(*, grey: np.ndarray) -> np.ndarray:
    """Pixels on a sharp edge (glyph strokes, icons, rules): where text can be."""
    ink = np.zeros(grey.shape, dtype=bool)
    horizontal = np.abs(np.diff(grey, axis=1)) > INK_CONTRAST
    vertical = np.abs(np.diff(grey, axis=0)) > INK_CONTRAST
    ink[:, :-1] |= horizontal
    ink[:, 1:] |= horizontal
    ink[:-1, :] |= vertical
    ink[1:, :] |= vertical
    return ink


def _runs_long(mask: np.ndarray, length: int) -> np.ndarray:
    """Which true entries lie in a run of at least `length` trues down axis 0 (by running sums:
    a window of `length` rows all true starts a run; an entry is in one if such a window covers it)."""
    height, width = mask.shape
    if height < length:
        return np.zeros_like(mask)
    dtype = np.int16 if height < np.iinfo(np.int16).max else np.int32
    sums = np.zeros((height + 1, width), dtype)
    np.cumsum(mask, axis=0, out=sums[1:])
    full = (sums[length:] - sums[:-length]) == length  # the window of rows y .. y + length - 1
    starts = np.zeros((height - length + 2, width), dtype)
    np.cumsum(full, axis=0, out=starts[1:])
    rows = np.arange(height)
    return starts[np.minimum(rows + 1, height - length + 1)] > starts[np.maximum(rows - length + 1, 0)]


def rules_drop(*, ink: np.ndarray) -> np.ndarray:
    """Ink without its long straight runs: window borders, rules, frames and scroll bars join
    lines of text that nothing else joins (a border down a terminal's side touches every line)."""
    return ink & ~_runs_long(ink, RULE_MIN) & ~_runs_long(np.ascontiguousarray(ink.T), RULE_MIN).T


def tiles_count(*, mask: np.ndarray) -> np.ndarray:
    """True pixels per TILE x TILE tile (frames.changes.tiles_count)."""
    return changes.tiles_count(mask, TILE)


def _tiles_to_rects(*, tiles: np.ndarray, shape: tuple[int, int]) -> list[list[int]]:
    """Rectangles (x0, y0, x1, y1) covering the true tiles: bands of tile rows, split at wide gaps."""
    height, width = shape
    rects = []
    band_rows = np.flatnonzero(tiles.any(axis=1))
    if len(band_rows) == 0:
        return rects
    breaks = np.flatnonzero(np.diff(band_rows) > 1)
    for band in np.split(band_rows, breaks + 1):
        cols = np.flatnonzero(tiles[band[0] : band[-1] + 1].any(axis=0))
        col_breaks = np.flatnonzero(np.diff(cols) > COLUMN_GAP // TILE + 1)
        for run in np.split(cols, col_breaks + 1):
            rects.append(
                [
                    int(run[0]) * TILE,
                    int(band[0]) * TILE,
                    min(int(run[-1] + 1) * TILE, width),
                    min(int(band[-1] + 1) * TILE, height),
                ]
            )
    return rects


def _rect_tighten(rect: list[int], mask: np.ndarray) -> list[int]:
    """The rectangle shrunk to the true pixels of `mask` in it (as it is if there are none): a
    change's tiles reach a few pixels into the lines above and below it."""
    x0, y0, x1, y1 = rect
    part = mask[y0:y1, x0:x1]
    rows, cols = np.flatnonzero(part.any(axis=1)), np.flatnonzero(part.any(axis=0))
    if len(rows) == 0:
        return rect
    return [x0 + int(cols[0]), y0 + int(rows[0]), x0 + int(cols[-1]) + 1, y0 + int(rows[-1]) + 1]


def _span_grow(profile: np.ndarray, lo: int, hi: int, gap: int) -> tuple[int, int]:
    """Widen [lo, hi) over ink in `profile` until `gap` blank entries (or the edge) on each side."""
    blank, pos = 0, lo - 1
    while pos >= 0 and blank < gap:
        if profile[pos]:
            lo, blank = pos, 0
        else:
            blank += 1
        pos -= 1
    blank, pos = 0, hi
    while pos < len(profile) and blank < gap:
        if profile[pos]:
            hi, blank = pos + 1, 0
        else:
            blank += 1
        pos += 1
    return lo, hi


def _span_pad(profile: np.ndarray, lo: int, hi: int) -> tuple[int, int]:
    """Add up to MARGIN blank entries on each side, never reaching ink."""
    pad = 0
    while pad < MARGIN and lo - 1 >= 0 and not profile[lo - 1]:
        lo, pad = lo - 1, pad + 1
    pad = 0
    while pad < MARGIN and hi < len(profile) and not profile[hi]:
        hi, pad = hi + 1, pad + 1
    return lo, hi


def _rect_grow(rect: list[int], across: np.ndarray, down: np.ndarray) -> list[int]:
    """Grow a rectangle along the ink it touches until blank gaps surround it: sideways along
    `across`, up and down along `down`."""
    x0, y0, x1, y1 = rect
    for _ in range(GROW_ROUNDS):
        nx0, nx1 = _span_grow(across[y0:y1, :].any(axis=0), x0, x1, COLUMN_GAP)
        ny0, ny1 = _span_grow(down[:, nx0:nx1].any(axis=1), y0, y1, ROW_GAP)
        if (nx0, ny0, nx1, ny1) == (x0, y0, x1, y1):
            break
        x0, y0, x1, y1 = nx0, ny0, nx1, ny1
    return [x0, y0, x1, y1]


def _rects_pad(rects: list[list[int]], *, blocked: np.ndarray) -> list[list[int]]:
    """Pad each rectangle into blank pixels only, never over ink, a carried line or another crop."""
    blocked = blocked.copy()
    for x0, y0, x1, y1 in rects:
        blocked[y0:y1, x0:x1] = True
    padded = []
    for x0, y0, x1, y1 in rects:
        blocked[y0:y1, x0:x1] = False
        x0, x1 = _span_pad(blocked[y0:y1, :].any(axis=0), x0, x1)
        y0, y1 = _span_pad(blocked[:, x0:x1].any(axis=1), y0, y1)
        blocked[y0:y1, x0:x1] = True
        padded.append([x0, y0, x1, y1])
    return padded


def _overlaps(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _contains(outer, inner) -> bool:
    return outer[0] <= inner[0] and outer[1] <= inner[1] and inner[2] <= outer[2] and inner[3] <= outer[3]


def _union(a, b) -> list[int]:
    return [min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])]


def _rects_union(rects: list[list[int]], *, joinable) -> list[list[int]]:
    """Replace two rectangles by their bounding box while `joinable(a, b, others)` allows it."""
    rects = [list(r) for r in rects]
    i = 0
    while i < len(rects):
        for j in range(i + 1, len(rects)):
            if joinable(rects[i], rects[j], rects[:i] + rects[i + 1 : j] + rects[j + 1 :]):
                rects[i] = _union(rects[i], rects.pop(j))
                i = 0  # the grown rectangle may now meet one met before
                break
        else:
            i += 1
    return rects


def _rects_merge(rects: list[list[int]]) -> list[list[int]]:
    """Overlapping crops would read the same text twice."""
    return _rects_union(rects, joinable=lambda a, b, others: _overlaps(a, b))


def _rects_join(rects: list[list[int]], *, blocked: np.ndarray) -> list[list[int]]:
    """Join crops whose bounding box adds only blank pixels: one engine call costs less than two."""

    def count(r) -> int:
        return int(np.count_nonzero(blocked[r[1] : r[3], r[0] : r[2]]))

    def joinable(a, b, others) -> bool:
        box = _union(a, b)
        return count(box) == count(a) + count(b) and not any(_overlaps(box, r) for r in others)

    return _rects_union(rects, joinable=joinable)


def _growth_paths(ink: np.ndarray, placements: list[_Placement]) -> tuple[np.ndarray, np.ndarray]:
    """The ink crops grow along (_rects_close): sideways, and up and down.

    Ink alone would join a terminal's or an editor's lines into one crop of the whole screen:
    lines stand a pixel or two apart, and a border or a column of line numbers runs down the
    screen. So long straight runs (rules_drop) are no path, and growing up or down does not enter
    a previous line that is unchanged where it shows: that line is carried, or read whole when a
    crop touches its middle (its box is then taken in whole). Sideways a crop still grows over
    such a line: a word typed at its end is read with the words before it.
    """
    across = rules_drop(ink=ink)
    down = across.copy()
    for place in placements:
        if place.matched:
            down[place.box[1] : place.box[3], place.box[0] : place.box[2]] = False
    return across, down


def _rects_close(
    rects: list[list[int]], *, paths: tuple[np.ndarray, np.ndarray], placements: list[_Placement]
) -> list[list[int]]:
    """Grow rectangles along `paths` (_growth_paths) and over whole previous lines they touch,
    merging as they meet."""
    across, down = paths
    for _ in range(GROW_ROUNDS):
        grown = []
        for rect in rects:
            rect = _rect_grow(rect, across, down)
            for place in placements:
                if _overlaps(place.core, rect):
                    rect = _union(rect, place.box)
            grown.append(rect)
        grown = _rects_merge(grown)
        if grown == rects:
            break
        rects = grown
    return rects


def _box_clip(box: Box, shift: int, shape: tuple[int, int]) -> tuple[int, int, int, int] | None:
    """The box moved into the new image by a shift and clipped to it, as (x0, y0, x1, y1)."""
    height, width = shape
    x, y, w, h = (int(v) for v in box)
    x0, y0, x1, y1 = max(x, 0), max(y - shift, 0), min(x + w, width), min(y + h - shift, height)
    if x1 <= x0 or y1 <= y0:
        return None
    return x0, y0, x1, y1


def _unchanged(changed: np.ndarray, box: tuple[int, int, int, int]) -> bool:
    return int(changed[box[1] : box[3], box[0] : box[2]].sum()) < TILE_MIN_PIXELS


def _placements(
    *,
    boxes: list[Box],
    words: list[list[Box]],
    shifts: list[int],
    changed: dict[int, np.ndarray],
    ink: np.ndarray,
) -> list[_Placement]:
    """Each previous line under each mapping, if it shows in the new image under that mapping.

    A line shows under a mapping when one of its inked words is unchanged under it (and not
    already unchanged in place): a whole word is never identical by chance.
    """
    shape = ink.shape
    out = []
    for index, box in enumerate(boxes):
        for shift in shifts:
            area = _box_clip(box, shift, shape)
            if area is None:
                continue
            quarter = max((area[3] - area[1]) // 4, 1)
            core = (area[0], area[1] + quarter, area[2], area[3] - quarter)
            # The detector pads a line box by a few pixels, which may hold a neighbour's ascenders.
            trim = int(box[3]) // 8
            top, bottom = int(box[1]) - shift + trim, int(box[1] + box[3]) - shift - trim
            # A line scrolled partly out of view no longer shows all its words.
            whole = shift == 0 or (top >= 0 and bottom <= shape[0])
            matched = whole and _unchanged(changed[shift], (area[0], max(top, 0), area[2], min(bottom, shape[0])))
            shows = matched
            for word in words[index] or [box]:
                if shows:
                    break
                spot = _box_clip(word, shift, shape)
                if spot is None:
                    continue
                shows = (
                    int(ink[spot[1] : spot[3], spot[0] : spot[2]].sum()) >= INK_MIN_PIXELS
                    and _unchanged(changed[shift], spot)
                    and not any(_unchanged(changed[earlier], spot) for earlier in shifts[: shifts.index(shift)])
                )
            if shows and core[3] > core[1]:
                out.append(_Placement(index, shift, area, core, matched))
    return out


def regions_plan(
    *,
    previous: np.ndarray,
    current: np.ndarray,
    line_boxes: list[Box],
    word_boxes: list[list[Box]] | None = None,
) -> RegionPlan:
    """Decide what to read in `current` and what to carry from `previous` (RGB or grey
    arrays of one size), given the boxes of the lines read from `previous` and of their words."""
    if previous.shape[:2] != current.shape[:2]:
        return RegionPlan(full_pass=True)
    prev_grey, grey = image_grey(image=previous), image_grey(image=current)
    height, width = grey.shape
    ink = ink_find(grey=grey)
    ink_tiles = tiles_count(mask=ink) > 0

    # What changed, in place or under a scroll, in the tiles with ink (frames.changes).
    change = changes.change_find(prev_grey, grey, tile=TILE, tolerance=PIXEL_TOLERANCE, tile_min=TILE_MIN_PIXELS, counts=ink_tiles)
    changed = {0: change.changed}
    unexplained = change.left
    shifts = [0]
    if change.shift:
        changed[change.shift] = change.shifted
        shifts.append(change.shift)

    # Most of the text changed (another window): skip the planning, one full pass is cheaper.
    if unexplained.sum() > FULL_PASS_SHARE * max(int(ink_tiles.sum()), 1):
        return RegionPlan(full_pass=True, shift=shifts[-1])
    placements = _placements(
        boxes=line_boxes, words=word_boxes or [[] for _ in line_boxes], shifts=shifts, changed=changed, ink=ink
    )

    left_pixels = change.changed & change.shifted if change.shift else change.changed
    rects = [_rect_tighten(rect, left_pixels) for rect in _tiles_to_rects(tiles=unexplained, shape=(height, width))]
    carried: dict[int, _Placement] = {}
    paths = _growth_paths(ink, placements)  # once: each round below grows along the same ink
    for _ in range(GROW_ROUNDS):
        if len(rects) > MAX_CROPS:  # changes scattered all over (an animation): not worth the calls
            return RegionPlan(full_pass=True, shift=shifts[-1])
        rects = _rects_close(rects, paths=paths, placements=placements)
        carried = {}
        # In place first: repeated content can match both in place and scrolled; one copy is kept.
        # (Lines placed by one mapping overlap only where they did before: on a dense terminal the
        # boxes of neighbouring lines and columns touch. Both are kept.)
        for place in sorted(placements, key=lambda p: (p.shift != 0, p.index)):
            if (
                place.matched
                and place.index not in carried
                and not any(_overlaps(place.core, r) for r in rects)
                and not any(c.shift != place.shift and _overlaps(place.core, c.core) for c in carried.values())
            ):
                carried[place.index] = place
        # A previous line whose text still shows but that cannot be carried whole is read again.
        forced = [
            list(p.box)
            for p in placements
            if p.index not in carried and not any(_contains(r, p.box) for r in rects)
        ]
        if not forced:
            break
        rects = rects + forced
    else:
        return RegionPlan(full_pass=True, shift=shifts[-1])

    blocked = ink.copy()
    for place in carried.values():
        blocked[place.core[1] : place.core[3], place.core[0] : place.core[2]] = True
    rects = _rects_join(_rects_pad(rects, blocked=blocked), blocked=blocked)
    area = sum((r[2] - r[0]) * (r[3] - r[1]) for r in rects) / float(height * width)
    # Recognition costs by the line, so the share of the text to read decides, not only the area.
    inked = max(int(ink.sum()), 1)
    ink_share = sum(int(ink[r[1] : r[3], r[0] : r[2]].sum()) for r in rects) / inked
    shift = shifts[-1]
    if area > FULL_PASS_SHARE or ink_share > FULL_PASS_SHARE:
        return RegionPlan(full_pass=True, shift=shift, area=1.0)
    return RegionPlan(
        full_pass=False,
        crops=[(r[0], r[1], r[2] - r[0], r[3] - r[1]) for r in rects],
        carried=sorted((p.index, -p.shift) for p in carried.values()),
        shift=shift,
        area=area,
    )
