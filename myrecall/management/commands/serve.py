import ctypes
import os
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from frames.storage import tmp_sweep
from myrecall.address import server_url_record
from myrecall.services import ADMIN_PASSWORD_FILE, ADMIN_USERNAME, admin_ensure
from myrecall.sidecars import Sidecar, sidecars

MAX_RESTARTS = 5
RESTART_WINDOW_S = 60
KILL_MARGIN_S = 10
_PRCTL = ctypes.CDLL(None, use_errno=True).prctl if sys.platform == "linux" else None
PR_SET_PDEATHSIG = 1


class Command(BaseCommand):
    help = "Run MyRecall: the web server (daphne, ASGI) and the background worker together; Ctrl-C stops both."

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--host", default="127.0.0.1", help="Address to bind (default 127.0.0.1: this machine only).")

    def handle(self, *args, port, host, **options):
        call_command("migrate", interactive=False, verbosity=0)
        tmp_sweep()
        password = admin_ensure()
        if password:
            self.stdout.write(
                f"\nFirst start: created user '{ADMIN_USERNAME}' with password:\n\n    {password}\n\n"
                f"(shown once; also saved, mode 0600, in {settings.DATA_DIR / ADMIN_PASSWORD_FILE})\n"
            )
        python = sys.executable
        manage = str(settings.BASE_DIR / "manage.py")
        env = {**os.environ, "MYRECALL_DATA_DIR": str(settings.DATA_DIR)}
        commands = {name: cmd for name, sidecar in sidecars.items() if (cmd := sidecar.command())}
        # Sidecars first (the vector server), so that the web server and the worker find them answering.
        children = {name: _start(cmd, env) for name, cmd in commands.items()}
        for name in children:
            _wait_ready(sidecars[name], children[name], self.stderr)
        commands |= {
            "web": [python, "-m", "myrecall.web", "-b", host, "-p", str(port), "--proxy-headers", "myrecall.asgi:application"],
            "worker": [python, manage, "worker"],
        }
        children |= {name: _start(commands[name], env) for name in ("web", "worker")}
        server_url_record(host=host, port=port)  # for the links of an MCP server a client starts apart
        restarts: dict[str, list[float]] = {name: [] for name in commands}
        self.stdout.write(f"MyRecall on http://{host}:{port}/  (data in {settings.DATA_DIR}; Ctrl-C stops)")
        self.stdout.flush()
        signals = 0

        def on_signal(signum, frame):
            nonlocal signals
            signals += 1
            if signals > 1:
                # A second Ctrl-C: the worker puts its task in flight back in the queue and stops now.
                _terminate(children.values())

        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, on_signal)
        exit_code = 0
        while not signals and exit_code == 0:
            for name, child in children.items():
                if child.poll() is None or signals:
                    continue
                # A crashed worker must not take the web app down: restart it, but give up on a crash loop.
                recent = [t for t in restarts[name] if time.time() - t < RESTART_WINDOW_S]
                if len(recent) >= MAX_RESTARTS:
                    self.stderr.write(f"{name} keeps exiting (last code {child.returncode}); stopping.")
                    exit_code = child.returncode or 1
                    break
                self.stderr.write(f"{name} exited with {child.returncode}; restarting it.")
                restarts[name] = [*recent, time.time()]
                children[name] = _start(commands[name], env)
            time.sleep(0.2)
        if signals == 1:
            self.stdout.write(
                f"Stopping: the worker finishes its task in flight (at most {settings.WORKER_STOP_S:g} s; "
                "Ctrl-C again: it goes back to the queue now)."
            )
            self.stdout.flush()
        _terminate(child for name, child in children.items() if name not in sidecars)
        # Each child bounds its own stop (myrecall.shutdown); killing it is for one that does not.
        deadline = time.time() + settings.WORKER_STOP_S + settings.STOP_GRACE_S + KILL_MARGIN_S
        # The web server and the worker first, then the sidecars they use.
        ordered = [name for name in children if name not in sidecars] + [name for name in children if name in sidecars]
        for name in ordered:
            child = children[name]
            if name in sidecars:
                _terminate([child])
            try:
                child.wait(timeout=max(deadline - time.time(), 5.0 if name in sidecars else 0.1))
            except subprocess.TimeoutExpired:
                self.stderr.write(f"{name} did not stop in time; killing it.")
                child.kill()  # a task it was running is taken again by the next worker's sweep
                child.wait()
        sys.exit(exit_code)


def _wait_ready(sidecar: Sidecar, child: subprocess.Popen, stderr) -> None:
    deadline = time.time() + sidecar.ready_wait_s
    while time.time() < deadline and child.poll() is None:
        if sidecar.ready():
            return
        time.sleep(0.2)
    stderr.write(f"{sidecar.name} is not answering yet; starting without it (searches by meaning wait for it).")


def _start(command: list[str], env: dict[str, str]) -> subprocess.Popen:
    # Its own process group: a terminal's Ctrl-C reaches serve alone, which then stops each child with one signal.
    return subprocess.Popen(
        command, cwd=settings.BASE_DIR, env=env, process_group=0, preexec_fn=_die_with_parent if _PRCTL else None
    )


def _terminate(children) -> None:
    for child in children:
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)


def _die_with_parent() -> None:
    """In the child, on Linux: a SIGTERM (an orderly stop) when serve dies, so a killed serve leaves no orphans."""
    _PRCTL(PR_SET_PDEATHSIG, signal.SIGTERM)
