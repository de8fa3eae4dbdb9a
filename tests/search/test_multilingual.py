"""The packaged multilingual model (multilingual-e5-small, the default), for real: its vectors,
its query/passage asymmetry, pieces of Chinese text, an install of the old default (MiniLM)
moving to it by itself, and Chinese and cross-language search on rendered screens read by the
real OCR, with the default configuration."""

import io
import json
import subprocess
import sys
import time
from datetime import datetime
from datetime import timezone as dt_timezone
from pathlib import Path

import numpy as np
import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django_tasks_db.models import DBTaskResult

from frames.services import frames_delete
from myrecall import priorities
from search import services, tasks
from search import vectors as vectors_store
from search.embeddings import (
    E5_SMALL,
    MINILM,
    embed_query,
    embed_texts,
    embedder_info,
    embedder_reads_cjk,
    text_chunks,
)
from search.filters import Filters
from search.hybrid import search_run
from search.status import index_lag_notice, vectors_migration_notice
from search.vectors import vectors_compact, vectors_dir, vectors_release
from tests.conftest import post_frame, render_text_image
from tests.search.test_semantic import SCREENS, T0, frame_add, vectors  # noqa: F401 (a fixture)

REPO = Path(__file__).resolve().parents[2]
# OCR text (window title first) of 16 screens of bench/quality, read by the real OCR, and the
# labelled questions they answer (English, Chinese, English about German and Chinese pages).
OCR_SCREENS = json.loads((Path(__file__).parent / "data" / "ocr_screens.json").read_text())


@pytest.fixture
def e5(settings):
    settings.EMBEDDINGS_MODEL = E5_SMALL.name
    return settings


def cosine(a, b) -> float:
    return float(np.dot(a, b))


def test_e5_gives_unit_384_d_vectors_and_embeds_a_query_unlike_a_passage(e5):
    info = embedder_info()
    assert (info.model, info.endpoint, info.dimensions, info.max_tokens) == ("multilingual-e5-small", "local", 384, 128)
    assert embedder_reads_cjk()
    as_query, as_passage = embed_query("航班延误"), embed_texts(["航班延误"])[0]
    assert len(as_query) == len(as_passage) == 384
    assert all(abs(np.linalg.norm(v) - 1) < 1e-4 for v in (as_query, as_passage))
    assert cosine(as_query, as_passage) < 0.99  # the "query: " and "passage: " prefixes
    e5.EMBEDDINGS_MODEL = MINILM.name  # a key of its own: never the same collections
    assert embedder_info().key != info.key


def test_a_query_embedded_as_a_passage_ranks_worse_on_real_screens(e5):
    """The asymmetry is handled inside the module, and it matters: on 16 OCR'd screens, 41
    questions find their screen higher when embedded as queries (MRR), as e5 was trained."""
    screens = OCR_SCREENS["screens"]
    chunks = {key: embed_texts(text_chunks(text)) for key, text in screens.items()}

    def mrr(embed) -> float:
        total = 0.0
        for query in OCR_SCREENS["queries"]:
            vector = embed(query["q"])
            best = {key: max(cosine(vector, chunk) for chunk in vectors) for key, vectors in chunks.items()}
            order = sorted(best, key=lambda key: -best[key])
            total += 1 / min(order.index(answer) + 1 for answer in query["answers"])
        return total / len(OCR_SCREENS["queries"])

    as_queries, as_passages = mrr(embed_query), mrr(lambda q: embed_texts([q])[0])
    assert as_queries > as_passages + 0.03, (as_queries, as_passages)  # 0.82 against 0.77 in 128-token passages
    assert as_queries > 0.7


