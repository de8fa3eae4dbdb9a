"""The pages through Django's test client, logged in as a real user: the timeline (day
and hour zoom) and its htmx partial, the frame viewer with OCR boxes and search
highlights, the search page and its results partial, thumbnails, friendly 400/404
pages, and times in the browser's timezone."""

import io
import os
import re
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone
from html.parser import HTMLParser
from urllib.parse import quote
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from PIL import Image

from frames.models import CaptureReport, Frame, OcrResult
from frames.services import capture_report_record, frame_ingest, privacy_update
from frames.thumbnails import THUMB_WIDTH, thumbnail_path
from tests.conftest import render_text_image

pytestmark = pytest.mark.django_db

UTC = dt_timezone.utc
# 2024-05-06 14:05:00 UTC, which is 22:05:00 in Shanghai.
T = datetime(2024, 5, 6, 14, 5, tzinfo=UTC).timestamp()


@pytest.fixture
def user(db):
    return get_user_model().objects.create_superuser("admin", password="a long enough password")


@pytest.fixture
def browser(client, user):
    """A logged-in browser session, in UTC until a test names another timezone."""
    client.force_login(user)
    return client


def zone_set(client, name: str) -> None:
    """The tz cookie as the page's script sets it (URL-encoded IANA name)."""
    client.cookies["tz"] = quote(name, safe="")


def frame_add(at: float, *lines: str, app_name: str = "Editor", window_name: str = "notes.md") -> int:
    image = render_text_image(list(lines) or [f"screen at {at}"], size=(900, 60))
    result = frame_ingest(image_bytes=image, timestamp=at, app_name=app_name, window_name=window_name, device_name="laptop")
    assert result.status == "created"
    return result.frame_id


class Element:
    def __init__(self, tag: str, attrs: dict):
        self.tag, self.attrs, self.text = tag, attrs, ""

    def classes(self) -> list[str]:
        return (self.attrs.get("class") or "").split()


class _Parser(HTMLParser):
    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.elements: list[Element] = []
        self.open: list[Element] = []

    def handle_starttag(self, tag, attrs):
        element = Element(tag, dict(attrs))
        self.elements.append(element)
        if tag not in self.VOID:
            self.open.append(element)

    def handle_startendtag(self, tag, attrs):
        self.elements.append(Element(tag, dict(attrs)))

    def handle_endtag(self, tag):
        for i in range(len(self.open) - 1, -1, -1):
            if self.open[i].tag == tag:
                del self.open[i:]
                break

    def handle_data(self, data):
        for element in self.open:
            element.text += data


def parse(response) -> list[Element]:
    parser = _Parser()
    parser.feed(response.content.decode())
    return parser.elements


def select(elements: list[Element], tag: str, cls: str | None = None) -> list[Element]:
    return [e for e in elements if e.tag == tag and (cls is None or cls in e.classes())]


def cards(response) -> list[Element]:
    return select(parse(response), "a", "card-frame")


def card_ids(response) -> list[int]:
    return [int(card.attrs["data-frame-id"]) for card in cards(response)]


def test_every_page_and_image_needs_a_login(client, db):
    frame_id = frame_add(T)
    for url in ["/", "/?date=2024-05-06", "/search?q=screen", "/chat", f"/frames/{frame_id}/view", f"/frames/{frame_id}/thumb"]:
        resp = client.get(url)
        assert resp.status_code == 302, url
        assert resp["Location"].startswith("/login/?next="), url
    # The bare image path is also an API path: it answers 401 in the API's error shape.
    resp = client.get(f"/frames/{frame_id}")
    assert resp.status_code == 401
    assert set(resp.json()) == {"message", "extra"}


def test_timeline_page_and_its_htmx_partial(browser):
    frame_id = frame_add(T, "timeline partial", app_name="Firefox")
    page = browser.get("/", {"date": "2024-05-06"})
    assert page.status_code == 200
    html = page.content.decode()
    assert "<html" in html and 'class="top"' in html and 'id="day"' in html
    assert card_ids(page) == [frame_id]

    partial = browser.get("/", {"date": "2024-05-06"}, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="day")
    assert partial.status_code == 200
    body = partial.content.decode().strip()
    assert body.startswith('<div id="day"') and body.endswith("</div>")
    assert "<html" not in body and 'class="top"' not in body
    assert card_ids(partial) == [frame_id]
    assert "Monday 6 May 2024" in body


