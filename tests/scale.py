"""Real PostgreSQL 15, Redis and a Chroma server (behind a token-checking proxy) on free loopback
ports, in a temp dir of their own, for the suite's scale-out target.

    python -m tests.scale run -- CMD ARGS...

starts the three, says where each listens, runs CMD with DATABASE_URL, REDIS_URL, CHROMA_URL and
CHROMA_TOKEN added to its environment, stops them and removes their files (also on Ctrl-C or when
one fails to start), and exits with CMD's exit code. Tests use start(base_dir) -> Servers.

PostgreSQL refuses to run as root: as root (CI), initdb and the server run as the `postgres` OS user
that Debian's package creates. Each server gets a parent-death signal (setpriv --pdeathsig), so a
killed runner takes them down too; only a SIGKILLed one leaves its temp dir behind."""

import os
import pwd
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import psycopg
import redis

from tests.chroma_proxy import ChromaTokenProxy

PG_BIN = Path("/usr/lib/postgresql/15/bin")
PG_OS_USER = "postgres"  # whom PostgreSQL runs as when we are root
PG_SUPERUSER = "postgres"  # the bootstrap role initdb makes
DATABASE = ROLE = "myrecall"
START_TIMEOUT_S = 60
STOP_TIMEOUT_S = 30
PORT_ATTEMPTS = 3  # a free port picked may be taken by someone else before the server binds it
SOCKET_PATH_MAX = 107  # sun_path holds 108 bytes with the final NUL
ANSI = re.compile(r"\x1b\[[0-9;]*m")
# What PostgreSQL and Redis ("Address already in use") and Chroma ("Address 127.0.0.1:P is not available") say of a taken port.
PORT_TAKEN = re.compile(r"address already in use|address \S+ is not available", re.IGNORECASE)


class ScaleError(RuntimeError):
    """A server could not be set up, started or stopped; the message says which and why."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _as_server(argv: list[str], *, account: str | None, death_signal: str) -> list[str]:
    """argv run as account (None: as we are), killed with death_signal if this process dies."""
    who = ["--reuid", account, "--regid", account, "--init-groups"] if account else []
    return ["setpriv", *who, f"--pdeathsig={death_signal}", "--", *argv]


class _Server:
    """One server process: spawned on a free port (again on another if that one was taken),
    logging to a file of ours, stopped by its own signal."""

    def __init__(self, name: str, argv_for, *, log: Path, cwd: Path, stop_signal: signal.Signals, account: str | None = None, env=None):
        self.name, self.log, self.cwd, self.stop_signal, self.account = name, log, cwd, stop_signal, account
        self._argv_for, self._env = argv_for, env
        self.proc: subprocess.Popen | None = None
        self.port = 0
        self.attempts = 0
        self._log_from = 0

    def spawn(self) -> None:
        self.port, self.attempts = free_port(), self.attempts + 1
        argv = _as_server(self._argv_for(self.port), account=self.account, death_signal=self.stop_signal.name.removeprefix("SIG"))
        with open(self.log, "ab") as log:
            self._log_from = log.tell()
            # A session of its own: a Ctrl-C at the terminal reaches the runner, which stops the servers in order.
            self.proc = subprocess.Popen(
                argv, cwd=self.cwd, env=self._env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )

    def tail(self, lines: int = 25) -> str:
        try:
            text = self.log.read_text(errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(ANSI.sub("", line) for line in text.splitlines()[-lines:]) or "(empty log)"

    def wait_ready(self, probe, what: str) -> None:
        """Until probe() answers True; a server that exits is told with its log's tail (and started
        again on another port if its port was taken)."""
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            code = self.proc.poll()
            if code is not None:
                tail = self.tail()
                if self.attempts < PORT_ATTEMPTS and PORT_TAKEN.search(self.log.read_bytes()[self._log_from :].decode(errors="replace")):
                    self.spawn()
                    continue
                raise ScaleError(f"{self.name} exited with code {code} before it {what}; the end of its log:\n{tail}")
            try:
                if probe():
                    return
            except (OSError, psycopg.Error, redis.RedisError):
                pass
            if time.monotonic() > deadline:
                raise ScaleError(f"{self.name} did not {what} within {START_TIMEOUT_S} s; the end of its log:\n{self.tail()}")
            time.sleep(0.1)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(self.stop_signal)
        try:
            self.proc.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=STOP_TIMEOUT_S)


class Servers:
    """The running servers: env holds what the app reads to reach them; stop() ends them and
    removes every directory they used."""

    def __init__(self):
        self.env: dict[str, str] = {}
        self.dirs: list[Path] = []
        self.servers: list[_Server] = []
        self.proxy: ChromaTokenProxy | None = None
        self._stopped = False

    @property
    def ports(self) -> dict[str, int]:
        ports = {server.name: server.port for server in self.servers}
        if self.proxy:
            ports["Chroma token proxy"] = self.proxy.port
        return ports

    def describe(self) -> list[str]:
        ports = self.ports
        return [
            f"PostgreSQL 15 listens on 127.0.0.1:{ports['PostgreSQL']} (database {DATABASE}, role {ROLE}, trust on 127.0.0.1)",
            f"Redis listens on 127.0.0.1:{ports['Redis']}",
            f"Chroma listens on 127.0.0.1:{ports['Chroma']}, behind a token proxy on 127.0.0.1:{ports['Chroma token proxy']} (CHROMA_URL)",
        ]

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        with _signals_deferred():
            if self.proxy:
                self.proxy.stop()
            for server in reversed(self.servers):
                server.stop()
            left = []
            for folder in self.dirs:
                shutil.rmtree(folder, ignore_errors=True)
                if folder.exists():
                    left.append(str(folder))
        if left:
            raise ScaleError(f"could not remove {', '.join(left)}")

    def __enter__(self) -> "Servers":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


@contextmanager
def _signals_deferred():
    """Ctrl-C, SIGTERM and SIGHUP wait until the servers are stopped (in the main thread only,
    where Python handles signals), then take effect as they would have."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    kept = {signum: signal.signal(signum, lambda signum, frame: caught.append(signum)) for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for signum, handler in kept.items():
            signal.signal(signum, handler)
        for signum in dict.fromkeys(caught):
            signal.raise_signal(signum)


