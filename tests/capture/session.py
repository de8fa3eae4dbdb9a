"""What the headless desktop sessions of the capture tests share (tests.capture.gnome, tests.capture.kde):
a folder that is the session's XDG_RUNTIME_DIR and HOME, the programs started in it as the session's
user (tests.capture.sway's account when run as root, as a login would), waits that give up with
the session's log, real GTK windows (tests/capture/gtk_window.py) whose lines and title the test
sets, and the capture client or any Python run as that user."""

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from tests.capture.sway import account

REPO = Path(__file__).resolve().parents[2]


class UserSession:
    def __init__(self, prefix: str):
        self.user = account()
        self.dir = Path(tempfile.mkdtemp(prefix=prefix))  # its XDG_RUNTIME_DIR and HOME: 0700, the account's
        self.procs: list[subprocess.Popen] = []
        self.log = open(self.dir / "session.log", "w")
        self.env: dict = {}  # what the capture client is given (set by the session once it runs)
        self.base: dict = {}  # what the session's own programs are given

    @staticmethod
    def _python() -> tuple[str, dict]:
        """The Python the session's user runs the client with, and what it needs in its environment:
        as root, Debian's python3 on the venv's packages (the venv's own interpreter is under /root)."""
        if os.geteuid() == 0:
            return "/usr/bin/python3", {"PYTHONPATH": f"{REPO}:{sysconfig.get_paths()['purelib']}", "PYTHONDONTWRITEBYTECODE": "1"}
        return sys.executable, {"PYTHONDONTWRITEBYTECODE": "1"}

    def python(self, args: list[str], env: dict | None = None, **popen) -> subprocess.Popen:
        """Python with ARGS in the session, as its user, with env on top of the client's."""
        python, path = self._python()
        return subprocess.Popen([python, *args], cwd=REPO, env={**self.env, **(env or {}), **path}, **self._as_user(), **popen)

    def client(self, args: list[str], env: dict | None = None, **popen) -> subprocess.Popen:
        """`python -m capture ARGS` in the session, as its user."""
        return self.python(["-m", "capture", *args], env, **popen)

    def user_dir(self, name: str) -> Path:
        """A new folder of the session's user (a client's state dir)."""
        path = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=self.dir))
        os.chown(path, self.user.pw_uid, self.user.pw_gid)
        return path

    def _as_user(self) -> dict:
        return {"user": self.user.pw_uid, "group": self.user.pw_gid, "extra_groups": []} if os.geteuid() == 0 else {}

    def _start(self, command: list[str], env: dict) -> subprocess.Popen:
        proc = subprocess.Popen(command, env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True, **self._as_user())
        self.procs.append(proc)
        return proc

    def _wait(self, check, what: str, timeout_s: float = 60):
        """check()'s first true answer; RuntimeError with the session's log when none came in time
        or a program of the session ended."""
        deadline = time.time() + timeout_s
        while time.time() < deadline:
            if any(proc.poll() is not None for proc in self.procs):
                break
            try:
                if result := check():
                    return result
            except (OSError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.1)
        raise RuntimeError(f"{what} did not come: {(self.dir / 'session.log').read_text()[-3000:]}")

    def window(self, app_id: str, title: str, *lines: str) -> None:
        """A GTK window with this app id and title, showing the lines; it takes the focus."""
        self.show(app_id, title, *lines)
        self._start(["/usr/bin/python3", str(REPO / "tests/capture/gtk_window.py"), app_id, str(self._state(app_id))], self.base)
        self.focus_wait(app_id, title)

    def focus_wait(self, app_id: str, title: str, timeout_s: float = 30) -> None:
        raise NotImplementedError

    def show(self, app_id: str, title: str, *lines: str) -> None:
        """New lines and title in the app's window."""
        path = self._state(app_id)
        path.with_suffix(".part").write_text(json.dumps({"title": title, "lines": list(lines)}))
        path.with_suffix(".part").chmod(0o644)
        path.with_suffix(".part").rename(path)

    def _state(self, app_id: str) -> Path:
        return self.dir / f"{app_id}.json"

    def close(self) -> None:
        for proc in reversed(self.procs):
            if proc.poll() is None:
                proc.terminate()
        for proc in reversed(self.procs):
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)
