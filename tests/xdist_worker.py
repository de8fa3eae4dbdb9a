"""Loaded before Django reads its settings (pytest.ini: -p tests.xdist_worker): in a test process
of pytest-xdist (PYTEST_XDIST_WORKER gw0, gw1, ...) with REDIS_URL set (`scripts/test.sh --scale`),
the process gets a Redis database of its own (gw0: /1, gw1: /2, ...), as its PostgreSQL test
database and Chroma databases are its own: the live timeline's channel group (frames.live) is one
name there, and a page in one process's test would see frames posted in the other's. The servers
its tests start inherit it."""

import os
from urllib.parse import urlsplit, urlunsplit

REDIS_DATABASES = 16  # redis-server's default


def redis_url_for(url: str, worker: str) -> str:
    number = int(worker.removeprefix("gw")) + 1
    if number >= REDIS_DATABASES:
        raise RuntimeError(f"test process {worker}: Redis has {REDIS_DATABASES} databases; run fewer processes")
    return urlunsplit(urlsplit(url)._replace(path=f"/{number}"))


_worker = os.environ.get("PYTEST_XDIST_WORKER")
if _worker and os.environ.get("REDIS_URL"):
    os.environ["REDIS_URL"] = redis_url_for(os.environ["REDIS_URL"], _worker)
