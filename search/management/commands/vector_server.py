import json
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from search.vectors import VectorError, server_file, vector_server_lock, vector_server_process, vectors_compact, vectors_dir

CHECK_S = 1.0


class Command(BaseCommand):
    help = (
        "Run the vector index (a Chroma server on 127.0.0.1 that asks for the key in the data dir's "
        "chroma/server.key) on the data dir, for the web server and the worker to share; `serve` runs it. "
        "Not needed when CHROMA_URL names a server of your own."
    )

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=0, help="Port on 127.0.0.1 (default: any free one).")

    def handle(self, *args, port, **options):
        try:
            vector_server_lock()
        except VectorError as exc:
            raise CommandError(str(exc)) from None
        folders, freed = vectors_compact()  # the files are ours alone now, and not open yet
        if folders or freed:
            self.stdout.write(f"vector index: gave back {freed / 2**20:.1f} MiB of deleted vectors ({folders} folder(s))")
        stopping = False

        def on_signal(signum, frame):
            nonlocal stopping
            stopping = True

        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, on_signal)
        db = vectors_dir() / "db"
        child = None
        try:
            while not stopping:
                if child is None or child.poll() is not None:
                    if child is not None:
                        self.stderr.write(f"the vector server exited with {child.returncode}; starting it again")
                    child, url = _start(db, port)
                    if not _wait(url, child):
                        self.stderr.write("the vector server did not answer within 30 s")
                    _announce(url)
                    self.stdout.write(f"vector index on {url} (files in {db})")
                    self.stdout.flush()
                elif not db.exists():
                    # The files were removed under the server: start an empty index (reindex --vectors refills it).
                    self.stderr.write(f"the vector index files in {db} are gone; starting an empty index")
                    server_file().unlink(missing_ok=True)
                    _stop(child)
                    child = None
                    continue
                time.sleep(CHECK_S)
        finally:
            server_file().unlink(missing_ok=True)
            if child is not None:
                _stop(child)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start(db: Path, port: int) -> tuple[subprocess.Popen, str]:
    db.mkdir(mode=0o700, parents=True, exist_ok=True)
    port = port or _free_port()
    argv, env = vector_server_process(port=port)
    with open(db.parent / "server.log", "ab") as log:
        child = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env, preexec_fn=_die_with_parent)
    return child, f"http://127.0.0.1:{port}"


def _wait(url: str, child: subprocess.Popen) -> bool:
    import urllib.request

    deadline = time.time() + 30
    while time.time() < deadline and child.poll() is None:
        try:
            with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=1):
                return True
        except OSError:
            time.sleep(0.1)
    return False


def _announce(url: str) -> None:
    """Where clients find the server: written whole, then renamed in place."""
    tmp = server_file().with_suffix(".tmp")
    tmp.write_text(json.dumps({"url": url, "pid": os.getpid()}))
    os.chmod(tmp, 0o600)
    tmp.replace(server_file())


def _stop(child: subprocess.Popen) -> None:
    if child.poll() is None:
        child.terminate()
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def _die_with_parent() -> None:
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
