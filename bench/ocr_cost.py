"""OCR cost per captured frame on a realistic session: a full pass against incremental OCR.

Renders a working session (typing, scrolling, switching windows) at 1920x1080, stores
each frame as the app does (WebP at IMAGE_QUALITY, decoded back), and reads every frame
twice: (a) a full pass, (b) incrementally from the previous frame's stored lines, as the
worker does. Prints CPU seconds (user + sys of this process: onnxruntime runs threads)
and wall seconds per frame, the share of pixels read, and word recall against the text
drawn on screen, so that a saving that lost words would show.

    .venv/bin/python bench/ocr_cost.py [--frames 60] [--seed 7]
"""

import argparse
import io
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.screens import Screen, words_drawn, words_found  # noqa: E402

def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(int(round(share * (len(ordered) - 1))), len(ordered) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=60)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "myrecall.settings")
    os.environ.setdefault("MYRECALL_DATA_DIR", tempfile.mkdtemp(prefix="myrecall-bench-"))
    import django

    django.setup()
    import random

    import numpy as np
    from django.conf import settings
    from PIL import Image
    from tqdm import tqdm

    from tests.screens import render, session
    from frames import ocr, reading
    from frames.storage import image_encode

    def stored(screen: Screen) -> np.ndarray:
        encoded = image_encode(render(screen), quality=settings.IMAGE_QUALITY)
        with Image.open(io.BytesIO(encoded)) as im:
            return np.asarray(im.convert("RGB"))

    print(f"engine {settings.OCR_ENGINE}, {settings.OCR_THREADS} threads, WebP quality {settings.IMAGE_QUALITY}, seed {args.seed}")
    ocr.ocr_warm_up()
    rows = []
    previous = None
    steps = session(random.Random(args.seed), args.frames)
    for screen, action in tqdm(steps, total=args.frames, unit="frame"):
        image = stored(screen)
        truth = words_drawn(screen=screen)

        cpu, wall = _cpu_seconds(), time.perf_counter()
        full = reading.screen_read(image=image)
        full_cpu, full_wall = _cpu_seconds() - cpu, time.perf_counter() - wall

        cpu, wall = _cpu_seconds(), time.perf_counter()
        inc = reading.screen_read(
            image=image,
            previous_image=previous[0] if previous else None,
            previous_lines=previous[1] if previous else None,
        )
        inc_cpu, inc_wall = _cpu_seconds() - cpu, time.perf_counter() - wall
        previous = (image, inc.lines)

        full_words = words_found(words=truth, text="\n".join(line.text for line in full.lines))
        inc_words = words_found(words=truth, text="\n".join(line.text for line in inc.lines))
        rows.append(
            {
                "action": action,
                "full_cpu": full_cpu,
                "full_wall": full_wall,
                "inc_cpu": inc_cpu,
                "inc_wall": inc_wall,
                "area": inc.area,
                "incremental": inc.incremental,
                "truth": len(truth),
                "full_found": len(full_words),
                "inc_found": len(inc_words),
                "lost": len(full_words - inc_words),
                "gained": len(inc_words - full_words),
            }
        )

    def line(label: str, key: str, subset: list[dict]) -> str:
        values = [r[key] for r in subset]
        return f"  {label:<22} p50 {statistics.median(values):6.2f}   p95 {_percentile(values, 0.95):6.2f}   mean {statistics.fmean(values):6.2f}"

    print(f"\n{len(rows)} frames at 1920x1080: " + ", ".join(f"{a} {sum(r['action'] == a for r in rows)}" for a in ("open", "type", "scroll", "switch")))
    print("OCR seconds per frame")
    for label, key in (("full pass CPU", "full_cpu"), ("incremental CPU", "inc_cpu"), ("full pass wall", "full_wall"), ("incremental wall", "inc_wall")):
        print(line(label, key, rows))
    print("incremental CPU by action")
    for action in ("type", "scroll", "switch"):
        subset = [r for r in rows if r["action"] == action]
        if subset:
            print(line(f"{action} ({len(subset)})", "inc_cpu", subset))
    incremental = [r for r in rows if r["incremental"]]
    print(f"incremental path taken on {len(incremental)} of {len(rows)} frames; share of pixels read: mean {statistics.fmean(r['area'] for r in rows):.3f}")
    truth = sum(r["truth"] for r in rows)
    print(
        f"word recall against the drawn text ({truth} frame-words): full pass {sum(r['full_found'] for r in rows) / truth:.4f}, "
        f"incremental {sum(r['inc_found'] for r in rows) / truth:.4f}"
    )
    print(f"words the full pass found and incremental missed: {sum(r['lost'] for r in rows)}; the reverse: {sum(r['gained'] for r in rows)}")


if __name__ == "__main__":
    main()
