"""Shared fixtures: a temporary data dir per test, an API client with a real token,
rendered screenshots, and a real `serve` (web server + worker) for end-to-end tests."""

import io
import os
import time
import uuid
from datetime import datetime
from datetime import timezone as dt_timezone

import pytest
from django.conf import settings as django_settings
from PIL import Image, ImageDraw

from tests.server import LiveServer
from tests.screens import font
from frames.models import Frame, OcrResult, OcrStatus
from search.services import frame_index
from search.vectors import vectors_release

# The servers and workers the tests start load what search by meaning needs when first needed
# (MYRECALL_WARM_UP, on by default): most of them never search by meaning, and the warm-up cost
# about 6 s of CPU a start (over a minute of the suite's time). Its tests call it themselves.
os.environ.setdefault("MYRECALL_WARM_UP", "false")
# The suite runs three test processes on two cores: there an OCR of two threads (the default, for
# one server on two cores) is no faster and costs more CPU (a dense screen read whole: 8.2 s of
# CPU on one thread, 9.6-10.7 s on two). One thread each, in the servers the tests start and here.
os.environ.setdefault("MYRECALL_OCR_THREADS", "1")

django_settings.OCR_THREADS = int(os.environ["MYRECALL_OCR_THREADS"])  # this process read its settings already

# How long a browser test's assertion waits for the page to show what it expects. Playwright's
# default, 5 s, is less than the browser tests give their actions (20-30 s): on CI's loaded two
# cores a range deletion on PostgreSQL (rows, vectors on the Chroma server, files, VACUUM) and the
# page after it took longer than 5 s, and the test failed on a deletion that had worked.
EXPECT_TIMEOUT_MS = 30_000


def pytest_configure(config):
    from playwright.sync_api import expect

    expect.set_options(timeout=EXPECT_TIMEOUT_MS)


# The test files that take longest (wall seconds on a loaded 2-core machine, tests run two at a
# time), longest first. scripts/test.sh hands out whole files in collection order
# (--dist loadfile --no-loadscope-reorder): these go first, so that the last files handed out
# are short ones and both test processes end at about the same time (by default xdist hands out
# files with the most tests first, and a long file of one or two tests was left to run alone).
LONGEST_FILES = [
    "tests/frames/test_services.py",
    "tests/myrecall/test_worker.py",
    "tests/frames/test_reading.py",
    "tests/myrecall/test_serve.py",
    "tests/agent_bridge/test_agent_live.py",
    "tests/test_commands.py",
    "tests/myrecall/test_archive.py",
    "tests/capture/test_sway.py",
    "tests/capture/test_gnome.py",
    "tests/capture/test_kde.py",
    "tests/frames/test_deletion.py",
    "tests/frames/test_shared_images.py",
    "tests/test_contract.py",
    "tests/capture/test_client.py",
    "tests/capture/test_x11.py",
    "tests/frames/test_incremental.py",
    "tests/frames/test_storage.py",
    "tests/agent_bridge/test_mcp.py",
    "tests/search/test_multilingual.py",
    "tests/search/test_semantic.py",
    "tests/pages/test_browser.py",
    "tests/pages/test_links.py",
    "tests/capture/test_extension.py",
]


def pytest_collection_modifyitems(config, items):
    """Tests marked sqlite_only are deselected on PostgreSQL (DATABASE_URL), tests marked
    postgresql_only on SQLite; the summary counts them. The files of LONGEST_FILES come first."""
    from django.db import connection

    other = "postgresql_only" if connection.vendor == "sqlite" else "sqlite_only"
    kept = [item for item in items if item.get_closest_marker(other) is None]
    if dropped := [item for item in items if item.get_closest_marker(other) is not None]:
        config.hook.pytest_deselected(items=dropped)
    rank = {path: i for i, path in enumerate(LONGEST_FILES)}
    # A stable sort: each file's tests keep their order, the other files theirs.
    items[:] = sorted(kept, key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))


@pytest.fixture(autouse=True)
def channel_layers_own():
    """Each test makes its own channel layers. A test's websocket runs in an event loop of its
    own (async_to_sync), and a layer kept from an earlier test carries that test's receive state
    and connections into the next loop: with Redis (--scale) a test process hung there once."""
    from channels.layers import channel_layers

    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


@pytest.fixture(autouse=True)
def data_dir(tmp_path, settings):
    settings.DATA_DIR = tmp_path / "data"
    settings.DATA_DIR.mkdir()
    # Frame images in the test's data dir, as the embedded default keeps them.
    frames = {"BACKEND": "myrecall.file_storage.AtomicFileSystemStorage", "OPTIONS": {"location": str(settings.DATA_DIR)}}
    settings.STORAGES = {**settings.STORAGES, "frames": frames}
    if settings.CHROMA_URL:  # a shared Chroma server (--scale): the test's vectors in a database of its own there
        settings.CHROMA_DATABASE = f"test-{uuid.uuid4().hex[:16]}"
    yield settings.DATA_DIR
    vectors_release()  # the test's vector index, if it opened one


