"""The capture client for real: a Tk window on Xvfb showing known words, captured by
`python -m capture`, posted to a live server, read by its OCR and found by search with the
window's app and title; the spool while the server is down; exclusions; pause; bad settings;
the periodic report line; how SIGINT, SIGTERM and a lost display end it."""

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.conftest import render_text_image
from tests.live import wait_for
from tests.server import REPO, LiveServer, port_pick

APP = "Memowin"  # the test window's WM_CLASS class


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with LiveServer(tmp_path_factory.mktemp("capture") / "data", env={"MYRECALL_DEDUP_MAX_DISTANCE": "-1"}) as live:
        yield live


class Client:
    """`python -m capture` on the desktop, given its token as the README says (MYRECALL_TOKEN, never
    on its command line), started with `umask` when one is given."""

    def __init__(self, desktop, state: Path, *, url: str, token: str, args=(), sigint_ignored=False, umask: int | None = None):
        self.state = state
        self.log = state.parent / f"{state.name}.log"
        self.log_start = self.log.stat().st_size if self.log.exists() else 0  # a restart appends to the log

        def before_exec():
            if sigint_ignored:  # as a shell starts a background job (`... &`): SIGINT ignored, inherited through exec
                signal.signal(signal.SIGINT, signal.SIG_IGN)
            if umask is not None:
                os.umask(umask)

        self.proc = subprocess.Popen(
            [sys.executable, "-m", "capture", "--url", url, "--interval", "1", "--state-dir", str(state), "--device", "desk", *args],
            cwd=REPO, env={**desktop.env, "MYRECALL_TOKEN": token}, stdout=open(self.log, "a"), stderr=subprocess.STDOUT,
            preexec_fn=before_exec,
        )

    def output(self) -> str:
        """What this run of the client wrote."""
        with open(self.log, "rb") as fh:
            fh.seek(self.log_start)
            return fh.read().decode()

    def reports(self) -> list[dict]:
        """The periodic report lines so far, as numbers."""
        return [
            {"sent": int(m[1]), "unchanged": int(m[2]), "excluded": int(m[3]), "spooled": int(m[4]), "line": m[0]}
            for m in REPORT.finditer(self.output())
        ]

    def reports_wait(self, count: int, timeout_s: float = 60) -> list[dict]:
        deadline = time.time() + timeout_s
        while len(self.reports()) < count and time.time() < deadline and self.proc.poll() is None:
            time.sleep(0.3)
        assert len(self.reports()) >= count, self.output()
        return self.reports()

    def ended(self, timeout_s: float = 60) -> tuple[int, list[str]]:
        """The exit code and the lines written after the last report line."""
        code = self.proc.wait(timeout=timeout_s)
        lines = self.output().splitlines()
        last_report = max((i for i, line in enumerate(lines) if REPORT.search(line)), default=-1)
        return code, lines[last_report + 1:]

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=60)
        return self.proc.returncode


REPORT = re.compile(
    r"last \d+ s: (?:[^;]*; )?(\d+) frame\(s\) sent, (\d+) skipped as unchanged, (\d+) excluded by privacy rules, "
    r"(\d+) waiting in the spool.*"
)


def found(server, word: str, timeout_s: float = 60) -> list[dict]:
    """The search hits for `word`, waited for."""
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        hits = server.session.get(
            f"{server.url}/api/v1/search", params={"q": word, "mode": "keyword", "start_time": time.time() - 3600}, timeout=30
        ).json()["data"]
        if hits:
            return [hit["content"] for hit in hits]
        time.sleep(0.5)
    return []


def frames(server) -> list[dict]:
    body = server.session.get(f"{server.url}/api/v1/search", params={"start_time": 0, "limit": 100}, timeout=30).json()
    return [hit["content"] for hit in body["data"]]


