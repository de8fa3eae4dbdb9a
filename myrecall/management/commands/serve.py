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
        children = [
            subprocess.Popen(
                [python, "-m", "daphne", "-b", host, "-p", str(port), "--proxy-headers", "myrecall.asgi:application"],
                cwd=settings.BASE_DIR,
                env=env,
            ),
            subprocess.Popen([python, manage, "worker"], cwd=settings.BASE_DIR, env=env),
        ]
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
            for child in children:
                if child.poll() is not None:
                    self.stderr.write(f"{child.args[2]} exited with {child.returncode}; stopping.")
                    exit_code = child.returncode or 1
                    stopping = True
            time.sleep(0.2)
        for child in children:
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
        deadline = time.time() + 10
        for child in children:
            try:
                child.wait(timeout=max(deadline - time.time(), 0.1))
            except subprocess.TimeoutExpired:
                child.kill()
        sys.exit(exit_code)
