"""Incremental OCR on real screens: two frames in a row of vim and of a terminal (real_pairs/),
the first read whole by the real engine, the second planned and read as the worker reads it.

On such screens lines stand a pixel or two apart, a window border and a column of line numbers
run down the screen, and the OCR's boxes of neighbouring lines and columns touch: a small change
must still be read as a small change, with every word of the screen kept."""

import re
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from frames import reading

PAIRS = Path(__file__).parent / "real_pairs"

# pair: words that appear in the second frame (read from its pixels by eye)
CASES = {
    "vim-cursor": ["6,1"],
    "vim-typing": ["most"],
    "terminal-output": ["Filesystem", "Mounted", "/dev/vda", "252G"],
}


def _image(name: str) -> np.ndarray:
    with Image.open(PAIRS / f"{name}.webp") as image:
        return np.asarray(image.convert("RGB"))


def _words(lines) -> set[str]:
    return {word for line in lines for word in re.findall(r"\w{3,}", line.text.lower())}


@pytest.fixture(scope="module", params=sorted(CASES))
def pair(request):
    before, after = _image(f"{request.param}-before"), _image(f"{request.param}-after")
    return request.param, before, reading.whole_read(image=before), after


def test_a_small_change_on_a_dense_screen_is_planned_small(pair):
    name, before, lines, after = pair
    plan = reading.change_plan(image=after, previous_image=before, previous_lines=lines)
    assert not plan.full_pass, name
    assert plan.area < 0.1, (name, plan.area)
    assert len(plan.carried) >= 0.9 * len(lines), (name, len(plan.carried), len(lines))


def test_the_incremental_read_keeps_every_word_and_reads_the_new_ones(pair):
    name, before, lines, after = pair
    read = reading.screen_read(image=after, previous_image=before, previous_lines=lines)
    assert read.incremental, name
    text = "\n".join(line.text for line in read.lines)
    for word in CASES[name]:
        assert word in text, (name, word)
    # The words of the first frame are all there still (none of these changes removes any).
    kept = _words(read.lines)
    lost = _words(lines) - kept
    assert len(lost) <= 0.01 * len(_words(lines)), (name, sorted(lost))
