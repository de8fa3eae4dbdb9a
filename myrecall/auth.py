"""API authentication: hashed bearer tokens, or the browser's login session."""

from django.http import HttpRequest
from ninja.security import HttpBearer, django_auth

from myrecall.services import api_token_authenticate


class BearerToken(HttpBearer):
    def authenticate(self, request: HttpRequest, token: str):
        api_token = api_token_authenticate(raw=token)
        if api_token is None:
            return None
        request.api_token = api_token
        return api_token


API_AUTH = [BearerToken(), django_auth]
