from django.conf import settings
from django.contrib.auth.middleware import LoginRequiredMiddleware
from django.contrib.auth.models import AnonymousUser
from django.http import HttpResponse, JsonResponse
from django.utils import timezone

from myrecall.errors import error_body
from myrecall.timezones import request_timezone

API_PREFIX = "/api/"

# Multipart framing and the metadata fields around the image.
_MULTIPART_SLACK = 256 * 1024


class UploadSizeLimitMiddleware:
    """Refuses an oversized body from its Content-Length before anything is read or spooled."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        limit = settings.MAX_UPLOAD_BYTES + _MULTIPART_SLACK
        if length > limit:
            return JsonResponse(
                error_body(
                    "Upload too large.",
                    {"max_bytes": settings.MAX_UPLOAD_BYTES, "content_length": length},
                ),
                status=413,
            )
        return self.get_response(request)


class LoginRequired(LoginRequiredMiddleware):
    """Every page needs a login; the API authenticates itself and answers 401 in the error shape."""

    def process_view(self, request, view_func, view_args, view_kwargs):
        if request.path_info.startswith(API_PREFIX):
            return None
        return super().process_view(request, view_func, view_args, view_kwargs)


def cross_origin_readable(view):
    """Marks a view that pages of other origins may call with a bearer token (screenpipe's surface at
    the root: its browser SDK, a pipe's page): CrossOrigin answers their preflight and lets them read it."""
    view.cross_origin_readable = True
    return view


def from_another_origin(request) -> bool:
    """Whether a browser sent the request for a page of another origin: by its Sec-Fetch-Site (which a page
    cannot set; localhost:3000 -> localhost:8000 is "same-site"), or by an Origin not this server's."""
    if request.headers.get("Sec-Fetch-Site", "same-origin") not in ("same-origin", "none"):
        return True
    origin = request.headers.get("Origin")
    own = f"{'https' if request.is_secure() else 'http'}://{request.get_host()}"
    return origin is not None and origin != own and origin not in settings.CSRF_TRUSTED_ORIGINS


async def _anonymous():
    return AnonymousUser()


class CrossOrigin:
    """Calls from pages of other origins. On every API route (/api/ and the views marked
    cross_origin_readable) the login session does not count for them: a page elsewhere must not read
    or change a logged-in user's memory through the browser's cookie, so it needs a bearer token.
    The marked views also answer the CORS preflight and send Access-Control-Allow-Origin: *, never
    Access-Control-Allow-Credentials, so browsers do not let such pages read them with the cookie either."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if getattr(request, "cross_origin_readable", False):
            response["Access-Control-Allow-Origin"] = "*"
        return response

    def process_view(self, request, view_func, view_args, view_kwargs):
        readable = getattr(view_func, "cross_origin_readable", False)
        request.cross_origin_readable = readable
        if readable and request.method == "OPTIONS" and "Access-Control-Request-Method" in request.headers:
            return _preflight_answer()
        if (readable or request.path_info.startswith(API_PREFIX)) and from_another_origin(request):
            request.user = AnonymousUser()
            request.auser = _anonymous
        return None


CORS_MAX_AGE_S = 7200  # the longest Chromium keeps a preflight's answer


def _preflight_answer() -> HttpResponse:
    response = HttpResponse(status=204)
    response["Access-Control-Allow-Methods"] = "GET, OPTIONS"
    response["Access-Control-Allow-Headers"] = "Authorization, Content-Type, Accept"
    response["Access-Control-Max-Age"] = str(CORS_MAX_AGE_S)
    return response


class TimezoneMiddleware:
    """Renders every date and time of a request in the timezone the browser named."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        with timezone.override(request_timezone(request)):
            return self.get_response(request)


class SameOriginWebsocket:
    """ASGI: a websocket opens only for a page of this very server. Channels' host check compares
    the Origin's host name alone, so a page on another port of 127.0.0.1 (any local program's
    page) could open the live feed and the agent's socket with the user's cookie; here the Origin
    must be the scheme, host and port the browser connected to (its Host), or a trusted origin."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket":
            headers = {key.decode("latin-1").lower(): value.decode("latin-1") for key, value in scope.get("headers", [])}
            origin, host = headers.get("origin"), headers.get("host", "")
            secure = scope.get("scheme") in ("wss", "https")
            own = f"{'https' if secure else 'http'}://{host}"
            if origin is not None and origin != own and origin not in settings.CSRF_TRUSTED_ORIGINS:
                await send({"type": "websocket.close", "code": 4403})
                return
        await self.app(scope, receive, send)
