"""Links in a rendered answer: validated frame citations and web addresses, nothing else."""

from html.parser import HTMLParser

import pytest

from chat.rendering import answer_html
from myrecall.links import web_url
from tests.myrecall.test_links import NOT_WEB


class Links(HTMLParser):
    def __init__(self, html: str):
        super().__init__()
        self.hrefs: list[str | None] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self.hrefs.append(dict(attrs).get("href"))


@pytest.mark.parametrize("address", [a for a in NOT_WEB if a and a.strip() and "\n" not in a and "\r" not in a])
def test_a_link_to_anything_but_a_web_address_stays_text(address):
    for markdown in (f"[open]({address})", f"[open](<{address}>)", f"<{address}>", f"[open][r]\n\n[r]: <{address}>"):
        hrefs = Links(answer_html(answer_md=markdown, viewer_urls={})).hrefs
        # Markdown reads a few of these as another address ("\xa0https://..." as a space, then
        # https://...): a web address may link, nothing else may (an <a> without href is no link).
        assert all(href is None or web_url(href) == href for href in hrefs), (markdown, hrefs)
        if "script" in address.lower() or address.lower().startswith(("data:", "file:", "//")):
            assert hrefs == [], (markdown, hrefs)


def test_web_links_and_validated_citations_are_links_and_an_unvalidated_citation_is_its_label():
    html = answer_html(
        answer_md="See [14:05](myrecall://frame/5), [14:06](myrecall://frame/6), [/frames/](/frames/7/view),"
        " [docs](HTTPS://example.org/docs) and <https://example.org/a?b=1>.",
        viewer_urls={5: "/frames/5/view?hl=budget"},
    )
    assert Links(html).hrefs == ["/frames/5/view?hl=budget", "HTTPS://example.org/docs", "https://example.org/a?b=1"]
    assert 'class="cite" data-frame-id="5"' in html
    # The frame without a validated citation and the model's own viewer link are their labels, as text.
    assert ", 14:06, [/frames/](/frames/7/view)," in html
    assert html.count('rel="noopener noreferrer"') == 3
