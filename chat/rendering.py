"""Answers as HTML that is safe to put in a page: OCR text and model output can hold HTML.

Markdown is rendered with raw HTML off (so any tag in the text comes out escaped), then the
result is sanitised against a short allow-list anyway. `myrecall://frame/ID` links become
links to the frame viewer; any other link that is not a web address (myrecall.links) stays text.
"""

import re
from functools import lru_cache

import nh3
from markdown_it import MarkdownIt

from myrecall.links import WEB_SCHEMES, web_url

FRAME_LINK = re.compile(r"myrecall://frame/(\d+)")

_TAGS = {"p", "br", "strong", "em", "code", "pre", "ul", "ol", "li", "a", "h3", "h4", "blockquote", "hr", "del"}
_ATTRIBUTES = {"a": {"href", "title", "class", "data-frame-id"}, "ol": {"start"}}


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable("strikethrough")
    md.validateLink = lambda url: bool(FRAME_LINK.fullmatch(url) or web_url(url))
    return md


def answer_html(*, answer_md: str, viewer_urls: dict[int, str]) -> str:
    """The answer as sanitised HTML; a frame link goes to `viewer_urls[id]` (a frame missing
    from it keeps its label as plain text: only validated citations become links)."""
    tokens = _markdown().parse(answer_md)
    for token in tokens:
        unlinked = []
        for child in token.children or []:
            if child.type == "link_open":
                href = child.attrGet("href") or ""
                match = FRAME_LINK.fullmatch(href)
                if match:
                    frame_id = int(match.group(1))
                    if frame_id in viewer_urls:
                        child.attrSet("href", viewer_urls[frame_id])
                        child.attrSet("class", "cite")
                        child.attrSet("data-frame-id", str(frame_id))
                    else:
                        unlinked.append(child)
            elif child.type == "link_close" and unlinked and unlinked[-1].type == "link_open":
                unlinked.append(child)  # links do not nest: this closes the one just unlinked
        if unlinked:
            dropped = {id(child) for child in unlinked}
            token.children = [child for child in token.children if id(child) not in dropped]
        # Headings are shown one level down so that an answer never outranks the page's own title.
        if token.type == "heading_open":
            level = min(int(token.tag[1]) + 2, 4)
            token.tag = f"h{level}"
        if token.type == "heading_close":
            token.tag = f"h{min(int(token.tag[1]) + 2, 4)}"
    html = _markdown().renderer.render(tokens, _markdown().options, {})
    return nh3.clean(
        html,
        tags=_TAGS,
        attributes=_ATTRIBUTES,
        url_schemes=WEB_SCHEMES,
        link_rel="noopener noreferrer",
    )
