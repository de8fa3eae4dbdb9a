"""End to end in headless Chromium (Debian's, driven by Playwright) against a real
`manage.py serve`: log in, today's frames on the timeline, a frame with its OCR boxes,
a Chinese search clicked through to its frame, a frame arriving live, arrow keys."""

import random
import time
from datetime import datetime
from urllib.parse import parse_qs, urlparse
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import expect, sync_playwright

from frames import timeline
from tests.server import frames_post_session, ocr_wait
from tests.server import LiveServer
from scripts.screenshots import CHROMIUM_ARGS
from tests.conftest import render_text_image

TIMEZONE = "Asia/Shanghai"
SESSION_S = 120  # the span of session_frames
ZONE = ZoneInfo(TIMEZONE)
TIMEOUT_MS = 20_000


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with LiveServer(tmp_path_factory.mktemp("browser") / "data") as live:
        yield live


@pytest.fixture(scope="module")
def session_frames(server):
    """A few frames of a working session, all in the current local hour (so on today's timeline),
    each in a card of its own when the hour is zoomed into (HOUR_BUCKET_S apart at least), OCR'd.
    In the first SESSION_S of an hour there is no room for them yet: it waits for it."""
    now = time.time()
    hour_start = datetime.fromtimestamp(now, ZONE).replace(minute=0, second=0, microsecond=0).timestamp()
    if now - hour_start < SESSION_S:
        time.sleep(hour_start + SESSION_S + 1 - now)
        now = time.time()
    assert SESSION_S / 4 >= timeline.HOUR_BUCKET_S
    sent = frames_post_session(server=server, count=4, start=now - SESSION_S, step_s=SESSION_S / 4, seed=5)
    sent = [s for s in sent if s["frame_id"]]
    ocr_wait(server=server, frame_ids=[s["frame_id"] for s in sent], timeout_s=180)
    return sent


