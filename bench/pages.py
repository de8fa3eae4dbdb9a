"""Page latency and size on a busy day: the timeline at day and hour zoom, the frame
viewer and the search page.

Builds a fresh database with the app's migrations in a temporary MYRECALL_DATA_DIR and
fills one local day (Europe/Berlin) with --frames frames: OCR-like English and Chinese
screens from bench/search_keyword.Corpus, with line and word boxes laid out as RapidOCR
gives them, and index rows written through search.fts. Images are real WebP screens
rendered by tests/screens.py, one per app, shared by all the frames of that app.

Each page is requested with Django's test client in-process (logged-in superuser, `tz`
cookie), then a few times over HTTP against a real `manage.py serve` on the same data
dir. Prints figures beside the goal (p95 <= 300 ms, first response <= 1 MB), asserts
nothing.

    .venv/bin/python bench/pages.py --frames 10000 --requests 30
    .venv/bin/python bench/pages.py --profile "hour zoom"   # cProfile of one page, top functions
"""

import argparse
import cProfile
import io
import pstats
import re
import sys
import time
from dataclasses import dataclass
from datetime import date, datetime
from datetime import time as dt_time
from datetime import timezone as dt_timezone
from pathlib import Path
from urllib.parse import quote, urlencode
from zoneinfo import ZoneInfo

import numpy as np
from tqdm import tqdm

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests import screens  # noqa: E402
from bench.search_keyword import APPS, EN_WORK, Corpus, bench_data_dir, database_create, ocr_text_columns, rows_write  # noqa: E402

ZONE = ZoneInfo("Europe/Berlin")
DAY = date(2025, 3, 12)  # a Wednesday, away from a DST change
# Share of the day's frames in each local hour: a working day with a lunch dip and an evening.
HOUR_WEIGHTS = {
    7: 0.2, 8: 0.6, 9: 0.9, 10: 1.0, 11: 0.95, 12: 0.4, 13: 0.7, 14: 0.9, 15: 0.85,
    16: 0.8, 17: 0.6, 18: 0.3, 19: 0.1, 20: 0.2, 21: 0.35, 22: 0.25, 23: 0.1,
}
GOAL_MS = 300.0
GOAL_BYTES = 1_000_000
# How the bench's app kinds are drawn by tests/screens.py.
RENDER_KIND = {"browser": "browser", "editor": "editor", "terminal": "terminal", "chat": "chat", "mail": "browser"}
VIEWER_LINES = 60
BATCH = 2000

# Layout of OCR boxes on a 1920x1080 screen: two columns of lines, 30 px apart.
WIDTH, HEIGHT = 1920, 1080
LINE_TOP, LINE_PITCH, LINE_HEIGHT = 90, 30, 22
COLUMNS_X = (60, 1000)
LATIN_PX, CJK_PX = 10, 20
_CJK_CHAR = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_OCR_WORD = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]|[^\s\u3400-\u9fff\uf900-\ufaff]+")

FRAME_SQL = (
    "INSERT INTO frames_frame (id, timestamp, device_name, client_frame_id, app_name, window_name, browser_url, "
    "focused, image_path, width, height, image_bytes, ocr_status, ocr_attempts, ocr_error, created_at) "
    "VALUES (?, ?, 'laptop', NULL, ?, ?, ?, 1, ?, ?, ?, ?, 'done', 1, '', ?)"
)
OCR_SQL = (
    "INSERT INTO frames_ocrresult (frame_id, engine, text, text_length, languages, lines, ocr_area, carried_from_id, "
    "elapsed_ms, created_at) VALUES (?, 'rapidocr', ?, ?, ?, ?, 1.0, NULL, 2450, ?)"
)


def char_px(ch: str) -> int:
    return CJK_PX if _CJK_CHAR.match(ch) else LATIN_PX


