"""Incremental OCR: the region planner on drawn arrays, then the real engine on rendered
sessions (typing, scrolling, switching) against a full pass of the same frames."""

import io
import random
import time

import numpy as np
import pytest
from PIL import Image, ImageDraw

from tests.screens import words_drawn, words_found
from tests.screens import THEMES, TOP, font, new_screen, render, rows_for, session
from frames import ocr, reading, storage
from frames.storage import image_encode
from frames.incremental import ink_find, image_grey, regions_plan
from frames.models import Frame, OcrResult
from tests.conftest import post_frame

pytestmark = pytest.mark.django_db

SIZE = (640, 400)
PITCH = 40


def _page(lines: list[str], *, size=SIZE, top: int = 20, offset: int = 0):
    """A white page of text lines, with the line and word boxes a detector would give (padded)."""
    img = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(img)
    face = font(22)
    line_boxes, word_boxes = [], []
    for row, text in enumerate(lines):
        y = top + row * PITCH - offset
        draw.text((20, y), text, font=face, fill="black")
        x0, y0, x1, y1 = draw.textbbox((20, y), text, font=face)
        line_boxes.append((x0 - 4, y0 - 4, x1 - x0 + 8, y1 - y0 + 8))
        words, x = [], 20
        for word in text.split(" "):
            wx0, wy0, wx1, wy1 = draw.textbbox((x, y), word, font=face)
            words.append((wx0 - 2, wy0 - 2, wx1 - wx0 + 4, wy1 - wy0 + 4))
            x += face.getlength(word + " ")
        word_boxes.append(words)
    return np.asarray(img), line_boxes, word_boxes


def _stored(array: np.ndarray) -> np.ndarray:
    """As the app keeps it: WebP at quality 80, decoded."""
    with Image.open(io.BytesIO(image_encode(Image.fromarray(array), quality=80))) as im:
        return np.asarray(im.convert("RGB"))


LINES = [
    "quarterly budget review meeting notes",
    "deploy the search index to the server",
    "会议记录项目进度数据",
    "customer invoice report and design",
    "kernel network storage backup restore",
    "interview candidate contract proposal",
    "performance latency cache request",
]


def _assert_no_cut(plan, image: np.ndarray) -> None:
    """No crop edge runs through ink: every crop's border rows and columns are blank."""
    ink = ink_find(grey=image_grey(image=image))
    height, width = ink.shape
    for x, y, w, h in plan.crops:
        if y > 0:
            assert not ink[y, x : x + w].any(), f"top edge of {(x, y, w, h)} cuts ink"
        if y + h < height:
            assert not ink[y + h - 1, x : x + w].any(), f"bottom edge of {(x, y, w, h)} cuts ink"
        if x > 0:
            assert not ink[y : y + h, x].any(), f"left edge of {(x, y, w, h)} cuts ink"
        if x + w < width:
            assert not ink[y : y + h, x + w - 1].any(), f"right edge of {(x, y, w, h)} cuts ink"


def _covers(box, crops) -> bool:
    x, y, w, h = box
    return any(cx <= x and cy <= y and x + w <= cx + cw and y + h <= cy + ch for cx, cy, cw, ch in crops)


def test_identical_frames_carry_every_line_and_read_nothing():
    image, boxes, words = _page(LINES)
    plan = regions_plan(previous=_stored(image), current=_stored(image), line_boxes=boxes, word_boxes=words)
    assert not plan.full_pass
    assert plan.crops == [] and plan.area == 0
    assert sorted(plan.carried) == [(i, 0) for i in range(len(LINES))]


def test_typed_word_reads_that_whole_line_and_carries_the_rest():
    before, boxes, words = _page(LINES)
    typed = list(LINES)
    typed[3] = LINES[3] + " dashboard"
    after, new_boxes, _ = _page(typed)
    plan = regions_plan(previous=_stored(before), current=_stored(after), line_boxes=boxes, word_boxes=words)
    assert not plan.full_pass
    assert len(plan.crops) == 1 and _covers(new_boxes[3], plan.crops)
    assert sorted(plan.carried) == [(i, 0) for i in range(len(LINES)) if i != 3]
    assert 0 < plan.area < 0.15
    _assert_no_cut(plan, after)


