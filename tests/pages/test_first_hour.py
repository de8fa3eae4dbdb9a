"""What a new user meets in the first hour (issue 40), through Django's test client and in headless
Chromium against a real serve: the chat offers only the answers it can give and keeps a question
it could not send; a range deletion says what it erases and what it frees as Settings counts it;
Settings' space figures say each thing once; the search form names a field it cannot use and reads
24-hour times in every locale; every page names its timezone; a timeline slot shows its most
telling frame; the search box's hint fits."""

import re
from datetime import datetime
from urllib.parse import parse_qs, urlparse
from zoneinfo import ZoneInfo

import pytest
from django.template.defaultfilters import filesizeformat
from django.utils import timezone
from playwright.sync_api import expect

from chat.models import ChatMessage
from chat.modes import ChatQuery
from chat.services import chat_answer
from frames.models import Frame
from frames.services import frame_ingest
from myrecall.space import space_summary
from search.filters import Filters
from tests.conftest import render_text_image
from tests.pages.test_browser import chromium, server, tab_logged_in  # noqa: F401 (fixtures)
from tests.pages.test_views import T, browser, frame_add, parse, select, user, zone_set  # noqa: F401 (fixtures)

SHANGHAI = ZoneInfo("Asia/Shanghai")


def text_of(elements, tag: str, cls: str) -> str:
    """The text of these elements, its spaces (no-break ones too) made single."""
    return " ".join(" ".join(e.text.split()) for e in select(elements, tag, cls))


def size(n: int) -> str:
    """n bytes as the pages write them (filesizeformat), with a plain space."""
    return filesizeformat(n).replace("\xa0", " ")


# Chat: the answers offered ---------------------------------------------------------------------


@pytest.mark.django_db
def test_the_chat_offers_agent_answers_only_when_a_model_is_configured_and_says_how_otherwise(browser, settings):
    settings.LLM_BASE_URL, settings.LLM_MODEL = "", ""
    elements = parse(browser.get("/chat"))
    modes = [e.attrs["value"] for e in select(elements, "input") if e.attrs.get("name") == "mode"]
    assert modes == ["summary"]
    said = text_of(elements, "p", "agent-off")
    assert "Agent mode needs a model: set LLM_BASE_URL and LLM_MODEL" in said and "restart MyRecall" in said

    settings.LLM_BASE_URL, settings.LLM_MODEL = "http://127.0.0.1:9/v1", "some-model"
    elements = parse(browser.get("/chat"))
    assert [e.attrs["value"] for e in select(elements, "input") if e.attrs.get("name") == "mode"] == ["summary", "agent"]
    assert select(elements, "p", "agent-off") == []


# Timeline: deleting a range --------------------------------------------------------------------


def _settings_files(zone) -> int:
    """Screen images and thumbnails as the Settings page counts them."""
    parts = space_summary(zone=zone, fresh=True)["parts"]
    return sum(part["bytes"] for part in parts if part["name"] in ("images", "thumbnails"))


def test_deleting_a_range_says_answers_are_erased_whole_and_frees_what_settings_counts(
    browser, immediate_ocr, transactional_db, data_dir
):
    zone_set(browser, "Asia/Shanghai")
    day = datetime(2024, 5, 6, tzinfo=SHANGHAI)
    at = day.replace(hour=10, minute=5).timestamp()
    # The same screen twice: the second is stored against the first, and is stored again whole
    # when the first goes (so the files removed are more than the space given back).
    gone = frame_add(at, "Quarterly budget review", "Revenue 1200 costs 900")
    kept = frame_add(at + 1200, "Quarterly budget review", "Revenue 1200 costs 950")
    assert Frame.objects.get(id=kept).image_base_id == gone
    for frame_id in (gone, kept):
        assert browser.get(f"/frames/{frame_id}/thumb").status_code == 200
    answer = chat_answer(
        query=ChatQuery(message="What was the budget?", filters=Filters(start_time=at - 60, end_time=at + 60), zone=SHANGHAI)
    )
    assert not ChatMessage.objects.get(id=answer["message_id"]).erased_at

    form = {"date": "2024-05-06", "from": "10:00", "to": "10:10", "app_name": ""}
    preview = parse(browser.post("/timeline/delete", form))
    said = text_of(preview, "p", "confirm")
    assert "This deletes 1 frame (Editor 1) from 10:00 to 10:10" in said
    assert "their images, text and search entries. Every chat answer that drew on them is erased whole" in said
    assert "the quotes chat answers took" not in said

    before = _settings_files(SHANGHAI)
    done = parse(browser.post("/timeline/delete", {**form, "confirm": "yes"}))
    after = _settings_files(SHANGHAI)
    assert 0 < after < before
    said = text_of(done, "p", "deleted")
    assert "Deleted 1 frame:" in said and "1 chat answer erased" in said
    # The figures Settings shows, in its units: not the files removed (the kept frame's image was written anew).
    assert f"{size(before - after)} of screen images and thumbnails freed, as Settings counts them ({size(after)} left)." in said
    assert "MB)" not in said
    # What the preview promised.
    erased = ChatMessage.objects.get(id=answer["message_id"])
    assert erased.erased_at and erased.content.startswith("*This answer was erased")
    assert Frame.objects.filter(id=kept).exists() and not Frame.objects.filter(id=gone).exists()