def test_chinese_text_is_cut_at_clause_ends_and_every_piece_fits_the_model(e5):
    from search.embeddings import _local_model

    sentence = "航班改签通知：CA1234 北京飞上海的航班因天气原因延误两小时，新的起飞时间为十四点三十五分。"
    text = sentence * 40
    chunks = text_chunks(text)
    assert len(chunks) > 3
    assert "".join(chunks) == text  # nothing lost, no space added between Chinese pieces
    engine = _local_model().engine
    assert max(engine.token_count(chunk) for chunk in chunks) <= embedder_info().max_tokens
    # Every cut falls after a clause's punctuation, never inside a word.
    assert all(chunk[-1] in "：，。" for chunk in chunks[:-1]), [chunk[-3:] for chunk in chunks]
    # A run with no punctuation at all is still cut to fit.
    run = "屏幕记忆会把每一帧截图里的文字识别出来" * 60
    pieces = text_chunks(run)
    assert "".join(pieces) == run and max(engine.token_count(piece) for piece in pieces) <= embedder_info().max_tokens


def test_threads_setting_keeps_the_engine_to_its_cores():
    """EMBEDDINGS_THREADS is the engine's OpenMP thread count (read once, when it loads); the
    environment is left as it was."""
    script = (
        "import os, django; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'myrecall.settings'); django.setup()\n"
        "from search.embeddings import embed_texts\n"
        "before = len(os.listdir('/proc/self/task'))\n"
        "embed_texts(['passage %d about the weather in Berlin and a train to Munich' % i for i in range(8)])\n"
        "print(len(os.listdir('/proc/self/task')) - before, os.environ.get('OMP_NUM_THREADS'))\n"
    )

    def threads_added(threads: str) -> str:
        env = {"PATH": "/usr/bin:/bin", "EMBEDDINGS_MODEL": "multilingual-e5-small", "EMBEDDINGS_THREADS": threads,
               "MYRECALL_DATA_DIR": "/tmp", "HOME": "/tmp"}
        done = subprocess.run([sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    assert threads_added("1") == ["0", "None"]
    assert threads_added("2") == ["1", "None"]  # one OpenMP worker beside the calling thread


def test_an_unknown_model_name_stops_the_server_at_its_checks(settings):
    settings.EMBEDDINGS_MODEL = "multilingual-e5-large"
    with pytest.raises(SystemCheckError, match="search.E001"):
        call_command("check")
    settings.EMBEDDINGS_BASE_URL = "http://127.0.0.1:9/v1"  # an endpoint may serve any name
    call_command("check")


def test_an_install_of_the_old_default_moves_to_the_new_one_by_itself(vectors, settings, api, client, django_user_model, monkeypatch):
    """Frames embedded by MiniLM (the default before), then the new default configured: the
    worker re-embeds them in the background, newest first, behind new frames; keyword search
    answers throughout, the status API, the timeline and the worker say how far it is, frames
    deleted meanwhile leave nothing in either model's vectors, a worker that dies mid-way goes
    on when restarted, and at the end none of MiniLM's collections is left. Switching back moves
    them back the same way."""
    settings.CHROMA_URL = ""  # the embedded index: the test reads which of its folders Chroma keeps
    settings.EMBEDDINGS_MODEL = MINILM.name
    ids = [frame_add(offset, app, window, text) for offset, app, window, text in SCREENS]
    while services.vectors_embed_pending()[0]:
        pass
    minilm_key = embedder_info().key
    everything = Filters(start_time=T0 - 60, end_time=T0 + 86400)

    def meaning(q: str) -> list[int]:
        result = search_run(q=q, filters=everything, mode="semantic", limit=10, offset=0)
        assert result.degraded is None, result.degraded
        return [hit.frame_id for hit in result.hits]

    def frames_of(key: str) -> set[int]:
        return {
            hit.frame_id
            for day in vectors_store.days_present(embedder_key=key)
            for hit in vectors_store.day_query(embedder_key=key, day=day, embedding=[1.0] * 384, n=1000).hits
        }

    def line(done: int, total: int, model: str = "multilingual-e5-small") -> str:
        return (f"Search by meaning is being rebuilt for {model}: {done} of {total} frames done (newest first); "
                "keyword search finds everything meanwhile.")

    def folders() -> set[str]:
        return {path.name for path in (vectors_dir() / "db").iterdir() if path.is_dir()}

    def worker_runs() -> None:
        while DBTaskResult.objects.filter(task_path=tasks.vectors_embed.module_path, status="READY").exists():
            DBTaskResult.objects.ready().get_locked().claim("worker")
            tasks.vectors_embed.call()

    assert meaning("the invoice from the dentist")[0] == ids[0]
    assert vectors_migration_notice() is None and api.get("/api/v1/status").json()["semantic"]["migration"] is None

    settings.EMBEDDINGS_MODEL = ""  # upgraded: the new default
    assert tasks.embedder_ready_line().startswith("embedder multilingual-e5-small ready")  # the worker's start loads it
    # Nothing of MiniLM's is read with e5's query: search by meaning finds nothing yet, hybrid answers by the words.
    assert meaning("the invoice from the dentist") == []
    hybrid = search_run(q="Rechnung", filters=everything, mode="hybrid", limit=10, offset=0)
    assert [hit.frame_id for hit in hybrid.hits] == [ids[0]] and hybrid.hits[0].matched == ("keyword",) and hybrid.degraded is None
    status = api.get("/api/v1/status").json()["semantic"]
    assert status["migration"] == {"model": "multilingual-e5-small", "frames_done": 0, "frames_total": len(SCREENS)}
    assert (status["frames"]["of_model"], status["frames"]["other_model"]) == (0, len(SCREENS))
    assert vectors_migration_notice() == line(0, len(SCREENS)) and index_lag_notice() is None
    client.force_login(django_user_model.objects.create_user("u", password="p"))
    assert line(0, len(SCREENS)) in client.get("/", {"date": "2026-11-20"}).content.decode()

    # The worker starts: it says so and queues the move with the backlog.
    assert tasks.vectors_migration_start() == line(0, len(SCREENS))
    assert list(DBTaskResult.objects.filter(status="READY").values_list("priority", flat=True)) == [priorities.BACKLOG]
    # A batch moves the newest frames first.
    assert services.vectors_migrate_batch(limit=3) == (3, True)
    assert frames_of(embedder_info().key) == set(ids[-3:]) and meaning("airplane trip to Portugal")[0] == ids[6]
    assert vectors_migration_notice() == line(3, len(SCREENS))
    # A new screen meanwhile is embedded by the new model ahead of the move.
    new = frame_add(600, "WeChat", "出行提醒", "航班改签通知：CA1234 北京飞上海延误两小时")
    assert services.vectors_embed_next(limit=2) == (1, True) and new in meaning("飞机晚点")[:2]
    assert vectors_migration_notice() == line(4, len(SCREENS) + 1)
    # Deleted meanwhile, one moved and one not yet: nothing of them in either model's vectors.
    frames_delete(start=datetime.fromtimestamp(T0 + 50, tz=dt_timezone.utc), end=datetime.fromtimestamp(T0 + 70, tz=dt_timezone.utc))
    frames_delete(start=datetime.fromtimestamp(T0 + 3 * 3600 - 10, tz=dt_timezone.utc), end=datetime.fromtimestamp(T0 + 3 * 3600 + 10, tz=dt_timezone.utc))
    gone = {ids[1], ids[6]}
    assert not gone & (frames_of(minilm_key) | frames_of(embedder_info().key))
    assert vectors_migration_notice() == line(3, len(SCREENS) - 1)

    # The worker dies in a batch (its claim is made, nothing written); restarted, it goes on.
    def killed(**kwargs):
        raise SystemExit("killed")

    with monkeypatch.context() as patch, pytest.raises(SystemExit):
        patch.setattr(services, "frames_embed", killed)
        services.vectors_migrate_batch(limit=2)
    DBTaskResult.objects.all().delete()
    assert tasks.vectors_migration_start() == line(3, len(SCREENS) - 1)
    folders_before = folders()
    worker_runs()

    status = api.get("/api/v1/status").json()["semantic"]
    assert status["migration"] is None and (status["frames"]["of_model"], status["frames"]["other_model"]) == (len(SCREENS) - 1, 0)
    assert vectors_migration_notice() is None and tasks.vectors_migration_start() is None
    assert line(0, 1).split(":")[0] not in client.get("/", {"date": "2026-11-20"}).content.decode()
    assert vectors_store.days_present(embedder_key=minilm_key) == []  # MiniLM's collections are dropped, their files too
    assert folders() < folders_before
    assert frames_of(embedder_info().key) == set(ids + [new]) - gone
    for q, frame_id in (("will it be stormy", ids[4]), ("the invoice from the dentist", ids[0])):
        assert meaning(q)[0] == frame_id
    # The Chinese meeting note, by a Chinese paraphrase that shares no two characters with it.
    assert meaning("工程拖期了，钱要再算")[0] == ids[5]
    vectors_release()  # as when the vector server stops: its next start finds no folder left behind
    assert vectors_compact()[0] == 0

    settings.EMBEDDINGS_MODEL = MINILM.name  # and back, the same way
    assert tasks.vectors_migration_start() == line(0, len(SCREENS) - 1, "all-MiniLM-L6-v2")
    worker_runs()
    assert vectors_migration_notice() is None and meaning("the invoice from the dentist")[0] == ids[0]
    settings.EMBEDDINGS_MODEL = ""
    assert vectors_store.days_present(embedder_key=embedder_info().key) == []


@pytest.mark.django_db(transaction=True)
def test_chinese_and_cross_language_search_on_rendered_screens_read_by_ocr(api, immediate_ocr, settings):
    settings.EMBEDDINGS_MODEL = ""  # the default
    start = time.time() - 60
    screens = {
        "flight": (["航班改签通知", "CA1234 北京飞上海延误两小时", "新的起飞时间 14:35，请留意登机口变更"], "邮箱", "航班改签通知"),
        "dentist": (["Zahnarztpraxis Dr. Vogel", "Rechnung Nr. 4411: Zahnreinigung und Röntgen", "Betrag 240 EUR, fällig am 30. November"], "Preview", "Rechnung_4411.pdf"),
        "cart": (["淘宝网 我的购物车", "小米空气净化器 家用除甲醛 ¥1299.00", "合计 ¥1299.00 结算"], "Google Chrome", "我的购物车"),
        "pods": (["dev@mbp: kubectl get pods -n staging", "api-7d9f 0/1 CrashLoopBackOff 12 restarts", "worker-55c 1/1 Running"], "Terminal", "zsh"),
        "notes": (["会议记录：项目进度延迟", "预算需要重新评估", "下周一之前提交新计划"], "飞书", "项目周会"),
    }
    ids = {}
    for name, (lines, app, window) in screens.items():
        resp = post_frame(api, render_text_image(lines, size=(1100, 60)), app_name=app, window_name=window)
        assert resp.status_code == 201, resp.content
        ids[name] = resp.json()["frame_id"]
        text = api.get(f"/api/v1/frames/{ids[name]}/ocr").json()["text"]
        assert lines[1][:6] in text, text  # OCR read the screen, so the search is judged fairly

    def first(q: str, mode: str = "semantic") -> int | None:
        body = api.get("/api/v1/search", {"q": q, "start_time": start, "mode": mode}).json()
        assert body["degraded"] is None, body["degraded"]
        return body["data"][0]["content"]["frame_id"] if body["data"] else None

    assert first("飞机晚点") == ids["flight"]  # Chinese by meaning, no word in common
    assert first("网上买的家电") == ids["cart"]
    assert first("工程拖期") == ids["notes"]
    assert first("the invoice from the dentist") == ids["dentist"]  # English for a German page
    assert first("delayed flight from Beijing to Shanghai") == ids["flight"]  # English for a Chinese page
    assert first("air purifier in my shopping cart") == ids["cart"]
    assert first("my pods keep crashing") == ids["pods"]
    # Hybrid keeps every Chinese keyword hit where keyword search alone puts it.
    keyword = [item["content"]["frame_id"] for item in api.get("/api/v1/search", {"q": "预算", "start_time": start, "mode": "keyword"}).json()["data"]]
    hybrid = [item["content"]["frame_id"] for item in api.get("/api/v1/search", {"q": "预算", "start_time": start}).json()["data"]]
    assert keyword == [ids["notes"]] and hybrid[: len(keyword)] == keyword
