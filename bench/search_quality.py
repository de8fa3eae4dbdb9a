"""Search quality on a labelled set of realistic screens: recall@10 and MRR of keyword,
semantic and hybrid search, per query class, English and Chinese apart.

The set (bench/quality): over 40 screens written as HTML (mail, banking, code, terminals,
chat, calendars, docs, shopping, news, invoices, settings, tickets; English, German and
Chinese; light and dark; 1920x1080 and 1440x900), drawn by headless Chromium and cached as
PNGs, and over 60 queries labelled with the screens that answer them, in five classes:
en-exact, en-paraphrase (no word shared with the screen), zh-exact, zh-paraphrase (no two
characters in a row shared), cross (English for German or Chinese screens). The labels are
checked at start (bench.quality.queries.labels_check) and any problem is printed.

Everything after the screenshot is the app's own pipeline, in a fresh database in a temporary
MYRECALL_DATA_DIR: frames.services.frame_ingest, the real OCR (frames.services.frame_ocr_run;
the keyword index follows through frame_text_ready), search.services.frames_embed into the
vector index, then every query in every mode through search.selectors.search_run, as the API
runs it. recall@10 is the share of queries with a labelled screen in the top 10; MRR the mean
of 1/rank of the first one (0 when absent). Goal (issue 11): hybrid >= the better of keyword
and semantic on every class. Prints figures and the queries hybrid misses; asserts nothing.

Then a sweep of the similarity threshold (MYRECALL_SEMANTIC_MIN_SIMILARITY): search by meaning
with none, for the English-readable labelled queries and for off-topic questions that no
screen answers (bench.quality.queries.OFF_TOPIC); for each threshold, the recall@10 it would
keep and how many off-topic questions would still get a result (every one a false positive).

    .venv/bin/python bench/search_quality.py [--out figures.json] [--keep]
    .venv/bin/python bench/search_quality.py --render-only     # draw the screens, print where they are
"""

import argparse
import hashlib
import json
import statistics
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.quality.layouts import Screen  # noqa: E402
from bench.quality.queries import CLASSES, OFF_TOPIC, QUERIES, SCREENS, Query, labels_check  # noqa: E402
from bench.search_keyword import bench_data_dir, database_create  # noqa: E402

MODES = ("keyword", "semantic", "hybrid")
K = 10
CACHE = Path.home() / ".cache" / "myrecall-bench" / "quality"
# Rows of the table: each class, then English and Chinese as wholes, then everything.
GROUPS = {
    **{cls: (cls,) for cls in CLASSES},
    "English (en-*)": ("en-exact", "en-paraphrase"),
    "Chinese (zh-*)": ("zh-exact", "zh-paraphrase"),
    "all": CLASSES,
}


def png_path(screen: Screen, cache: Path) -> Path:
    digest = hashlib.sha256(f"{screen.size}\n{screen.html()}".encode()).hexdigest()[:16]
    return cache / f"{screen.key}-{digest}.png"


def screens_render(screens: list[Screen], cache: Path) -> dict[str, Path]:
    """Each screen's PNG, drawn by headless Chromium unless the cache has it (the cache key is
    the HTML and the size, so an edited screen is drawn again)."""
    paths = {screen.key: png_path(screen, cache) for screen in screens}
    missing = [screen for screen in screens if not paths[screen.key].exists()]
    if missing:
        from playwright.sync_api import sync_playwright

        from scripts.screenshots import CHROMIUM_ARGS

        cache.mkdir(parents=True, exist_ok=True)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            for screen in tqdm(missing, desc="render", unit="screen"):
                width, height = screen.size
                page = browser.new_page(viewport={"width": width, "height": height}, device_scale_factor=1)
                page.set_content(screen.html(), wait_until="load")
                page.evaluate("document.fonts.ready.then(() => true)")
                for stale in cache.glob(f"{screen.key}-{'[0-9a-f]' * 16}.png"):  # an older version of the screen
                    stale.unlink()
                tmp = paths[screen.key].with_suffix(".tmp.png")
                page.screenshot(path=str(tmp))
                tmp.replace(paths[screen.key])
                page.close()
            browser.close()
    print(f"screens: {len(screens)} ({len(screens) - len(missing)} from the cache {cache}, {len(missing)} drawn)")
    return paths


@dataclass
class Outcome:
    """One query in one mode."""

    rank: int | None  # 1-based rank of the first labelled screen in the top K, None if absent
    top: list[str]  # screen keys of the top K (or "?" for a frame of no screen)
    degraded: str | None
    ms: float


@dataclass
class Pipeline:
    frame_of: dict[str, int] = field(default_factory=dict)  # screen key -> frame id
    ocr_ms: list[int] = field(default_factory=list)
    ocr_text: dict[str, str] = field(default_factory=dict)  # screen key -> OCR text
    skipped: list[str] = field(default_factory=list)  # screens the ingest did not store
    semantic: str = ""  # why semantic search cannot be measured, empty when it can
    embed_s: float = 0.0


