"""Frame images on shared storage (issue 25.2): the storage settings name (MYRECALL_IMAGES_DIR, or a
storage class of the user's with MYRECALL_IMAGES_STORAGE) holds every frame's image, delta and
thumbnail, so a server on one machine reads what a server on another wrote, and a deletion on any
removes them all; with neither set, images stay in the data dir as they always were."""

import base64
import io
import json
import os
import random
import socket
import sqlite3
import subprocess
import sys
import time
from datetime import datetime
from datetime import timezone as dt_timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np
import pytest
from django.contrib.auth import get_user_model
import requests
from PIL import Image

from frames import services, storage
from frames.models import Frame
from frames.tools import FrameImageIn
from myrecall.tools import Context, tool_get
from myrecall.space import space_report
from tests.conftest import post_frame
from tests.hashed_storage import HashedFolderStorage
from tests.screens import new_screen, render

pytestmark = pytest.mark.django_db

REPO = Path(__file__).resolve().parents[2]
HASHED = "tests.hashed_storage.HashedFolderStorage"


def _typing(count: int, *, seed: int) -> list[Image.Image]:
    """A screen typed into: each capture one word longer than the one before."""
    screen = new_screen(random.Random(seed), "editor", zh_share=0.0)
    images = []
    for number in range(count):
        screen.lines[2 + number % 5] += f" word{number}"
        images.append(render(screen))
    return images


def _png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def _post(api, images, *, start: float, first: int = 0) -> list[int]:
    ids = []
    for number, image in enumerate(images, start=first):
        resp = post_frame(api, _png(image), timestamp=start + number * 5, app_name="Code", client_frame_id=f"s{start}-{number}")
        assert resp.status_code == 201, resp.content
        ids.append(resp.json()["frame_id"])
    return ids


def _served(api, frame_id: int) -> np.ndarray:
    resp = api.get(f"/api/v1/frames/{frame_id}")
    assert resp.status_code == 200, resp.content
    with Image.open(io.BytesIO(b"".join(resp.streaming_content))) as image:
        return np.asarray(image.convert("RGB"))


def _thumb(client, frame_id: int) -> bytes:
    resp = client.get(f"/frames/{frame_id}/thumb")
    assert resp.status_code == 200
    return b"".join(resp.streaming_content)


