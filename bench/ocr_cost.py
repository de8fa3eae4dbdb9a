"""OCR recall and cost: the hard screen set by kind, and a working session frame by frame.

(1) The hard screen set (tests/hard_screens: real programs captured on a virtual X display:
terminals, editors, htop, tmux, a spreadsheet, dense and dark pages, Chinese and mixed, HiDPI),
each screen read whole as a new screen is (frames.reading.whole_read). Prints the recall of its
queries (a query is read when the keyword index would match it typed whole), by kind and by
language, and CPU and wall seconds per screen.

(2) A working session at 1920x1080 (typing, scrolling, switching among four windows: tests/screens),
each frame stored as the app stores it (WebP at IMAGE_QUALITY, decoded back) and read twice: whole,
and as the worker reads it (frames.reading.screen_read against the device's latest frame it is most
like, reading.base_choose). Prints CPU seconds (user + sys of this process: onnxruntime runs
threads) per frame, the share of pixels read, and word recall against the text drawn.

(3) Input that is no screen, read whole: one pixel, a strip one pixel high, noise, 20,000 tiny
characters, and the largest image ingest accepts (8192x8192) full of small text. Prints seconds
and the peak memory of this process after each (it only grows: read them in order).

--baseline reads with text detection at 960 pixels on every screen, as the reader before versions
did, for a comparison in one run (that reader also padded every line to 320 pixels for recognition:
not reproduced here, see frames/ocr.py).

    .venv/bin/python bench/ocr_cost.py [--frames 60] [--seed 7] [--skip-hard] [--skip-session] [--skip-bounds] [--baseline]
"""

import argparse
import io
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.hard_set import KINDS, hard_screens, queries_missed, query_language  # noqa: E402
from tests.screens import Screen, render, session, words_drawn, words_found  # noqa: E402

BASELINE_SIDE = 960
BASES = 8  # as frames.services.READ_BASES


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(int(round(share * (len(ordered) - 1))), len(ordered) - 1)]


def _line(label: str, values: list[float]) -> str:
    return (
        f"  {label:<26} p50 {statistics.median(values):6.2f}   p95 {_percentile(values, 0.95):6.2f}   "
        f"mean {statistics.fmean(values):6.2f}"
    )


def _timed(read):
    cpu, wall = _cpu_seconds(), time.perf_counter()
    result = read()
    return result, _cpu_seconds() - cpu, time.perf_counter() - wall


def hard_set_measure(*, baseline: bool) -> None:
    from tqdm import tqdm

    from frames import reading

    screens = hard_screens()
    rows = []
    for screen in tqdm(screens, desc="hard screens", unit="screen"):
        image = screen.pixels()
        scale = BASELINE_SIDE / max(image.shape[:2]) if baseline else None
        lines, cpu, wall = _timed(lambda: reading.whole_read(image=image, scale=scale))
        missed = queries_missed(screen, "\n".join(line.text for line in lines))
        rows.append((screen, cpu, wall, missed))

    print(f"\n(1) hard screen set: {len(screens)} screens, {sum(len(s.queries) for s in screens)} queries, read whole "
          f"({'detection at 960 px: the reader before versions' if baseline else f'reader {reading.READER_VERSION}'})")
    print(f"  {'kind':<15} {'screens':>7} {'recall':>14} {'CPU s/screen':>13} {'wall s/screen':>14}")
    for kind in KINDS:
        subset = [row for row in rows if row[0].kind == kind]
        if not subset:
            continue
        queries = sum(len(row[0].queries) for row in subset)
        found = queries - sum(len(row[3]) for row in subset)
        print(f"  {kind:<15} {len(subset):>7} {found:>5}/{queries:<3} {found / queries:5.3f} "
              f"{statistics.fmean(r[1] for r in subset):>13.2f} {statistics.fmean(r[2] for r in subset):>14.2f}")
    for language in ("en", "zh"):
        queries = [(q, row) for row in rows for q in row[0].queries if query_language(q) == language]
        found = sum(q not in row[3] for q, row in queries)
        print(f"  {language} queries: {found}/{len(queries)} = {found / max(len(queries), 1):.3f}")
    print(_line("CPU s per screen", [r[1] for r in rows]))
    print(_line("wall s per screen", [r[2] for r in rows]))
    dense = [r for r in rows if r[0].size == (1920, 1080)]
    print(_line("wall s, 1920x1080 only", [r[2] for r in dense]))
    for screen, _, _, missed in rows:
        if missed:
            print(f"  missed on {screen.file}: {missed}")


