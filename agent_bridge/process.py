"""The one module that runs Pi: `pi --mode rpc` as a child of the web process.

Each process gets its own config dir, generated at start from settings (Pi writes its
settings.json at run time, so two servers never share one): models.json names one
OpenAI-compatible provider, "myrecall", pointing at the configured LLM, with the key read from
the environment. Pi runs offline (PI_OFFLINE=1: no update checks, telemetry or downloads),
with only the `read` and `bash` tools and the project's skills, in its own working directory,
with an environment of its own: the server's secrets are not passed on, only what the skills
need (MyRecall's URL, a read-only token, the user's timezone).

One writer to stdin (a lock), request ids, replies matched by id; one reader thread parses
stdout into events (agent_bridge.events) and hands each to `on_event`; stderr is drained and
its tail kept for the message when Pi exits, which `on_exit` reports."""

import json
import logging
import os
import shutil
import signal
import subprocess
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from itertools import count
from pathlib import Path

from agent_bridge.events import PiEvent, Response, event_parse
from myrecall.shutdown import process_descendants

logger = logging.getLogger(__name__)

PROVIDER = "myrecall"
KEY_VARIABLE = "MYRECALL_LLM_KEY"
TOOLS = "read,bash"
STDERR_LINES = 40


class AgentUnavailable(Exception):
    """Pi cannot answer; the message says why and what to do."""

    def __init__(self, message: str, status_code: int = 503):
        super().__init__(message)
        self.message = message
        self.status_code = status_code


@dataclass(frozen=True)
class PiSetup:
    binary: Path
    home: Path  # its own dir: config (models.json), HOME and working directory under it
    model: str
    llm_base_url: str
    llm_api_key: str
    context_window: int
    max_tokens: int
    system_prompt: str
    skills: tuple[Path, ...]
    env: dict[str, str]  # what the skills read: MYRECALL_URL, MYRECALL_TOKEN, MYRECALL_TIMEZONE
    model_retries: int = 3  # Pi's own retries of a failed model call, with backoff from model_retry_delay_s
    model_retry_delay_s: float = 2.0


def pi_binary(configured: str, base_dir: Path) -> Path | None:
    """The pinned Pi of the project (node_modules/.bin/pi), or the one the settings name."""
    if configured:
        found = shutil.which(configured) or (configured if Path(configured).is_file() else None)
        return Path(found) if found else None
    local = base_dir / "node_modules" / ".bin" / "pi"
    return local if local.exists() else None


def _config_write(setup: PiSetup) -> tuple[Path, Path]:
    """Pi's config dir and working dir, written afresh: models.json, settings.json (its retries of
    a failed model call) and the appended prompt."""
    config = setup.home / "config"
    work = setup.home / "work"
    for path in (config, work):
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
    models = {
        "providers": {
            PROVIDER: {
                "baseUrl": setup.llm_base_url,
                "api": "openai-completions",
                "apiKey": KEY_VARIABLE,
                "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
                "models": [{"id": setup.model, "contextWindow": setup.context_window, "maxTokens": setup.max_tokens}],
            }
        }
    }
    (config / "models.json").write_text(json.dumps(models, indent=1))
    retry = {
        "enabled": setup.model_retries > 0,
        "maxRetries": setup.model_retries,
        "baseDelayMs": round(setup.model_retry_delay_s * 1000),
        "provider": {"maxRetries": 0},  # Pi's retries only: its HTTP client's own would try each call three times more
    }
    (config / "settings.json").write_text(json.dumps({"retry": retry}, indent=1))
    (config / "system-prompt.md").write_text(setup.system_prompt)
    return config, work


def conversation_files_remove(agents_dir: Path) -> None:
    """Remove the conversations earlier MyRecall versions let Pi write into its working dirs
    under `agents_dir` (their tools' outputs: what the screens said)."""
    for path in agents_dir.glob("*/work/*.jsonl"):
        path.unlink(missing_ok=True)


