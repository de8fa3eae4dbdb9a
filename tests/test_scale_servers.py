"""The scale-out target's servers (tests/scale.py): real PostgreSQL 15, Redis and Chroma behind a
token proxy, each answering its own client at the address handed over in env; PostgreSQL lets the
app's role create a database and pg_trgm in it, as the suite will; Chroma answers only with the
run's token and refuses as Chroma's token auth does; stop() closes every port and removes every
folder, PostgreSQL's user's files too; a server that cannot start is said with its log's tail and
leaves nothing behind."""

import os
import pwd
import socket
from pathlib import Path
from urllib.parse import urlparse

import chromadb
import psycopg
import pytest
import redis
import requests
from chromadb.config import Settings
from chromadb.errors import ChromaAuthError

from tests import scale

REFUSAL = {"error": "AuthError", "message": "Forbidden"}


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    running = scale.start(tmp_path_factory.mktemp("scale"))
    yield running
    running.stop()


@pytest.fixture
def base(tmp_path):
    """A folder for start() of its own (the data dir fixture takes tmp_path/data)."""
    folder = tmp_path / "scale"
    folder.mkdir()
    return folder


@pytest.fixture
def taken_port():
    """A loopback port someone else listens on."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        yield taken.getsockname()[1]


def chroma_client(url: str, token: str):
    parts = urlparse(url)
    auth = {"chroma_client_auth_provider": "chromadb.auth.token_authn.TokenAuthClientProvider", "chroma_client_auth_credentials": token}
    return chromadb.HttpClient(host=parts.hostname, port=parts.port, settings=Settings(anonymized_telemetry=False, **auth))


def listens(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
        return True
    except ConnectionRefusedError:
        return False


def processes_naming(folders: list[Path]) -> list[str]:
    """The command lines of running processes that name one of the folders."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if any(str(folder) in cmdline for folder in folders):
            found.append(cmdline)
    return found


def test_postgres_lets_the_app_role_create_a_database_and_pg_trgm_in_it(servers):
    url = servers.env["DATABASE_URL"]
    assert url.startswith("postgres://myrecall@127.0.0.1:")
    with psycopg.connect(url, autocommit=True) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)
        assert conn.execute("SELECT current_user, current_database(), rolsuper, rolcreatedb FROM pg_roles WHERE rolname = current_user").fetchone() == (
            "myrecall", "myrecall", False, True,
        )
        assert conn.execute("SELECT pg_encoding_to_char(encoding), datcollate FROM pg_database WHERE datname = 'myrecall'").fetchone() == ("UTF8", "C.UTF-8")
        conn.execute("DROP DATABASE IF EXISTS test_scale_probe")
        conn.execute("CREATE DATABASE test_scale_probe")  # as pytest-django creates test_myrecall
    with psycopg.connect(url.rsplit("/", 1)[0] + "/test_scale_probe", autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        assert conn.execute("SELECT 'Zahnarztpraxis' % 'Zahnarztpraxen', 'Zahnarztpraxis' % 'Rechnung'").fetchone() == (True, False)
    # As root, PostgreSQL runs as Debian's postgres user (it refuses root); else as whoever started it.
    postmaster = next(server for server in servers.servers if server.name == "PostgreSQL")
    owner = pwd.getpwuid(Path(f"/proc/{postmaster.proc.pid}").stat().st_uid).pw_name
    assert owner == ("postgres" if os.geteuid() == 0 else pwd.getpwuid(os.geteuid()).pw_name)


def test_redis_answers_and_keeps_nothing_on_disk(servers):
    client = redis.Redis.from_url(servers.env["REDIS_URL"])
    try:
        assert client.ping() is True
        client.set("scale-probe", "ok")
        assert client.get("scale-probe") == b"ok"
        assert client.config_get("save") == {"save": ""} and client.config_get("appendonly") == {"appendonly": "no"}
    finally:
        client.close()


def test_chroma_answers_through_the_proxy_with_the_runs_token_only(servers):
    url, token = servers.env["CHROMA_URL"], servers.env["CHROMA_TOKEN"]
    assert len(token) >= 32
    collection = chroma_client(url, token).get_or_create_collection("scale-probe")
    collection.upsert(ids=["invoice", "holiday"], embeddings=[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    assert collection.query(query_embeddings=[[0.9, 0.2, 0.0]], n_results=1)["ids"] == [["invoice"]]
    assert requests.get(f"{url}/api/v2/auth/identity", headers={"Authorization": f"Bearer {token}"}, timeout=10).status_code == 200

    for headers in ({}, {"Authorization": "Bearer not-the-token"}, {"Authorization": token}):
        for method, path in (("GET", "/api/v2/auth/identity"), ("GET", "/api/v2/tenants/default_tenant/databases/default_database/collections")):
            answer = requests.request(method, url + path, headers=headers, timeout=10)
            assert (answer.status_code, answer.json()) == (403, REFUSAL), (headers, path)
    with pytest.raises(ChromaAuthError):
        chroma_client(url, "not-the-token").list_collections()
    # What Chroma's token auth left open stays open: a load balancer's health check needs no key.
    assert requests.get(f"{url}/api/v2/heartbeat", timeout=10).json()["nanosecond heartbeat"] > 0


def test_stop_closes_every_port_and_removes_every_folder(servers, base):
    fresh = scale.start(base)
    ports, folders = fresh.ports, list(fresh.dirs)
    assert set(ports) == {"PostgreSQL", "Redis", "Chroma", "Chroma token proxy"} and all(listens(port) for port in ports.values())
    assert fresh.env["CHROMA_TOKEN"] != servers.env["CHROMA_TOKEN"]  # a token of its own for each run
    assert processes_naming(folders)
    if os.geteuid() == 0:
        assert any(path.owner() == "postgres" for folder in folders for path in folder.rglob("*"))

    fresh.stop()
    assert not [port for port in ports.values() if listens(port)]
    assert not [folder for folder in folders if folder.exists()] and list(base.iterdir()) == []
    assert processes_naming(folders) == []
    assert all(server.proc.poll() is not None for server in fresh.servers)


def test_a_server_that_cannot_start_is_said_with_its_log_and_leaves_nothing_behind(base, taken_port, monkeypatch):
    monkeypatch.setattr(scale, "free_port", lambda: taken_port)  # every server is offered a port already taken
    before = set(Path("/tmp").glob("myrecall-scale-*"))
    with pytest.raises(scale.ScaleError) as failed:
        scale.start(base)
    message = str(failed.value)
    assert message.startswith("PostgreSQL exited with code 1 before it accepted connections; the end of its log:")
    assert "Address already in use" in message
    assert list(base.iterdir()) == [] and set(Path("/tmp").glob("myrecall-scale-*")) <= before
    assert processes_naming([base]) == []


def test_a_port_taken_before_the_server_binds_it_is_traded_for_another(base, taken_port, monkeypatch):
    offers, pick = iter([taken_port]), scale.free_port
    monkeypatch.setattr(scale, "free_port", lambda: next(offers, None) or pick())  # the first server (Chroma) loses its port
    with scale.start(base) as running:
        chroma = next(server for server in running.servers if server.name == "Chroma")
        assert chroma.attempts == 2 and chroma.port != taken_port
        assert f"127.0.0.1:{taken_port} is not available" in chroma.log.read_text()
        assert chroma_client(running.env["CHROMA_URL"], running.env["CHROMA_TOKEN"]).heartbeat() > 0
    assert list(base.iterdir()) == []
