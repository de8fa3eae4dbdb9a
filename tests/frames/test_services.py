"""Live frames first: the order the worker reads frames in (OCR, and with it the keyword index),
on the real task table with the claim the worker makes; and on a real `serve`, a frame posted
during a backlog is searchable before the backlog is done, and the backlog still drains."""

import io
import json
import random
import subprocess
import sys
import time

import pytest
from django_tasks_db.models import DBTaskResult

from frames.models import OcrResult
from frames.services import LIVE_MAX_AGE_S, frame_ingest, frame_ocr_run
from frames.tasks import frame_ocr
from tests.conftest import render_text_image
from tests.screens import new_screen, render, rows_for, session
from tests.server import REPO, LiveServer

pytestmark = pytest.mark.django_db


def _ingest(word: str, *, device: str, age_s: float = 0.0, imported: bool = False) -> int:
    image = render_text_image([f"{word} on the screen of {device}"])
    result = frame_ingest(image_bytes=image, timestamp=time.time() - age_s, device_name=device, imported=imported)
    assert result.status == "created"
    return result.frame_id


def _claims() -> list[int]:
    """The frames whose OCR the worker takes, in the order it takes them (its own claim query)."""
    order = []
    while (task := DBTaskResult.objects.ready().get_locked()) is not None:
        task.claim("test-worker")
        if task.task_path == frame_ocr.module_path:
            order.append(task.args_kwargs["args"][0])
    return order


def test_live_frames_are_read_before_imports_and_resends_each_devices_newest_first(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        imported = [_ingest(f"imported{n}", device="archive", imported=True) for n in range(3)]
        resent = [_ingest(f"spooled{n}", device="laptop", age_s=LIVE_MAX_AGE_S + 600 - n) for n in range(2)]
        laptop_first = _ingest("typed", device="laptop")
        desktop = _ingest("reading", device="desktop")
        laptop_newest = _ingest("sent", device="laptop")
    # Each device's newest screen first, then the live ones they overtook, then the backlog as it came.
    assert _claims() == [desktop, laptop_newest, laptop_first, *imported, *resent]


def test_a_live_frame_taken_before_a_waiting_one_does_not_overtake_it(django_capture_on_commit_callbacks):
    """A client that sends out of order (a retry of an older capture) does not push its newer frame back."""
    with django_capture_on_commit_callbacks(execute=True):
        newer = _ingest("newer", device="laptop", age_s=1)
        older = _ingest("older", device="laptop", age_s=5)
    assert _claims() == [newer, older]


def test_frames_read_newest_first_are_each_read_against_an_earlier_frame(django_capture_on_commit_callbacks):
    """Incremental OCR reads what changed since the device's previous frame that was read: read
    out of order, that is an earlier frame still (never a later one), and no word is lost or borrowed."""
    size = (1280, 720)
    screen = new_screen(random.Random(5), "editor")
    short = min(range(screen.scroll, screen.scroll + rows_for("editor", size[1])), key=lambda row: len(screen.lines[row]))
    sent = []
    with django_capture_on_commit_callbacks(execute=True):
        for age, word in ((3, "ledger"), (2, "harbor"), (1, "meadow")):
            screen.lines[short] += f" {word}"
            out = io.BytesIO()
            render(screen, size=size).save(out, format="PNG")
            sent.append(frame_ingest(image_bytes=out.getvalue(), timestamp=time.time() - age, device_name="laptop").frame_id)
    first, second, newest = sent
    order = _claims()
    assert order == [newest, first, second]
    for frame_id in order:
        frame_ocr_run(frame_id=frame_id)

    read = {frame_id: OcrResult.objects.get(frame_id=frame_id) for frame_id in sent}
    assert read[newest].carried_from_id is None and read[first].carried_from_id is None
    assert read[second].carried_from_id == first and read[second].ocr_area < 0.5
    for frame_id, words in ((first, {"ledger"}), (second, {"ledger", "harbor"}), (newest, {"ledger", "harbor", "meadow"})):
        text = read[frame_id].text
        assert {word for word in ("ledger", "harbor", "meadow") if word in text} == words, (frame_id, text)


BACKLOG_FRAMES = 14
WAIT_S = 900  # generous: a loaded 2-core machine; nothing here is timed


def _wait(what: str, condition, server: LiveServer):
    deadline = time.time() + WAIT_S
    while time.time() < deadline:
        if (found := condition()) is not None:
            return found
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}\n{server.log_path.read_text()[-4000:]}")


def test_on_a_real_serve_a_live_frame_is_searchable_while_an_import_is_read_and_the_import_drains(tmp_path):
    folder = tmp_path / "screenshots"
    folder.mkdir()
    start = time.time() - 86400
    for index, (screen, _) in enumerate(session(random.Random(21), BACKLOG_FRAMES)):
        render(screen).save(folder / f"{index:03d}.png")
        (folder / f"{index:03d}.json").write_text(json.dumps({"timestamp": start + 3 * index, "app_name": screen.app_name}))

    with LiveServer(tmp_path / "data") as server:

        def count(where: str, *params) -> int:
            return server.rows(f"SELECT count(*) FROM frames_frame WHERE {where}", params)[0][0]

        importing = subprocess.Popen(
            [sys.executable, "manage.py", "frames_import", str(folder), "--device-name", "old-laptop"],
            cwd=REPO, env=server.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        try:
            _wait("the import to store some frames", lambda: True if count("device_name = 'old-laptop'") >= 8 else None, server)
            posted_at = time.time()
            image = render_text_image(["Minutes: the pelican budget was approved"], size=(1280, 200))
            resp = server.session.post(
                server.url + "/api/v1/frames",
                files={"image": ("now.png", image, "image/png")},
                data={"timestamp": posted_at, "app_name": "Editor", "device_name": "laptop"},
                timeout=60,
            )
            assert resp.status_code == 201, resp.text
            live_id = resp.json()["frame_id"]

            def unread_before_live_when_found():
                hits = server.session.get(
                    server.url + "/api/v1/search",
                    params={"q": "pelican", "start_time": posted_at - 60, "mode": "keyword"},
                    timeout=60,
                ).json()["data"]
                if live_id in [hit["content"]["frame_id"] for hit in hits]:
                    return count("id < %s AND ocr_status = 'pending'", live_id)
                return None

            unread = _wait("the live frame to be searchable", unread_before_live_when_found, server)
            # Imported frames that came before it were still waiting: it was read ahead of them.
            assert unread > 0
            waiting = server.session.get(server.url + "/api/v1/status", timeout=60).json()["keyword"]["waiting"]
            assert waiting["frames"] >= 1 and waiting["oldest_wait_s"] > 0
            output, _ = importing.communicate(timeout=WAIT_S)
            assert importing.returncode == 0, output
        finally:
            if importing.poll() is None:
                importing.kill()
                importing.wait()

        imported = count("device_name = 'old-laptop'")
        assert imported > BACKLOG_FRAMES // 2
        # Read to its end: no frame of the backlog is left behind.
        _wait("the import to be read to its end", lambda: True if count("ocr_status = 'pending'") == 0 else None, server)
        assert count("device_name = 'old-laptop' AND ocr_status = 'done'") == imported
        waiting = server.session.get(server.url + "/api/v1/status", timeout=60).json()["keyword"]["waiting"]
        assert waiting == {"frames": 0, "oldest_wait_s": None}
