from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET

from frames import selectors
from frames.api import frame_image_response
from myrecall.auth import BearerToken
from myrecall.errors import ApplicationError, error_body


@login_not_required  # answers 401 itself: API clients send a bearer token, not a session
@require_GET
def frame_image(request: HttpRequest, frame_id: int):
    if not (request.user.is_authenticated or BearerToken()(request)):
        return JsonResponse(error_body("Authentication required: send a bearer token or log in."), status=401)
    try:
        return frame_image_response(selectors.frame_get(frame_id=frame_id))
    except ApplicationError as exc:
        return JsonResponse(error_body(exc.message, exc.extra), status=exc.status_code)
