import os
import secrets
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import timezone

from myrecall.models import ApiToken, token_hash

ADMIN_USERNAME = "admin"
ADMIN_PASSWORD_FILE = "admin_password.txt"


def api_token_create(*, name: str, read_only: bool = False) -> tuple[ApiToken, str]:
    """Create a token; the raw value is returned once and never stored."""
    raw = ApiToken.new_raw()
    token = ApiToken.objects.create(
        name=name, key_hash=token_hash(raw), hint=raw[:8], read_only=read_only
    )
    return token, raw


def api_token_authenticate(*, raw: str) -> ApiToken | None:
    token = ApiToken.objects.filter(key_hash=token_hash(raw)).first()
    if token is not None:
        now = timezone.now()
        # Touch at most once a minute: a write on every request would contend with ingest.
        if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token


def admin_ensure() -> str | None:
    """Create the `admin` account on first start; return its password once, else None."""
    users = get_user_model()
    if users.objects.filter(username=ADMIN_USERNAME).exists():
        return None
    password = secrets.token_urlsafe(16)
    users.objects.create_superuser(username=ADMIN_USERNAME, email="", password=password)
    path = Path(settings.DATA_DIR) / ADMIN_PASSWORD_FILE
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(password + "\n")
    os.chmod(path, 0o600)
    return password
