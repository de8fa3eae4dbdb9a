"""The browser extension (issue 22.2): what it sends, and what pairing its reports costs the server.

1. Messages: a real Chromium, headed on Xvfb, with extension/ loaded and set up through its options
   page against a real `serve`, shows a page of a local test server for --minutes (default 2) with a
   navigation every --navigate-every seconds (default 20). The server's record of the reports (each
   browser tab span counts the reports it got) is read every second: reports per minute, how many
   were changes (a new span) and how many heartbeats, and the longest silence between two reports
   (the heartbeat is 5 s while the background runs; a suspended one is woken every 30 s).
2. Pairing cost, in-process on a data dir of --frames frames (default 200,000 over 30 days, with
   their OCR text and keyword index rows) plus a live session of --session-frames browser frames: a
   screenshot every 3 s (frame_ingest of a real image, a Chromium window whose title shows the tab),
   a heartbeat report every 5 s (browser_tab_report, which settles the frames since the last), a
   navigation every 30 s. Times per report, per browser frame ingest (pairing included) and per
   frame ingest of a non-browser app (the same work without pairing), p50/p95/max; and the pairing
   lookup alone (browser_tab_at).

Prints figures, asserts nothing.

    .venv/bin/python bench/browser.py
    .venv/bin/python bench/browser.py --minutes 1 --frames 50000 --session-frames 200
"""

import argparse
import io
import os
import random
import sqlite3
import sys
import tempfile
import time
from datetime import datetime
from datetime import timezone as dt_timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.search_keyword import bench_data_dir, database_create, frames_generate, percentiles  # noqa: E402


