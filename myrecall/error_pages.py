"""The site's error pages for people (the API answers its own, in the one error shape)."""

from django.http import HttpRequest
from django.shortcuts import render
from django.urls import Resolver404


def page_not_found(request: HttpRequest, exception: Exception):
    """404.html with the reason a view gave (Http404("No such frame image.")); an address no
    route takes says so in words, never by the name of Django's exception (Resolver404)."""
    reason = exception.args[0] if exception.args and not isinstance(exception, Resolver404) else ""
    return render(
        request,
        "404.html",
        {"message": reason if isinstance(reason, str) and reason else "There is nothing at this address.", "path": request.path},
        status=404,
    )
