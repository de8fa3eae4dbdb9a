"""Which OCR lines a chat evidence snippet came from, so the viewer can mark them."""

from chat.sampling import ocr_truncate
from frames.highlight import boxes_of_snippet


def line(text: str, y: int) -> dict:
    return {"t": text, "b": [10, y, 300, 20]}


LINES = [
    line("File Edit View", 0),  # window chrome, left out of the snippet
    line("Quarterly   budget review", 30),
    line("Revenue grew 12% in Q3", 60),
    line("Q3", 90),
    line("Next steps: hire two engineers and ship the beta", 120),
]


def test_the_lines_a_snippet_was_joined_from_are_marked_and_chrome_is_not():
    snippet = ocr_truncate(text="\n".join(item["t"] for item in LINES[1:]))
    assert not snippet.endswith("…")
    assert boxes_of_snippet(lines=LINES, snippet=snippet) == [[10, y, 300, 20] for y in (30, 60, 90, 120)]


def test_a_line_inside_a_longer_word_is_not_marked():
    # "Q3" is in the snippet only as part of "Q3x": lines are joined by spaces, so that is not it.
    assert boxes_of_snippet(lines=[line("Q3", 0), line("Q3x total", 30)], snippet="Q3x total") == [[10, 30, 300, 20]]


def test_the_cut_last_line_is_marked_by_its_start():
    lines = [line("a" * 120, 0), line("the final sentence runs well past the cut", 30), line("never reached", 60)]
    snippet = ocr_truncate(text="\n".join(item["t"] for item in lines))
    assert snippet.endswith(" past the…")
    assert boxes_of_snippet(lines=lines, snippet=snippet) == [[10, 0, 300, 20], [10, 30, 300, 20]]


def test_a_cut_fragment_shorter_than_four_characters_marks_nothing():
    lines = [line("x" * 156, 0), line("then more text", 30)]
    snippet = ocr_truncate(text="\n".join(item["t"] for item in lines))
    assert snippet.endswith(" th…")
    assert boxes_of_snippet(lines=lines, snippet=snippet) == [[10, 0, 300, 20]]


def test_text_that_is_not_on_the_frame_marks_nothing():
    assert boxes_of_snippet(lines=LINES, snippet="something else entirely") == []
    assert boxes_of_snippet(lines=LINES, snippet="") == []
    assert boxes_of_snippet(lines=LINES, snippet="…") == []
    assert boxes_of_snippet(lines=[], snippet="Q3") == []