def test_chat_page_is_there(browser):
    resp = browser.get("/chat")
    assert resp.status_code == 200
    assert 'aria-current="page"' in resp.content.decode()


def test_times_are_shown_in_the_timezone_the_browser_names(browser):
    frame_id = frame_add(T, "what time is it")
    zone_set(browser, "Asia/Shanghai")
    day = browser.get("/", {"date": "2024-05-06"})
    [card_time] = select(parse(day), "time")
    assert (card_time.text, card_time.attrs["datetime"]) == ("22:05:00", "2024-05-06T22:05:00+08:00")
    assert "Asia/Shanghai" in day.content.decode()
    viewer = parse(browser.get(f"/frames/{frame_id}/view"))
    assert "22:05:00" in select(viewer, "h1")[0].text

    zone_set(browser, "UTC")
    [card_time] = select(parse(browser.get("/", {"date": "2024-05-06"})), "time")
    assert (card_time.text, card_time.attrs["datetime"]) == ("14:05:00", "2024-05-06T14:05:00+00:00")
    assert "14:05:00" in select(parse(browser.get(f"/frames/{frame_id}/view")), "h1")[0].text
    # ?tz= wins over the cookie (a shared link can name its zone).
    [card_time] = select(parse(browser.get("/", {"date": "2024-05-06", "tz": "Asia/Shanghai"})), "time")
    assert card_time.text == "22:05:00"


def test_a_frame_late_in_the_local_evening_is_on_that_local_day(browser):
    new_york = ZoneInfo("America/New_York")
    late = datetime(2024, 5, 6, 23, 30, tzinfo=new_york).timestamp()  # 2024-05-07 03:30 UTC
    frame_id = frame_add(late, "late night work")

    zone_set(browser, "America/New_York")
    evening = browser.get("/", {"date": "2024-05-06"})
    assert card_ids(evening) == [frame_id]
    assert [t.text for t in select(parse(evening), "time")] == ["23:30:00"]
    assert card_ids(browser.get("/", {"date": "2024-05-07"})) == []
    # The hour zoom of 23:00 holds it too.
    assert card_ids(browser.get("/", {"date": "2024-05-06", "hour": "23"})) == [frame_id]

    zone_set(browser, "UTC")
    assert card_ids(browser.get("/", {"date": "2024-05-06"})) == []
    assert card_ids(browser.get("/", {"date": "2024-05-07"})) == [frame_id]


def test_the_day_clocks_spring_forward_in_berlin(browser):
    berlin = ZoneInfo("Europe/Berlin")
    times = [
        datetime(2024, 3, 31, 1, 30, tzinfo=berlin),  # CET, before the jump at 02:00
        datetime(2024, 3, 31, 3, 30, tzinfo=berlin),  # CEST, after it
        datetime(2024, 3, 31, 23, 30, tzinfo=berlin),
    ]
    ids = [frame_add(t.timestamp(), f"spring frame {i}") for i, t in enumerate(times)]
    frame_add(datetime(2024, 4, 1, 0, 10, tzinfo=berlin).timestamp(), "next day")
    zone_set(browser, "Europe/Berlin")
    day = browser.get("/", {"date": "2024-03-31"})
    assert day.status_code == 200
    assert card_ids(day) == ids
    assert [t.text for t in select(parse(day), "time")] == ["01:30:00", "03:30:00", "23:30:00"]
    zoom = [e.text for e in select(parse(day), "a") if "hour=" in e.attrs.get("href", "")]
    assert zoom == ["01", "03", "23"]
    assert card_ids(browser.get("/", {"date": "2024-03-31", "hour": "3"})) == [ids[1]]
    # 02:00-02:59 did not happen that night.
    assert card_ids(browser.get("/", {"date": "2024-03-31", "hour": "2"})) == []


