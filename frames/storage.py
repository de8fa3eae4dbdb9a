"""How a frame's image is kept: its stored format, where its file lives, and how every reader gets
it back; also the thumbnails' files, and the removal of a frame's files.

Images and thumbnails live in one Django storage, settings.STORAGES["frames"] (`files()`): the data
dir by default, a folder every machine mounts (MYRECALL_IMAGES_DIR), or any storage class a user
names (MYRECALL_IMAGES_STORAGE), so every web server and worker reads what any of them wrote. This
module reads, writes, checks and deletes them only through that storage's API (open, save, size,
delete, listdir); a local path (`image_location`) only where the storage has one. Staging happens in
a temp folder of this machine's data dir; what a frame keeps ends in the storage.

A frame row names its image by its name in that storage (`Frame.image_path`, a path relative to the
data dir in the default); the path's
suffix says the form it was stored in, so a frame stored in an older form keeps opening after the
form of new frames changes. Two forms are written: whole (lossless WebP; a screen that is mostly
photos or video lossy: photo_share, image_exact), and, for a screen that barely changed, a
delta: the tiles that differ (frames.changes, which incremental OCR asks too) from the device's
frame just before or one of its latest frames stored whole, in place or scrolled (its base;
`StagedImage.base`, which the caller keeps on the row so that a base is never removed under the
frames stored against it: `image_restage` stores those again first). A delta may be stored against
a delta: chains at most CHAIN_MAX deep, so that opening a frame decodes a bounded number of files
(decoded frames are cached). Both forms read back to exactly the pixels captured, but for a lossy
one. Frame.image_form says which generation of these forms wrote a frame (IMAGE_FORM now); `manage.py
compact` stores older ones again. Nothing outside this module opens an image file or knows the format: callers ask
for pixels (`image_pixels`: OCR, thumbnails, previews), for the stored bytes as served
(`image_open`, `image_bytes`: the viewer and the API), or for the files to copy or remove
(`frame_relpaths`: export, deletion).

Exports: IMAGE_SUFFIX, DELTA_SUFFIX, THUMB_SUFFIX, ImageMissing, ImageDamaged, StagedImage, Base, files,
storage_check, photo_share, image_encode, image_exact, image_stage, image_restage, delta_base,
image_pixels, image_open, image_bytes, image_location, image_content_type, thumb_relpath, thumb_abspath,
thumb_open, thumb_save, thumbs_bytes, frame_relpaths, files_remove, tmp_sweep.
"""

import base64
import io
import json
import posixpath
import struct
import threading
import shutil
import uuid
import zlib
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import BinaryIO

import numpy as np
from django.conf import settings
from django.core import checks
from django.core.exceptions import SuspiciousFileOperation
from django.core.files import File
from django.core.files.base import ContentFile
from django.core.files.storage import Storage, storages
from PIL import Image

from frames import changes
from myrecall.space import tree_bytes

IMAGE_SUFFIX = ".webp"  # a frame stored whole: lossless WebP (lossy for a screen of photos or video)
DELTA_SUFFIX = ".mrd"  # a frame stored as the tiles that differ from a frame stored whole
THUMB_SUFFIX = ".webp"  # thumbnails keep theirs, so a frame's thumbnail is found whatever its image's
# Lossless WebP's effort (Pillow's `quality` when lossless): 90 makes real screens 14% smaller
# than 50 did (46.7 against 54.4 KB whole, 24.6 against 29.8 KB a delta's patch) at about the same
# encode CPU (whole p95 0.22-0.30 s on a busy machine); 100 adds 1% for twice the CPU. JPEG XL
# lossless was no smaller and 5-10x slower to encode and to open, PNG and QOI+zstd larger, and
# lossless H.264 larger and slow to open one frame (bench/coders.py). A frame stored whole takes
# 75: since deltas chain, whole frames are the screens that changed most (a new page, htop's
# list); at 75 they take 20-25% less CPU (127 against 166 ms median on five dense screens) for
# 5% more bytes, which the captured sessions hardly see (15.1 against 15.0 KB a capture; ingest
# CPU p95 273 against 351 ms, bench/storage.py --sessions captured on a busy machine).
LOSSLESS_EFFORT = 90
WHOLE_EFFORT = 75
# What tells a screen of photos or video from a screen of text, however dense: its 16-pixel tiles
# that hold PHOTO_COLOURS distinct colours or more and are smooth inside (mean step between
# neighbours under PHOTO_ROUGHNESS grey levels). Measured on real screens (bench/sessions: dense
# English and Chinese documentation, code, terminals, chat; bench/quality/captured): at most 3% of
# a text screen's tiles have that many colours, all of them glyph edges (their roughness 30-58);
# a photo shown in a viewer covers 20-30% of the screen with such tiles, a photo or a video call
# full screen 56-100% (roughness 0.3-17); random noise has the colours but not the smoothness
# (roughness 45-52). A screen is stored lossy only when such tiles cover PHOTO_SHARE of it.
PHOTO_TILE = 16
PHOTO_COLOURS = 64
PHOTO_ROUGHNESS = 24
PHOTO_SHARE = 0.15
# Formats a frame's file may be in: what new frames are stored in, and what an older install or an
# archive may hold. The suffix of the stored path decides.
_CONTENT_TYPES = {".webp": "image/webp", ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}

