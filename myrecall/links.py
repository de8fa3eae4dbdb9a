"""Addresses from captured data (a frame's browser_url, a link in a model's answer) become links
only when they are web addresses: a `javascript:`, `data:` or `file:` address is shown as text.

The address is read the way a browser reads an href (WHATWG URL parsing): control characters and
spaces at either end and tabs and newlines anywhere are dropped, the scheme is matched in any
letter case. The link then points at that cleaned address, so what was checked is what is opened.
"""

from urllib.parse import urlsplit

from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.text import Truncator

WEB_SCHEMES = {"http", "https"}
_C0_CONTROL_OR_SPACE = "".join(chr(code) for code in range(0x21))
_TAB_OR_NEWLINE = str.maketrans("", "", "\t\n\r")


def web_url(value: str | None) -> str:
    """The http(s) address with a host that a browser would read from `value`, else ""."""
    url = (value or "").strip(_C0_CONTROL_OR_SPACE).translate(_TAB_OR_NEWLINE)
    if any(ord(char) < 0x20 or ord(char) == 0x7F for char in url):
        return ""
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:  # e.g. an unclosed "[" of an IPv6 host
        return ""
    if parts.scheme not in WEB_SCHEMES or not host:
        return ""
    return url


def url_link(value: str | None, *, max_chars: int | None = None) -> SafeString:
    """`value` as a link that opens in a new tab if it is a web address, else as text; either
    way shown as it was captured, cut to `max_chars`."""
    text = Truncator(value or "").chars(max_chars) if max_chars else value or ""
    href = web_url(value)
    if not href:
        return format_html('<span class="url">{}</span>', text)
    return format_html('<a class="url" href="{}" rel="noreferrer noopener" target="_blank">{}</a>', href, text)
