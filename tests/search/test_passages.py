"""Passages cut where the screen's layout cuts (search.passages), and the second model's reading
of what search by meaning found (search.crosscheck), on real OCR and the real models."""

import io
import time

import pytest
from PIL import Image, ImageDraw

from search.models import FrameVectors
from search.passages import Passage, frame_passages, layout_blocks, passage_screen_text, spans_pack, spans_unpack
from tests.conftest import font, post_frame


def test_lines_side_by_side_are_blocks_apart_and_a_paragraph_gap_ends_a_block():
    # A sidebar (x 10) beside a message list (x 400), rows at the same heights; then, below a
    # gap of three line heights, a paragraph under the list.
    boxes = []
    for row in range(4):
        boxes.append((10, 100 + 30 * row, 120, 20))  # sidebar
        boxes.append((400, 100 + 30 * row, 700, 20))  # list
    boxes += [(400, 300, 650, 20), (400, 328, 600, 20)]
    blocks = layout_blocks(boxes)
    assert sorted(map(sorted, blocks)) == [[0, 2, 4, 6], [1, 3, 5, 7], [8, 9]]
    # Reading order: by the block's top, then its left.
    assert blocks[0] == [0, 2, 4, 6] and blocks[2] == [8, 9]
    assert layout_blocks([]) == []


def test_passages_hold_whole_blocks_start_with_the_title_and_point_back_into_the_text():
    sidebar = ["Inbox", "Starred", "Sent", "Drafts"]
    mails = [f"Newsletter {i}: weekly digest of offers and deals" for i in range(4)]
    notice = ["Flight CA1234 Beijing to Shanghai is delayed by two hours", "New departure 14:35, please check the gate"]
    lines, texts = [], []
    for row in range(4):
        for x, text in ((10, sidebar[row]), (400, mails[row])):
            lines.append({"t": text, "b": [x, 100 + 30 * row, 300, 20]})
    for row, text in enumerate(notice):
        lines.append({"t": text, "b": [400, 400 + 28 * row, 600, 20]})
    texts = [line["t"] for line in lines]
    text = "\n".join(texts)
    passages = frame_passages(window_name="Mail", text=text, lines=lines)
    assert all(p.text.startswith("Mail\n") for p in passages)
    screen = [passage_screen_text(text, p.spans) for p in passages]
    # The sidebar's words never sit between two mails, and the notice is one piece.
    holding = [s for s in screen if "delayed" in s]
    assert len(holding) == 1 and "New departure" in holding[0]
    assert not any("Inbox" in s and "Newsletter 0" in s and s.index("Inbox") > s.index("Newsletter 0") for s in screen)
    assert sorted(line for s in screen for line in s.split("\n")) == sorted(texts)  # nothing lost, nothing twice
    # Without boxes (or boxes that do not match the text), the text's lines in order.
    plain = frame_passages(window_name="Mail", text=text, lines=None)
    assert "\n".join(passage_screen_text(text, p.spans) for p in plain) == text
    assert frame_passages(window_name="Mail", text=text, lines=lines[:3]) == plain
    # What the index keeps of them reads back.
    assert spans_unpack(spans_pack(passages)) == [p.spans for p in passages]
    assert spans_unpack(None) == [] and frame_passages(window_name="", text="") == []
    assert frame_passages(window_name="Only a title", text="") == [Passage(text="Only a title", spans=())]


def busy_screen(notice: list[str], filler: list[str]) -> bytes:
    """A 1280x800 two-column screen: a folder list on the left, mails on the right, one of them
    the notice, among unrelated ones."""
    image = Image.new("RGB", (1280, 800), "white")
    draw = ImageDraw.Draw(image)
    for row, folder in enumerate(["Inbox", "Starred", "Snoozed", "Sent", "Drafts", "Spam", "Trash"]):
        draw.text((20, 40 + 40 * row), folder, font=font(20), fill="black")
    y = 40
    for line in filler[:6]:
        draw.text((300, y), line, font=font(20), fill="black")
        y += 36
    y += 40
    for line in notice:
        draw.text((300, y), line, font=font(20), fill="black")
        y += 36
    y += 40
    for line in filler[6:]:
        draw.text((300, y), line, font=font(20), fill="black")
        y += 36
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


FILLER = [
    "Weekly digest: ten recipes for autumn soups",
    "Your parcel from the bookshop has been dispatched",
    "Team lunch on Friday at the Italian place",
    "Reminder: renew the gym membership this month",
    "Photos from the school concert are online",
    "The quarterly newsletter of the running club",
    "Invitation: garden party at the neighbours on Sunday",
    "Your library books are due back next week",
    "A new episode of the history podcast is out",
]


