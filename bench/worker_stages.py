"""CPU seconds a frame of a working session costs in the worker, stage by stage (issue 41).

Frames go through the app as they do live, in this process, on a temporary data dir: each posted
with frames.services.frame_ingest (the web server's part, reported apart), read by
frame_ocr_run (the OCR task) and embedded by search.services.vectors_embed_next with the
worker's batch (the embedding task; at one frame every 3 s it finds the one frame just read).
Each stage's CPU is process time (every thread of this process: onnxruntime's and the
embedder's too) spent in it alone, what it calls that is measured on its own line left out:

  ingest (web)     frame_ingest: decode, near-duplicate check, image encode, rows
  OCR              frame_ocr_run without the keyword index and the vector index's bookkeeping
  FTS              search.services.frame_index (on the OCR's frame_text_ready)
  passages         search.passages.frame_passages (cutting the screen, counting tokens)
  e5 model         the packaged embedder's own calls (search.embeddings._local_embed)
  e5 other         embed_texts besides the model (the cache)
  relevance        search.relevance.chunk_stats
  crosscheck       search.crosscheck.passages_read (the second model's reading)
  vector write     search.vectors.day_write (Chroma in this process here; the worker's goes to
                   the vector server, another process on the same cores)
  embed task rest  vectors_embed_next's claims and row updates

Beside them, per frame: the share of the image OCR ran on (the rest carried from the frame before),
passages cut, passages the e5 model embedded and passages the second
model read (the others came from their caches). Frames are the drawn session of tests.screens (the screens
bench/ingest.py posts) and the captured sessions of bench/sessions (real programs, consecutive
captures of one screen; ~/.cache/myrecall-bench/sessions). Prints medians and p95 of CPU, and the
median wall time beside them (CPU above wall: more than one thread ran); asserts nothing.

    .venv/bin/python bench/worker_stages.py [--frames 24] [--sessions docs-en docs-zh ...] [--no-drawn]
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
from collections import defaultdict
from pathlib import Path

from tqdm import tqdm

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

STEP_S = 3.0
STAGES = [
    "ingest (web)", "OCR", "FTS", "passages", "e5 model", "e5 other", "relevance", "crosscheck",
    "vector write", "embed task rest",
]
WORKER_STAGES = STAGES[1:]
COUNTS = ["OCR'd share", "passages cut", "e5 embedded", "crosscheck read"]


def _django(data_dir: Path) -> None:
    os.environ["MYRECALL_DATA_DIR"] = str(data_dir)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "myrecall.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


class Meter:
    """Exclusive process time per stage: a stage's time less that of the measured stages it calls."""

    def __init__(self) -> None:
        self.frame: dict[str, float] = defaultdict(float)
        self.stack: list[list] = []  # [stage, started (CPU, wall), time of measured callees (CPU, wall)]

    def wrap(self, module, name: str, stage: str, count=None) -> None:
        inner = getattr(module, name)
        meter = self

        def measured(*args, **kwargs):
            if count is not None:
                meter.frame[count[0]] += count[1](*args, **kwargs)
            meter.stack.append([stage, (time.process_time(), time.perf_counter()), [0.0, 0.0]])
            try:
                return inner(*args, **kwargs)
            finally:
                stage_, (cpu, wall), inside = meter.stack.pop()
                spent = (time.process_time() - cpu, time.perf_counter() - wall)
                meter.frame[stage_] += spent[0] - inside[0]
                meter.frame[f"{stage_} wall"] += spent[1] - inside[1]
                if meter.stack:
                    meter.stack[-1][2][0] += spent[0]
                    meter.stack[-1][2][1] += spent[1]

        setattr(module, name, measured)


def meters_install() -> Meter:
    import frames.services
    import search.embeddings
    import search.services
    from search import crosscheck, vectors

    meter = Meter()
    meter.wrap(frames.services, "frame_ingest", "ingest (web)")
    meter.wrap(frames.services, "frame_ocr_run", "OCR")
    meter.wrap(search.services, "frame_index", "FTS")
    meter.wrap(search.services, "vectors_embed_next", "embed task rest")
    meter.wrap(search.services, "frame_passages", "passages")
    meter.wrap(search.services, "embed_texts", "e5 other")
    meter.wrap(search.embeddings, "_local_embed", "e5 model", count=("e5 embedded", lambda texts, kind: len(texts)))
    meter.wrap(search.services, "chunk_stats", "relevance")
    meter.wrap(crosscheck, "passages_read", "crosscheck")
    meter.wrap(crosscheck, "_encode", "crosscheck", count=("crosscheck read", lambda texts: len(texts)))
    meter.wrap(vectors, "day_write", "vector write")
    return meter


def drawn_session(frames: int, seed: int) -> tuple[str, list[tuple[bytes, str, str]]]:
    from tests.screens import render, session

    posts = []
    for screen, _ in session(random.Random(seed), frames):
        out = io.BytesIO()
        render(screen).save(out, format="PNG")
        posts.append((out.getvalue(), screen.app_name, screen.window_name))
    return "drawn", posts


