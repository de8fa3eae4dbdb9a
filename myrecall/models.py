import hashlib
import secrets

from django.db import models

TOKEN_PREFIX = "mr_"


def token_hash(raw: str) -> str:
    # Tokens carry 256 random bits, so a plain SHA-256 is enough (no key stretching needed).
    return hashlib.sha256(raw.encode()).hexdigest()


class ApiToken(models.Model):
    """A bearer token for the REST API; only its hash is stored."""

    name = models.CharField(max_length=100)
    key_hash = models.CharField(max_length=64, unique=True)
    hint = models.CharField(max_length=12, help_text="First characters, to tell tokens apart.")
    read_only = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.name} ({self.hint}…)"

    @staticmethod
    def new_raw() -> str:
        return TOKEN_PREFIX + secrets.token_urlsafe(32)