def test_word_replaced_mid_line_never_cuts_the_words_around_it():
    before, boxes, words = _page(LINES)
    edited = list(LINES)
    edited[1] = LINES[1].replace("index", "timeline")
    after, new_boxes, _ = _page(edited)
    plan = regions_plan(previous=_stored(before), current=_stored(after), line_boxes=boxes, word_boxes=words)
    assert _covers(new_boxes[1], plan.crops)
    assert 1 not in {index for index, _ in plan.carried}
    _assert_no_cut(plan, after)


def test_random_edits_always_cover_changed_lines_and_never_cut_ink():
    rng = random.Random(5)
    vocab = "alpha beta gamma delta 数据 会议 report cache index kernel".split()
    for _ in range(12):
        lines = [" ".join(rng.choice(vocab) for _ in range(rng.randint(2, 6))) for _ in range(8)]
        before, boxes, words = _page(lines)
        edited = list(lines)
        for row in rng.sample(range(8), rng.randint(1, 2)):
            edited[row] = edited[row] + " " + rng.choice(vocab) if rng.random() < 0.5 else rng.choice(vocab) + " " + edited[row]
        after, new_boxes, _ = _page(edited)
        plan = regions_plan(previous=_stored(before), current=_stored(after), line_boxes=boxes, word_boxes=words)
        if plan.full_pass:
            continue
        carried = {index for index, _ in plan.carried}
        for row in range(8):
            if edited[row] != lines[row]:
                assert _covers(new_boxes[row], plan.crops) and row not in carried
            else:
                assert row in carried or _covers(new_boxes[row], plan.crops)
        _assert_no_cut(plan, after)


def test_scroll_carries_moved_lines_and_reads_only_the_revealed_band():
    lines = LINES + ["newsletter article summary question", "roadmap feedback analytics dashboard"]
    before, boxes, words = _page(lines[:7], top=20)
    after, new_boxes, _ = _page(lines[2:9], top=20)  # content moved up two lines
    plan = regions_plan(previous=_stored(before), current=_stored(after), line_boxes=boxes, word_boxes=words)
    assert not plan.full_pass
    assert plan.shift == 2 * PITCH
    assert sorted(plan.carried) == [(i, -2 * PITCH) for i in range(2, 7)]
    assert _covers(new_boxes[5], plan.crops) and _covers(new_boxes[6], plan.crops)
    assert plan.area < 0.3
    _assert_no_cut(plan, after)


def test_popup_over_part_of_a_line_rereads_what_still_shows_of_it():
    before, boxes, words = _page(LINES)
    after = before.copy()
    # A dark box covering the end of line 1 and the start of line 2 only.
    line1, line2 = boxes[1], boxes[2]
    after[line1[1] + 6 : line2[1] + 20, line1[0] + 200 : line1[0] + 460] = 40
    plan = regions_plan(previous=_stored(before), current=_stored(after), line_boxes=boxes, word_boxes=words)
    carried = {index for index, _ in plan.carried}
    assert 1 not in carried and 2 not in carried
    assert _covers(boxes[1], plan.crops) and _covers(boxes[2], plan.crops)


def test_a_different_screen_is_a_full_pass():
    before, boxes, words = _page(LINES)
    after, _, _ = _page(list(reversed([line.upper() for line in LINES])), top=34)
    plan = regions_plan(previous=_stored(before), current=_stored(after), line_boxes=boxes, word_boxes=words)
    assert plan.full_pass


def test_changes_scattered_all_over_are_a_full_pass():
    before, boxes, words = _page(LINES)
    after = before.copy()
    rng = np.random.default_rng(1)
    for y, x in zip(rng.integers(0, SIZE[1] - 4, 120), rng.integers(0, SIZE[0] - 4, 120)):
        after[y : y + 3, x : x + 3] = 0
    assert regions_plan(previous=_stored(before), current=_stored(after), line_boxes=boxes, word_boxes=words).full_pass


def test_a_different_size_is_a_full_pass():
    before, boxes, words = _page(LINES)
    after, _, _ = _page(LINES, size=(600, 400))
    assert regions_plan(previous=before, current=after, line_boxes=boxes, word_boxes=words).full_pass


