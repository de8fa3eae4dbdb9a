"""Pages of other origins (screenpipe's browser SDK, a pipe's page) calling MyRecall: the root
screenpipe surface answers their CORS preflight and lets them read it with a bearer token; the login
cookie never counts for a call from another origin on any API route (root or /api/v1), while the
pages and their own calls keep working with it. Django's test client here; a real Chromium with a
page on a second local origin in test_cors_browser.py."""

import pytest
from django.contrib.auth import get_user_model

from frames import storage
from frames.models import Frame

pytestmark = pytest.mark.django_db

T0 = 1_750_000_000.0
OTHER = "http://localhost:3000"  # a pipe's page; to a server on localhost:8000 it is "same-site"
OWN = "http://testserver"  # the test client's host
NAVIGATION = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


@pytest.fixture(autouse=True)
def keyword_mode(settings):
    settings.SEARCH_MODE = "keyword"


@pytest.fixture
def frame_id(frame_make, data_dir):
    frame_id = frame_make("quarterly budget review", at=T0)
    image = storage.image_location(Frame.objects.get(id=frame_id).image_path)
    image.parent.mkdir(parents=True, exist_ok=True)
    image.write_bytes(b"image bytes")
    return frame_id


@pytest.fixture
def logged_in(client, db):
    client.force_login(get_user_model().objects.create_superuser("admin", password="a long enough password"))
    return client


def root_routes(frame_id: int) -> list[str]:
    return [
        "/search?q=budget", f"/frames/{frame_id}", f"/frames/{frame_id}/ocr", f"/frames/{frame_id}/metadata",
        f"/frames/{frame_id}/context", "/health", "/activity-summary?start_time=2025-06-15T00:00:00Z&end_time=now",
    ]


def strict_routes(frame_id: int) -> list[str]:
    return [
        f"/api/v1/search?q=budget&start_time={T0 - 60}", f"/api/v1/frames/{frame_id}", f"/api/v1/frames/{frame_id}/ocr",
        f"/api/v1/frames/{frame_id}/metadata", "/api/v1/status",
    ]


# Ways a browser marks a call a page of another origin makes (Sec-Fetch-Site is set by the browser
# alone; browsers without it send the Origin).
CROSS_ORIGIN = [
    {"HTTP_ORIGIN": OTHER, "HTTP_SEC_FETCH_SITE": "same-site"},
    {"HTTP_ORIGIN": "https://pipes.example.org", "HTTP_SEC_FETCH_SITE": "cross-site"},
    {"HTTP_SEC_FETCH_SITE": "same-site"},  # a GET fetch(): browsers send no Origin for it
    {"HTTP_SEC_FETCH_SITE": "cross-site"},
    {"HTTP_ORIGIN": OTHER},
    {"HTTP_ORIGIN": "http://testserver:8001"},  # another port is another origin
    {"HTTP_ORIGIN": "https://testserver"},  # and another scheme
    {"HTTP_ORIGIN": "null"},  # a sandboxed frame, a file:// page
    {"HTTP_ORIGIN": OWN, "HTTP_SEC_FETCH_SITE": "same-site"},
]
SAME_ORIGIN = [
    {},  # curl, scripts: no browser, no cookie unless given one
    {"HTTP_SEC_FETCH_SITE": "same-origin"},
    {"HTTP_SEC_FETCH_SITE": "none"},  # typed in the address bar
    {"HTTP_ORIGIN": OWN},
    {"HTTP_ORIGIN": OWN, "HTTP_SEC_FETCH_SITE": "same-origin"},
]


def test_the_preflight_of_every_root_route_is_answered(client, frame_id):
    for url in root_routes(frame_id):
        resp = client.options(
            url, HTTP_ORIGIN=OTHER, HTTP_SEC_FETCH_SITE="same-site",
            HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET", HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization",
        )
        assert resp.status_code == 204, (url, resp.status_code)
        assert resp["Access-Control-Allow-Origin"] == "*"
        assert "GET" in [m.strip() for m in resp["Access-Control-Allow-Methods"].split(",")]
        assert "authorization" in [h.strip().lower() for h in resp["Access-Control-Allow-Headers"].split(",")]
        assert int(resp["Access-Control-Max-Age"]) > 0
        assert not resp.has_header("Access-Control-Allow-Credentials")


@pytest.mark.parametrize("marks", CROSS_ORIGIN)
def test_a_token_works_from_another_origin_and_the_answer_may_be_read(api, frame_id, marks):
    for url in root_routes(frame_id):
        resp = api.get(url, HTTP_ACCEPT="*/*", **marks)
        assert resp.status_code == 200, (url, resp.content)
        assert resp["Access-Control-Allow-Origin"] == "*"
        assert not resp.has_header("Access-Control-Allow-Credentials")
    assert api.get("/search?q=budget", HTTP_ACCEPT="*/*", **marks).json()["data"][0]["content"]["frame_id"] == frame_id