@pytest.mark.django_db(transaction=True)  # OCR is queued on commit
def test_a_busy_screen_is_found_by_its_one_notice_in_another_language_and_shows_it(api, immediate_ocr, settings, monkeypatch):
    settings.EMBEDDINGS_MODEL = ""  # the default
    start = time.time() - 60
    notice = ["Flight CA1234 from Beijing to Shanghai is delayed by two hours", "New departure time 14:35, please check the gate"]
    resp = post_frame(api, busy_screen(notice, FILLER), app_name="Mail", window_name="Inbox - Mail")
    assert resp.status_code == 201, resp.content
    frame_id = resp.json()["frame_id"]
    from search import crosscheck, semantic, services

    while services.vectors_embed_pending()[0]:
        pass
    row = FrameVectors.objects.get(frame_id=frame_id)
    assert row.chunks >= 2 and len(spans_unpack(row.passages)) == row.chunks  # cut by blocks, spans kept
    assert len(bytes(row.crosscheck)) == row.chunks * crosscheck.RECORD_BYTES  # read by the second model once

    def search(q: str) -> list[dict]:
        body = api.get("/api/v1/search", {"q": q, "start_time": start, "mode": "semantic"}).json()
        assert body["degraded"] is None, body["degraded"]
        return [item["content"] for item in body["data"]]

    for q in ("飞机晚点了", "my plane is late"):  # Chinese and English, no word in common with the screen
        found = search(q)
        assert [hit["frame_id"] for hit in found] == [frame_id], q
        assert "delayed" in found[0]["excerpt"] and "Inbox" not in found[0]["excerpt"], found[0]["excerpt"]
        assert found[0]["score"] >= semantic.AGREE_FIRST  # how far it stands out by both models
    # Questions the screen has no answer to get no answer.
    for q in ("knitting a wool hat", "婚礼摄影师", "saxophone reed"):
        assert search(q) == [], q
    # A frame embedded before readings were kept is read by the second model at search time, to
    # the same answer; and a second model that fails leaves the index's model to decide alone.
    answers = {q: search(q) for q in ("飞机晚点了", "knitting a wool hat")}
    FrameVectors.objects.filter(frame_id=frame_id).update(crosscheck=None)
    for q, found in answers.items():
        got = search(q)
        assert [hit["frame_id"] for hit in got] == [hit["frame_id"] for hit in found], q
        assert [hit["score"] for hit in got] == pytest.approx([hit["score"] for hit in found], abs=0.05), q

    def broken(q: str):
        raise RuntimeError("the second model is broken")

    monkeypatch.setattr(semantic, "question_vector", broken)
    found = search("my plane is late")
    assert [hit["frame_id"] for hit in found] == [frame_id]  # the index's model alone still finds it


def test_the_kept_reading_of_a_passage_gives_the_z_the_model_gives():
    """A passage's reading kept in 8 bits a dimension (search.crosscheck) answers a question as
    the model's own vectors do, to a few hundredths of a deviation."""
    import numpy as np

    from search import crosscheck
    from search.relevance import CJK, LATIN

    passages = ["Flight CA1234 from Beijing to Shanghai is delayed by two hours", "会议记录：项目进度延迟，预算需要重新评估", "kubectl get pods: api-7d9f CrashLoopBackOff"]
    record = crosscheck.passages_read(passages)
    assert len(record) == 3 * crosscheck.RECORD_BYTES
    rows = crosscheck._encode(passages)
    background, languages = crosscheck._background
    for q, language in (("my plane is late", LATIN), ("项目延期", CJK)):
        question = crosscheck.question_vector(q)
        near = np.sort(rows @ background[languages == language].T, axis=1)
        near = near[:, : max(2, round(near.shape[1] * (1 - crosscheck.TRIM)))]
        exact = (rows @ question - near.mean(axis=1)) / near.std(axis=1)
        kept = crosscheck.record_z(question, record, language)
        assert np.allclose(kept, exact, atol=0.05), (kept, exact)
    assert crosscheck.record_z(question, b"", LATIN).shape == (0,)
    # What each z is divided by, and a floor under it (search.relevance.deviations_floor).
    for language in (LATIN, CJK):
        near = np.sort(rows @ background[languages == language].T, axis=1)
        near = near[:, : max(2, round(near.shape[1] * (1 - crosscheck.TRIM)))]
        deviations = crosscheck.record_deviations(record, language)
        assert np.allclose(deviations, near.std(axis=1), atol=1e-3), (deviations, near.std(axis=1))
        unfloored = crosscheck.record_z(question, record, language)
        floored = crosscheck.record_z(question, record, language, float(deviations.max()) * 2)
        assert np.allclose(floored, unfloored * deviations / (deviations.max() * 2), atol=0.01)
    assert crosscheck.record_deviations(b"", LATIN).shape == (0,)
