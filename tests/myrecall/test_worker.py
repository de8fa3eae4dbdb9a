"""Background work survives a crash and a stop, on real worker processes sharing one data dir:
a `kill -9` in the middle of a real OCR task, a live but slow worker beside a sweeping one, the
attempt limit for a task whose workers keep dying, and SIGTERM / Ctrl-C during a task.

The tests poll the task table of the data dir's database (SQLite in WAL mode: readable while the
workers write; or the data dir's own PostgreSQL database, tests.databases) and never time anything: every wait has a generous limit for a loaded 2-core machine."""

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from datetime import datetime
from datetime import timezone as dt_timezone
from pathlib import Path

import pytest

from tests import databases
from tests.server import DATABASE_FILE, LiveServer, database_template
from tests.screens import new_screen, render

REPO = Path(__file__).resolve().parents[2]
WAIT_S = 240
# Short heartbeat, grace and sweep period, so a dead worker is found in seconds.
FAST = {
    "MYRECALL_WORKER_HEARTBEAT_S": "0.25",
    "MYRECALL_WORKER_GRACE_S": "3",
    "MYRECALL_WORKER_SWEEP_S": "0.5",
    # Every frame read whole, so each OCR task takes seconds.
    "MYRECALL_OCR_INCREMENTAL": "false",
}


class DataDir:
    """A migrated data dir, with real worker processes and read access to its database."""

    def __init__(self, path: Path, *, migrate: bool = True):
        self.path = path
        self.path.mkdir(parents=True, exist_ok=True)
        self.env = {**os.environ, **databases.env_for(path), **FAST, "MYRECALL_DATA_DIR": str(path)}
        self.workers: list[subprocess.Popen] = []
        if migrate and "DATABASE_URL" not in self.env:
            # The embedded database: a copy of one migrated once per test process (tests.server).
            shutil.copyfile(database_template(), self.path / DATABASE_FILE)
        elif migrate:
            self.django("from django.core.management import call_command; call_command('migrate', verbosity=0)")

    def django(self, code: str, **env: str) -> str:
        """Run Python code with Django set up on this data dir, in its own process; returns its output."""
        script = "import django\ndjango.setup()\n" + textwrap.dedent(code)
        done = subprocess.run(
            [sys.executable, "-c", script],
            cwd=REPO, env={**self.env, **env, "DJANGO_SETTINGS_MODULE": "myrecall.settings"},
            capture_output=True, text=True, timeout=WAIT_S,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    def frame_ingest(self, *, seed: int, word: str, size=(1920, 1080), long_lines: bool = False) -> int:
        """Store a realistic screenshot full of text, with `word` in it and in its window title."""
        screen = new_screen(random.Random(seed), "editor", zh_share=0.2)
        screen.window_name = f"{word}.md"
        if long_lines:
            screen.lines = [f"{line} {line}" for line in screen.lines]
        screen.lines[3] = f"the {word} arrived this morning"
        image = self.path / f"screen-{seed}.png"
        render(screen, size).save(image)
        out = self.django(f"""
            import time
            from pathlib import Path
            from frames.services import frame_ingest
            result = frame_ingest(image_bytes=Path({str(image)!r}).read_bytes(), timestamp=time.time(),
                                  app_name="Code", window_name={screen.window_name!r}, device_name="laptop-{seed}")
            print(result.frame_id)
        """)
        return int(out.strip().splitlines()[-1])

    def worker(self, *, prefix: tuple[str, ...] = (), **env: str) -> subprocess.Popen:
        log = open(self.path / f"worker-{len(self.workers)}.log", "w")
        proc = subprocess.Popen(
            [*prefix, sys.executable, "manage.py", "worker"],
            cwd=REPO, env={**self.env, **env}, stdout=log, stderr=subprocess.STDOUT,
        )
        self.workers.append(proc)
        return proc

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text()}" for p in sorted(self.path.glob("worker-*.log")))

    def rows(self, sql: str, *params) -> list[tuple]:
        return databases.rows(self.path, sql, params)

    def tasks(self, frame_id: int) -> list[dict]:
        """The frame's OCR task rows, oldest first."""
        rows = self.rows(
            "SELECT id, status, worker_ids, started_at, exception_class_path, traceback, args_kwargs "
            "FROM django_tasks_database_dbtaskresult WHERE task_path = 'frames.tasks.frame_ocr' ORDER BY enqueued_at"
        )
        keys = ["id", "status", "worker_ids", "started_at", "exception_class_path", "traceback"]
        found = [dict(zip(keys, row[:6])) for row in rows if _json(row[6])["args"] == [frame_id]]
        for task in found:
            task["worker_ids"] = _json(task["worker_ids"])
        return found

    def frame(self, frame_id: int) -> dict:
        status, error = self.rows("SELECT ocr_status, ocr_error FROM frames_frame WHERE id = %s", frame_id)[0]
        return {"status": status, "error": error}

    def wait(self, what: str, condition, timeout_s: float = WAIT_S):
        deadline = time.time() + timeout_s
        while time.time() < deadline:
            if found := condition():
                return found
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}\n{self.logs()}")

    def wait_running(self, frame_id: int, *, claims: int = 1) -> dict:
        """Wait until the frame's OCR task is RUNNING under its `claims`-th claim; returns the row."""

        def running():
            tasks = self.tasks(frame_id)
            if tasks and tasks[-1]["status"] == "RUNNING" and len(tasks[-1]["worker_ids"]) == claims:
                return tasks[-1]
            return None

        return self.wait(f"frame {frame_id}'s OCR task to run (claim {claims})", running)

    def kill(self, proc: subprocess.Popen) -> None:
        proc.kill()  # SIGKILL: no handler, no clean-up, as a crash or the OOM killer would
        proc.wait()  # reaped, so its pid is gone as it would be under serve

    def keyword_hits(self, q: str) -> list[int]:
        """Frame ids that GET /api/v1/search?mode=keyword answers for q (Django's test client, real token)."""
        out = self.django(f"""
            import json, time
            from django.test import Client
            from myrecall.services import api_token_create
            _, token = api_token_create(name="test")
            resp = Client().get("/api/v1/search", {{"q": {q!r}, "start_time": time.time() - 3600, "mode": "keyword"}},
                                HTTP_AUTHORIZATION=f"Bearer {{token}}", HTTP_HOST="127.0.0.1")
            assert resp.status_code == 200, resp.content
            print(json.dumps([hit["content"]["frame_id"] for hit in resp.json()["data"]]))
        """)
        return json.loads(out.strip().splitlines()[-1])

    def close(self) -> None:
        for proc in self.workers:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


