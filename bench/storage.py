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

Prints figures, asserts nothing.

    .venv/bin/python bench/storage.py
    .venv/bin/python bench/storage.py --session 600 --ocr-sample 30
    .venv/bin/python bench/storage.py --session 20 --ocr-sample 2 --formats 4   # the formats compared
    .venv/bin/python bench/storage.py --session 300 --no-quality --total   # a frame in all
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
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="myrecall-storage-") as tmp:
        _django(Path(tmp) / "data")
        from django.test import Client

        from myrecall.services import api_token_create

        _, token = api_token_create(name="bench")
        client = Client(HTTP_AUTHORIZATION=f"Bearer {token}", HTTP_HOST="127.0.0.1")
        start = time.time() - 86_400
        from myrecall.space import tree_bytes
        from search.vectors import vectors_dir

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
