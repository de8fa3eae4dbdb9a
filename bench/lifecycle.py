"""Deleting a day, and moving a memory (issue 13), on the app's real schema, services and commands:

1. A database with --days days of --per-day frames each (9,600: one every 9 s for a whole day,
   a heavy capture day), each with its OCR text (the keyword bench's realistic corpus), its
   keyword index row, an image file of --image-kb (realistic for a 1080p WebP screen here; the
   content is random bytes: deleting and copying a file costs by its size), 4.6 vectors in the
   vector index (synthetic, through the real embedded vector server) and, for some, chat
   citations quoting them.
2. One day deleted through frames.services.frames_delete (what DELETE /api/v1/frames and the
   timeline run): the time, what it removed, and the space given back by the database (its file
   after the WAL checkpoint), the images and the vector index. What erasing costs (issue 21.4:
   secure_delete, merging the keyword partitions of the range and the vocabulary's trigram
   index, emptying the WAL): the day before it is deleted with erasing off, then erased on its
   own, so the two deletions' times and the erase step can be compared.
3. `manage.py export` of what is left (10,000 frames by default), then `manage.py import` into an
   empty data dir: times and sizes, and a check that the restored database holds the same frames.

With --database-only: no image files, vectors or citations, and no export and import, so that
the cost of deleting and erasing a day can be measured at a size whose images and vectors would
not fit here (1M frames: --days 104 --rest 1600 --database-only).

With --database postgres: the same memory on a PostgreSQL server of the bench's own (bench/pg.py's
settings, VACUUM ANALYZE after the load as autovacuum would do), and (2) deletes the second day
as the app does there: rows, files, vectors, then VACUUM of its tables (timed on its own).
PostgreSQL does not zero freed space, so there is no erasing to compare, and (3) is pg_dump's
(the README's "Back up and move"), not timed here.

Prints figures, asserts nothing.

    .venv/bin/python bench/lifecycle.py
    .venv/bin/python bench/lifecycle.py --days 2 --per-day 2000 --rest 1000
    .venv/bin/python bench/lifecycle.py --days 104 --rest 1600 --database-only
    .venv/bin/python bench/lifecycle.py --database postgres
"""

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone
from pathlib import Path

import numpy as np
from tqdm import tqdm

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.ingest import code_state  # noqa: E402
from bench.search_hybrid import disk_bytes, vector_server  # noqa: E402
from bench.search_keyword import DAY, OWN_SERVER_ENV, bench_data_dir, database_create, frames_generate  # noqa: E402

DIMENSIONS = 384


def images_write(image_kb: int, seed: int) -> int:
    """An image file for every frame row, of image_kb; returns the bytes written."""
    from django.conf import settings

    from frames.models import Frame

    rng = np.random.default_rng(seed)
    block = rng.bytes(image_kb * 1024)
    total = 0
    rows = Frame.objects.values_list("id", "image_path")
    for frame_id, relpath in tqdm(rows.iterator(), total=rows.count(), desc="image files", unit="file", mininterval=2):
        path = Path(settings.DATA_DIR) / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as fh:
            fh.write(frame_id.to_bytes(8, "little") + block[8:])  # each file its own
        total += image_kb * 1024
    return total


