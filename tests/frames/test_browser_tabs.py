"""The browser extension's reports of the active tab (POST /api/v1/browser/tab) paired with frames
of that browser's windows: window titles of Chromium and Firefox, a report that comes before or
after the frame, a title that does not match, two browsers at once, excluded pages (refused at
ingest, or deleted with every copy when the report comes after), the keyword index seeing a URL
filled later, the capture client's question (GET), and malformed reports refused whole."""

import json
import time

import pytest

from frames.models import BrowserFrameHold, BrowserTab, Frame, OcrResult, OcrStatus
from frames.services import frame_ocr_run
from myrecall.browsers import browser_of_app, browser_of_name, window_shows_tab
from myrecall.services import api_token_create
from tests.conftest import post_frame, render_text_image

pytestmark = pytest.mark.django_db

IMAGE = render_text_image(["Quarterly budget draft"])


def image(n: int) -> bytes:
    """A different screen each time (no frame is skipped as a near-duplicate of the one before)."""
    return render_text_image([f"screen {n} " + "word " * (n % 7), "x" * (n * 3 % 40)], size=(700 + n * 10, 60))


def report(api, *, browser="Chromium 140", state="page", url="", title="", at=None, **extra):
    body = {"browser": browser, "state": state, "at": time.time() if at is None else at, **extra}
    if url or state == "page":
        body["url"] = url
    if title or state == "page":
        body["title"] = title
    return api.post("/api/v1/browser/tab", data=json.dumps(body), content_type="application/json")


def frame(api, n, *, at, app="Chromium", window="", url=""):
    response = post_frame(api, image(n), timestamp=at, app_name=app, window_name=window, browser_url=url, device_name="desk")
    return response


def url_of(frame_id: int) -> str:
    return Frame.objects.get(id=frame_id).browser_url


@pytest.mark.parametrize(
    "window, title, shows",
    [
        ("Budget 2026 - Chromium", "Budget 2026", True),
        ("Budget 2026 — Mozilla Firefox", "Budget 2026", True),
        ("Budget 2026 — Mozilla Firefox Private Browsing", "Budget 2026", True),
        ("Budget 2026 - Google Chrome", "Budget 2026", True),
        ("Budget 2026 - Microsoft\u200b Edge", "Budget 2026", True),
        ("Budget  2026 - Chromium", "Budget 2026", True),  # spaces as the window manager gives them
        ("Budget 2026", "Budget 2026", True),
        ("Budget 2026 - Chromium", "Budget", False),
        ("Budget 2026 - draft - Chromium", "Budget 2026", False),  # another page's title that starts alike
        ("Budget 2026 - Chromium", "", False),
        ("Budget 2027 - Chromium", "Budget 2026", False),
    ],
)
def test_a_window_shows_a_tab_when_its_title_is_the_tabs_and_the_browsers_name(window, title, shows):
    assert window_shows_tab(window, title) is shows


def test_browsers_are_known_by_their_window_class_and_by_the_name_they_give():
    assert browser_of_app("Chromium").key == browser_of_app("chromium").key == "chromium"
    assert browser_of_app("firefox").key == browser_of_app("firefox-esr").key == "firefox"
    assert browser_of_app("XTerm") is None
    assert browser_of_name("Chromium 140.0").key == "chromium"
    assert browser_of_name("Google Chrome 139").key == "chrome"
    assert browser_of_name("Firefox 143.0").key == "firefox"
    assert browser_of_name("Netscape Navigator") is None


def test_a_report_before_the_frame_fills_its_url_at_ingest_in_chromium_and_firefox(api):
    now = time.time()
    assert report(api, url="https://docs.example.org/budget", title="Budget 2026", at=now - 5).status_code == 200
    assert report(api, browser="Firefox 143.0", url="https://mail.example.org/inbox", title="Inbox (3)", at=now - 5).status_code == 200
    # Heartbeats: the same tab, later.
    assert report(api, url="https://docs.example.org/budget", title="Budget 2026", at=now).json()["stale"] is False
    assert report(api, browser="Firefox 143.0", url="https://mail.example.org/inbox", title="Inbox (3)", at=now).status_code == 200
    assert BrowserTab.objects.count() == 2 and set(BrowserTab.objects.values_list("reports", flat=True)) == {2}

    chromium = frame(api, 1, at=now - 2, window="Budget 2026 - Chromium")
    firefox = frame(api, 2, at=now - 1, app="firefox", window="Inbox (3) — Mozilla Firefox")
    assert chromium.status_code == firefox.status_code == 201, (chromium.content, firefox.content)
    assert url_of(chromium.json()["frame_id"]) == "https://docs.example.org/budget"
    assert url_of(firefox.json()["frame_id"]) == "https://mail.example.org/inbox"
    assert not BrowserFrameHold.objects.exists()  # both were settled: the reports came after their time


