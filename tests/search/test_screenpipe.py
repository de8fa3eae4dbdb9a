"""The root-level screenpipe-compatible API, asked the way screenpipe's skill, JS client and MCP
server ask: ISO and relative times, content types, limit/offset, app_name words, and the
shapes they read; the frame routes, /activity-summary and /health; bearer tokens everywhere;
and /search shared with the search page."""

import base64
import time
from datetime import datetime
from datetime import timezone as dt_timezone

import pytest
from django.contrib.auth import get_user_model

from frames import storage
from frames.models import Frame, OcrResult

pytestmark = pytest.mark.django_db

T0 = 1_750_000_000.0  # 2025-06-15T15:06:40Z
HOUR = 3600.0

OCR_FIELDS = {
    "frame_id", "text", "timestamp", "file_path", "offset_index", "app_name", "window_name", "tags",
    "frame", "frame_name", "browser_url", "focused", "device_name",
}


@pytest.fixture(autouse=True)
def keyword_mode(settings):
    """The keyword side of search: the default hybrid would load the embedding model here."""
    settings.SEARCH_MODE = "keyword"


def iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, tz=dt_timezone.utc).isoformat().replace("+00:00", "Z")


def epoch(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def sp_search(client, query: str = "", **params):
    """GET /search as curl and Node's fetch send it (Accept: */*); `query` is a raw query string."""
    path = "/search" + (f"?{query}" if query else "")
    return client.get(path, params or None, HTTP_ACCEPT="*/*")


def ids(resp) -> list[int]:
    assert resp.status_code == 200, resp.content
    return [item["content"]["frame_id"] for item in resp.json()["data"]]


def assert_error(resp, status: int, *words: str):
    assert resp.status_code == status, resp.content
    body = resp.json()
    assert set(body) == {"message", "extra"} and isinstance(body["extra"], dict)
    for word in words:
        assert word in body["message"], body["message"]


# ---- /search ----


def test_search_answers_in_screenpipes_shape(api, frame_make, data_dir):
    frame_id = frame_make(
        "quarterly budget review", at=T0, app_name="Google Chrome", window_name="Budget - Sheets",
        browser_url="https://sheets.example.com/d/1", focused=True,
    )
    Frame.objects.filter(id=frame_id).update(device_name="laptop")
    body = sp_search(api, start_time=iso(T0 - HOUR), end_time=iso(T0 + HOUR), q="budget", content_type="ocr").json()
    assert set(body) == {"data", "pagination"}
    assert body["pagination"] == {"limit": 20, "offset": 0, "total": 1}
    [item] = body["data"]
    assert item["type"] == "OCR"
    content = item["content"]
    assert set(content) == OCR_FIELDS
    assert content["frame_id"] == frame_id
    assert content["text"] == "quarterly budget review"
    assert epoch(content["timestamp"]) == T0 and content["timestamp"].endswith("Z")
    assert content["app_name"] == "Google Chrome"
    assert content["window_name"] == "Budget - Sheets"
    assert content["browser_url"] == "https://sheets.example.com/d/1"
    assert content["focused"] is True
    assert content["device_name"] == "laptop"
    assert content["tags"] == [] and content["offset_index"] == 0 and content["frame"] is None
    assert content["frame_name"] == "frames/x.jpg"
    assert content["file_path"] == str(data_dir / "frames" / "x.jpg")
    # No URL: null, as screenpipe says it.
    other = frame_make("budget notes", at=T0 + 1, app_name="Editor")
    body = sp_search(api, start_time=iso(T0 - HOUR), q="budget", content_type="ocr").json()
    assert {item["content"]["frame_id"]: item["content"]["browser_url"] for item in body["data"]}[other] is None


def test_iso_times_with_an_offset_or_z_also_with_an_unencoded_plus(api, frame_make):
    inside = frame_make("deploy log", at=T0)
    frame_make("deploy log", at=T0 - 2 * HOUR)
    # 15:06:40Z is 17:06:40+02:00: the same range three ways.
    assert ids(sp_search(api, start_time="2025-06-15T14:30:00Z", end_time="2025-06-15T15:30:00Z")) == [inside]
    assert ids(sp_search(api, start_time="2025-06-15T16:30:00+02:00", end_time="2025-06-15T17:30:00+02:00")) == [inside]
    # A "+" sent as is in a query string means a space: still read as the offset.
    assert ids(sp_search(api, "start_time=2025-06-15T16:30:00+02:00&end_time=2025-06-15T17:30:00.000+02:00")) == [inside]
    assert ids(sp_search(api, start_time="2025-06-15T15:06:40.000Z", end_time="2025-06-15T15:06:40Z")) == [inside]


def test_relative_times_as_screenpipes_skill_sends_them(api, frame_make):
    now = time.time()
    recent = frame_make("standup notes", at=now - 30 * 60)
    older = frame_make("standup notes", at=now - 3 * HOUR)
    old = frame_make("standup notes", at=now - 3 * 86400)
    assert ids(sp_search(api, "q=standup&start_time=1h%20ago&content_type=all&limit=10")) == [recent]
    assert ids(sp_search(api, "q=standup&start_time=1h+ago&end_time=now")) == [recent]
    assert ids(sp_search(api, start_time="4h", end_time="1h ago")) == [older]
    assert ids(sp_search(api, start_time="2d ago", end_time="90m ago")) == [older]
    assert ids(sp_search(api, start_time="1w ago")) == [recent, older, old]
    assert ids(sp_search(api, start_time="5 days ago", end_time="2 days ago")) == [old]


def test_without_start_time_the_whole_memory_is_searched_as_in_screenpipe(api, frame_make):
    long_ago = frame_make("tax return draft", at=T0 - 365 * 86400)
    assert ids(sp_search(api, q="tax")) == [long_ago]
    assert ids(sp_search(api, q="tax", end_time=iso(T0 - 400 * 86400))) == []


def test_query_words_sent_with_percent_20_or_plus(api, frame_make):
    both = frame_make("budget review meeting", at=T0)
    frame_make("budget only", at=T0 + 1)
    since = f"start_time={iso(T0 - HOUR)}"
    assert ids(sp_search(api, f"q=budget%20review&{since}")) == [both]
    assert ids(sp_search(api, f"q=budget+review&{since}")) == [both]


@pytest.mark.parametrize("kind", ["all", "ocr", "OCR", "All", "audio+ocr"])
def test_content_types_with_screen_text_answer_ocr(api, frame_make, kind):
    frame_id = frame_make("invoice 42", at=T0)
    resp = sp_search(api, q="invoice", start_time=iso(T0 - HOUR), content_type=kind)
    assert ids(resp) == [frame_id]
    assert resp.json()["data"][0]["type"] == "OCR"


@pytest.mark.parametrize("kind", ["audio", "input", "ui", "memory", "accessibility", "audio+ui"])
def test_kinds_myrecall_does_not_capture_answer_200_with_no_data(api, frame_make, kind):
    frame_make("invoice 42", at=T0)
    resp = sp_search(api, q="invoice", start_time=iso(T0 - HOUR), content_type=kind, limit=5)
    assert resp.status_code == 200, resp.content
    assert resp.json() == {"data": [], "pagination": {"limit": 5, "offset": 0, "total": 0}}


def test_default_limit_offset_and_large_limits_are_capped(api, frame_make):
    made = [frame_make(f"report page {i}", at=T0 + i) for i in range(25)]
    since = {"start_time": iso(T0 - HOUR)}
    body = sp_search(api, **since).json()
    assert len(body["data"]) == 20 and body["pagination"] == {"limit": 20, "offset": 0, "total": 25}
    assert [item["content"]["frame_id"] for item in body["data"]] == made[::-1][:20]  # newest first
    page = sp_search(api, limit=10, offset=20, **since).json()
    assert [item["content"]["frame_id"] for item in page["data"]] == made[4::-1]
    assert page["pagination"] == {"limit": 10, "offset": 20, "total": 25}
    capped = sp_search(api, q="report", limit=10000, **since).json()  # screenpipe's MCP export asks this
    assert len(capped["data"]) == 25 and capped["pagination"]["limit"] == 100
    counted = sp_search(api, q="report", limit=0, **since).json()
    assert counted == {"data": [], "pagination": {"limit": 0, "offset": 0, "total": 25}}
    far = sp_search(api, q="report", offset=10**15, **since).json()
    assert far["data"] == [] and far["pagination"]["total"] == 25


def test_app_name_is_matched_by_its_words_in_any_case(api, frame_make):
    chrome = frame_make("invoice 42", at=T0, app_name="Google Chrome")
    chromium = frame_make("invoice 42", at=T0 + 1, app_name="Chromium")
    zoom = frame_make("invoice 42", at=T0 + 2, app_name="zoom.us")
    code = frame_make("invoice 42", at=T0 + 3, app_name="Code")
    since = {"start_time": iso(T0 - HOUR), "q": "invoice"}
    assert ids(sp_search(api, app_name="Chrome", **since)) == [chrome]
    assert ids(sp_search(api, app_name="chrome", **since)) == [chrome]
    assert ids(sp_search(api, app_name="google chrome", **since)) == [chrome]
    assert ids(sp_search(api, app_name="Chrome Google", **since)) == [chrome]
    assert ids(sp_search(api, app_name="Chromium", **since)) == [chromium]
    assert ids(sp_search(api, app_name="Chro", **since)) == []  # words, not prefixes
    assert ids(sp_search(api, app_name="zoom.us", **since)) == [zoom]
    assert ids(sp_search(api, app_name="ZOOM", **since)) == [zoom]
    assert ids(sp_search(api, app_name="code", start_time=iso(T0 - HOUR))) == [code]
    assert ids(sp_search(api, app_name="Firefox", **since)) == []
    assert sorted(ids(sp_search(api, app_name="", **since))) == sorted([chrome, chromium, zoom, code])


def test_window_url_focus_and_length_filters(api, frame_make):
    mail = frame_make("invoice 42", at=T0, window_name="Inbox - Mail", browser_url="https://mail.example.com", focused=True)
    notes = frame_make("invoice 42 with a much longer text around it", at=T0 + 1, window_name="notes.md", focused=False)
    since = {"start_time": iso(T0 - HOUR), "q": "invoice"}
    assert ids(sp_search(api, window_name="inbox", **since)) == [mail]
    assert ids(sp_search(api, browser_url="mail.example", **since)) == [mail]
    assert ids(sp_search(api, focused="true", **since)) == [mail]
    assert ids(sp_search(api, focused="0", **since)) == [notes]
    assert sorted(ids(sp_search(api, focused="", **since))) == sorted([mail, notes])
    assert ids(sp_search(api, min_length=20, **since)) == [notes]
    assert ids(sp_search(api, max_length=20, **since)) == [mail]
    assert ids(sp_search(api, min_length=10**30, **since)) == []


def test_max_content_length_cuts_the_middle_and_zero_keeps_all(api, frame_make):
    frame_make("0123456789abcdefghijKLMNOPQRST", at=T0)
    since = {"start_time": iso(T0 - HOUR)}
    text = lambda **p: sp_search(api, **since, **p).json()["data"][0]["content"]["text"]  # noqa: E731
    assert text(max_content_length=10) == "01234...(truncated 20 chars)...PQRST"
    assert text(max_content_length=0) == "0123456789abcdefghijKLMNOPQRST"
    assert text(max_content_length=100) == "0123456789abcdefghijKLMNOPQRST"


def test_include_frames_attaches_the_image(api, frame_make, data_dir):
    frame_make("a screen", at=T0)
    image = storage.image_location("frames/x.jpg")
    image.parent.mkdir(parents=True, exist_ok=True)
    image.write_bytes(b"RIFF-not-really-webp")
    since = {"start_time": iso(T0 - HOUR)}
    content = sp_search(api, include_frames="true", **since).json()["data"][0]["content"]
    assert base64.b64decode(content["frame"]) == b"RIFF-not-really-webp"
    assert sp_search(api, include_frames="false", **since).json()["data"][0]["content"]["frame"] is None
    assert sp_search(api, **since).json()["data"][0]["content"]["frame"] is None


@pytest.mark.parametrize(
    "params, words",
    [
        ({"start_time": "last tuesday"}, ["start_time", "ISO 8601"]),
        ({"start_time": "1700000000"}, ["start_time"]),  # screenpipe takes no epoch seconds
        ({"start_time": "2025-06-15T10:00:00"}, ["timezone"]),
        ({"start_time": "2025-06-15"}, ["timezone"]),
        ({"start_time": "3 fortnights ago"}, ["start_time"]),
        ({"end_time": "2025-13-45T99:00:00Z"}, ["end_time"]),
        ({"start_time": "0001-01-01T00:00:00Z"}, ["1970"]),
        ({"start_time": "99999999999999999999w ago"}, ["1970"]),
        ({"end_time": "9999-12-31T23:59:59-14:00"}, ["end_time"]),
        ({"limit": -1}, ["limit"]),
        ({"limit": "many"}, ["limit"]),
        ({"offset": -5}, ["offset"]),
        ({"min_length": -1}, ["min_length"]),
        ({"max_content_length": -3}, ["max_content_length"]),
        ({"focused": "maybe"}, ["focused"]),
        ({"include_frames": "sure"}, ["include_frames"]),
        ({"content_type": "video"}, ["content_type"]),
    ],
)
def test_bad_input_is_a_400_in_the_one_error_shape(api, frame_make, params, words):
    frame_make("budget", at=T0)
    assert_error(sp_search(api, **{"q": "budget", **params}), 400, *words)


# ---- authentication, and /search shared with the page ----


ROUTES = ["/search?q=x", "/frames/1/ocr", "/frames/1/metadata", "/frames/1/context", "/health",
          "/activity-summary?start_time=1h%20ago&end_time=now"]


@pytest.mark.parametrize("url", ROUTES)
def test_every_route_needs_a_token_or_a_login(client, db, url):
    assert_error(client.get(url, HTTP_ACCEPT="*/*"), 401, "Authentication")
    assert_error(client.get(url, HTTP_ACCEPT="*/*", HTTP_AUTHORIZATION="Bearer not-a-token"), 401)


@pytest.fixture
def browser(client, db):
    user = get_user_model().objects.create_superuser("admin", password="a long enough password")
    client.force_login(user)
    return client


NAVIGATION = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


def test_search_url_serves_the_page_to_browsers_and_json_to_api_clients(browser, frame_make):
    frame_id = frame_make("zorbluk budget", at=T0)
    params = {"q": "zorbluk", "start_time": T0 - 60, "end_time": T0 + 60}
    page = browser.get("/search", params, HTTP_ACCEPT=NAVIGATION)
    assert page.status_code == 200 and page["Content-Type"].startswith("text/html")
    assert f"/frames/{frame_id}/view" in page.content.decode()
    assert "Accept" in page["Vary"] and "Authorization" in page["Vary"]
    partial = browser.get("/search", params, HTTP_ACCEPT="*/*", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="results")
    assert partial["Content-Type"].startswith("text/html") and "<html" not in partial.content.decode()
    # The same session, asked by fetch() or curl: screenpipe's JSON (its times are ISO, not epoch).
    for accept in ("*/*", "application/json"):
        api_answer = browser.get("/search", {"q": "zorbluk", "start_time": iso(T0 - 60)}, HTTP_ACCEPT=accept)
        assert api_answer["Content-Type"].startswith("application/json")
        assert ids(api_answer) == [frame_id]
        assert "Accept" in api_answer["Vary"]


def test_a_bearer_token_gets_json_even_when_html_is_acceptable(api, frame_make):
    frame_id = frame_make("zorbluk", at=T0)
    resp = api.get("/search", {"q": "zorbluk", "start_time": iso(T0 - 60)}, HTTP_ACCEPT=NAVIGATION)
    assert ids(resp) == [frame_id]


def test_a_browser_without_a_login_is_sent_to_log_in(client, db):
    resp = client.get("/search?q=x", HTTP_ACCEPT=NAVIGATION)
    assert resp.status_code == 302 and resp["Location"].startswith("/login/?next=")


def test_the_strict_api_keeps_its_own_contract(api, frame_make):
    frame_make("budget", at=T0)
    # The forms of time screenpipe's clients send are taken there too; what is not a time is a 400 naming the field.
    assert api.get("/api/v1/search", {"q": "budget", "start_time": "1h ago"}).status_code == 200
    resp = api.get("/api/v1/search", {"q": "budget", "start_time": "a while back"})
    assert_error(resp, 400, "start_time")
    assert api.get("/api/v1/search", {"q": "budget", "start_time": T0 - 60, "content_type": "audio"}).status_code == 400


# ---- frames ----


def frame_with_lines(at: float, lines: list[tuple[str, list[int]]], **fields) -> Frame:
    frame = Frame.objects.create(
        timestamp=datetime.fromtimestamp(at, tz=dt_timezone.utc), image_path="frames/y.webp", width=1000, height=500,
        image_bytes=10, ocr_status="done", app_name=fields.get("app_name", "Firefox"),
        window_name=fields.get("window_name", "Docs"), browser_url=fields.get("browser_url", ""),
        device_name=fields.get("device_name", "laptop"), focused=True,
    )
    OcrResult.objects.create(
        frame=frame, engine="test", text="\n".join(text for text, _ in lines),
        lines=[{"t": text, "b": box, "c": 0.9} for text, box in lines],
    )
    return frame


def test_frame_ocr_gives_text_positions_as_fractions_of_the_screen(api):
    frame = frame_with_lines(T0, [("Hello world", [100, 50, 200, 25]), ("second line", [0, 250, 1000, 50])])
    body = api.get(f"/frames/{frame.id}/ocr", HTTP_ACCEPT="*/*").json()
    assert body["frame_id"] == frame.id and body["text"] == "Hello world\nsecond line"
    assert body["text_positions"] == [
        {"text": "Hello world", "confidence": 0.9, "bounds": {"left": 0.1, "top": 0.1, "width": 0.2, "height": 0.05}},
        {"text": "second line", "confidence": 0.9, "bounds": {"left": 0.0, "top": 0.5, "width": 1.0, "height": 0.1}},
    ]


def test_frame_metadata_resolves_a_frame_link(api):
    frame = frame_with_lines(T0, [("x", [0, 0, 1, 1])], app_name="Slack", window_name="general", device_name="desk")
    body = api.get(f"/frames/{frame.id}/metadata").json()
    assert body["frame_id"] == frame.id and epoch(body["timestamp"]) == T0
    assert (body["app_name"], body["window_name"], body["device_name"], body["browser_url"]) == ("Slack", "general", "desk", None)


def test_frame_context_gives_text_urls_and_neighbours(api):
    before = frame_with_lines(T0 - 10, [("earlier", [0, 0, 1, 1])])
    frame = frame_with_lines(
        T0,
        [("see https://example.org/docs/page, and (https://x.example.com/a?b=1)", [0, 0, 1, 1]), ("http://no", [0, 0, 1, 1])],
        browser_url="https://example.org/docs",
    )
    after = frame_with_lines(T0 + 10, [("later", [0, 0, 1, 1])])
    body = api.get(f"/frames/{frame.id}/context").json()
    assert body["frame_id"] == frame.id and body["text_source"] == "ocr" and body["nodes"] == []
    assert body["text"].startswith("see https://example.org/docs/page")
    assert body["urls"] == ["https://example.org/docs", "https://example.org/docs/page", "https://x.example.com/a?b=1"]
    assert [f["frame_id"] for f in body["before"]] == [before.id]
    assert [f["frame_id"] for f in body["after"]] == [after.id]


def test_the_image_and_the_frame_pages_keep_working(api, browser, frame_make):
    frame_id = frame_make("a screen", at=T0)
    image = storage.image_location("frames/x.jpg")
    image.parent.mkdir(parents=True, exist_ok=True)
    image.write_bytes(b"image bytes")
    assert b"".join(api.get(f"/frames/{frame_id}").streaming_content) == b"image bytes"
    assert browser.get(f"/frames/{frame_id}/view", HTTP_ACCEPT=NAVIGATION).status_code == 200


# ---- /activity-summary ----


def frame_at(frame_make, at: float, app: str, *, device="laptop", window="main window", text="") -> int:
    frame_id = frame_make(text or f"{app} screen", at=at, app_name=app, window_name=window)
    Frame.objects.filter(id=frame_id).update(device_name=device)
    return frame_id


def summary(api, start: float, end: float, **params):
    return api.get("/activity-summary", {"start_time": iso(start), "end_time": iso(end), **params})


def test_activity_minutes_count_until_the_devices_next_frame_capped_at_5_minutes(api, frame_make):
    frame_at(frame_make, T0, "Editor", text="def budget_total(rows): return sum(row.amount for row in rows)")
    frame_at(frame_make, T0 + 60, "Editor", window="notes.md")
    frame_at(frame_make, T0 + 120, "Firefox", window="Budget - Sheets", text="Quarterly budget for the finance team review")
    frame_at(frame_make, T0 + 1000, "Editor")  # after a long gap: the Firefox frame counts 5 minutes
    frame_at(frame_make, T0 + 30, "Terminal", device="desktop", window="bash")  # another screen, its own timeline
    body = summary(api, T0 - 10, T0 + 1100).json()
    apps = {app["name"]: app for app in body["apps"]}
    # Editor: 60 s + 60 s + 100 s until the range's end; Firefox: 880 s capped at 300; Terminal: 1070 s capped.
    assert {name: app["minutes"] for name, app in apps.items()} == {"Editor": 3.7, "Firefox": 5.0, "Terminal": 5.0}
    assert [app["name"] for app in body["apps"]] == ["Firefox", "Terminal", "Editor"]
    assert apps["Editor"]["frame_count"] == 3 and body["total_frames"] == 5
    assert epoch(apps["Editor"]["first_seen"]) == T0 and epoch(apps["Editor"]["last_seen"]) == T0 + 1000
    assert apps["Editor"]["first_seen"][11:16] == "15:06"  # the MCP server slices HH:MM from it
    windows = {(w["app_name"], w["window_name"]): w["minutes"] for w in body["windows"]}
    assert windows == {("Firefox", "Budget - Sheets"): 5.0, ("Terminal", "bash"): 5.0, ("Editor", "main window"): 2.7, ("Editor", "notes.md"): 1.0}
    assert body["time_range"] == {"start": "2025-06-15T15:06:30Z", "end": "2025-06-15T15:25:00Z"}
    assert body["audio_summary"] == {"segment_count": 0, "speakers": [], "top_transcriptions": []}
    assert body["data_status"] == "ok" and body["query_status"] == "not_requested"
    # The app filter keeps each frame's time as the whole timeline gives it.
    only = summary(api, T0 - 10, T0 + 1100, app_name="editor").json()
    assert [(app["name"], app["minutes"]) for app in only["apps"]] == [("Editor", 3.7)]


def test_activity_key_texts_and_recent_texts(api, frame_make):
    frame_at(frame_make, T0, "Firefox", window="Budget - Sheets", text="tab\nQuarterly budget for the finance team review\nok")
    frame_at(frame_make, T0 + 60, "Editor", window="notes.md", text="short\nMeeting notes: ship the screenpipe adapter on Friday")
    body = summary(api, T0 - 10, T0 + 600).json()
    assert body["key_texts"] == [
        {"text": "Meeting notes: ship the screenpipe adapter on Friday", "app_name": "Editor", "window_name": "notes.md", "timestamp": iso(T0 + 60)},
        {"text": "Quarterly budget for the finance team review", "app_name": "Firefox", "window_name": "Budget - Sheets", "timestamp": iso(T0)},
    ]
    assert body["recent_texts"] == [{k: item[k] for k in ("text", "app_name", "timestamp")} for item in body["key_texts"]]
    matched = summary(api, T0 - 10, T0 + 600, q="FINANCE").json()
    assert [item["app_name"] for item in matched["key_texts"]] == ["Firefox"] and matched["query_status"] == "matched"
    assert summary(api, T0 - 10, T0 + 600, q="zebra").json()["query_status"] == "no_query_matches"


def test_activity_with_relative_times_and_an_empty_range(api, frame_make):
    frame_at(frame_make, time.time() - 300, "Editor")
    body = api.get("/activity-summary", {"start_time": "1h ago", "end_time": "now"}).json()
    assert [app["name"] for app in body["apps"]] == ["Editor"]
    assert body["recording"]["frames_in_range"] == 1 and body["recording"]["recent_capture"] is True
    empty = api.get("/activity-summary", {"start_time": "3h ago", "end_time": "2h ago"}).json()
    assert empty["apps"] == [] and empty["total_frames"] == 0 and empty["data_status"] == "empty_but_recording"


@pytest.mark.parametrize(
    "params, words",
    [
        ({"end_time": "now"}, ["start_time", "required"]),
        ({"start_time": "1h ago"}, ["end_time", "required"]),
        ({"start_time": "now", "end_time": "1h ago"}, ["end_time"]),
        ({"start_time": "soon", "end_time": "now"}, ["start_time"]),
    ],
)
def test_activity_needs_a_range(api, params, words):
    assert_error(api.get("/activity-summary", params), 400, *words)


# ---- /health ----


def test_health_says_whether_frames_are_arriving(api, frame_make):
    body = api.get("/health").json()
    assert (body["status"], body["frame_status"], body["audio_status"]) == ("degraded", "not_started", "disabled")
    assert body["last_frame_timestamp"] is None and body["status_code"] == 503
    frame_make("old", at=time.time() - 3600)
    stale = api.get("/health").json()
    assert stale["frame_status"] == "stale" and "the last frame arrived 1:00:0" in stale["message"]
    frame_make("new", at=time.time() - 5)
    resp = api.get("/health")
    assert resp.status_code == 200
    body = resp.json()
    assert (body["status"], body["status_code"], body["frame_status"]) == ("healthy", 200, "ok")
    assert time.time() - epoch(body["last_frame_timestamp"]) < 60