@pytest.fixture(scope="module")
def chromium():
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def tab_logged_in(chromium, server: LiveServer, timezone_id: str):
    """A logged-in tab of a browser in timezone_id: the page itself tells the server its timezone."""
    context = chromium.new_context(timezone_id=timezone_id, viewport={"width": 1280, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    tab = context.new_page()
    tab.goto(server.url + "/")
    assert urlparse(tab.url).path == "/login/"
    # The first page sets the tz cookie and reloads once to render in that zone.
    tab.wait_for_function("performance.getEntriesByType('navigation')[0].type === 'reload'")
    tab.fill("input[name=password]", (server.data_dir / "admin_password.txt").read_text().strip())
    tab.click("button[type=submit]")
    tab.wait_for_url(server.url + "/")
    # The zone under the name the browser gives it (Chromium calls Asia/Kolkata Asia/Calcutta).
    expect(tab.locator("header .zone")).to_have_text(tab.evaluate("Intl.DateTimeFormat().resolvedOptions().timeZone"))
    return tab


@pytest.fixture
def page(chromium, server):
    """A logged-in tab in Shanghai time."""
    tab = tab_logged_in(chromium, server, TIMEZONE)
    yield tab
    tab.context.close()


def frame_post(server: LiveServer, lines: list[str], *, timestamp: float, app_name: str = "Notes") -> int:
    resp = server.session.post(
        server.url + "/api/v1/frames",
        files={"image": ("shot.png", render_text_image(lines, size=(1280, 400)), "image/png")},
        data={"timestamp": timestamp, "app_name": app_name, "window_name": "e2e", "device_name": "browser-test"},
        timeout=60,
    )
    assert resp.status_code == 201, resp.text
    return resp.json()["frame_id"]


def local_hms(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, ZONE).strftime("%H:%M:%S")


def test_todays_frames_on_the_timeline_and_a_frame_with_its_ocr_boxes(page, server, session_frames):
    first = session_frames[0]
    # The whole day shows one card per 5 minutes with frames; the count covers them all.
    assert page.locator(".card-frame").count() >= 1
    assert int(page.locator("#frame-total").inner_text()) >= len(session_frames)

    # Zoom into this hour (an htmx swap that updates the address): every frame is there.
    hour = datetime.fromtimestamp(first["timestamp"], ZONE).hour
    page.click(f".zoom a:text-is('{hour:02d}')")
    page.wait_for_url(lambda url: parse_qs(urlparse(url).query).get("hour") == [str(hour)])
    for sent in session_frames:
        card = page.locator(f".card-frame[data-frame-id='{sent['frame_id']}']")
        expect(card.locator("time")).to_have_text(local_hms(sent["timestamp"]))
    expect(page.locator("header nav")).to_be_visible()

    page.click(f".card-frame[data-frame-id='{first['frame_id']}']")
    page.wait_for_url(f"**/frames/{first['frame_id']}/view")
    expect(page.locator(".viewer-bar time")).to_contain_text(local_hms(first["timestamp"]))
    assert page.eval_on_selector("#frame-image", "img => img.complete && img.naturalWidth") == 1920
    ocr = server.session.get(f"{server.url}/api/v1/frames/{first['frame_id']}/ocr", timeout=10).json()
    assert ocr["lines"]
    expect(page.locator("svg.boxes .ocr-lines rect")).to_have_count(len(ocr["lines"]))
    # The boxes sit on the picture: the drawing covers the image.
    image_box = page.locator("#frame-image").bounding_box()
    svg_box = page.locator("svg.boxes").bounding_box()
    assert abs(image_box["width"] - svg_box["width"]) < 2 and abs(image_box["height"] - svg_box["height"]) < 2

    # The right arrow opens the next frame in time.
    context = server.session.get(f"{server.url}/api/v1/frames/{first['frame_id']}/context", params={"after": 1}, timeout=10)
    [after] = context.json()["after"]
    page.keyboard.press("ArrowRight")
    page.wait_for_url(f"**/frames/{after['frame_id']}/view")
    page.keyboard.press("ArrowLeft")
    page.wait_for_url(f"**/frames/{first['frame_id']}/view")

    # Back to the hour zoom from the browser's history: a whole page, not the htmx fragment.
    for _ in range(3):  # the first frame, the next one, the first one again
        page.go_back()
    page.wait_for_url(lambda url: parse_qs(urlparse(url).query).get("hour") == [str(hour)])
    expect(page.locator("header nav")).to_be_visible()
    expect(page.locator(f".card-frame[data-frame-id='{first['frame_id']}']")).to_be_visible()

    # The same when htmx has no snapshot of the page to go back to and asks the server for it.
    page.click(".zoom a:text-is('Whole day')")
    page.wait_for_url(lambda url: "hour" not in parse_qs(urlparse(url).query))
    page.evaluate("sessionStorage.removeItem('htmx-history-cache')")
    page.go_back()
    page.wait_for_url(lambda url: parse_qs(urlparse(url).query).get("hour") == [str(hour)])
    expect(page.locator(f".card-frame[data-frame-id='{first['frame_id']}']")).to_be_visible()
    expect(page.locator("header nav")).to_be_visible()
    expect(page.locator("#day")).to_have_count(1)


def test_search_a_chinese_word_and_click_through_to_its_frame(page, server, session_frames):
    rng = random.Random()
    english = "".join(rng.choice("bdfgkmnprstvz") + rng.choice("aeiou") for _ in range(4))
    target = frame_post(server, [f"weekend plans {english}", "周末去动物园看熊猫宝宝"], timestamp=time.time() - 30)
    decoy = frame_post(server, ["周末去公园跑步", "nothing special here"], timestamp=time.time() - 20)
    ocr_wait(server=server, frame_ids=[target, decoy], timeout_s=120)

    page.click("nav a:text-is('Search')")
    page.wait_for_url("**/search")
    an_hour_ago = datetime.fromtimestamp(time.time() - 3600, ZONE).replace(second=0, microsecond=0)
    page.fill("input[name=start]", an_hour_ago.strftime("%Y-%m-%d %H:%M"))
    page.fill("input[name=q]", "熊猫")
    page.press("input[name=q]", "Enter")
    # The results are swapped in place; the address keeps the range as epoch seconds of the local
    # time picked, and no end, which means "now".
    page.wait_for_url(lambda url: "q" in parse_qs(urlparse(url).query))
    expect(page.locator("#results .summary")).to_contain_text("1 frame for “熊猫”")
    query = parse_qs(urlparse(page.url).query, keep_blank_values=True)
    assert float(query["start_time"][0]) == an_hour_ago.timestamp()
    assert query["end_time"] == [""]
    expect(page.locator("#results mark")).to_have_text("熊猫")

    page.click("#results a.hit")
    page.wait_for_url(f"**/frames/{target}/view?q=*")
    expect(page.locator("rect.hit")).to_have_count(1)
    expect(page.locator(".hits-note")).to_contain_text("1 match for “熊猫”")
    # Marked over the two characters where OCR read them.
    ocr = server.session.get(f"{server.url}/api/v1/frames/{target}/ocr", timeout=10).json()
    boxes = {w["text"]: w["box"] for line in ocr["lines"] for w in line["words"]}
    hit = {k: int(page.locator("rect.hit").get_attribute(k)) for k in ("x", "y", "width")}
    assert hit["x"] == boxes["熊"][0] and hit["x"] + hit["width"] == boxes["猫"][0] + boxes["猫"][2]
    assert english in page.locator(".ocr-text pre").text_content()

    # "周末" is on both frames: both come back, the newest first.
    page.goto(server.url + "/search?q=" + "周末")
    hits = page.locator("#results a.hit")
    expect(hits).to_have_count(2)
    assert [h.get_attribute("href").split("/")[2] for h in hits.all()] == [str(decoy), str(target)]


def test_a_frame_posted_while_the_timeline_is_open_appears_without_a_reload(page, server, session_frames):
    page.add_init_script("document.addEventListener('htmx:wsOpen', () => { window.liveOpen = true; })")
    page.reload()
    page.wait_for_function("window.liveOpen === true")
    # The server's poller reads the newest frame id right after the socket opens; let it.
    page.wait_for_timeout(1000)
    page.evaluate("window.stillTheSamePage = true")
    expect(page.locator("#live-frames .card-frame")).to_have_count(0)

    timestamp = time.time()
    frame_id = frame_post(server, ["a screen captured just now", "刚刚截取的屏幕"], timestamp=timestamp, app_name="Terminal")
    card = page.locator(f"#live-frames .card-frame[data-frame-id='{frame_id}']")
    expect(card).to_be_visible()
    expect(card.locator("time")).to_have_text(local_hms(timestamp))
    expect(card.locator(".app")).to_have_text("Terminal")
    assert page.evaluate("window.stillTheSamePage") is True
    card.click()
    page.wait_for_url(f"**/frames/{frame_id}/view")


def test_a_range_of_one_app_is_deleted_from_the_timeline_after_a_preview(page, server):
    day = datetime(2026, 11, 1, tzinfo=ZONE)
    gone = frame_post(server, ["an old screen to forget"], timestamp=(day.replace(hour=10, minute=5)).timestamp(), app_name="Oldapp")
    kept = frame_post(server, ["an old screen to keep"], timestamp=(day.replace(hour=10, minute=20)).timestamp(), app_name="Keepapp")
    page.goto(server.url + "/?date=2026-11-01")
    expect(page.locator("#frame-total")).to_have_text("2")
    page.click(".range-delete summary")
    page.fill(".range-delete input[name=from]", "10:00")
    page.fill(".range-delete input[name=to]", "10:30")
    page.select_option(".range-delete select[name=app_name]", "Oldapp")
    page.click(".range-delete button[type=submit]")
    expect(page.locator(".range-delete .confirm")).to_contain_text("This deletes 1 frame (Oldapp 1) from 10:00 to 10:30")
    assert server.session.get(f"{server.url}/api/v1/frames/{gone}/metadata", timeout=30).status_code == 200
    page.click(".range-delete button.danger")
    expect(page.locator(".notice.deleted")).to_contain_text("Deleted 1 frame")
    expect(page.locator("#frame-total")).to_have_text("1")
    assert server.session.get(f"{server.url}/api/v1/frames/{gone}/metadata", timeout=30).status_code == 404
    assert server.session.get(f"{server.url}/api/v1/frames/{kept}/metadata", timeout=30).status_code == 200