@pytest.mark.parametrize("marks", CROSS_ORIGIN)
def test_the_login_cookie_does_not_count_from_another_origin_on_root_routes(logged_in, frame_id, marks):
    for url in root_routes(frame_id):
        resp = logged_in.get(url, HTTP_ACCEPT="*/*", **marks)
        assert resp.status_code == 401, (url, resp.status_code, resp.content)
        assert set(resp.json()) == {"message", "extra"}
        assert resp["Access-Control-Allow-Origin"] == "*"  # the page may read that it was refused


@pytest.mark.parametrize("marks", CROSS_ORIGIN)
def test_the_login_cookie_does_not_count_from_another_origin_on_the_strict_api(logged_in, frame_id, marks):
    for url in strict_routes(frame_id):
        resp = logged_in.get(url, **marks)
        assert resp.status_code == 401, (url, resp.status_code, resp.content)
        assert not resp.has_header("Access-Control-Allow-Origin")


def test_nothing_is_changed_through_the_cookie_from_another_origin(logged_in, frame_id):
    marks = {"HTTP_ORIGIN": OTHER, "HTTP_SEC_FETCH_SITE": "same-site"}
    deleted = logged_in.delete(f"/api/v1/frames?start_time={T0 - 60}&end_time={T0 + 60}", **marks)
    assert deleted.status_code in (401, 403), deleted.content
    privacy = logged_in.put("/api/v1/privacy", {"excluded_apps": ["Editor"]}, content_type="application/json", **marks)
    assert privacy.status_code in (401, 403), privacy.content
    assert Frame.objects.filter(id=frame_id).exists()
    assert logged_in.get("/api/v1/privacy").json()["excluded_apps"] == []


@pytest.mark.parametrize("marks", SAME_ORIGIN)
def test_the_login_cookie_still_works_from_the_servers_own_pages(logged_in, frame_id, marks):
    for url in root_routes(frame_id) + strict_routes(frame_id):
        resp = logged_in.get(url, HTTP_ACCEPT="*/*", **marks)
        assert resp.status_code == 200, (url, marks, resp.status_code)


@pytest.mark.parametrize("marks", SAME_ORIGIN[1:])
def test_the_pages_and_htmx_keep_working(logged_in, frame_id, marks):
    search = f"/search?q=budget&start_time={T0 - 60}&end_time={T0 + 60}"
    for url in ("/", f"/frames/{frame_id}/view", search, "/chat", "/settings"):
        page = logged_in.get(url, HTTP_ACCEPT=NAVIGATION, **marks)
        assert page.status_code == 200 and page["Content-Type"].startswith("text/html"), url
    assert f"/frames/{frame_id}/view" in logged_in.get(search, HTTP_ACCEPT=NAVIGATION, **marks).content.decode()
    partial = logged_in.get(search, HTTP_ACCEPT="*/*", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="results", **marks)
    assert partial.status_code == 200 and "<html" not in partial.content.decode()
    assert f"/frames/{frame_id}/view" in partial.content.decode()
    assert b"".join(logged_in.get(f"/frames/{frame_id}", **marks).streaming_content) == b"image bytes"


def test_a_link_from_another_site_to_a_page_still_opens_it(logged_in, frame_id):
    resp = logged_in.get(f"/frames/{frame_id}/view", HTTP_ACCEPT=NAVIGATION, HTTP_SEC_FETCH_SITE="cross-site",
                         HTTP_SEC_FETCH_MODE="navigate")
    assert resp.status_code == 200


def test_the_strict_api_answers_no_preflight_and_sends_no_cors_headers(api, frame_id):
    for url in strict_routes(frame_id):
        preflight = api.options(url, HTTP_ORIGIN=OTHER, HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET",
                                HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization")
        assert not preflight.has_header("Access-Control-Allow-Origin"), url
        assert preflight.status_code >= 400, url
        resp = api.get(url, HTTP_ORIGIN=OTHER)
        assert resp.status_code == 200 and not resp.has_header("Access-Control-Allow-Origin"), url


def test_an_options_request_that_is_not_a_preflight_is_not_answered_as_one(api, frame_id):
    resp = api.options("/search?q=budget", HTTP_ORIGIN=OTHER)
    assert resp.status_code == 405 and not resp.has_header("Access-Control-Allow-Methods")


def test_without_a_token_another_origin_gets_401_it_can_read(client, frame_id):
    for url in root_routes(frame_id):
        resp = client.get(url, HTTP_ACCEPT="*/*", HTTP_ORIGIN=OTHER, HTTP_SEC_FETCH_SITE="same-site")
        assert resp.status_code == 401 and resp["Access-Control-Allow-Origin"] == "*", url
