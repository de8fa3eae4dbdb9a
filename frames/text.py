"""Script detection shared by OCR (languages found) and search (CJK tokenising)."""

import re

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
