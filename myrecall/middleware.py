from django.conf import settings
from django.contrib.auth.middleware import LoginRequiredMiddleware
from django.http import JsonResponse
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


class TimezoneMiddleware:
    """Renders every date and time of a request in the timezone the browser named."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        with timezone.override(request_timezone(request)):
            return self.get_response(request)