@pytest.fixture(autouse=True)
def keyword_index_emptied_after_flush(request, django_db_blocker):
    """After a test on a committed database (transactional_db): Django's flush empties the tables
    of models only, so the keyword index's own tables (partitions, their registry, the vocabulary)
    are emptied here, as a database without frames has them, whatever test runs next."""
    yield
    marker = request.node.get_closest_marker("django_db")
    if not ("transactional_db" in request.fixturenames or "live_server" in request.fixturenames
            or (marker is not None and marker.kwargs.get("transaction"))):
        return
    from django.db import connection

    from search import fts, pg_fts
    from search.keyword_base import REGISTRY
    from search.keyword_index import keyword_index

    with django_db_blocker.unblock(), connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            for period in fts.partitions_all(cursor):
                fts.table_drop(cursor, fts.partition_table(period))
                fts.table_drop(cursor, f"{fts.partition_table(period)}{fts.BUILD_SUFFIX}")
        else:
            cursor.execute(f"TRUNCATE {pg_fts.TABLE}")
        cursor.execute(f"DELETE FROM {REGISTRY}")
        keyword_index(connection.vendor).vocab_reset(cursor)


def render_text_image(lines: list[str], *, size=(900, 60), fmt="PNG", size_px=28, bg="white", fg="black") -> bytes:
    """A screenshot-like image with the given lines of text (English or Chinese)."""
    width, _ = size
    height = max(size[1], 30 + len(lines) * (size_px + 22))
    img = Image.new("RGB", (width, height), bg)
    draw = ImageDraw.Draw(img)
    for i, line in enumerate(lines):
        draw.text((20, 15 + i * (size_px + 22)), line, font=font(size_px), fill=fg)
    out = io.BytesIO()
    img.save(out, format=fmt)
    return out.getvalue()


@pytest.fixture
def api_token(db):
    from myrecall.services import api_token_create

    _, raw = api_token_create(name="tests")
    return raw


@pytest.fixture
def api(client, api_token):
    """Django's test client with a bearer token on every request."""
    client.defaults["HTTP_AUTHORIZATION"] = f"Bearer {api_token}"
    return client


def post_frame(api, image: bytes, **fields):
    data = {"timestamp": time.time(), "app_name": "Editor", "window_name": "notes", "device_name": "laptop"}
    data.update(fields)
    data["image"] = io.BytesIO(image)
    data["image"].name = "frame.png"
    return api.post("/api/v1/frames", data)


def files_holding(folder, words, *, skip=None) -> dict[str, list[str]]:
    """Every file under the folder but `skip` (raw bytes) that holds a word, in any letter case,
    as UTF-8 or UTF-16 (SQLite can store text as either)."""
    found: dict[str, list[str]] = {}
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or path == skip:
            continue
        data = path.read_bytes().lower()
        for word in words:
            forms = [word.lower().encode(form) for form in ("utf-8", "utf-16-le", "utf-16-be")]
            if any(form in data for form in forms):
                found.setdefault(word, []).append(str(path.relative_to(folder)))
    return found


@pytest.fixture
def immediate_ocr(settings):
    """Run queued tasks (OCR, then embedding) in-process at enqueue time, with the real engines."""
    settings.TASKS = {
        "default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend", "QUEUES": ["default", "ocr", "embed"]}
    }


@pytest.fixture
def immediate_ocr_keyword(settings):
    """As immediate_ocr, for tests of OCR and search by keyword: the embedding tasks are not run
    (tests.tasks), the frames stay owed to the vector index."""
    settings.TASKS = {
        "default": {"BACKEND": "tests.tasks.ImmediateBackendButEmbedding", "QUEUES": ["default", "ocr", "embed"]}
    }


@pytest.fixture(scope="session")
def live_server_proc(tmp_path_factory):
    server = LiveServer(tmp_path_factory.mktemp("live") / "data")
    yield server
    if server.proc.poll() is None:
        server.stop()


@pytest.fixture
def frame_make(db):
    """Makes a frame with finished OCR, indexed the way the OCR worker does it; returns its id."""

    def make(text: str, *, at: float, app_name="Editor", window_name="notes.md", browser_url="", focused=True) -> int:
        frame = Frame.objects.create(
            timestamp=datetime.fromtimestamp(at, tz=dt_timezone.utc),
            app_name=app_name,
            window_name=window_name,
            browser_url=browser_url,
            focused=focused,
            image_path="frames/x.jpg",
            width=800,
            height=600,
            image_bytes=1000,
            ocr_status=OcrStatus.DONE,
        )
        OcrResult.objects.create(frame=frame, engine="test", text=text)
        frame_index(frame=frame)
        return frame.id

    return make