def test_a_report_after_the_frame_fills_it_then_and_releases_it_to_ocr(api):
    now = time.time()
    report(api, url="https://a.example.org/", title="Page A", at=now - 10)
    # Taken after the last report: held until the next says which tab it showed.
    first = frame(api, 1, at=now - 4, window="Page B - Chromium").json()["frame_id"]
    second = frame(api, 2, at=now - 3, window="Page B - Chromium").json()["frame_id"]
    assert url_of(first) == url_of(second) == ""
    assert set(BrowserFrameHold.objects.values_list("frame_id", flat=True)) == {first, second}

    answer = report(api, url="https://b.example.org/", title="Page B", at=now - 5).json()  # the change, reported late
    assert answer["released"] == 0 and BrowserFrameHold.objects.count() == 2  # older than the frames: they stay held
    answer = report(api, url="https://b.example.org/", title="Page B", at=now).json()
    assert (answer["released"], answer["removed"]) == (2, 0)
    assert url_of(first) == url_of(second) == "https://b.example.org/"
    assert not BrowserFrameHold.objects.exists()


def test_a_late_report_fills_a_frame_already_read_and_the_keyword_index_finds_it_by_the_url(api):
    now = time.time()
    done = frame(api, 1, at=now - 2, window="Release notes - Chromium").json()["frame_id"]  # no extension heard yet
    assert not BrowserFrameHold.objects.exists()
    Frame.objects.filter(id=done).update(ocr_status=OcrStatus.DONE)
    from search.services import frame_index

    OcrResult.objects.create(frame_id=done, engine="test", text="what changed in this release")
    frame_index(frame=Frame.objects.get(id=done))
    assert _found(api, "zebrafinch") == []

    report(api, url="https://zebrafinch.example.org/notes", title="Release notes", at=now - 3)
    report(api, url="https://zebrafinch.example.org/notes", title="Release notes", at=now)
    assert url_of(done) == "https://zebrafinch.example.org/notes"
    assert _found(api, "zebrafinch") == [done]


def _found(api, word: str) -> list[int]:
    answer = api.get("/api/v1/search", {"q": word, "mode": "keyword", "start_time": time.time() - 3600, "end_time": time.time() + 60})
    return [hit["content"]["frame_id"] for hit in answer.json()["data"]]


def test_a_window_whose_title_is_not_the_tabs_gets_no_url(api):
    now = time.time()
    report(api, url="https://a.example.org/", title="Page A", at=now - 5)
    report(api, url="https://a.example.org/", title="Page A", at=now)
    other = frame(api, 1, at=now - 1, window="Downloads - Chromium").json()["frame_id"]  # another window of the browser
    not_a_browser = frame(api, 2, at=now - 1, app="XTerm", window="Page A - Chromium").json()["frame_id"]
    assert url_of(other) == url_of(not_a_browser) == ""


def test_two_browsers_at_once_each_pair_their_own_windows(api):
    now = time.time()
    for at in (now - 6, now):
        report(api, url="https://chromium.example.org/", title="Same title", at=at)
        report(api, browser="Firefox 143.0", url="https://firefox.example.org/", title="Same title", at=at)
    chromium = frame(api, 1, at=now - 3, window="Same title - Chromium").json()["frame_id"]
    firefox = frame(api, 2, at=now - 2, app="firefox", window="Same title — Mozilla Firefox").json()["frame_id"]
    assert url_of(chromium) == "https://chromium.example.org/"
    assert url_of(firefox) == "https://firefox.example.org/"


def test_a_frame_of_an_excluded_page_is_refused_when_the_report_came_first(api):
    now = time.time()
    report(api, state="excluded", at=now - 5)
    report(api, state="excluded", at=now)
    refused = frame(api, 1, at=now - 1, window="My bank - Chromium")
    assert refused.status_code == 422, refused.content
    assert refused.json()["extra"]["excluded_by"] == "browser_tab"
    assert not Frame.objects.exists()
    # The capture client asks before it takes a screenshot.
    state = api.get("/api/v1/browser/tab", {"app_name": "Chromium", "window_name": "My bank - Chromium", "at": now}).json()
    assert state == {"browser": "chromium", "extension_seen": True, "excluded": True, "browser_url": ""}
    state = api.get("/api/v1/browser/tab", {"app_name": "firefox", "window_name": "x", "at": now}).json()
    assert state == {"browser": "firefox", "extension_seen": False, "excluded": False, "browser_url": ""}
    assert api.get("/api/v1/browser/tab", {"app_name": "XTerm"}).json()["browser"] is None


def test_a_frame_of_an_excluded_page_is_deleted_with_every_copy_when_the_report_comes_after(api, data_dir):
    now = time.time()
    report(api, url="https://a.example.org/", title="Page A", at=now - 10)
    held = frame(api, 1, at=now - 3, window="Page A - Chromium").json()["frame_id"]
    path = data_dir / Frame.objects.get(id=held).image_path
    assert path.exists() and BrowserFrameHold.objects.filter(frame_id=held).exists()
    # The user opened an excluded page before the frame was taken.
    answer = report(api, state="excluded", at=now - 4).json()
    assert answer["removed"] == 1
    assert not Frame.objects.filter(id=held).exists() and not path.exists()
    assert frame_ocr_run(frame_id=held) == "missing"  # its OCR task, still queued, reads nothing


