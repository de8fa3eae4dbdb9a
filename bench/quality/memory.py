"""The large memory of the captured quality set: a database and vector index holding many
distractor frames (bench.quality.distractors), built once per size, model and code of the
passage cutting, and kept under ~/.cache/myrecall-bench/quality-memory/<key>/ as a data dir.

Distractors go in with their text directly (no image, no OCR): frames and OCR rows through the
ORM, keyword index rows through search.keyword_index, as the app writes them; then every one
is embedded with the real model through the app's own search.services.frames_embed, in the
worker's batches. That is the slow part (the figures of the build are kept beside it, in
build.json); a run then copies the kept data dir and adds the labelled screens to the copy.

    python -m bench.quality.memory DATA_DIR --distractors N --model M --seed S   (what search_quality runs)"""

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from datetime import datetime
from datetime import timezone as dt_timezone
from pathlib import Path

from tqdm import tqdm

REPO = Path(__file__).resolve().parents[2]
CACHE = Path.home() / ".cache" / "myrecall-bench" / "quality-memory"
DAY = 86400.0
SPREAD_DAYS = 10  # distractors lie this far either side of the labelled screens' first moment
INSERT_BATCH = 2000
# What decides a kept memory's contents besides its size, seed and model: the code that cuts and
# embeds passages and keeps vectors, the distractors' maker, and the schema (the migrations).
KEY_FILES = (
    "bench/quality/distractors.py",
    "bench/quality/memory.py",
    "search/passages.py",
    "search/embeddings.py",
    "search/relevance.py",
    "search/vectors.py",
)


def memory_key(*, distractors: int, model: str, seed: int) -> str:
    digest = hashlib.sha256(f"{distractors}\n{model}\n{seed}\n".encode())
    for name in KEY_FILES:
        path = REPO / name
        digest.update(path.read_bytes() if path.exists() else b"-")
    for migration in sorted(REPO.glob("*/migrations/0*.py")):
        digest.update(str(migration.relative_to(REPO)).encode())
    return f"{model}-{distractors}-{digest.hexdigest()[:12]}"


def memory_ready(*, distractors: int, model: str, seed: int, t0: float) -> Path:
    """The kept data dir of this memory, built first (in a child process: Django reads its data
    dir once per process) when it is not kept yet."""
    kept = CACHE / memory_key(distractors=distractors, model=model, seed=seed)
    if (kept / "build.json").exists():
        build = json.loads((kept / "build.json").read_text())
        print(f"large memory: {distractors:,} distractor frames from the cache {kept} (built in {build['embed_s']:.0f} s, "
              f"{build['frames_per_s']:.1f} frames/s, {build['passages']:,} passages)")
        return kept
    building = kept.with_name(kept.name + ".building")
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir(parents=True)
    print(f"large memory: building {distractors:,} distractor frames in {building} (once; later runs read the cache)")
    subprocess.run(
        [sys.executable, "-m", "bench.quality.memory", str(building), "--distractors", str(distractors),
         "--model", model, "--seed", str(seed), "--t0", str(t0)],
        cwd=REPO, check=True,
    )
    building.rename(kept)
    return kept