def test_a_window_is_captured_read_and_found_with_its_app_and_title(desktop, server, tmp_path):
    desktop.show("Zebracalm quorum notes", "budget for the offsite", title="Planning — Memowin")
    client = Client(desktop, tmp_path / "state", url=server.url, token=server.token)
    try:
        hits = found(server, "Zebracalm")
        assert hits, client.output()
        assert hits[0]["app_name"] == APP and hits[0]["window_name"] == "Planning — Memowin"
        desktop.show("Xylofern harbour schedule", title="Ferries — Memowin")
        hits = found(server, "Xylofern")
        assert hits and hits[0]["window_name"] == "Ferries — Memowin", client.output()
    finally:
        assert client.stop() == 0
    # Xvfb's one monitor, as X's RandR names it: each frame says so.
    assert "capturing every monitor (1 screen " in client.output()
    assert server.rows("SELECT monitor FROM frames_frame WHERE id = %s", (hits[0]["frame_id"],)) == [("screen",)]


def test_frames_are_spooled_while_the_server_is_down_and_sent_once_in_order(desktop, tmp_path):
    port = port_pick()
    url = f"http://127.0.0.1:{port}"
    state = tmp_path / "state"
    desktop.show("Spoolword alpha", title="one — Memowin")
    # The token is checked once the server answers; until then the client captures into the spool.
    client = Client(desktop, state, url=url, token="placeholder")
    spool = state / "spool"
    try:
        for word in ("bravo", "charlie", "delta"):
            time.sleep(1.5)
            desktop.show(f"Spoolword {word}", title=f"{word} — Memowin")
        time.sleep(2)
        spooled = sorted(spool.glob("*.png"))
        assert len(spooled) >= 4, client.output()
        assert "cannot reach" in client.output() or "upload failed" in client.output()
        kept = [json.loads(p.with_suffix(".json").read_text()) for p in spooled]
    finally:
        client.stop()
    # The server comes up; the client, restarted with a real token, sends the spool in order.
    with LiveServer(tmp_path / "data", env={"MYRECALL_DEDUP_MAX_DISTANCE": "-1"}, port=port) as live:
        client = Client(desktop, state, url=url, token=live.token)
        try:
            deadline = time.time() + 60
            while list(spool.glob("*.png")) and time.time() < deadline:
                time.sleep(0.5)
            time.sleep(1)
        finally:
            client.stop()
        stored = {}
        for frame in frames(live):
            meta = live.session.get(f"{live.url}/api/v1/frames/{frame['frame_id']}/metadata", timeout=30).json()
            stored[meta["client_frame_id"]] = meta
        ids = [meta["client_frame_id"] for meta in kept]
        assert set(ids) <= set(stored), client.output()  # nothing lost
        by_time = sorted(ids, key=lambda cid: stored[cid]["frame_id"])
        assert by_time == ids  # sent in capture order
        # A frame sent again (a crash between its upload and its removal from the spool) is not stored twice.
        before = len(stored)
        again = spool / f"{kept[0]['timestamp_ns']:020d}-again.png"
        again.with_suffix(".json").write_text(json.dumps(kept[0]))
        again.write_bytes(render_text_image(["sent again"]))
        client = Client(desktop, state, url=url, token=live.token, args=["--exclude-app", APP])  # captures nothing itself
        try:
            deadline = time.time() + 30
            while again.exists() and time.time() < deadline:
                time.sleep(0.3)
        finally:
            client.stop()
        assert not again.exists() and len(frames(live)) == before, client.output()


