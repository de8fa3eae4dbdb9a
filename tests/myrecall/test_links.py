"""Which captured addresses become links (myrecall.links): web addresses only, read the way a
browser reads an href, so no spelling of javascript:, data: or file: gets through."""

import pytest
from django.template import Context, Template

from myrecall.links import url_link, web_url

# Every one of these must stay text. tests/pages/test_links.py checks the list against Chromium's
# own URL parser too.
NOT_WEB = [
    "javascript:alert(3)",
    "JAVASCRIPT:alert(3)",
    "JavaScript:alert(3)",
    " javascript:alert(3)",
    "\x00javascript:alert(3)",
    "\x01\x1f javascript:alert(3)",
    "\tjavascript:alert(3)",
    "\njavascript:alert(3)",
    "java\tscript:alert(3)",
    "java\nscript:alert(3)",
    "java\rscript:alert(3)",
    "javascript\t:alert(3)",
    "javascript://example.org/%0aalert(3)",
    "javascript:https://example.org/",
    "vbscript:msgbox(3)",
    "VBScript:msgbox(3)",
    "data:text/html,<script>alert(3)</script>",
    "DATA:text/html;base64,PHNjcmlwdD5hbGVydCgzKTwvc2NyaXB0Pg==",
    "file:///etc/passwd",
    "FILE://C:/Windows/win.ini",
    "blob:https://example.org/0b5b6a4e-9c8f-4c57-9d7c-1f0f0d8f9c11",
    "about:blank",
    "chrome://settings",
    "view-source:https://example.org/",
    "mailto:someone@example.org",
    "ftp://example.org/file",
    "myrecall://frame/1",
    "//evil.example/path",
    " //evil.example/",
    "/frames/1/view",
    "relative/page.html",
    "example.org",
    "http://",
    "https://",
    "https:///no-host",
    "http:evil.example",
    "https:\\\\evil.example",
    "ht\x00tp://example.org/",
    "https://exa\x00mple.org/",
    "https://example.org/\x7f",
    "\u00a0https://example.org/",
    "\u3000javascript:alert(3)",
    "ｊａｖａｓｃｒｉｐｔ:alert(3)",
    "https://[::1",
    "",
    "   ",
    None,
]

# (as captured, the address the link points at)
WEB = [
    ("https://example.org/", "https://example.org/"),
    ("http://example.org/path?q=1&r=2#part", "http://example.org/path?q=1&r=2#part"),
    ("HTTPS://EXAMPLE.ORG/Page", "HTTPS://EXAMPLE.ORG/Page"),
    ("Http://example.org", "Http://example.org"),
    ("  https://example.org/page  ", "https://example.org/page"),
    ("\x00\x0bhttps://example.org/\x1f", "https://example.org/"),
    ("https://exa\nmple.org/do\tcs", "https://example.org/docs"),
    ("ht\ttps://example.org/", "https://example.org/"),
    ("http://127.0.0.1:8000/frames/1/view", "http://127.0.0.1:8000/frames/1/view"),
    ("https://user:secret@example.org/", "https://user:secret@example.org/"),
    ("https://[::1]:8443/", "https://[::1]:8443/"),
    ("https://例子.测试/路径?词=预算", "https://例子.测试/路径?词=预算"),
    ("https://example.org/search?q=\"><script>alert(3)</script>", "https://example.org/search?q=\"><script>alert(3)</script>"),
]


@pytest.mark.parametrize("value", NOT_WEB)
def test_anything_but_a_web_address_is_not_a_link(value):
    assert web_url(value) == ""
    html = url_link(value)
    assert "<a" not in html and "href" not in html
    assert html.startswith('<span class="url">')


@pytest.mark.parametrize("value, href", WEB)
def test_a_web_address_is_a_link_to_what_the_browser_would_read(value, href):
    assert web_url(value) == href
    html = url_link(value)
    assert html.startswith('<a class="url" href="')
    assert 'rel="noreferrer noopener" target="_blank"' in html


def test_the_address_is_shown_as_captured_and_escaped():
    assert url_link("javascript:alert('<b>3</b>')") == '<span class="url">javascript:alert(&#x27;&lt;b&gt;3&lt;/b&gt;&#x27;)</span>'
    assert url_link('https://example.org/?a=1&b="2"') == (
        '<a class="url" href="https://example.org/?a=1&amp;b=&quot;2&quot;" rel="noreferrer noopener" target="_blank">'
        "https://example.org/?a=1&amp;b=&quot;2&quot;</a>"
    )


def test_a_long_address_is_cut_for_display_but_links_in_full():
    long = "https://example.org/" + "a" * 200
    html = url_link(long, max_chars=30)
    assert f'href="{long}"' in html and ">https://example.org/aaaaaaaaa…</a>" in html
    assert url_link("javascript:" + "a" * 200, max_chars=20) == '<span class="url">javascript:aaaaaaaa…</span>'


def test_the_template_filter_uses_the_same_check():
    template = Template("{% load links %}{{ url|url_link }}|{{ url|url_link:12 }}")
    assert template.render(Context({"url": "javascript:alert(3)"})) == (
        '<span class="url">javascript:alert(3)</span>|<span class="url">javascript:…</span>'
    )
    assert template.render(Context({"url": "https://example.org/"})).startswith(
        '<a class="url" href="https://example.org/" rel="noreferrer noopener" target="_blank">https://example.org/</a>|'
    )