def memory_build(*, data_dir: Path, distractors: int, model: str, seed: int, t0: float) -> dict:
    """Fill a new data dir with the distractor frames, each embedded through frames_embed."""
    from bench.search_keyword import database_create, django_start

    django_start(data_dir)
    import numpy as np
    from django.conf import settings
    from django.db import connection, transaction

    from bench.quality.captured_queries import SCREENS
    from bench.quality.distractors import distractor_frames
    from frames.models import Frame, OcrResult, OcrStatus
    from frames.text import text_languages
    from search.embeddings import embed_query, embedder_info, embedder_reset
    from search.keyword_base import index_row
    from search.keyword_index import keyword_index
    from search.models import FrameVectors
    from search.services import EMBED_BATCH_FRAMES, frames_embed

    settings.EMBEDDINGS_MODEL = model
    embedder_reset()
    database_create()
    labelled_lines = {line.strip() for screen in SCREENS for line in screen.text().splitlines() if line.strip()}
    rng = np.random.default_rng(seed)
    stamps = np.sort(rng.uniform(t0 - SPREAD_DAYS * DAY, t0 + SPREAD_DAYS * DAY, distractors))
    frames, ocrs, rows = [], [], []

    def flush() -> None:
        with transaction.atomic():
            Frame.objects.bulk_create(frames)
            OcrResult.objects.bulk_create(ocrs)
            FrameVectors.objects.bulk_create([FrameVectors(frame_id=frame.id) for frame in frames])
            with connection.cursor() as cursor:
                keyword_index().rows_write(cursor, rows)
        frames.clear()
        ocrs.clear()
        rows.clear()

    started = time.perf_counter()
    made = distractor_frames(distractors, seed=seed, labelled_lines=labelled_lines)
    for frame_id, (stamp, (app, title, url, text)) in enumerate(
        tqdm(zip(stamps, made), total=distractors, desc="distractors: write", unit="frame", mininterval=2), start=1
    ):
        moment = datetime.fromtimestamp(float(stamp), tz=dt_timezone.utc)
        frames.append(Frame(
            id=frame_id, timestamp=moment, device_name="laptop", app_name=app, window_name=title, browser_url=url,
            focused=True, image_path=f"frames/distractors/{frame_id}.webp", width=1920, height=1080, image_bytes=150_000,
            ocr_status=OcrStatus.DONE, ocr_attempts=1,
        ))
        ocrs.append(OcrResult(frame_id=frame_id, engine="rapidocr", text=text, text_length=len(text),
                              languages=",".join(text_languages(text)), elapsed_ms=0))
        rows.append(index_row(timestamp_s=float(stamp), frame_id=frame_id, text=text, app_name=app, window_name=title, browser_url=url))
        if len(frames) >= INSERT_BATCH:
            flush()
    if frames:
        flush()
    write_s = time.perf_counter() - started

    embed_query("warm up")  # the model loads outside the timing
    ids = list(range(1, distractors + 1))
    batches = [ids[at : at + EMBED_BATCH_FRAMES] for at in range(0, len(ids), EMBED_BATCH_FRAMES)]
    started, started_cpu = time.perf_counter(), time.process_time()
    for batch in tqdm(batches, desc=f"distractors: frames_embed x{EMBED_BATCH_FRAMES} ({model})", unit="batch", mininterval=5):
        frames_embed(frame_ids=batch)
    embed_s, embed_cpu_s = time.perf_counter() - started, time.process_time() - started_cpu
    passages = sum(FrameVectors.objects.values_list("chunks", flat=True))
    build = {
        "distractors": distractors, "model": model, "embedder": embedder_info().key, "seed": seed, "t0": t0,
        "write_s": round(write_s, 1), "embed_s": round(embed_s, 1), "embed_cpu_s": round(embed_cpu_s, 1),
        "frames_per_s": round(distractors / embed_s, 2), "passages": passages,
        "passages_per_s": round(passages / embed_s, 2), "built": datetime.now(dt_timezone.utc).isoformat(timespec="seconds"),
    }
    connection.close()
    print(f"distractors: {distractors:,} frames written in {write_s:.0f} s; embedded in {embed_s:.0f} s "
          f"({embed_cpu_s:.0f} CPU s): {build['frames_per_s']} frames/s, {passages:,} passages, {build['passages_per_s']} passages/s")
    return build


def data_dir_copy(kept: Path, name: str) -> Path:
    """A new temporary data dir holding a copy of a kept memory."""
    import tempfile

    target = Path(tempfile.mkdtemp(prefix=f"myrecall-bench-{name}-"))
    shutil.copytree(kept, target, dirs_exist_ok=True)
    (target / "build.json").unlink(missing_ok=True)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--distractors", type=int, required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--seed", type=int, default=41)
    parser.add_argument("--t0", type=float, required=True)
    args = parser.parse_args()
    os.environ.setdefault("TQDM_MININTERVAL", "5")
    build = memory_build(data_dir=args.data_dir, distractors=args.distractors, model=args.model, seed=args.seed, t0=args.t0)
    (args.data_dir / "build.json").write_text(json.dumps(build, indent=1))


if __name__ == "__main__":
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    main()