def ocr_lines(texts: list[str]) -> list[dict]:
    """Line boxes top to bottom in two columns, a box per English word and per Chinese
    character (as RapidOCR reports them)."""
    rows = (HEIGHT - LINE_TOP) // LINE_PITCH
    lines = []
    for i, text in enumerate(texts):
        x0 = COLUMNS_X[(i // rows) % len(COLUMNS_X)]
        y = LINE_TOP + (i % rows) * LINE_PITCH
        words = []
        for m in _OCR_WORD.finditer(text):
            x = x0 + sum(char_px(ch) for ch in text[: m.start()])
            words.append([m.group(), x, y, sum(char_px(ch) for ch in m.group()), LINE_HEIGHT])
        width = sum(char_px(ch) for ch in text)
        lines.append({"t": text, "b": [x0, y, width, LINE_HEIGHT], "c": 0.93, "w": words})
    return lines


def day_timestamps(*, count: int, rng: np.random.Generator) -> np.ndarray:
    hours = sorted(HOUR_WEIGHTS)
    weights = np.array([HOUR_WEIGHTS[h] for h in hours])
    per_hour = rng.multinomial(count, weights / weights.sum())
    out = []
    for hour, n in zip(hours, per_hour):
        start = datetime.combine(DAY, dt_time(hour), tzinfo=ZONE).timestamp()
        out.append(rng.uniform(start, start + 3600, n))
    return np.sort(np.concatenate(out))


def screen_images_write(*, corpus: Corpus, data_dir: Path) -> dict[str, tuple[str, int]]:
    """One rendered screen per app, saved as the app saves frames (WebP at IMAGE_QUALITY)."""
    from django.conf import settings

    images = {}
    folder = data_dir / "frames" / f"{DAY:%Y/%m/%d}"
    folder.mkdir(parents=True, exist_ok=True)
    for n, (app_name, kind) in enumerate(APPS):
        screen = screens.Screen(
            kind=RENDER_KIND[kind],
            app_name=app_name,
            window_name=corpus.line(0.3)[:50],
            browser_url="https://example.org/" + "/".join(corpus.en.take(2)) if kind == "browser" else "",
            lines=[corpus.line(0.3)[:90] for _ in range(40)],
        )
        path = folder / f"shared-{n}.webp"
        screens.render(screen).save(path, format="WEBP", quality=settings.IMAGE_QUALITY)
        images[app_name] = (str(path.relative_to(data_dir)), path.stat().st_size)
    return images


def day_generate(*, count: int, seed: int, data_dir: Path) -> dict[int, int]:
    """Insert the day's frames, OCR results and index rows; returns line counts by frame id."""
    from django.db import connection

    from frames.models import OcrResult
    from frames.text import text_languages
    from search.fts import index_row

    adapt = connection.ops.adapt_datetimefield_value
    lines_field = OcrResult._meta.get_field("lines_json")
    corpus = Corpus(seed)
    images = screen_images_write(corpus=corpus, data_dir=data_dir)
    timestamps = day_timestamps(count=count, rng=np.random.default_rng(seed))
    frames, ocrs, fts = [], [], []
    line_counts: dict[int, int] = {}

    def flush() -> None:
        rows_write(frame_sql=FRAME_SQL, frames=frames, ocr_sql=OCR_SQL, ocrs=ocrs, fts=fts)

    connection.ensure_connection()
    frame_stream = corpus.frames(timestamps)
    for frame_id, (ts, screen, text) in enumerate(tqdm(frame_stream, total=count, desc="generate", unit="frame", mininterval=1), start=1):
        moment = datetime.fromtimestamp(ts, tz=dt_timezone.utc)
        stamp = adapt(moment)
        image_path, image_bytes = images[screen.app_name]
        texts = text.splitlines()
        line_counts[frame_id] = len(texts)
        lines_json = lines_field.get_db_prep_value(ocr_lines(texts), connection)
        key = (screen.app_name, screen.window_name, screen.browser_url)
        frames.append((frame_id, stamp, *key, image_path, WIDTH, HEIGHT, image_bytes, stamp))
        ocrs.append((frame_id, *ocr_text_columns(text), ",".join(text_languages(text)), lines_json, stamp))
        fts.append(index_row(timestamp_s=ts, frame_id=frame_id, text=text, app_name=key[0], window_name=key[1], browser_url=key[2]))
        if len(frames) >= BATCH:
            flush()
    if frames:
        flush()
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return line_counts


@dataclass
class Page:
    label: str
    url: str
    note: str


def busiest_hour() -> tuple[int, int]:
    from frames.selectors import frames_between
    from myrecall.timezones import day_bounds

    counts = [0] * 24
    for row in frames_between(start=day_bounds(DAY, ZONE)[0], end=day_bounds(DAY, ZONE)[1]):
        counts[datetime.fromtimestamp(row["ts"], tz=ZONE).hour] += 1
    hour = max(range(24), key=counts.__getitem__)
    return hour, counts[hour]


def viewer_pick(line_counts: dict[int, int]) -> tuple[int, int, str, int]:
    """The frame with the line count nearest VIEWER_LINES that shows a work word more than
    once; returns (frame id, lines, word, occurrences)."""
    from frames.models import OcrResult

    for frame_id in sorted(line_counts, key=lambda i: (abs(line_counts[i] - VIEWER_LINES), i)):
        words = re.findall(r"[a-z]+", OcrResult.objects.get(frame_id=frame_id).text.lower())
        best = max(EN_WORK, key=words.count)
        if words.count(best) >= 2:
            return frame_id, line_counts[frame_id], best, words.count(best)
    raise RuntimeError("no frame shows a work word twice")


def match_count(q: str, start: float, end: float) -> int:
    from search.filters import Filters
    from search.keyword import search_keyword

    return search_keyword(q=q, filters=Filters(start_time=start, end_time=end), limit=1, offset=0)[1]


def pages_pick(line_counts: dict[int, int]) -> list[Page]:
    from myrecall.timezones import day_bounds

    start, end = day_bounds(DAY, ZONE)
    hour, hour_frames = busiest_hour()
    frame_id, lines, word, occurrences = viewer_pick(line_counts)
    en_word = max(EN_WORK[:20], key=lambda w: match_count(w, start, end))
    zh_word = "会议"
    span = {"start_time": start, "end_time": end}
    return [
        Page("day zoom", f"/?date={DAY}", f"{len(line_counts):,} frames in the day"),
        Page("hour zoom", f"/?date={DAY}&hour={hour}", f"busiest hour {hour:02d}:00, {hour_frames:,} frames"),
        Page("frame viewer", f"/frames/{frame_id}/view?q={word}", f"{lines} OCR lines, q={word} ({occurrences}x)"),
        Page("search, English", "/search?" + urlencode({"q": en_word, **span}), f"q={en_word}, {match_count(en_word, start, end):,} matches"),
        Page("search, Chinese", "/search?" + urlencode({"q": zh_word, **span}), f"q={zh_word}, {match_count(zh_word, start, end):,} matches"),
    ]


def percentile(samples: list[float], p: float) -> float:
    return float(np.percentile(np.array(samples), p))


@dataclass
class Timing:
    first_ms: float
    first_bytes: int
    times_ms: list[float]


def client_login():
    from django.contrib.auth import get_user_model
    from django.test import Client

    user = get_user_model().objects.create_superuser(username="bench", email="", password="bench-password")
    client = Client(SERVER_NAME="localhost")
    client.force_login(user)
    client.cookies["tz"] = quote(ZONE.key, safe="")
    return client


def in_process_time(client, page: Page, *, requests: int, warmup: int) -> Timing:
    began = time.perf_counter()
    resp = client.get(page.url)
    first_ms = (time.perf_counter() - began) * 1000
    if resp.status_code != 200:
        raise RuntimeError(f"{page.url}: {resp.status_code} {resp.content[:300]!r}")
    for _ in range(warmup):
        client.get(page.url)
    times = []
    for _ in tqdm(range(requests), desc=page.label, unit="req", leave=False):
        began = time.perf_counter()
        client.get(page.url)
        times.append((time.perf_counter() - began) * 1000)
    return Timing(first_ms, len(resp.content), times)


def day_rows_time(*, requests: int) -> tuple[float, int]:
    """p50 of the timeline's row read for the whole day, which both zooms do."""
    from frames.selectors import frames_between
    from myrecall.timezones import day_bounds

    start, end = day_bounds(DAY, ZONE)
    times = []
    for _ in range(requests):
        began = time.perf_counter()
        rows = frames_between(start=start, end=end)
        times.append((time.perf_counter() - began) * 1000)
    return percentile(times, 50), len(rows)


def profile_print(client, page: Page, *, requests: int) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(requests):
        client.get(page.url)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out).sort_stats("cumulative")
    stats.print_stats(45)
    print(f"\ncProfile of {requests} requests of {page.label} ({page.url}), by cumulative time:")
    print(out.getvalue())


def http_login(server) -> "requests.Session":
    import requests

    password = (server.data_dir / "admin_password.txt").read_text().strip()
    session = requests.Session()
    session.get(server.url + "/login/", timeout=30)
    resp = session.post(
        server.url + "/login/",
        data={"username": "admin", "password": password, "csrfmiddlewaretoken": session.cookies["csrftoken"], "next": "/"},
        timeout=30,
        allow_redirects=False,
    )
    if resp.status_code != 302:
        raise RuntimeError(f"login failed: {resp.status_code}")
    session.cookies.set("tz", quote(ZONE.key, safe=""))
    return session


def http_time(session, url: str, page: Page, *, requests: int, warmup: int) -> tuple[list[float], int]:
    for _ in range(warmup):
        session.get(url + page.url, timeout=60)
    times, size = [], 0
    for _ in tqdm(range(requests), desc=f"HTTP {page.label}", unit="req", leave=False):
        began = time.perf_counter()
        resp = session.get(url + page.url, timeout=60)
        times.append((time.perf_counter() - began) * 1000)
        size = len(resp.content)
        if resp.status_code != 200:
            raise RuntimeError(f"{page.url}: {resp.status_code}")
    return times, size


def verdict(p95: float, size: int) -> str:
    misses = [what for what, bad in (("time", p95 > GOAL_MS), ("size", size > GOAL_BYTES)) if bad]
    return "ok" if not misses else "MISS " + "+".join(misses)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=30, help="timed in-process requests per page")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--http-requests", type=int, default=10, help="timed HTTP requests per page (0: skip serve)")
    parser.add_argument("--profile", metavar="LABEL", help="only cProfile this page (e.g. 'hour zoom')")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep", action="store_true", help="keep the temporary data dir and print its path")
    args = parser.parse_args()

    with bench_data_dir("pages", keep=args.keep) as data_dir:
        from django.db import connection

        database_create()
        began = time.perf_counter()
        line_counts = day_generate(count=args.frames, seed=args.seed, data_dir=data_dir)
        print(f"generated {args.frames:,} frames on {DAY} ({ZONE.key}) in {time.perf_counter() - began:.0f} s; "
              f"images: {len(APPS)} rendered WebP screens, one per app, shared by that app's frames")
        pages = pages_pick(line_counts)
        client = client_login()
        if args.profile:
            [page] = [p for p in pages if p.label == args.profile]
            in_process_time(client, page, requests=0, warmup=args.warmup)
            profile_print(client, page, requests=10)
            return

        results = {page.label: in_process_time(client, page, requests=args.requests, warmup=args.warmup) for page in pages}
        print(f"\nin-process (Django test client, logged in, tz={ZONE.key}), {args.requests} requests each after "
              f"{args.warmup} warm-up; goal p95 <= {GOAL_MS:.0f} ms and first response <= {GOAL_BYTES / 1e6:.0f} MB")
        print(f"  {'page':17} {'first ms':>9} {'p50 ms':>8} {'p95 ms':>8} {'bytes':>10}  {'goal':10} what")
        for page in pages:
            t = results[page.label]
            p95 = percentile(t.times_ms, 95)
            print(f"  {page.label:17} {t.first_ms:9.0f} {percentile(t.times_ms, 50):8.1f} {p95:8.1f} "
                  f"{t.first_bytes:10,}  {verdict(p95, t.first_bytes):10} {page.note}")
            print(f"  {'':17} {page.url}")
        rows_ms, rows = day_rows_time(requests=args.requests)
        print(f"  timeline pages read the whole day's rows first: frames_between, {rows:,} rows, p50 {rows_ms:.1f} ms")

        if args.http_requests:
            from tests.server import LiveServer

            connection.close()
            print(f"\nstarting manage.py serve on {data_dir} ...", flush=True)
            with LiveServer(data_dir) as server:
                session = http_login(server)
                print(f"over HTTP (daphne via manage.py serve, requests client on the same machine), "
                      f"{args.http_requests} requests each after {args.warmup} warm-up:")
                print(f"  {'page':17} {'p50 ms':>8} {'p95 ms':>8} {'bytes':>10} {'HTTP - in-process p50':>22}")
                for page in pages:
                    times, size = http_time(session, server.url, page, requests=args.http_requests, warmup=args.warmup)
                    local_p50 = percentile(results[page.label].times_ms, 50)
                    print(f"  {page.label:17} {percentile(times, 50):8.1f} {percentile(times, 95):8.1f} {size:10,} "
                          f"{percentile(times, 50) - local_p50:+21.1f} ms")


if __name__ == "__main__":
    main()
