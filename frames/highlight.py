"""Which OCR boxes show a query's words, so a page can mark them on the image."""

import re

from frames.text import CJK_CLASS, CJK_RE

_TERM = re.compile(r'"([^"]+)"|(\S+)')
# Where the keyword index starts a word: not after a letter or digit of the same word, but
# after "_", punctuation or a Chinese character ("使用Python", "my_budget" hold "python", "budget"),
# and where a compound token's part starts: camel case or a change between letters and digits
# ("LinusTorvalds", "conversion3" hold "torvalds", "3").
_WORD_START = (
    rf"(?:(?<![^\W_])|(?<=[{CJK_CLASS}])|(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])"
    r"|(?<=[^\W\d_])(?=\d)|(?<=\d)(?=[^\W\d_]))"
)


def query_terms(q: str) -> list[str]:
    """The words and "quoted phrases" of a query, lower-cased, without * or quotes."""
    terms = []
    for phrase, word in _TERM.findall(q or ""):
        term = (phrase or word).strip("*").strip().lower()
        if term and term not in {"and", "or", "not"}:
            terms.append(term)
    return terms


def _word_spans(line_text: str, words: list) -> list[tuple[int, int, list[int]]]:
    """Character span of each word box inside its line's text."""
    spans = []
    pos = 0
    lowered = line_text.lower()
    for word in words:
        token = word[0].lower()
        at = lowered.find(token, pos)
        if at < 0:
            continue
        spans.append((at, at + len(token), list(word[1:5])))
        pos = at + len(token)
    return spans


def _union(boxes: list[list[int]]) -> list[int]:
    x0 = min(b[0] for b in boxes)
    y0 = min(b[1] for b in boxes)
    x1 = max(b[0] + b[2] for b in boxes)
    y1 = max(b[1] + b[3] for b in boxes)
    return [x0, y0, x1 - x0, y1 - y0]


# Keyword search looks for a word of this many letters inside longer words ("double" in
# "libdouble") when it finds little else; the viewer marks those too.
INSIDE_MIN_CHARS = 4


def _boxes_of(lines: list[dict], pattern: str) -> list[list[int]]:
    boxes = []
    for line in lines:
        text = line.get("t", "")
        spans = None
        for match in re.finditer(pattern, text):
            if spans is None:
                spans = _word_spans(text, line.get("w", []))
            hit = [box for start, end, box in spans if start < match.end() and end > match.start()]
            boxes.append(_union(hit) if hit else list(line["b"]))
    return boxes


def boxes_matching(*, lines: list[dict], q: str) -> list[list[int]]:
    """One box ([x, y, w, h]) per occurrence of the query's terms on screen: the words (or
    Chinese characters) it spans, or the whole line when the engine gave no word boxes."""
    boxes: list[list[int]] = []
    for term in query_terms(q):
        # English terms match whole words, word starts and compound parts; CJK terms match anywhere.
        if CJK_RE.search(term):
            boxes += _boxes_of(lines, f"(?i:{re.escape(term)})")
            continue
        found = _boxes_of(lines, _WORD_START + f"(?i:{re.escape(term)})")
        if not found and len(term) >= INSIDE_MIN_CHARS:
            found = _boxes_of(lines, f"(?i:{re.escape(term)})")  # inside a longer word, as search found it
        boxes += found
    unique = []
    for box in boxes:
        if box not in unique:
            unique.append(box)
    return unique


ELLIPSIS = "…"
# A cut last line shorter than this could start many lines by chance.
MIN_FRAGMENT_CHARS = 4


def boxes_of_snippet(*, lines: list[dict], snippet: str) -> list[list[int]]:
    """The boxes of the OCR lines a chat evidence snippet was made of. A snippet is the frame's
    lines joined by single spaces (some may be left out) and, past its length, cut and ended
    with "…": a line is in it when it appears whole between spaces, or when the cut fragment
    at its end (at least MIN_FRAGMENT_CHARS long) is the line's start."""
    text = " ".join(snippet.split())
    cut = text.endswith(ELLIPSIS)
    if cut:
        text = text[: -len(ELLIPSIS)].rstrip()
    if not text:
        return []
    spaced = f" {text} "
    boxes: list[list[int]] = []
    for line in lines:
        line_text = " ".join(line.get("t", "").split())
        if not line_text:
            continue
        found = f" {line_text} " in spaced or (cut and _starts_with_cut_fragment(line_text, text))
        if found and list(line["b"]) not in boxes:
            boxes.append(list(line["b"]))
    return boxes


def _starts_with_cut_fragment(line_text: str, text: str) -> bool:
    """Whether text ends with the start of line_text, that start beginning at a line join."""
    for size in range(min(len(line_text), len(text)), MIN_FRAGMENT_CHARS - 1, -1):
        if text.endswith(line_text[:size]) and (size == len(text) or text[-size - 1] == " "):
            return True
    return False
