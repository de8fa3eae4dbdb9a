"""Script detection shared by OCR (languages found) and search (CJK tokenising); the stored form
of a frame's OCR lines (lines_pack, lines_unpack) and text (text_pack, text_unpack)."""

import json
import re
import zlib

# Han ideographs (with extension A and compatibility), kana, hangul.
CJK_CLASS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af"
CJK_RE = re.compile(f"[{CJK_CLASS}]")
LATIN_RE = re.compile(r"[A-Za-z\u00c0-\u024f]")


def text_languages(text: str) -> list[str]:
    found = []
    if LATIN_RE.search(text):
        found.append("en")
    if CJK_RE.search(text):
        found.append("zh")
    return found


# A frame's OCR lines as stored. The same lines come back, in the shape OcrLine.to_json makes:
# [{"t": text, "b": [x, y, w, h], "c": confidence, "w": [[word, x, y, w, h], ...]}, ...].
# In both forms a line's text is left out when the lines' texts joined by newlines are the frame's
# text (as OCR writes them), and a word's text is given by where it stands in its line when it
# stands there as it is.
#
# Form 2 (LINES_BINARY): the tag byte, then raw deflate of numbers as varints. Every box is told
# from what comes before it: a line's top from the line above's, a word's left from where the
# word before it ends and its top and height from its line's. A confidence is kept in thousandths
# (OCR rounds it to that). About 0.44x form 1 on OCR'd screens (bench/storage.py).
# Form 1 (zlib of compact JSON: [1, [[text|null, box, confidence, words], ...]], each word
# [start, length, x, y, w, h] or [text, x, y, w, h]) is read as ever, and written for lines that
# form 2 cannot give back exactly (a box not in whole pixels, a confidence finer than thousandths).
LINES_PACKED_VERSION = 1
LINES_BINARY = 2


class _NotExact(Exception):
    pass


def _varint(out: bytearray, n: int) -> None:
    n = (n << 1) if n >= 0 else ((-n << 1) - 1)  # zigzag: small negatives stay small
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)


def _whole(value) -> int:
    if type(value) is not int:
        raise _NotExact
    return value


def _lines_binary(lines: list[dict], shared: bool, texts: list[str]) -> bytes:
    numbers, strings = bytearray(), []
    _varint(numbers, len(lines))
    _varint(numbers, int(shared))
    above = 0
    for line, line_text in zip(lines, texts):
        if not shared:
            strings.append(line_text)
        x, y, w, h = (_whole(v) for v in line.get("b", [0, 0, 0, 0]))
        confidence = line.get("c", 1.0)
        thousandths = round(confidence * 1000)
        if thousandths / 1000 != confidence:
            raise _NotExact
        for n in (x, y - above, w, h, thousandths, len(line.get("w", []))):
            _varint(numbers, n)
        above, at, right = y, 0, x
        for word in line.get("w", []):
            word_text = word[0]
            found = line_text.find(word_text, at) if word_text else -1
            if found >= 0:  # where it stands: the gap after the word before, and its length
                _varint(numbers, (found - at) * 2)
                _varint(numbers, len(word_text))
                at = found + len(word_text)
            else:
                _varint(numbers, 1)
                strings.append(word_text)
            wx, wy, ww, wh = (_whole(v) for v in word[1:5])
            for n in (wx - right, wy - y, ww, wh - h):
                _varint(numbers, n)
            right = wx + ww
    if any("\x00" in string for string in strings):
        raise _NotExact
    joined = "\x00".join(strings).encode()
    head = bytearray()
    _varint(head, len(joined))
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    return bytes([LINES_BINARY]) + deflate.compress(bytes(head) + joined + bytes(numbers)) + deflate.flush()


def lines_pack(lines: list[dict], *, text: str) -> bytes:
    texts = [line.get("t", "") for line in lines]
    shared = "\n".join(texts) == text  # the line texts are the frame's text: kept once
    try:
        return _lines_binary(lines, shared, texts)
    except _NotExact:
        pass
    packed = []
    for line, line_text in zip(lines, texts):
        words, at = [], 0
        for word in line.get("w", []):
            found = line_text.find(word[0], at) if word[0] else -1
            if found >= 0:
                words.append([found, len(word[0]), *word[1:5]])
                at = found + len(word[0])
            else:
                words.append([word[0], *word[1:5]])
        packed.append([None if shared else line_text, list(line.get("b", [0, 0, 0, 0])), line.get("c", 1.0), words])
    body = json.dumps([LINES_PACKED_VERSION, packed], ensure_ascii=False, separators=(",", ":"))
    return zlib.compress(body.encode(), 9)


