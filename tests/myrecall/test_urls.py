"""Addresses a first run meets besides the pages: the icon browsers ask for, the API docs
with a trailing slash."""

import pytest
from django.contrib.auth import get_user_model

pytestmark = pytest.mark.django_db


def test_the_icon_is_served_at_the_root_without_a_login_and_linked_from_the_pages(client):
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon["Content-Type"] in ("image/x-icon", "image/vnd.microsoft.icon")
    assert b"".join(icon.streaming_content)[:4] == b"\x00\x00\x01\x00"  # an ICO file
    client.force_login(get_user_model().objects.create_user("me", password="a long enough password"))
    assert '<link rel="icon" href="/favicon.ico"' in client.get("/").content.decode()


def test_the_api_docs_with_a_trailing_slash_lead_to_the_docs(client):
    slash = client.get("/api/v1/docs/")
    assert slash.status_code == 302 and slash["Location"] == "/api/v1/docs"
    assert client.get("/api/v1/docs/", follow=True).redirect_chain[-1][0].startswith("/login/")  # the docs need a login
    client.force_login(get_user_model().objects.create_user("me", password="a long enough password"))
    docs = client.get("/api/v1/docs/", follow=True)
    assert docs.status_code == 200 and "MyRecall API" in docs.content.decode()


@pytest.mark.parametrize("path", ["/frames/abc/view", "/no/such/page", "/frames/1/nope"])
def test_an_address_no_page_answers_says_so_in_words(admin_client, path):
    resp = admin_client.get(path)
    assert resp.status_code == 404
    html = resp.content.decode()
    assert "There is nothing at this address." in html and path in html
    assert "Resolver404" not in html and "Traceback" not in html