# A delta (DELTA_SUFFIX): DELTA_MAGIC, the header's length (4 bytes, little-endian), the header
# (JSON: the base's path, the tile size, the image's size, the mask of changed tiles as packed
# bits, zlib, base64), then a lossless WebP of the image with every unchanged tile black. Reading
# it takes the base's pixels where the mask is clear and the WebP's where it is set: exact.
DELTA_MAGIC = b"MRD1"
# What deltas are written as now: the patch cut to the box of the changed tiles (`box`: x0, y0,
# x1, y1 in the screen), and, for a scrolled screen, the scroll (`shift`: row y shows the base's
# row y + shift) and which tiles are the base's scrolled (`moved`, packed as the mask is).
DELTA_BOXED_MAGIC = b"MRD2"
TILE = 32  # pixels a side; 16 saves 2% more on the benches' sessions, at a longer mask
DELTA_MAX_CHANGED = 0.6  # past this share of changed tiles, a frame is stored whole
DELTA_MAX_SHARE = 0.7  # a delta must be at most this share of its base's bytes, or it is stored whole
BASES = 3  # a frame is compared with this many of the device's latest frames stored whole
# The form image_stage writes (Frame.image_form): 2 since frames chain and a patch holds the rows
# of tiles that changed. Frames written before (null) are stored again by `manage.py compact`.
IMAGE_FORM = 2
CHAIN_MAX = 6  # a delta may be stored against a delta, this many deep at most (opening reads them all)
_CACHE_ENTRIES = 8  # decoded frames kept per process (about 6 MB each at 1920x1080)


class ImageMissing(FileNotFoundError):
    """The frame's image file is not in the storage (removed outside MyRecall, or never placed)."""


class ImageDamaged(ImageMissing):
    """The frame's image file, or a file its delta chain reads, is in the storage but does not
    decode (truncated or overwritten outside MyRecall): the frame has no image, as when missing."""


STORAGE = "frames"  # the name of the storage of frame images and thumbnails in settings.STORAGES


def files() -> Storage:
    """The storage that keeps every frame's image and thumbnail (settings.STORAGES["frames"])."""
    return storages[STORAGE]