def lines_packed_form(data: bytes) -> int:
    """Which form packed lines are in (1 or 2)."""
    return LINES_BINARY if data[:1] == bytes([LINES_BINARY]) else LINES_PACKED_VERSION


class _Reader:
    def __init__(self, data: bytes):
        self.data, self.at = data, 0

    def number(self) -> int:
        n, shift = 0, 0
        while True:
            byte = self.data[self.at]
            self.at += 1
            n |= (byte & 0x7F) << shift
            if byte < 0x80:
                return (n >> 1) if not n & 1 else -((n + 1) >> 1)
            shift += 7


def _lines_binary_read(data: bytes, text: str) -> list[dict]:
    reader = _Reader(zlib.decompress(data[1:], -15))
    size = reader.number()
    strings = iter(reader.data[reader.at : reader.at + size].decode().split("\x00"))
    reader.at += size
    count, shared = reader.number(), bool(reader.number())
    shared_texts = text.split("\n") if shared else []
    lines, above = [], 0
    for number in range(count):
        if shared:
            line_text = shared_texts[number] if number < len(shared_texts) else ""
        else:
            line_text = next(strings)
        x, dy, w, h, thousandths, word_count = (reader.number() for _ in range(6))
        y = above + dy
        above, at, right, words = y, 0, x, []
        for _ in range(word_count):
            gap = reader.number()
            if gap & 1:
                word_text = next(strings)
            else:
                start = at + gap // 2
                at = start + reader.number()
                word_text = line_text[start:at]
            wx = right + reader.number()
            wy = y + reader.number()
            ww = reader.number()
            wh = h + reader.number()
            words.append([word_text, wx, wy, ww, wh])
            right = wx + ww
        lines.append({"t": line_text, "b": [x, y, w, h], "c": thousandths / 1000, "w": words})
    return lines


def lines_unpack(data: bytes, *, text: str) -> list[dict]:
    if lines_packed_form(data) == LINES_BINARY:
        return _lines_binary_read(data, text)
    version, packed = json.loads(zlib.decompress(data))
    if version != LINES_PACKED_VERSION:
        raise ValueError(f"OCR lines packed in an unknown form ({version})")
    shared = text.split("\n") if packed else []
    lines = []
    for number, (line_text, box, confidence, words) in enumerate(packed):
        if line_text is None:
            line_text = shared[number] if number < len(shared) else ""
        lines.append(
            {
                "t": line_text,
                "b": box,
                "c": confidence,
                "w": [[line_text[w[0] : w[0] + w[1]], *w[2:6]] if isinstance(w[0], int) else w for w in words],
            }
        )
    return lines


# A frame's OCR text as stored (frames.models.PackedTextField). A text of TEXT_PACK_MIN UTF-8 bytes
# or more is stored as bytes: a tag, then its UTF-8 in raw deflate (no zlib header or checksum)
# when that is smaller, else as it is (tag TEXT_PLAIN: so that a row the compaction has seen is not
# looked at again). A shorter text stays text on SQLite (deflate seldom saves a byte below it), and
# has a tag like the others where the column holds bytes (other databases).
TEXT_PLAIN = 0
TEXT_DEFLATE = 1
TEXT_PACK_MIN = 64


def text_pack(text: str) -> bytes:
    raw = text.encode()
    if len(raw) >= TEXT_PACK_MIN:
        deflate = zlib.compressobj(9, zlib.DEFLATED, -15)  # level 6 gives the same bytes on OCR text
        packed = deflate.compress(raw) + deflate.flush()
        if len(packed) + 1 < len(raw):
            return bytes([TEXT_DEFLATE]) + packed
    return bytes([TEXT_PLAIN]) + raw


def text_unpack(stored: bytes) -> str:
    if stored[:1] == bytes([TEXT_DEFLATE]):
        return zlib.decompress(stored[1:], -15).decode()
    if stored[:1] == bytes([TEXT_PLAIN]):
        return stored[1:].decode()
    return stored.decode(errors="replace")  # UTF-8 without a tag: a text column converted to bytes as it was