@pytest.fixture
def data(tmp_path):
    data_dir = DataDir(tmp_path / "shared")
    yield data_dir
    data_dir.close()


def test_a_task_killed_mid_ocr_is_done_by_the_restarted_worker_and_found(data):
    # A long grace: only the dead pid on this machine can make the restarted worker take the task at once.
    first = data.worker(MYRECALL_WORKER_GRACE_S="3600")
    frame_id = data.frame_ingest(seed=1, word="zorbavelt")
    task = data.wait_running(frame_id)

    data.kill(first)

    assert data.tasks(frame_id)[-1]["status"] == "RUNNING", "the kill came after the task finished"
    assert data.frame(frame_id)["status"] == "pending"
    data.worker(MYRECALL_WORKER_GRACE_S="3600")
    data.wait("the frame to be read", lambda: data.frame(frame_id)["status"] == "done")
    data.wait("the task to be marked", lambda: data.tasks(frame_id)[-1]["status"] != "RUNNING")
    [done] = data.tasks(frame_id)
    assert done["id"] == task["id"]
    assert done["status"] == "SUCCESSFUL"
    assert len(done["worker_ids"]) == 2
    assert frame_id in data.keyword_hits("zorbavelt")
    # The killed worker's heartbeat row was cleaned up; the live one remains.
    assert [pid for (pid,) in data.rows("SELECT pid FROM myrecall_workerheartbeat")] == [data.workers[1].pid]


