"""Which frames a search by meaning returns (search.relevance): the records a frame keeps of its
chunks, the selection rule, and, for real (the default model, a real Chroma, screens rendered
and read by the real OCR, through the API), questions in Chinese, in English and across the two
found while questions the screens have no answer to get little or nothing."""

import time

import numpy as np
import pytest

from search import relevance
from search.embeddings import embed_query, embed_texts, embedder_info
from search.models import FrameVectors
from tests.conftest import post_frame, render_text_image
from tests.search.test_semantic import frame_add, vectors  # noqa: F401 (a fixture)


def test_a_record_per_chunk_keeps_its_script_and_how_near_everyday_questions_come(db):
    chunks = ["Quarterly budget review with the finance team", "会议记录：项目进度延迟，预算需要重新评估", "kubectl get pods"]
    vectors_ = embed_texts(chunks)
    stats = relevance.chunk_stats(chunks, vectors_)
    assert len(stats) == 3 * relevance.RECORD_BYTES
    records = [relevance.chunk_record(stats, i) for i in range(3)]
    assert [record[0] for record in records] == [relevance.LATIN, relevance.CJK, relevance.LATIN]
    assert relevance.chunk_record(stats, 3) is None and relevance.chunk_record(None, 0) is None
    # The mean and deviation are those of the background questions of each group, less the nearest TRIM.
    found = relevance.background()
    sims = np.asarray(vectors_[1]) @ found.vectors.T
    cjk = np.sort(sims[found.language == relevance.CJK])
    kept = cjk[: round(len(cjk) * (1 - relevance.TRIM))]
    assert records[1][3] == pytest.approx(kept.mean(), abs=1e-3) and records[1][4] == pytest.approx(kept.std(), abs=1e-3)
    # A Chinese question is measured against the Chinese background questions, an English one the others.
    assert relevance.query_language("预算") == relevance.CJK and relevance.query_language("budget 2026") == relevance.LATIN
    assert relevance.chunk_z(records[1], records[1][3] + 2 * records[1][4], relevance.CJK) == pytest.approx(2.0, abs=1e-3)
    # Divided by at least the floor: a chunk everyday questions all draw alike is not taken for one
    # that stands out.
    deviations = relevance.record_deviations(stats, relevance.CJK)
    assert deviations == pytest.approx([record[4] for record in records], abs=1e-6)
    assert relevance.record_deviations(None, relevance.LATIN) == []
    floor = relevance.deviations_floor(deviations)
    assert floor == pytest.approx(sorted(deviations)[1], abs=1e-6)
    assert relevance.deviations_floor([]) == 0.0
    assert relevance.chunk_z(records[1], records[1][3] + 2 * records[1][4], relevance.CJK, 4 * records[1][4]) == pytest.approx(0.5, abs=1e-3)
    assert relevance.chunk_z(records[1], records[1][3] + 2 * records[1][4], relevance.CJK, records[1][4] / 2) == pytest.approx(2.0, abs=1e-3)


def test_a_question_in_one_language_is_not_pulled_to_every_page_in_it(db):
    """The pull: a Chinese question is nearer the mean Chinese background question, so Chinese
    chunks are moved farther by the difference (half of it, PULL_WEIGHT), English ones not."""
    chinese = relevance.query_relevance("上周的预算会议", embed_query("上周的预算会议"))
    english = relevance.query_relevance("last week's budget meeting", embed_query("last week's budget meeting"))
    assert chinese.language == relevance.CJK and english.language == relevance.LATIN
    assert chinese.pull[relevance.CJK] > 0 and chinese.pull[relevance.LATIN] == 0
    assert english.pull[relevance.LATIN] > 0 and english.pull[relevance.CJK] == 0


def test_the_selection_keeps_what_stands_out_and_one_frame_when_nothing_does(settings):
    settings.EMBEDDINGS_MODEL = "multilingual-e5-small"
    keep, sure, first = relevance.thresholds()
    assert first < keep < sure
    # Something stands out: every frame that reaches z_keep, in order; a frame without a record counts.
    ranked = [(1, 0.1, sure + 0.1), (2, 0.2, keep - 0.1), (3, 0.3, keep), (4, 0.4, None)]
    assert relevance.select(ranked) == [(1, 0.1), (3, 0.3), (4, 0.4)]

    # Nothing stands out: only the nearest, if it reaches z_first ...
    assert relevance.select([(5, 0.1, first), (6, 0.2, keep + 0.5)]) == [(5, 0.1)]
    # ... else the nearest that reaches z_keep, else nothing.
    assert relevance.select([(5, 0.1, first - 0.1), (6, 0.2, keep + 0.5), (7, 0.3, keep + 0.2)]) == [(6, 0.2)]
    assert relevance.select([(5, 0.1, first - 0.1), (6, 0.2, keep - 0.1)]) == []
    assert relevance.select([]) == []
    # Only the SURE_AMONG nearest decide whether something stands out.
    far = [(i, 0.01 * i, keep) for i in range(relevance.SURE_AMONG)] + [(99, 0.9, sure + 1)]
    assert relevance.select(far) == [(0, 0.0)]