def vectors_fill(chunks_per_frame: float, seed: int) -> int:
    """Synthetic unit vectors, chunks_per_frame per frame on average, for every frame, day by day."""
    from frames.models import Frame
    from search import vectors as vectors_store
    from search.embeddings import embedder_info
    from search.models import FrameVectors, VectorStatus

    key = embedder_info().key
    rng = np.random.default_rng(seed)
    by_day: dict[int, list] = {}
    for frame_id, moment in Frame.objects.values_list("id", "timestamp").iterator():
        ts_ms = int(moment.timestamp() * 1000)
        count = max(1, int(rng.poisson(chunks_per_frame)))
        vectors = rng.normal(size=(count, DIMENSIONS)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        entry = vectors_store.FrameEntry(frame_id=frame_id, ts_ms=ts_ms, embeddings=vectors.tolist())
        by_day.setdefault(vectors_store.day_of(ts_ms), []).append(entry)
    written = 0
    with tqdm(total=sum(len(v) for v in by_day.values()), desc="vector index (synthetic)", unit="frame", mininterval=2) as bar:
        for day, entries in by_day.items():
            for at in range(0, len(entries), 500):
                batch = entries[at : at + 500]
                vectors_store.day_write(embedder_key=key, day=day, entries=batch)
                written += sum(len(entry.embeddings) for entry in batch)
                bar.update(len(batch))
    FrameVectors.objects.bulk_create(
        [FrameVectors(frame_id=i, status=VectorStatus.DONE, embedder=key) for i in Frame.objects.values_list("id", flat=True)],
        batch_size=5000,
    )
    return written


def citations_make(day_start: datetime, count: int, seed: int) -> int:
    """Chat answers citing `count` frames of the day, with the snippets they quoted."""
    from chat.models import ChatMessage, ChatSession, Citation
    from frames.models import Frame

    rng = random.Random(seed)
    ids = list(Frame.objects.filter(timestamp__gte=day_start, timestamp__lt=day_start + timedelta(days=1)).values_list("id", "timestamp"))
    session = ChatSession.objects.create(title="bench")
    made = 0
    for at in range(0, count, 10):
        message = ChatMessage.objects.create(session=session, role="assistant", content="bench answer", status="done")
        for frame_id, moment in rng.sample(ids, 10):
            Citation.objects.create(message=message, frame_id=frame_id, frame_id_cited=frame_id, timestamp=moment, snippet="quoted text " * 8, valid=True)
            made += 1
    return made


def delete_unerased(start: datetime, end: datetime, progress) -> tuple[float, float]:
    """Delete a range as before erasing was added (secure_delete off, no segment merges), then
    erase it on its own as a finished deletion does; returns the two times in seconds."""
    from django.db import connection

    from frames.services import database_space_reclaim, deletion_erase, frames_delete
    from frames.signals import frames_erasing
    from search.services import keyword_index_erase_on_erasing

    uid = "search.keyword_index_erase"
    frames_erasing.disconnect(dispatch_uid=uid)
    connection.ensure_connection()
    connection.connection.execute("PRAGMA secure_delete=OFF")
    try:
        started = time.perf_counter()
        job = frames_delete(start=start, end=end, progress=progress)
        delete_s = time.perf_counter() - started
    finally:
        connection.connection.execute("PRAGMA secure_delete=ON")
        frames_erasing.connect(keyword_index_erase_on_erasing, dispatch_uid=uid)
    started = time.perf_counter()
    deletion_erase(job)
    database_space_reclaim()
    return delete_s, time.perf_counter() - started


def database_bytes() -> int:
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_database_size(current_database())")
            return cursor.fetchone()[0]
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        cursor.fetchall()
    name = Path(connection.settings_dict["NAME"])
    return sum(path.stat().st_size for path in name.parent.glob(name.name + "*"))


def files_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file()) if folder.exists() else 0


def on_own_postgres() -> None:
    """This script again, in a child process whose Django runs on a PostgreSQL server started for it."""
    from bench.pg import BenchPostgres, settings_parse

    server = BenchPostgres(settings_parse([]))
    try:
        print(f"PostgreSQL for this run: {server.describe()}", flush=True)
        env = {**os.environ, "DATABASE_URL": server.url, OWN_SERVER_ENV: "1"}
        done = subprocess.run([sys.executable, str(Path(__file__).resolve().relative_to(REPO)), *sys.argv[1:]], env=env, cwd=REPO)
    finally:
        server.stop()
    sys.exit(done.returncode)


def postgres_delete(day: datetime, per_day: int, data_dir: Path, full: bool) -> None:
    """(2) on PostgreSQL: one day deleted as DELETE /api/v1/frames does it, the VACUUM that ends
    it timed on its own."""
    import frames.services as frame_services

    reclaim = frame_services.database_space_reclaim
    vacuum_s: list[float] = []

    def reclaim_timed() -> None:
        started = time.perf_counter()
        reclaim()
        vacuum_s.append(time.perf_counter() - started)

    frame_services.database_space_reclaim = reclaim_timed  # frames_delete_run calls it by this module's name
    db_before, images_before = database_bytes(), files_bytes(data_dir / "frames")
    try:
        with tqdm(total=per_day, desc=f"deleting {day:%Y-%m-%d}", unit="frame") as bar:
            started = time.perf_counter()
            job = frame_services.frames_delete(start=day, end=day + timedelta(days=1), progress=bar.update)
            delete_s = time.perf_counter() - started
    finally:
        frame_services.database_space_reclaim = reclaim
    db_after, images_after = database_bytes(), files_bytes(data_dir / "frames")
    removed = job.removed
    frames = removed.get("frames", 0)
    print(f"\n(2) deleted one day of {frames:,} frames in {delete_s:.1f} s ({1000 * delete_s / max(frames, 1):.2f} ms a frame), "
          f"of which VACUUM {sum(vacuum_s):.2f} s; status {job.status}; removed: "
          + ", ".join(f"{k} {v:,}" for k, v in sorted(removed.items())))
    print(f"    database {db_before / 2**20:,.1f} -> {db_after / 2**20:,.1f} MiB (VACUUM frees the rows' room for new rows "
          f"and gives back only empty pages at a table's end; manage.py compact --vacuum rewrites the tables)"
          + (f"; images {images_before / 2**20:,.0f} -> {images_after / 2**20:,.0f} MiB" if full else ""))
    print("(3) export and import on PostgreSQL are pg_dump's and pg_restore's (README, \"Back up and move\"): not timed here")
    print("\n== summary ==")
    print(f"command: {' '.join(sys.argv)} (PostgreSQL)")
    print(f"delete one day of {frames:,} frames: {delete_s:.1f} s, of which VACUUM {sum(vacuum_s):.2f} s")