def pipeline_run(screens: list[Screen], pngs: dict[str, Path]) -> Pipeline:
    """Ingest every screen in time order (one device, as a capture client sends them), OCR each,
    then embed them all."""
    from frames import ocr
    from frames.models import OcrResult
    from frames.services import frame_ingest, frame_ocr_run
    from search import services as search_services

    run = Pipeline()
    for screen in sorted(screens, key=lambda s: s.timestamp):
        result = frame_ingest(
            image_bytes=pngs[screen.key].read_bytes(),
            timestamp=screen.timestamp,
            device_name="laptop",
            app_name=screen.app_name,
            window_name=screen.window_name,
            browser_url=screen.browser_url,
            focused=True,
        )
        if result.status == "created":
            run.frame_of[screen.key] = result.frame_id
        else:
            run.skipped.append(f"{screen.key} ({result.status})")

    ocr.ocr_warm_up()
    for key, frame_id in tqdm(run.frame_of.items(), desc="OCR", unit="frame"):
        status = frame_ocr_run(frame_id=frame_id)
        if status != "done":
            print(f"  OCR of {key} (frame {frame_id}) ended {status}")
    key_of = {frame_id: key for key, frame_id in run.frame_of.items()}
    for frame_id, text, elapsed_ms in OcrResult.objects.values_list("frame_id", "text", "elapsed_ms"):
        run.ocr_text[key_of[frame_id]] = text
        run.ocr_ms.append(elapsed_ms)

    frames_embed = getattr(search_services, "frames_embed", None)
    if frames_embed is None:
        run.semantic = "search.services.frames_embed does not exist yet"
        return run
    started = time.perf_counter()
    try:
        frames_embed(frame_ids=list(run.frame_of.values()))
    except Exception as exc:  # a benchmark reports any failure of the meaning side, whatever it is
        run.semantic = f"frames_embed failed: {type(exc).__name__}: {exc}"
    run.embed_s = time.perf_counter() - started
    return run


def queries_run(queries: list[Query], run: Pipeline, start_time: float, end_time: float) -> dict[tuple[int, str], Outcome]:
    from search.filters import Filters
    from search.selectors import search_run

    key_of = {frame_id: key for key, frame_id in run.frame_of.items()}
    filters = Filters(start_time=start_time, end_time=end_time)
    outcomes = {}
    for index, query in enumerate(tqdm(queries, desc="queries", unit="query")):
        for mode in MODES:
            started = time.perf_counter()
            result = search_run(q=query.q, filters=filters, mode=mode, limit=K, offset=0)
            ms = (time.perf_counter() - started) * 1000
            top = [key_of.get(hit.frame_id, "?") for hit in result.hits[:K]]
            rank = next((i + 1 for i, key in enumerate(top) if key in query.answers), None)
            outcomes[(index, mode)] = Outcome(rank=rank, top=top, degraded=result.degraded, ms=ms)
    return outcomes


# Similarity thresholds tried by the sweep (MYRECALL_SEMANTIC_MIN_SIMILARITY is one of them).
THRESHOLDS = (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45)
# The classes the packaged English model can read (the sweep's recall side).
SWEEP_CLASSES = ("en-exact", "en-paraphrase", "cross")


def threshold_sweep(queries: list[Query], run: Pipeline, start_time: float, end_time: float) -> dict:
    """Search by meaning with no similarity threshold, once per labelled English query and per
    off-topic question; then, for each threshold, what it would keep: recall@K per class (a
    labelled screen among the top K at or above the threshold), and for the off-topic questions
    the share that get any result and the results they get (every one a false positive)."""
    from django.test import override_settings

    from search.filters import Filters
    from search.selectors import semantic_ranked

    key_of = {frame_id: key for key, frame_id in run.frame_of.items()}
    filters = Filters(start_time=start_time, end_time=end_time)
    labelled = [q for q in queries if q.cls in SWEEP_CLASSES]
    found: list[tuple[Query | None, list[tuple[str, float]]]] = []
    with override_settings(SEMANTIC_MAX_DISTANCE=2.0):
        for query in [*labelled, *[Query(q=q, cls="off-topic", answers=()) for q in OFF_TOPIC]]:
            ranked = semantic_ranked(q=query.q, filters=filters, n=K)
            found.append((query, [(key_of.get(frame_id, "?"), 1 - distance) for frame_id, distance in ranked]))
    sweep = {}
    for threshold in THRESHOLDS:
        row = {}
        for cls in SWEEP_CLASSES:
            of_class = [(q, hits) for q, hits in found if q.cls == cls]
            row[cls] = sum(any(key in q.answers and sim >= threshold for key, sim in hits) for q, hits in of_class) / len(of_class)
        off = [[sim for _, sim in hits if sim >= threshold] for q, hits in found if q.cls == "off-topic"]
        row["off-topic any"] = sum(bool(sims) for sims in off) / len(off)
        row["off-topic results"] = statistics.fmean(len(sims) for sims in off)
        sweep[threshold] = row
    answers = [sim for q, hits in found if q.cls != "off-topic" for key, sim in hits if key in q.answers]
    strays = [hits[0][1] for q, hits in found if q.cls == "off-topic" and hits]
    return {"sweep": sweep, "answer_similarity": sorted(answers), "off_topic_top_similarity": sorted(strays)}