def _pg_account() -> str | None:
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam(PG_OS_USER)
    except KeyError:
        raise ScaleError(
            f"PostgreSQL refuses to run as root and the '{PG_OS_USER}' OS user to run it as is missing "
            "(Debian's postgresql package creates it: bash scripts/setup.sh --test)"
        ) from None
    return PG_OS_USER


def _pg_home(top: Path, account: str | None, servers: Servers) -> Path:
    """A folder PostgreSQL's user can write, short enough to hold its socket: top/pg if that
    user can reach it, else one of its own in the system's temp dir (pytest's are 0700, root's)."""
    home = top / "pg"
    home.mkdir()
    if account:
        shutil.chown(home, account, account)
        reachable = subprocess.run(_as_server(["test", "-w", str(home)], account=account, death_signal="KILL"), check=False).returncode == 0
    else:
        reachable = True
    if reachable and len(os.fsencode(home / ".s.PGSQL.65535")) <= SOCKET_PATH_MAX:
        return home
    home = Path(tempfile.mkdtemp(prefix="myrecall-scale-pg-", dir="/tmp"))
    servers.dirs.append(home)
    if account:
        shutil.chown(home, account, account)
    return home


def _pg_initdb(home: Path, account: str | None, log: Path) -> Path:
    data = home / "data"
    argv = [
        str(PG_BIN / "initdb"), "-D", str(data), "-U", PG_SUPERUSER, "--auth=trust",
        "--locale=C.UTF-8", "--encoding=UTF8", "--no-sync", "--no-instructions",
    ]
    with open(log, "ab") as out:
        done = subprocess.run(
            _as_server(argv, account=account, death_signal="KILL"), cwd=home, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
            timeout=START_TIMEOUT_S, check=False,
        )
    if done.returncode != 0:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-25:])
        raise ScaleError(f"initdb failed with code {done.returncode}; the end of its log:\n{tail}")
    # Trust on 127.0.0.1 only: no unix-socket logins, no other address.
    hba = data / "pg_hba.conf"
    hba.write_text("# TYPE DATABASE USER ADDRESS METHOD\nhost all all 127.0.0.1/32 trust\n")
    if account:
        shutil.chown(hba, account, account)
    return data


