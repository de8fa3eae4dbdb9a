"""PostgreSQL for the benchmarks: a server of their own, set up as a user on this kind of machine
would set it up, and what the benchmarks need to read and size a database on either engine.

    with bench_postgres() as server:   # initdb in a temp dir, tuned settings, role and database
        env = {"DATABASE_URL": server.url}

The server runs PostgreSQL 15 (Debian's package) on a free loopback port with BENCH_SETTINGS
(printed by describe()): the memory a user with 24 GB and an SSD would give it, durability left
on (fsync, synchronous_commit, full_page_writes at their defaults, unlike the test target's
tests.scale, which turns them off). As root it runs as the `postgres` OS user, as tests.scale does.
"""

import os
import pwd
import shutil
import signal
import socket
import sqlite3
import subprocess
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import psycopg

PG_BIN = Path("/usr/lib/postgresql/15/bin")
OS_USER = "postgres"  # whom the server runs as when we are root
SUPERUSER = "postgres"
ROLE = DATABASE = "bench"
START_TIMEOUT_S = 60

# What a user would set on a 24 GB machine with an SSD that runs MyRecall's database beside the app:
# shared_buffers a small share of memory (the OS cache holds the rest, which effective_cache_size
# tells the planner), more memory for building GIN indexes and VACUUM, an SSD's random reads, room
# for a bulk load's WAL between checkpoints. Durability and JIT stay at PostgreSQL's defaults.
BENCH_SETTINGS = {
    "shared_buffers": "2GB",
    "effective_cache_size": "16GB",
    "maintenance_work_mem": "1GB",
    "work_mem": "16MB",
    "random_page_cost": "1.1",
    "effective_io_concurrency": "200",
    "max_wal_size": "8GB",
}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _as_server(argv: list[str]) -> list[str]:
    """argv as the server's OS user when we are root; killed if this process dies."""
    who = ["--reuid", OS_USER, "--regid", OS_USER, "--init-groups"] if os.geteuid() == 0 else []
    return ["setpriv", *who, "--pdeathsig=INT", "--", *argv]


class BenchPostgres:
    """A running server: url (the bench database, its own role), data_dir, settings; stop()."""

    def __init__(self, settings: dict[str, str], base_dir: Path | None = None):
        self.settings = dict(settings)
        self.home = Path(tempfile.mkdtemp(prefix="myrecall-bench-pg-", dir=base_dir))
        self.data_dir = self.home / "data"
        self.log = self.home / "postgres.log"
        self.proc: subprocess.Popen | None = None
        self.port = 0
        try:
            self._start()
        except BaseException:
            self.stop()
            raise

    @property
    def url(self) -> str:
        return f"postgres://{ROLE}@127.0.0.1:{self.port}/{DATABASE}"

    def _start(self) -> None:
        if not (PG_BIN / "initdb").exists():
            raise RuntimeError(f"{PG_BIN / 'initdb'} is missing: install postgresql (bash scripts/setup.sh --test)")
        if os.geteuid() == 0:
            pwd.getpwnam(OS_USER)  # KeyError: Debian's package makes this user
            shutil.chown(self.home, OS_USER, OS_USER)
        with open(self.log, "ab") as log:
            subprocess.run(
                _as_server([str(PG_BIN / "initdb"), "-D", str(self.data_dir), "-U", SUPERUSER, "--auth=trust",
                            "--locale=C.UTF-8", "--encoding=UTF8", "--no-instructions"]),
                cwd=self.home, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, check=True,
            )
        (self.data_dir / "pg_hba.conf").write_text("host all all 127.0.0.1/32 trust\n")
        self.port = _free_port()
        options = {
            "port": str(self.port), "listen_addresses": "127.0.0.1", "unix_socket_directories": str(self.home),
            "max_connections": "200", **self.settings,
        }
        argv = [str(PG_BIN / "postgres"), "-D", str(self.data_dir)]
        for name, value in options.items():
            argv += ["-c", f"{name}={value}"]
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                _as_server(argv), cwd=self.home, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"postgres exited with {self.proc.returncode}:\n{self.log.read_text()[-3000:]}")
            try:
                with psycopg.connect(f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/postgres", autocommit=True,
                                     connect_timeout=2) as conn:
                    conn.execute(f"CREATE ROLE {ROLE} LOGIN CREATEDB")
                    conn.execute(f"CREATE DATABASE {DATABASE} OWNER {ROLE}")
                    # pg_prewarm is not a trusted extension: the superuser makes it, the bench role calls it.
                    with psycopg.connect(f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{DATABASE}", autocommit=True) as bench:
                        bench.execute("CREATE SCHEMA IF NOT EXISTS tools")
                        bench.execute("CREATE EXTENSION IF NOT EXISTS pg_prewarm SCHEMA tools")
                        bench.execute(f"GRANT USAGE ON SCHEMA tools TO {ROLE}")
                return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"postgres did not answer in {START_TIMEOUT_S} s:\n{self.log.read_text()[-3000:]}")
                time.sleep(0.2)

    def describe(self) -> str:
        version = subprocess.run([str(PG_BIN / "postgres"), "--version"], capture_output=True, text=True).stdout.strip()
        settings = ", ".join(f"{k}={v}" for k, v in self.settings.items())
        return (f"{version} on 127.0.0.1:{self.port}, data in {self.data_dir}; set: {settings}; "
                "fsync, synchronous_commit, full_page_writes and jit at their defaults (on)")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)  # fast shutdown
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.home, ignore_errors=True)


