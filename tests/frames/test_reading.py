"""How a screen is read (frames.reading), on real screens: terminals, an editor, htop, dense and
dark apps, Chinese and mixed lines and a HiDPI terminal from the hard screen set
(tests/hard_screens), each posted through the API, read by the worker's path and searched by
keyword as a user types; and the scale text detection is run at; and input that is no screen."""

import io
import random
import time

import numpy as np
import pytest
from PIL import Image, ImageDraw

from frames import reading
from frames.models import Frame, OcrResult
from frames.tasks import frame_ocr
from tests.conftest import post_frame
from tests.hard_set import hard_screens, query_language
from tests.screens import font

# A part of the set, for the suite's time; bench/ocr_cost.py reads all of it.
SUITE_SCREENS = [
    "terminal-htop-workers.webp",
    "terminal-xfce4-gcc-errors.webp",
    "editor-vim-desert-python.webp",
    "dense_app-settings-lowcontrast.webp",
    "dark-dashboard-alerts.webp",
    "mixed_chinese-terminal-xfce-git.webp",
    "mixed_chinese-chat-dark.webp",
    "terminal-hidpi-4k-xterm-2x.webp",
]


def _found(api, query: str, start: float) -> list[int]:
    response = api.get("/api/v1/search", {"q": query, "start_time": start, "mode": "keyword", "limit": 10})
    assert response.status_code == 200, response.content
    return [item["content"]["frame_id"] for item in response.json()["data"]]


@pytest.mark.django_db(transaction=True)
def test_terminals_editors_dense_dark_and_mixed_screens_are_read_and_found_as_typed(api):
    screens = {screen.file: screen for screen in hard_screens() if screen.file in SUITE_SCREENS}
    assert set(screens) == set(SUITE_SCREENS)
    start = time.time() - 3600
    ids = {}
    for i, (name, screen) in enumerate(sorted(screens.items())):
        # Each its own device: a new screen, read whole.
        response = post_frame(api, screen.path.read_bytes(), timestamp=start + 60 * i, device_name=f"screen-{i}", app_name=screen.kind)
        assert response.status_code == 201, response.content
        ids[name] = response.json()["frame_id"]
    # Each read by the worker's OCR task; the embedding tasks it queues stay queued (a fifth of
    # the time here, and search by keyword does not use them).
    for frame_id in ids.values():
        frame_ocr.call(frame_id)

    results = {"en": [], "zh": []}
    for name, screen in screens.items():
        for query in screen.queries:
            results[query_language(query)].append((query, name, ids[name] in _found(api, query, start)))
    for language, rows in results.items():
        missed = [(query, name) for query, name, hit in rows if not hit]
        recall = 1 - len(missed) / len(rows)
        assert recall >= 0.97, f"{language} recall {recall:.3f}, missed {missed}"

    # Identifiers typed whole, and by a part.
    gcc, htop, git = (ids[name] for name in ("terminal-xfce4-gcc-errors.webp", "terminal-htop-workers.webp", "mixed_chinese-terminal-xfce-git.webp"))
    for query, frame in (
        ("parse_order_total", gcc),
        ("load_config", ids["editor-vim-desert-python.webp"]),
        ("api-worker-03", htop),
        ("deployment-redis.yaml", git),
        ("order", gcc),  # a part of parse_order_total
        ("redis", git),  # a part of deployment-redis.yaml
        ("ledger", htop),  # a part of ledger-sync-daemon
    ):
        assert frame in _found(api, query, start), query

    # A mixed line keeps its Chinese and its file name.
    lines = [line["t"] for line in OcrResult.objects.get(frame_id=ids["mixed_chinese-terminal-xfce-git.webp"]).lines]
    assert [line for line in lines if "deployment-redis.yaml" in line and any("\u4e00" <= ch <= "\u9fff" for ch in line)], lines


def _screen(size: tuple[int, int], text_px: int, *, lines: int = 30) -> np.ndarray:
    image = Image.new("RGB", size, (30, 30, 30))
    draw = ImageDraw.Draw(image)
    face = font(text_px, mono=True)
    for row in range(lines):
        draw.text((10, 10 + row * int(text_px * 1.4)), f"{row:03d} api-worker-{row:02d} ready replicas {row * 7}", font=face, fill=(220, 220, 220))
    return np.asarray(image)


def test_small_text_is_detected_at_full_scale_and_large_text_shrunk():
    assert reading.detect_scale(image=_screen((1920, 1080), 10)) == 1.0
    large = reading.detect_scale(image=_screen((1920, 1080), 28))
    assert 0.3 < large < 0.6
    # A 4K screen at twice the scale: its text is large, and detection never sees more than the cap.
    hidpi = _screen((3840, 2160), 22)
    scale = reading.detect_scale(image=hidpi)
    assert (3840 * scale) * (2160 * scale) <= reading.DETECT_PIXELS_MAX * 1.001
    text = "\n".join(line.text for line in reading.whole_read(image=hidpi))
    assert "api-worker-17" in text and "replicas" in text


def test_a_blank_screen_has_no_text_height():
    assert reading.text_height(image=np.full((1080, 1920, 3), 250, dtype=np.uint8)) is None
    assert reading.detect_scale(image=np.full((1080, 1920, 3), 250, dtype=np.uint8)) == reading.DETECT_SCALE_NO_TEXT


def _png(array: np.ndarray) -> bytes:
    out = io.BytesIO()
    Image.fromarray(array).save(out, format="PNG")
    return out.getvalue()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "name, make",
    [
        ("one pixel", lambda: np.zeros((1, 1, 3), dtype=np.uint8)),
        ("a line one pixel high", lambda: np.full((1, 12000, 3), 200, dtype=np.uint8)),
        ("noise", lambda: np.random.default_rng(3).integers(0, 256, (1080, 1920, 3), dtype=np.uint8)),
        # bench/ocr_cost.py reads 20,000 of them (about 50 s on 2 cores): a part of such a screen here.
        ("a screen of tiny characters", lambda: _tiny_characters()),
    ],
)
def test_input_that_is_no_screen_is_stored_and_read_without_harm(api, immediate_ocr, name, make):
    response = post_frame(api, _png(make()), device_name=name)
    assert response.status_code == 201, response.content
    frame = Frame.objects.get(id=response.json()["frame_id"])
    assert frame.ocr_status == "done", frame.ocr_error


def _tiny_characters() -> np.ndarray:
    image = Image.new("RGB", (480, 270), "white")
    draw = ImageDraw.Draw(image)
    rng = random.Random(5)
    face = font(7, mono=True)
    for row in range(270 // 8):
        draw.text((0, row * 8), "".join(rng.choice("abcdefghij0123456789") for _ in range(120)), font=face, fill="black")
    return np.asarray(image)