def _pg_prepare(port: int) -> None:
    """The app's role (may create databases, as pytest-django does) and its database; pg_trgm must
    be there to be created in any of them (a trusted extension: the database's owner may)."""
    try:
        with psycopg.connect(f"postgresql://{PG_SUPERUSER}@127.0.0.1:{port}/postgres", autocommit=True, connect_timeout=5) as conn:
            if conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm'").fetchone() is None:
                raise ScaleError("PostgreSQL has no pg_trgm extension: install Debian's postgresql-contrib (bash scripts/setup.sh --test)")
            conn.execute(f"CREATE ROLE {ROLE} LOGIN CREATEDB")
            conn.execute(f"CREATE DATABASE {DATABASE} OWNER {ROLE}")
    except psycopg.Error as exc:
        raise ScaleError(f"PostgreSQL answered but could not make the role and database {DATABASE}: {exc}") from exc


def _pg_accepts(data: Path, port: int) -> bool:
    # Its pid file says "ready" once it listens (what pg_ctl -w waits for): no connection tried before.
    lines = (data / "postmaster.pid").read_text().splitlines()
    if len(lines) < 8 or lines[7].strip() != "ready":
        return False
    with psycopg.connect(f"postgresql://{PG_SUPERUSER}@127.0.0.1:{port}/postgres", connect_timeout=2) as conn:
        return conn.execute("SELECT 1").fetchone() == (1,)


def _redis_pongs(port: int) -> bool:
    client = redis.Redis(host="127.0.0.1", port=port, socket_timeout=2, socket_connect_timeout=2)
    try:
        return client.ping() is True
    finally:
        client.close()


def _chroma_beats(port: int) -> bool:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=2) as answer:
        return answer.status == 200


def start(base_dir: Path | str | None = None) -> Servers:
    """Starts PostgreSQL, Redis and Chroma (with its proxy) in a new temp dir under base_dir (the
    system's temp dir if None) and waits until each answers; on any failure stops what started."""
    for tool, hint in ((PG_BIN / "initdb", "postgresql"), (Path(sys.executable).with_name("chroma"), "chromadb in .venv")):
        if not tool.exists():
            raise ScaleError(f"{tool} is missing: install {hint} (bash scripts/setup.sh --test)")
    if shutil.which("redis-server") is None:
        raise ScaleError("redis-server is missing: install Debian's redis-server (bash scripts/setup.sh --test)")
    account = _pg_account()
    servers = Servers()
    try:
        top = Path(tempfile.mkdtemp(prefix="myrecall-scale-", dir=base_dir))
        servers.dirs.append(top)
        if account:
            top.chmod(0o711)  # PostgreSQL's user passes through to top/pg, and sees nothing else
        (top / "redis").mkdir()
        chroma = _Server(
            "Chroma",
            lambda port: [str(Path(sys.executable).with_name("chroma")), "run", "--path", str(top / "chroma"), "--host", "127.0.0.1", "--port", str(port)],
            log=top / "chroma.log", cwd=top, stop_signal=signal.SIGTERM, env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
        )
        redis_server = _Server(
            "Redis",
            lambda port: ["redis-server", "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no", "--dir", str(top / "redis")],
            log=top / "redis.log", cwd=top / "redis", stop_signal=signal.SIGTERM,
        )
        for server in (chroma, redis_server):  # these two start while initdb runs
            servers.servers.append(server)
            server.spawn()

        home = _pg_home(top, account, servers)
        data = _pg_initdb(home, account, top / "postgres.log")
        postgres = _Server(
            "PostgreSQL",
            lambda port: [
                str(PG_BIN / "postgres"), "-D", str(data), "-c", f"port={port}", "-c", "listen_addresses=127.0.0.1",
                "-c", f"unix_socket_directories={home}", "-c", "unix_socket_permissions=0700",
                "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
            ],
            log=top / "postgres.log", cwd=home, stop_signal=signal.SIGINT, account=account,  # SIGINT: fast shutdown
        )
        servers.servers.append(postgres)
        postgres.spawn()

        postgres.wait_ready(lambda: _pg_accepts(data, postgres.port), "accepted connections")
        _pg_prepare(postgres.port)
        redis_server.wait_ready(lambda: _redis_pongs(redis_server.port), "answered PING")
        chroma.wait_ready(lambda: _chroma_beats(chroma.port), "answered its heartbeat")
        token = secrets.token_urlsafe(32)
        servers.proxy = ChromaTokenProxy(upstream=f"127.0.0.1:{chroma.port}", token=token)
        servers.env = {
            "DATABASE_URL": f"postgres://{ROLE}@127.0.0.1:{postgres.port}/{DATABASE}",
            "REDIS_URL": f"redis://127.0.0.1:{redis_server.port}/0",
            "CHROMA_URL": servers.proxy.url,
            "CHROMA_TOKEN": token,
        }
        return servers
    except BaseException:
        servers.stop()
        raise


