"""The one NinjaAPI: routers from each app, bearer or session auth, one error shape."""

import logging
from functools import wraps

from django.http import Http404, HttpRequest, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.shortcuts import redirect
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, ValidationError

from agent_bridge.api import router as agent_router
from chat.api import router as chat_router
from frames.api import router as frames_router
from myrecall.auth import API_AUTH, BearerToken
from myrecall.errors import ApplicationError, error_body
from myrecall.inputs import errors_explained
from search.api import router as search_router

logger = logging.getLogger(__name__)


def _docs_auth(view):
    """The docs and schema need a login too: a session, or a bearer token for the schema."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs):
        if request.user.is_authenticated or BearerToken()(request):
            return view(request, *args, **kwargs)
        if request.path.endswith("/docs"):
            return redirect(f"/login/?next={request.path}")
        return JsonResponse(error_body("Authentication required."), status=401)

    return wrapper


class MyRecallApi(NinjaAPI):
    def get_openapi_schema(self, **kwargs):
        """The schema as the server reads input: a form takes only the fields it names (a JSON
        body's schema says so itself), like a query (myrecall.inputs)."""
        schema = super().get_openapi_schema(**kwargs)
        for operations in schema["paths"].values():
            for operation in operations.values():
                form = operation.get("requestBody", {}).get("content", {}).get("multipart/form-data")
                if form:
                    form["schema"]["additionalProperties"] = False
        return schema


api = MyRecallApi(
    title="MyRecall API",
    version="1",
    urls_namespace="api",
    auth=API_AUTH,
    docs_url="/docs",
    docs_decorator=_docs_auth,
    description="Local screen memory: ingest frames, read their text, search them, and ask for summaries of a time range with evidence. "
    "Send `Authorization: Bearer <token>` (create one with `manage.py token_create NAME`).",
)
api.add_router("/", frames_router)
api.add_router("/", search_router)
api.add_router("/", chat_router)
api.add_router("/", agent_router)


@api.exception_handler(ApplicationError)
def _application_error(request, exc: ApplicationError):
    return api.create_response(request, error_body(exc.message, exc.extra), status=exc.status_code)


@api.exception_handler(ValidationError)
def _validation_error(request, exc: ValidationError):
    """Input that is not what the operation's schema says: nothing was done; every problem listed."""
    message, errors = errors_explained(exc.errors, writes=request.method not in ("GET", "HEAD", "OPTIONS"))
    return api.create_response(request, error_body(message, {"errors": errors}), status=400)


@api.exception_handler(MultiPartParserError)
def _unreadable_form(request, exc: MultiPartParserError):
    return api.create_response(request, error_body(f"The multipart body could not be read: {exc}."), status=400)


@api.exception_handler(AuthenticationError)
def _authentication_error(request, exc):
    return api.create_response(
        request, error_body("Authentication required: send a bearer token or log in."), status=401
    )


@api.exception_handler(Http404)
def _not_found(request, exc):
    return api.create_response(request, error_body(str(exc) or "Not found."), status=404)


@api.exception_handler(HttpError)
def _http_error(request, exc: HttpError):
    return api.create_response(request, error_body(str(exc)), status=exc.status_code)


@api.exception_handler(Exception)
def _unexpected(request, exc):
    logger.exception("Unhandled error on %s", request.path)
    return api.create_response(request, error_body("Internal error; see the server log."), status=500)