def test_excluded_windows_never_leave_the_desktop_and_pause_stops_capture(desktop, server, tmp_path):
    rules = {"excluded_apps": [], "excluded_windows": ["*Secret*"], "excluded_urls": [], "redact_secrets": False, "capture_paused": False}
    assert server.session.put(f"{server.url}/api/v1/privacy", json=rules, timeout=30).status_code == 200
    state = tmp_path / "state"
    try:
        desktop.show("Hushword vault codes", title="Secret plans — Memowin")
        client = Client(desktop, state, url=server.url, token=server.token)
        wait_for(lambda: "not captured: the window title" in client.output(), timeout_s=60)
        assert not list((state / "spool").glob("*.png")) and found(server, "Hushword", timeout_s=2) == []
        desktop.show("Openword garden plans", title="Garden — Memowin")
        assert found(server, "Openword"), client.output()
        # Paused by the command: nothing new is taken until resumed.
        subprocess.run([sys.executable, "-m", "capture", "pause", "--state-dir", str(state)], cwd=REPO, check=True)
        time.sleep(1.5)
        desktop.show("Pausedword kettle", title="Kitchen — Memowin")
        time.sleep(4)
        assert found(server, "Pausedword", timeout_s=2) == [] and "paused" in client.output()
        subprocess.run([sys.executable, "-m", "capture", "resume", "--state-dir", str(state)], cwd=REPO, check=True)
        assert found(server, "Pausedword"), client.output()
        # Rules of the client alone (--exclude-app) hold too.
        client.stop()
        client = Client(desktop, state, url=server.url, token=server.token, args=["--exclude-app", "memowin"])
        desktop.show("Localword lantern", title="Shed — Memowin")
        time.sleep(4)
        assert found(server, "Localword", timeout_s=2) == [] and "not captured: the app" in client.output()
    finally:
        client.stop()
        rules["excluded_windows"] = []
        server.session.put(f"{server.url}/api/v1/privacy", json=rules, timeout=30)


