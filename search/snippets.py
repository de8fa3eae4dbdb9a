"""A short piece of a frame's text around the first match, with the matches marked."""

import re

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from frames.highlight import query_terms


def _window(text: str, q: str, width: int) -> tuple[str, re.Pattern | None, int]:
    """The text on one line, the query's terms as a pattern, and where a piece of `width`
    around the first match starts."""
    text = " ".join(text.split())
    terms = query_terms(q)
    if not terms:
        return text, None, 0
    pattern = re.compile("|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True)), re.IGNORECASE)
    first = pattern.search(text)
    return text, pattern, max(0, (first.start() if first else 0) - width // 3)


def snippet_text(*, text: str, q: str, width: int = 300) -> str:
    """Plain text: a piece of the frame's text around the first match, with … where it was cut."""
    text, _, start = _window(text, q, width)
    return ("…" if start else "") + text[start : start + width] + ("…" if start + width < len(text) else "")


def snippet_html(*, text: str, q: str, width: int = 240) -> SafeString:
    text, pattern, start = _window(text, q, width)
    if pattern is None:
        return escape(text[:width] + ("…" if len(text) > width else ""))
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