def reports_count(db: Path) -> tuple[int, int]:
    """(reports, spans) the server recorded so far."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30) as conn:
        reports, spans = conn.execute("SELECT COALESCE(SUM(reports), 0), COUNT(*) FROM frames_browsertab").fetchone()
    return reports, spans


def messages_measure(minutes: float, navigate_every: float) -> None:
    from tests.desktop import Desktop
    from tests.extension_browser import ExtensionBrowser, Pages
    from tests.server import LiveServer

    tmp = Path(tempfile.mkdtemp(prefix="myrecall-bench-browser-"))
    desktop = Desktop(tmp)
    pages = Pages()
    server = browser = None
    try:
        server = LiveServer(tmp / "data")
        browser = ExtensionBrowser(desktop, tmp / "profile")
        said = browser.options(url=server.url, token=server.token)
        print(f"options page: {said}")
        browser.open(f"{pages.url}/start?title=Start%20page")
        time.sleep(2)
        base_reports, base_spans = reports_count(server.data_dir / "myrecall.sqlite3")
        started = time.monotonic()
        next_navigation = started + navigate_every
        last_count, last_change, longest_silence, navigations = base_reports, started, 0.0, 0
        while time.monotonic() - started < minutes * 60:
            time.sleep(1)
            now = time.monotonic()
            count, _ = reports_count(server.data_dir / "myrecall.sqlite3")
            if count != last_count:
                longest_silence = max(longest_silence, now - last_change)
                last_count, last_change = count, now
            if now >= next_navigation:
                navigations += 1
                browser.open(f"{pages.url}/page{navigations}?title=Page%20{navigations}")
                next_navigation += navigate_every
        longest_silence = max(longest_silence, time.monotonic() - last_change)
        elapsed_min = (time.monotonic() - started) / 60
        reports, spans = reports_count(server.data_dir / "myrecall.sqlite3")
        reports, spans = reports - base_reports, spans - base_spans
        print(f"\n1. Messages over {elapsed_min:.1f} min with a tab open and {navigations} navigations (Chromium, real extension):")
        print(f"   {reports} reports: {reports / elapsed_min:.1f} per minute")
        print(f"   {spans} changes (new tab, address or title) and {reports - spans} heartbeats")
        print(f"   longest time without a report: {longest_silence:.0f} s (seen at 1 s resolution)")
    finally:
        if browser is not None:
            browser.close()
        if server is not None:
            server.stop()
        pages.close()
        desktop.close()


def screenshot(rng: random.Random) -> bytes:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (1280, 800), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    for row in range(12):
        words = " ".join(rng.choice(["budget", "notes", "release", "search", "frame", "review", "draft"]) for _ in range(8))
        draw.text((40, 40 + row * 55), words, fill=(0, 0, 0))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def pairing_measure(frames: int, session_frames: int, seed: int) -> None:
    from frames.selectors import browser_tab_at
    from frames.services import browser_tab_report, frame_ingest

    rng = random.Random(seed)
    now = time.time()
    span_s = session_frames * 3.0
    print(f"\n2. Pairing cost on {frames:,} frames (30 days) plus a session of {session_frames} browser frames:")
    frames_generate(size=frames, t0=now - span_s - 30 * 86400, seed=seed)
    images = [screenshot(rng) for _ in range(20)]
    report_ms, browser_ms, other_ms, lookup_ms = [], [], [], []
    page = 0
    title = url = ""
    start = now - span_s - 5
    for tick in range(int(span_s)):
        at = start + tick
        if tick % 30 == 0:
            page += 1
            title, url = f"Pull request {page}: fix pairing", f"https://git.example.org/pulls/{page}"
        if tick % 5 == 0:
            began = time.perf_counter()
            browser_tab_report(browser="Chromium 156", state="page", url=url, title=title, at=at)
            report_ms.append((time.perf_counter() - began) * 1000)
        if tick % 3 == 1:
            image = images[tick % len(images)]
            began = time.perf_counter()
            frame_ingest(image_bytes=image, timestamp=at, device_name="desk", app_name="Chromium", window_name=f"{title} - Chromium")
            browser_ms.append((time.perf_counter() - began) * 1000)
            began = time.perf_counter()
            frame_ingest(image_bytes=image, timestamp=at + 0.5, device_name="desk2", app_name="XTerm", window_name="shell")
            other_ms.append((time.perf_counter() - began) * 1000)
            began = time.perf_counter()
            browser_tab_at(app_name="Chromium", window_name=f"{title} - Chromium", at=datetime.fromtimestamp(at, tz=dt_timezone.utc))
            lookup_ms.append((time.perf_counter() - began) * 1000)
    from frames.models import Frame

    paired = Frame.objects.filter(device_name="desk").exclude(browser_url="").count()
    total = Frame.objects.filter(device_name="desk").count()
    for label, samples in [
        ("report (POST /api/v1/browser/tab's service, settling the frames since the last)", report_ms),
        ("browser frame ingest, pairing included", browser_ms),
        ("non-browser frame ingest (no pairing)", other_ms),
        ("pairing lookup alone (browser_tab_at)", lookup_ms),
    ]:
        p50, p95, worst = percentiles(samples)
        print(f"   {label}: p50 {p50:.2f} ms, p95 {p95:.2f} ms, max {worst:.1f} ms ({len(samples)} calls)")
    print(f"   session frames given their tab's URL: {paired} of {total}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=2.0, help="How long the real browser session runs.")
    parser.add_argument("--navigate-every", type=float, default=20.0, help="Seconds between navigations in it.")
    parser.add_argument("--frames", type=int, default=200_000, help="Frames in the data dir for the pairing cost.")
    parser.add_argument("--session-frames", type=int, default=400, help="Browser frames of the timed session.")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--skip-browser", action="store_true", help="Only the pairing cost.")
    args = parser.parse_args()
    if not args.skip_browser:
        messages_measure(args.minutes, args.navigate_every)
    os.environ["MYRECALL_DEDUP_MAX_DISTANCE"] = "-1"  # every session screenshot is stored, as a changing screen is
    with bench_data_dir("browser", keep=False):
        database_create()
        pairing_measure(args.frames, args.session_frames, args.seed)


if __name__ == "__main__":
    main()
