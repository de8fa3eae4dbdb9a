"""Every time the pages show is right in the zone they name, with the browser in a zone that is
not UTC (headless Chromium against a real serve): the viewer's local heading and its UTC row,
the timeline's cards on the right local day around midnight, search results, and a chat
answer's range and evidence, streamed and reloaded."""

from datetime import date, datetime, timedelta
from datetime import timezone as dt_timezone
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import expect

from tests.pages.test_browser import chromium, frame_post, server, tab_logged_in  # noqa: F401 (fixtures)
from tests.server import ocr_wait

UTC = dt_timezone.utc
# Known UTC instants. In Berlin (UTC+1 in January, +2 in July): 14:36:40, 19:45, 00:30 the next
# day, 15:36:40. In Kolkata (UTC+5:30): 19:06:40, 00:15 the next day, 05:00 the next day, 19:06:40.
SHOTS = [
    (datetime(2026, 1, 15, 13, 36, 40, tzinfo=UTC), "Excel", "zebra budget review"),
    (datetime(2026, 1, 15, 18, 45, tzinfo=UTC), "Firefox", "zebra evening reading"),
    (datetime(2026, 1, 15, 23, 30, tzinfo=UTC), "Notes", "zebra midnight notes"),
    (datetime(2026, 7, 10, 13, 36, 40, tzinfo=UTC), "Terminal", "zebra summer build"),
]
WINTER_DAYS = [date(2026, 1, 15), date(2026, 1, 16)]


@pytest.fixture(scope="module")
def shots(server):  # noqa: F811 (the module-scoped server above)
    """{frame_id: its UTC time}, OCR'd so that search and chat find them."""
    ids = {frame_post(server, [text], timestamp=at.timestamp(), app_name=app): at for at, app, text in SHOTS}
    ocr_wait(server=server, frame_ids=list(ids), timeout_s=180)
    return ids


@pytest.fixture(params=["Europe/Berlin", "Asia/Kolkata"])
def tab(request, chromium, server):  # noqa: F811
    tab = tab_logged_in(chromium, server, request.param)
    tab.zone = ZoneInfo(request.param)
    tab.zone_name = tab.locator("header .zone").inner_text()  # the browser's name for it: Kolkata is Asia/Calcutta
    yield tab
    tab.context.close()


def test_the_viewer_shows_the_local_time_under_its_zone_and_the_utc_row_in_utc(tab, server, shots):
    zone = tab.zone
    for frame_id, at in shots.items():
        local = at.astimezone(zone)
        tab.goto(f"{server.url}/frames/{frame_id}/view")
        expect(tab.locator(".viewer-bar h1")).to_have_text(f"{local:%a} {local.day} {local:%b %Y · %H:%M:%S} {tab.zone_name}")
        expect(tab.locator(".facts dt:text-is('Time (UTC)') + dd")).to_have_text(f"{at:%Y-%m-%d %H:%M:%S}.000")
        link = tab.locator("a:text-is('Show on the timeline')")
        expect(link).to_have_attribute("href", f"/?date={local:%Y-%m-%d}&hour={local.hour}")


def test_the_timeline_puts_each_frame_on_its_local_day_at_its_local_time(tab, server, shots):
    zone = tab.zone
    for day in WINTER_DAYS:
        tab.goto(f"{server.url}/?date={day:%Y-%m-%d}")
        expect(tab.locator(".toolbar h1")).to_have_text(f"{day:%A} {day.day} {day:%B %Y} {tab.zone_name}")
        on_day = {frame_id: at.astimezone(zone) for frame_id, at in shots.items() if at.astimezone(zone).date() == day}
        assert on_day, "each day has a frame in both zones"
        cards = tab.locator(".card-frame")
        expect(cards).to_have_count(len(on_day))
        assert sorted(int(i) for i in cards.evaluate_all("cs => cs.map(c => c.dataset.frameId)")) == sorted(on_day)
        for frame_id, local in on_day.items():
            expect(tab.locator(f".card-frame[data-frame-id='{frame_id}'] time")).to_have_text(f"{local:%H:%M:%S}")
        # The hour zoom of the frame's local hour holds it too.
        for frame_id, local in on_day.items():
            tab.goto(f"{server.url}/?date={day:%Y-%m-%d}&hour={local.hour}")
            expect(tab.locator(f".card-frame[data-frame-id='{frame_id}'] time")).to_have_text(f"{local:%H:%M:%S}")


