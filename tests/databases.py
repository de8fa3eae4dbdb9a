"""The database of a MyRecall process that a test starts on a data dir of its own (`serve`,
`frames_import --watch`, a worker): on the embedded SQLite default, the file in that data dir; on
PostgreSQL (DATABASE_URL names one), a database of its own on the same server, created empty for
that data dir (the process migrates it, as it makes the SQLite file) and dropped when the test run
ends. A test reads what the process stored through rows()."""

import atexit
import hashlib
import os
import sqlite3
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import sql

DB_NAME = "myrecall.sqlite3"
_created: list[str] = []


class NotReady(Exception):
    """The process has not made (or migrated) its database yet."""


def _server_url() -> str:
    """DATABASE_URL when it names PostgreSQL, else ''."""
    url = os.environ.get("DATABASE_URL", "")
    return url if urlsplit(url).scheme in ("postgres", "postgresql", "pgsql") else ""


def _name(data_dir: Path) -> str:
    base = urlsplit(_server_url()).path.lstrip("/")
    digest = hashlib.sha1(str(Path(data_dir).resolve()).encode()).hexdigest()[:12]
    return f"{base}_dir_{digest}"[:63]


def _url(name: str) -> str:
    parts = urlsplit(_server_url())
    return urlunsplit(parts._replace(path="/" + name))


def _admin():
    return psycopg.connect(_server_url(), autocommit=True, connect_timeout=10)


def _drop_all() -> None:
    if not _created:
        return
    with _admin() as conn:
        for name in _created:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
    _created.clear()


def env_for(data_dir: Path) -> dict[str, str]:
    """What to add to the environment of a process run on data_dir: nothing on SQLite (its database
    is in the data dir) but, with a shared Chroma server, CHROMA_DATABASE naming the data dir's own
    database there; on PostgreSQL, also DATABASE_URL naming the data dir's own database, made now
    if it is not there yet (the same data dir again: the same database, as its file would be)."""
    # With a shared Chroma server (CHROMA_URL), the data dir's own database there too (made by its first write).
    chroma = {"CHROMA_DATABASE": "dir-" + hashlib.sha1(str(Path(data_dir).resolve()).encode()).hexdigest()[:12]}
    if not os.environ.get("CHROMA_URL"):
        chroma = {}
    if not _server_url():
        return chroma
    name = _name(data_dir)
    if name not in _created:
        with _admin() as conn:
            if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is None:
                conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        if not _created:
            atexit.register(_drop_all)
        _created.append(name)
    return {"DATABASE_URL": _url(name), **chroma}


def _database_url(data_dir: Path, given: str | None) -> str:
    """The PostgreSQL database of a process run on data_dir: the DATABASE_URL it was given, else its
    own (env_for); '' on SQLite."""
    if given and urlsplit(given).scheme in ("postgres", "postgresql", "pgsql"):
        return given
    return _url(_name(data_dir)) if _server_url() else ""


def rows(data_dir: Path, query: str, params: tuple = (), *, database_url: str | None = None) -> list[tuple]:
    """The rows of a read-only query (placeholders %s) on the database of the process run on
    data_dir (with database_url, the DATABASE_URL it was given, if any); NotReady before that
    process has made and migrated it."""
    url = _database_url(data_dir, database_url)
    if not url:
        try:
            with sqlite3.connect(f"file:{Path(data_dir) / DB_NAME}?mode=ro", uri=True, timeout=30) as db:
                return db.execute(query.replace("%s", "?"), params).fetchall()
        except sqlite3.OperationalError as exc:  # no file yet, or no tables yet
            raise NotReady(str(exc)) from exc
    try:
        with psycopg.connect(url, connect_timeout=10) as conn:
            return conn.execute(query, params).fetchall()
    except (psycopg.errors.UndefinedTable, psycopg.OperationalError) as exc:
        raise NotReady(str(exc)) from exc


def rows_holding(data_dir: Path, words, *, database_url: str | None = None) -> dict[str, list[str]]:
    """On PostgreSQL, each word found (in any letter case) in a row of the database of the process
    run on data_dir (as rows() finds it), with the tables that hold it. On SQLite {}: the rows are
    in the data dir's file, which tests.conftest.files_holding reads, freed pages and log included;
    PostgreSQL's files are the server's, so there the rows a query sees are read."""
    url = _database_url(data_dir, database_url)
    if not url:
        return {}
    found: dict[str, list[str]] = {}
    with psycopg.connect(url, connect_timeout=10) as conn:
        tables = [
            name for (name,) in conn.execute(
                "SELECT c.relname FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace"
                " AND c.relkind = 'r' ORDER BY 1"
            )
        ]
        for table in tables:
            text = "\n".join(row for (row,) in conn.execute(sql.SQL("SELECT lower(t::text) FROM {} t").format(sql.Identifier(table))))
            for word in words:
                if word.lower() in text:
                    found.setdefault(word, []).append(table)
    return found
