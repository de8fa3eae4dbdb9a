"""Export the whole memory to one archive while the server runs, and restore it into an empty
data dir (another machine, or after a disk failure).

The archive is a tar file (PATH.tar, or compressed when PATH ends in .tar.gz):
  manifest.json           what it holds (format, time, counts, files missing at export)
  myrecall.sqlite3        a consistent snapshot of the database (SQLite's online backup API, in
                          one step: one read transaction, while the server keeps writing in WAL
                          mode): frames, OCR text, the keyword index, chats, tokens, settings
  admin_password.txt      the first-start admin password, when the data dir has it
  files/<relpath>         the files the apps list for the snapshot (frame images), by their names
                          in the storage that keeps them (the data dir, or MYRECALL_IMAGES_DIR...)

Not in it, and why: the vector index (Chroma's files cannot be copied consistently while its
server writes, and it is rebuilt from the database: after an import the worker re-embeds every
frame, while keyword search answers at once), thumbnails (made again on first view), the
agent's scratch files, and the secret key (a new one only logs browsers out).

Apps take part through two hooks: `archive_files_register(fn, storage=...)`: fn(snapshot) lists
the files the snapshot's rows point to, by their names in a Django storage (the data dir when
none is named; an archive's files are read from and restored into that one storage); and the
`memory_restored` signal, sent after an import has put the database and files in place and
migrated them.
"""

import json
import os
import sqlite3
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.core.exceptions import SuspiciousFileOperation
from django.core.files import File
from django.core.files.storage import FileSystemStorage, Storage
from django.db import connection
from django.dispatch import Signal

from myrecall.errors import ApplicationError

FORMAT = "myrecall-archive/1"
DB_NAME = "myrecall.sqlite3"
ADMIN_PASSWORD_NAME = "admin_password.txt"

# Sent once an import has restored the database and files and migrated them (no kwargs).
memory_restored = Signal()

FilesLister = Callable[[sqlite3.Connection], Iterable[str]]
_files_listers: list[FilesLister] = []
_files_storage: list[Callable[[], Storage]] = []


def archive_files_register(lister: FilesLister, *, storage: Callable[[], Storage] | None = None) -> None:
    """lister(snapshot) yields the files that rows of the snapshot (an sqlite3 connection to the
    exported database) point to, by their names in storage() (default: relative to the data dir)."""
    if storage is not None and _files_storage and _files_storage[0] is not storage:
        raise ValueError("An archive holds the files of one storage; another one is registered already.")
    if storage is not None and not _files_storage:
        _files_storage.append(storage)
    if lister not in _files_listers:
        _files_listers.append(lister)


def _files() -> Storage:
    return _files_storage[0]() if _files_storage else FileSystemStorage(location=settings.DATA_DIR)


def files_storage() -> Storage:
    """The storage that keeps the files the apps list (the frame images): what an archive reads
    and restores, and what `copy_from_sqlite` copies into."""
    return _files()


def files_listed(snapshot: sqlite3.Connection) -> list[str]:
    """The files that rows of an SQLite database of MyRecall's (an sqlite3 connection) point to,
    by their names in files_storage(), each once."""
    return list(dict.fromkeys(name for lister in _files_listers for name in lister(snapshot)))


@dataclass
class ArchiveReport:
    path: Path
    database_bytes: int = 0
    files: int = 0
    file_bytes: int = 0
    missing: list[str] = field(default_factory=list)
    counts: dict = field(default_factory=dict)
    seconds: float = 0.0


def _sqlite_path() -> Path:
    if connection.vendor != "sqlite":
        raise ApplicationError(
            "Export and import work on the embedded SQLite database; this MyRecall keeps its memory in "
            "PostgreSQL (DATABASE_URL). Back that up with PostgreSQL's own tools, e.g. "
            '`pg_dump --format=custom --file=myrecall.dump "$DATABASE_URL"`, restore it into an empty database '
            'with `pg_restore --no-owner --dbname="$DATABASE_URL" myrecall.dump`, and copy the images '
            "(MYRECALL_IMAGES_DIR, by default DATA_DIR/frames) beside it."
        )
    return Path(connection.settings_dict["NAME"])


