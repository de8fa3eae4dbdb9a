"""Ingest on a real `manage.py serve` (web server + OCR worker) in a temporary data dir.

Renders realistic 1920x1080 screens from bench.screens.session (fixed seed) as PNG; in
each one a made-up word is typed, so a search for it can only be answered from that
frame or a later one. Then measures:

  (b) a paced run, one frame every --interval s: time from the POST to the moment
      GET /api/v1/search returns the frame's new word (polled every 100 ms), and the
      worker's OCR seconds per frame and OCR'd share of the image (from the database);
  (c) bytes stored per frame: the image file, and the database rows and FTS index
      entries (SQLite's dbstat, per table);
  (a) burst ingest: frames/s accepted by POST /api/v1/frames from one client and from
      four, each frame on its own device name so nothing is skipped as a duplicate
      (run after (b) so its OCR backlog does not slow (b) down);
  (d) OCR quality of the stored WebP against the original PNG and other WebP qualities,
      as word recall against the text drawn.

Prints figures, asserts nothing.

    .venv/bin/python bench/ingest.py --frames 40 --interval 3
"""

import argparse
import io
import math
import os
import random
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import requests
from PIL import Image
from tqdm import tqdm

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.live import LiveServer  # noqa: E402
from bench.screens import Screen, render, rows_for, session  # noqa: E402

GOAL_SEARCHABLE_P95_S = 5.0
GOAL_BYTES_PER_FRAME = 100 * 1024
POLL_STORED_S = 0.1
# A word typed into a skipped duplicate waits for a later frame: poll it gently.
POLL_SKIPPED_S = 1.0
BURST_CLIENTS = 4
EN_TOKEN = re.compile(r"[a-z]+")
CJK_CHAR = re.compile(r"[\u4e00-\u9fff]")


@dataclass
class BenchFrame:
    index: int
    action: str
    word: str  # typed into this frame, drawn nowhere before it
    app_name: str
    window_name: str
    browser_url: str
    drawn_text: str
    png: bytes
    posted_at: float = 0.0
    post_s: float = 0.0
    status: str = ""
    frame_id: int | None = None
    searchable_s: float | None = None
    found_in: int | None = None


@dataclass
class RunFigures:
    frames: list[BenchFrame] = field(default_factory=list)
    table_bytes: dict[str, int] = field(default_factory=dict)
    image_bytes: list[int] = field(default_factory=list)
    ocr_rows: list[tuple[int, float, str, int]] = field(default_factory=list)  # elapsed_ms, ocr_area, text, frame_id
    burst: dict[int, tuple[float, list[float], Counter]] = field(default_factory=dict)
    load_paced: list[float] = field(default_factory=list)  # 1-minute load average when (b) began and ended


def word_make(rng: random.Random, taken: set[str]) -> str:
    """A pronounceable word no screen draws (no l or i, which OCR confuses with 1 and I)."""
    while True:
        word = "".join(rng.choice("bdfgkmnprstvz") + rng.choice("aeou") for _ in range(rng.randint(3, 4)))
        if word not in taken:
            taken.add(word)
            return word


def screen_type(screen: Screen, rng: random.Random, word: str) -> None:
    """Type the word at the end of a visible line (or on a new line when that one is long)."""
    rows = rows_for(screen.kind)
    row = min(screen.scroll + rng.randint(0, rows - 1), len(screen.lines) - 1)
    if len(screen.lines[row]) < 80:
        screen.lines[row] += " " + word
    else:
        screen.lines.insert(row + 1, word)


def screen_text(screen: Screen) -> str:
    parts = [f"{screen.app_name} - {screen.window_name}", screen.browser_url, *screen.visible_lines(rows_for(screen.kind))]
    return "\n".join(p for p in parts if p)


def frames_render(*, count: int, seed: int) -> list[BenchFrame]:
    rng = random.Random(seed)
    taken: set[str] = set()
    frames = []
    for index, (screen, action) in enumerate(tqdm(session(rng, count), total=count, desc="render", unit="frame")):
        word = word_make(rng, taken)
        screen_type(screen, rng, word)
        out = io.BytesIO()
        render(screen).save(out, format="PNG")
        frames.append(
            BenchFrame(
                index=index, action=action, word=word, app_name=screen.app_name, window_name=screen.window_name,
                browser_url=screen.browser_url, drawn_text=screen_text(screen), png=out.getvalue(),
            )
        )
    return frames


