"""The one module that talks to Chroma, the vector index.

Where the index lives, in this order:
- CHROMA_URL set: a Chroma server the user runs (scale-out).
- Else the embedded server that `serve` runs on the data dir (`manage.py vector_server`, see
  VectorServer): Chroma's files open in that process, its calls answered over a unix socket in
  the data dir (DATA_DIR/chroma/server.sock, announced in server.json) to a peer that proves it
  holds the key kept beside it (DATA_DIR/chroma/server.key, this user's alone). Chroma's local
  client keeps its vector graph in the memory of the process that opened it and never sees
  what another process writes, so the web server and the worker (two processes) must share
  one server rather than each open the files.
- Else (a command or a test run alone) the files in this process, under an exclusive lock so
  that no second process opens them at the same time.

Layout: one collection per UTC day per embedder ("mr-<embedder key>-<YYYYMMDD>"), so a
bounded range reads one or two small collections rather than filtering one big one (a 1-day
filter on a 100k collection cost 270 ms p95 here). Each chunk of a frame's text is one
entry, id "<frame_id>:<chunk>", with one metadata key, frame_id (what queries and deletions
filter by; entries written before 2026-11 also carry ts, focused, chars and chunk, which nothing
reads: 360 B a frame more), so no text of a screen (not even its app's name) lands in Chroma's
files, where a deletion could not erase it (its database keeps what it frees, its log what was
added). A query filters inside the index by frame id only (the frames the SQL filters chose,
see search.semantic.semantic_ranked): Chroma's metadata index is one
for all collections, so a time or app condition there costs by what it matches in the whole
index (a 1-day `ts` range: 480 ms p50 at 1M entries here), while `frame_id $in` costs by the
ids given (2,000: 17 ms). No text is stored in Chroma: the database is the source of truth
and the index can be rebuilt from it.

Telemetry is off; embeddings are always passed in (Chroma's default embedding function
downloads a model). Every call on a collection holds one lock."""

import fcntl
import json
import logging
import os
import re
import secrets
import shutil
import sqlite3
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from datetime import datetime
from datetime import timezone as dt_timezone
from multiprocessing.connection import AuthenticationError, Client, Listener, answer_challenge, deliver_challenge
from pathlib import Path
from urllib.parse import urlparse

from django.conf import settings

from myrecall.selectors import pid_alive

os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

logger = logging.getLogger(__name__)

DAY_MS = 86_400_000
# The longest path a unix socket's address holds (108 bytes with its final NUL).
SOCKET_PATH_MAX = 107
_lock = threading.RLock()
_clients: dict[str, object] = {}
_remote_clients: set[int] = set()  # ids of the HTTP clients (safe to use from several threads)
_lock_files: dict[str, object] = {}
_lost: set[str] = set()  # local indexes whose files vanished while open: reads fail until a write


class VectorError(Exception):
    """The vector index cannot answer (server down, files gone, in use elsewhere); the message is for the user."""


@dataclass(frozen=True)
class VectorHit:
    frame_id: int
    distance: float  # cosine distance of the frame's best chunk: 0 same direction, 2 opposite


def vectors_dir() -> Path:
    return settings.DATA_DIR / "chroma"


def server_file() -> Path:
    return vectors_dir() / "server.json"


def server_key_file() -> Path:
    return vectors_dir() / "server.key"


def server_socket() -> Path:
    return vectors_dir() / "server.sock"


# What vector_server_key_ensure writes (token_urlsafe).
_KEY = re.compile(r"[A-Za-z0-9_-]{32,}")


def vector_server_key_ensure() -> Path:
    """The embedded vector server's key file: a random key made once, readable by this user alone,
    written whole then renamed in place (the vector server calls it, holding the index's lock)."""
    path = server_key_file()
    try:
        if _KEY.fullmatch(path.read_text()):
            os.chmod(path, 0o600)
            return path
    except FileNotFoundError:
        pass
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        os.fchmod(fd, 0o600)  # a leftover .tmp keeps its old mode through O_CREAT
        handle.write(secrets.token_urlsafe(32))
        handle.flush()
        os.fsync(fd)
    tmp.replace(path)
    return path


def _server_key() -> str:
    """The key the embedded vector server asks for."""
    try:
        return server_key_file().read_text()
    except OSError as exc:
        raise VectorError(f"the vector server's key cannot be read ({exc})") from exc