def test_every_embedded_frame_keeps_a_record_per_chunk(vectors):
    from search import services

    frame_id = frame_add(0, "Slack", "#general", "Lunch at noon? The new ramen place on 5th street opened today")
    services.vectors_embed_pending()
    row = FrameVectors.objects.get(frame_id=frame_id)
    assert row.chunks == 1 and len(bytes(row.relevance)) == relevance.RECORD_BYTES
    assert embedder_info().model == "multilingual-e5-small"  # the default


SCREENS = {
    "flight": (["航班改签通知", "CA1234 北京飞上海延误两小时", "新的起飞时间 14:35，请留意登机口变更"], "邮箱", "航班改签通知"),
    "dentist": (["Zahnarztpraxis Dr. Vogel", "Rechnung Nr. 4411: Zahnreinigung und Röntgen", "Betrag 240 EUR, fällig am 30. November"], "Preview", "Rechnung_4411.pdf"),
    "pods": (["dev@mbp: kubectl get pods -n staging", "api-7d9f 0/1 CrashLoopBackOff 12 restarts", "worker-55c 1/1 Running"], "Terminal", "zsh"),
    "invoice": (["Stripe Dashboard - Payments", "Refund issued to customer for order 8812", "Amount refunded: $49.00, reason: duplicate charge"], "Google Chrome", "Payments"),
    "notes": (["会议记录：项目进度延迟", "预算需要重新评估", "下周一之前提交新计划"], "飞书", "项目周会"),
}
# Questions none of these screens answers, in both languages, sharing no word with them.
OFF_TOPIC = ["wedding photographer", "knitting a wool hat", "honey bees", "saxophone reed", "婚礼摄影师", "怎么织毛线帽子"]


@pytest.mark.django_db(transaction=True)  # OCR is queued on commit
def test_questions_in_both_languages_are_found_and_off_topic_ones_get_little(api, immediate_ocr, settings):
    settings.EMBEDDINGS_MODEL = ""  # the default
    start = time.time() - 60
    ids = {}
    for name, (lines, app, window) in SCREENS.items():
        resp = post_frame(api, render_text_image(lines, size=(1100, 60)), app_name=app, window_name=window)
        assert resp.status_code == 201, resp.content
        ids[name] = resp.json()["frame_id"]
        assert lines[1][:6] in api.get(f"/api/v1/frames/{ids[name]}/ocr").json()["text"]  # OCR read it

    def search(q: str, mode: str = "semantic") -> list[int]:
        body = api.get("/api/v1/search", {"q": q, "start_time": start, "mode": mode}).json()
        assert body["degraded"] is None, body["degraded"]
        return [item["content"]["frame_id"] for item in body["data"]]

    assert search("飞机晚点")[0] == ids["flight"]  # Chinese, no word in common
    assert search("the payment I gave back to a buyer")[0] == ids["invoice"]  # English, no word in common
    assert search("delayed flight from Beijing to Shanghai")[0] == ids["flight"]  # English about a Chinese page
    assert search("给客户退款")[0] == ids["invoice"]  # Chinese about an English page
    assert search("容器一直崩溃重启")[0] == ids["pods"]
    for mode in ("semantic", "hybrid"):
        got = {q: search(q, mode) for q in OFF_TOPIC}
        assert all(len(found) <= 1 for found in got.values()), (mode, got)


def test_a_fixed_bar_the_user_sets_replaces_the_rule(vectors, settings):
    """MYRECALL_SEMANTIC_MIN_SIMILARITY: every frame at least that similar, by raw similarity."""
    from search import services
    from search.filters import Filters
    from search.hybrid import search_run
    from tests.search.test_semantic import T0

    ids = [frame_add(i * 60, "Notes", "n", text) for i, text in enumerate(
        ["Lunch at noon at the new ramen place", "Form 1040: filing deadline April 15", "会议记录：项目进度延迟"]
    )]
    services.vectors_embed_pending()

    def found(bar: float) -> list[tuple[int, float]]:
        settings.SEMANTIC_MAX_DISTANCE = 1 - bar
        result = search_run(q="wedding photographer", filters=Filters(start_time=T0 - 60, end_time=T0 + 3600), mode="semantic", limit=10, offset=0)
        return [(hit.frame_id, hit.score) for hit in result.hits]

    settings.SEMANTIC_MAX_DISTANCE = None
    assert len(search_run(q="wedding photographer", filters=Filters(start_time=T0 - 60, end_time=T0 + 3600), mode="semantic", limit=10, offset=0).hits) <= 1
    everything = found(-1.0)
    assert sorted(frame_id for frame_id, _ in everything) == sorted(ids)
    scores = [score for _, score in everything]
    assert scores == sorted(scores, reverse=True)  # raw similarity, nearest first
    assert found(0.999) == []