def test_search_results_show_local_times_under_the_zone_they_name(tab, server, shots):
    zone = tab.zone
    start, end = min(shots.values()) - timedelta(days=1), max(shots.values()) + timedelta(days=1)
    tab.goto(f"{server.url}/search?q=zebra&mode=keyword&start_time={start.timestamp()}&end_time={end.timestamp()}")
    expect(tab.locator("#results .summary")).to_contain_text(f"{len(shots)} frames for “zebra”")
    expect(tab.locator("#results .summary small")).to_contain_text(tab.zone_name)
    expect(tab.locator("#results .summary small")).to_contain_text(f"{start.astimezone(zone):%Y-%m-%d %H:%M}")
    for frame_id, at in shots.items():
        local = at.astimezone(zone)
        hit = tab.locator(f"#results a.hit[href='/frames/{frame_id}/view?q=zebra'] time")
        expect(hit).to_have_text(f"{local:%a} {local.day} {local:%b %Y · %H:%M:%S}")


def test_a_chat_answer_shows_its_range_and_evidence_in_the_zone_it_names(tab, server, shots):
    zone = tab.zone
    start = datetime(2026, 1, 15, tzinfo=zone)
    end = datetime(2026, 1, 17, tzinfo=zone)
    tab.goto(server.url + "/chat")
    expect(tab.locator("#chat-title + small")).to_have_text(tab.zone_name)
    tab.fill("input[name=start]", f"{start:%Y-%m-%d %H:%M}")
    tab.fill("input[name=end]", f"{end:%Y-%m-%d %H:%M}")
    tab.fill("textarea[name=message]", "What did I do?")
    tab.press("textarea[name=message]", "Enter")
    answer = tab.locator("li.answer").last
    expect(answer.locator("a.evidence-item").first).to_be_visible()
    expect(tab.locator("#chat-form button[type=submit]")).to_be_enabled()
    range_label = "Thu 15 Jan 00:00 – Sat 17 Jan 00:00"
    winter = {frame_id: at.astimezone(zone) for frame_id, at in shots.items() if at.month == 1}
    # As it streamed (chat.js), then as the server renders the stored chat.
    for _ in ("streamed", "reloaded"):
        expect(tab.locator("li.question .range")).to_have_text(range_label)
        expect(answer.locator(".answer-body")).to_contain_text(f"{range_label} ({tab.zone_name})")
        items = answer.locator("a.evidence-item")
        expect(items.first).to_be_visible()
        shown = {int(item.get_attribute("data-frame-id")): item.locator("time").inner_text() for item in items.all()}
        assert shown and set(shown) <= set(winter)
        assert shown == {frame_id: f"{winter[frame_id]:%H:%M}" for frame_id in shown}
        tab.reload()


def test_a_tab_whose_zone_changed_reloads_once_into_the_new_zone(tab, server, shots):
    # As if the computer moved zones with the tab open: the cookie and the one reload were for Shanghai.
    tab.context.add_cookies([{"name": "tz", "value": "Asia%2FShanghai", "url": server.url}])
    tab.evaluate("sessionStorage.setItem('tz-reloaded', 'Asia/Shanghai')")
    frame_id, at = next(iter(shots.items()))
    tab.goto(f"{server.url}/frames/{frame_id}/view")
    expect(tab.locator("header .zone")).to_have_text(tab.zone_name)
    expect(tab.locator(".viewer-bar time")).to_contain_text(f"{at.astimezone(tab.zone):%H:%M:%S}")
