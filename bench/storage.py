"""Bytes per frame on disk, and what reading a stored frame costs (issue 24).

(1) Images. In a temporary data dir, frames go through the app's own ingest
(frames.services.frame_ingest): a working session of 1920x1080 screens from
tests.screens.session (typing, scrolling, switching windows; one device, a frame every
3 s), and the 46 screens of the quality set (bench/quality, drawn by Chromium; independent
screens, another device). For each set: the frames stored, how many whole and how many as
the tiles that changed (deltas), the image bytes per frame against every frame stored whole
(the form before), the ingest time per frame, and the time to open a frame as the viewer does
(GET /api/v1/frames/<id>: p50/p95, whole and delta apart). Every stored frame is read back and
compared with the pixels sent (exact), and OCR is run on a sample of stored images and on the
originals: the words found must be the same. On that sample, the OCR lines with their word boxes
as the database keeps them (packed) against JSON (before), and the screen signatures. With
--formats, lossless and lossy WebP and AVIF compared on whole screens: bytes, and OCR's words.
With --total, the session's frames are OCR'd and embedded as the worker does it, and what a frame
takes in all is printed: image, database by part, vector index; then the vector index is filled
with --vector-fill more frames (as many entries each as the session's) to say what a frame adds
to it once it is large, where its fixed overheads no longer weigh.

(2) Captured sessions (issue 42): with --sessions captured, the working sessions of
bench/sessions (real programs on Xvfb at 1920x1080, captured into ~/.cache/myrecall-bench/sessions
when missing) go through frame_ingest as captured, one device a session, with the app and window a
capture client sends. Per session and in total: image bytes per frame by the form each frame was
stored in (whole lossless, whole lossy, delta, or whatever suffix frames/storage.py writes), the
frames that read back exactly to the pixels posted, ingest CPU per frame (time.process_time:
decode, hash, encode, write), the time to open a frame as the viewer does (GET
/api/v1/frames/<id>, no base cached), and on the same frames the video reference of the issue:
H.265 (libx265 ultrafast, CRF 23 and 30, yuv420p, lossy) and lossless H.264 (libx264rgb, qp 0),
bytes per frame (PyAV, a bench-only package). With --unrelated, the same figures for unrelated
dense screens on one device: the real programs' screens of bench/quality/captured and the first
frame of each session.

Prints figures, asserts nothing.

    .venv/bin/python bench/storage.py
    .venv/bin/python bench/storage.py --session 600 --ocr-sample 30
    .venv/bin/python bench/storage.py --session 20 --ocr-sample 2 --formats 4   # the formats compared
    .venv/bin/python bench/storage.py --session 300 --no-quality --total   # a frame in all
    .venv/bin/python bench/storage.py --sessions captured --unrelated --out before.json   # issue 42
"""

import argparse
import io
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np
from PIL import Image
from tqdm import tqdm

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

QUALITY_CACHE = Path.home() / ".cache" / "myrecall-bench" / "quality"
STEP_S = 3.0


def _django(data_dir: Path) -> None:
    os.environ["MYRECALL_DATA_DIR"] = str(data_dir)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "myrecall.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else float("nan")


def session_images(steps: int, seed: int) -> list[Image.Image]:
    from tests.screens import render, session

    return [render(screen) for screen, _ in tqdm(session(random.Random(seed), steps), total=steps, desc="draw session")]


def quality_images() -> list[Image.Image]:
    """The quality set's screens as bench/search_quality.py drew them (it draws them when missing)."""
    from bench.quality.queries import SCREENS
    from bench.search_quality import screens_render

    paths = screens_render(SCREENS, QUALITY_CACHE)
    return [Image.open(paths[screen.key]).convert("RGB") for screen in SCREENS]


def ingest(images: list[Image.Image], *, device: str, start: float) -> tuple[list[int], list[float]]:
    from frames.services import frame_ingest

    ids, times = [], []
    for number, image in enumerate(tqdm(images, desc=f"ingest {device}")):
        data = _png(image)
        began = time.perf_counter()
        result = frame_ingest(
            image_bytes=data, timestamp=start + number * STEP_S, app_name="Bench", window_name=device,
            device_name=device, client_frame_id=f"{device}-{number}",
        )
        times.append(time.perf_counter() - began)
        ids.append(result.frame_id if result.status == "created" else None)
    return ids, times


