import os
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from frames.storage import tmp_sweep
from myrecall.services import ADMIN_PASSWORD_FILE, ADMIN_USERNAME, admin_ensure

MAX_RESTARTS = 5
RESTART_WINDOW_S = 60


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
        commands = {
            "web": [python, "-m", "daphne", "-b", host, "-p", str(port), "--proxy-headers", "myrecall.asgi:application"],
            "worker": [python, manage, "worker"],
        }
        children = {name: subprocess.Popen(cmd, cwd=settings.BASE_DIR, env=env) for name, cmd in commands.items()}
        restarts: dict[str, list[float]] = {name: [] for name in commands}
        self.stdout.write(f"MyRecall on http://{host}:{port}/  (data in {settings.DATA_DIR}; Ctrl-C stops)")
        self.stdout.flush()
        stopping = False

        def stop(signum, frame):
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        exit_code = 0
        while not stopping:
            for name, child in children.items():
                if child.poll() is None or stopping:
                    continue
                # A crashed worker must not take the web app down: restart it, but give up on a crash loop.
                recent = [t for t in restarts[name] if time.time() - t < RESTART_WINDOW_S]
                if len(recent) >= MAX_RESTARTS:
                    self.stderr.write(f"{name} keeps exiting (last code {child.returncode}); stopping.")
                    exit_code = child.returncode or 1
                    stopping = True
                    break
                self.stderr.write(f"{name} exited with {child.returncode}; restarting it.")
                restarts[name] = [*recent, time.time()]
                children[name] = subprocess.Popen(commands[name], cwd=settings.BASE_DIR, env=env)
            time.sleep(0.2)
        for child in children.values():
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
        deadline = time.time() + 10
        for child in children.values():
            try:
                child.wait(timeout=max(deadline - time.time(), 0.1))
            except subprocess.TimeoutExpired:
                child.kill()
        sys.exit(exit_code)