def frame_post(http: requests.Session, server: LiveServer, frame: BenchFrame, *, device_name: str) -> tuple[int, dict]:
    resp = http.post(
        server.url + "/api/v1/frames",
        files={"image": (f"{frame.index}.png", frame.png, "image/png")},
        data={
            "timestamp": time.time(), "app_name": frame.app_name, "window_name": frame.window_name,
            "browser_url": frame.browser_url, "focused": "true", "device_name": device_name,
        },
        timeout=60,
    )
    return resp.status_code, resp.json()


def search_wait(server: LiveServer, frame: BenchFrame, *, since: float, timeout_s: float) -> None:
    """Poll keyword search for the frame's word until a hit, recording when and in which frame.

    For a stored frame, HTTP polling starts once the database says its OCR is no longer
    pending (checked every 100 ms, read-only): the index is written in the same
    transaction, so nothing is missed, and a backlog of frames polling the web server
    ten times a second each would steal the CPU the worker needs.
    """
    http = requests.Session()
    http.headers.update(server.session.headers)
    if frame.status == "created":
        interval = POLL_STORED_S
        with db_connect(server) as db:
            while time.time() - frame.posted_at < timeout_s:
                row = db.execute("SELECT ocr_status FROM frames_frame WHERE id = ?", [frame.frame_id]).fetchone()
                if row and row[0] != "pending":
                    break
                time.sleep(POLL_STORED_S)
    else:
        interval = POLL_SKIPPED_S
    while time.time() - frame.posted_at < timeout_s:
        resp = http.get(
            server.url + "/api/v1/search",
            params={"q": frame.word, "start_time": since, "mode": "keyword", "limit": 5},
            timeout=30,
        )
        hits = resp.json().get("data", []) if resp.ok else []
        if hits:
            frame.searchable_s = time.time() - frame.posted_at
            ids = [hit["content"]["frame_id"] for hit in hits]
            frame.found_in = frame.frame_id if frame.frame_id in ids else min(ids)
            return
        time.sleep(interval)


def db_connect(server: LiveServer) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{server.db_path}?mode=ro", uri=True, timeout=30)


def db_table_bytes(server: LiveServer) -> dict[str, int]:
    """Bytes per table (its indexes included) from dbstat; {"(file size)": n} where dbstat is missing."""
    with db_connect(server) as db:
        try:
            rows = db.execute(
                "SELECT coalesce(s.tbl_name, d.name), sum(d.pgsize) FROM dbstat d "
                "LEFT JOIN sqlite_schema s ON s.name = d.name GROUP BY 1"
            ).fetchall()
        except sqlite3.OperationalError:
            wal = server.db_path.with_name(server.db_path.name + "-wal")
            return {"(file size)": server.db_path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)}
    return dict(rows)


def ocr_drain_wait(server: LiveServer, frame_ids: list[int], *, timeout_s: float) -> int:
    """Wait until the worker has finished every listed frame; returns how many are still pending."""
    marks = ",".join("?" * len(frame_ids))
    deadline = time.time() + timeout_s
    while True:
        with db_connect(server) as db:
            pending = db.execute(
                f"SELECT count(*) FROM frames_frame WHERE id IN ({marks}) AND ocr_status = 'pending'", frame_ids
            ).fetchone()[0]
        if not pending or time.time() > deadline:
            return pending
        time.sleep(0.5)


def paced_run(server: LiveServer, frames: list[BenchFrame], *, interval_s: float, timeout_s: float, figures: RunFigures) -> None:
    before = db_table_bytes(server)
    figures.load_paced = [os.getloadavg()[0]]
    started = time.time()
    watchers = []
    for frame in tqdm(frames, desc="(b) paced", unit="frame"):
        time.sleep(max(started + frame.index * interval_s - time.time(), 0))
        frame.posted_at = time.time()
        code, body = frame_post(server.session, server, frame, device_name="paced")
        frame.post_s = time.time() - frame.posted_at
        frame.status = body.get("status", f"HTTP {code}")
        frame.frame_id = body.get("frame_id")
        watcher = threading.Thread(target=search_wait, args=(server, frame), kwargs={"since": started - 1, "timeout_s": timeout_s})
        watcher.start()
        watchers.append(watcher)
    figures.load_paced.append(os.getloadavg()[0])
    for watcher in watchers:
        watcher.join()
    stored = [f.frame_id for f in frames if f.status == "created"]
    pending = ocr_drain_wait(server, stored, timeout_s=120)
    if pending:
        print(f"warning: {pending} paced frames still wait for OCR; their bytes are not all counted")
    after = db_table_bytes(server)
    figures.table_bytes = {name: after[name] - before.get(name, 0) for name in after if after[name] != before.get(name, 0)}
    marks = ",".join("?" * len(stored))
    with db_connect(server) as db:
        paths = [row[0] for row in db.execute(f"SELECT image_path FROM frames_frame WHERE id IN ({marks})", stored)]
        figures.ocr_rows = db.execute(
            f"SELECT elapsed_ms, ocr_area, text, frame_id FROM frames_ocrresult WHERE frame_id IN ({marks})", stored
        ).fetchall()
    figures.image_bytes = [(server.data_dir / path).stat().st_size for path in paths]