def test_the_day_clocks_fall_back_in_berlin_shows_the_repeated_hour_twice(browser):
    berlin = ZoneInfo("Europe/Berlin")
    first = datetime(2024, 10, 27, 2, 30, tzinfo=berlin)  # CEST, 00:30 UTC
    second = first.replace(fold=1)  # CET, 01:30 UTC: the clocks went back at 03:00
    ids = [frame_add(t.timestamp(), f"autumn frame {i}") for i, t in enumerate([first, second])]
    zone_set(browser, "Europe/Berlin")
    day = browser.get("/", {"date": "2024-10-27"})
    assert card_ids(day) == ids
    assert [t.text for t in select(parse(day), "time")] == ["02:30:00", "02:30:00"]
    # Both passes of 02:xx are in the hour zoom of 02.
    assert card_ids(browser.get("/", {"date": "2024-10-27", "hour": "2"})) == ids
    assert card_ids(browser.get("/", {"date": "2024-10-27", "hour": "3"})) == []


@pytest.mark.parametrize(
    "params",
    [
        {"date": "2024-13-01"},
        {"date": "2024-02-30"},
        {"date": "yesterday"},
        {"date": "0001-01-01"},
        {"date": "9999-12-31"},
        {"hour": "24"},
        {"hour": "-1"},
        {"hour": "noon"},
        {"hour": "²"},
    ],
    ids=lambda params: "&".join(f"{k}={v}" for k, v in params.items()),
)
def test_a_malformed_date_or_hour_is_a_friendly_400(browser, params):
    zone_set(browser, "Asia/Shanghai")
    resp = browser.get("/", params)
    assert resp.status_code == 400
    html = resp.content.decode()
    assert "That address does not work" in html
    assert list(params.values())[0] in html
    assert 'href="/"' in html and "Traceback" not in html


@pytest.mark.parametrize(
    ("params", "field", "said"),
    [
        ({"start_time": "nan"}, "start", "“From” is not a time a search can use"),
        ({"start_time": "0", "end_time": "1e18"}, "end", "“To” is not a time a search can use"),
        ({"start_time": "soon"}, "start", "“From” is not a time a search can use"),
        ({"start": "2024-05-06 at noon"}, "start", "“From”: “2024-05-06 at noon” is not a date and time. Write it as YYYY-MM-DD HH:MM"),
        ({"start": "2024-05-06 2:30 PM"}, "start", "“From”: “2024-05-06 2:30 PM” is not a date and time"),
        ({"end": "2024-02-30 10:00"}, "end", "“To”: “2024-02-30 10:00” is not a date and time"),
        ({"start": "0001-01-01 00:00", "tz": "Asia/Shanghai"}, "start", "“From”: 0001-01-01 00:00 is outside the times"),
        ({"end": "9999-12-31T23:59", "tz": "America/New_York"}, "end", "“To”: 9999-12-31T23:59 is outside the times"),
        ({"start_time": str(T), "end_time": str(T - 60)}, "end", "“To” is before “From”."),
        ({"page": "x"}, "page", "The page must be a whole number from 1 to 1,000,000."),
        ({"page": "99999999999999999999"}, "page", "The page must be a whole number"),
        ({"mode": "fuzzy"}, "mode", "Unknown match 'fuzzy': use hybrid, keyword or semantic."),
    ],
    ids=lambda value: "&".join(f"{k}={v}" for k, v in value.items()) if isinstance(value, dict) else None,
)
def test_a_bad_search_field_is_named_on_the_search_form_as_it_was_sent(browser, params, field, said):
    resp = browser.get("/search", {"q": "budget", **params})
    assert resp.status_code == 400
    elements = parse(resp)
    [error] = select(elements, "p", "error")
    assert said in error.text and error.attrs.get("role") == "alert"
    # The form is there with what was sent, the field at fault marked, so it can be put right on the spot.
    [form] = select(elements, "form", "search-form")
    fields = {e.attrs["name"]: e for e in select(elements, "input") + select(elements, "select") if "name" in e.attrs}
    assert fields["q"].attrs["value"] == "budget"
    for name in ("start", "end"):
        if name in params:
            assert fields[name].attrs["value"] == params[name]
    invalid = [name for name, e in fields.items() if e.attrs.get("aria-invalid") == "true"]
    assert invalid == ([field] if field in fields else [])
    assert "That address does not work" not in resp.content.decode()
    # The zone is in the header as on every page; no results are claimed for a search not run.
    [zone] = [e for e in elements if "zone" in e.classes()]
    assert zone.text == params.get("tz", "UTC")
    assert select(elements, "p", "summary") == []