def report(name: str, images: list[Image.Image], ids: list[int | None], times: list[float], *, ocr_sample: int, client) -> None:
    from django.db import connection

    from frames import storage
    from frames.models import Frame, FrameSignature, OcrResult
    from frames.imaging import hash_unpack
    from frames.reading import whole_read
    from frames.text import lines_pack

    stored = [(image, frame_id) for image, frame_id in zip(images, ids) if frame_id is not None]
    frames = {frame.id: frame for frame in Frame.objects.filter(id__in=[frame_id for _, frame_id in stored])}
    deltas = [frame for frame in frames.values() if frame.image_base_id is not None]
    now_bytes = sum(frame.image_bytes for frame in frames.values())
    whole_bytes = sum(len(storage.image_encode(image, quality=80)) for image, _ in tqdm(stored, desc="encode whole (before)"))
    n = len(stored)
    print(f"\n== {name}: {len(images)} screens sent, {n} stored ({len(images) - n} skipped as near-duplicates) ==")
    print(f"  stored whole {n - len(deltas)}, as changed tiles {len(deltas)} ({len(deltas) / max(n, 1):.0%})")
    print(f"  image bytes per frame: {now_bytes / n / 1024:.1f} KB (every frame whole, as before: {whole_bytes / n / 1024:.1f} KB; "
          f"{now_bytes / whole_bytes:.2f}x)")
    if deltas:
        print(f"    deltas: median {statistics.median(f.image_bytes for f in deltas) / 1024:.1f} KB; "
              f"whole: median {statistics.median(f.image_bytes for f in frames.values() if f.image_base_id is None) / 1024:.1f} KB")
    print(f"  ingest (decode, hash, encode, write): p50 {statistics.median(times) * 1000:.0f} ms, p95 {_pct(times, 0.95) * 1000:.0f} ms")

    exact = 0
    opened: dict[str, list[float]] = {"whole": [], "delta": []}
    for image, frame_id in tqdm(stored, desc="open as the viewer does"):
        kind = "delta" if frames[frame_id].image_base_id is not None else "whole"
        storage._cache.clear()  # a viewer opening an old frame: its base is not in memory
        began = time.perf_counter()
        resp = client.get(f"/api/v1/frames/{frame_id}")
        body = b"".join(resp.streaming_content)
        opened[kind].append(time.perf_counter() - began)
        with Image.open(io.BytesIO(body)) as back:
            exact += np.array_equal(np.asarray(back.convert("RGB")), np.asarray(image))
    print(f"  read back exactly: {exact} of {n}")
    for kind, values in opened.items():
        if values:
            print(f"  open a frame stored {kind} (GET /api/v1/frames/<id>, its base not cached): "
                  f"p50 {statistics.median(values) * 1000:.0f} ms, p95 {_pct(values, 0.95) * 1000:.0f} ms ({len(values)} frames)")

    sample = random.Random(1).sample(stored, min(ocr_sample, n))
    same = found_orig = found_stored = 0
    as_json = packed = text_bytes = text_stored = 0
    for image, frame_id in tqdm(sample, desc="OCR original and stored"):
        words = lambda lines: Counter(w.text for line in lines for w in line.words)  # noqa: E731
        original = words(whole_read(image=np.asarray(image)))
        lines = whole_read(image=np.asarray(storage.image_pixels(frames[frame_id].image_path)))
        back = words(lines)
        found_orig += sum(original.values())
        found_stored += sum((original & back).values())
        same += original == back
        # What the lines of this screen take in the database: as JSON (before), packed (now).
        rows = [line.to_json() for line in lines]
        text = "\n".join(line.text for line in lines)
        as_json += len(json.dumps(rows, ensure_ascii=False, separators=(",", ":")).encode())
        packed += len(lines_pack(rows, text=text))
        text_bytes += len(text.encode())
        stored_text = OcrResult._meta.get_field("text").get_db_prep_save(text, connection)  # as the app stores it
        text_stored += len(stored_text.encode() if isinstance(stored_text, str) else stored_text)
    print(f"  OCR on {len(sample)} stored images: the same words as on the originals in {same}; "
          f"word recall {found_stored / max(found_orig, 1):.4f}")
    k = max(len(sample), 1)
    print(f"  OCR lines with word boxes per screen: {as_json / k / 1024:.2f} KB as JSON (before), {packed / k / 1024:.2f} KB packed "
          f"({packed / max(as_json, 1):.2f}x); the text itself {text_bytes / k / 1024:.2f} KB, "
          f"stored compressed {text_stored / k / 1024:.2f} KB ({text_stored / max(text_bytes, 1):.2f}x)")
    kept = [bytes(p) for p in FrameSignature.objects.filter(frame_id__in=list(frames)).values_list("phash", flat=True)]
    if kept:
        print(f"  screen signature: {statistics.mean(map(len, kept)):.0f} B packed, {statistics.mean(len(hash_unpack(p)) for p in kept):.0f} B raw; "
              f"kept for {len(kept)} of the {n} frames (those within the device's last hour)")