# Settings: space figures -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("frees", "said"),
    [
        ({7: 0, 30: 0, 90: 0, 365: 0}, "Everything stored is from the last 7 days: a retention limit would free nothing yet."),
        ({7: 5 << 20, 30: 0, 90: 0, 365: 0}, "Keeping only the last 7 days would free about 5.0 MB; nothing is older than 30 days."),
        (
            {7: 5 << 20, 30: 5 << 20, 90: 2048, 365: 0},
            "Keeping only the last 7 or 30 days would free about 5.0 MB, 90 days about 2.0 KB; nothing is older than 365 days.",
        ),
        ({7: 9 << 20, 30: 3 << 20, 90: 2 << 20, 365: 1 << 20}, "Keeping only the last 7 days would free about 9.0 MB, 30 days about 3.0 MB, 90 days about 2.0 MB, 365 days about 1.0 MB."),
    ],
)
def test_what_keeping_fewer_days_would_free_says_each_figure_once(frees, said):
    from frames.views import keeping_fewer_said  # here: the other tests of the module run without it

    text = keeping_fewer_said([{"days": days, "frees_bytes": n} for days, n in frees.items()])
    assert text.replace("\xa0", " ") == said


def test_settings_gives_no_per_frame_figure_of_the_empty_database_and_no_row_of_zeros(browser, data_dir):
    now = timezone.now().timestamp()
    for i in range(3):
        frame_add(now - 600 + i * 60, f"a screen of today {i}")
    elements = parse(browser.get("/settings"))
    said = " ".join(" ".join(e.text.split()) for e in select(elements, "p") if "The memory takes" in e.text or "days" in e.text)
    assert "0 bytes" not in said
    assert "Everything stored is from the last 7 days: a retention limit would free nothing yet." in said
    parts = space_summary(zone=ZoneInfo("UTC"), fresh=True)["parts"]
    [image_bytes] = [part["bytes"] for part in parts if part["name"] == "images"]
    assert f"The memory takes {size(sum(part['bytes'] for part in parts))} for 3 frames." in said
    assert f"A frame’s screen image takes about {size(image_bytes // 3)};" in said
    assert not re.search(r"about [0-9.]+ (bytes|KB|MB) a frame", said)


# Search form, header zone, timeline slots ------------------------------------------------------


def test_the_date_and_time_fields_are_24_hour_text_on_every_page(browser):
    for url in ("/search", "/chat", "/"):
        html = browser.get(url).content.decode()
        assert 'type="datetime-local"' not in html and 'type="time"' not in html, url
    elements = parse(browser.get("/search", {"start_time": T - 60, "end_time": T + 60}))
    fields = {e.attrs["name"]: e for e in select(elements, "input") if e.attrs.get("name") in ("start", "end")}
    assert (fields["start"].attrs["value"], fields["end"].attrs["value"]) == ("2024-05-06 14:04", "2024-05-06 14:06")
    assert all(e.attrs["type"] == "text" and e.attrs["pattern"] for e in fields.values())
    assert fields["start"].attrs["placeholder"] == "YYYY-MM-DD HH:MM"


@pytest.mark.parametrize("url", ["/frames/999999/view", "/?date=tomorrow", "/search?start=soon", "/chat?session=x"])
def test_every_page_names_the_timezone_in_its_header_error_pages_too(browser, url):
    zone_set(browser, "Asia/Shanghai")
    resp = browser.get(url)
    assert resp.status_code in (400, 404)
    [zone] = [e for e in parse(resp) if "zone" in e.classes()]
    assert zone.text == "Asia/Shanghai"


def _blank_then_text(at: float) -> tuple[int, int]:
    """A blank page, then the same window with text read on it 7 s later (in one slot of the day
    and of the hour zoom)."""
    blank = render_text_image([" "], size=(900, 60))
    result = frame_ingest(image_bytes=blank, timestamp=at, app_name="Firefox", window_name="about:blank", device_name="laptop")
    return result.frame_id, frame_add(at + 7, "Quarterly budget review", "Next steps: hire two engineers", app_name="Firefox")


