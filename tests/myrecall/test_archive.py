"""Export while the server runs and frames keep coming, import into an empty data dir on a fresh
server, and compare what both answer; and what import refuses."""

import re
import subprocess
import sys
import tarfile
import threading
import time

import pytest

from tests.conftest import render_text_image
from tests.server import REPO, LiveServer, frames_post_session, ocr_wait

WORDS = ["budget", "deploy", "invoice", "meeting", "kubernetes", "项目"]


def keyword(server, q: str) -> list[int]:
    body = server.session.get(f"{server.url}/api/v1/search", params={"q": q, "mode": "keyword", "start_time": 0, "limit": 100}, timeout=30).json()
    return [hit["content"]["frame_id"] for hit in body["data"]]


def every_frame(server) -> set[int]:
    """Every frame, page by page (the writer may have posted more than one page during the export)."""
    found: set[int] = set()
    while True:
        params = {"start_time": 0, "limit": 100, "offset": len(found)}
        body = server.session.get(f"{server.url}/api/v1/search", params=params, timeout=30).json()
        found |= {hit["content"]["frame_id"] for hit in body["data"]}
        if len(body["data"]) < 100:
            return found


def status(server) -> dict:
    return server.session.get(f"{server.url}/api/v1/status", timeout=30).json()


def manage(data_dir, *args, check=True) -> subprocess.CompletedProcess:
    import os

    env = {**os.environ, "MYRECALL_DATA_DIR": str(data_dir)}
    return subprocess.run([sys.executable, "manage.py", *args], cwd=REPO, env=env, capture_output=True, text=True, check=check, timeout=600)


@pytest.mark.sqlite_only  # the archive holds the SQLite file; on PostgreSQL: test_export_and_import_on_postgresql_say_to_use_pg_dump
def test_an_export_taken_while_frames_arrive_restores_a_memory_that_answers_the_same(tmp_path):
    archive = tmp_path / "memory.tar"
    with LiveServer(tmp_path / "a", env={"MYRECALL_DEDUP_MAX_DISTANCE": "-1"}) as source:
        sent = frames_post_session(server=source, count=6, start=time.time() - 3600, step_s=20)
        ocr_wait(server=source, frame_ids=[item["frame_id"] for item in sent])
        deadline = time.time() + 300
        while status(source)["semantic"]["frames"]["pending"] and time.time() < deadline:
            time.sleep(0.5)
        source.session.get(f"{source.url}/frames/{sent[0]['frame_id']}/thumb", timeout=30)
        # Frames keep arriving while the export runs.
        stop = threading.Event()

        def keep_posting():
            n = 0
            while not stop.wait(0.5 if n else 0):  # two a second: enough to land during the export, few to read
                n += 1
                source.session.post(
                    f"{source.url}/api/v1/frames", timeout=60,
                    files={"image": ("f.png", render_text_image([f"arriving during export {n}"]), "image/png")},
                    data={"timestamp": time.time(), "app_name": "Editor", "device_name": "other"},
                )

        writer = threading.Thread(target=keep_posting)
        writer.start()
        try:
            exported = manage(source.data_dir, "export", str(archive))
        finally:
            stop.set()
            writer.join()
        assert "Wrote" in exported.stdout and archive.exists(), exported.stderr
        assert (archive.stat().st_mode & 0o777) == 0o600
        with tarfile.open(archive) as tar:
            names = tar.getnames()
        assert "manifest.json" in names and "myrecall.sqlite3" in names
        assert sum(name.startswith("files/frames/") for name in names) >= 6 and not any("thumbs" in n for n in names)
        before = {q: keyword(source, q) for q in WORDS}
        assert any(before.values())
        meaning_q = sent[0]["screen"].window_name
        source_all = every_frame(source)

    target_dir = tmp_path / "b"
    restored = manage(target_dir, "import", str(archive))
    assert "Restored" in restored.stdout, restored.stderr
    with LiveServer(target_dir) as target:
        archived = every_frame(target)
        assert {item["frame_id"] for item in sent} <= archived <= source_all
        # Keyword search answers at once, the same for every frame the archive holds.
        for q, hits in before.items():
            assert keyword(target, q) == [frame_id for frame_id in hits if frame_id in archived], q
        # The images came along; the vectors are rebuilt from the database by the worker.
        image = target.session.get(f"{target.url}/api/v1/frames/{sent[0]['frame_id']}", timeout=30)
        assert image.status_code == 200 and image.content[:4] == b"RIFF"
        deadline = time.time() + 300
        while status(target)["semantic"]["frames"]["pending"] and time.time() < deadline:
            time.sleep(0.5)
        assert status(target)["semantic"]["frames"]["done"] >= 6
        hits = target.session.get(f"{target.url}/api/v1/search", params={"q": meaning_q, "mode": "semantic", "start_time": 0}, timeout=30).json()["data"]
        assert hits, meaning_q
        # Logging in works with the exported memory's admin password.
        assert (target_dir / "admin_password.txt").read_text() == (source.data_dir / "admin_password.txt").read_text()


