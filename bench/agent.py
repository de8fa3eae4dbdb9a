"""The agent bridge under scripted turns (issue 12): the real `pi` binary run by a real
`manage.py serve`, a scripted OpenAI-compatible model (tests/agent_bridge/fake_model.py)
in this process, and the Chat page's websocket as the client.

Each turn: the model asks Pi to search (curl to /api/v1/search) and then to read the first
frame found (curl to /api/v1/frames/ID/ocr), then streams an answer citing frames. Every
fourth answer also cites a frame its searches did not return and an id that does not exist,
which the bridge must drop. Reported:
- the bridge's overhead: for each streamed model response, the time from the model server's
  first byte to the first `message_update` of that message reaching the websocket client,
  p50/p95; and the same for Pi alone (Pi run directly in RPC mode by this script, its stdout
  read here), so the difference is what the bridge adds (reader thread, queue, turn loop,
  channel layer, websocket);
- turn wall time (question sent to final event), p50/p95;
- Pi's resident memory after the turns;
- citation coverage (answers with at least one valid citation / answers that cite) and
  invalid citations reaching the user (cited ids in the shown answer that are not in its
  evidence, or that the model invented: must be 0).
Prints figures; asserts nothing.

    .venv/bin/python bench/agent.py [--turns 20]
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import websocket
from tqdm import tqdm

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.server import frames_post_session, ocr_wait  # noqa: E402
from bench.ingest import code_state  # noqa: E402
from tests.server import LiveServer  # noqa: E402
from tests.agent_bridge.fake_model import FakeAgentModel, bash, frame_ids_in, text, tool_results  # noqa: E402
from tests.live import login  # noqa: E402

AUTH = '-H "Authorization: Bearer $MYRECALL_TOKEN"'
INVENTED = 987_654_321
CITED = re.compile(r"myrecall://frame/(\d+)")


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p * (len(ordered) - 1))))]


def script(model: FakeAgentModel, *, turn: int, not_returned: int) -> None:
    """Search, read the first frame found, answer citing what was found (and, every fourth
    turn, a frame not returned and an invented id)."""

    def read_first(body):
        found = frame_ids_in(tool_results(body)[-1])
        return bash(f'curl -s "$MYRECALL_URL/api/v1/frames/{found[0]}/ocr" {AUTH}')

    def answer(body):
        found = frame_ids_in(tool_results(body)[0])
        words = " ".join(f"w{i}" for i in range(30))
        lines = [f"You worked on the first screen {words} [09:00](myrecall://frame/{found[0]})."]
        if len(found) > 1:
            lines.append(f"- then the next one [09:01](myrecall://frame/{found[1]})")
        if turn % 4 == 3:
            lines.append(f"- an unreturned one [09:02](myrecall://frame/{not_returned})")
            lines.append(f"- an invented one [09:03](myrecall://frame/{INVENTED})")
        return text("\n".join(lines))

    search = bash(
        f'curl -s -G "$MYRECALL_URL/api/v1/search" {AUTH} --data-urlencode "q=" '
        f'--data-urlencode "start_time=$(date -d \'-1 day\' +%s)" --data-urlencode "limit=3"'
    )
    model.play(search, read_first, answer)


def logged_in_cookie(server: LiveServer) -> str:
    return "; ".join(f"{k}={v}" for k, v in login(server).cookies.items())


def turn_run(socket, model: FakeAgentModel) -> tuple[list[tuple[str, dict, float]], float, list[float]]:
    """One question over the websocket: its events with arrival times, and its wall time."""
    before = len(model.first_byte_at)
    started = time.monotonic()
    socket.send(json.dumps({"action": "ask", "message": "What was I working on?", "timezone": "UTC"}))
    got = []
    while not got or got[-1][0] not in ("final", "error"):
        item = json.loads(socket.recv())
        got.append((item["event"], item["data"], time.monotonic()))
    return got, time.monotonic() - started, model.first_byte_at[before:]


def delays(got, first_bytes: list[float]) -> list[float]:
    """For each assistant message, first byte from the model -> its first message_update here (ms)."""
    out, index, waiting = [], -1, False
    for event, data, at in got:
        if event == "message_start" and (data.get("message") or {}).get("role") == "assistant":
            index, waiting = index + 1, True
        elif event == "message_update" and waiting and 0 <= index < len(first_bytes):
            out.append((at - first_bytes[index]) * 1000)
            waiting = False
    return out


def pi_alone(model: FakeAgentModel, turns: int, work: Path) -> list[float]:
    """The same model responses through Pi run directly (no bridge): first byte -> stdout line."""
    config = work / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "models.json").write_text(json.dumps({"providers": {"bench": {
        "baseUrl": model.base_url, "api": "openai-completions", "apiKey": "BENCH_KEY",
        "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
        "models": [{"id": "fake", "contextWindow": 32000, "maxTokens": 4096}]}}}))
    env = {"PATH": os.environ["PATH"], "HOME": str(work), "PI_CODING_AGENT_DIR": str(config), "PI_OFFLINE": "1", "BENCH_KEY": "x"}
    proc = subprocess.Popen(
        [str(REPO / "node_modules/.bin/pi"), "--mode", "rpc", "--provider", "bench", "--model", "fake", "--no-session",
         "--tools", "read,bash", "--no-skills"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=work, env=env,
    )
    out = []
    try:
        for i in range(turns):
            before = len(model.first_byte_at)
            model.play(bash("echo one"), bash("echo two"), text(" ".join(f"w{j}" for j in range(30))))
            proc.stdin.write((json.dumps({"id": f"p{i}", "type": "prompt", "message": "go"}) + "\n").encode())
            proc.stdin.flush()
            got = []
            while True:
                line = proc.stdout.readline()
                if not line:
                    raise RuntimeError("pi exited")
                event = json.loads(line)
                got.append((event.get("type"), event, time.monotonic()))
                if event.get("type") == "agent_end":
                    break
            out += delays(got, model.first_byte_at[before:])
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)
    return out


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=20)
    args = parser.parse_args()
    command = " ".join([os.path.relpath(sys.executable, REPO), *sys.argv])
    load_before = os.getloadavg()[0]
    model = FakeAgentModel().start()
    work = Path(tempfile.mkdtemp(prefix="myrecall-bench-agent-"))
    env = {"LLM_BASE_URL": model.base_url, "LLM_MODEL": "fake-agent", "LLM_API_KEY": "bench"}
    with LiveServer(work / "data", env=env) as server:
        sent = frames_post_session(server=server, count=8, start=time.time() - 3600, step_s=300)
        frames = [s["frame_id"] for s in sent]
        ocr_wait(server=server, frame_ids=frames, timeout_s=600)
        socket = websocket.create_connection(
            server.url.replace("http://", "ws://") + "/ws/chat/agent/", cookie=logged_in_cookie(server), origin=server.url, timeout=120
        )
        bridge, walls, finals, pi_pid = [], [], [], None
        # One turn first, not counted: Pi starts on first use.
        script(model, turn=0, not_returned=min(frames))
        got, _, _ = turn_run(socket, model)
        for turn in tqdm(range(args.turns), desc="agent turns", unit="turn"):
            script(model, turn=turn, not_returned=min(frames))
            got, wall, first_bytes = turn_run(socket, model)
            bridge += delays(got, first_bytes)
            walls.append(wall)
            finals.append(got[-1][:2])
        socket.close()
        turn_id = next((data["turn_id"] for event, data in finals if event == "final"), None)
        if turn_id:
            pi_pid = server.session.get(f"{server.url}/api/v1/chat/turns/{turn_id}", timeout=30).json()["pi_pid"]
        pi_rss = rss_mb(pi_pid) if pi_pid else float("nan")
    alone = pi_alone(model, args.turns, work / "pi-alone")
    model.stop()

    answered = [data for event, data in finals if event == "final"]
    errors = [data.get("message") for event, data in finals if event != "final"]
    cover = [bool(data["evidence"]) for data in answered]
    invalid = 0
    dropped = 0
    for data in answered:
        shown = {int(i) for i in CITED.findall(data["answer_md"])}
        evidence = {item["frame_id"] for item in data["evidence"]}
        invalid += len(shown - evidence) + (INVENTED in shown)
        dropped += len(data["dropped"])
    overhead = [b - statistics.median(alone) for b in bridge] if alone else []
    print(f"\n== agent bridge, {args.turns} scripted turns (search, read a frame, answer), real pi, websocket client ==")
    print(f"model first byte -> first message_update at the websocket client: p50 {statistics.median(bridge):.1f} ms, "
          f"p95 {pct(bridge, .95):.1f} ms ({len(bridge)} streamed responses)")
    print(f"same responses through pi alone (no bridge, its stdout read here): p50 {statistics.median(alone):.1f} ms, "
          f"p95 {pct(alone, .95):.1f} ms ({len(alone)})")
    print(f"bridge's own overhead (the first minus pi alone's median): p50 {statistics.median(overhead):.1f} ms, p95 {pct(overhead, .95):.1f} ms")
    print(f"turn wall time (question sent -> final event): p50 {statistics.median(walls) * 1000:.0f} ms, p95 {pct(walls, .95) * 1000:.0f} ms")
    print(f"pi resident memory after the turns: {pi_rss:.0f} MB (pid {pi_pid})")
    print(f"answers: {len(answered)} final, {len(errors)} failed {errors[:3]}")
    print(f"citation coverage: {sum(cover)}/{len(answered)} answers with at least one valid citation "
          f"({sum(cover) / max(len(answered), 1):.0%}); citations dropped by the bridge: {dropped}; "
          f"invalid citations reaching the user: {invalid} (must be 0)")
    print(f"\ncommand: {command}\ncode: {code_state()}; {os.cpu_count()} cores; 1-min load average {load_before:.1f} -> {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