def sweep_print(sweep: dict) -> None:
    from search.embeddings import semantic_max_distance

    current = round(1 - semantic_max_distance(), 4)
    print(f"\nsimilarity threshold sweep (search by meaning; the app's setting is {current}):")
    print(f"  {'threshold':>9s}  " + "  ".join(f"{cls + ' R@10':>18s}" for cls in SWEEP_CLASSES)
          + f"  {'off-topic: any hit':>18s}  {'hits per question':>17s}")
    for threshold, row in sweep["sweep"].items():
        mark = "  <- setting" if abs(threshold - current) < 1e-9 else ""
        print(f"  {threshold:9.2f}  " + "  ".join(f"{row[cls]:18.2f}" for cls in SWEEP_CLASSES)
              + f"  {row['off-topic any']:18.2f}  {row['off-topic results']:17.1f}{mark}")
    answers, strays = sweep["answer_similarity"], sweep["off_topic_top_similarity"]
    if answers and strays:
        print(f"  similarity of labelled answers found: min {answers[0]:.2f}, p10 {answers[len(answers) // 10]:.2f}, "
              f"median {statistics.median(answers):.2f}; best stray of each off-topic question: "
              f"median {statistics.median(strays):.2f}, p90 {strays[int(len(strays) * 0.9)]:.2f}, max {strays[-1]:.2f}")


def figures_of(queries: list[Query], outcomes: dict[tuple[int, str], Outcome]) -> dict:
    """recall@K and MRR per group and mode, with the count of degraded answers."""
    figures = {}
    for group, classes in GROUPS.items():
        indexes = [i for i, query in enumerate(queries) if query.cls in classes]
        row = {"queries": len(indexes)}
        for mode in MODES:
            found = [outcomes[(i, mode)] for i in indexes]
            row[mode] = {
                "recall": sum(o.rank is not None for o in found) / len(found) if found else float("nan"),
                "mrr": sum(1 / o.rank for o in found if o.rank) / len(found) if found else float("nan"),
                "degraded": sum(o.degraded is not None for o in found),
            }
        figures[group] = row
    return figures


def measured(row: dict, mode: str) -> bool:
    """A mode whose every answer was degraded measured the keyword side, not itself."""
    return row[mode]["degraded"] < row["queries"]


def verdict(row: dict) -> str:
    """Whether hybrid is at least the better of keyword and semantic, on recall@K and on MRR;
    against keyword alone when semantic was not measured on the class."""
    if not measured(row, "hybrid"):
        return "n/a"
    others = [mode for mode in ("keyword", "semantic") if measured(row, mode)]
    short = [
        metric
        for metric in ("recall", "mrr")
        if row["hybrid"][metric] + 1e-9 < max(row[mode][metric] for mode in others)
    ]
    answer = "yes" if not short else "NO (" + ", ".join("R@10" if m == "recall" else "MRR" for m in short) + ")"
    return answer + ("" if "semantic" in others else " (vs keyword; semantic n/a)")


