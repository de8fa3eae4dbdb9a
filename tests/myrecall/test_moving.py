"""`manage.py copy_from_sqlite`: an embedded MyRecall's memory (a real `serve` on SQLite: frames read
by OCR, indexed, embedded) copied into PostgreSQL (what the command is for: it runs under
`bash scripts/test.sh --scale`, which .ci/run runs too), its images into another image folder,
its vectors into the configured vector index; then a real `serve` on the copy finds the frames by
their words (English and Chinese) and by meaning at once, and serves the same images. A copy that
stopped goes on where it stopped; one run again copies nothing twice. (Into another SQLite file the
same code copies; a move between two embedded machines is export and import, tested on their own.)"""

import os
import re
import subprocess
import sys
import time

import pytest

from tests.databases import env_for, rows
from tests.live import wait_for
from tests.server import REPO, LiveServer, frames_post_session, ocr_wait

SHARED = ("CHROMA_URL", "CHROMA_TOKEN", "REDIS_URL")


def search(server: LiveServer, q: str, since: float, mode: str = "keyword") -> dict:
    response = server.session.get(
        f"{server.url}/api/v1/search", params={"q": q, "start_time": since, "limit": 50, "mode": mode}, timeout=60
    )
    assert response.status_code == 200, response.text
    return response.json()


@pytest.fixture(scope="module")
def old_memory(tmp_path_factory):
    """A data dir of the embedded default, with a session's frames read, indexed and embedded; stopped."""
    data = tmp_path_factory.mktemp("moving") / "old"
    # The embedded default whatever this run's database: its own SQLite file, its own vector server.
    embedded = {"DATABASE_URL": f"sqlite:///{data / 'myrecall.sqlite3'}", **{name: "" for name in SHARED}}
    since = time.time() - 900
    with LiveServer(data, env=embedded) as server:
        sent = frames_post_session(server=server, count=6, start=since + 60, step_s=60)
        ids = [item["frame_id"] for item in sent]
        ocr_wait(server=server, frame_ids=ids, timeout_s=300)
        # Embedded: every frame has its vectors.
        wait_for(
            lambda: server.session.get(f"{server.url}/api/v1/status", timeout=30).json()["semantic"]["frames"]["pending"] == 0,
            timeout_s=300,
        )
        texts = {
            frame_id: server.session.get(f"{server.url}/api/v1/frames/{frame_id}/ocr", timeout=30).json()
            for frame_id in ids
        }
        images = {frame_id: server.session.get(f"{server.url}/api/v1/frames/{frame_id}", timeout=30).content for frame_id in ids}
        vectors = server.session.get(f"{server.url}/api/v1/status", timeout=30).json()["semantic"]["vectors"]
    return data, since, ids, texts, images, vectors


def copy(target_env: dict, source, *args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", "copy_from_sqlite", str(source), *args],
        cwd=REPO, env={**os.environ, **target_env}, capture_output=True, text=True, timeout=600,
    )


@pytest.mark.postgresql_only
def test_an_embedded_memory_copied_over_is_found_and_shown_at_once_and_a_stopped_copy_goes_on(old_memory, tmp_path):
    data, since, ids, texts, images, vectors = old_memory
    target = tmp_path / "cluster-machine"
    images_dir = tmp_path / "shared-images"
    images_dir.mkdir()
    target_env = {
        "MYRECALL_DATA_DIR": str(target),
        "MYRECALL_IMAGES_DIR": str(images_dir),
        **env_for(target),  # on PostgreSQL, an empty database of its own; on SQLite, the target's file
        **{name: os.environ[name] for name in SHARED if os.environ.get(name)},
    }
    done = copy(target_env, data)
    assert done.returncode == 0, done.stderr
    assert f"{len(ids)} images copied" in done.stdout and f"vectors copied: {vectors}" in done.stdout

    # As if the copy had stopped after the first frames: the last ones' rows are not there yet.
    table_rows = lambda query, params=(): rows(target, query, params, database_url=target_env.get("DATABASE_URL"))  # noqa: E731
    keep = ids[:3]
    subprocess.run(
        [sys.executable, "manage.py", "shell", "-c",
         f"from frames.models import Frame; Frame.objects.filter(id__in={ids[3:]!r}).delete()"],
        cwd=REPO, env={**os.environ, **target_env}, check=True, capture_output=True,
    )
    assert [row[0] for row in table_rows("SELECT id FROM frames_frame ORDER BY id")] == keep
    again = copy(target_env, data)
    assert again.returncode == 0, again.stderr
    assert [row[0] for row in table_rows("SELECT id FROM frames_frame ORDER BY id")] == ids  # each once
    assert f"0 images copied ({len(ids)} were there already)" in again.stdout

    # The copy as a user meets it: a server on it finds every frame at once, by words and by meaning
    # (its search's models loaded at its start, as by default: the suite's servers leave them to the first search).
    with LiveServer(target, env={**target_env, "MYRECALL_WARM_UP": "true"}) as server:
        for frame_id in ids:
            assert server.session.get(f"{server.url}/api/v1/frames/{frame_id}/ocr", timeout=30).json() == texts[frame_id]
            assert server.session.get(f"{server.url}/api/v1/frames/{frame_id}", timeout=30).content == images[frame_id]
        some_text = texts[ids[0]]["text"]
        word = max((w for w in some_text.split() if w.isalpha() and w.isascii()), key=len)
        assert ids[0] in [hit["content"]["frame_id"] for hit in search(server, word, since)["data"]]
        # Two Chinese characters OCR read on a frame: found in the copy (the index was built there).
        chinese = next((frame_id, m.group()) for frame_id in ids for m in re.finditer("[\u4e00-\u9fff]{2}", texts[frame_id]["text"]))
        assert chinese[0] in [hit["content"]["frame_id"] for hit in search(server, chinese[1], since)["data"]]
        # By meaning at once: the vectors were copied, not owed again (a shared vector server may hold more).
        status = server.session.get(f"{server.url}/api/v1/status", timeout=30).json()
        assert status["semantic"]["frames"]["pending"] == 0 and status["semantic"]["vectors"] >= vectors
        # A line of the last frame (copied on the second run), asked by meaning: the frame comes back.
        # (The session is word lists: a paraphrase about nothing on them rightly gets no result.)
        line = max(texts[ids[-1]]["text"].splitlines(), key=lambda text: len(text.split()))
        body = search(server, line, since, mode="semantic")
        assert body["degraded"] is None and {hit["content"]["frame_id"] for hit in body["data"]} <= set(ids)
        assert ids[-1] in [hit["content"]["frame_id"] for hit in body["data"]], (line, body["data"])