def session_measure(*, frames: int, seed: int, baseline: bool) -> None:
    import numpy as np
    from django.conf import settings
    from PIL import Image
    from tqdm import tqdm

    from frames import reading
    from frames.imaging import image_hash
    from frames.storage import image_encode

    def stored(screen: Screen) -> Image.Image:
        encoded = image_encode(render(screen), quality=settings.IMAGE_QUALITY)
        with Image.open(io.BytesIO(encoded)) as im:
            return im.convert("RGB")

    rows = []
    latest: list[tuple[np.ndarray, list, bytes]] = []  # the latest frames read, newest first
    for screen, action in tqdm(session(random.Random(seed), frames), total=frames, desc="session", unit="frame"):
        picture = stored(screen)
        image = np.asarray(picture)
        signature = image_hash(picture)
        truth = words_drawn(screen=screen)
        scale = BASELINE_SIDE / max(image.shape[:2]) if baseline else None
        full, full_cpu, _ = _timed(lambda: reading.whole_read(image=image, scale=scale))

        def read():
            if baseline:  # the reader before versions read against the frame just before
                base = latest[0] if latest else None
            else:
                base = latest[reading.base_choose(signature=signature, bases=[b[2] for b in latest])] if latest else None
            return reading.screen_read(
                image=image,
                previous_image=base[0] if base else None,
                previous_lines=base[1] if base else None,
                scale=scale,
            )

        inc, inc_cpu, inc_wall = _timed(read)
        latest = [(image, inc.lines, signature), *latest][:BASES]
        full_words = words_found(words=truth, text="\n".join(line.text for line in full))
        inc_words = words_found(words=truth, text="\n".join(line.text for line in inc.lines))
        rows.append({
            "action": action, "full_cpu": full_cpu, "inc_cpu": inc_cpu, "inc_wall": inc_wall, "area": inc.area,
            "incremental": inc.incremental, "truth": len(truth), "full_found": len(full_words),
            "inc_found": len(inc_words), "lost": len(full_words - inc_words),
        })

    print(f"\n(2) working session: {len(rows)} frames at 1920x1080 (seed {seed}): "
          + ", ".join(f"{a} {sum(r['action'] == a for r in rows)}" for a in ("open", "type", "scroll", "switch")))
    print("  OCR seconds per frame")
    print(_line("whole screen CPU", [r["full_cpu"] for r in rows]))
    print(_line("as the worker reads, CPU", [r["inc_cpu"] for r in rows]))
    print(_line("as the worker reads, wall", [r["inc_wall"] for r in rows]))
    for action in ("open", "type", "scroll", "switch"):
        subset = [r["inc_cpu"] for r in rows if r["action"] == action]
        if subset:
            print(_line(f"  CPU on {action} ({len(subset)})", subset))
    print(f"  read from an earlier frame on {sum(r['incremental'] for r in rows)} of {len(rows)} frames; share of pixels "
          f"read: mean {statistics.fmean(r['area'] for r in rows):.3f}")
    truth = sum(r["truth"] for r in rows)
    print(f"  word recall against the drawn text ({truth} frame-words): whole {sum(r['full_found'] for r in rows) / truth:.4f}, "
          f"as the worker reads {sum(r['inc_found'] for r in rows) / truth:.4f}; words the whole read found and the "
          f"worker's missed: {sum(r['lost'] for r in rows)}")


def _text_image(size: tuple[int, int], *, px: int, seed: int):
    import numpy as np
    from PIL import Image, ImageDraw

    from tests.screens import font

    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    rng = random.Random(seed)
    face = font(px, mono=True)
    columns = size[0] // 12  # 160 characters on a row of 1920 pixels, 135 rows of 7 px: 21,600
    for row in range(size[1] // (px + 1)):
        draw.text((0, row * (px + 1)), "".join(rng.choice("abcdefghij0123456789 ") for _ in range(columns)), font=face, fill="black")
    return np.asarray(image)


def bounds_measure() -> None:
    import numpy as np

    from frames import reading

    cases = [
        ("one pixel", lambda: np.zeros((1, 1, 3), dtype=np.uint8)),
        ("a strip 12000x1", lambda: np.full((1, 12000, 3), 200, dtype=np.uint8)),
        ("noise 1920x1080", lambda: np.random.default_rng(3).integers(0, 256, (1080, 1920, 3), dtype=np.uint8)),
        ("20,000 tiny characters (7 px)", lambda: _text_image((1920, 1080), px=7, seed=5)),
        ("8192x8192 of 9 px text", lambda: _text_image((8192, 8192), px=9, seed=6)),
    ]
    print("\n(3) input that is no screen, read whole")
    for name, make in cases:
        image = make()
        lines, cpu, wall = _timed(lambda: reading.whole_read(image=image))
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"  {name:<32} {wall:7.1f} s wall {cpu:7.1f} s CPU  {len(lines):5} lines  peak RSS so far {peak:,.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=60)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--skip-hard", action="store_true")
    parser.add_argument("--skip-session", action="store_true")
    parser.add_argument("--skip-bounds", action="store_true")
    parser.add_argument("--baseline", action="store_true", help="detection at 960 px, as the reader before versions")
    args = parser.parse_args()

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "myrecall.settings")
    os.environ.setdefault("MYRECALL_DATA_DIR", tempfile.mkdtemp(prefix="myrecall-bench-"))
    import django

    django.setup()
    from django.conf import settings

    from frames import ocr

    print(f"engine {settings.OCR_ENGINE}, {settings.OCR_THREADS} threads, WebP quality {settings.IMAGE_QUALITY}")
    ocr.ocr_warm_up()
    if not args.skip_hard:
        hard_set_measure(baseline=args.baseline)
    if not args.skip_session:
        session_measure(frames=args.frames, seed=args.seed, baseline=args.baseline)
    if not args.skip_bounds:
        bounds_measure()


if __name__ == "__main__":
    main()
