from django import template

from myrecall.links import url_link as _url_link

register = template.Library()


@register.filter
def url_link(value: str, max_chars: int | None = None):
    """{{ frame.browser_url|url_link:80 }}: a link if it is a web address, else text (myrecall.links)."""
    return _url_link(value, max_chars=max_chars)