def captured_session(name: str, frames: int) -> tuple[str, list[tuple[bytes, str, str]]]:
    from bench.sessions.capture import session_load, sessions_ensure

    (folder,) = sessions_ensure([name])
    saved, paths = session_load(folder)
    return name, [(path.read_bytes(), f["app"], f["window"]) for path, f in list(zip(paths, saved["frames"]))[:frames]]


def session_run(name: str, posts: list[tuple[bytes, str, str]], *, meter: Meter, start: float, bar, read: list | None = None) -> list[dict]:
    """Each frame posted, read and embedded in turn, as the worker keeps up with one every 3 s.
    With `read`, each frame's window title, OCR text and lines are appended to it."""
    import frames.services
    import search.services
    from frames.models import OcrResult

    rows = []
    for number, (data, app, window) in enumerate(posts):
        meter.frame = defaultdict(float)
        result = frames.services.frame_ingest(
            image_bytes=data, timestamp=start + number * STEP_S, app_name=app, window_name=window,
            device_name=name, client_frame_id=f"{name}-{number}",
        )
        if result.status == "created":
            frames.services.frame_ocr_run(frame_id=result.frame_id)
            search.services.vectors_embed_next(limit=search.services.EMBED_BATCH_FRAMES_WORKER)
            meter.frame["passages cut"] = _passages_of(result.frame_id)
            meter.frame["OCR'd share"] = OcrResult.objects.filter(frame_id=result.frame_id).values_list("ocr_area", flat=True).first() or 0.0
            if read is not None:
                read.append(_read_of(name, result.frame_id))
            rows.append(dict(meter.frame))
        bar.update(1)
    return rows


def _passages_of(frame_id: int) -> int:
    from search.models import FrameVectors

    return FrameVectors.objects.filter(frame_id=frame_id).values_list("chunks", flat=True).first() or 0


def _read_of(session: str, frame_id: int) -> dict:
    from frames.models import Frame, OcrResult

    result = OcrResult.objects.get(frame_id=frame_id)
    return {"session": session, "window_name": Frame.objects.get(id=frame_id).window_name, "text": result.text, "lines": result.lines}


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else float("nan")


def table(title: str, rows: list[dict]) -> None:
    print(f"\n== {title}: {len(rows)} frames ==")
    print(f"  {'CPU s per frame':<18} {'p50':>7} {'p95':>7} {'mean':>7}   wall p50")
    for stage in [*STAGES, "worker total"]:
        parts = WORKER_STAGES if stage == "worker total" else [stage]
        values = [sum(row.get(part, 0.0) for part in parts) for row in rows]
        wall = [sum(row.get(f"{part} wall", 0.0) for part in parts) for row in rows]
        print(f"  {stage:<18} {statistics.median(values):7.3f} {_pct(values, 0.95):7.3f} {statistics.fmean(values):7.3f}   {statistics.median(wall):7.3f}")
    print(f"  {'count per frame':<18} {'p50':>7} {'p95':>7} {'mean':>7}")
    for count in COUNTS:
        values = [row.get(count, 0) for row in rows]
        print(f"  {count:<18} {statistics.median(values):7.2f} {_pct(values, 0.95):7.2f} {statistics.fmean(values):7.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=24, help="frames of each session (from its start)")
    parser.add_argument("--sessions", nargs="*", default=["docs-en", "docs-zh", "vim-code", "terminal-dark", "chat-mail"],
                        help="captured sessions (bench/sessions)")
    parser.add_argument("--no-drawn", action="store_true", help="leave out the drawn session")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--texts-out", type=Path, help="also write each frame's window title, OCR text and lines here (JSON), to study passages offline")
    args = parser.parse_args()

    sessions = [] if args.no_drawn else [drawn_session(args.frames, args.seed)]
    sessions += [captured_session(name, args.frames) for name in args.sessions]
    with tempfile.TemporaryDirectory(prefix="worker-stages-") as data_dir:
        _django(Path(data_dir))
        from frames.ocr import ocr_warm_up
        from search.crosscheck import crosscheck_warm_up
        from search.embeddings import embedder_info, embedder_warm_up
        from search.relevance import background

        ocr_warm_up()
        print(embedder_warm_up(), flush=True)
        crosscheck_warm_up()
        background()
        meter = meters_install()
        print(f"embedder {embedder_info().model}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}", flush=True)
        start = time.time() - 86400
        by_session: dict[str, list[dict]] = {}
        read: list | None = [] if args.texts_out else None
        with tqdm(total=sum(len(posts) for _, posts in sessions), desc="frames") as bar:
            for number, (name, posts) in enumerate(sessions):
                by_session[name] = session_run(name, posts, meter=meter, start=start + number * 7200, bar=bar, read=read)
    if args.texts_out:
        args.texts_out.write_text(json.dumps(read, ensure_ascii=False))
    for name, rows in by_session.items():
        table(name, rows)
    table("all sessions", [row for rows in by_session.values() for row in rows])


if __name__ == "__main__":
    main()