def _counts(db: sqlite3.Connection) -> dict:
    counts = {}
    for label, table in (("frames", "frames_frame"), ("ocr_texts", "frames_ocrresult"), ("chat_messages", "chat_chatmessage")):
        try:
            counts[label] = db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        except sqlite3.OperationalError:
            counts[label] = 0
    return counts


def _mode(path: Path, write: bool) -> str:
    gz = path.name.endswith((".tar.gz", ".tgz"))
    return ("w:gz" if gz else "w") if write else ("r:gz" if gz else "r")


def archive_export(*, path: Path, progress: Callable[[str, int, int], None] = lambda *a: None) -> ArchiveReport:
    """Write the archive to `path` (a temp file beside it, moved into place when whole).
    progress(step, done, total) is told the bytes written per step ("database", "files")."""
    started = time.perf_counter()
    source = _sqlite_path()
    data_dir = Path(settings.DATA_DIR)
    path = Path(path).expanduser().resolve()
    if path.is_dir():
        raise ApplicationError(f"{path} is a folder; give a file name such as {path / 'myrecall.tar'}.")
    if data_dir in path.parents:
        raise ApplicationError(f"Write the archive outside the data dir {data_dir}.")
    path.parent.mkdir(parents=True, exist_ok=True)
    report = ArchiveReport(path=path)
    with tempfile.TemporaryDirectory(prefix="myrecall-export-", dir=path.parent) as work:
        snapshot_path = Path(work) / DB_NAME
        total = source.stat().st_size
        progress("database", 0, total)
        live = sqlite3.connect(source, timeout=30)
        snapshot = sqlite3.connect(snapshot_path)
        try:
            live.backup(snapshot, pages=-1)  # one step: a consistent snapshot, writers go on meanwhile
        finally:
            live.close()
        report.database_bytes = snapshot_path.stat().st_size
        progress("database", report.database_bytes, report.database_bytes)
        try:
            relpaths = sorted({relpath for lister in _files_listers for relpath in lister(snapshot)})
            report.counts = _counts(snapshot)
        finally:
            snapshot.close()
        store = _files()
        files = []
        for relpath in relpaths:
            try:
                files.append((relpath, store.size(relpath)))
            except (FileNotFoundError, SuspiciousFileOperation):
                report.missing.append(relpath)  # deleted since the snapshot, lost before it, or a bad name
        total_files = sum(size for _, size in files)
        manifest = {
            "format": FORMAT,
            "created_at": time.time(),
            "counts": report.counts,
            "files": len(files),
            "missing_files": report.missing[:1000],
            "vectors": "not included: rebuilt from the database after an import",
        }
        part = path.with_name(path.name + ".part")
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # the archive holds every screen
        with os.fdopen(fd, "wb") as raw, tarfile.open(fileobj=raw, mode=_mode(path, write=True)) as tar:
            manifest_file = Path(work) / "manifest.json"
            manifest_file.write_text(json.dumps(manifest, indent=1))
            tar.add(manifest_file, arcname="manifest.json")
            tar.add(snapshot_path, arcname=DB_NAME)
            if (data_dir / ADMIN_PASSWORD_NAME).is_file():
                tar.add(data_dir / ADMIN_PASSWORD_NAME, arcname=ADMIN_PASSWORD_NAME)
            done = 0
            for relpath, size in files:
                member = tarfile.TarInfo(f"files/{relpath}")
                member.size, member.mtime, member.mode = size, time.time(), 0o600
                try:
                    with store.open(relpath, "rb") as source:
                        tar.addfile(member, source)
                except FileNotFoundError:  # deleted while the archive was written
                    report.missing.append(relpath)
                    continue
                done += size
                report.files += 1
                report.file_bytes += size
                progress("files", done, total_files)
        os.replace(part, path)
    report.seconds = time.perf_counter() - started
    return report