@pytest.mark.sqlite_only  # as above
def test_import_refuses_a_data_dir_that_has_a_memory_and_a_file_that_is_not_an_archive(tmp_path):
    not_archive = tmp_path / "notes.tar"
    not_archive.write_text("hello")
    refused = manage(tmp_path / "empty", "import", str(not_archive), check=False)
    assert refused.returncode != 0 and "not a MyRecall archive" in refused.stderr
    busy = tmp_path / "busy"
    shots = tmp_path / "shots"
    shots.mkdir()
    (shots / "2026-11-20_09-00-00.png").write_bytes(render_text_image(["one screen"]))
    manage(busy, "frames_import", str(shots))  # a memory of one frame (its OCR waits for a worker)
    archive = tmp_path / "one.tar.gz"
    assert manage(busy, "export", str(archive)).returncode == 0
    inside = manage(busy, "export", str(busy / "x.tar"), check=False)
    assert inside.returncode != 0 and "outside the data dir" in inside.stderr
    again = manage(busy, "import", str(archive), check=False)
    assert again.returncode != 0 and "already holds a memory" in again.stderr
    restored = manage(tmp_path / "fresh", "import", str(archive))  # compressed archives too
    assert "1 frames" in restored.stdout and len(list((tmp_path / "fresh" / "frames").rglob("*.webp"))) == 1


@pytest.mark.postgresql_only
def test_export_and_import_on_postgresql_say_to_use_pg_dump(tmp_path):
    """With DATABASE_URL naming PostgreSQL, both commands stop before writing anything and show the
    commands that back up and restore that database."""
    import os

    from tests import databases

    data_dir = tmp_path / "data"
    env = {**os.environ, **databases.env_for(data_dir), "MYRECALL_DATA_DIR": str(data_dir)}

    def run(*args):
        return subprocess.run([sys.executable, "manage.py", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=600)

    assert run("token_create", "laptop").returncode == 0  # a memory in that database
    archive = tmp_path / "memory.tar"
    for refused in (run("export", str(archive)), run("import", str(archive))):
        assert refused.returncode != 0 and "Traceback" not in refused.stderr, refused.stderr
        shown = re.findall(r"`(pg_(?:dump|restore) [^`]+)`", refused.stderr)
        assert [command.split()[0] for command in shown] == ["pg_dump", "pg_restore"], refused.stderr
    assert not list(tmp_path.glob("memory.tar*"))
    # The commands shown work as shown: the memory, dumped, is restored whole into an empty database.
    restored_dir = tmp_path / "restored"
    for command, database_env in zip(shown, (env, databases.env_for(restored_dir))):
        done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env={**env, **database_env}, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
    assert databases.rows(restored_dir, "SELECT name FROM myrecall_apitoken") == databases.rows(data_dir, "SELECT name FROM myrecall_apitoken") == [("laptop",)]


@pytest.mark.django_db
def test_export_needs_the_embedded_sqlite(monkeypatch):
    from django.db import connection

    from myrecall.archive import archive_export
    from myrecall.errors import ApplicationError

    monkeypatch.setattr(connection, "vendor", "postgresql")
    with pytest.raises(ApplicationError, match="pg_dump"):
        archive_export(path="/tmp/x.tar")


@pytest.mark.sqlite_only  # the archive holds the SQLite file
def test_export_and_import_carry_the_images_of_a_storage_outside_the_data_dir(tmp_path):
    import os

    def run(data_dir, images_dir, *args, check=True):
        env = {**os.environ, "MYRECALL_DATA_DIR": str(data_dir), "MYRECALL_IMAGES_DIR": str(images_dir)}
        return subprocess.run([sys.executable, "manage.py", *args], cwd=REPO, env=env, capture_output=True, text=True, check=check, timeout=600)

    def images(folder):
        return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*.webp")}

    shots, source, target = tmp_path / "shots", tmp_path / "images-a", tmp_path / "images-b"
    for folder in (shots, source, target):
        folder.mkdir()
    (shots / "2026-11-20_09-00-00.png").write_bytes(render_text_image(["kept on the share"]))
    run(tmp_path / "a", source, "frames_import", str(shots))
    stored = images(source)
    assert len(stored) == 1 and not images(tmp_path / "a")
    archive = tmp_path / "memory.tar"
    run(tmp_path / "a", source, "export", str(archive))
    with tarfile.open(archive) as tar:
        assert [name for name in tar.getnames() if name.startswith("files/")] == [f"files/{name}" for name in stored]
    restored = run(tmp_path / "b", target, "import", str(archive))
    assert "1 frames" in restored.stdout and images(target) == stored and not images(tmp_path / "b")
    refused = run(tmp_path / "c", target, "import", str(archive), check=False)
    assert refused.returncode != 0 and "storage of frame images (frames/) is not empty" in refused.stderr