def burst_run(server: LiveServer, frames: list[BenchFrame], *, clients: int) -> tuple[float, list[float], Counter]:
    """Frames/s accepted, POST latencies and statuses, with `clients` posting at once."""
    local = threading.local()

    def post(frame: BenchFrame) -> tuple[float, str]:
        if not hasattr(local, "http"):
            local.http = requests.Session()
            local.http.headers.update(server.session.headers)
        sent = time.time()
        code, body = frame_post(local.http, server, frame, device_name=f"burst-{clients}-{frame.index}")
        return time.time() - sent, body.get("status", f"HTTP {code}")

    started = time.time()
    with ThreadPoolExecutor(max_workers=clients) as pool:
        results = list(tqdm(pool.map(post, frames), total=len(frames), desc=f"(a) burst x{clients}", unit="frame"))
    elapsed = time.time() - started
    statuses = Counter(status for _, status in results)
    return statuses["created"] / elapsed, [latency for latency, _ in results], statuses


def text_recall(*, drawn: str, read: str) -> tuple[float, float]:
    """Share of the drawn English words and Chinese characters that OCR gave back (as multisets)."""
    scores = []
    for pattern, drawn_units, read_units in (
        (EN_TOKEN, drawn.lower(), read.lower()),
        (CJK_CHAR, drawn, read),
    ):
        want = Counter(pattern.findall(drawn_units))
        got = Counter(pattern.findall(read_units))
        scores.append(sum((want & got).values()) / sum(want.values()) if want else float("nan"))
    return scores[0], scores[1]


def quality_measure(frames: list[BenchFrame], stored_paths: dict[int, Path], *, qualities: list[str]) -> list[tuple]:
    """(source, mean KB, mean encode ms, EN recall, ZH recall) for the original, the stored file and WebP at
    each quality ("lossless" too, which the app does not offer: screens of text are flat colour, where it can win)."""
    from frames.imaging import image_encode
    from frames.ocr import ocr_engine

    engine = ocr_engine()
    sources: dict[str, list[tuple[int, float, float, float]]] = {}
    for frame in tqdm(frames, desc="(d) OCR quality", unit="frame"):
        original = Image.open(io.BytesIO(frame.png)).convert("RGB")
        candidates = {"original PNG": (frame.png, float("nan")), "stored WebP": (stored_paths[frame.frame_id].read_bytes(), float("nan"))}
        for quality in qualities:
            started = time.perf_counter()
            if quality == "lossless":
                out = io.BytesIO()
                original.save(out, format="WEBP", lossless=True, quality=50, method=4)
                data = out.getvalue()
            else:
                data = image_encode(original, quality=int(quality), lossless_max_bytes=0)  # force the lossy path
            candidates[f"WebP {'q' if quality != 'lossless' else ''}{quality}"] = (data, time.perf_counter() - started)
        for name, (data, encode_s) in candidates.items():
            image = np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))
            read = "\n".join(line.text for line in engine.recognize(image))
            en, zh = text_recall(drawn=frame.drawn_text, read=read)
            sources.setdefault(name, []).append((len(data), encode_s, en, zh))
    return [
        (
            name,
            statistics.mean(r[0] for r in rows) / 1024,
            mean_known([r[1] * 1000 for r in rows]),
            mean_known([r[2] for r in rows]),
            mean_known([r[3] for r in rows]),
        )
        for name, rows in sources.items()
    ]


