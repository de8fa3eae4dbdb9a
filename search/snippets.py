"""A short piece of a frame's text around the first match, with the matches marked."""

import re

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from frames.highlight import query_terms


def snippet_html(*, text: str, q: str, width: int = 240) -> SafeString:
    text = " ".join(text.split())
    terms = query_terms(q)
    if not terms:
        return escape(text[:width] + ("…" if len(text) > width else ""))
    pattern = re.compile("|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True)), re.IGNORECASE)
    first = pattern.search(text)
    start = max(0, (first.start() if first else 0) - width // 3)
    piece = text[start : start + width]
    out = ["…" if start else ""]
    pos = 0
    for match in pattern.finditer(piece):
        out.append(escape(piece[pos : match.start()]))
        out.append(f"<mark>{escape(match.group())}</mark>")
        pos = match.end()
    out.append(escape(piece[pos:]))
    if start + width < len(text):
        out.append("…")
    return mark_safe("".join(out))  # every piece of text above was escaped
