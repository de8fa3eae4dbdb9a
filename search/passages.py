"""A frame's passages: the pieces of what it shows that search by meaning embeds, one vector each.

A screen is cut where its layout cuts it: OCR lines that sit under one another, close and aligned,
are one block (a paragraph, a list, a column of a mail client, a terminal's output), and a block
sits beside others rather than being read across (lines of two columns at one height are not
mixed). Each block is a passage of its own (one line among unrelated ones is not drowned by them), in
reading order; blocks of fewer than PASSAGE_MIN tokens are joined to the next. A block over the
embedder's budget of tokens (search.embeddings.passage_budget) is cut at line ends, a line alone
over it where text_chunks cuts a line. Every passage
begins with the window title, so that each piece carries what it is part of. A frame whose lines
have no boxes is cut the same way, its lines in order as one block.

The vector index keeps one entry per passage, numbered in this order ("<frame_id>:<n>"). Each
passage says where its lines are in the frame's text (spans: character ranges), and those spans
are kept with the frame (FrameVectors.passages, packed by spans_pack) so that the passage that
matched can be shown, and read again, without cutting the screen again.

Exports:
- Passage (text, spans); frame_passages(window_name=, text=, lines=None).
- frame_text(window_name, text): a frame's title and text as one text.
- passage_screen_text(text, spans): what the screen says in a passage (without the title).
- spans_pack(passages) -> bytes, spans_unpack(data) -> list of spans per passage.
- layout_blocks(boxes): the blocks of a screen's line boxes, each a list of line numbers.
"""

import struct
import zlib
from dataclasses import dataclass

from search.embeddings import passage_budget, text_chunks, token_counter

# Lines of one block: the gap to the line above at most this many line heights, the two about
# the same height, and overlapping (or starting within LEFT_ALIGN heights of each other) across.
BLOCK_GAP = 0.9
SAME_HEIGHT = 1.8
LEFT_ALIGN = 1.5
# Two boxes on one row (their middles within half a height) this close are one piece of text.
ROW_GAP = 1.2
# How far above a line its block-mates are looked for, in line heights.
LOOK_ABOVE = 4.0
# A passage holds one block; blocks of fewer tokens than this (a button, a heading, a few menu
# items) are joined to the next, so that they are read with something.
PASSAGE_MIN = 32


@dataclass(frozen=True)
class Passage:
    text: str  # what is embedded: the window title, then the passage's lines
    spans: tuple[tuple[int, int], ...]  # where its lines are in the frame's text


def frame_text(window_name: str, text: str) -> str:
    """A frame's window title, then what its screen says."""
    return "\n".join(part for part in ((window_name or "").strip(), (text or "").strip()) if part)


def layout_blocks(boxes: list[tuple[float, float, float, float]]) -> list[list[int]]:
    """The blocks of a screen: its lines (boxes x, y, w, h) grouped as a reader sees them, each
    block its line numbers top to bottom (left to right within a row), blocks in reading order
    (by their top, then their left)."""
    count = len(boxes)
    parent = list(range(count))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    order = sorted(range(count), key=lambda i: (boxes[i][1], boxes[i][0]))
    for at, below in enumerate(order):
        bx, by, bw, bh = boxes[below]
        for above in reversed(order[:at]):
            ax, ay, aw, ah = boxes[above]
            tall, short = max(ah, bh, 1.0), max(min(ah, bh), 1.0)
            if by - ay > LOOK_ABOVE * tall:
                break
            if abs((ay + ah / 2) - (by + bh / 2)) < short / 2:  # one row
                if max(ax, bx) - min(ax + aw, bx + bw) < ROW_GAP * short:
                    parent[root(above)] = root(below)
                continue
            across = min(ax + aw, bx + bw) - max(ax, bx)
            if by - (ay + ah) <= BLOCK_GAP * short and tall <= SAME_HEIGHT * short and (across > 0 or abs(ax - bx) < LEFT_ALIGN * short):
                parent[root(above)] = root(below)
    blocks: dict[int, list[int]] = {}
    for i in order:
        blocks.setdefault(root(i), []).append(i)
    return sorted(blocks.values(), key=lambda block: (min(boxes[i][1] for i in block), min(boxes[i][0] for i in block)))


