"""A real `manage.py serve` (web server + worker) on a free port with its own data dir, shared
by the end-to-end tests and the benchmarks, and a day of realistic frames posted to it."""

import atexit
import hashlib
import io
import os
import random
import secrets
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import requests

from myrecall.shutdown import process_descendants
from tests import databases
from tests.screens import render, session

REPO = Path(__file__).resolve().parent.parent
READY_MARKER = "[worker] ready"  # after every start-up hook: OCR engine and embedder loaded


DATABASE_FILE = "myrecall.sqlite3"  # the embedded database, in the data dir (myrecall/settings.py)
_template: dict[tuple, Path] = {}


def _migrations() -> tuple:
    """The migration files of the checkout (name, size, time): a template made before one of
    them was added or changed is not used again."""
    return tuple(sorted((str(path), path.stat().st_size, path.stat().st_mtime_ns) for path in REPO.glob("*/migrations/0*.py")))


def database_template() -> Path:
    """An embedded database with every migration applied, made once per test process (again when
    the migrations change) by the project's own `migrate`: a LiveServer on SQLite starts from a
    copy (a first start's migrations cost each server about 1.4 CPU s)."""
    key = _migrations()
    if key not in _template:
        folder = Path(tempfile.mkdtemp(prefix="myrecall-template-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        env = {**os.environ, "MYRECALL_DATA_DIR": str(folder)}
        subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=REPO, env=env, check=True, capture_output=True)
        conn = sqlite3.connect(folder / DATABASE_FILE)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # every page in the file itself, none in a WAL
        conn.close()
        _template[key] = folder / DATABASE_FILE
    return _template[key]


def _token_add(database: Path, name: str) -> str:
    """A bearer token written into a copied database's token table, as `token_create` writes one
    (a raw value of the same form, only its SHA-256 kept): a server needs no extra process for it."""
    raw = "mr_" + secrets.token_urlsafe(32)
    created = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")
    with sqlite3.connect(database) as conn:
        conn.execute(
            "INSERT INTO myrecall_apitoken (name, key_hash, hint, read_only, created_at) VALUES (?, ?, ?, 0, ?)",
            (name, hashlib.sha256(raw.encode()).hexdigest(), raw[:8], created),
        )
    conn.close()
    return raw


def port_pick() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer:
    """Starts `serve` and waits until the web server answers and the worker's OCR engine is warm.

    `env` adds or overrides environment variables (e.g. MYRECALL_DEDUP_MAX_DISTANCE) for the server.
    """

    def __init__(self, data_dir: Path, *, env: dict[str, str] | None = None, ready_timeout_s: float = 120, port: int | None = None):
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.port = port or port_pick()
        self.url = f"http://127.0.0.1:{self.port}"
        # Its own database, as its own data dir gives it on SQLite (tests.databases), unless env names one.
        own = {} if "DATABASE_URL" in (env or {}) else databases.env_for(self.data_dir)
        self.env = {**os.environ, **own, **(env or {}), "MYRECALL_DATA_DIR": str(self.data_dir)}
        self.token = None
        database = self.data_dir / DATABASE_FILE
        if "DATABASE_URL" not in self.env and not database.exists():
            # A new embedded database: a copy of the migrated template, with this server's token.
            shutil.copyfile(database_template(), database)
            self.token = _token_add(database, "live")
        self.log_path = self.data_dir / "serve.log"
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            [sys.executable, "manage.py", "serve", "--port", str(self.port)],
            cwd=REPO, env=self.env, stdout=self.log, stderr=subprocess.STDOUT,
            # Its own process group, so a test can send what a terminal's Ctrl-C sends: a signal to the group.
            start_new_session=True,
        )
        try:
            self._wait_ready(ready_timeout_s)
        except BaseException:
            self.stop()
            raise
        if self.token is None:  # its database existed, or is a server's: token_create, as a user would
            self.token = self.manage("token_create", "live").strip().splitlines()[-1]
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Bearer {self.token}"

    def _wait_ready(self, timeout_s: float) -> None:
        deadline = time.time() + timeout_s
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"serve exited with {self.proc.returncode}:\n{self.log_path.read_text()}")
            try:
                # The first request loads the app: on a busy machine it can take seconds.
                requests.get(self.url + "/login/", timeout=10)
                if READY_MARKER in self.log_path.read_text():
                    return
            except (requests.ConnectionError, requests.Timeout):
                pass
            time.sleep(0.3)
        raise RuntimeError(f"serve did not come up in {timeout_s:.0f} s:\n{self.log_path.read_text()}")

    def rows(self, query: str, params: tuple = ()) -> list[tuple]:
        """The rows of a read-only query (placeholders %s) on this server's database."""
        return databases.rows(self.data_dir, query, params, database_url=self.env.get("DATABASE_URL"))

    def words_kept(self, words) -> dict[str, list[str]]:
        """Where this server's memory keeps each word (any letter case): the data dir's files (its log
        aside) and, on PostgreSQL, the rows of its database (tests.databases.rows_holding)."""
        from tests.conftest import files_holding

        found = files_holding(self.data_dir, words, skip=self.log_path)
        for word, tables in databases.rows_holding(self.data_dir, words, database_url=self.env.get("DATABASE_URL")).items():
            found.setdefault(word, []).extend(f"database table {table}" for table in tables)
        return found

    def manage(self, *args: str) -> str:
        return subprocess.run(
            [sys.executable, "manage.py", *args], cwd=REPO, env=self.env, check=True, capture_output=True, text=True
        ).stdout

    def stop(self, *, sig: int = signal.SIGTERM, group: bool = False, timeout_s: float = 30) -> int:
        """Signal serve (or, with group, serve and its children, as Ctrl-C in a terminal does) and wait for it."""
        if self.proc.poll() is None:
            children = process_descendants(self.proc.pid)
            if group:
                os.killpg(self.proc.pid, sig)
            else:
                self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                for pid in [self.proc.pid, *children]:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                self.proc.wait()
        self.log.close()
        return self.proc.returncode

    def __enter__(self) -> "LiveServer":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

def frames_post_session(*, server: LiveServer, count: int, start: float, step_s: float, seed: int = 11) -> list[dict]:
    """Post `count` frames of a working session, `step_s` apart from `start`; returns what was sent."""
    sent = []
    for i, (screen, action) in enumerate(session(random.Random(seed), count)):
        buf = io.BytesIO()
        render(screen).save(buf, format="PNG")
        ts = start + i * step_s
        resp = server.session.post(
            server.url + "/api/v1/frames",
            files={"image": ("frame.png", buf.getvalue(), "image/png")},
            data={
                "timestamp": ts,
                "app_name": screen.app_name,
                "window_name": screen.window_name,
                "browser_url": screen.browser_url,
                "focused": "true",
                "device_name": "demo",
            },
            timeout=60,
        )
        resp.raise_for_status()
        sent.append({"frame_id": resp.json()["frame_id"], "timestamp": ts, "action": action, "screen": screen})
    return sent


def ocr_wait(*, server: LiveServer, frame_ids: list[int], timeout_s: float = 600) -> None:
    deadline = time.time() + timeout_s
    pending = {i for i in frame_ids if i}
    while pending and time.time() < deadline:
        for frame_id in list(pending):
            status = server.session.get(f"{server.url}/api/v1/frames/{frame_id}/metadata", timeout=30).json()["ocr_status"]
            if status != "pending":
                pending.discard(frame_id)
        time.sleep(0.5)
    if pending:
        raise TimeoutError(f"OCR still pending for {sorted(pending)}")
