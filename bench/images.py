"""What keeping frame images through the storage named by the settings (Django's storage API,
MYRECALL_IMAGES_DIR / MYRECALL_IMAGES_STORAGE) costs: ingest and serving on a real web server.

Starts the web server alone (`python -m myrecall.web`, no worker, so no OCR competes for the CPU)
of the MyRecall tree given by --repo (default: this one) on a fresh data dir, posts --frames
realistic 1920x1080 screens of a working session (tests.screens, fixed seed; one device, so
screens that barely changed are stored as deltas) one after the other, then fetches a frame's
image through the API --gets times, for a frame stored whole and for a delta. Then, in this process
(this tree), the storage step alone, which end-to-end figures on a busy machine hide in noise: a
staged image put in place (StagedImage.place, through the storage) and read back, --place times
each, beside the plain file calls the code made before (os.replace into the folder; open and
read). Prints figures, asserts nothing.

    .venv/bin/python bench/images.py --frames 100 --gets 200
    .venv/bin/python bench/images.py --repo /tmp/myrecall-before          # an older tree, same figures
    .venv/bin/python bench/images.py --env MYRECALL_IMAGES_DIR=/mnt/shared/myrecall
"""

import argparse
import io
import os
import random
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.screens import render, session  # noqa: E402


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def storage_step(count: int) -> None:
    """Median microseconds to put a staged 60 KB image in place and to read it back: through the
    frames storage, and with the plain file calls of before."""
    os.environ["MYRECALL_DATA_DIR"] = tempfile.mkdtemp(prefix="myrecall-bench-step-")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "myrecall.settings")
    import django

    django.setup()
    from datetime import datetime, timezone

    from frames import storage

    data = os.urandom(60_000)
    timings: dict[str, list[float]] = {"place, storage API": [], "place, os.replace": [], "read, storage API": [], "read, open()": []}
    root = Path(os.environ["MYRECALL_DATA_DIR"])
    moment = datetime.now(timezone.utc)
    for _ in range(count):
        staged = storage.StagedImage(relpath=storage._new_relpath(moment, ".webp"), size=len(data), _tmp=storage._write_temp(data))
        t0 = time.perf_counter()
        staged.place()
        timings["place, storage API"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        storage._read(staged.relpath)
        timings["read, storage API"].append(time.perf_counter() - t0)
        tmp, final = storage._write_temp(data), root / storage._new_relpath(moment, ".webp")
        t0 = time.perf_counter()
        final.parent.mkdir(parents=True, exist_ok=True)
        os.replace(tmp, final)
        timings["place, os.replace"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        with open(final, "rb") as fh:
            fh.read()
        timings["read, open()"].append(time.perf_counter() - t0)
    print(f"storage step alone, {count} images of {len(data) // 1000} KB: " + "; ".join(
        f"{label} {1e6 * statistics.median(values):.0f} us" for label, values in timings.items()))


def _cpu_s(pid: int) -> float:
    """CPU seconds (user + system) a process has used: less swayed than wall time by other work."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", type=Path, default=REPO, help="The MyRecall tree to run (its manage.py and code).")
    parser.add_argument("--frames", type=int, default=100)
    parser.add_argument("--gets", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--place", type=int, default=500, help="Images placed and read in the storage step (0: skip it).")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE", help="Set for the server (repeatable).")
    args = parser.parse_args()

    screens = []
    for screen, _ in session(random.Random(args.seed), args.frames, zh_share=0.3):
        out = io.BytesIO()
        render(screen).save(out, format="PNG")
        screens.append((screen, out.getvalue()))

    with tempfile.TemporaryDirectory(prefix="myrecall-bench-images-") as tmp:
        data_dir = Path(tmp) / "data"
        env = {**os.environ, "MYRECALL_DATA_DIR": str(data_dir), **dict(item.split("=", 1) for item in args.env)}
        env.pop("DATABASE_URL", None)
        manage = [sys.executable, str(args.repo / "manage.py")]
        subprocess.run([*manage, "migrate", "-v0"], cwd=args.repo, env=env, check=True)
        token = subprocess.run([*manage, "token_create", "bench"], cwd=args.repo, env=env, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
        port = _port()
        log = open(Path(tmp) / "web.log", "w")
        web = subprocess.Popen(
            [sys.executable, "-m", "myrecall.web", "-b", "127.0.0.1", "-p", str(port), "myrecall.asgi:application"],
            cwd=args.repo, env=env, stdout=log, stderr=subprocess.STDOUT,
        )
        url = f"http://127.0.0.1:{port}"
        http = requests.Session()
        http.headers["Authorization"] = f"Bearer {token}"
        try:
            deadline = time.time() + 120
            while True:
                try:
                    if http.get(f"{url}/health", timeout=10).status_code < 500:
                        break
                except requests.ConnectionError:
                    pass
                if time.time() > deadline or web.poll() is not None:
                    raise SystemExit(f"the web server did not start:\n{(Path(tmp) / 'web.log').read_text()}")
                time.sleep(0.3)

            posts, ids = [], []
            start = time.time() - 2 * 3600
            began, cpu = time.perf_counter(), _cpu_s(web.pid)
            for number, (screen, png) in enumerate(screens):
                t0 = time.perf_counter()
                resp = http.post(
                    f"{url}/api/v1/frames",
                    files={"image": ("frame.png", png, "image/png")},
                    data={"timestamp": start + number * 5, "app_name": screen.app_name, "window_name": screen.window_name, "device_name": "bench"},
                    timeout=60,
                )
                posts.append(time.perf_counter() - t0)
                resp.raise_for_status()
                if resp.status_code == 201:
                    ids.append(resp.json()["frame_id"])
            wall, cpu = time.perf_counter() - began, _cpu_s(web.pid) - cpu

            with sqlite3.connect(data_dir / "myrecall.sqlite3") as db:
                rows = dict(db.execute("SELECT id, image_base_id FROM frames_frame"))
            whole = [frame_id for frame_id in ids if rows.get(frame_id) is None]
            deltas = [frame_id for frame_id in ids if rows.get(frame_id) is not None]
            print(f"tree: {args.repo}  frames posted: {len(screens)}  stored: {len(ids)} ({len(whole)} whole, {len(deltas)} deltas)")
            print(f"ingest (one client, POST /api/v1/frames): {len(screens) / wall:.2f} frames/s; "
                  f"per POST p50 {1000 * statistics.median(posts):.1f} ms, p95 {1000 * _pct(posts, 0.95):.1f} ms; "
                  f"web server CPU {1000 * cpu / len(screens):.1f} ms a frame")
            for label, chosen in (("whole", whole), ("delta", deltas)):
                if not chosen:
                    continue
                frame_id = chosen[len(chosen) // 2]
                http.get(f"{url}/api/v1/frames/{frame_id}", timeout=30).raise_for_status()  # warm
                gets, cpu = [], _cpu_s(web.pid)
                for _ in range(args.gets):
                    t0 = time.perf_counter()
                    resp = http.get(f"{url}/api/v1/frames/{frame_id}", timeout=30)
                    body = resp.content
                    gets.append(time.perf_counter() - t0)
                    resp.raise_for_status()
                cpu = _cpu_s(web.pid) - cpu
                print(f"GET /api/v1/frames/ID, a frame stored {label} ({len(body)} bytes served), {args.gets} requests: "
                      f"p50 {1000 * statistics.median(gets):.2f} ms, p95 {1000 * _pct(gets, 0.95):.2f} ms; "
                      f"web server CPU {1000 * cpu / args.gets:.2f} ms a request")
        finally:
            web.terminate()
            try:
                web.wait(timeout=30)
            except subprocess.TimeoutExpired:
                web.kill()
                web.wait()
            log.close()
    if args.place:
        storage_step(args.place)


if __name__ == "__main__":
    main()
