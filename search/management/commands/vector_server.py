import json
import os
import signal
import time

from django.core.management.base import BaseCommand, CommandError

from search.vectors import VectorError, VectorServer, server_file, vector_server_lock, vectors_compact

CHECK_S = 1.0


class Command(BaseCommand):
    help = (
        "Run the vector index on the data dir for the web server and the worker to share (Chroma in "
        "this process, answering on the socket chroma/server.sock to a peer holding the key in "
        "chroma/server.key); `serve` runs it. Not needed when CHROMA_URL names a server of your own."
    )

    def handle(self, *args, **options):
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
        try:
            server = VectorServer()
        except VectorError as exc:
            raise CommandError(str(exc)) from None
        try:
            _announce(server.socket)
            self.stdout.write(f"vector index on {server.socket} (files in {server.db})")
            self.stdout.flush()
            while not stopping:
                if not server.db.exists():
                    # The files were removed under the server: an empty index (reindex --vectors refills it).
                    self.stderr.write(f"the vector index files in {server.db} are gone; starting an empty index")
                    server.open()
                time.sleep(CHECK_S)
        finally:
            server_file().unlink(missing_ok=True)
            server.close()


def _announce(socket_path) -> None:
    """Where clients find the server: written whole, then renamed in place."""
    tmp = server_file().with_suffix(".tmp")
    tmp.write_text(json.dumps({"socket": str(socket_path), "pid": os.getpid()}))
    os.chmod(tmp, 0o600)
    tmp.replace(server_file())