def _files_under(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


class Machines:
    """Two machines in one process: each its own data dir, both the same database and the same
    storage of images. `use(name)` makes the process one of them, as its settings would; the
    decoded images a process keeps are dropped, so each reads the other's through the storage."""

    def __init__(self, settings, tmp_path: Path, frames_storage: dict):
        self.settings = settings
        self.dirs = {name: tmp_path / f"machine-{name}" for name in ("a", "b")}
        self.frames_storage = frames_storage
        for folder in self.dirs.values():
            folder.mkdir()

    def use(self, name: str) -> Path:
        self.settings.DATA_DIR = self.dirs[name]
        self.settings.STORAGES = {**self.settings.STORAGES, "frames": self.frames_storage}
        storage._cache.clear()
        return self.dirs[name]


def test_the_embedded_default_keeps_images_in_the_data_dir_as_before(api, data_dir):
    frame_id = _post(api, _typing(1, seed=1), start=time.time() - 300)[0]
    frame = Frame.objects.get(id=frame_id)
    assert frame.image_path.startswith(f"frames/{frame.timestamp:%Y/%m/%d}/") and frame.image_path.endswith(".webp")
    on_disk = data_dir / frame.image_path
    assert on_disk.is_file() and on_disk.read_bytes() == storage.image_bytes(frame.image_path)
    assert storage.image_location(frame.image_path) == on_disk
    assert _files_under(data_dir / "frames") == [frame.image_path.removeprefix("frames/")]  # no staging file left


def _settings_of(env: dict) -> subprocess.CompletedProcess:
    """What a process started with env makes of the settings: the frames storage's class and folder."""
    code = (
        "import django, json; django.setup(); from django.core.files.storage import storages; "
        "from django.conf import settings; s = storages['frames']; "
        "print(json.dumps([type(s).__name__, str(s.location), str(settings.DATA_DIR)]))"
    )
    full = {**os.environ, "DJANGO_SETTINGS_MODULE": "myrecall.settings", **env}
    for name in ("MYRECALL_IMAGES_DIR", "MYRECALL_IMAGES_STORAGE", "MYRECALL_IMAGES_STORAGE_OPTIONS"):
        full.setdefault(name, "")
    return subprocess.run([sys.executable, "-c", code], cwd=REPO, env=full, capture_output=True, text=True, timeout=120)


def test_the_settings_name_the_storage_of_images(tmp_path):
    data, shared = tmp_path / "data", tmp_path / "shared"
    shared.mkdir()
    default = _settings_of({"MYRECALL_DATA_DIR": str(data)})
    assert json.loads(default.stdout) == ["AtomicFileSystemStorage", str(data), str(data)], default.stderr
    moved = _settings_of({"MYRECALL_DATA_DIR": str(data), "MYRECALL_IMAGES_DIR": str(shared)})
    assert json.loads(moved.stdout) == ["AtomicFileSystemStorage", str(shared), str(data)], moved.stderr
    plugged = _settings_of({"MYRECALL_DATA_DIR": str(data), "MYRECALL_IMAGES_STORAGE": HASHED,
                            "MYRECALL_IMAGES_STORAGE_OPTIONS": json.dumps({"location": str(shared / "bucket")})})
    assert json.loads(plugged.stdout) == ["HashedFolderStorage", str(shared / "bucket"), str(data)], plugged.stderr
    # A folder that is not there (a share not mounted) stops the process with a message, rather
    # than filling a folder of this machine alone.
    unmounted = _settings_of({"MYRECALL_DATA_DIR": str(data), "MYRECALL_IMAGES_DIR": str(tmp_path / "not-mounted")})
    assert unmounted.returncode != 0 and "is not a folder" in unmounted.stderr
    bad = _settings_of({"MYRECALL_DATA_DIR": str(data), "MYRECALL_IMAGES_STORAGE_OPTIONS": "{location: x"})
    assert bad.returncode != 0 and "MYRECALL_IMAGES_STORAGE_OPTIONS is not a JSON object" in bad.stderr
    # A class that does not take the options given is said when the server starts (a system check).
    env = {**os.environ, "MYRECALL_DATA_DIR": str(data), "MYRECALL_IMAGES_STORAGE": HASHED, "MYRECALL_IMAGES_STORAGE_OPTIONS": '{"bucket": "x"}'}
    check = subprocess.run([sys.executable, "manage.py", "check"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert check.returncode != 0 and "frames.E001" in check.stderr and "bucket" in check.stderr


def test_two_machines_read_each_others_images_deltas_and_thumbnails_and_a_deletion_leaves_nothing(api, client, settings, tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    machines = Machines(settings, tmp_path, {"BACKEND": "myrecall.file_storage.AtomicFileSystemStorage", "OPTIONS": {"location": str(shared)}})
    client.force_login(get_user_model().objects.create_user("viewer", password="pw"))
    images = _typing(6, seed=21)
    start = time.time() - 3600

    machines.use("a")
    from_a = _post(api, images[:3], start=start)
    machines.use("b")
    from_b = _post(api, images[3:], start=start, first=3)
    frames = {frame.id: frame for frame in Frame.objects.filter(id__in=from_a + from_b)}
    # Each frame is stored against the one before; B's first against A's last, a delta on A's
    # frame stored whole: B read A's files (the chain down to the whole frame) to do so.
    order = from_a + from_b
    assert frames[from_a[0]].image_base_id is None
    assert [frames[frame_id].image_base_id for frame_id in order[1:]] == order[:-1]
    # Each machine serves every frame, its own and the other's, with the pixels captured.
    for name in ("a", "b", "a"):
        machines.use(name)
        for frame_id, image in zip(from_a + from_b, images):
            assert np.array_equal(_served(api, frame_id), np.asarray(image)), (name, frame_id)
    # OCR on B reads a delta A wrote.
    assert services.frame_ocr_run(frame_id=from_a[2]) == "done"
    assert "word2" in Frame.objects.get(id=from_a[2]).ocr.text

    # A thumbnail made by A is the one B serves (not made again); one B makes, A serves.
    machines.use("a")
    thumb_a = _thumb(client, from_b[0])
    made = storage.thumb_abspath(from_b[0], frames[from_b[0]].timestamp)
    assert made.is_relative_to(shared)
    old = datetime(2001, 1, 1, tzinfo=dt_timezone.utc).timestamp()
    os.utime(made, (old, old))
    machines.use("b")
    assert _thumb(client, from_b[0]) == thumb_a and made.stat().st_mtime == old
    thumb_b = _thumb(client, from_a[1])
    machines.use("a")
    assert _thumb(client, from_a[1]) == thumb_b

    # Everything of a frame is in the shared storage; the machines' data dirs hold none of it.
    expected = {frame.image_path for frame in frames.values()} | {
        storage.thumb_relpath(frame_id, frames[frame_id].timestamp) for frame_id in (from_b[0], from_a[1])
    }
    assert set(_files_under(shared)) == expected
    for folder in machines.dirs.values():
        assert _files_under(folder / "frames") == [] and _files_under(folder / "thumbs") == []

    # A deletion on B removes A's files and its own from the shared storage, and their day folders.
    machines.use("b")
    job = services.frames_delete(
        start=datetime.fromtimestamp(start - 1, tz=dt_timezone.utc), end=datetime.fromtimestamp(start + 60, tz=dt_timezone.utc)
    )
    assert job.status == "done" and job.removed["files"] == len(expected)
    assert not Frame.objects.filter(id__in=from_a + from_b).exists()
    assert _files_under(shared) == []
    assert sorted(p.name for p in shared.iterdir()) == ["frames", "thumbs"]
    assert not any((shared / "frames").iterdir()) and not any((shared / "thumbs").iterdir())


def test_a_storage_class_of_the_users_keeps_every_file_of_a_frame(api, client, settings, tmp_path, data_dir):
    bucket = tmp_path / "bucket"
    settings.STORAGES = {**settings.STORAGES, "frames": {"BACKEND": HASHED, "OPTIONS": {"location": str(bucket)}}}
    store = storage.files()
    assert isinstance(store, HashedFolderStorage)
    client.force_login(get_user_model().objects.create_user("viewer", password="pw"))
    images = _typing(3, seed=33)
    start = time.time() - 7200
    ids = _post(api, images, start=start)
    frames = {frame.id: frame for frame in Frame.objects.filter(id__in=ids)}
    assert [frames[frame_id].image_base_id for frame_id in ids] == [None, ids[0], ids[1]]  # deltas read their bases back
    for frame_id, image in zip(ids, images):
        assert np.array_equal(_served(api, frame_id), np.asarray(image))
        with Image.open(io.BytesIO(_thumb(client, frame_id))) as thumb:
            assert thumb.width == 320
    assert services.frame_ocr_run(frame_id=ids[2]) == "done" and "word2" in Frame.objects.get(id=ids[2]).ocr.text
    # An assistant's preview (MCP's frame_image), and screenpipe's search with the image inline (no
    # local path to give).
    preview, kind = tool_get("frame_image").run(FrameImageIn(max_side=640), Context(zone=ZoneInfo("UTC")), frame_id=ids[1])
    with Image.open(io.BytesIO(preview)) as shown:
        assert kind == "image/webp" and shown.width == 640
    hits = api.get("/search", {"q": "word2", "include_frames": "true", "start_time": "2000-01-01T00:00:00Z"}).json()["data"]
    assert [hit["content"]["frame_id"] for hit in hits] == [ids[2]] and hits[0]["content"]["file_path"] == ""
    assert base64.b64decode(hits[0]["content"]["frame"]) == storage.image_bytes(frames[ids[2]].image_path)
    names = {frame.image_path for frame in frames.values()} | {storage.thumb_relpath(i, frames[i].timestamp) for i in ids}
    assert set(store.names()) == names
    assert storage.image_location(frames[ids[0]].image_path) is None
    # Nothing was written where a path built from a name would point: not in the data dir, not in
    # the storage's folder (it holds only its hashed files).
    assert _files_under(data_dir / "frames") == [] and _files_under(data_dir / "thumbs") == []
    assert all(p.suffix in (".blob", ".name") and "/" not in p.relative_to(bucket).as_posix() for p in bucket.iterdir())
    # The space page measures the thumbnails through the storage.
    report = space_report(zone=ZoneInfo("UTC"), fresh=True)
    thumbs = next(part for part in report["parts"] if part["name"] == "thumbnails")
    assert thumbs["bytes"] == sum(store.size(storage.thumb_relpath(i, frames[i].timestamp)) for i in ids) > 0

    job = services.frames_delete(
        start=datetime.fromtimestamp(start - 1, tz=dt_timezone.utc), end=datetime.fromtimestamp(start + 60, tz=dt_timezone.utc)
    )
    assert job.status == "done" and job.removed["files"] == len(names)
    assert store.names() == [] and list(bucket.iterdir()) == []
    assert api.get(f"/api/v1/frames/{ids[0]}").status_code == 404


# Two real web servers, each on a data dir of its own, sharing the database and the images --------


class WebServer:
    """`python -m myrecall.web` (the web server that `serve` runs, without the worker) on a data dir."""

    def __init__(self, data_dir: Path, env: dict):
        self.data_dir = data_dir
        self.env = {**env, "MYRECALL_DATA_DIR": str(data_dir)}
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        self.log = open(data_dir / "web.log", "w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "myrecall.web", "-b", "127.0.0.1", "-p", str(port), "myrecall.asgi:application"],
            cwd=REPO, env=self.env, stdout=self.log, stderr=subprocess.STDOUT,
        )
        deadline = time.time() + 120
        while True:
            try:
                requests.get(f"{self.url}/login/", timeout=10)
                break
            except requests.ConnectionError:
                if time.time() > deadline or self.proc.poll() is not None:
                    self.stop()
                    raise RuntimeError((data_dir / "web.log").read_text())
                time.sleep(0.3)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def _manage(env: dict, *args: str) -> str:
    return subprocess.run([sys.executable, "manage.py", *args], cwd=REPO, env=env, check=True, capture_output=True, text=True, timeout=300).stdout


@pytest.mark.parametrize("kind", ["shared folder", "storage class"])
def test_two_real_servers_on_two_data_dirs_serve_each_others_frames(tmp_path, kind):
    shared = tmp_path / "shared"
    shared.mkdir()
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{shared / 'myrecall.sqlite3'}", "MYRECALL_DEDUP_MAX_DISTANCE": "-1"}
    if kind == "shared folder":
        env["MYRECALL_IMAGES_DIR"] = str(shared / "images")
        (shared / "images").mkdir()
    else:
        env |= {"MYRECALL_IMAGES_STORAGE": HASHED, "MYRECALL_IMAGES_STORAGE_OPTIONS": json.dumps({"location": str(shared / "bucket")})}
    dirs = [tmp_path / "machine-a", tmp_path / "machine-b"]
    for folder in dirs:
        folder.mkdir()
    first = {**env, "MYRECALL_DATA_DIR": str(dirs[0])}
    _manage(first, "migrate", "-v0")
    token = _manage(first, "token_create", "shared").strip().splitlines()[-1]
    _manage(first, "shell", "-c", "from django.contrib.auth.models import User; User.objects.create_user('viewer', password='pw')")
    servers = []
    try:
        servers = [WebServer(folder, env) for folder in dirs]
        api = requests.Session()
        api.headers["Authorization"] = f"Bearer {token}"
        images = _typing(4, seed=44)
        start = time.time() - 3600
        ids = []
        for number, image in enumerate(images):  # posted to A and B in turn
            resp = api.post(
                f"{servers[number % 2].url}/api/v1/frames", timeout=60,
                files={"image": ("f.png", _png(image), "image/png")},
                data={"timestamp": start + number * 5, "app_name": "Code", "device_name": "laptop"},
            )
            assert resp.status_code == 201, resp.text
            ids.append(resp.json()["frame_id"])
        # B's frames (the 2nd, 4th) are stored against the frame A stored just before: B read A's
        # files (and A B's).
        with sqlite3.connect(shared / "myrecall.sqlite3") as db:
            bases = dict(db.execute("SELECT id, image_base_id FROM frames_frame"))
        assert [bases[frame_id] for frame_id in ids] == [None, ids[0], ids[1], ids[2]]
        for server in servers:
            for frame_id, image in zip(ids, images):
                resp = api.get(f"{server.url}/api/v1/frames/{frame_id}", timeout=30)
                assert resp.status_code == 200, (server.url, frame_id, resp.text)
                with Image.open(io.BytesIO(resp.content)) as served:
                    assert np.array_equal(np.asarray(served.convert("RGB")), np.asarray(image)), (server.url, frame_id)
        # A thumbnail made by one server is served by the other.
        browsers = []
        for server in servers:
            browser = requests.Session()
            browser.get(f"{server.url}/login/", timeout=30)
            browser.post(f"{server.url}/login/", data={"username": "viewer", "password": "pw", "csrfmiddlewaretoken": browser.cookies["csrftoken"]}, allow_redirects=False, timeout=30)
            browsers.append(browser)
        thumbs = [browsers[0].get(f"{servers[0].url}/frames/{ids[1]}/thumb", timeout=30), browsers[1].get(f"{servers[1].url}/frames/{ids[1]}/thumb", timeout=30)]
        assert [t.status_code for t in thumbs] == [200, 200] and thumbs[0].content == thumbs[1].content
        # A deletion through one server removes every file, wherever the frames came in.
        deleted = api.delete(f"{servers[1].url}/api/v1/frames", params={"start_time": start - 1, "end_time": start + 60}, timeout=120)
        assert deleted.status_code == 200 and deleted.json()["removed"]["files"] == len(ids) + 1, deleted.text
        for server in servers:
            assert api.get(f"{server.url}/api/v1/frames/{ids[0]}", timeout=30).status_code == 404
    finally:
        for server in servers:
            server.stop()
    left = _files_under(shared / "images") if kind == "shared folder" else [p.name for p in (shared / "bucket").iterdir()]
    assert left == []
    for folder in dirs:
        assert _files_under(folder / "frames") == [] and _files_under(folder / "thumbs") == []