def settings_parse(pairs: list[str]) -> dict[str, str]:
    """BENCH_SETTINGS with name=value overrides."""
    settings = dict(BENCH_SETTINGS)
    for pair in pairs:
        name, _, value = pair.partition("=")
        if not value:
            raise SystemExit(f"--pg-setting wants name=value, got {pair!r}")
        settings[name.strip()] = value.strip()
    return settings


@contextmanager
def bench_postgres(settings: dict[str, str] | None = None):
    server = BenchPostgres(BENCH_SETTINGS if settings is None else settings)
    try:
        yield server
    finally:
        server.stop()


# In a process whose Django runs on PostgreSQL -----------------------------------------------------


def is_postgres(url: str | None = None) -> bool:
    """Whether DATABASE_URL (or the url given) names PostgreSQL."""
    url = os.environ.get("DATABASE_URL", "") if url is None else url
    return urlsplit(url).scheme in ("postgres", "postgresql", "pgsql")


def schema_reset() -> None:
    """An empty database: schema public dropped and made again (the app's migrations fill it)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("DROP SCHEMA public CASCADE")
        cursor.execute("CREATE SCHEMA public")


def sequences_reset(tables: list[str]) -> None:
    """After rows were inserted with their ids: each table's id sequence continues after its largest id."""
    from django.db import connection

    with connection.cursor() as cursor:
        for table in tables:
            cursor.execute(
                f"SELECT setval(pg_get_serial_sequence(%s, 'id'), coalesce((SELECT max(id) FROM {table}), 0) + 1, false)",
                [table],
            )


def vacuum_analyze() -> float:
    """VACUUM ANALYZE of the whole database (visibility map for index-only scans, statistics for
    the planner), as autovacuum would do some time after a bulk load; returns the seconds."""
    from django.db import connection

    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    return time.perf_counter() - started


def relation_bytes() -> dict[str, int]:
    """Bytes of every table of schema public, its indexes and TOAST included (pg_total_relation_size);
    a partitioned table's partitions are counted under their own names."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = 'public' AND c.relkind IN ('r', 'm')"
        )
        return dict(cursor.fetchall())


def index_bytes(table_prefix: str) -> tuple[int, int]:
    """(heap + TOAST bytes, index bytes) of the tables whose names start with table_prefix."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(sum(pg_table_size(c.oid)), 0), coalesce(sum(pg_indexes_size(c.oid)), 0) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r' "
            "AND c.relname LIKE %s",
            [table_prefix.replace("_", "\\_") + "%"],
        )
        heap, indexes = cursor.fetchone()
        return int(heap), int(indexes)


def database_bytes() -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_database_size(current_database())")
        return cursor.fetchone()[0]


def prewarm() -> float:
    """Read every table and index of schema public into shared buffers (pg_prewarm; what does not fit
    stays in the OS cache), their TOAST tables and indexes too (schema pg_toast: the keyword index's
    tsvectors live there), as the SQLite bench reads its file once; returns the seconds."""
    from django.db import connection

    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute(
            "WITH own AS (SELECT c.oid, c.relkind, c.reltoastrelid FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'), "
            "toast AS (SELECT reltoastrelid AS oid FROM own WHERE reltoastrelid <> 0) "
            "SELECT tools.pg_prewarm(oid) FROM ("
            "SELECT oid FROM own WHERE relkind IN ('r', 'i', 'm') UNION ALL SELECT oid FROM toast "
            "UNION ALL SELECT i.indexrelid FROM pg_index i JOIN toast ON toast.oid = i.indrelid) relations"
        )
        cursor.fetchall()
    return time.perf_counter() - started


# A read-only look at a running server's database, whichever engine ------------------------------


class ReadOnlyDb:
    """Queries written with ? placeholders, on SQLite (the data dir's file, read-only) or on
    PostgreSQL (DATABASE_URL of the server's environment); execute() returns a cursor to fetch from."""

    def __init__(self, *, data_dir: Path, env: dict[str, str]):
        url = env.get("DATABASE_URL", "")
        self.postgres = is_postgres(url)
        if self.postgres:
            self.conn = psycopg.connect(url, autocommit=True, connect_timeout=30)
        else:
            self.conn = sqlite3.connect(f"file:{Path(data_dir) / 'myrecall.sqlite3'}?mode=ro", uri=True, timeout=30)

    def execute(self, sql: str, params=()):
        if self.postgres:
            return self.conn.execute(sql.replace("%", "%%").replace("?", "%s"), list(params))
        return self.conn.execute(sql, params)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> "ReadOnlyDb":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def table_bytes_pg(db: ReadOnlyDb) -> dict[str, int]:
    """Bytes per table of a running server's PostgreSQL database (indexes and TOAST included)."""
    rows = db.execute(
        "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = 'public' AND c.relkind = 'r'"
    ).fetchall()
    return dict(rows)