def test_a_bad_search_field_is_named_in_the_results_partial_htmx_swaps_in(browser):
    resp = browser.get("/search", {"q": "budget", "start": "tomorrow"}, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="results")
    assert resp.status_code == 400
    body = resp.content.decode().strip()
    assert body.startswith('<section id="results"') and "“From”: “tomorrow” is not a date and time" in body


def test_an_app_with_a_nul_character_is_said_on_the_search_page_not_a_500(browser):
    # No database stores a NUL in text (PostgreSQL refuses it): the page says so, as for other bad filters.
    resp = browser.get("/search", {"q": "budget", "app": "Edi\x00tor"})
    assert resp.status_code == 200
    assert "must not contain the NUL character" in resp.content.decode()


def test_an_unknown_frame_is_a_friendly_404(browser):
    resp = browser.get("/frames/999999/view")
    assert resp.status_code == 404
    html = resp.content.decode()
    assert "Not found" in html and "Frame 999999 does not exist." in html
    assert 'href="/"' in html and "Traceback" not in html
    thumb = browser.get("/frames/999999/thumb")
    assert thumb.status_code == 404 and "Not found" in thumb.content.decode()
    # The bare image path keeps the API's JSON error shape (screenpipe clients read it).
    image = browser.get("/frames/999999")
    assert image.status_code == 404 and "999999" in image.json()["message"]


def test_a_frame_whose_image_file_is_gone_has_no_thumbnail_but_a_404(browser, data_dir):
    frame_id = frame_add(T, "soon without a file")
    (data_dir / Frame.objects.get(id=frame_id).image_path).unlink()
    assert browser.get(f"/frames/{frame_id}/thumb").status_code == 404
    # Its page still opens, with its facts.
    assert browser.get(f"/frames/{frame_id}/view").status_code == 200


def test_thumbnail_is_made_once_cached_and_served_with_cache_headers(browser, data_dir):
    frame_id = frame_add(T, "a thumbnail of this", "second line of text")
    frame = Frame.objects.get(id=frame_id)
    first = browser.get(f"/frames/{frame_id}/thumb")
    assert first.status_code == 200
    assert first["Content-Type"] == "image/webp"
    cache = first["Cache-Control"]
    assert "private" in cache and "max-age=86400" in cache
    body = b"".join(first.streaming_content)
    with Image.open(io.BytesIO(body)) as thumb:
        assert thumb.width == THUMB_WIDTH and thumb.height == round(frame.height * THUMB_WIDTH / frame.width)

    path = thumbnail_path(frame)
    assert path.is_file() and path.is_relative_to(data_dir)
    old = datetime(2001, 1, 1, tzinfo=UTC).timestamp()
    os.utime(path, (old, old))  # a rewrite would move this
    second = browser.get(f"/frames/{frame_id}/thumb")
    assert second.status_code == 200
    assert b"".join(second.streaming_content) == body
    assert path.stat().st_mtime == old
    assert [p.name for p in (data_dir / "thumbs").rglob("*") if p.is_file()] == [f"{frame_id}.webp"]



def frames_bulk(data_dir, rows: list[tuple[float, str, str]]) -> list[Frame]:
    """Many frame rows (timestamp, app, window) sharing one real image file, for volume tests."""
    image = data_dir / "frames" / "one.webp"
    image.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (1920, 1080), "navy").save(image, format="WEBP")
    return Frame.objects.bulk_create(
        Frame(
            timestamp=datetime.fromtimestamp(ts, tz=UTC),
            app_name=app,
            window_name=window,
            image_path="frames/one.webp",
            width=1920,
            height=1080,
            image_bytes=image.stat().st_size,
        )
        for ts, app, window in rows
    )