def test_the_servers_rules_exclude_a_page_the_extension_sent(api):
    from frames.services import privacy_update

    privacy_update(excluded_apps=[], excluded_windows=[], excluded_urls=["bank.example"], redact_secrets=False, capture_paused=False)
    answer = report(api, url="https://www.bank.example/login", title="Log in").json()
    assert answer["state"] == "excluded"
    span = BrowserTab.objects.get()
    assert (span.state, span.url, span.title) == ("excluded", "", "")


def test_a_held_frame_is_read_without_a_url_when_no_report_comes(api):
    now = time.time()
    report(api, url="https://a.example.org/", title="Page A", at=now - 10)
    held = frame(api, 1, at=now - 2, window="Page A - Chromium").json()["frame_id"]
    assert BrowserFrameHold.objects.filter(frame_id=held).exists()
    frame_ocr_run(frame_id=held)  # its fallback task: the span is still in effect, so it is paired
    assert not BrowserFrameHold.objects.exists()
    assert url_of(held) == "https://a.example.org/"
    assert Frame.objects.get(id=held).ocr_status == OcrStatus.DONE


def test_deleting_a_range_deletes_the_reports_of_it():
    from frames.services import browser_tab_report, frames_delete
    from datetime import datetime, timedelta, timezone as tz

    now = time.time()
    browser_tab_report(browser="Chromium", state="page", url="https://secret.example.org/", title="Secret", at=now - 60)
    browser_tab_report(browser="Chromium", state="page", url="https://kept.example.org/", title="Kept", at=now)
    frames_delete(start=datetime.fromtimestamp(now - 120, tz=tz.utc), end=datetime.fromtimestamp(now - 30, tz=tz.utc))
    assert list(BrowserTab.objects.values_list("url", flat=True)) == ["https://kept.example.org/"]
    assert BrowserTab.objects.get().started_at > datetime.now(tz=tz.utc) - timedelta(seconds=30)


BASE = {"browser": "Chromium 140", "state": "page", "url": "https://a.example.org/", "title": "A", "at": time.time()}


@pytest.mark.parametrize(
    "body, field",
    [
        ({k: v for k, v in BASE.items() if k != "at"}, "at"),
        ({**BASE, "at": BASE["at"] * 1000}, "at"),  # milliseconds
        ({**BASE, "at": "1700000000"}, "at"),
        ({**BASE, "state": "open"}, "state"),
        ({**BASE, "url": ""}, None),  # a page without its address
        ({**BASE, "state": "excluded"}, None),  # an excluded page must not carry its address
        ({**BASE, "state": "private", "url": "", "title": "Secret"}, None),
        ({**BASE, "url": "u" * 4097}, "url"),
        ({**BASE, "browser": ""}, "browser"),
        ({**BASE, "window": 3}, "window"),
        ([BASE], None),
    ],
)
def test_a_malformed_report_is_refused_and_nothing_is_stored(api, body, field):
    response = api.post("/api/v1/browser/tab", data=json.dumps(body), content_type="application/json")
    assert response.status_code == 400, response.content
    answer = response.json()
    assert set(answer) == {"message", "extra"} and answer["message"].startswith("Invalid input, nothing was changed")
    if field:
        assert field in [error["field"] for error in answer["extra"]["errors"]], answer
    assert not BrowserTab.objects.exists()


def test_a_report_of_an_unknown_browser_or_with_a_read_only_token_is_refused(api, client):
    response = report(api, browser="Netscape Navigator 4", url="https://a.example.org/", title="A")
    assert response.status_code == 400 and response.json()["extra"]["errors"][0]["field"] == "browser"
    _, read_only = api_token_create(name="agent", read_only=True)
    client.defaults["HTTP_AUTHORIZATION"] = f"Bearer {read_only}"
    assert report(client, url="https://a.example.org/", title="A").status_code == 403
    assert not BrowserTab.objects.exists()
    unknown = api.get("/api/v1/browser/tab", {"app_name": "Chromium", "tab": "1"})
    assert unknown.status_code == 400


def test_a_private_window_the_user_did_not_allow_gives_its_frames_no_url(api):
    now = time.time()
    report(api, url="https://a.example.org/", title="Page A", at=now - 10)
    report(api, state="private", at=now - 5)
    report(api, state="private", at=now)
    stored = frame(api, 1, at=now - 2, window="Page A - Chromium")  # the title a normal window had before
    assert stored.status_code == 201 and url_of(stored.json()["frame_id"]) == ""
    span = BrowserTab.objects.order_by("-started_at").first()
    assert (span.state, span.url, span.title) == ("private", "", "")
