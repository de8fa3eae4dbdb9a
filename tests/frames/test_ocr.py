"""The OCR wrapper on the real engines: English and Simplified Chinese drawn with the
setup's fonts, crops read back into whole-image pixels, blank input."""

import io
import re

import numpy as np
import pytest
from PIL import Image

from frames import ocr, reading
from tests.conftest import render_text_image

ENGLISH = "quarterly budget review meeting"
CHINESE = "机器学习项目进度报告"
CJK_SPACE = re.compile(r"[\u4e00-\u9fff] +[\u4e00-\u9fff]")


def _array(lines: list[str], **kwargs) -> np.ndarray:
    with Image.open(io.BytesIO(render_text_image(lines, **kwargs))) as im:
        return np.asarray(im.convert("RGB"))


@pytest.mark.parametrize("engine", ["rapidocr", "tesseract"])
def test_engine_reads_english_and_chinese_lines_with_boxes(engine):
    lines = ocr.ocr_engine(engine).recognize(_array([ENGLISH, CHINESE], size=(640, 60)))
    texts = [line.text for line in lines]
    assert any(ENGLISH in text.lower() for text in texts), texts
    assert any(CHINESE in text for text in texts), texts
    english = next(line for line in lines if "budget" in line.text.lower())
    budget = next(word for word in english.words if word.text.lower() == "budget")
    # Drawn at x=20, y=15 at 28 px: the word lies inside its line, in the first row.
    assert english.box[0] <= budget.box[0] and budget.box[0] + budget.box[2] <= english.box[0] + english.box[2] + 2
    assert 0 <= english.box[1] <= 30


@pytest.mark.parametrize("engine", ["rapidocr", "tesseract"])
def test_engine_reads_light_text_on_a_dark_screen(engine):
    lines = ocr.ocr_engine(engine).recognize(_array(["terminal kernel alert", "服务器网络存储"], size=(500, 60), bg="black", fg="white"))
    text = "\n".join(line.text for line in lines)
    assert "kernel" in text and "服务器网络存储" in text, text


def test_tesseract_puts_no_spaces_between_chinese_characters():
    lines = ocr.ocr_engine("tesseract").recognize(_array([CHINESE, "部署服务器 and the server"], size=(640, 60)))
    text = "\n".join(line.text for line in lines)
    assert CHINESE in text and "部署服务器" in text
    assert not any(CJK_SPACE.search(line.text) for line in lines), text
    assert "the server" in text  # English words keep their spaces


@pytest.mark.parametrize("engine", ["rapidocr", "tesseract"])
def test_blank_image_reads_as_no_lines(engine):
    assert ocr.ocr_engine(engine).recognize(np.full((48, 320, 3), 255, dtype=np.uint8)) == []


def test_crops_come_back_in_whole_image_pixels():
    image = _array(["alpha line on top", ENGLISH, "omega line below"], size=(640, 60))
    alone = reading.whole_read(image=image)
    target = next(line for line in alone if "budget" in line.text.lower())
    x, y, w, h = target.box
    crop = (max(x - 8, 0), max(y - 6, 0), w + 16, h + 12)
    read = reading.regions_read(image=image, regions=[crop])
    assert [line.text.lower() for line in read] == [ENGLISH]
    assert abs(read[0].box[0] - x) <= 6 and abs(read[0].box[1] - y) <= 6
    budget_alone = next(word for word in target.words if word.text.lower() == "budget")
    budget_crop = next(word for word in read[0].words if word.text.lower() == "budget")
    assert abs(budget_crop.box[0] - budget_alone.box[0]) <= 6 and abs(budget_crop.box[1] - budget_alone.box[1]) <= 6


def test_lines_keep_reading_order_and_survive_json():
    right = ocr.OcrLine(text="right", box=(400, 12, 80, 20), confidence=0.9)
    left = ocr.OcrLine(text="left", box=(10, 14, 80, 20), confidence=0.9, words=[ocr.OcrWord("left", (10, 14, 80, 20))])
    below = ocr.OcrLine(text="below", box=(10, 60, 80, 20), confidence=0.9)
    ordered = reading.lines_order([below, right, left])
    assert [line.text for line in ordered] == ["left", "right", "below"]
    moved = ocr.OcrLine.from_json(left.to_json()).moved(dx=5, dy=-4)
    assert moved.box == (15, 10, 80, 20) and moved.words[0].box == (15, 10, 80, 20)


def test_rapidocr_sessions_do_not_spin_between_steps():
    """onnxruntime's threads spin waiting for work by default: CPU burnt while OCR waits. Both of
    the engine's models, the detector and the recogniser (which rapidocr loads lazily), are made
    with spinning off, and sessions made afterwards elsewhere keep onnxruntime's default."""
    from rapidocr.inference_engine.onnxruntime import main as onnxruntime_sessions

    engine = ocr.RapidOcrEngine(threads=1)
    for model in (engine._engine.text_det, engine._engine.text_rec):
        options = model.session.session.get_session_options()
        assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    from omegaconf import OmegaConf

    fresh = onnxruntime_sessions.OrtInferSession._init_sess_opts(OmegaConf.create({"enable_cpu_mem_arena": False}))
    with pytest.raises(RuntimeError):
        fresh.get_session_config_entry("session.intra_op.allow_spinning")