class _Stop(Exception):
    def __init__(self, signum: int):
        self.signum = signum


def _exit_code(returncode: int) -> int:
    return 128 - returncode if returncode < 0 else returncode


def _finish(child: subprocess.Popen) -> None:
    """CMD was signalled: give it time to end as it would, then end it."""
    for signum, wait_s in ((None, 15), (signal.SIGTERM, 15), (signal.SIGKILL, None)):
        if signum is not None and child.poll() is None:
            child.send_signal(signum)
        try:
            child.wait(timeout=wait_s)
            return
        except (subprocess.TimeoutExpired, KeyboardInterrupt, _Stop):  # a second Ctrl-C: end it sooner
            continue


def _command_run(command: list[str], servers: Servers) -> int:
    try:
        child = subprocess.Popen(command, env={**os.environ, **servers.env})
    except OSError as exc:
        print(f"[scale] cannot run {command[0]}: {exc}", file=sys.stderr)
        return 127
    try:
        return _exit_code(child.wait())
    except KeyboardInterrupt:  # the terminal sent CMD its Ctrl-C too
        signum = signal.SIGINT
    except _Stop as stop:
        signum = stop.signum
        child.send_signal(signum)
    _finish(child)
    return 128 + signum if child.returncode is None else _exit_code(child.returncode)


def run(command: list[str]) -> int:
    """Starts the servers, runs command with their addresses, stops them; command's exit code."""
    def stop_on(signum, frame):
        raise _Stop(signum)

    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, stop_on)
    servers = None
    try:
        began = time.monotonic()
        servers = start()
        for line in servers.describe():
            print(f"[scale] {line}", file=sys.stderr)
        print(f"[scale] started in {time.monotonic() - began:.1f} s; running: {' '.join(command)}", file=sys.stderr, flush=True)
        code = _command_run(command, servers)
    except ScaleError as exc:
        print(f"[scale] {exc}", file=sys.stderr)
        code = 1
    except KeyboardInterrupt:
        code = 128 + signal.SIGINT
    except _Stop as stop:
        code = 128 + stop.signum
    if servers is not None:
        try:
            servers.stop()
            print("[scale] servers stopped, their files removed", file=sys.stderr)
        except ScaleError as exc:
            print(f"[scale] {exc}", file=sys.stderr)
            code = code or 1
        except (KeyboardInterrupt, _Stop):  # signalled while stopping: stop() finished first
            print("[scale] servers stopped, their files removed", file=sys.stderr)
    return code


USAGE = "usage: python -m tests.scale run -- CMD [ARGS...]"


def main(argv: list[str]) -> int:
    if argv[:1] != ["run"]:
        print(USAGE, file=sys.stderr)
        return 2
    command = argv[2:] if argv[1:2] == ["--"] else argv[1:]
    if not command:
        print(USAGE, file=sys.stderr)
        return 2
    return run(command)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
