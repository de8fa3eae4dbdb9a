import hashlib
import re
import io
import os
import stat
import time

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import URLPattern, URLResolver, get_resolver, resolve

from myrecall.models import ApiToken
from myrecall.services import ADMIN_PASSWORD_FILE, admin_ensure
from tests.conftest import post_frame, render_text_image

pytestmark = pytest.mark.django_db

# Pages anyone may open: the login form itself (and the admin's own login form).
PUBLIC = {"/login/", "/admin/login/"}
# django-ninja's root URL has no operation: it answers 404 to everyone.
EMPTY = {"/api/v1/"}


def _concrete_paths(resolver=None, prefix="") -> list[str]:
    """Every route of the app with sample values for its parameters."""
    paths = []
    for entry in (resolver or get_resolver()).url_patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            paths += _concrete_paths(entry, route)
        elif isinstance(entry, URLPattern):
            if "(?P" in route or route.startswith("^") or "static" in route:
                continue  # admin regex routes are covered by their concrete siblings
            paths.append("/" + re.sub(r"<[^>]+>", "1", route))
    return sorted(set(paths))


def test_every_route_refuses_a_request_without_credentials(client):
    paths = _concrete_paths()
    api_paths = [p for p in paths if p.startswith("/api/")]
    assert "/api/v1/frames" in api_paths and "/api/v1/search" in api_paths and "/api/v1/docs" in api_paths
    assert "/frames/1" in paths
    for path in paths:
        if path in PUBLIC or path in EMPTY:
            continue
        for method in ("get", "post"):
            resp = getattr(client, method)(path)
            if resp.status_code == 405:
                continue
            if path == "/api/v1/docs/":  # the slash people add by habit: on to the docs, which ask for a login
                assert resp.status_code == 302 and resp["Location"] == "/api/v1/docs", (method, path)
            elif path.startswith("/api/") and not path.endswith("/docs"):
                assert resp.status_code == 401, (method, path, resp.status_code)
                assert set(resp.json()) == {"message", "extra"}, path
            elif path == "/frames/1":
                assert resp.status_code == 401, (method, path)
            elif resolve(path).namespace == "screenpipe":  # screenpipe's clients get API answers
                assert resp.status_code == 401, (method, path, resp.status_code)
                assert set(resp.json()) == {"message", "extra"}, path
            else:
                assert resp.status_code == 302, (method, path, resp.status_code)
                assert "login" in resp["Location"], path


def test_wrong_or_malformed_token_is_refused(client, api_token):
    for header in ("Bearer nope", "Bearer " + api_token[:-1] + "x", api_token, "Basic abc"):
        resp = client.get("/api/v1/search", {"start_time": 0}, HTTP_AUTHORIZATION=header)
        assert resp.status_code == 401, header
    ok = client.get("/api/v1/search", {"start_time": 0}, HTTP_AUTHORIZATION=f"Bearer {api_token}")
    assert ok.status_code == 200


def test_tokens_are_stored_hashed_and_printed_once_as_last_line(capsys):
    call_command("token_create", "laptop")
    out = capsys.readouterr().out.strip().splitlines()
    raw = out[-1]
    token = ApiToken.objects.get(name="laptop")
    assert token.key_hash == hashlib.sha256(raw.encode()).hexdigest()
    assert raw not in token.key_hash and raw != token.hint
    assert not ApiToken.objects.filter(key_hash=raw).exists()


def test_first_start_creates_admin_once_with_private_password_file(data_dir, client):
    password = admin_ensure()
    assert password
    path = data_dir / ADMIN_PASSWORD_FILE
    assert path.read_text().strip() == password
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert admin_ensure() is None  # the second start prints nothing
    assert get_user_model().objects.filter(username="admin", is_superuser=True).count() == 1
    assert client.login(username="admin", password=password)
    assert client.get("/").status_code == 200
    docs = client.get("/api/v1/docs")
    assert docs.status_code == 200
    assert b"cdn." not in docs.content  # served from static files: works offline
    assert client.get("/api/v1/openapi.json").json()["info"]["title"] == "MyRecall API"


def test_session_login_reaches_api_but_posts_need_csrf(data_dir):
    from django.test import Client

    password = admin_ensure()
    browser = Client(enforce_csrf_checks=True)
    assert browser.login(username="admin", password=password)
    assert browser.get("/api/v1/search", {"start_time": time.time() - 60}).status_code == 200
    image = io.BytesIO(render_text_image(["csrf"]))
    image.name = "f.png"
    resp = browser.post("/api/v1/frames", {"image": image, "timestamp": time.time()})
    assert resp.status_code in (401, 403)


def test_bearer_token_api_post_needs_no_csrf(api):
    assert post_frame(api, render_text_image(["token client"])).status_code == 201


def test_read_only_token_can_search_but_not_ingest_or_ask(client):
    from frames.models import Frame
    from myrecall.services import api_token_create

    _, raw = api_token_create(name="agent", read_only=True)
    client.defaults["HTTP_AUTHORIZATION"] = f"Bearer {raw}"
    assert client.get("/api/v1/search", {"start_time": 0}).status_code == 200
    assert client.get("/search", {"q": "x"}).status_code == 200  # the screenpipe surface reads too
    resp = post_frame(client, render_text_image(["nope"]))
    assert resp.status_code == 403
    assert "read-only" in resp.json()["message"] and set(resp.json()) == {"message", "extra"}
    resp = client.post("/api/v1/chat", {"message": "hi", "start_time": 0}, content_type="application/json")
    assert resp.status_code == 403 and "read-only" in resp.json()["message"]
    assert not Frame.objects.exists()


def test_a_token_can_be_made_before_the_first_start(tmp_path):
    """The README has the user make a capture token first: on a data dir no server has created yet."""
    import os
    import subprocess
    import sys

    from tests.server import REPO

    env = {**os.environ, "MYRECALL_DATA_DIR": str(tmp_path / "new")}
    done = subprocess.run([sys.executable, "manage.py", "token_create", "laptop"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1].startswith("mr_") and "Created token 'laptop'" in done.stderr
    # Which data dir holds it: a server started on another one refuses it.
    assert f"in the data dir {tmp_path / 'new'}:" in done.stderr