def _drawn(screen, size) -> list[tuple[str, tuple, list[tuple]]]:
    """What tests.screens.render draws, as a perfect reader would return it: (text, line box, word boxes)."""
    theme = THEMES[screen.kind]
    draw = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    items = []

    def add(xy, text, face):
        x, y = xy
        x0, y0, x1, y1 = draw.textbbox(xy, text, font=face)
        words, cursor = [], x
        for word in text.split(" "):
            if word:
                wx0, wy0, wx1, wy1 = draw.textbbox((cursor, y), word, font=face)
                words.append((wx0 - 2, wy0 - 2, wx1 - wx0 + 4, wy1 - wy0 + 4))
            cursor += face.getlength(word + " ")
        items.append((text, (x0 - 4, y0 - 4, x1 - x0 + 8, y1 - y0 + 8), words))

    add((20, 8), f"{screen.app_name} - {screen.window_name}", font(18))
    if screen.browser_url:
        add((36, 50), screen.browser_url, font(18))
    left = 80 if screen.kind == "editor" else 60
    for row, text in enumerate(screen.visible_lines(rows_for(screen.kind, size[1]))):
        y = TOP + row * theme["pitch"]
        if screen.kind == "editor":
            number, mono = str(screen.scroll + row + 1), font(theme["size"], mono=True)
            add((14 + mono.getlength(" " * (3 - len(number))), y), number, mono)
        cjk = any("\u4e00" <= ch <= "\u9fff" for ch in text)
        add((left, y), text, font(theme["size"], mono=theme["mono"] and not cjk))
    return items


def test_on_a_rendered_session_every_line_is_read_again_or_carried_exactly():
    """With perfect previous lines, each line now on screen is inside a crop or is carried
    with its own text to its own place, and nothing stale is carried."""
    size = (1280, 720)
    previous = None
    for screen, action in session(random.Random(21), 24):
        image = _stored(np.asarray(render(screen, size=size)))
        drawn = _drawn(screen, size)
        if previous is not None:
            before_image, before = previous
            plan = regions_plan(
                previous=before_image, current=image, line_boxes=[b for _, b, _ in before], word_boxes=[w for _, _, w in before]
            )
            if action == "switch":
                assert plan.full_pass
            if not plan.full_pass:
                moved = [(before[i][0], (before[i][1][0], before[i][1][1] + dy)) for i, dy in plan.carried]
                for text, box, _ in drawn:
                    if not text.strip():
                        continue
                    carried = any(t == text and abs(b[0] - box[0]) <= 1 and abs(b[1] - box[1]) <= 1 for t, b in moved)
                    glyphs = (box[0] + 4, box[1] + 4, box[2] - 8, box[3] - 8)
                    assert carried or _covers(glyphs, plan.crops), f"{action}: {text!r} at {box} neither read nor carried"
                for text, box in moved:
                    assert any(t == text and abs(b[0] - box[0]) <= 1 and abs(b[1] - box[1]) <= 1 for t, b, _ in drawn), (
                        f"{action}: carried {text!r} is no longer at {box}"
                    )
                _assert_no_cut(plan, image)
                if action == "type":
                    assert plan.area < 0.1
        previous = (image, drawn)


# The real engine on rendered screens. 1280x480 keeps the suite quick; lines still fit.
SCREEN = (1280, 480)


def _screen_image(screen) -> np.ndarray:
    return _stored(np.asarray(render(screen, size=SCREEN)))


def _truth(screen) -> set[str]:
    return words_drawn(screen=screen, rows=rows_for(screen.kind, SCREEN[1]))


def _text(read) -> str:
    return "\n".join(line.text for line in read.lines)


@pytest.fixture(scope="module")
def editor_session():
    """An editor being typed in and scrolled, then a switch to a chat window: each step's
    screen, full-pass read and incremental read (from the previous incremental read)."""
    rng = random.Random(11)
    editor, chat = new_screen(rng, "editor"), new_screen(rng, "chat")
    rows = rows_for("editor", SCREEN[1])
    steps = []

    def capture(action, screen):
        image = _screen_image(screen)
        full = reading.screen_read(image=image)
        if steps:
            previous = steps[-1]
            inc = reading.screen_read(image=image, previous_image=previous["image"], previous_lines=previous["inc"].lines)
        else:
            inc = full
        steps.append({"action": action, "image": image, "truth": _truth(screen), "full": full, "inc": inc})

    def shortest_row() -> int:  # typing there never runs past the right edge
        return min(range(editor.scroll, editor.scroll + rows), key=lambda row: len(editor.lines[row]))

    capture("open", editor)
    editor.lines[shortest_row()] += " dashboard"
    capture("type", editor)
    editor.scroll += 4
    capture("scroll", editor)
    editor.lines[shortest_row()] += "会议记录"
    capture("type", editor)
    capture("switch", chat)
    return steps


