"""Where hybrid search's time goes, per part, on a data dir kept by
`bench/search_hybrid.py --keep`: the keyword side, the plan (database), the fetch (embedding and
vector reads), the finish (admission and deeper reads), the hits' details; two rounds (the first
after the vector server starts, so each day's first read loads it), and the slowest 5 % of
queries with every vector read they made. Prints figures, asserts nothing.

    .venv/bin/python bench/search_hybrid_profile.py /tmp/myrecall-bench-hybrid-XXXX [queries per kind] [seed]
"""
import os, sys, time, statistics, threading
from collections import defaultdict
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
data = sys.argv[1]; nq = int(sys.argv[2]) if len(sys.argv) > 2 else 100; seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
os.environ["MYRECALL_DATA_DIR"] = data
sys.path.insert(0, REPO)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "myrecall.settings")
import django; django.setup()
import subprocess
from pathlib import Path
srv = None
if not (Path(data) / "chroma" / "server.json").exists():
    srv = subprocess.Popen([sys.executable, os.path.join(REPO, "manage.py"), "vector_server"], cwd=REPO, env=os.environ.copy(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(240):
        if (Path(data) / "chroma" / "server.json").exists(): break
        time.sleep(0.5)
    time.sleep(3)
from search import hybrid, keyword, semantic
from search.filters import Filters
from search.embeddings import embedder_warm_up
from bench.search_hybrid import query_kinds
embedder_warm_up()
from django.db import connection
with connection.cursor() as c:
    c.execute("select min(timestamp) from frames_frame"); lo = c.fetchone()[0]
from datetime import datetime
t0 = datetime.fromisoformat(str(lo)).timestamp() if not isinstance(lo, (int, float)) else lo
with connection.cursor() as c:
    c.execute("select max(id) from frames_frame"); top = c.fetchone()[0]
timing = threading.local()
spans = defaultdict(float)
lock = threading.Lock()
def wrap(name, f):
    def inner(*a, **k):
        t = time.perf_counter()
        try: return f(*a, **k)
        finally:
            with lock: spans[name] += (time.perf_counter() - t) * 1000
    return inner
# Each part is wrapped in the modules whose code calls it (where the name is looked up).
PARTS = {
    "search_keyword": [hybrid], "semantic_plan": [hybrid], "semantic_fetch": [semantic], "semantic_finish": [hybrid],
    "_frames_admitted": [semantic], "hits_load": [hybrid, keyword],
}
for name, modules in PARTS.items():
    for module in modules:
        setattr(module, name, wrap(name, getattr(module, name)))
orig_dq = semantic.day_query
dq_calls = []
def dq(**kw):
    t = time.perf_counter(); r = orig_dq(**kw)
    with lock: dq_calls.append(((time.perf_counter() - t) * 1000, kw["n"], len(kw["frame_ids"] or []) if kw.get("frame_ids") is not None else -1))
    return r
semantic.day_query = dq
def pct(xs, p): xs = sorted(xs); return xs[min(len(xs) - 1, int(round(p * (len(xs) - 1))))]
for rnd in range(2):
    kinds = query_kinds(n=nq, t0=t0, top=top, seed=seed + 20, corpus_seed=seed)
    rows = []
    for kind in kinds:
        if "Chinese" in kind.label: continue
        for q, (start, end) in zip(kind.queries, kind.ranges):
            spans.clear(); dq_calls.clear()
            t = time.perf_counter()
            hybrid.search_run(q=q, filters=Filters(start_time=start, end_time=end), mode="hybrid", limit=20, offset=0)
            total = (time.perf_counter() - t) * 1000
            rows.append((total, dict(spans), list(dq_calls), kind.label, q))
    totals = [r[0] for r in rows]
    print(f"round {rnd}: hybrid over {len(rows)} English queries: p50 {statistics.median(totals):.1f} p95 {pct(totals, .95):.1f} max {max(totals):.1f}")
    slow = sorted(rows, key=lambda r: -r[0])[:max(5, len(rows) // 20)]
    for name in PARTS:
        all_ = [r[1].get(name, 0) for r in rows]; sl = [r[1].get(name, 0) for r in slow]
        print(f"  {name:16s} all p50 {statistics.median(all_):6.1f} p95 {pct(all_, .95):6.1f} | slowest 5%: mean {statistics.mean(sl):6.1f}")
    for total, sp, calls, label, q in slow[:8]:
        print(f"  SLOW {total:6.1f} ms {label[:14]:14s} {q[:30]!r:32s} " + " ".join(f"{k[:8]}={v:.0f}" for k, v in sp.items()) + "  reads: " + ", ".join(f"{d:.0f}ms n={n} ids={i}" for d, n, i in calls))
if srv: srv.terminate()