def test_a_timeline_slot_shows_its_frame_with_the_most_text_not_a_blank_first_one(browser, immediate_ocr, transactional_db, data_dir):
    slot = datetime(2024, 5, 6, 14, 5, tzinfo=ZoneInfo("UTC")).timestamp()
    blank, read = _blank_then_text(slot + 5)
    assert Frame.objects.get(id=blank).ocr.text_length == 0 and Frame.objects.get(id=read).ocr.text_length > 20
    for params in ({"date": "2024-05-06"}, {"date": "2024-05-06", "hour": "14"}):
        cards = select(parse(browser.get("/", params)), "a", "card-frame")
        shown = [int(card.attrs["data-frame-id"]) for card in cards]
        assert read in shown and blank not in shown, params
    # The day's slot counts both, and shows the time of the frame it shows.
    [card] = select(parse(browser.get("/", {"date": "2024-05-06"})), "a", "card-frame")
    page = " ".join(browser.get("/", {"date": "2024-05-06"}).content.decode().split())
    assert "+1 more" in page and "14:05:12" in page and card.attrs["data-frame-id"] == str(read)


# In the browser --------------------------------------------------------------------------------


def test_search_in_an_american_browser_reads_24_hour_times_and_a_bad_field_is_named_on_the_form(chromium, server):  # noqa: F811
    context = chromium.new_context(timezone_id="America/New_York", locale="en-US", viewport={"width": 1280, "height": 900})
    try:
        tab = context.new_page()
        _log_in(tab, server)
        tab.goto(server.url + "/search")
        start = tab.locator("input[name=start]")
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}", start.input_value())
        start.fill("2026-01-15 14:30")
        tab.fill("input[name=q]", "zebra")
        tab.press("input[name=q]", "Enter")
        tab.wait_for_url(lambda url: "q=zebra" in url)
        at = datetime(2026, 1, 15, 14, 30, tzinfo=ZoneInfo("America/New_York")).timestamp()
        assert float(parse_qs(urlparse(tab.url).query)["start_time"][0]) == at
        expect(tab.locator("#results .summary small")).to_contain_text("2026-01-15 14:30 – now")

        # An address with a time the form cannot read: the form stays, with it, and says which field.
        tab.goto(server.url + "/search?q=zebra&start=2026-01-15+2:30+PM")
        expect(tab.locator("#results .error")).to_contain_text("“From”: “2026-01-15 2:30 PM” is not a date and time")
        expect(start).to_have_value("2026-01-15 2:30 PM")
        expect(start).to_have_attribute("aria-invalid", "true")
        expect(tab.locator("input[name=q]")).to_have_value("zebra")
        start.fill("2026-01-15 14:30")
        tab.press("input[name=q]", "Enter")
        expect(tab.locator("#results .error")).to_have_count(0)
        expect(tab.locator("#results .summary small")).to_contain_text("2026-01-15 14:30")
    finally:
        context.close()


def _log_in(tab, server) -> None:
    tab.goto(server.url + "/login/")
    tab.wait_for_function("document.cookie.includes('tz=')")
    tab.fill("input[name=password]", (server.data_dir / "admin_password.txt").read_text().strip())
    tab.click("button[type=submit]")
    tab.wait_for_url(server.url + "/")


@pytest.mark.parametrize("width", [1280, 390])
def test_the_search_hint_fits_its_box_and_the_header_shows_the_zone(chromium, server, width):  # noqa: F811
    context = chromium.new_context(timezone_id="Asia/Kolkata", viewport={"width": width, "height": 900})
    try:
        tab = context.new_page()
        _log_in(tab, server)
        tab.goto(server.url + "/search")
        box = tab.locator("input[name=q]")
        spare = box.evaluate(
            """input => {
                const style = getComputedStyle(input);
                const context = document.createElement("canvas").getContext("2d");
                context.font = style.font;
                const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
                return room - context.measureText(input.placeholder).width;
            }"""
        )
        assert spare >= 0, f"the placeholder is {-spare:.0f} px wider than its box at {width} px"
        zone = tab.locator("header .zone").bounding_box()
        assert zone and zone["x"] >= 0 and zone["x"] + zone["width"] <= width
        expect(tab.locator("header .zone")).to_have_text(re.compile("Asia/(Kolkata|Calcutta)"))
    finally:
        context.close()


def test_a_question_the_server_refuses_stays_in_the_box_with_the_reason_and_no_agent_is_offered(chromium, server):  # noqa: F811
    tab = tab_logged_in(chromium, server, "Asia/Shanghai")
    tab.goto(server.url + "/chat")
    # The test server has no model: agent answers are not offered, and the page says how to have them.
    expect(tab.locator("input[name=mode][value=agent]")).to_have_count(0)
    expect(tab.locator(".agent-off")).to_contain_text("LLM_BASE_URL")
    question = "What did I read? " + "x" * 4000  # longer than the 4,000 characters a question may have
    tab.fill("textarea[name=message]", question)
    tab.press("textarea[name=message]", "Enter")
    expect(tab.locator("#chat-form-error")).to_contain_text("message")
    expect(tab.locator("textarea[name=message]")).to_have_value(question)
    expect(tab.locator("#conversation li")).to_have_count(0)
    assert ".." not in tab.locator("#chat-form-error").inner_text()
    tab.context.close()
