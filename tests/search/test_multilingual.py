"""The packaged multilingual model (EMBEDDINGS_MODEL=multilingual-e5-small), for real: its
vectors, its query/passage asymmetry, pieces of Chinese text, vectors of two models never
mixed, the rebuild after a switch, and Chinese and cross-language search on rendered screens
read by the real OCR."""

import io
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from search import services
from search.embeddings import (
    E5_SMALL,
    MINILM,
    embed_query,
    embed_texts,
    embedder_info,
    embedder_reads_cjk,
    semantic_max_distance,
    text_chunks,
)
from search.filters import Filters
from search.hybrid import search_run
from search.status import index_lag_notice, index_status, vectors_note
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
    assert (info.model, info.endpoint, info.dimensions, info.max_tokens) == ("multilingual-e5-small", "local", 384, 256)
    assert embedder_reads_cjk() and semantic_max_distance() == pytest.approx(1 - E5_SMALL.min_similarity)
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
    assert as_queries > as_passages + 0.05, (as_queries, as_passages)
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


def test_vectors_of_two_models_are_never_mixed_and_a_rebuild_moves_every_frame_over(vectors, settings):
    ids = [frame_add(offset, app, window, text) for offset, app, window, text in SCREENS]
    while services.vectors_embed_pending()[0]:
        pass
    everything = Filters(start_time=T0 - 60, end_time=T0 + 86400)
    minilm = [hit.frame_id for hit in search_run(q="the invoice from the dentist", filters=everything, mode="semantic", limit=10, offset=0).hits]
    assert minilm[0] == ids[0]

    settings.EMBEDDINGS_MODEL = E5_SMALL.name
    # Nothing of MiniLM's is read with e5's query: search by meaning finds nothing yet, hybrid
    # answers from the words alone, and the user is told what to run.
    assert search_run(q="the invoice from the dentist", filters=everything, mode="semantic", limit=10, offset=0).hits == []
    hybrid = search_run(q="Rechnung", filters=everything, mode="hybrid", limit=10, offset=0)
    assert [hit.frame_id for hit in hybrid.hits] == [ids[0]] and hybrid.hits[0].matched == ("keyword",)
    frames = index_status()["semantic"]["frames"]
    assert (frames["of_model"], frames["other_model"]) == (0, len(SCREENS))
    for note in (vectors_note(), index_lag_notice()):
        assert f"{len(SCREENS)} frame(s) have vectors of another embedding model than multilingual-e5-small" in note
        assert "manage.py reindex --vectors" in note

    # A new frame meanwhile is embedded by the model configured now.
    new = frame_add(600, "WeChat", "出行提醒", "航班改签通知：CA1234 北京飞上海延误两小时")
    while services.vectors_embed_pending()[0]:
        pass
    assert search_run(q="飞机晚点", filters=everything, mode="semantic", limit=10, offset=0).hits[0].frame_id == new

    out = io.StringIO()
    call_command("reindex", "--vectors", stdout=out, stderr=io.StringIO())
    frames = index_status()["semantic"]["frames"]
    assert (frames["of_model"], frames["other_model"]) == (len(SCREENS) + 1, 0)
    assert vectors_note() is None
    status = index_status()["semantic"]
    assert status["embedder"]["model"] == "multilingual-e5-small" and status["vectors"] >= len(SCREENS) + 1
    for q, frame_id in (("will it be stormy", ids[4]), ("airplane trip to Portugal", ids[6])):
        assert search_run(q=q, filters=everything, mode="semantic", limit=10, offset=0).hits[0].frame_id == frame_id
    # The Chinese meeting note, by a Chinese paraphrase that shares no two characters with it.
    assert search_run(q="工程拖期了，钱要再算", filters=everything, mode="semantic", limit=10, offset=0).hits[0].frame_id == ids[5]


@pytest.mark.django_db(transaction=True)
def test_chinese_and_cross_language_search_on_rendered_screens_read_by_ocr(api, immediate_ocr, settings):
    settings.EMBEDDINGS_MODEL = E5_SMALL.name
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
