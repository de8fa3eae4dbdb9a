"""A short piece of a frame's text around the first match, with the matches marked; for a frame
found by meaning, the passage that matched (search.passages), marked whole."""

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


def _passage_piece(passage: str | None, width: int) -> str | None:
    lines = " ".join((passage or "").split())
    if not lines:
        return None
    return lines[:width] + ("…" if len(lines) > width else "")


def excerpt_text(*, text: str, q: str, passage: str | None = None, width: int = 300) -> str:
    """What a result shows of its frame: the passage that matched by meaning when it was found
    so (passage: the screen's lines in it, search.semantic), else the piece around the first of
    q's words."""
    if piece := _passage_piece(passage, width):
        return piece
    return snippet_text(text=text, q=q, width=width)


def excerpt_html(*, text: str, q: str, passage: str | None = None, width: int = 240) -> SafeString:
    """excerpt_text as HTML: q's words marked, or the passage that matched by meaning marked whole."""
    if piece := _passage_piece(passage, width):
        return mark_safe(f'<mark class="meaning">{escape(piece)}</mark>')
    return snippet_html(text=text, q=q, width=width)