def code_state() -> str:
    head = subprocess.run(["git", "log", "-1", "--format=%h %s"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    status = subprocess.run(["git", "status", "--porcelain"], cwd=REPO, capture_output=True, text=True).stdout
    dirty = [line[3:] for line in status.splitlines() if line[3:].startswith(("frames/", "search/"))]
    return head[:90] + (f" + uncommitted {', '.join(dirty)}" if dirty else "")


def report_print(queries: list[Query], outcomes, figures: dict, run: Pipeline, embedder: str) -> None:
    print(f"\ncode: {code_state()}")
    print(f"frames: {len(run.frame_of)} stored" + (f", not stored: {', '.join(run.skipped)}" if run.skipped else "")
          + f"; OCR p50 {statistics.median(run.ocr_ms) / 1000:.2f} s/frame, max {max(run.ocr_ms) / 1000:.2f} s")
    if run.semantic:
        print(f"semantic: unavailable, {run.semantic}")
    else:
        print(f"semantic: {embedder}; {len(run.frame_of)} frames embedded in {run.embed_s:.1f} s")
    for mode in MODES:
        answers = [outcomes[(i, mode)] for i in range(len(queries))]
        ms = [o.ms for o in answers]
        empty = sum(not o.top for o in answers)
        print(f"  {mode:8s} query p50 {statistics.median(ms):.0f} ms, max {max(ms):.0f} ms; empty answers {empty}/{len(queries)}")
        for reason, count in Counter(o.degraded for o in answers if o.degraded).items():
            print(f"           degraded {count}/{len(queries)}: {reason}")

    print(f"\nrecall@{K} / MRR (n/a: every answer degraded to keyword, so the mode was not measured)")
    header = f"{'class':16s} {'n':>3s}  " + "  ".join(f"{mode:>13s}" for mode in MODES) + "   hybrid >= max(keyword, semantic)"
    print(header)
    print("-" * len(header))
    for group, row in figures.items():
        if group in ("English (en-*)", "all"):
            print()
        cells = []
        for mode in MODES:
            if measured(row, mode) or mode == "keyword":
                cells.append(f"{row[mode]['recall']:5.2f} / {row[mode]['mrr']:5.2f}")
            else:
                cells.append(f"{'n/a':>13s}")
        print(f"{group:16s} {row['queries']:3d}  " + "  ".join(cells) + f"   {verdict(row)}")

    mode = "hybrid" if measured(figures["all"], "hybrid") else "keyword"
    misses = [(i, q) for i, q in enumerate(queries) if outcomes[(i, mode)].rank is None]
    print(f"\nqueries {mode} misses (not in its top {K}): {len(misses)} of {len(queries)}")
    for i, query in misses:
        ranks = ", ".join(f"{m} {outcomes[(i, m)].rank or '-'}" for m in MODES if m != mode)
        top = ", ".join(outcomes[(i, mode)].top[:3]) or "nothing"
        read = ""
        if query.cls.endswith("exact"):
            texts = " ".join(run.ocr_text.get(key, "") for key in query.answers).lower()
            unread = [w for w in query.q.split() if w.lower() not in texts]
            read = f"; OCR did not read {unread}" if unread else "; OCR read it"
        print(f"  [{query.cls}] {query.q!r} -> {', '.join(query.answers)}; got {top}; {ranks}{read}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, help="Write the figures and every query's ranks to this JSON file.")
    parser.add_argument("--cache", type=Path, default=CACHE, help=f"Where the rendered PNGs are kept (default {CACHE}).")
    parser.add_argument("--keep", action="store_true", help="Keep the temporary data dir.")
    parser.add_argument("--render-only", action="store_true", help="Draw the screens into the cache and stop.")
    args = parser.parse_args()

    problems = labels_check()
    counts = {cls: sum(q.cls == cls for q in QUERIES) for cls in CLASSES}
    print(f"labelled set: {len(SCREENS)} screens, {len(QUERIES)} queries ({', '.join(f'{c} {n}' for c, n in counts.items())})")
    for problem in problems:
        print(f"  label problem: {problem}")
    pngs = screens_render(SCREENS, args.cache)
    if args.render_only:
        for key, path in pngs.items():
            print(f"  {key:24s} {path}")
        return

    with bench_data_dir("quality", keep=args.keep):
        database_create()
        run = pipeline_run(SCREENS, pngs)
        stamps = [screen.timestamp for screen in SCREENS]
        outcomes = queries_run(QUERIES, run, start_time=min(stamps) - 86400, end_time=max(stamps) + 86400)
        figures = figures_of(QUERIES, outcomes)
        sweep = None if run.semantic else threshold_sweep(QUERIES, run, start_time=min(stamps) - 86400, end_time=max(stamps) + 86400)
        embedder = ""
        if not run.semantic:
            from search.embeddings import embedder_info

            embedder = f"{embedder_info().model} ({embedder_info().endpoint})"
        report_print(QUERIES, outcomes, figures, run, embedder)
        if sweep:
            sweep_print(sweep)

    if args.out:
        args.out.write_text(
            json.dumps(
                {
                    "code": code_state(),
                    "screens": len(SCREENS),
                    "frames": len(run.frame_of),
                    "semantic_unavailable": run.semantic or None,
                    "embedder": embedder or None,
                    "k": K,
                    "threshold_sweep": sweep,
                    "figures": {group: {**row, "hybrid_at_least_best": verdict(row)} for group, row in figures.items()},
                    "queries": [
                        {
                            "q": query.q,
                            "class": query.cls,
                            "answers": list(query.answers),
                            **{mode: {"rank": outcomes[(i, mode)].rank, "top": outcomes[(i, mode)].top,
                                      "degraded": outcomes[(i, mode)].degraded} for mode in MODES},
                        }
                        for i, query in enumerate(QUERIES)
                    ],
                },
                ensure_ascii=False,
                indent=1,
            )
        )
        print(f"figures written to {args.out}")


if __name__ == "__main__":
    main()