def _own_pid_space() -> tuple[str, ...]:
    """A command prefix that runs a process in a pid namespace of its own: to the workers outside
    it, it is a worker on another machine, alive only as long as its heartbeat says so."""
    for prefix in (("unshare", "--pid", "--fork", "--mount-proc", "--kill-child"),
                   ("unshare", "--user", "--map-root-user", "--pid", "--fork", "--mount-proc", "--kill-child")):
        if subprocess.run([*prefix, "true"], capture_output=True).returncode == 0:
            return prefix
    raise AssertionError("this test needs util-linux's unshare and pid namespaces")


def test_a_live_but_slow_worker_keeps_its_task_while_another_worker_sweeps(data):
    # Each worker is on "another machine" for the other, so only heartbeats tell them alive.
    # One OCR thread each and long lines: every task runs well past the grace period.
    data.worker(prefix=_own_pid_space(), MYRECALL_OCR_THREADS="1")
    data.worker(MYRECALL_OCR_THREADS="1")
    frame_ids = [data.frame_ingest(seed=10 + i, word=f"slowpoke{i}", long_lines=True) for i in range(2)]
    grace = float(FAST["MYRECALL_WORKER_GRACE_S"])
    swept_past_grace: set[int] = set()

    def all_finished():
        tasks = {frame_id: data.tasks(frame_id)[-1] for frame_id in frame_ids}
        beats = dict(data.rows("SELECT worker_id, swept_at FROM myrecall_workerheartbeat WHERE swept_at IS NOT NULL"))
        for frame_id, task in tasks.items():
            if task["status"] != "RUNNING":
                continue
            owner = task["worker_ids"][-1]
            started = _seconds(task["started_at"])
            # Another worker swept after this task had been running longer than the grace period...
            if any(_seconds(at) > started + grace + 1 for wid, at in beats.items() if wid != owner):
                # ...and the task is still running under the same claim after that sweep.
                if data.tasks(frame_id)[-1]["worker_ids"] == task["worker_ids"]:
                    swept_past_grace.add(frame_id)
        return all(task["status"] == "SUCCESSFUL" for task in tasks.values())

    data.wait("both frames to be read", all_finished)

    for frame_id in frame_ids:
        [task] = data.tasks(frame_id)
        assert len(task["worker_ids"]) == 1, task  # claimed once: never taken from its live worker
        assert data.frame(frame_id)["status"] == "done"
    assert swept_past_grace, "no sweep happened while a task ran past the grace period"


def _seconds(stored: str | datetime) -> float:
    """A stored time: UTC text on SQLite, a datetime on PostgreSQL."""
    if isinstance(stored, datetime):
        return stored.timestamp()
    return datetime.fromisoformat(stored).replace(tzinfo=dt_timezone.utc).timestamp()


def _json(stored):
    """A JSON column's value: text on SQLite, already parsed on PostgreSQL."""
    return json.loads(stored) if isinstance(stored, str) else stored


def test_a_task_whose_workers_keep_dying_fails_with_the_reason_and_its_frame_stays_findable(data):
    limit = {"MYRECALL_TASK_MAX_ATTEMPTS": "2"}
    frame_id = data.frame_ingest(seed=20, word="crashloop")
    for claim in (1, 2):
        worker = data.worker(**limit)
        data.wait_running(frame_id, claims=claim)
        data.kill(worker)

    data.worker(**limit)
    data.wait("the task to be given up", lambda: data.tasks(frame_id)[-1]["status"] == "FAILED")

    [task] = data.tasks(frame_id)
    assert task["exception_class_path"] == "myrecall.models.WorkerLost"
    assert "stopped 2 times" in task["traceback"]
    assert data.frame(frame_id) == {"status": "failed", "error": "the worker stopped during OCR 2 times"}
    # Found by its window title, though its text could not be read.
    assert frame_id in data.keyword_hits("crashloop")


