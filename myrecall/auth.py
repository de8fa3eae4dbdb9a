"""API authentication: hashed bearer tokens, or the browser's login session.

A read-only token (the agent's, or one made with `token_create --read-only`) may read
anything and change nothing: any method but GET, HEAD and OPTIONS is refused with 403."""

from django.http import HttpRequest
from ninja.security import HttpBearer, django_auth

from myrecall.errors import ApplicationError
from myrecall.services import api_token_authenticate

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


class BearerToken(HttpBearer):
    def authenticate(self, request: HttpRequest, token: str):
        api_token = api_token_authenticate(raw=token)
        if api_token is None:
            return None
        if api_token.read_only and request.method not in SAFE_METHODS:
            raise ApplicationError(f"This token is read-only: it cannot {request.method} {request.path}.", status_code=403)
        request.api_token = api_token
        return api_token


API_AUTH = [BearerToken(), django_auth]