def test_a_day_with_thousands_of_frames_shows_one_lazy_card_per_five_minutes(browser, data_dir):
    day_start = datetime(2024, 5, 6, tzinfo=UTC).timestamp()
    apps = ["Code", "Firefox", "Slack"]
    frames = frames_bulk(
        data_dir, [(day_start + i * 43, apps[(i // 100) % 3], f"window {i}") for i in range(2000)]
    )
    page = browser.get("/", {"date": "2024-05-06"})
    assert page.status_code == 200
    elements = parse(page)
    shown = cards(page)
    # One card per 5 minutes with frames: 2,000 frames over 23.9 hours fill 287 of the day's 288 slots.
    assert len(shown) == len({int(i * 43 // 300) for i in range(2000)}) == 287
    images = select(elements, "img")
    assert len(images) == len(shown)
    assert all(img.attrs.get("loading") == "lazy" for img in images)
    assert select(elements, "span", "count")[0].text.strip() == "2000 frames"
    # The card's thumbnail is served.
    assert browser.get(images[0].attrs["src"]).status_code == 200

    # The hour zoom shows every frame of that hour, and only those.
    hour = browser.get("/", {"date": "2024-05-06", "hour": "10"})
    assert card_ids(hour) == [f.id for i, f in enumerate(frames) if 10 * 3600 <= i * 43 < 11 * 3600]
    assert len(card_ids(hour)) == 83


def test_the_viewer_shows_ocr_boxes_and_highlights_a_searched_word(browser, immediate_ocr, transactional_db):
    frame_id = frame_add(T, "Quarterly budget review zorbluk", "今天下午讨论向日葵项目")
    lines = OcrResult.objects.get(frame_id=frame_id).lines
    words = {w[0]: w[1:5] for line in lines for w in line["w"]}

    page = parse(browser.get(f"/frames/{frame_id}/view"))
    boxes = select(page, "rect")
    assert len(boxes) == len(lines) == 2
    assert [[int(r.attrs[k]) for k in ("x", "y", "width", "height")] for r in boxes] == [line["b"] for line in lines]
    assert "zorbluk" in boxes[0].text
    assert select(page, "rect", "hit") == []

    page = parse(browser.get(f"/frames/{frame_id}/view", {"q": "zorbluk"}))
    [hit] = select(page, "rect", "hit")
    assert [int(hit.attrs[k]) for k in ("x", "y", "width", "height")] == words["zorbluk"]
    assert "1 match for “zorbluk”" in select(page, "p", "hits-note")[0].text

    page = parse(browser.get(f"/frames/{frame_id}/view", {"q": "向日葵"}))
    [hit] = select(page, "rect", "hit")
    x, y, w, h = (int(hit.attrs[k]) for k in ("x", "y", "width", "height"))
    assert x == words["向"][0] and x + w == words["葵"][0] + words["葵"][2]


def test_search_by_epoch_range_local_range_and_app(browser, immediate_ocr, transactional_db):
    early = frame_add(T - 2 * 86400, "zorbluk in the early draft", app_name="Code")
    middle = frame_add(T, "zorbluk on the web page", app_name="Firefox")
    late = frame_add(T + 3600, "zorbluk back in the editor", app_name="Code")
    zone_set(browser, "Asia/Shanghai")

    def hits(**params) -> list[int]:
        resp = browser.get("/search", {"q": "zorbluk", "mode": "keyword", **params})
        assert resp.status_code == 200
        return [int(a.attrs["href"].split("/")[2]) for a in select(parse(resp), "a", "hit")]

    # Epoch seconds, as the page's script sends them.
    assert hits(start_time=T - 60, end_time=T + 60) == [middle]
    assert hits(start_time=T - 3 * 86400, end_time=T + 7200) == [late, middle, early]
    # The local fields alone are read in the browser's timezone: 22:00-22:10 in Shanghai.
    assert hits(start="2024-05-06T22:00", end="2024-05-06T22:10") == [middle]
    # As the form writes them: 24-hour, a space between date and time.
    assert hits(start="2024-05-06 22:00", end="2024-05-06 22:10") == [middle]
    zone_set(browser, "UTC")
    assert hits(start="2024-05-06T22:00", end="2024-05-06T22:10") == []
    assert hits(start="2024-05-06T14:00", end="2024-05-06T14:10") == [middle]
    # The epoch fields win over the local ones.
    assert hits(start="2024-05-06T14:00", end="2024-05-06T14:10", start_time=T + 3000, end_time=T + 4000) == [late]
    # App filter.
    assert hits(start_time=T - 3 * 86400, end_time=T + 7200, app="Code") == [late, early]

    zone_set(browser, "Asia/Shanghai")
    page = browser.get("/search", {"q": "zorbluk", "start_time": T - 60, "end_time": T + 60})
    elements = parse(page)
    # The form shows the range back in local time; the result's time and its marked word too.
    fields = {e.attrs.get("name"): e.attrs.get("value") for e in select(elements, "input")}
    assert (fields["start"], fields["end"]) == ("2024-05-06 22:04", "2024-05-06 22:06")
    [when] = [t for t in select(elements, "time")]
    assert "22:05:00" in when.text
    assert [m.text for m in select(elements, "mark")] == ["zorbluk"]
    assert select(elements, "a", "hit")[0].attrs["href"] == f"/frames/{middle}/view?q=zorbluk"
    options = [o.attrs["value"] for o in select(elements, "option")]
    assert options == ["", "Code", "Firefox", "hybrid", "keyword", "semantic"]
    assert [o.attrs["value"] for o in select(elements, "option") if "selected" in o.attrs] == ["hybrid"]

    partial = browser.get(
        "/search", {"q": "zorbluk", "start_time": T - 60, "end_time": T + 60}, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="results"
    )
    body = partial.content.decode().strip()
    assert body.startswith('<section id="results"') and body.endswith("</section>")
    assert "<form" not in body and "<html" not in body
    assert f"/frames/{middle}/view?q=zorbluk" in body


def test_search_finds_a_chinese_word_and_says_when_nothing_matches(browser, immediate_ocr, transactional_db):
    frame_id = frame_add(T, "今天下午讨论向日葵项目")
    resp = browser.get("/search", {"q": "向日葵", "start_time": T - 60, "end_time": T + 60})
    elements = parse(resp)
    assert [a.attrs["href"] for a in select(elements, "a", "hit")] == [f"/frames/{frame_id}/view?q=%E5%90%91%E6%97%A5%E8%91%B5"]
    assert [m.text for m in select(elements, "mark")] == ["向日葵"]
    resp = browser.get("/search", {"q": "天气", "start_time": T - 60, "end_time": T + 60})
    assert select(parse(resp), "a", "hit") == []
    assert "Nothing on screen matched “天气” in this range." in resp.content.decode()


def test_every_hx_get_has_the_same_href_so_pages_work_without_javascript(browser, data_dir):
    now = timezone.now().timestamp()
    ids = [frame_add(now - 600 + i * 20, f"page link check {i}", app_name=["Code", "Firefox"][i % 2]) for i in range(25)]
    today = datetime.fromtimestamp(now, tz=UTC)
    pages = [
        browser.get("/"),
        browser.get("/", {"date": f"{today:%Y-%m-%d}", "hour": str(today.hour)}),
        browser.get("/", {"date": "2024-05-06"}),
        browser.get("/search", {"start_time": now - 3600, "end_time": now}),
        browser.get("/search", {"start_time": now - 3600, "end_time": now, "page": 2}),
        browser.get(f"/frames/{ids[10]}/view"),
    ]
    checked = []
    for resp in pages:
        assert resp.status_code == 200
        checked.append(0)
        for element in parse(resp):
            if "hx-get" not in element.attrs:
                continue
            checked[-1] += 1
            if element.tag == "form":
                assert element.attrs.get("method") == "get"
                assert element.attrs["action"] == element.attrs["hx-get"]
            elif element.attrs.get("hx-trigger", "").startswith("every "):
                assert element.attrs["id"] == "devices"  # a line that refreshes itself, not a way to a page
            else:
                assert element.tag == "a"
                assert element.attrs["href"] == element.attrs["hx-get"]
    # Day navigation, the date form, zoom links, the search form and its pager; the viewer uses plain links.
    assert all(checked[:5]) and sum(checked) > 15
    # The search pager links reach page 2 and back.
    second = parse(pages[4])
    assert len(select(second, "a", "hit")) == 5
    assert [a.text.strip() for a in select(second, "a", "button")] == ["← Previous page"]


def test_the_search_form_sent_as_shown_finds_a_frame_from_seconds_ago(browser):
    """Without JavaScript the form sends its local fields: the default range must reach the present."""
    zone_set(browser, "Asia/Shanghai")
    form = parse(browser.get("/search"))
    fields = {e.attrs["name"]: e.attrs.get("value", "") for e in select(form, "input") if e.attrs.get("name") in {"start", "end"}}
    assert fields["start"] and fields["end"] == ""  # the end is "now" when the form is sent
    frame_id = frame_add(timezone.now().timestamp() - 0.5, "captured a moment ago")
    resp = browser.get("/search", {"q": "", **fields, "start_time": "", "end_time": "", "app": ""})
    assert [a.attrs["href"] for a in select(parse(resp), "a", "hit")] == [f"/frames/{frame_id}/view"]
    assert "– now ·" in select(parse(resp), "p", "summary")[0].text


def test_a_busy_hour_shows_at_most_one_card_per_15_seconds(browser, data_dir):
    hour_start = datetime(2024, 5, 6, 10, tzinfo=UTC).timestamp()
    # One frame every 2 seconds: 1,800 in the hour.
    frames = frames_bulk(data_dir, [(hour_start + i * 2, "Code", "busy") for i in range(1800)])
    hour = browser.get("/", {"date": "2024-05-06", "hour": "10"})
    shown = card_ids(hour)
    assert len(shown) == 240
    # Each card opens the first frame of its 15 seconds, and says how many more it stands for.
    assert shown[:2] == [frames[0].id, frames[8].id]
    assert "+7 more" in hour.content.decode()


def device_frame(device: str, at: float) -> None:
    image = render_text_image([f"{device} screen at {at}"], size=(900, 60))
    assert frame_ingest(image_bytes=image, timestamp=at, app_name="Editor", device_name=device).status == "created"


def devices_shown(response) -> tuple[list[str], list[str]]:
    """The device line's entries and the notices above it (a device gone silent, capture paused)."""
    elements = parse(response)
    return [e.text for e in select(elements, "span", "device")], [" ".join(e.text.split()) for e in select(elements, "p", "notice")]


def test_the_timeline_names_each_capturing_device_and_says_when_one_that_captured_today_went_silent(browser, settings):
    now = timezone.now().timestamp()
    # A timezone where it is 2 to 21 h past midnight whenever this runs: "today" holds the last 2 hours,
    # and yesterday evening (an hour before midnight) is within the last day.
    zone = next(z for z in ("UTC", "Etc/GMT-12") if 2 <= datetime.now(ZoneInfo(z)).hour <= 21)
    zone_set(browser, zone)
    midnight = datetime.now(ZoneInfo(zone)).replace(hour=0, minute=0, second=0, microsecond=0).timestamp()
    device_frame("laptop", now - 600)
    device_frame("laptop", now - 12)
    device_frame("desktop", now - 20 * 60)  # captured today, silent for 20 minutes
    device_frame("office-pc", midnight - 3600)  # stopped yesterday evening
    device_frame("old-tablet", now - 3 * 86400)  # not in the last day

    page = browser.get("/")
    line, silent = devices_shown(page)
    assert len(line) == 3 and line[1:] == ["desktop: last frame 20 min ago", f"office-pc: last frame {int((now - midnight + 3600) // 3600)} h ago"]
    assert re.fullmatch(r"laptop: last frame (1[2-9]|[2-5]\d) s ago", line[0]), line
    assert len(silent) == 1 and silent[0].startswith("desktop has sent no frame for 20 min (its last was taken at ")
    # The line refreshes itself from its own URL, and is there only on today's page (laptop's seconds may have moved on).
    again, silent_again = devices_shown(browser.get("/timeline/devices"))
    assert again[1:] == line[1:] and again[0].startswith("laptop: last frame ") and silent_again == silent
    assert devices_shown(browser.get("/", {"date": "2024-05-06"})) == ([], [])

    # The threshold is a setting: past 30 minutes, 20 is not silent yet.
    settings.CAPTURE_SILENT_S = 30 * 60
    assert devices_shown(browser.get("/timeline/devices"))[1] == []
    settings.CAPTURE_SILENT_S = 5 * 60
    # Paused on the Settings page: that is said instead of a device gone silent.
    privacy_update(excluded_apps=[], excluded_windows=[], excluded_urls=[], redact_secrets=False, capture_paused=True)
    assert devices_shown(browser.get("/timeline/devices"))[1] == ["Capture is paused on the Settings page: no capture client sends frames."]


def test_a_timeline_with_no_recent_frame_says_how_to_start_capturing(browser):
    device_frame("old-tablet", timezone.now().timestamp() - 3 * 86400)
    page = browser.get("/")
    assert devices_shown(page) == ([], [])
    assert "No frame was taken in the last day. To record this screen, run the capture client" in page.content.decode()


def client_report(device: str, *, ago_s: float = 0, period_s: float = 60, sent=0, unchanged=0, excluded=0, spooled=0, paused=False, locked="", stopped="") -> None:
    """A capture client's report, as POST /api/v1/capture/report stores it, received ago_s before now."""
    capture_report_record(
        device_name=device, period_s=period_s, sent=sent, unchanged=unchanged, excluded=excluded, spooled=spooled, paused=paused,
        locked=locked, stopped=stopped,
    )
    CaptureReport.objects.filter(device_name=device).update(received_at=timezone.now() - timedelta(seconds=ago_s))


def test_a_device_whose_client_reports_is_not_silent_without_frames_and_one_heard_from_by_neither_is(browser):
    now = timezone.now().timestamp()
    zone = next(z for z in ("UTC", "Etc/GMT-12") if datetime.now(ZoneInfo(z)).hour >= 2)
    zone_set(browser, zone)
    device_frame("laptop", now - 600)
    client_report("laptop", unchanged=20)  # reading one page for 10 minutes: the client runs
    device_frame("desktop", now - 20 * 60)
    client_report("desktop", ago_s=15 * 60, sent=3)  # neither a report nor a frame for 15 minutes
    device_frame("studio", now - 30 * 60)
    client_report("studio", paused=True)
    device_frame("kiosk", now - 8 * 60)
    client_report("kiosk", excluded=20)
    client_report("tablet", unchanged=5, excluded=3, spooled=4)  # no frame in the last day
    device_frame("server-room", now - 25 * 60)
    client_report("server-room", ago_s=20 * 60, period_s=900, unchanged=300)  # reports every 15 min: not late yet
    device_frame("office", now - 45 * 60)
    client_report("office", ago_s=44 * 60, sent=2, stopped="stopped by SIGINT")  # stopped on purpose: no warning
    device_frame("den", now - 12 * 60)
    client_report("den", locked="the screen is locked (swaylock runs)")  # nothing taken while locked: no warning

    line, notices = devices_shown(browser.get("/"))
    assert dict(entry.split(": ", 1) for entry in line) == {
        "laptop": "capturing · last frame 10 min ago (screen unchanged since)",
        "desktop": "not heard from for 15 min · last frame 20 min ago",
        "studio": "paused · last frame 30 min ago",
        "kiosk": "skipping an excluded window · last frame 8 min ago",
        "tablet": "capturing · no frame in the last day (screen unchanged or excluded; 4 frame(s) waiting to be sent)",
        "server-room": "capturing · last frame 25 min ago (screen unchanged since)",
        "office": "capture stopped 44 min ago (stopped by SIGINT) · last frame 45 min ago",
        "den": "not capturing: the screen is locked (swaylock runs) · last frame 12 min ago",
    }
    taken = datetime.fromtimestamp(now - 20 * 60, ZoneInfo(zone)).strftime("%H:%M")
    assert notices == [
        f"desktop: its capture client has not been heard from for 15 min: see whether it still runs (its last frame was taken at {taken})."
    ]
    assert devices_shown(browser.get("/timeline/devices")) == (line, notices)
    # Its client reports again: the notice goes.
    client_report("desktop", unchanged=20)
    assert devices_shown(browser.get("/timeline/devices"))[1] == []