def test_sigterm_during_a_task_lets_it_finish(data):
    worker = data.worker()
    frame_id = data.frame_ingest(seed=30, word="gentlestop")
    data.wait_running(frame_id)

    worker.send_signal(signal.SIGTERM)

    assert worker.wait(timeout=WAIT_S) == 0
    [task] = data.tasks(frame_id)
    assert task["status"] == "SUCCESSFUL"
    assert data.frame(frame_id)["status"] == "done"
    assert data.rows("SELECT count(*) FROM myrecall_workerheartbeat") == [(0,)]


def test_a_second_sigterm_puts_the_task_back_uncounted_and_the_next_worker_does_it(data):
    worker = data.worker()
    frame_id = data.frame_ingest(seed=40, word="impatient")
    data.wait_running(frame_id)

    worker.send_signal(signal.SIGTERM)
    # Python runs a handler once for signals that arrive together: wait until the first was seen.
    data.wait("the first signal to be handled", lambda: "stopping after the task in flight" in data.logs())
    worker.send_signal(signal.SIGTERM)

    assert worker.wait(timeout=WAIT_S) == 0
    [task] = data.tasks(frame_id)
    assert task["status"] == "READY"
    assert task["worker_ids"] == []  # a stop does not count against the task
    assert data.frame(frame_id)["status"] == "pending"
    data.worker()
    data.wait("the frame to be read", lambda: data.frame(frame_id)["status"] == "done")
    # The frame is done when OCR commits; the task row is marked a moment later, once the task returns.
    data.wait("the task to be marked", lambda: [t["status"] for t in data.tasks(frame_id)] != ["RUNNING"])
    assert [t["status"] for t in data.tasks(frame_id)] == ["SUCCESSFUL"]


def test_a_task_still_running_past_the_stop_time_goes_back_uncounted_and_the_worker_exits(data):
    # A stop time far shorter than reading a screen full of long lines takes.
    worker = data.worker(MYRECALL_WORKER_STOP_S="0.5")
    frame_id = data.frame_ingest(seed=45, word="overtime", long_lines=True)
    data.wait_running(frame_id)

    worker.send_signal(signal.SIGTERM)  # once: the worker itself gives up on the task past the stop time

    assert worker.wait(timeout=WAIT_S) == 0
    assert "still running 0.5 s after the stop" in data.logs()
    [task] = data.tasks(frame_id)
    assert task["status"] == "READY"
    assert task["worker_ids"] == []
    assert data.frame(frame_id)["status"] == "pending"
    assert data.rows("SELECT count(*) FROM myrecall_workerheartbeat") == [(0,)]
    data.worker()
    data.wait("the frame to be read", lambda: data.frame(frame_id)["status"] == "done")


def test_ctrl_c_on_serve_during_a_task_loses_no_work(tmp_path):
    data_dir = tmp_path / "serve"
    with LiveServer(data_dir, env={**FAST, "MYRECALL_WORKER_STOP_S": str(WAIT_S)}) as server:
        reader = DataDir(data_dir, migrate=False)  # serve migrated it
        screen = new_screen(random.Random(50), "editor", zh_share=0.2)
        image = data_dir / "screen.png"
        render(screen).save(image)
        resp = server.session.post(
            server.url + "/api/v1/frames",
            files={"image": ("shot.png", image.read_bytes(), "image/png")},
            data={"timestamp": time.time(), "app_name": "Code", "window_name": "notes.md", "device_name": "ctrl-c"},
            timeout=30,
        )
        assert resp.status_code == 201, resp.text
        frame_id = resp.json()["frame_id"]
        reader.wait_running(frame_id)

        # What a terminal's Ctrl-C sends: SIGINT to serve's whole process group.
        code = server.stop(sig=signal.SIGINT, group=True, timeout_s=WAIT_S)

    assert code == 0
    [task] = reader.tasks(frame_id)
    assert task["status"] == "SUCCESSFUL", server.log_path.read_text()
    assert reader.frame(frame_id)["status"] == "done"