def mean_known(values: list[float]) -> float:
    """Mean of the values that are not NaN (a screen without Chinese has no Chinese recall)."""
    known = [v for v in values if v == v]
    return statistics.fmean(known) if known else float("nan")


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def verdict(ok: bool) -> str:
    return "meets goal" if ok else "MISSES goal"


def code_state() -> str:
    """The commit measured, and the files changed but not committed (other work in the tree runs too)."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO, capture_output=True, text=True)
    changed = [line[3:] for line in status.stdout.splitlines()]
    return head + (f" + uncommitted {', '.join(changed)}" if changed else "")


def pct_censored(values: list[float | None], q: float) -> float:
    """Percentile where None (never found) counts as longer than any value: inf when it lands there."""
    if not values:
        return float("nan")
    known = sorted(v for v in values if v is not None)
    rank = q / 100 * (len(values) - 1)
    if rank > len(known) - 1:
        return float("inf")
    low, high = known[math.floor(rank)], known[math.ceil(rank)]
    return low + (high - low) * (rank - math.floor(rank))


def seconds_text(value: float) -> str:
    return "not found in time" if value == float("inf") else f"{value:.2f} s"


def report_print(args, figures: RunFigures, quality_rows, server_quality: str) -> None:
    frames = figures.frames
    stored = [f for f in frames if f.status == "created"]
    skipped = [f for f in frames if f.status == "duplicate"]
    other = [f for f in frames if f.status not in ("created", "duplicate")]
    png_kb = statistics.mean(len(f.png) for f in frames) / 1024
    print()
    print(f"MyRecall ingest bench: {len(frames)} frames 1920x1080 (PNG {png_kb:.0f} KB avg), seed {args.seed}, "
          f"dedup {'off' if args.no_dedup else 'on (server default)'}, WebP quality {server_quality}, "
          f"{os.cpu_count()} cores; 1-min load average {' -> '.join(f'{v:.1f}' for v in figures.load_paced)} over (b)")
    print(f"code: {code_state()}")

    print("\n(a) burst ingest, POST /api/v1/frames (each frame its own device: nothing skipped):")
    for clients, (rate, latencies, statuses) in figures.burst.items():
        print(f"    {clients} client{'s' if clients > 1 else ' '}: {rate:5.1f} frames/s accepted; "
              f"POST p50 {pct(latencies, 50) * 1000:.0f} ms, p95 {pct(latencies, 95) * 1000:.0f} ms; {dict(statuses)}")

    print(f"\n(b) paced run, one frame every {args.interval:g} s, device 'paced':")
    print(f"    stored {len(stored)}, skipped as near-duplicates {len(skipped)}" + (f", other {Counter(f.status for f in other)}" if other else ""))
    times = [f.searchable_s for f in stored]
    found = [t for t in times if t is not None]
    via_later = sum(1 for f in stored if f.searchable_s is not None and f.found_in != f.frame_id)
    p95 = pct_censored(times, 95)
    print(f"    time-to-searchable of a stored frame's new word: p50 {seconds_text(pct_censored(times, 50))}, "
          f"p95 {seconds_text(p95)}, max found {max(found, default=float('nan')):.2f} s  "
          f"[goal p95 <= {GOAL_SEARCHABLE_P95_S:g} s: {verdict(p95 <= GOAL_SEARCHABLE_P95_S)}]")
    ocr_text = {row[3]: row[2] for row in figures.ocr_rows}
    missing = [f for f in stored if f.searchable_s is None]
    misread = sum(1 for f in missing if f.word not in ocr_text.get(f.frame_id, ""))
    print(f"    stored frames whose word was not found within {args.timeout:g} s: {len(missing)} "
          f"(OCR did not read it: {misread}); found only through a later frame: {via_later}")
    if skipped:
        late = [f.searchable_s for f in skipped if f.searchable_s is not None]
        print(f"    words typed into skipped frames: searchable later (with a later stored frame) {len(late)}/{len(skipped)}, "
              f"after p50 {pct(late, 50):.1f} s, max {max(late, default=float('nan')):.1f} s (polled every {POLL_SKIPPED_S:g} s); "
              f"never within {args.timeout:g} s: {len(skipped) - len(late)}")
    elapsed = [row[0] / 1000 for row in figures.ocr_rows]
    areas = [row[1] for row in figures.ocr_rows]
    print(f"    OCR s/frame (worker, OcrResult.elapsed_ms): p50 {pct(elapsed, 50):.2f}, p95 {pct(elapsed, 95):.2f}; "
          f"mean ocr_area {statistics.mean(areas) if areas else float('nan'):.2f}")
    post_s = [f.post_s for f in frames]
    print(f"    POST latency while paced: p50 {pct(post_s, 50) * 1000:.0f} ms, p95 {pct(post_s, 95) * 1000:.0f} ms")

    n = max(len(stored), 1)
    image = statistics.mean(figures.image_bytes) if figures.image_bytes else 0
    database = sum(figures.table_bytes.values()) / n
    total = image + database
    print(f"\n(c) bytes per stored frame ({len(stored)} frames, 1920x1080):")
    print(f"    image file {image / 1024:.1f} KB (min {min(figures.image_bytes, default=0) / 1024:.1f}, "
          f"max {max(figures.image_bytes, default=0) / 1024:.1f})")
    print(f"    database {database / 1024:.1f} KB, by table (pages of 4 KB, indexes included):")
    for name, size in sorted(figures.table_bytes.items(), key=lambda item: -item[1]):
        print(f"      {name:40s} {size / n / 1024:6.1f} KB")
    print(f"    total {total / 1024:.1f} KB  [goal <= {GOAL_BYTES_PER_FRAME // 1024} KB: {verdict(total <= GOAL_BYTES_PER_FRAME)}]")

    print(f"\n(d) OCR quality, {args.quality_sample} stored frames, engine run in this process on each version:")
    print(f"    {'source':14s} {'KB/frame':>9s} {'encode ms':>10s} {'EN words':>9s} {'ZH chars':>9s}   (recall against the text drawn)")
    for name, kb, encode_ms, en, zh in quality_rows:
        encode = "" if encode_ms != encode_ms else f"{encode_ms:.0f}"
        print(f"    {name:14s} {kb:9.1f} {encode:>10s} {en:9.3f} {zh:9.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frames", type=int, default=40)
    parser.add_argument("--interval", type=float, default=3.0, help="Seconds between frames in the paced run.")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--timeout", type=float, default=60.0, help="Give up on a word after this many seconds.")
    parser.add_argument("--no-dedup", action="store_true", help="Run the server with near-duplicate skipping off.")
    parser.add_argument("--quality", type=int, help="MYRECALL_IMAGE_QUALITY for the server (default: its own).")
    parser.add_argument("--qualities", default="50,65,80,90,lossless", help="WebP qualities to compare OCR on in (d).")
    parser.add_argument("--quality-sample", type=int, default=8)
    parser.add_argument("--keep", action="store_true", help="Keep the temporary data dir.")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="myrecall-bench-ingest-"))
    os.environ["MYRECALL_DATA_DIR"] = str(work / "bench")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "myrecall.settings")
    import django

    django.setup()
    from django.conf import settings

    server_env = {}
    if args.no_dedup:
        server_env["MYRECALL_DEDUP_MAX_DISTANCE"] = "-1"
    if args.quality:
        server_env["MYRECALL_IMAGE_QUALITY"] = str(args.quality)
    server_quality = server_env.get("MYRECALL_IMAGE_QUALITY", str(settings.IMAGE_QUALITY))

    figures = RunFigures(frames=frames_render(count=args.frames, seed=args.seed))
    try:
        print("starting serve ...", flush=True)
        with LiveServer(work / "data", env=server_env) as server:
            paced_run(server, figures.frames, interval_s=args.interval, timeout_s=args.timeout, figures=figures)
            for clients in (1, BURST_CLIENTS):
                figures.burst[clients] = burst_run(server, figures.frames, clients=clients)
            with db_connect(server) as db:
                stored_paths = {
                    frame_id: server.data_dir / path
                    for frame_id, path in db.execute("SELECT id, image_path FROM frames_frame WHERE device_name = 'paced'")
                }
        stored = [f for f in figures.frames if f.status == "created"]
        step = max(len(stored) // args.quality_sample, 1)
        sample = stored[::step][: args.quality_sample]
        quality_rows = quality_measure(sample, stored_paths, qualities=[q.strip() for q in args.qualities.split(",") if q.strip()])
        args.quality_sample = len(sample)
        report_print(args, figures, quality_rows, server_quality)
    finally:
        if args.keep:
            print(f"\ndata kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