def stand_in(handler) -> ThreadingHTTPServer:
    """A small server of the handler's, on a free port, serving in the background until shut down."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class NotMyRecall(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(404)
        self.end_headers()

    def log_message(self, *args):
        pass


def run_client(desktop, tmp_path, *args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "capture", "--state-dir", str(tmp_path / "state"), *args],
        cwd=REPO, env=desktop.env, capture_output=True, text=True, timeout=60,
    )


def test_a_bad_token_or_address_stops_with_a_clear_message_and_exit_code(desktop, server, tmp_path):
    bad_token = run_client(desktop, tmp_path, "--url", server.url, "--token", "wrong")
    assert bad_token.returncode == 3 and "refused the token" in bad_token.stderr and "token_create" in bad_token.stderr
    other = stand_in(NotMyRecall)
    try:
        not_ours = run_client(desktop, tmp_path, "--url", f"http://127.0.0.1:{other.server_port}", "--token", server.token)
    finally:
        other.shutdown()
    assert not_ours.returncode == 4 and "does not look like a MyRecall server" in not_ours.stderr
    not_http = run_client(desktop, tmp_path, "--url", "ftp://example", "--token", server.token)
    assert not_http.returncode == 2 and "not an http(s) address" in not_http.stderr
    no_token = run_client(desktop, tmp_path, "--url", server.url)
    assert no_token.returncode == 2 and "no token" in no_token.stderr


def test_a_line_every_report_period_says_what_was_sent_skipped_and_excluded(desktop, server, tmp_path):
    desktop.show("Reportword meadow", title="Report — Memowin")
    client = Client(desktop, tmp_path / "state", url=server.url, token=server.token, args=["--report-every", "3"])
    try:
        reports = client.reports_wait(2)
        assert sum(r["sent"] for r in reports) >= 1 and reports[-1]["spooled"] == 0, client.output()
        # A window that does not change is skipped, and said to be.
        assert any(r["unchanged"] >= 1 for r in client.reports_wait(3)), client.output()
    finally:
        assert client.stop() == 0
    client = Client(desktop, tmp_path / "state", url=server.url, token=server.token, args=["--report-every", "3", "--exclude-app", APP])
    try:
        assert client.reports_wait(2)[-1]["excluded"] >= 2, client.output()
    finally:
        assert client.stop() == 0


def device_status(server, device: str, timeout_s: float = 30) -> dict | None:
    """The device's entry in GET /api/v1/status once its client's report is stored, waited for."""
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        devices = server.session.get(f"{server.url}/api/v1/status", timeout=60).json()["devices"]
        found = next((d for d in devices if d["device_name"] == device and d["last_report"]), None)
        if found:
            return found
        time.sleep(0.5)
    return None


def test_each_report_is_sent_to_the_server_also_when_no_frame_is_and_the_status_lists_the_device(desktop, server, tmp_path):
    desktop.show("Heartword orchard", title="Heartbeat — Memowin")
    client = Client(desktop, tmp_path / "state", url=server.url, token=server.token, args=["--report-every", "2", "--device", "beating"])
    try:
        client.reports_wait(2)
        status = device_status(server, "beating")
        assert status and status["last_frame"], client.output()
        report = status["last_report"]
        assert report["period_s"] == 2 and report["client"] == "myrecall-capture/1" and report["paused"] is False
        logged = [(r["sent"], r["unchanged"], r["excluded"], r["spooled"]) for r in client.reports()]
        assert (report["sent"], report["unchanged"], report["excluded"], report["spooled"]) in logged, (report, logged)
        assert report["stopped"] == ""
    finally:
        assert client.stop() == 0
    # Its last report says it ended and why: the timeline shows a stop, not a silence.
    assert device_status(server, "beating")["last_report"]["stopped"] == "stopped by SIGTERM"
    # Only an excluded window: no frame is sent, the report still comes and says so.
    client = Client(desktop, tmp_path / "state", url=server.url, token=server.token,
                    args=["--report-every", "2", "--device", "excluding", "--exclude-app", APP])
    try:
        client.reports_wait(2)
        deadline = time.time() + 30
        while (status := device_status(server, "excluding")) and not status["last_report"]["excluded"] and time.time() < deadline:
            time.sleep(0.5)
        assert status and status["last_frame"] is None and status["last_report"]["excluded"] >= 1, client.output()
        assert status["last_report"]["sent"] == 0
    finally:
        assert client.stop() == 0


NO_RULES = {"excluded_apps": [], "excluded_windows": [], "excluded_urls": [], "redact_secrets": False, "capture_paused": False}


class JSONHandler(BaseHTTPRequestHandler):
    """A small stand-in for a server: answers JSON, logs nothing."""

    def _answer(self, status: int, body: dict):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


class OlderServer(JSONHandler):
    """A MyRecall from before capture reports: privacy rules and frames, no report route."""

    reports_asked = 0

    def do_GET(self):
        self._answer(200, NO_RULES)

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        if self.path == "/api/v1/capture/report":
            OlderServer.reports_asked += 1
            self._answer(404, {"detail": "Not Found"})
        else:
            self._answer(201, {"frame_id": 1, "status": "created"})


def test_a_server_without_the_report_route_gets_frames_as_before_and_is_asked_once(desktop, tmp_path):
    older = stand_in(OlderServer)
    desktop.show("Olderword quay", title="Older — Memowin")
    client = Client(desktop, tmp_path / "state", url=f"http://127.0.0.1:{older.server_port}", token="any", args=["--report-every", "1"])
    try:
        for text in ("Olderword pier", "Olderword dock"):
            client.reports_wait(len(client.reports()) + 1)
            desktop.show(text, title="Older — Memowin")
        reports = client.reports_wait(len(client.reports()) + 2)
    finally:
        code = client.stop()
        older.shutdown()
    assert code == 0 and sum(r["sent"] for r in reports) >= 2, client.output()
    assert OlderServer.reports_asked == 1 and client.output().count("takes no capture reports") == 1, client.output()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_sigint_to_a_background_client_or_sigterm_ends_it_with_one_line_and_the_spool_kept(desktop, tmp_path, sig):
    desktop.show("Signalword pebble", title="Signals — Memowin")
    state = tmp_path / "state"
    # No server: what it captures waits in the spool.
    client = Client(desktop, state, url=f"http://127.0.0.1:{port_pick()}", token="placeholder",
                    args=["--report-every", "2"], sigint_ignored=True)
    spooled = client.reports_wait(1)[-1]["spooled"]
    assert spooled >= 1 and "cannot be reached" in client.reports()[-1]["line"], client.output()
    client.proc.send_signal(sig)
    code, after = client.ended()
    assert code == 0 and len(after) == 1, client.output()
    kept = len(list((state / "spool").glob("*.png")))
    assert kept >= spooled
    assert f"stopped by {sig.name}: 0 frame(s) sent; {kept} frame(s) kept in the spool" in after[0] and "(exit code 0)" in after[0]


def desktop_lost(desktop, tmp_path, end, gone: str) -> None:
    """The client, spooling (no server), ends with one line that says `gone` and exit code 5 once
    end() ends its desktop, every frame it took kept in the spool."""
    state = tmp_path / "state"
    client = Client(desktop, state, url=f"http://127.0.0.1:{port_pick()}", token="placeholder", args=["--report-every", "2"])
    assert client.reports_wait(1)[-1]["spooled"] >= 1, client.output()
    end()
    code, after = client.ended()
    kept = len(list((state / "spool").glob("*.png")))
    assert code == 5 and len(after) == 1 and kept >= 1, client.output()
    assert gone in after[0]
    assert f"{kept} frame(s) kept in the spool" in after[0] and "(exit code 5)" in after[0]


def test_a_lost_display_ends_the_client_with_one_line_and_exit_code_5(desktop, tmp_path):
    desktop.show("Displayword lantern", title="Display — Memowin")
    desktop_lost(desktop, tmp_path, desktop.xvfb.kill, f"the X display {desktop.display} went away")


def test_without_an_address_it_says_it_sends_to_the_local_server_before_it_asks_for_a_token(desktop, tmp_path):
    started = run_client(desktop, tmp_path)
    said = started.stderr
    assert started.returncode == 2 and "no --url (nor MYRECALL_URL): sending to http://127.0.0.1:8000" in said, said
    assert said.index("no --url") < said.index("no token for http://127.0.0.1:8000")
    assert "--token-file" in said and "MYRECALL_TOKEN" in said


def test_the_token_comes_from_a_file_made_the_users_alone_and_a_token_on_the_command_line_is_warned_about(desktop, server, tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text(server.token + "\n")
    token_file.chmod(0o644)
    desktop.show("Tokenword meadow", title="Token — Memowin")
    # The file's token is the one used: the refused one in the environment would stop the client.
    client = Client(desktop, tmp_path / "state", url=server.url, token="refused", args=["--token-file", str(token_file)])
    try:
        wait_for(lambda: "capturing every monitor" in client.output(), timeout_s=60)
        assert found(server, "Tokenword"), client.output()
    finally:
        assert client.stop() == 0
    assert oct(token_file.stat().st_mode & 0o777) == "0o600"
    assert f"the token file {token_file} could be read by other accounts on this machine: made it yours alone" in client.output()
    missing = run_client(desktop, tmp_path, "--url", server.url, "--token-file", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "cannot read the token file" in missing.stderr
    on_command_line = run_client(desktop, tmp_path, "--url", server.url, "--token", "wrong")
    assert "a token given with --token can be read by every account on this machine" in on_command_line.stderr


def test_the_readme_and_the_script_give_the_token_without_putting_it_on_a_command_line():
    readme = (REPO / "README.md").read_text()
    section = readme[readme.index("## Capture: record your screen"):readme.index("### Page addresses")]
    commands = "\n".join(re.findall(r"^```sh\n(.*?)^```", section, re.M | re.S))
    assert "bash scripts/capture.sh" in commands and "--token-file" in commands, commands
    assert not re.search(r"--token\s", commands), commands
    assert "MYRECALL_TOKEN" in section and "`ps`" in section
    script = (REPO / "scripts" / "capture.sh").read_text()
    assert "--token-file" in script and not re.search(r"--token\s", script)


class HeldFrames(JSONHandler):
    """A MyRecall that takes its time over a frame: it answers once the test lets it."""

    arrived = threading.Event()
    release = threading.Event()

    def do_GET(self):
        self._answer(200, NO_RULES)

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        if self.path == "/api/v1/frames":
            HeldFrames.arrived.set()
            HeldFrames.release.wait(120)
            self._answer(201, {"frame_id": 1, "status": "created"})
        else:
            self._answer(200, {"device_name": "desk"})


def test_a_frame_on_its_way_to_the_server_is_not_reported_as_waiting(desktop, tmp_path):
    held = stand_in(HeldFrames)
    desktop.show("Heldword quay", title="Held — Memowin")
    client = Client(desktop, tmp_path / "state", url=f"http://127.0.0.1:{held.server_port}", token="any", args=["--report-every", "1"])
    try:
        assert HeldFrames.arrived.wait(60), client.output()
        seen = len(client.reports())
        while_sent = client.reports_wait(seen + 2)[seen:]  # the frame is in the spool, and on its way
        assert len(list((tmp_path / "state" / "spool").glob("*.png"))) == 1
        assert [r["spooled"] for r in while_sent] == [0] * len(while_sent), client.output()
    finally:
        HeldFrames.release.set()
        code = client.stop()
        held.shutdown()
    assert code == 0


def modes(folder: Path) -> dict[str, str]:
    return {str(path.relative_to(folder.parent)): oct(path.stat().st_mode & 0o777) for path in [folder, *sorted(folder.rglob("*"))]}


def test_everything_the_client_writes_is_its_users_alone_also_in_a_state_dir_left_open(desktop, server, tmp_path):
    state = tmp_path / "state"
    spool = state / "spool"
    spool.mkdir(parents=True)
    # As an older client left them: folders 0755, files 0644 (screenshots, window titles, rules).
    taken_ns = time.time_ns()
    older = spool / f"{taken_ns:020d}-older.png"
    older.with_suffix(".json").write_text(json.dumps({
        "timestamp_ns": taken_ns, "app_name": APP, "window_name": "Older — Memowin", "browser_url": "", "focused": True,
        "device_name": "desk", "client_frame_id": f"desk-{taken_ns}",
    }))
    older.write_bytes(render_text_image(["Olderspool harbour"]))
    (state / "rules.json").write_text("{}")
    for path in [state, *state.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    desktop.show("Privateword lantern", title="Private — Memowin")
    # No server yet: what it captures waits in the spool.
    client = Client(desktop, state, url=f"http://127.0.0.1:{port_pick()}", token="placeholder", args=["--report-every", "1"], umask=0o022)
    try:
        assert client.reports_wait(1)[-1]["spooled"] >= 2, client.output()
    finally:
        assert client.stop() == 0
    assert set(modes(state).values()) == {"0o700", "0o600"} and modes(state)["state"] == "0o700", modes(state)
    assert modes(state)["state/spool"] == "0o700" and len(list(spool.glob("*.png"))) >= 2
    assert client.output().count("could be read by other accounts on this machine: made them yours alone") == 1, client.output()
    # The server answers: the spool is sent, the rules it reads are written anew; said no more.
    client = Client(desktop, state, url=server.url, token=server.token, umask=0o022)
    try:
        wait_for(lambda: not list(spool.glob("*.png")) and "excluded_apps" in (state / "rules.json").read_text(), timeout_s=60)
    finally:
        assert client.stop() == 0
    assert "could be read by other accounts" not in client.output()
    paused = subprocess.run([sys.executable, "-m", "capture", "pause", "--state-dir", str(state)], cwd=REPO,
                            preexec_fn=lambda: os.umask(0o022), check=True)
    assert paused.returncode == 0
    assert set(modes(state).values()) == {"0o700", "0o600"} and "state/paused" in modes(state), modes(state)
