"""Records the Pi transcripts in tests/agent_bridge/transcripts/ again from the pinned Pi.

    .venv/bin/python -m tests.agent_bridge.record_transcripts [NAME ...]

Runs the real `pi --mode rpc` of package.json (node_modules/.bin/pi, after `bash scripts/setup.sh`)
against tests/agent_bridge/fake_model.py, a local OpenAI-compatible server that scripts the model,
writes each scenario's commands to Pi's stdin at their times, and keeps what Pi printed:
NAME.jsonl is Pi's stdout (one JSON object a line, as it came), NAME.stdin.jsonl what was written
and when. Paths of the temporary directory are rewritten to /srv/probe, the fake servers' ports
to fixed ones, so that a new recording differs from the old one only where Pi changed.
tests/agent_bridge/test_events.py parses these files; run this after upgrading Pi and read the diff."""

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tests.agent_bridge.fake_model import FakeAgentModel, Step, bash, text

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(__file__).resolve().parent / "transcripts"
PI = ROOT / "node_modules" / ".bin" / "pi"
PROVIDER = "fakeai"
PROBE_DIR = "/srv/probe"
MODEL_PORT, SEARCH_PORT, CLOSED_PORT = 18764, 18765, 18766  # as they appear in the files
SKILL = """---
name: screen-search
description: Search the user's screen-memory history (OCR text of past screenshots) via the local MyRecall HTTP API. Use when the user asks what they saw, read or did on their computer.
---
# Screen search
Run `curl -s 'http://127.0.0.1:{port}/api/search?q=WORDS'` and answer from its results.
"""
SEARCH_ANSWER = {"query": "hello", "results": [{"app": "Firefox", "title": "hello world page", "ts": "2026-11-21T10:00:00"}]}
TICKS = "for i in 1 2 3 4 5 6 7 8 9 10; do echo tick $i; sleep 1; done"


def _cmd(**command) -> str:
    return json.dumps(command)


@dataclass
class Scenario:
    model: str | None  # None: Pi runs with no models.json at all
    stdin: list[tuple[float, str]]  # (seconds after start, line)
    steps: list = field(default_factory=list)  # the fake model's answers, in order
    run_s: float = 3.0  # how long after the last line Pi is left to print
    close_stdin_at: float | None = None  # EOF then (Pi exits), instead of waiting run_s
    skill: bool = False
    unreachable: bool = False


SLOW = Step(text=" ".join(f"tok{i}" for i in range(40)), chunk_interval_s=0.5)
SCENARIOS = {
    "transcript": Scenario(
        "fake-tool",
        [(0.0, _cmd(id="s1", type="get_state")), (1.9, _cmd(id="p1", type="prompt", message="Please run echo hello")),
         *[(2.4, _cmd(id=f"q{i}", type=kind)) for i, kind in enumerate(
             ["get_session_stats", "get_last_assistant_text", "get_commands", "get_available_models", "get_fork_messages"])],
         (2.41, _cmd(id="n1", type="new_session")), (2.42, _cmd(id="s2", type="get_state"))],
        [bash("echo hello", call_id="call_fake_1"), text("The command printed: hello. Done.")],
    ),
    "transcript-skill": Scenario(
        "fake-skill",
        [(0.0, _cmd(id="c1", type="get_commands")),
         (1.8, _cmd(id="p1", type="prompt", message="What did I see about hello on my screen?"))],
        [Step(tool="read", args={"path": "{agentdir}/skills/screen-search/SKILL.md"}, call_id="call_read_3"),
         bash(f"curl -s 'http://127.0.0.1:{SEARCH_PORT}/api/search?q=hello'", call_id="call_curl_4"),
         text("Found 1 screen: Firefox - hello world page.")],
        run_s=5.0, skill=True,
    ),
    "transcript-abort": Scenario(
        "fake-slow",
        [(0.0, _cmd(id="p1", type="prompt", message="Stream slowly please")),
         (3.2, _cmd(id="p2", type="prompt", message="interrupting")), (3.2, _cmd(id="st1", type="get_state")),
         (3.2, _cmd(id="a1", type="abort")),
         (4.2, _cmd(id="m1", type="set_model", provider=PROVIDER, modelId="fake-tool")),
         (4.21, _cmd(id="p3", type="prompt", message="after abort: run echo hello"))],
        [SLOW, bash("echo hello", call_id="call_fake_7"), text("The command printed: hello. Done.")],
    ),
    "transcript-eof-midstream": Scenario("fake-slow", [(0.0, _cmd(id="p", type="prompt", message="slow"))], [SLOW], close_stdin_at=1.5),
    "transcript-500": Scenario(
        "fake-500",
        [(0.0, _cmd(id="p1", type="prompt", message="this will fail")), (24.0, _cmd(id="s1", type="get_state")),
         (24.0, _cmd(id="r1", type="set_auto_retry", enabled=False)),
         (24.01, _cmd(id="p2", type="prompt", message="fail again, no retry")), (29.0, _cmd(id="s2", type="get_state"))],
        [Step(status=500)] * 40,
    ),
    "transcript-unreachable": Scenario(
        "fake-tool",
        [(0.0, _cmd(id="p1", type="prompt", message="provider is down")), (24.0, _cmd(id="s1", type="get_state"))],
        unreachable=True,
    ),
    "transcript-noconfig": Scenario(None, [(0.0, _cmd(id="p1", type="prompt", message="hello?"))]),
    "transcript-malformed": Scenario(
        "fake-tool",
        [(0.3 * i, line) for i, line in enumerate([
            "this is not json", '{"type": "prompt", "message": "unterminated', _cmd(id="u1", type="bogus_command"),
            "{}", "[1,2,3]", "42", "", _cmd(id="x1", type="set_model", provider="nope", modelId="nope"),
            _cmd(id="x2", type="set_session_name", name="  "), _cmd(id="x3", type="prompt"), _cmd(id="s1", type="get_state")])],
    ),
    "transcript-toolabort": Scenario(
        "fake-sleep",
        [(0.0, _cmd(id="p1", type="prompt", message="run a long command")),
         (3.35, _cmd(id="st1", type="steer", message="steering: please stop soon")), (3.85, _cmd(id="a1", type="abort")),
         (4.87, _cmd(id="b1", type="bash", command="echo from-rpc-bash; exit 3")), (4.88, _cmd(id="g1", type="get_messages"))],
        [bash(TICKS, call_id="call_sleep_1"), text("Stopped as asked.")],
    ),
}