def test_incremental_reads_every_word_the_full_pass_reads(editor_session):
    for step in editor_session:
        full = words_found(words=step["truth"], text=_text(step["full"]))
        inc = words_found(words=step["truth"], text=_text(step["inc"]))
        assert len(full) >= 0.9 * len(step["truth"]), step["action"]
        assert full - inc == set(), f"{step['action']}: lost {full - inc}"


def test_typing_and_scrolling_carry_unchanged_lines(editor_session):
    for step in editor_session[1:4]:
        assert step["inc"].incremental, step["action"]
        assert step["inc"].area < (0.1 if step["action"] == "type" else 0.5), step["action"]
    typed = editor_session[1]["inc"]
    assert any("dashboard" in line.text for line in typed.lines)


def test_window_switch_reads_the_whole_screen(editor_session):
    switch = editor_session[-1]["inc"]
    assert not switch.incremental and switch.area == 1.0


# Through the worker: what gets stored.


def _png(screen) -> bytes:
    out = io.BytesIO()
    render(screen, size=SCREEN).save(out, format="PNG")
    return out.getvalue()


@pytest.mark.django_db(transaction=True)
def test_worker_stores_carried_lines_with_area_and_source(api, immediate_ocr_keyword):
    rng = random.Random(3)
    screen = new_screen(rng, "browser", zh_share=0.3)
    now = time.time()
    first = post_frame(api, _png(screen), timestamp=now - 10).json()["frame_id"]
    row = min(range(rows_for("browser", SCREEN[1])), key=lambda r: len(screen.lines[r]))
    screen.lines[row] += " analytics"
    second = post_frame(api, _png(screen), timestamp=now - 5).json()["frame_id"]
    switched = post_frame(api, _png(new_screen(rng, "terminal")), timestamp=now).json()["frame_id"]

    typed = OcrResult.objects.get(frame_id=second)
    assert 0 < typed.ocr_area < 0.1
    assert typed.carried_from_id == first
    assert any("analytics" in line["t"] for line in typed.lines)
    before = words_found(words=_truth(screen), text=OcrResult.objects.get(frame_id=first).text)
    assert words_found(words=_truth(screen), text=typed.text) >= before

    full = OcrResult.objects.get(frame_id=switched)
    assert full.ocr_area == 1.0 and full.carried_from_id is None


@pytest.mark.django_db(transaction=True)
def test_a_switch_back_is_read_against_that_windows_last_frame(api, immediate_ocr_keyword):
    rng = random.Random(5)
    editor, chat = new_screen(rng, "editor"), new_screen(rng, "chat")
    now = time.time()
    first = post_frame(api, _png(editor), timestamp=now - 20).json()["frame_id"]
    away = post_frame(api, _png(chat), timestamp=now - 10).json()["frame_id"]
    row = min(range(rows_for("editor", SCREEN[1])), key=lambda r: len(editor.lines[r]))
    editor.lines[row] += " roadmap"
    back = post_frame(api, _png(editor), timestamp=now).json()["frame_id"]

    assert OcrResult.objects.get(frame_id=away).carried_from_id is None
    result = OcrResult.objects.get(frame_id=back)
    assert result.carried_from_id == first and 0 < result.ocr_area < 0.1
    assert words_found(words=_truth(editor), text=result.text) >= words_found(
        words=_truth(editor), text=OcrResult.objects.get(frame_id=first).text
    ) | {"roadmap"}


@pytest.mark.django_db(transaction=True)
def test_worker_falls_back_to_a_full_pass_when_the_previous_image_is_gone(api, immediate_ocr_keyword):
    rng = random.Random(4)
    screen = new_screen(rng, "editor")
    now = time.time()
    first = post_frame(api, _png(screen), timestamp=now - 5).json()["frame_id"]
    storage.image_location(Frame.objects.get(id=first).image_path).unlink()
    row = min(range(rows_for("editor", SCREEN[1])), key=lambda r: len(screen.lines[r]))
    screen.lines[row] += " invoice"
    second = post_frame(api, _png(screen), timestamp=now).json()["frame_id"]

    assert Frame.objects.get(id=second).ocr_status == "done"
    result = OcrResult.objects.get(frame_id=second)
    assert result.ocr_area == 1.0 and result.carried_from_id is None
    assert "invoice" in result.text