def storage_check(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """A system check: the storage that settings name can be made (a class that exists, options it takes)."""
    try:
        files()
    except Exception as exc:  # whatever the class raises: said at start, not at the first frame
        return [checks.Error(f"The storage of frame images cannot be made: {exc}", hint="Check MYRECALL_IMAGES_STORAGE and MYRECALL_IMAGES_STORAGE_OPTIONS.", id="frames.E001")]
    return []


def frames_root() -> Path:
    """The data dir's frames folder: where staged images wait (and where images live by default)."""
    return Path(settings.DATA_DIR) / "frames"


def _tmp_dir() -> Path:
    path = frames_root() / ".tmp"
    path.mkdir(parents=True, exist_ok=True)
    return path


# Writing ---------------------------------------------------------------------------------------


def photo_share(pixels: np.ndarray) -> float:
    """The share of an RGB screen's PHOTO_TILE tiles that look like a photograph or video: many
    colours, smooth inside (see PHOTO_COLOURS). Every other tile each way is looked at: the same
    share, a quarter of the work (about 25 ms at 1920x1080)."""
    rows, cols = pixels.shape[0] // PHOTO_TILE, pixels.shape[1] // PHOTO_TILE
    if not rows or not cols:
        return 0.0
    tiles = pixels[: rows * PHOTO_TILE, : cols * PHOTO_TILE, :3].reshape(rows, PHOTO_TILE, cols, PHOTO_TILE, 3)
    if rows >= 4 and cols >= 4:
        tiles = tiles[::2, :, ::2]
    tiles = tiles.transpose(0, 2, 1, 3, 4).reshape(-1, PHOTO_TILE, PHOTO_TILE, 3)  # one tile a row
    colours = (tiles.astype(np.int32) @ np.array([65536, 256, 1], dtype=np.int32)).reshape(len(tiles), -1)
    colours.sort(axis=1)
    distinct = (np.diff(colours, axis=1) != 0).sum(axis=1) + 1
    grey = tiles.astype(np.int16).sum(axis=3)  # three times the mean, so the bar is too
    rough = np.abs(np.diff(grey, axis=2)).mean(axis=(1, 2))  # steps between neighbours inside a tile
    return float(((distinct >= PHOTO_COLOURS) & (rough < 3 * PHOTO_ROUGHNESS)).mean())


def image_encode(image: Image.Image, *, quality: int, lossy: bool | None = None) -> bytes:
    """The stored form: lossless WebP, exact, for every screen of text, however dense (lossy
    WebP is larger for text, and OCR misses words on it). A screen that is mostly photos or video
    (photo_share at least PHOTO_SHARE) would be many times larger lossless, and slow to encode
    (a video call: 3.4 MB and 1 s of CPU), so it is stored lossy at `quality`: it does not read
    back exactly (image_exact says so). `lossy` True or False decides instead (the user's
    MYRECALL_IMAGE_EXACT, or a benchmark)."""
    if lossy is None:
        lossy = photo_share(np.asarray(image.convert("RGB"))) >= PHOTO_SHARE
    out = io.BytesIO()
    if lossy:
        image.save(out, format="WEBP", quality=quality, method=4)
    else:
        image.save(out, format="WEBP", lossless=True, quality=WHOLE_EFFORT, method=4)
    return out.getvalue()


def image_exact(relpath: str) -> bool:
    """Whether the frame's image reads back to exactly the pixels captured: every form does but
    a lossy WebP (a screen of photos or video) and a JPEG (an archive's)."""
    suffix = Path(relpath).suffix.lower()
    if suffix in (".jpg", ".jpeg"):
        return False
    if suffix != IMAGE_SUFFIX:
        return True  # a delta, a PNG
    try:
        with files().open(relpath, "rb") as fh:
            if fh.read(12)[8:12] != b"WEBP":
                return True  # not a WebP whatever its name: an archive's PNG
            # RIFF....WEBP, then chunks: VP8X and its extras (ICC, EXIF) first if any, then the
            # bitstream: VP8L lossless, VP8 lossy.
            while len(head := fh.read(8)) == 8:
                if head[:4] in (b"VP8L", b"VP8 "):
                    return head[:4] == b"VP8L"
                fh.seek((int.from_bytes(head[4:8], "little") + 1) // 2 * 2, io.SEEK_CUR)
            return True
    except FileNotFoundError as exc:
        raise ImageMissing(f"image file is missing: {relpath}") from exc


class _StagedFile(File):
    """A staged temp file: a storage on the same file system may link it rather than copy it."""

    def temporary_file_path(self) -> str:
        return self.file.name


@dataclass
class StagedImage:
    """An encoded image written to a temp file, not yet in place: `place()` it in the storage
    inside the transaction that creates its row, `discard()` it (and whatever was placed) when
    that fails. `base` names the frame whose image this one is stored against (a delta), or None
    (whole)."""

    relpath: str
    size: int
    _tmp: Path
    base: int | None = None
    base_relpath: str | None = None  # the file of the base it names: the row must still point to it
    _placed: bool = field(default=False, compare=False)

    def place(self) -> None:
        with open(self._tmp, "rb") as fh:
            saved = files().save(self.relpath, _StagedFile(fh, name=self.relpath))
        if saved != self.relpath:  # a fresh uuid's name was taken: never put a frame on another's file
            files().delete(saved)
            raise FileExistsError(f"the frames storage already holds {self.relpath}")
        self._placed = True
        self._tmp.unlink(missing_ok=True)

    def discard(self) -> None:
        self._tmp.unlink(missing_ok=True)
        if self._placed:
            files().delete(self.relpath)


@dataclass(frozen=True)
class Base:
    """A frame of the same screen that a new image may be stored against: one stored whole, or
    the device's frame just before (stored either way; a chain at most CHAIN_MAX deep)."""

    frame_id: int
    relpath: str


@dataclass(frozen=True, eq=False)
class _Candidate:
    base: Base
    pixels: np.ndarray
    whole_bytes: int  # the bytes of the frame stored whole at the chain's root
    depth: int  # 0: stored whole; a delta one more than its base


def _write_temp(data: bytes) -> Path:
    tmp = _tmp_dir() / f"{uuid.uuid4().hex}.part"
    with open(tmp, "wb") as fh:
        fh.write(data)
    return tmp


def _new_relpath(timestamp: datetime, suffix: str) -> str:
    return f"frames/{timestamp:%Y/%m/%d}/{uuid.uuid4().hex}{suffix}"


def image_stage(image: Image.Image, *, timestamp: datetime, quality: int, bases: Sequence[Base] = (), exact: bool = False) -> StagedImage:
    """Encode a frame's image and write it to a temp file of this machine's data dir: as the tiles that
    differ from the closest of `bases` (the device's latest frames stored whole, newest first)
    when that is much smaller, else whole (exact: never lossy, whatever the screen)."""
    candidates = []
    for base in dict.fromkeys(bases):
        try:
            decoded = _decoded(base.relpath)
            if _chain_present(base.relpath):  # its pixels may be kept here after a file of its chain went
                candidates.append(_Candidate(base, *decoded))
        except (OSError, ValueError):
            continue  # gone meanwhile, or unreadable: not a base
    return _stage(image, timestamp=timestamp, quality=quality, candidates=candidates, exact=exact)[0]


def _chain_present(relpath: str) -> bool:
    """Whether the file and every file its delta chain reads are in the storage: asked of the
    files, not of the pixels kept here (_cache), which outlive a file removed meanwhile."""
    for _ in range(CHAIN_MAX + 2):
        try:
            with files().open(relpath, "rb") as fh:
                head = fh.read(8)
                if not head.startswith((DELTA_MAGIC, DELTA_BOXED_MAGIC)):
                    return True
                relpath = json.loads(fh.read(struct.unpack("<I", head[4:8])[0]))["base"]
        except (OSError, ValueError, KeyError, TypeError, struct.error):
            return False
    return False  # deeper than ever written: a loop of files naming each other


def _stage(image: Image.Image, *, timestamp: datetime, quality: int, candidates: list[_Candidate], exact: bool = False) -> tuple[StagedImage, _Candidate | None]:
    """The staged image, and what it is as a base for the next frames (None: stored lossy)."""
    pixels = np.asarray(image.convert("RGB"))
    if delta := _delta_encode(pixels, candidates):
        chosen, data = delta
        staged = StagedImage(relpath=_new_relpath(timestamp, DELTA_SUFFIX), size=len(data), _tmp=_write_temp(data), base=chosen.base.frame_id, base_relpath=chosen.base.relpath)
        whole_bytes, depth = chosen.whole_bytes, chosen.depth + 1
    else:
        lossy = False if exact else photo_share(pixels) >= PHOTO_SHARE
        data = image_encode(image, quality=quality, lossy=lossy)
        staged = StagedImage(relpath=_new_relpath(timestamp, IMAGE_SUFFIX), size=len(data), _tmp=_write_temp(data))
        if lossy:
            return staged, None
        whole_bytes, depth = len(data), 0
    # It reads back to these very pixels: kept, so the device's next frame need not decode it.
    pixels.setflags(write=False)
    _cache_put(staged.relpath, (pixels, whole_bytes, depth))
    return staged, _Candidate(Base(frame_id=0, relpath=staged.relpath), pixels, whole_bytes, depth)


def image_restage(frames: Sequence[Base], *, timestamps: Sequence[datetime], quality: int, exact: bool = False, bases: Sequence[Base] = ()) -> list[StagedImage | None]:
    """Frames stored again (taken at `timestamps`, oldest first): frames stored against a frame
    that is going away and every frame stored against those in turn, or frames `manage.py
    compact` stores in today's form. Each against the one stored again before it, the last of
    them stored whole, or one of `bases` (frames that stay as they are), when that pays, else
    whole; None for a frame that cannot be read (a file of its chain gone or damaged), left as it
    is. Their old files stay until the caller removes them, after it placed these with the rows'
    update."""
    staged: list[StagedImage | None] = []
    previous: _Candidate | None = None
    whole: _Candidate | None = None
    kept = []
    for base in bases:
        try:
            kept.append(_Candidate(base, *_decoded(base.relpath)))
        except (OSError, ValueError):
            continue  # unreadable: not a base
    try:
        for frame, moment in zip(frames, timestamps):
            try:
                image = image_pixels(frame.relpath)
            except ImageMissing:  # a file of its chain is gone or damaged: it opens no more than before
                staged.append(None)
                continue
            candidates = [candidate for candidate in (previous, whole, *kept) if candidate is not None]
            item, made = _stage(image, timestamp=moment, quality=quality, candidates=list(dict.fromkeys(candidates)), exact=exact)
            staged.append(item)
            previous = made and _Candidate(Base(frame_id=frame.frame_id, relpath=item.relpath), made.pixels, made.whole_bytes, made.depth)
            if previous is not None and previous.depth == 0:
                whole = previous
    except BaseException:
        for item in staged:
            if item is not None:
                item.discard()
        raise
    return staged


def tmp_sweep() -> int:
    """Remove temp files left by a process that died mid-ingest; returns how many."""
    tmp = frames_root() / ".tmp"
    if not tmp.exists():
        return 0
    count = sum(1 for _ in tmp.iterdir())
    shutil.rmtree(tmp, ignore_errors=True)
    return count


# Reading ---------------------------------------------------------------------------------------


def image_content_type(relpath: str) -> str:
    """The type the image is served as."""
    if relpath.endswith(DELTA_SUFFIX):
        return "image/png"
    return _CONTENT_TYPES.get(Path(relpath).suffix.lower(), "application/octet-stream")


def image_location(relpath: str) -> Path | None:
    """The absolute path of the file that holds the image (what screenpipe's clients are told), or
    None when the storage keeps its files elsewhere than on a file system."""
    try:
        return Path(files().path(relpath))
    except NotImplementedError:
        return None


def _read(relpath: str) -> bytes:
    try:
        with files().open(relpath, "rb") as fh:
            return fh.read()
    except FileNotFoundError as exc:
        raise ImageMissing(f"image file is missing: {relpath}") from exc


def _png_quick(pixels: np.ndarray) -> bytes:
    """RGB pixels as a PNG made for speed, not size: no row filter, deflate at level 1. About
    20 ms and 150-350 KB for a dense 1920x1080 screen; lossless WebP at its quickest takes
    50-65 ms, Pillow's PNG 55-75 ms (measured on the captured sessions)."""
    height, width = pixels.shape[:2]
    rows = np.zeros((height, width * 3 + 1), dtype=np.uint8)  # each row: filter 0, then its pixels
    rows[:, 1:] = pixels.reshape(height, width * 3)

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    head = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8 bits, RGB, deflate, no interlace
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head) + chunk(b"IDAT", zlib.compress(rows.data, 1)) + chunk(b"IEND", b"")


def image_open(relpath: str) -> tuple[BinaryIO, str]:
    """The image to serve: an open binary file (the caller closes it) and its type. A frame
    stored as a delta is served as a PNG of its pixels, made on the way (exact, and quick to
    make: the viewer waits for it)."""
    if relpath.endswith(DELTA_SUFFIX):
        return io.BytesIO(_png_quick(_decoded(relpath)[0])), "image/png"
    try:
        return files().open(relpath, "rb"), image_content_type(relpath)
    except FileNotFoundError as exc:
        raise ImageMissing(f"image file is missing: {relpath}") from exc


def image_bytes(relpath: str) -> bytes:
    stream, _ = image_open(relpath)
    with stream:
        return stream.read()


def image_pixels(relpath: str) -> Image.Image:
    """The image decoded to RGB pixels, whatever form it was stored in."""
    if relpath.endswith(DELTA_SUFFIX):
        return Image.fromarray(_decoded(relpath)[0])
    data = _read(relpath)
    try:
        with Image.open(io.BytesIO(data)) as image:
            return image.convert("RGB")
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise ImageDamaged(f"image file is damaged: {relpath}") from exc


# Frames stored as the tiles that changed -------------------------------------------------------

# Decoded frames by path: (read-only RGB pixels, the bytes of the chain's frame stored whole, the
# depth in the chain). The frames a device's next frame is compared with, and the bases a viewer
# opening the frames of one screen in a row reads again.
_cache: OrderedDict[str, tuple[np.ndarray, int, int]] = OrderedDict()
_cache_lock = threading.Lock()


def _cache_put(relpath: str, decoded: tuple[np.ndarray, int, int]) -> None:
    with _cache_lock:
        _cache[relpath] = decoded
        _cache.move_to_end(relpath)
        while len(_cache) > _CACHE_ENTRIES:
            _cache.popitem(last=False)


def _decoded(relpath: str, _depth: int = 0) -> tuple[np.ndarray, int, int]:
    """A stored frame decoded: its pixels (read-only), the bytes of the frame stored whole at the
    root of its chain, and its depth in the chain (0: stored whole); kept for the next reads."""
    with _cache_lock:
        if (found := _cache.get(relpath)) is not None:
            _cache.move_to_end(relpath)
            return found
    data = _read(relpath)
    try:
        if data.startswith((DELTA_MAGIC, DELTA_BOXED_MAGIC)):
            if _depth > CHAIN_MAX:  # never written so deep: a loop of files naming each other
                raise ValueError(f"delta chain too deep at {relpath}")
            pixels, whole_bytes, depth = _delta_decode(relpath, data, _depth)
        else:
            with Image.open(io.BytesIO(data)) as image:
                pixels = np.asarray(image.convert("RGB"))
            whole_bytes, depth = len(data), 0
    except ImageMissing:
        raise  # a file further up the chain, already said
    except (OSError, ValueError, KeyError, IndexError, TypeError, struct.error, zlib.error, Image.DecompressionBombError) as exc:
        raise ImageDamaged(f"image file is damaged: {relpath}") from exc
    pixels.setflags(write=False)
    decoded = (pixels, whole_bytes, depth)
    _cache_put(relpath, decoded)
    return decoded


def _mask_pack(mask: np.ndarray) -> list:
    return [mask.shape[0], mask.shape[1], base64.b64encode(zlib.compress(np.packbits(mask).tobytes())).decode()]


def _mask_unpack(packed: list) -> np.ndarray:
    rows, cols, data = packed
    mask = np.unpackbits(np.frombuffer(zlib.decompress(base64.b64decode(data)), dtype=np.uint8))[: rows * cols]
    return mask.reshape(rows, cols).astype(bool)


def _tiles_copy(target: np.ndarray, source: np.ndarray, tiles: np.ndarray, *, tile: int, dy: int = 0, dx: int = 0) -> None:
    """target[y, x] = source[y + dy, x + dx] over the true cells of a tile grid of target's
    pixels; where the source has no such pixel, 0. Run by run: a slice each."""
    height, width = target.shape[:2]
    for row, first, after in changes.tiles_runs(tiles):
        y0, y1, x0, x1 = row * tile, min((row + 1) * tile, height), first * tile, min(after * tile, width)
        sy0, sy1 = max(y0 + dy, 0), min(y1 + dy, source.shape[0])
        sx0, sx1 = max(x0 + dx, 0), min(x1 + dx, source.shape[1])
        if (sy0, sy1, sx0, sx1) != (y0 + dy, y1 + dy, x0 + dx, x1 + dx):
            target[y0:y1, x0:x1] = 0
        if sy0 < sy1 and sx0 < sx1:
            target[sy0 - dy : sy1 - dy, sx0 - dx : sx1 - dx] = source[sy0:sy1, sx0:sx1]


def _patch_runs(mask: np.ndarray, rows: list[int], shape: tuple[int, ...], tile: int) -> list[tuple[int, int, int, int, int]]:
    """Where each run of changed tiles lies on the screen and in a patch made of the tile rows
    `rows` stacked: (first row on screen, row after, first row in the patch, first column,
    column after). Raises ValueError for a run in a row the patch does not hold."""
    height, width = shape[:2]
    at, offset = {}, 0
    for row in rows:
        at[row] = offset
        offset += max(0, min(tile, height - row * tile))
    runs = []
    for row, first, after in changes.tiles_runs(mask):
        if row not in at:
            raise ValueError("a changed tile outside the patch")
        y0, y1 = row * tile, min((row + 1) * tile, height)
        runs.append((y0, y1, at[row], first * tile, min(after * tile, width)))
    return runs


def _delta_encode(pixels: np.ndarray, candidates: list[_Candidate]) -> tuple[_Candidate, bytes] | None:
    """The delta of pixels against the closest candidate, or None when none is close enough for
    a delta to pay (or every one is already CHAIN_MAX deep).

    What changed is frames.changes' answer: each tile is the base's in place, or, when the screen
    scrolled, the base's scrolled (a page read on: the lines that moved up), or else new pixels,
    kept in the patch. A fixed toolbar over a scrolled page is in place, the page scrolled. The
    first candidate is the newest (the frame just before): only it is searched for a scroll. Of
    two that leave as many tiles changed, the shallower one is the base."""
    best = None
    fitting = [candidate for candidate in candidates if candidate.pixels.shape == pixels.shape and candidate.depth < CHAIN_MAX]
    for number, candidate in enumerate(fitting):
        if number == 0:  # the newest: what the screen scrolled from, if it did
            change = changes.change_find(candidate.pixels, pixels, tile=TILE)
            moved = change.tiles & ~change.shifted_tiles if change.shift else None
            patched = change.tiles & change.shifted_tiles if change.shift else change.tiles
            shift = change.shift
        else:  # older ones in place only (a window switched back to): a scroll search costs 10x more
            patched, moved, shift = changes.tiles_changed(candidate.pixels, pixels, TILE), None, 0
        if best is None or (int(patched.sum()), candidate.depth) < (int(best[2].sum()), best[0].depth):
            best = (candidate, shift, patched, moved)
    if best is None or best[2].mean() > DELTA_MAX_CHANGED:
        return None
    chosen, shift, mask, moved = best
    # The patch: the new pixels of the changed tiles, black elsewhere; only the rows of tiles
    # that hold some, stacked, between the first and last column that does (a line typed, the
    # rows a scroll brought and the toolbar above it: a strip, quick to encode and to decode).
    if mask.any():
        rows, cols = np.nonzero(mask.any(axis=1))[0], np.nonzero(mask.any(axis=0))[0]
        box = [int(cols[0]) * TILE, int(rows[0]) * TILE, min((int(cols[-1]) + 1) * TILE, pixels.shape[1]), min((int(rows[-1]) + 1) * TILE, pixels.shape[0])]
    else:
        rows, box = np.zeros(0, dtype=int), [0, 0, 1, 1]
    height = sum(min(TILE, pixels.shape[0] - int(row) * TILE) for row in rows) or 1
    patch = np.zeros((height, box[2] - box[0], 3), dtype=np.uint8)
    for y0, y1, py, x0, x1 in _patch_runs(mask, [int(row) for row in rows], pixels.shape, TILE):
        patch[py : py + (y1 - y0), x0 - box[0] : x1 - box[0]] = pixels[y0:y1, x0:x1]
    out = io.BytesIO()
    Image.fromarray(patch).save(out, format="WEBP", lossless=True, quality=LOSSLESS_EFFORT, method=4)
    header = {"base": chosen.base.relpath, "tile": TILE, "size": [pixels.shape[1], pixels.shape[0]], "mask": _mask_pack(mask), "box": box, "rows": [int(row) for row in rows]}
    if shift:  # a scroll: which tiles are the base's scrolled, and by how much
        header.update(shift=shift, moved=_mask_pack(moved))
    head = json.dumps(header, separators=(",", ":")).encode()
    data = DELTA_BOXED_MAGIC + struct.pack("<I", len(head)) + head + out.getvalue()
    return (chosen, data) if len(data) <= DELTA_MAX_SHARE * chosen.whole_bytes else None


def delta_base(data: bytes) -> str | None:
    """The path of the frame a delta is stored against (None: not a delta)."""
    if not data.startswith((DELTA_MAGIC, DELTA_BOXED_MAGIC)):
        return None
    (length,) = struct.unpack("<I", data[4:8])
    return json.loads(data[8 : 8 + length])["base"]


def _delta_decode(relpath: str, data: bytes, depth: int = 0) -> tuple[np.ndarray, int, int]:
    """A delta's pixels, the bytes of its chain's frame stored whole, and its depth."""
    (length,) = struct.unpack("<I", data[4:8])
    header = json.loads(data[8 : 8 + length])
    mask = _mask_unpack(header["mask"])
    base, whole_bytes, base_depth = _decoded(header["base"], depth + 1)
    with Image.open(io.BytesIO(data[8 + length :])) as patch_image:
        patch = np.asarray(patch_image.convert("RGB"))
    x0, y0, x1, y1 = header.get("box", [0, 0, base.shape[1], base.shape[0]])  # MRD1: the whole screen
    tile, rows = header["tile"], header.get("rows")  # rows: the patch holds only these tile rows, stacked
    if tile <= 0 or mask.shape != (-(-base.shape[0] // tile), -(-base.shape[1] // tile)):
        raise ValueError(f"delta does not fit its base: {relpath}")
    height = y1 - y0 if rows is None else max(1, sum(max(0, min(tile, base.shape[0] - row * tile)) for row in rows))
    if patch.shape[:2] != (height, x1 - x0) or x1 > base.shape[1] or y1 > base.shape[0]:
        raise ValueError(f"delta does not fit its base: {relpath}")
    pixels = base.copy()
    if header.get("shift"):  # the tiles that show the base scrolled
        _tiles_copy(pixels, base, _mask_unpack(header["moved"]), tile=tile, dy=int(header["shift"]))
    if rows is None:  # MRD1 and the first MRD2: the box of the changed tiles
        _tiles_copy(pixels, patch, mask, tile=tile, dy=-y0, dx=-x0)
    else:
        for top, bottom, py, left, right in _patch_runs(mask, rows, base.shape, tile):
            if left < x0 or right > x1:
                raise ValueError(f"delta does not fit its base: {relpath}")
            pixels[top:bottom, left:right] = patch[py : py + (bottom - top), left - x0 : right - x0]
    return pixels, whole_bytes, base_depth + 1


# Thumbnails, and every file of a frame ---------------------------------------------------------


def thumb_relpath(frame_id: int, timestamp: datetime) -> str:
    return f"thumbs/{timestamp:%Y/%m/%d}/{frame_id}{THUMB_SUFFIX}"


def thumb_abspath(frame_id: int, timestamp: datetime) -> Path | None:
    return image_location(thumb_relpath(frame_id, timestamp))


def thumb_open(frame_id: int, timestamp: datetime) -> BinaryIO:
    """The frame's thumbnail, open (the caller closes it); FileNotFoundError until it is made."""
    return files().open(thumb_relpath(frame_id, timestamp), "rb")


def thumb_save(frame_id: int, timestamp: datetime, data: bytes) -> None:
    """Keep a thumbnail made of the frame's image. Two servers making it at once both write whole
    files; the storage keeps one under the name, the other's copy (renamed) is removed."""
    name = thumb_relpath(frame_id, timestamp)
    saved = files().save(name, ContentFile(data, name=name))
    if saved != name:
        files().delete(saved)


def thumbs_bytes() -> int:
    """Bytes of the thumbnails made so far (each on first request)."""
    local = image_location("thumbs")
    if local is not None:
        return tree_bytes(local)
    store, total, folders = files(), 0, ["thumbs"]
    while folders:
        folder = folders.pop()
        subfolders, names = store.listdir(folder)
        folders += [f"{folder}/{name}" for name in subfolders]
        for name in names:
            try:
                total += store.size(f"{folder}/{name}")
            except FileNotFoundError:
                continue  # removed while counted
    return total


def frame_relpaths(frame_id: int, timestamp: datetime, image_path: str) -> list[str]:
    """The files a frame may have, by their names in the storage: its image and its thumbnail
    (made on first request). Export copies them; deletion removes them."""
    return [image_path, thumb_relpath(frame_id, timestamp)]


def files_remove(relpaths: list[str]) -> tuple[int, int]:
    """Remove these files of the storage, those that exist, and then the day folders they leave
    empty (on a file system); returns (files removed, bytes given back). Safe to run again."""
    with _cache_lock:
        for relpath in relpaths:
            _cache.pop(relpath, None)
    store = files()
    removed = freed = 0
    folders: set[str] = set()
    for relpath in relpaths:
        try:
            size = store.size(relpath)
            store.delete(relpath)
        except SuspiciousFileOperation:
            continue  # never outside the storage, whatever a row says
        except FileNotFoundError:
            continue
        removed += 1
        freed += size
        folders.add(posixpath.dirname(relpath))
    if image_location("") is None:
        return removed, freed  # no folders to leave behind
    for folder in sorted(folders, key=lambda item: item.count("/"), reverse=True):
        # frames/YYYY/MM/DD, then its month and year when they are left empty too; never frames/ itself
        level = folder
        for _ in range(3):
            if "/" not in level:
                break
            try:
                if any(store.listdir(level)):
                    break
                store.delete(level)
            except OSError:
                break  # gone already, or a file arrived meanwhile
            level = posixpath.dirname(level)
    return removed, freed