class _SearchHandler(BaseHTTPRequestHandler):
    """What the skill's curl reaches: a fixed search answer."""

    def do_GET(self):
        body = json.dumps(SEARCH_ANSWER).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):
        pass


def _models_json(base_url: str) -> dict:
    models = [{"id": name, "name": name, "contextWindow": 32000, "maxTokens": 1024}
              for name in ("fake-tool", "fake-skill", "fake-slow", "fake-500", "fake-sleep")]
    models[0]["name"] = "Fake Tool Model"
    return {"providers": {PROVIDER: {
        "baseUrl": base_url, "api": "openai-completions", "apiKey": "FAKEAI_KEY",
        "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False}, "models": models}}}


def record(name: str, scenario: Scenario, model: FakeAgentModel, search_port: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        agentdir = Path(tmp) / "agentdir"
        (agentdir / "skills").mkdir(parents=True)
        work = Path(tmp) / "work"
        work.mkdir()
        model_port = model._server.server_address[1]
        if scenario.model:
            base_url = f"http://127.0.0.1:{CLOSED_PORT if scenario.unreachable else model_port}/v1"
            (agentdir / "models.json").write_text(json.dumps(_models_json(base_url), indent=1))
        if scenario.skill:
            (agentdir / "skills" / "screen-search").mkdir()
            (agentdir / "skills" / "screen-search" / "SKILL.md").write_text(SKILL.format(port=search_port))
        model.play(*[
            Step(**{**step.__dict__, "args": {k: v.replace("{agentdir}", str(agentdir)).replace(str(SEARCH_PORT), str(search_port))
                                               for k, v in step.args.items()}})
            for step in scenario.steps
        ])
        command = [str(PI), "--mode", "rpc", "--no-session"]
        if scenario.model:
            command += ["--provider", PROVIDER, "--model", scenario.model]
        env = {**os.environ, "PI_CODING_AGENT_DIR": str(agentdir), "HOME": tmp, "PI_OFFLINE": "1", "FAKEAI_KEY": "sk-fake"}
        pi = subprocess.Popen(command, cwd=work, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        lines: list[bytes] = []
        reader = threading.Thread(target=lambda: lines.extend(iter(pi.stdout.readline, b"")), daemon=True)
        reader.start()
        started = time.monotonic()
        sent = []
        for at, line in scenario.stdin:
            time.sleep(max(0.0, started + at - time.monotonic()))
            pi.stdin.write(line.encode() + b"\n")
            pi.stdin.flush()
            sent.append({"t": round(time.monotonic() - started, 3), "stdin": line})
        end = scenario.close_stdin_at if scenario.close_stdin_at is not None else scenario.stdin[-1][0] + scenario.run_s
        time.sleep(max(0.0, started + end - time.monotonic()))
        pi.stdin.close()
        try:
            pi.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pi.kill()
            pi.wait()
        reader.join(timeout=5)

    def clean(text: str) -> str:
        for old, new in ((tmp, PROBE_DIR), (f"127.0.0.1:{model_port}", f"127.0.0.1:{MODEL_PORT}"),
                         (f"127.0.0.1:{search_port}", f"127.0.0.1:{SEARCH_PORT}")):
            text = text.replace(old, new)
        return text

    (OUT / f"{name}.jsonl").write_bytes(b"".join(clean(line.decode()).encode() for line in lines))
    (OUT / f"{name}.stdin.jsonl").write_text("".join(clean(json.dumps(entry)) + "\n" for entry in sent))
    return len(lines)


def main(names: list[str]) -> None:
    if not PI.exists():
        sys.exit(f"{PI} is missing: run `bash scripts/setup.sh` first.")
    version = json.loads((ROOT / "node_modules" / "@mariozechner" / "pi-coding-agent" / "package.json").read_text())["version"]
    unknown = set(names) - set(SCENARIOS)
    if unknown:
        sys.exit(f"Unknown scenario(s): {', '.join(sorted(unknown))}; known: {', '.join(SCENARIOS)}")
    model = FakeAgentModel().start()
    search = ThreadingHTTPServer(("127.0.0.1", 0), _SearchHandler)
    threading.Thread(target=search.serve_forever, daemon=True).start()
    try:
        chosen = names or list(SCENARIOS)
        for i, name in enumerate(chosen, 1):
            count = record(name, SCENARIOS[name], model, search.server_address[1])
            print(f"[{i}/{len(chosen)}] {name}: {count} lines from pi {version}", flush=True)
    finally:
        model.stop()
        search.shutdown()


if __name__ == "__main__":
    main(sys.argv[1:])