def _line_spans(text: str) -> list[tuple[int, int]]:
    """Each line of the text as a character range, surrounding whitespace left out."""
    spans, at = [], 0
    for line in text.split("\n"):
        stripped = line.strip()
        start = at + (len(line) - len(line.lstrip()))
        spans.append((start, start + len(stripped)))
        at += len(line) + 1
    return spans


def frame_passages(*, window_name: str, text: str, lines: list[dict] | None = None) -> list[Passage]:
    """The frame's passages, in the vector index's order. `lines` are its OCR lines with boxes
    (OcrResult.lines, one per line of `text`); without them, or when they do not match the text
    line for line, the text's lines are one block."""
    text = text or ""
    title = (window_name or "").strip()
    spans = _line_spans(text)
    if lines and len(lines) == len(spans) and all(len(line.get("b") or ()) == 4 for line in lines):
        blocks = layout_blocks([tuple(line["b"]) for line in lines])
    else:
        blocks = [list(range(len(spans)))]
    count = token_counter()
    budget = passage_budget()
    head = count(title) + 1 if title else 0
    passages: list[Passage] = []
    current: list[tuple[int, int]] = []
    used = head

    def close() -> None:
        nonlocal current, used
        if current:
            body = "\n".join(text[start:end] for start, end in current)
            passages.append(Passage(text=f"{title}\n{body}" if title else body, spans=tuple(current)))
        current, used = [], head

    for block in blocks:
        pieces = []  # (span, tokens) of the block's lines, an over-long line in its pieces
        for number in block:
            start, end = spans[number]
            if start == end:
                continue
            tokens = count(text[start:end]) + 1
            if head + tokens <= budget:
                pieces.append(((start, end), tokens))
                continue
            at = start
            for piece in text_chunks(text[start:end]):
                found = text.find(piece, at, end)
                if found < 0:  # text_chunks keeps every character but whitespace: never here
                    continue
                pieces.append(((found, found + len(piece)), count(piece) + 1))
                at = found + len(piece)
        size = sum(tokens for _, tokens in pieces)
        if current and (used - head >= PASSAGE_MIN or used + size > budget):
            close()  # a block is a passage of its own, unless the one before is a scrap
        for span, tokens in pieces:
            if current and used + tokens > budget:
                close()
            current.append(span)
            used += tokens
    close()
    if not passages and title:
        passages.append(Passage(text=title, spans=()))
    return passages


def passage_screen_text(text: str, spans: tuple[tuple[int, int], ...] | list[tuple[int, int]]) -> str:
    """What the screen says in one passage: its lines, from the frame's text."""
    return "\n".join(text[start:end] for start, end in spans)


_SPAN = struct.Struct("<II")


def spans_pack(passages: list[Passage]) -> bytes:
    """Every passage's spans, as FrameVectors.passages keeps them: for each passage its count of
    spans, then the spans (start, end), compressed."""
    out = bytearray()
    for passage in passages:
        out += struct.pack("<H", len(passage.spans))
        for span in passage.spans:
            out += _SPAN.pack(*span)
    return zlib.compress(bytes(out), 6)


def spans_unpack(data: bytes | None) -> list[tuple[tuple[int, int], ...]]:
    """spans_pack's passages (an empty list for None or nothing kept)."""
    if not data:
        return []
    raw = zlib.decompress(bytes(data))
    out, at = [], 0
    while at < len(raw):
        (count,) = struct.unpack_from("<H", raw, at)
        at += 2
        out.append(tuple(_SPAN.unpack_from(raw, at + i * _SPAN.size) for i in range(count)))
        at += count * _SPAN.size
    return out