def manage(data_dir: Path, *args: str) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=REPO, env={**os.environ, "MYRECALL_DATA_DIR": str(data_dir)},
        capture_output=True, text=True,
    )
    if done.returncode:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return time.perf_counter() - started, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--days", type=int, default=2, help="Days of --per-day frames (2 or more): the first is deleted without erasing, the second with.")
    parser.add_argument("--per-day", type=int, default=9600, help="Frames a day (9,600: one every 9 s around the clock).")
    parser.add_argument("--rest", type=int, default=10000, help="Frames in the hour after the days: what is left to export.")
    parser.add_argument("--image-kb", type=int, default=40, help="Size of each image file (about a 1080p WebP screen here).")
    parser.add_argument("--chunks-per-frame", type=float, default=4.6)
    parser.add_argument("--citations", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--database-only", action="store_true", help="No images, vectors or citations; no export and import.")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument(
        "--database", choices=("sqlite", "postgres"), default="sqlite",
        help="postgres: on a PostgreSQL server the bench starts; (2) deletes one day as the app does there, (3) is not run",
    )
    args = parser.parse_args()
    if args.database == "postgres" and os.environ.get(OWN_SERVER_ENV) != "1":
        on_own_postgres()
    if args.days < 2:
        parser.error("--days must be 2 or more: one day is deleted without erasing, the next with")
    t0 = datetime(2026, 10, 5, tzinfo=dt_timezone.utc).timestamp()
    rng = np.random.default_rng(args.seed)
    parts = [np.sort(rng.uniform(t0 + d * DAY, t0 + (d + 1) * DAY, args.per_day)) for d in range(args.days)]
    parts.append(np.sort(rng.uniform(t0 + args.days * DAY, t0 + args.days * DAY + 3600, args.rest)))
    timestamps = np.concatenate(parts)
    unerased_day = datetime.fromtimestamp(t0, tz=dt_timezone.utc)
    deleted_day = unerased_day + timedelta(days=1)
    print(code_state())
    with bench_data_dir("lifecycle", keep=args.keep) as data_dir:
        server = vector_server(data_dir)
        server.__enter__()
        from frames.services import frames_delete

        database_create()
        generate_s = frames_generate(size=len(timestamps), t0=t0, seed=args.seed, timestamps=timestamps)
        if args.database == "postgres":
            from bench.pg import vacuum_analyze

            print(f"PostgreSQL: VACUUM ANALYZE after the load (what autovacuum would do) {vacuum_analyze():.0f} s")
        full = not args.database_only
        image_bytes = images_write(args.image_kb, args.seed) if full else 0
        vectors = vectors_fill(args.chunks_per_frame, args.seed) if full else 0
        cited = sum(citations_make(day, args.citations, args.seed) for day in (unerased_day, deleted_day)) if full else 0
        print(f"memory: {len(timestamps):,} frames over {args.days} days + {args.rest} ({generate_s:.0f} s to generate), "
              f"{image_bytes / 2**20:,.0f} MiB of images, {vectors:,} vectors, {cited} citations of the first two days")

        if args.database == "postgres":
            postgres_delete(deleted_day, args.per_day, data_dir, full)
            server.__exit__(None, None, None)
            return

        # 2. delete the first day without erasing, then erase it; delete the second as the app does
        with tqdm(total=args.per_day, desc=f"deleting {unerased_day:%Y-%m-%d} (erasing off)", unit="frame") as bar:
            unerased_s, erase_s = delete_unerased(unerased_day, unerased_day + timedelta(days=1), bar.update)
        db_before, chroma_before, images_before = database_bytes(), disk_bytes(data_dir / "chroma"), files_bytes(data_dir / "frames")

        # the second day, as DELETE /api/v1/frames does it (erasing)
        with tqdm(total=args.per_day, desc=f"deleting {deleted_day:%Y-%m-%d}", unit="frame") as bar:
            started = time.perf_counter()
            job = frames_delete(start=deleted_day, end=deleted_day + timedelta(days=1), progress=bar.update)
            delete_s = time.perf_counter() - started
        db_after, chroma_after, images_after = database_bytes(), disk_bytes(data_dir / "chroma"), files_bytes(data_dir / "frames")
        # Chroma keeps a deleted collection's files while it runs; the vector server gives them back when it starts.
        server.__exit__(None, None, None)
        if full:
            with vector_server(data_dir):
                chroma_restarted = disk_bytes(data_dir / "chroma")
        else:
            chroma_restarted = chroma_after
        removed = job.removed
        print(f"\n(2) erasing off: deleted {unerased_day:%Y-%m-%d} in {unerased_s:.1f} s, then erased it on its own in {erase_s:.1f} s "
              "(merging its week's keyword partition and the vocabulary's trigram index, emptying the WAL)")
        print(f"    deleted one day of {removed.get('frames', 0):,} frames, erasing, in {delete_s:.1f} s "
              f"({1000 * delete_s / max(removed.get('frames', 1), 1):.2f} ms a frame), status {job.status}; removed: "
              + ", ".join(f"{k} {v:,}" for k, v in sorted(removed.items())))
        print(f"    space given back: database {db_before / 2**20:,.1f} -> {db_after / 2**20:,.1f} MiB "
              f"({(db_before - db_after) / 2**20:,.1f} MiB, {100 * (db_before - db_after) / db_before:.0f}%); images "
              f"{images_before / 2**20:,.0f} -> {images_after / 2**20:,.0f} MiB; vector index {chroma_before / 2**20:,.0f} -> "
              f"{chroma_after / 2**20:,.0f} MiB while its server runs (Chroma keeps a dropped collection's files), "
              f"{chroma_restarted / 2**20:,.0f} MiB after the vector server's next start")

        print(f"    erasing costs {delete_s - unerased_s:+.1f} s on this day's deletion ({unerased_s:.1f} s without, {delete_s:.1f} s with)")
        if not full:
            print("\n== summary ==")
            print(f"command: {' '.join(sys.argv)}")
            print(f"{len(timestamps):,} frames: delete one day of {removed.get('frames', 0):,} frames: {delete_s:.1f} s erasing, "
                  f"{unerased_s:.1f} s with erasing off (+ {erase_s:.1f} s to erase it afterwards); database gave back "
                  f"{(db_before - db_after) / 2**20:,.1f} MiB of {db_before / 2**20:,.1f}")
            return

        # 3. export what is left, then import it into an empty data dir
        from django.db import connection

        from frames.models import Frame

        left = Frame.objects.count()
        ids_left = list(Frame.objects.order_by("id").values_list("id", flat=True))
        connection.close()
        work = Path(tempfile.mkdtemp(prefix="myrecall-bench-lifecycle-out-"))
        archive = work / "memory.tar"
        export_s, _ = manage(data_dir, "export", str(archive))
        target = work / "restored"
        import_s, _ = manage(target, "import", str(archive))
        import sqlite3

        restored = [row[0] for row in sqlite3.connect(target / "myrecall.sqlite3").execute("SELECT id FROM frames_frame ORDER BY id")]
        restored_images = files_bytes(target / "frames")
        print(f"\n(3) export of {left:,} frames while nothing else runs: {export_s:.1f} s ({archive.stat().st_size / 2**20:,.0f} MiB archive, "
              f"{left / export_s:,.0f} frames/s); import into an empty data dir: {import_s:.1f} s ({left / import_s:,.0f} frames/s); "
              f"restored frames identical: {restored == ids_left} ({len(restored):,}), images {restored_images / 2**20:,.0f} MiB; "
              "vectors are rebuilt by the worker afterwards (about 10 frames/s here: bench/search_hybrid.py)")
        if not args.keep:
            import shutil

            shutil.rmtree(work, ignore_errors=True)
        print("\n== summary ==")
        print(f"command: {' '.join(sys.argv)}")
        print(f"delete one day of {removed.get('frames', 0):,} frames: {delete_s:.1f} s erasing, {unerased_s:.1f} s with erasing off "
              f"(+ {erase_s:.1f} s to erase it afterwards); database gave back "
              f"{(db_before - db_after) / 2**20:,.1f} MiB of {db_before / 2**20:,.1f}; images {(images_before - images_after) / 2**20:,.0f} MiB; "
              f"vector index {(chroma_before - chroma_restarted) / 2**20:,.0f} MiB (at the vector server's next start)")
        print(f"export {left:,} frames: {export_s:.1f} s; import: {import_s:.1f} s")


if __name__ == "__main__":
    main()