def backend_describe() -> str:
    """Where the index lives, for the status API: "chroma server <url or socket>" or "chroma files <path>"."""
    where = settings.CHROMA_URL or _server_socket()
    return f"chroma server {where}" if where else f"chroma files {vectors_dir() / 'db'}"


def _server_socket() -> str | None:
    """The embedded vector server's socket, while the server that announced it runs."""
    try:
        info = json.loads(server_file().read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(info, dict) or int(info.get("pid", 0)) <= 0 or not pid_alive(int(info["pid"])):
        return None
    return info.get("socket")


TOKEN_CLIENT = "chromadb.auth.token_authn.TokenAuthClientProvider"


def _settings(token: str | None = None):
    from chromadb.config import Settings

    # Chroma's token provider sends "Authorization: Bearer <key>", which an auth proxy in front of a server takes too.
    auth = {"chroma_client_auth_provider": TOKEN_CLIENT, "chroma_client_auth_credentials": token} if token else {}
    return Settings(anonymized_telemetry=False, allow_reset=False, **auth)



def _key_refused(answer: str) -> VectorError:
    where = "CHROMA_TOKEN" if settings.CHROMA_URL else f"the key in {server_key_file()} (restarting `serve` gives it to the server)"
    return VectorError(f"the vector server refused the key: {answer}; check {where}")


def _refused(exc: Exception) -> bool:
    from chromadb.errors import AuthorizationError, ChromaAuthError

    return isinstance(exc, (ChromaAuthError, AuthorizationError))


def vectors_gone() -> VectorError:
    """Vectors the database says were written, that the index no longer has: its files were
    removed or replaced under it (the server then starts an empty index), or a remote server lost them."""
    where = f"the vector server at {settings.CHROMA_URL} no longer has them" if settings.CHROMA_URL else (
        f"its files in {vectors_dir() / 'db'} were removed or replaced")
    return VectorError(f"vectors the index held are gone ({where}); `manage.py reindex --vectors` rebuilds them")


def _failure(what: str, exc: Exception) -> VectorError:
    kind = exc.kind if isinstance(exc, _ServerFailure) else type(exc).__name__
    if kind == "NotFoundError" and what == "search":
        return vectors_gone()  # a day's collection, read before, that the index no longer has
    if isinstance(exc, _ServerFailure):
        return VectorError(f"the vector index failed to {what}: {exc.kind}: {exc}")
    if _refused(exc):
        return _key_refused(f"{type(exc).__name__}: {exc}")
    return VectorError(f"the vector index failed to {what}: {type(exc).__name__}: {exc}")


def _client(*, write: bool = False):
    """The client for where the index lives now (the server's address may change on a restart).
    When the files of an index this process had open are gone, reads fail (search says so and
    answers from keyword search) and the next write starts an empty index."""
    url = settings.CHROMA_URL
    socket_path = None if url else _server_socket()
    if socket_path:
        if not (vectors_dir() / "db").exists():
            raise VectorError(f"the vector index files in {vectors_dir() / 'db'} are gone; `manage.py reindex --vectors` rebuilds them")
        key = f"{socket_path} {_server_key()}"  # a new key (a key file made again) needs a new client
        if key not in _clients:
            _clients[key] = _ServerClient(socket_path, key.partition(" ")[2])
            _remote_clients.add(id(_clients[key]))
        return _clients[key]
    import chromadb  # 80 MB: only where Chroma's own client runs

    if url:
        token = settings.CHROMA_TOKEN or None
        database = settings.CHROMA_DATABASE or "default_database"
        key = f"{url} {token} {database}"  # a new token or database needs a new client
        if key not in _clients:
            parts = urlparse(url)
            where = {
                "host": parts.hostname or "127.0.0.1",
                "port": parts.port or (443 if parts.scheme == "https" else 80),
                "ssl": parts.scheme == "https",
            }
            try:
                try:
                    _clients[key] = chromadb.HttpClient(**where, settings=_settings(token), database=database)
                except Exception as exc:
                    if "database" not in str(exc).lower() or database == "default_database":
                        raise
                    _database_create(where, token, database)  # this memory's first write to the server
                    _clients[key] = chromadb.HttpClient(**where, settings=_settings(token), database=database)
                _remote_clients.add(id(_clients[key]))
            except Exception as exc:
                if _refused(exc):
                    raise _failure("connect", exc) from exc
                raise VectorError(f"the vector server at {url} does not answer ({exc})") from exc
        return _clients[key]
    path = vectors_dir() / "db"
    key = str(path)
    if key in _clients and not path.exists():
        _clients.pop(key, None)
        _forget_local(key)
        _forget_collections()
        _lost.add(key)
    if key in _lost:
        if write:
            _lost.discard(key)
        else:
            raise VectorError(f"the vector index files in {path} are gone; `manage.py reindex --vectors` rebuilds them")
    if key not in _clients:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        _lock_take(path.parent)
        try:
            _clients[key] = chromadb.PersistentClient(path=key, settings=_settings())
        except Exception as exc:
            raise VectorError(f"the vector index in {path} cannot be opened ({exc})") from exc
    return _clients[key]


def _database_create(where: dict, token: str | None, database: str) -> None:
    """Make CHROMA_DATABASE on the Chroma server (in its default tenant)."""
    import chromadb
    from chromadb.config import Settings

    admin = chromadb.AdminClient(
        Settings(
            **_settings(token).model_dump(include={"anonymized_telemetry", "chroma_client_auth_provider", "chroma_client_auth_credentials"}),
            chroma_api_impl="chromadb.api.fastapi.FastAPI",
            chroma_server_host=where["host"],
            chroma_server_http_port=where["port"],
            chroma_server_ssl_enabled=where["ssl"],
        )
    )
    try:
        admin.create_database(database)
    except Exception as exc:  # made meanwhile by another process: fine
        if "exist" not in str(exc).lower():
            raise


def _forget_local(key: str) -> None:
    try:
        from chromadb.api.client import SharedSystemClient

        SharedSystemClient.clear_system_cache()
    except Exception:  # an internal of Chroma's; a stale cache only costs a reopen
        logger.debug("could not clear Chroma's client cache", exc_info=True)


def _lock_take(directory: Path) -> None:
    """Hold DATA_DIR/chroma/.lock for the life of this process: the files are ours alone."""
    key = str(directory)
    if key in _lock_files:
        return
    handle = open(directory / ".lock", "a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise VectorError(
            "the vector index is open in another process; start MyRecall with `manage.py serve` "
            "(it shares one vector server) or set CHROMA_URL"
        ) from None
    _lock_files[key] = handle


def vector_server_lock() -> None:
    """Take the data dir's vector index for this process (the vector server): raises VectorError
    when another process has it."""
    directory = vectors_dir()
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    _lock_take(directory)


_SEGMENT_DIR = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def _folders_unused_remove(db: Path) -> int:
    """Remove the folders Chroma leaves behind when it deletes a collection (chroma-core/chroma#5259,
    #5520): those no segment names. Safe while the files are open: the folders are listed before
    the segments are read, and a segment is recorded before its folder is made, so a collection
    created meanwhile keeps its folder. Returns how many were removed."""
    meta = db / "chroma.sqlite3"
    if not meta.exists():
        return 0
    folders = [folder for folder in db.iterdir() if folder.is_dir() and _SEGMENT_DIR.match(folder.name)]
    connection = sqlite3.connect(meta, timeout=30)
    try:
        live = {row[0] for row in connection.execute("SELECT id FROM segments")}
    finally:
        connection.close()
    unused = [folder for folder in folders if folder.name not in live]
    for folder in unused:
        shutil.rmtree(folder, ignore_errors=True)
    return len(unused)


def vectors_compact() -> tuple[int, int]:
    """Give back the disk space of deleted vectors; only while no process has the files open
    (the vector server runs it before it starts). Chroma leaves the folders of deleted
    collections behind (chroma-core/chroma#5259, #5520): those no segment names are removed;
    and its database file is vacuumed when a fifth of it or more is free pages. Entries written
    before the index kept numbers only carry their app's name: it is removed (no query reads it)
    and the file vacuumed, so that neither those entries nor ones deleted earlier leave a name
    behind. Returns (folders removed, bytes given back)."""
    db = vectors_dir() / "db"
    meta = db / "chroma.sqlite3"
    if not meta.exists():
        return 0, 0
    before = sum(path.stat().st_size for path in db.rglob("*") if path.is_file())
    removed = _folders_unused_remove(db)
    connection = sqlite3.connect(meta)
    try:
        named = connection.execute("SELECT 1 FROM embedding_metadata WHERE key = 'app' LIMIT 1").fetchone()
        if named:
            with connection:
                connection.execute("DELETE FROM embedding_metadata WHERE key = 'app'")
                # Chroma's log keeps each entry as added until its vector segment is saved.
                connection.execute(
                    "UPDATE embeddings_queue SET metadata = json_remove(metadata, '$.app')"
                    " WHERE json_valid(metadata) AND json_type(metadata, '$.app') IS NOT NULL"
                )
        pages = connection.execute("PRAGMA page_count").fetchone()[0]
        free = connection.execute("PRAGMA freelist_count").fetchone()[0]
        if named or (pages and free >= pages / 5):
            connection.execute("VACUUM")
    finally:
        connection.close()
    after = sum(path.stat().st_size for path in db.rglob("*") if path.is_file())
    return removed, max(0, before - after)


class _ServerFailure(Exception):
    """An error raised in the embedded vector server; kind is its type's name there."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


class _ServerClient:
    """The part of Chroma's client API this module uses, answered by the embedded vector server
    (VectorServer) over its socket: a call is one round trip on a connection of a small pool
    (a search reads several days at once), each connection opened by proving the key."""

    POOL = 8

    def __init__(self, path: str, key: str):
        self.path, self._key = path, key.encode()
        self._idle: list = []

    def _take(self):
        while self._idle:
            try:
                connection = self._idle.pop()
            except IndexError:
                break
            if not connection.poll():  # readable while idle: the server closed it (it stopped)
                return connection
            connection.close()
        try:
            return Client(self.path, family="AF_UNIX", authkey=self._key)
        except AuthenticationError as exc:
            raise _key_refused(f"{self.path}: {exc}") from exc
        except (OSError, EOFError) as exc:
            raise VectorError(f"the vector server at {self.path} does not answer ({exc})") from exc

    def call(self, collection: str | None, method: str, **kwargs):
        connection = self._take()
        try:
            connection.send((collection, method, kwargs))
            ok, answer = connection.recv()
        except (OSError, EOFError) as exc:
            connection.close()
            raise VectorError(f"the vector server at {self.path} stopped answering ({exc})") from exc
        except BaseException:
            connection.close()
            raise
        if len(self._idle) < self.POOL:
            self._idle.append(connection)
        else:
            connection.close()
        if not ok:
            raise _ServerFailure(*answer)
        return answer

    def close(self) -> None:
        idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()

    def heartbeat(self) -> int:
        return self.call(None, "heartbeat")

    def list_collections(self) -> list[str]:
        return self.call(None, "list_collections")

    def get_collection(self, name: str, embedding_function=None) -> "_ServerCollection":
        return _ServerCollection(self, name, self.call(None, "get_collection", name=name))

    def get_or_create_collection(self, name: str, metadata: dict | None = None, embedding_function=None) -> "_ServerCollection":
        return _ServerCollection(self, name, self.call(None, "get_or_create_collection", name=name, metadata=metadata))

    def delete_collection(self, name: str) -> None:
        self.call(None, "delete_collection", name=name)

    def folders_release(self) -> int:
        return self.call(None, "folders_release")


class _ServerCollection:
    def __init__(self, client: _ServerClient, name: str, metadata: dict | None):
        self._client, self.name, self.metadata = client, name, metadata

    def add(self, **kwargs):
        return self._client.call(self.name, "add", **kwargs)

    def get(self, **kwargs):
        return self._client.call(self.name, "get", **kwargs)

    def delete(self, **kwargs):
        return self._client.call(self.name, "delete", **kwargs)

    def count(self) -> int:
        return self._client.call(self.name, "count")

    def query(self, **kwargs):
        return self._client.call(self.name, "query", **kwargs)


class VectorServer:
    """The embedded vector server (`manage.py vector_server`): Chroma's files open in this process,
    its calls answered to _ServerClient over a unix socket in the data dir's chroma folder (0700;
    the socket 0600: no other account can connect). A peer first proves it holds the key of
    server_key_file() (multiprocessing.connection's HMAC challenge, both ways), so nothing it sends
    is unpickled before that; one thread per connection. Chroma's own servers cost more: its Rust
    one checks no key (chroma-core/chroma#4965), its Python one (HTTP, uvicorn) doubled a search's
    vector reads."""

    COLLECTION_CALLS = frozenset({"add", "get", "delete", "count", "query"})

    def __init__(self):
        self.db = vectors_dir() / "db"
        self.socket = server_socket()
        self._key = vector_server_key_ensure().read_bytes()
        self._closing = False
        self._short_dir = None
        self.open()
        if len(os.fsencode(self.socket)) > SOCKET_PATH_MAX:
            # A data dir too deep for a socket's address: a folder of this account's alone (0700) in the temp dir.
            self._short_dir = Path(tempfile.mkdtemp(prefix="myrecall-vectors-"))
            self.socket = self._short_dir / "server.sock"
        self.socket.unlink(missing_ok=True)  # left by a server that was killed
        try:
            self._listener = Listener(str(self.socket), family="AF_UNIX", backlog=64)
        except OSError as exc:
            raise VectorError(f"the vector server cannot listen on {self.socket} ({exc})") from exc
        os.chmod(self.socket, 0o600)
        threading.Thread(target=self._accept, name="vector-server", daemon=True).start()

    def open(self) -> None:
        """Open the files; anew when they were removed under the server (an empty index, which
        `manage.py reindex --vectors` refills)."""
        import chromadb

        if getattr(self, "_open", None) is not None:
            _forget_local("")
        self.db.mkdir(mode=0o700, parents=True, exist_ok=True)
        try:
            chroma = chromadb.PersistentClient(path=str(self.db), settings=_settings())
        except Exception as exc:
            raise VectorError(f"the vector index in {self.db} cannot be opened ({exc})") from exc
        self._open = (chroma, {})  # the client and its collections by name, swapped whole

    def close(self) -> None:
        self._closing = True
        self._listener.close()  # removes the socket file
        if self._short_dir is not None:
            shutil.rmtree(self._short_dir, ignore_errors=True)

    def _accept(self) -> None:
        while not self._closing:
            try:
                connection = self._listener.accept()
            except OSError as exc:
                if not self._closing:
                    logger.warning("the vector server could not take a connection: %s", exc)
                    time.sleep(0.1)
                continue
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection) -> None:
        with connection:
            try:
                deliver_challenge(connection, self._key)
                answer_challenge(connection, self._key)
            except Exception:  # no key, a wrong one, or gone mid-way
                return
            while True:
                try:
                    collection, method, kwargs = connection.recv()
                except (OSError, EOFError):
                    return
                try:
                    answer = True, self._answer(collection, method, kwargs)
                except Exception as exc:
                    answer = False, (type(exc).__name__, str(exc))
                try:
                    connection.send(answer)
                except OSError:
                    return

    def _answer(self, collection: str | None, method: str, kwargs: dict):
        chroma, collections = self._open
        if collection is None:
            if method == "list_collections":
                return [found.name for found in chroma.list_collections()]
            if method in ("get_collection", "get_or_create_collection"):
                found = collections[kwargs["name"]] = getattr(chroma, method)(**kwargs, embedding_function=None)
                return found.metadata
            if method == "delete_collection":
                collections.pop(kwargs["name"], None)
                return chroma.delete_collection(**kwargs)
            if method == "heartbeat":
                return chroma.heartbeat()
            if method == "folders_release":
                return _folders_unused_remove(self.db)
        elif method in self.COLLECTION_CALLS:
            found = collections.get(collection)
            if found is None:
                found = collections[collection] = chroma.get_collection(collection, embedding_function=None)
            try:
                return getattr(found, method)(**kwargs)
            except Exception:
                collections.pop(collection, None)  # it may be gone
                raise
        raise ValueError(f"the vector server has no call {method!r}")


def vector_server_command() -> list[str] | None:
    """How `serve` runs the shared vector server; None when CHROMA_URL names one elsewhere."""
    if settings.CHROMA_URL:
        return None
    return [sys.executable, str(settings.BASE_DIR / "manage.py"), "vector_server"]


def vector_server_answering() -> bool:
    """Whether the shared vector server has announced itself and answers."""
    return _server_socket() is not None and vectors_health()[0]


def vectors_release() -> None:
    """Close local clients and locks (tests, a data dir that changed)."""
    with _lock:
        _forget_collections()
        for client in _clients.values():
            if isinstance(client, _ServerClient):
                client.close()
        _clients.clear()
        _forget_local("")
        for handle in _lock_files.values():
            handle.close()
        _lock_files.clear()
        _lost.clear()


def day_of(ts_ms: int) -> int:
    """The UTC day number (days since 1970-01-01) of a time in epoch milliseconds."""
    return ts_ms // DAY_MS


def day_bounds_ms(day: int) -> tuple[int, int]:
    return day * DAY_MS, (day + 1) * DAY_MS


def collection_name(embedder_key: str, day: int) -> str:
    return f"mr-{embedder_key}-{datetime.fromtimestamp(day * 86400, tz=dt_timezone.utc):%Y%m%d}"


def _day_from_name(name: str, embedder_key: str) -> int | None:
    prefix = f"mr-{embedder_key}-"
    if not name.startswith(prefix):
        return None
    try:
        moment = datetime.strptime(name[len(prefix) :], "%Y%m%d").replace(tzinfo=dt_timezone.utc)
    except ValueError:
        return None
    return int(moment.timestamp()) // 86400


def _call(what: str, fn, *, write: bool = False):
    """fn(client) under the lock, its failures as VectorError. A write that finds a collection it
    had cached gone (the index replaced under it: the vector server starts an empty one) is made
    once more with the collections looked up afresh: writes replace whole frames, so the second
    one writes what the first would have, where a retry later would keep the frames waiting."""
    with _lock:
        for attempt in (1, 2):
            try:
                return fn(_client(write=write))
            except VectorError:
                _forget_collections()
                raise
            except Exception as exc:
                _forget_collections()  # a collection may be gone, or the server restarted
                kind = exc.kind if isinstance(exc, _ServerFailure) else type(exc).__name__
                if not (write and attempt == 1 and kind == "NotFoundError"):
                    raise _failure(what, exc) from exc


def _unlocked(what: str, fn):
    """A call through the HTTP client, outside the lock, with _call's errors."""
    try:
        return fn()
    except Exception as exc:
        with _lock:
            _forget_collections()
        raise _failure(what, exc) from exc


# Collections and the list of their names, kept per client: each lookup is a round trip to the
# server, and a search reads one or two collections. Names are listed again after NAMES_TTL_S, so
# a day's collection that another process created is seen within that time.
NAMES_TTL_S = 5.0
_collections: dict[tuple[int, str], object] = {}
_names: dict[int, tuple[float, set[str]]] = {}


def _names_of(client, expect: str | None = None, *, fresh: bool = False) -> set[str]:
    """The collections' names; listed again when older than NAMES_TTL_S, or than a second when
    the expected one (today's, on a search) is not among them yet, or when fresh."""
    fetched = _names.get(id(client))
    age = time.monotonic() - fetched[0] if fetched else None
    if fresh or age is None or age > NAMES_TTL_S or (expect is not None and expect not in fetched[1] and age > 1.0):
        names = {item if isinstance(item, str) else item.name for item in client.list_collections()}
        fetched = _names[id(client)] = (time.monotonic(), names)
    return fetched[1]


def _collection(client, embedder_key: str, day: int, *, create: bool, model: str = "", dimensions: int = 0):
    name = collection_name(embedder_key, day)
    key = (id(client), name)
    if key in _collections:
        return _collections[key]
    if create:
        # The model and the length of its vectors are recorded with the collection (day_write checks them).
        metadata = {"hnsw:space": "cosine", "model": model or "unknown", "dimensions": dimensions}
        collection = client.get_or_create_collection(name, metadata=metadata, embedding_function=None)
        _names_of(client).add(name)
    elif name in _names_of(client):
        collection = client.get_collection(name, embedding_function=None)
    else:
        return None
    _collections[key] = collection
    return collection


def _forget_collections() -> None:
    _collections.clear()
    _names.clear()


@dataclass(frozen=True)
class FrameEntry:
    frame_id: int
    ts_ms: int
    embeddings: list[list[float]]  # one per chunk of its text; none when it has no text


def day_write(*, embedder_key: str, day: int, entries: list[FrameEntry], model: str = "") -> None:
    """Replace the entries of these frames (all of one UTC day) with their chunk embeddings.
    Vectors of two models never share a collection: its name holds the embedder key, and its
    metadata the model and vector length it was made with, which a write must match (an
    endpoint can change the model behind a name)."""
    lengths = {len(embedding) for entry in entries for embedding in entry.embeddings}
    if len(lengths) > 1:
        raise VectorError(f"vectors of {sorted(lengths)} dimensions in one write")

    def write(client):
        dimensions = next(iter(lengths), 0)
        collection = _collection(client, embedder_key, day, create=bool(lengths), model=model, dimensions=dimensions)
        if collection is None:
            return
        recorded = (collection.metadata or {}).get("dimensions")
        if dimensions and recorded and recorded != dimensions:
            raise VectorError(
                f"the vector collection {collection.name} holds {recorded}-d vectors of {collection.metadata.get('model')}, "
                f"and {model or 'the embedder'} now answers {dimensions}-d ones: run `manage.py reindex --vectors`"
            )
        collection.delete(where={"frame_id": {"$in": [entry.frame_id for entry in entries]}})
        ids, embeddings, metadatas = [], [], []
        for entry in entries:
            for index, embedding in enumerate(entry.embeddings):
                ids.append(f"{entry.frame_id}:{index}")
                embeddings.append(embedding)
                metadatas.append({"frame_id": entry.frame_id})
        if ids:
            collection.add(ids=ids, embeddings=embeddings, metadatas=metadatas)

    _call("write", write, write=True)


def frames_remove(*, day: int, frame_ids: list[int]) -> int:
    """Remove these frames' entries from the day's collections of every embedder (vectors of an
    earlier model too); a collection left empty is dropped, giving its files back. Returns how
    many entries went."""
    suffix = collection_name("", day).removeprefix("mr--")

    def remove(client):
        removed = 0
        # Listed afresh: another process may have made the day's collection a moment ago.
        names = {item if isinstance(item, str) else item.name for item in client.list_collections()}
        _names[id(client)] = (time.monotonic(), names)
        for name in sorted(names):
            if not (name.startswith("mr-") and name.endswith(f"-{suffix}")) or not frame_ids:
                continue
            collection = client.get_collection(name, embedding_function=None)
            for at in range(0, len(frame_ids), 1000):
                ids = collection.get(where={"frame_id": {"$in": frame_ids[at : at + 1000]}}, include=[])["ids"]
                if ids:
                    collection.delete(ids=ids)
                    removed += len(ids)
            if removed and collection.count() == 0:
                client.delete_collection(name)
                names.discard(name)
                _collections.pop((id(client), name), None)
        return removed

    return _call("delete", remove, write=True)


def embedders_drop(*, keep: str) -> int:
    """Drop every collection of another embedder than `keep` (the vectors of a model no longer
    configured, once every frame has vectors of the one that is), and remove their folders, which
    Chroma leaves behind (a server of CHROMA_URL keeps its own files); returns how many went.
    What they held in Chroma's database file is vacuumed away when the vector server next starts
    (vectors_compact)."""

    def drop(client):
        names = {item if isinstance(item, str) else item.name for item in client.list_collections()}
        gone = sorted(name for name in names if name.startswith("mr-") and not name.startswith(f"mr-{keep}-"))
        for name in gone:
            client.delete_collection(name)
            _collections.pop((id(client), name), None)
        _names[id(client)] = (time.monotonic(), names - set(gone))
        if gone and isinstance(client, _ServerClient):
            client.folders_release()
        elif gone and id(client) not in _remote_clients:
            _folders_unused_remove(vectors_dir() / "db")
        return len(gone)

    return _call("drop the collections of another model", drop, write=True)


def days_present(*, embedder_key: str, expect_day: int | None = None, fresh: bool = False) -> list[int]:
    """The days that have a collection; with expect_day (the last day a search reads), listed
    afresh when that day is missing, so a new day's first frames are found within a second;
    fresh: listed afresh whatever the age of the last listing."""

    def days(client):
        found = []
        expect = collection_name(embedder_key, expect_day) if expect_day is not None else None
        for name in _names_of(client, expect, fresh=fresh):
            day = _day_from_name(name, embedder_key)
            if day is not None:
                found.append(day)
        return sorted(found)

    return _call("list its collections", days)


def day_count(*, embedder_key: str, day: int) -> int:
    def count(client):
        collection = _collection(client, embedder_key, day, create=False)
        return collection.count() if collection is not None else 0

    return _call("count", count)


def vectors_count(*, embedder_key: str) -> int:
    return sum(day_count(embedder_key=embedder_key, day=day) for day in days_present(embedder_key=embedder_key))


@dataclass(frozen=True)
class DayHits:
    entries: list[tuple[int, int, float]]  # every chunk read: (frame_id, chunk, distance), nearest first
    farthest: float  # distance of the farthest chunk read (2.0 when none)
    exhausted: bool  # fewer chunks came back than asked: there are no more to read

    @property
    def hits(self) -> list[VectorHit]:
        """One per frame (its nearest chunk), nearest first."""
        best: dict[int, float] = {}
        for frame_id, _, distance in self.entries:
            best.setdefault(frame_id, distance)
        return [VectorHit(frame_id=frame_id, distance=distance) for frame_id, distance in best.items()]


def day_query(*, embedder_key: str, day: int, embedding: list[float], n: int, frame_ids: list[int] | None = None) -> DayHits:
    """The n nearest chunks of one day's collection (of these frames alone, when given), with
    their frame and chunk number (DayHits.hits: one per frame). Reads ids and distances only: the frame is in the id,
    and fetching each entry's metadata cost 6x the search itself here (the 1,400 nearest of
    33k entries: 36 ms with metadata, 6 ms without)."""

    def resolve(client):
        return _collection(client, embedder_key, day, create=False), client

    collection, client = _call("search", resolve)
    if collection is None:
        return DayHits(entries=[], farthest=2.0, exhausted=True)
    where = None if frame_ids is None else {"frame_id": {"$in": frame_ids}}

    def query(_client=None):
        return collection.query(query_embeddings=[embedding], n_results=n, where=where, include=["distances"])

    if id(client) in _remote_clients:
        # A server answers several reads at once (a range of several days is read in parallel):
        # only the client and collection lookups above hold the lock.
        result = _unlocked("search", query)
    else:
        result = _call("search", query)
    ids, distances = result["ids"][0], result["distances"][0]
    entries = []
    for entry_id, distance in zip(ids, distances):
        frame_part, _, chunk_part = entry_id.partition(":")
        entries.append((int(frame_part), int(chunk_part or 0), float(distance)))
    return DayHits(entries=entries, farthest=float(distances[-1]) if distances else 2.0, exhausted=len(ids) < n)


def vectors_health() -> tuple[bool, str]:
    """Whether the index answers, and how it is, in words; a refused key is told apart from a
    server that is down (CHROMA_URL's server is asked who the key is: a heartbeat needs none)."""
    url = settings.CHROMA_URL
    if url:
        token = settings.CHROMA_TOKEN
        request = urllib.request.Request(
            f"{url.rstrip('/')}/api/v2/auth/identity", headers={"Authorization": f"Bearer {token}"} if token else {}
        )
        try:
            with urllib.request.urlopen(request, timeout=2) as response:
                response.read()
        except urllib.error.HTTPError as exc:
            if exc.code in (401, 403):
                return False, str(_key_refused(f"{url} answered {exc.code} {exc.reason}"))
            return False, f"the vector server at {url} answered {exc.code} {exc.reason}"
        except OSError as exc:
            return False, f"the vector server at {url} does not answer ({exc})"
        return True, "ok"
    try:
        _call("open", lambda client: client.heartbeat())
    except VectorError as exc:
        return False, str(exc)
    return True, "ok"


COPY_BATCH = 2000


def vectors_copy_from(source: Path, *, progress=None) -> int:
    """Copy the vector index kept in another data dir's files (`source`, its `chroma` folder: an
    embedded MyRecall, stopped) into the index this process writes to (CHROMA_URL's server, or
    this data dir's), collection by collection, with the same names, metadata and entries. Entries
    already there are written again: a copy that stopped can be run again. Returns how
    many entries were copied; raises VectorError when either index cannot be read or written."""
    path = Path(source) / "chroma" / "db"
    if not path.exists():
        return 0
    import chromadb

    _lock_take(path.parent)  # no MyRecall may have these files open meanwhile
    try:
        old = chromadb.PersistentClient(path=str(path), settings=_settings())
    except Exception as exc:
        raise VectorError(f"the vector index in {path} cannot be opened ({exc})") from exc
    names = sorted(item if isinstance(item, str) else item.name for item in old.list_collections())
    collections = [old.get_collection(name, embedding_function=None) for name in names if name.startswith("mr-")]
    total = sum(collection.count() for collection in collections)
    bar = progress("copy the vector index", total) if progress and total else None
    copied = 0
    try:
        for collection in collections:
            metadata = dict(collection.metadata or {})

            def write(client, name=collection.name, metadata=metadata):
                return client.get_or_create_collection(name, metadata=metadata, embedding_function=None)

            target = _call("copy", write, write=True)
            at = 0
            while True:
                got = collection.get(include=["embeddings", "metadatas"], limit=COPY_BATCH, offset=at)
                if not got["ids"]:
                    break
                metadatas = [{"frame_id": int(m["frame_id"])} for m in got["metadatas"]]  # the one key read
                def put(client, got=got, metadatas=metadatas):
                    target.delete(ids=got["ids"])  # written again: add refuses ids it has
                    target.add(ids=got["ids"], embeddings=got["embeddings"], metadatas=metadatas)

                _call("copy", put, write=True)
                at += len(got["ids"])
                copied += len(got["ids"])
                if bar is not None:
                    bar.update(len(got["ids"]))
        _forget_collections()
    finally:
        if bar is not None:
            bar.close()
        handle = _lock_files.pop(str(path.parent), None)
        if handle is not None:
            handle.close()
    return copied