def _db_tables() -> dict[str, int]:
    """Bytes of each table with its indexes (SQLite's dbstat), and the file's free pages."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(m.tbl_name, d.name), sum(d.pgsize) FROM dbstat d LEFT JOIN sqlite_master m ON m.name = d.name "
            "GROUP BY 1"
        )
        return dict(cursor.fetchall())


def _group(table: str) -> str:
    if table.startswith("search_fts_") or table.startswith("search_vocab"):
        return "keyword index"
    return {"frames_frame": "frames", "frames_ocrresult": "OCR text and boxes", "frames_framesignature": "screen signatures",
            "search_framevectors": "vector bookkeeping"}.get(
        table, "other"
    )


def total(ids: list[int | None], *, tables_before: dict[str, int], vectors_before: int, vector_fill: int = 0) -> None:
    """Every stored frame OCR'd and embedded as the worker does it, then what a frame takes in all:
    image, database (by part, what the frames added), vector index."""
    from frames.models import Frame
    from frames.services import frame_ocr_run
    from myrecall.space import tree_bytes
    from search.services import frames_embed
    from search.vectors import vectors_dir

    stored = [frame_id for frame_id in ids if frame_id is not None]
    for frame_id in tqdm(stored, desc="OCR as the worker does"):
        frame_ocr_run(frame_id=frame_id)
    for at in tqdm(range(0, len(stored), 16), desc="embed as the worker does"):
        frames_embed(frame_ids=stored[at : at + 16])
    n = len(stored)
    tables = _db_tables()
    parts: dict[str, int] = {}
    for table, size in tables.items():
        parts[_group(table)] = parts.get(_group(table), 0) + size - tables_before.get(table, 0)
    images = sum(Frame.objects.filter(id__in=stored).values_list("image_bytes", flat=True))
    vectors = tree_bytes(vectors_dir()) - vectors_before
    database = sum(parts.values())
    print(f"\n== in all, per frame of the session ({n} frames OCR'd and embedded as the worker does) ==")
    print(f"  image {images / n / 1024:.1f} KB + database {database / n / 1024:.1f} KB + vector index {vectors / n / 1024:.1f} KB "
          f"= {(images + database + vectors) / n / 1024:.1f} KB")
    for name, size in sorted(parts.items(), key=lambda item: -item[1]):
        print(f"    database, {name}: {size / n:,.0f} B")
    print("  (a small data dir: the vector index's and database's fixed overheads weigh more here than at 1M)")
    if vector_fill:
        vector_fill_measure(stored, frames=vector_fill)


def vector_fill_measure(stored: list[int], *, frames: int) -> None:
    """What the vector index adds a frame once it is large: `frames` more frames written through
    search.vectors.day_write, a day's worth at a time, each with as many entries as a frame of the
    session (random unit vectors: an entry's bytes do not depend on its values)."""
    import numpy as np

    from myrecall.space import tree_bytes
    from search import vectors
    from search.embeddings import embedder_info
    from search.models import FrameVectors

    info = embedder_info()
    counts = list(FrameVectors.objects.filter(frame_id__in=stored).values_list("chunks", flat=True))
    per_frame = sum(counts) / len(counts)
    rng = np.random.default_rng(1)
    day0 = vectors.day_of(int(time.time() * 1000)) + 30
    before = tree_bytes(vectors.vectors_dir())
    per_day = 9_600  # a full day: 8 hours at one changed frame every 3 s
    for at in tqdm(range(0, frames, 500), desc="fill the vector index"):
        entries = []
        for frame in range(at, min(at + 500, frames)):
            count = counts[frame % len(counts)]
            vecs = rng.standard_normal((count, info.dimensions)).astype(np.float32)
            vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
            day = day0 + frame // per_day
            entries.append((day, vectors.FrameEntry(frame_id=50_000_000 + frame, ts_ms=day * vectors.DAY_MS, embeddings=vecs.tolist())))
        for day in sorted({day for day, _ in entries}):
            vectors.day_write(embedder_key=info.key, day=day, entries=[e for d, e in entries if d == day], model=info.model)
    vectors.vectors_release()  # the index writes its files out
    added = tree_bytes(vectors.vectors_dir()) - before
    print(f"  vector index once large: {added / frames / 1024:.2f} KB a frame ({frames:,} frames more, {per_frame:.2f} entries "
          f"a frame as the session's, {added / frames / per_frame:,.0f} B an entry; {info.model}, {info.dimensions}-d)")


FORMATS = {
    "WebP lossless (stored whole today)": ("WEBP", {"lossless": True, "quality": 50, "method": 4}),
    "WebP lossless, more effort (q100 m6)": ("WEBP", {"lossless": True, "quality": 100, "method": 6}),
    "WebP lossy q90": ("WEBP", {"quality": 90, "method": 4}),
    "WebP lossy q75": ("WEBP", {"quality": 75, "method": 4}),
    "AVIF q80": ("AVIF", {"quality": 80, "speed": 6}),
    "AVIF q65": ("AVIF", {"quality": 65, "speed": 6}),
    "AVIF q50": ("AVIF", {"quality": 50, "speed": 6}),
}


def formats(images: list[Image.Image], every: int) -> None:
    """What each candidate format makes of whole screens: bytes, encoding time, and OCR's words on
    the decoded image against the original's (the choice of format for a frame stored whole)."""
    from frames.reading import whole_read

    sample = images[::every]
    words = lambda image: Counter(w.text for line in whole_read(image=np.asarray(image.convert("RGB"))) for w in line.words)  # noqa: E731
    originals = [words(image) for image in tqdm(sample, desc="OCR originals")]
    print(f"\n== formats for a screen stored whole, on {len(sample)} quality screens ==")
    print(f"  {'format':40} {'KB mean':>8} {'encode ms':>10} {'word recall':>12} {'min':>6}")
    for label, (fmt, options) in FORMATS.items():
        sizes, times, recalls = [], [], []
        for image, original in zip(tqdm(sample, desc=label, leave=False), originals):
            out = io.BytesIO()
            began = time.perf_counter()
            image.save(out, format=fmt, **options)
            times.append(time.perf_counter() - began)
            sizes.append(out.tell())
            with Image.open(io.BytesIO(out.getvalue())) as back:
                found = words(back)
            recalls.append(sum((original & found).values()) / max(sum(original.values()), 1))
        print(f"  {label:40} {statistics.mean(sizes) / 1024:8.1f} {statistics.median(times) * 1000:10.0f} "
              f"{statistics.mean(recalls):12.4f} {min(recalls):6.3f}")


# Captured sessions and unrelated screens (issue 42) ---------------------------------------------

CAPTURED_QUALITY = REPO / "bench" / "quality" / "captured"


def stored_kind(relpath: str, data: bytes) -> str:
    """The form a frame's image is stored in, read off its file: a delta (frames/storage.py's
    DELTA_MAGIC), whole WebP lossless (a VP8L bitstream) or lossy (VP8), else its suffix."""
    from frames import storage

    if data.startswith(b"MRD2") and b'"shift":' in data[:4096]:
        return "delta scrolled"
    if data.startswith(getattr(storage, "DELTA_MAGIC", b"MRD1")):
        return "delta"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        at = 12
        while at + 8 <= len(data):  # the chunks of the RIFF: VP8X and its extras, then the bitstream
            chunk = data[at : at + 4]
            if chunk == b"VP8L":
                return "whole lossless"
            if chunk == b"VP8 ":
                return "whole lossy"
            at += 8 + (int.from_bytes(data[at + 4 : at + 8], "little") + 1) // 2 * 2
        return "whole webp"
    return Path(relpath).suffix.lstrip(".") or "other"


def video_reference(paths: list[Path]) -> dict[str, dict]:
    """The same frames encoded as video (PyAV, in memory, one stream, a frame every 3 s): bytes a
    frame and encode CPU a frame; for the lossless one, whether it decodes to the same pixels."""
    try:
        import av
    except ImportError:
        return {"unavailable": {"why": "PyAV is not installed (pip install -r requirements-test.txt)"}}
    from fractions import Fraction

    codecs = {
        "H.265 libx265 ultrafast CRF 23 (lossy)": ("libx265", "yuv420p", {"preset": "ultrafast", "crf": "23"}),
        "H.265 libx265 ultrafast CRF 30 (lossy)": ("libx265", "yuv420p", {"preset": "ultrafast", "crf": "30"}),
        "H.264 libx264rgb qp 0 (lossless)": ("libx264rgb", "rgb24", {"qp": "0"}),  # x264's default preset, medium
    }
    images = [np.asarray(Image.open(path).convert("RGB")) for path in paths]
    sizes = {image.shape for image in images}
    if len(sizes) > 1:  # a video has one size: the frames of the first one's
        images = [image for image in images if image.shape == images[0].shape]
    out: dict[str, dict] = {}
    for label, (name, pix_fmt, options) in codecs.items():
        try:
            ctx = av.CodecContext.create(name, "w")
        except Exception as exc:  # an FFmpeg build without this encoder
            out[label] = {"why": f"no encoder {name}: {exc}"}
            continue
        ctx.width, ctx.height = images[0].shape[1], images[0].shape[0]
        ctx.pix_fmt = pix_fmt
        ctx.time_base = Fraction(1, 1000)
        ctx.framerate = Fraction(1, 3)
        ctx.options = {**options, **({"x265-params": "log-level=error"} if name == "libx265" else {})}
        packets = []
        began = time.process_time()
        for number, pixels in enumerate(tqdm(images, desc=label, leave=False)):
            frame = av.VideoFrame.from_ndarray(pixels, format="rgb24")
            if pix_fmt != "rgb24":
                frame = frame.reformat(format=pix_fmt)
            frame.pts = number * 3000
            packets += [bytes(packet) for packet in ctx.encode(frame)]
        packets += [bytes(packet) for packet in ctx.encode(None)]
        cpu = time.process_time() - began
        row = {"bytes_per_frame": sum(map(len, packets)) / len(images), "encode_cpu_s_per_frame": cpu / len(images), "frames": len(images)}
        if name == "libx264rgb":
            decoder = av.CodecContext.create("h264", "r")
            decoded = [f.to_ndarray(format="rgb24") for packet in packets for f in decoder.decode(av.Packet(packet))]
            decoded += [f.to_ndarray(format="rgb24") for f in decoder.decode(None)]
            row["exact"] = sum(np.array_equal(a, b) for a, b in zip(decoded, images))
        out[label] = row
    return out


def captured_store(name: str, posts: list[tuple[bytes, str, str]], *, start: float, client) -> dict:
    """Post frames (PNG bytes, app, window) through frame_ingest as one device, then read each
    stored one back as the viewer does: the figures of one set of frames."""
    from frames import storage
    from frames.models import Frame
    from frames.services import frame_ingest

    results, cpu = [], []
    for number, (data, app, window) in enumerate(tqdm(posts, desc=f"ingest {name}")):
        began = time.process_time()
        results.append(frame_ingest(image_bytes=data, timestamp=start + number * STEP_S, app_name=app, window_name=window,
                                    device_name=name, client_frame_id=f"{name}-{number}"))
        cpu.append(time.process_time() - began)
    frames = {frame.id: frame for frame in Frame.objects.filter(id__in=[r.frame_id for r in results if r.status == "created"])}
    kinds: dict[str, list[int]] = {}
    exact = duplicates = duplicates_same = 0
    inexact: list[str] = []
    opened: list[float] = []
    opened_cpu: list[float] = []  # the same, in CPU time: what a busy machine does not inflate
    posted_of: dict[int, np.ndarray] = {}  # a stored frame's posted pixels
    for number, ((data, _, _), result) in enumerate(zip(tqdm(posts, desc=f"read back {name}"), results)):
        with Image.open(io.BytesIO(data)) as posted:
            pixels = np.asarray(posted.convert("RGB"))
        if result.status != "created":
            duplicates += 1
            if (kept := posted_of.get(result.duplicate_of)) is not None:  # the capture it was taken for, as posted
                duplicates_same += np.array_equal(kept, pixels)
            continue
        posted_of[result.frame_id] = pixels
        frame = frames[result.frame_id]
        with storage.files().open(frame.image_path, "rb") as fh:
            kind = stored_kind(frame.image_path, fh.read())
        kinds.setdefault(kind, []).append(frame.image_bytes)
        cache = getattr(storage, "_cache", None)
        if cache is not None:
            cache.clear()  # a viewer opening an old frame: its base is not in memory
        began, began_cpu = time.perf_counter(), time.process_time()
        resp = client.get(f"/api/v1/frames/{frame.id}")
        body = b"".join(resp.streaming_content)
        opened.append(time.perf_counter() - began)
        opened_cpu.append(time.process_time() - began_cpu)
        with Image.open(io.BytesIO(body)) as back:
            same = np.array_equal(np.asarray(back.convert("RGB")), pixels)
        exact += same
        if not same:
            inexact.append(f"{number:03d} ({kind})")
    stored = len(frames)
    return {
        "name": name, "posted": len(posts), "stored": stored, "duplicates": duplicates, "duplicates_identical": duplicates_same,
        "posted_png_bytes_per_frame": sum(len(d) for d, _, _ in posts) / len(posts),
        "image_bytes": sum(sum(v) for v in kinds.values()),
        "kinds": {kind: {"frames": len(v), "bytes": sum(v)} for kind, v in sorted(kinds.items())},
        "exact": exact, "inexact": inexact,
        "ingest_cpu_s": cpu, "open_s": opened, "open_cpu_s": opened_cpu,
    }


def captured_print(row: dict, video: dict | None) -> None:
    n, stored = row["posted"], max(row["stored"], 1)
    print(f"\n== {row['name']}: {n} captures posted, {row['stored']} stored, {row['duplicates']} skipped as near-duplicates "
          f"({row['duplicates_identical']} of them the same pixels as the capture kept) ==")
    print(f"  image bytes: {row['image_bytes'] / n / 1024:.1f} KB per capture, {row['image_bytes'] / stored / 1024:.1f} KB per stored frame "
          f"(posted PNGs {row['posted_png_bytes_per_frame'] / 1024:.1f} KB)")
    for kind, k in row["kinds"].items():
        print(f"    {kind:15} {k['frames']:4} frames, {k['bytes'] / max(k['frames'], 1) / 1024:7.1f} KB each, "
              f"{k['bytes'] / n / 1024:6.1f} KB per capture")
    inexact = Counter(item.split("(")[1].rstrip(")") for item in row["inexact"])
    print(f"  read back exactly: {row['exact']} of {row['stored']} stored ({row['exact'] / stored:.0%})"
          + (f"; not exact: {', '.join(f'{k} {v}' for k, v in inexact.items())}" if inexact else ""))
    cpu, opened = row["ingest_cpu_s"], row["open_s"]
    print(f"  ingest CPU per capture (process_time): p50 {_pct(cpu, 0.5) * 1000:.0f} ms, p95 {_pct(cpu, 0.95) * 1000:.0f} ms")
    if opened:
        print(f"  open a frame (GET /api/v1/frames/<id>, no base cached): p50 {_pct(opened, 0.5) * 1000:.0f} ms, "
              f"p95 {_pct(opened, 0.95) * 1000:.0f} ms")
    if opened_cpu := row.get("open_cpu_s"):
        print(f"    in CPU time (process_time): p50 {_pct(opened_cpu, 0.5) * 1000:.0f} ms, p95 {_pct(opened_cpu, 0.95) * 1000:.0f} ms")
    for label, ref in (video or {}).items():
        if "why" in ref:
            print(f"  reference {label}: not measured, {ref['why']}")
        else:
            extra = f", decodes exactly {ref['exact']} of {ref['frames']}" if "exact" in ref else ""
            print(f"  reference {label}: {ref['bytes_per_frame'] / 1024:.1f} KB per capture "
                  f"(encode CPU {ref['encode_cpu_s_per_frame'] * 1000:.0f} ms a frame{extra})")


def captured_total(rows: list[dict], videos: list[dict]) -> dict:
    """Every session together: the sums of their figures, percentiles over all their frames."""
    total = {
        "name": f"all {len(rows)} sessions", "posted": sum(r["posted"] for r in rows), "stored": sum(r["stored"] for r in rows),
        "duplicates": sum(r["duplicates"] for r in rows), "duplicates_identical": sum(r["duplicates_identical"] for r in rows),
        "posted_png_bytes_per_frame": sum(r["posted_png_bytes_per_frame"] * r["posted"] for r in rows) / sum(r["posted"] for r in rows),
        "image_bytes": sum(r["image_bytes"] for r in rows), "kinds": {}, "exact": sum(r["exact"] for r in rows),
        "inexact": [f"{r['name']} {item}" for r in rows for item in r["inexact"]],
        "ingest_cpu_s": [t for r in rows for t in r["ingest_cpu_s"]], "open_s": [t for r in rows for t in r["open_s"]], "open_cpu_s": [t for r in rows for t in r.get("open_cpu_s", [])],
    }
    for r in rows:
        for kind, k in r["kinds"].items():
            into = total["kinds"].setdefault(kind, {"frames": 0, "bytes": 0})
            into["frames"] += k["frames"]
            into["bytes"] += k["bytes"]
    video: dict[str, dict] = {}
    for label in videos[0] if videos else {}:
        if all("bytes_per_frame" in v.get(label, {}) for v in videos):
            frames = sum(v[label]["frames"] for v in videos)
            video[label] = {"frames": frames,
                            "bytes_per_frame": sum(v[label]["bytes_per_frame"] * v[label]["frames"] for v in videos) / frames,
                            "encode_cpu_s_per_frame": sum(v[label]["encode_cpu_s_per_frame"] * v[label]["frames"] for v in videos) / frames}
            if all("exact" in v[label] for v in videos):
                video[label]["exact"] = sum(v[label]["exact"] for v in videos)
        else:
            video[label] = {"why": "not measured on every session"}
    captured_print(total, video)
    return total


def captured_sessions(*, names: list[str] | None, start: float, client, video: bool) -> list[dict]:
    """The captured sessions through the app's ingest, each on its own device, and their video reference."""
    from bench.sessions.capture import session_load, sessions_ensure

    rows, videos = [], []
    for number, folder in enumerate(sessions_ensure(names)):
        saved, paths = session_load(folder)
        posts = [(path.read_bytes(), f["app"], f["window"]) for path, f in zip(paths, saved["frames"])]
        row = captured_store(saved["name"], posts, start=start + number * 7200, client=client)
        ref = video_reference(paths) if video else None
        row["video"] = ref
        captured_print(row, ref)
        rows.append(row)
        videos.append(ref or {})
    if len(rows) > 1:
        rows.append(captured_total(rows, videos if video else []))
    return rows


def unrelated_screens(*, start: float, client) -> dict:
    """Unrelated dense screens on one device, one capture each: the real programs' screens of
    bench/quality/captured (lossless WebP, posted as PNG) and the first frame of each captured session."""
    from bench.sessions.capture import session_load, sessions_ensure

    by_key = {item["key"]: item for item in json.loads((CAPTURED_QUALITY / "manifest.json").read_text())}
    posts = []
    for path in sorted(CAPTURED_QUALITY.glob("*.webp")):
        meta = by_key.get(path.stem, {})
        with Image.open(path) as image:
            posts.append((_png(image.convert("RGB")), meta.get("app_name", "Bench"), meta.get("window_name", path.stem)))
    for folder in sessions_ensure(None):
        saved, paths = session_load(folder)
        posts.append((paths[0].read_bytes(), saved["frames"][0]["app"], saved["frames"][0]["window"]))
    row = captured_store("unrelated", posts, start=start, client=client)
    captured_print(row, None)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--session", type=int, default=300, help="screens of the working session")
    parser.add_argument("--ocr-sample", type=int, default=20, help="stored images OCR'd per set")
    parser.add_argument("--no-quality", action="store_true", help="skip the quality set's screens")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--total", action="store_true",
                        help="also OCR and embed the session's frames and say what a frame takes in all (image, database, vectors)")
    parser.add_argument("--vector-fill", type=int, default=20_000, metavar="FRAMES",
                        help="with --total: then fill the vector index with this many more frames to measure what a frame adds once it is large (0: skip)")
    parser.add_argument("--formats", type=int, default=0, metavar="EVERY",
                        help="also compare formats for a screen stored whole on every EVERY-th quality screen (4: 12 screens)")
    parser.add_argument("--sessions", choices=["captured"],
                        help="instead: the sessions captured from real programs (bench/sessions; captured when missing), with the video reference")
    parser.add_argument("--only", nargs="*", metavar="NAME", help="with --sessions captured: these sessions only")
    parser.add_argument("--unrelated", action="store_true",
                        help="with --sessions captured: also unrelated dense screens, one capture each (bench/quality/captured and each session's first frame)")
    parser.add_argument("--no-video", action="store_true", help="with --sessions captured: skip the video reference")
    parser.add_argument("--out", type=Path, help="with --sessions captured: also write the figures here as JSON")
    args = parser.parse_args()
    if args.sessions:
        os.nice(10)

    with tempfile.TemporaryDirectory(prefix="myrecall-storage-") as tmp:
        _django(Path(tmp) / "data")
        from django.test import Client

        from myrecall.services import api_token_create

        _, token = api_token_create(name="bench")
        client = Client(HTTP_AUTHORIZATION=f"Bearer {token}", HTTP_HOST="127.0.0.1")
        start = time.time() - 86_400
        from myrecall.space import tree_bytes
        from search.vectors import vectors_dir

        if args.sessions:
            rows = captured_sessions(names=args.only, start=start, client=client, video=not args.no_video)
            if args.unrelated:
                rows.append(unrelated_screens(start=start + 86_400 / 2, client=client))
            if args.out:
                args.out.write_text(json.dumps(rows, indent=1))
            return
        tables_before, vectors_before = _db_tables(), tree_bytes(vectors_dir())
        images = session_images(args.session, args.seed)
        ids, times = ingest(images, device="session", start=start)
        report(f"working session ({args.session} captures, tests.screens.session seed {args.seed})", images, ids, times,
               ocr_sample=args.ocr_sample, client=client)
        if args.total:
            total(ids, tables_before=tables_before, vectors_before=vectors_before, vector_fill=args.vector_fill)
        if not args.no_quality:
            images = quality_images()
            ids, times = ingest(images, device="quality", start=start + 7200)
            report("quality set (46 independent screens)", images, ids, times, ocr_sample=args.ocr_sample, client=client)
            if args.formats:
                formats(images, args.formats)


if __name__ == "__main__":
    main()
