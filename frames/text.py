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


# A frame's OCR lines as stored: zlib of compact JSON. A line's text is left out when the lines'
# texts joined by newlines are the frame's text (as OCR writes them), and a word's text is given by
# where it stands in its line ([start, length, x, y, w, h]) when it stands there as it is, else in
# full ([text, x, y, w, h]). The same lines come back, in the shape OcrLine.to_json makes:
# [{"t": text, "b": [x, y, w, h], "c": confidence, "w": [[word, x, y, w, h], ...]}, ...].
LINES_PACKED_VERSION = 1


def lines_pack(lines: list[dict], *, text: str) -> bytes:
    texts = [line.get("t", "") for line in lines]
    shared = "\n".join(texts) == text  # the line texts are the frame's text: kept once
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


def lines_unpack(data: bytes, *, text: str) -> list[dict]:
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