def data_dir_empty_check() -> None:
    """Raise unless the data dir holds no memory yet (no frame rows, no images, no vectors)."""
    data_dir = Path(settings.DATA_DIR)
    db = data_dir / DB_NAME
    if db.exists():
        with sqlite3.connect(db) as existing:
            if _counts(existing)["frames"]:
                raise ApplicationError(
                    f"{data_dir} already holds a memory ({db}): import only into an empty data dir "
                    "(set MYRECALL_DATA_DIR to a new folder)."
                )
    if (data_dir / "chroma").exists() and any((data_dir / "chroma").rglob("*.*")):
        raise ApplicationError(f"{data_dir / 'chroma'} is not empty: import only into an empty data dir.")
    if _holds_files(_files(), "frames"):
        raise ApplicationError("The storage of frame images (frames/) is not empty: import only into an empty data dir.")


def _holds_files(store: Storage, folder: str) -> bool:
    try:
        folders, names = store.listdir(folder)
    except FileNotFoundError:
        return False
    return bool(names) or any(_holds_files(store, f"{folder}/{name}") for name in folders)


def _file_restore(tar: tarfile.TarFile, member: tarfile.TarInfo, path: Path) -> None:
    """Put an archived file back in the storage under its name (replacing what an interrupted import left)."""
    relpath = member.name[len("files/") :]
    store = _files()
    try:
        if store.exists(relpath):
            store.delete(relpath)
        saved = store.save(relpath, File(tar.extractfile(member), name=relpath))
    except SuspiciousFileOperation:
        raise ApplicationError(f"{path}: {member.name} points outside the data dir; not imported.") from None
    if saved != relpath:
        store.delete(saved)
        raise ApplicationError(f"{path}: {member.name} could not be restored under its name (the storage named it {saved}).")


def archive_import(*, path: Path, progress: Callable[[str, int, int], None] = lambda *a: None) -> ArchiveReport:
    """Restore an archive into the (empty) data dir; the server must not be running on it."""
    started = time.perf_counter()
    _sqlite_path()
    path = Path(path).expanduser().resolve()
    if not path.is_file():
        raise ApplicationError(f"{path} is not a file.")
    data_dir = Path(settings.DATA_DIR)
    data_dir_empty_check()
    report = ArchiveReport(path=path)
    try:
        tar = tarfile.open(path, mode=_mode(path, write=False))
    except (tarfile.TarError, OSError) as exc:
        raise ApplicationError(f"{path} is not a MyRecall archive: {exc}") from None
    with tar, tempfile.TemporaryDirectory(prefix="myrecall-import-", dir=data_dir) as work:
        try:
            manifest = json.load(tar.extractfile("manifest.json"))
        except (KeyError, ValueError, AttributeError):
            raise ApplicationError(f"{path} is not a MyRecall archive: it has no manifest.json.") from None
        if manifest.get("format") != FORMAT:
            raise ApplicationError(f"{path} is in format {manifest.get('format')!r}; this MyRecall reads {FORMAT!r}.")
        members = [member for member in tar if member.isfile()]
        total = sum(member.size for member in members)
        done = 0
        for member in members:
            name = member.name
            if name == DB_NAME:
                target = Path(work) / DB_NAME
            elif name == ADMIN_PASSWORD_NAME:
                target = data_dir / ADMIN_PASSWORD_NAME
            elif name.startswith("files/"):
                _file_restore(tar, member, path)
                report.files += 1
                report.file_bytes += member.size
                done += member.size
                progress("files", done, total)
                continue
            else:
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            source = tar.extractfile(member)
            tmp = target.with_name(target.name + ".part")
            with open(tmp, "wb") as fh:
                while chunk := source.read(1 << 20):
                    fh.write(chunk)
            os.replace(tmp, target)
            if name == ADMIN_PASSWORD_NAME:
                os.chmod(target, 0o600)
            done += member.size
            progress("files", done, total)
        snapshot = Path(work) / DB_NAME
        if not snapshot.exists():
            raise ApplicationError(f"{path} has no database ({DB_NAME}).")
        report.database_bytes = snapshot.stat().st_size
        connection.close()
        live = data_dir / DB_NAME
        for leftover in (live, Path(f"{live}-wal"), Path(f"{live}-shm")):
            leftover.unlink(missing_ok=True)
        os.replace(snapshot, live)
    with sqlite3.connect(data_dir / DB_NAME) as restored:
        report.counts = _counts(restored)
    report.missing = list(manifest.get("missing_files") or [])
    report.seconds = time.perf_counter() - started
    return report
