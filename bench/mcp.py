"""What the MCP layer adds to a search (issue 22): the round trip of the same searches through the
REST API (GET /api/v1/search), through MCP over streamable HTTP (/mcp on the same server), and
through MCP over stdio (`manage.py mcp`, its own process), on a real `serve`.

A day of realistic screens is posted and OCR'd first; then the same queries (words read from those
screens) go through each transport, in keyword and in hybrid mode: a pass of all of them through
each unmeasured (warm caches, the stdio process's embedder loaded), then each query through the
three in turn, the order rotating from query to query, one request at a time. Every MCP call goes through the MCP SDK's client, as an assistant's would. Prints p50
and p95 per transport and mode, and the overhead of each MCP transport over REST (the difference
of medians and of p95s, measured in one run). Asserts nothing.

    .venv/bin/python bench/mcp.py
    .venv/bin/python bench/mcp.py --frames 40 --queries 60
"""

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# Run as a script, bench/ is first on the path, and this file's name would hide the mcp package.
sys.path[:] = [str(REPO)] + [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "myrecall.settings")

from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.shared._httpx_utils import create_mcp_http_client  # noqa: E402

from tests.server import LiveServer, frames_post_session, ocr_wait  # noqa: E402


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def queries_pick(server: LiveServer, frame_ids: list[int], count: int, seed: int) -> list[str]:
    """Words and two-word phrases read from the posted screens."""
    rng = random.Random(seed)
    words = []
    for frame_id in frame_ids:
        text = server.session.get(f"{server.url}/api/v1/frames/{frame_id}/ocr", timeout=30).json()["text"]
        words += [w for w in text.split() if w.isalpha() and len(w) >= 4]
    picked = []
    while len(picked) < count:
        first = rng.choice(words)
        picked.append(first if rng.random() < 0.6 else f"{first} {rng.choice(words)}")
    return picked


def progress(label: str, done: int, total: int) -> None:
    print(f"\r  {label}: {done}/{total}", end="" if done < total else "\n", flush=True)


async def compare(server: LiveServer, token: str, token_file: Path, queries: list[str], modes: list[str], start: float) -> dict:
    """Each query through REST, MCP over HTTP and MCP over stdio, in turn (the order rotating), after
    a pass of every query through each unmeasured (so each process has embedded them once: the
    embedding cache is warm everywhere, and the stdio process has loaded its embedder)."""
    client = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    params = StdioServerParameters(
        command=sys.executable,
        args=[str(REPO / "manage.py"), "mcp", "--token-file", str(token_file), "--url", server.url],
        env={**os.environ, "MYRECALL_DATA_DIR": str(server.data_dir)},
        cwd=str(REPO),
    )
    results = {name: {mode: [] for mode in modes} for name in ("REST", "MCP HTTP", "MCP stdio")}
    async with client, streamable_http_client(server.url + "/mcp", http_client=client) as (h_read, h_write, *_):
        async with ClientSession(h_read, h_write) as http, stdio_client(params) as (s_read, s_write):
            async with ClientSession(s_read, s_write) as stdio:
                await http.initialize()
                await stdio.initialize()

                async def mcp(session: ClientSession, q: str, mode: str) -> None:
                    result = await session.call_tool("search", {"q": q, "start_time": start, "mode": mode, "limit": 10})
                    if result.is_error:
                        raise RuntimeError(f"MCP search failed: {result.content[0].text}")

                def rest(q: str, mode: str) -> None:
                    answer = server.session.get(
                        f"{server.url}/api/v1/search", params={"q": q, "start_time": start, "mode": mode, "limit": 10}, timeout=60
                    )
                    answer.raise_for_status()

                async def timed(name: str, q: str, mode: str) -> float:
                    began = time.perf_counter()
                    if name == "REST":
                        rest(q, mode)
                    else:
                        await mcp(http if name == "MCP HTTP" else stdio, q, mode)
                    return (time.perf_counter() - began) * 1000

                names = list(results)
                for mode in modes:
                    for number, q in enumerate(queries, 1):
                        for name in names:
                            await timed(name, q, mode)
                        progress(f"warm-up {mode}", number, len(queries))
                    for number, q in enumerate(queries, 1):
                        for shift in range(len(names)):
                            name = names[(number + shift) % len(names)]
                            results[name][mode].append(await timed(name, q, mode))
                        progress(f"measured {mode}", number, len(queries))
                results["stdio RSS MB"] = _rss_mb(str(token_file))
    return results


def _rss_mb(marker: str) -> float | None:
    """Resident memory of the `manage.py mcp` process started with this token file."""
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and marker in (proc / "cmdline").read_bytes().decode(errors="replace"):
                status = (proc / "status").read_text()
                return int(next(line for line in status.splitlines() if line.startswith("VmRSS:")).split()[1]) / 1024
        except (OSError, StopIteration):
            continue
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frames", type=int, default=30, help="screens to post and OCR first (default 30)")
    parser.add_argument("--queries", type=int, default=100, help="searches per transport and mode (default 100)")
    parser.add_argument("--modes", default="keyword,hybrid")
    parser.add_argument("--seed", type=int, default=22)
    args = parser.parse_args()
    modes = args.modes.split(",")

    with tempfile.TemporaryDirectory(prefix="bench-mcp-") as tmp, LiveServer(Path(tmp) / "data") as server:
        print(f"serve at {server.url}; posting {args.frames} screens and waiting for their OCR")
        start = time.time() - 3600
        sent = frames_post_session(server=server, count=args.frames, start=start, step_s=60)
        ids = [item["frame_id"] for item in sent]
        ocr_wait(server=server, frame_ids=ids)
        queries = queries_pick(server, ids, args.queries, args.seed)
        token = server.manage("token_create", "bench-mcp", "--read-only").strip().splitlines()[-1]
        token_file = Path(tmp) / "token"
        token_file.write_text(token)

        results = asyncio.run(compare(server, token, token_file, queries, modes, start))
        stdio_rss = results.pop("stdio RSS MB")

    print(f"\nSearch round trip, {args.queries} queries a row, {args.frames} frames, limit 10 (ms):")
    print(f"{'transport':<11} {'mode':<8} {'p50':>7} {'p95':>7} {'p50 over REST':>14} {'p95 over REST':>14}")
    for transport, by_mode in results.items():
        for mode, times in by_mode.items():
            rest = results["REST"][mode]
            p50, p95 = statistics.median(times), percentile(times, 0.95)
            over = "" if transport == "REST" else f"{p50 - statistics.median(rest):+14.1f} {p95 - percentile(rest, 0.95):+14.1f}"
            print(f"{transport:<11} {mode:<8} {p50:7.1f} {p95:7.1f} {over}")

    print(f"\nThe stdio server's process after the runs: {stdio_rss:.0f} MB RSS" if stdio_rss else "")


if __name__ == "__main__":
    main()