class PiProcess:
    """One running `pi --mode rpc`."""

    def __init__(self, setup: PiSetup, *, on_event: Callable[[PiEvent], None], on_exit: Callable[[int, str], None]):
        self.setup = setup
        self._on_event = on_event
        self._on_exit = on_exit
        self._proc: subprocess.Popen | None = None
        self._write_lock = threading.Lock()
        self._pending: dict[str, Future] = {}
        self._pending_lock = threading.Lock()
        self._ids = count(1)
        self._stderr: deque[str] = deque(maxlen=STDERR_LINES)
        self._stopping = False
        self._reader: threading.Thread | None = None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def start(self) -> None:
        setup = self.setup
        config, work = _config_write(setup)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(setup.home),
            "PI_CODING_AGENT_DIR": str(config),
            "PI_OFFLINE": "1",
            "LANG": "C.UTF-8",
            "NO_COLOR": "1",
            KEY_VARIABLE: setup.llm_api_key or "none",
            **setup.env,
        }
        command = [
            str(setup.binary), "--mode", "rpc", "--provider", PROVIDER, "--model", setup.model, "--no-session",
            "--tools", TOOLS, "--no-skills", "--append-system-prompt", str(config / "system-prompt.md"),
        ]
        for skill in setup.skills:
            command += ["--skill", str(skill)]
        try:
            self._proc = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=work, env=env,
                start_new_session=True,
            )
        except OSError as exc:
            raise AgentUnavailable(f"The agent (Pi) could not be started: {exc}. Run the setup command again (it installs Pi).") from exc
        logger.info("Pi started (pid %s): %s", self._proc.pid, " ".join(command))
        self._reader = threading.Thread(target=self._read, name=f"pi-{self._proc.pid}-out", daemon=True)
        self._reader.start()
        threading.Thread(target=self._drain, name=f"pi-{self._proc.pid}-err", daemon=True).start()

    def _read(self) -> None:
        proc = self._proc
        for line in iter(proc.stdout.readline, b""):  # readline: LF framing only, U+2028 stays inside strings
            event = event_parse(line)
            if event is None:
                continue
            if isinstance(event, Response) and event.id is not None:
                with self._pending_lock:
                    future = self._pending.pop(event.id, None)
                if future is not None and not future.done():
                    future.set_result(event)
            try:
                self._on_event(event)
            except Exception:  # a listener's fault never stops the reader
                logger.exception("Handling Pi's %s event failed", event.type)
        code = proc.wait()
        with self._pending_lock:
            pending, self._pending = list(self._pending.values()), {}
        for future in pending:
            if not future.done():
                future.set_exception(AgentUnavailable("The agent stopped before it answered."))
        if not self._stopping:
            logger.warning("Pi (pid %s) exited with code %s: %s", proc.pid, code, " | ".join(self._stderr))
        self._on_exit(code, "\n".join(self._stderr))

    def _drain(self) -> None:
        for line in iter(self._proc.stderr.readline, b""):
            self._stderr.append(line.decode("utf-8", errors="replace").rstrip())

    def send(self, command: dict) -> tuple[str, Future]:
        """Write one command with a new id; the future gets its reply."""
        request_id = f"r{next(self._ids)}"
        future: Future = Future()
        with self._pending_lock:
            self._pending[request_id] = future
        line = json.dumps({**command, "id": request_id}, ensure_ascii=False) + "\n"
        try:
            with self._write_lock:
                if not self.alive:
                    raise BrokenPipeError("Pi is not running")
                self._proc.stdin.write(line.encode())
                self._proc.stdin.flush()
        except OSError as exc:
            with self._pending_lock:
                self._pending.pop(request_id, None)
            raise AgentUnavailable("The agent is not running; it is being restarted. Ask again in a few seconds.") from exc
        return request_id, future

    def request(self, command: dict, *, timeout: float) -> Response:
        """Send a command and wait for its reply."""
        _, future = self.send(command)
        try:
            return future.result(timeout=timeout)
        except FutureTimeout as exc:
            raise AgentUnavailable(f"The agent did not reply to {command.get('type')} within {timeout:g} s.") from exc

    def stop(self, *, timeout: float = 3.0) -> None:
        """Close stdin (Pi exits at once), then terminate, then kill; returns once its exit was
        reported (on_exit), so the report reaches no one who listens from then on."""
        self._stopping = True
        proc = self._proc
        if proc is None or proc.poll() is not None:
            return
        # The commands its tools run, each in a session of its own: Pi leaves them running when it exits.
        tools = process_descendants(proc.pid)
        try:
            with self._write_lock:
                proc.stdin.close()
            proc.wait(timeout=timeout)
        except (OSError, subprocess.TimeoutExpired):
            proc.terminate()
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for pid in tools:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:  # it ended with Pi
                pass
        if self._reader is not None and self._reader is not threading.current_thread():
            self._reader.join(timeout=timeout)

    def kill(self) -> None:
        """Kill it outright (tests, and a process that ignores its stdin)."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
