"""Only web addresses are links, in headless Chromium against a real server: frames posted with
a `javascript:` (and other non-web) browser_url show it as text on the viewer and in the admin,
and no page (timeline, search, chat with its streamed and stored answer and evidence, admin) has
a link that is not http(s); clicking never runs script. A frame's https address stays a link
that opens without a referrer or an opener. Chromium's own URL parser checks the helper's reading."""

import time
from urllib.parse import urlparse

import pytest
from playwright.sync_api import expect

from tests.server import ocr_wait
from tests.server import LiveServer
from myrecall.links import web_url
from tests.chat.test_sse_live import model  # noqa: F401 (fixture)
from tests.conftest import render_text_image
from tests.myrecall.test_links import WEB
from tests.pages.test_browser import chromium, page  # noqa: F401 (fixtures)

SCRIPT_URL = "javascript:alert(3)"
WEB_URL = "https://example.org/budget?quarter=3&view=full"
# Other spellings a browser runs as script or opens as a non-web page.
OTHER_URLS = [
    " javascript:alert(4)", "JAVASCRIPT:alert(5)", "java\tscript:alert(6)", "data:text/html,<script>alert(7)</script>", "//evil.example/"
]
WORD = "zorvikat"  # on every posted frame, so one search finds them all


@pytest.fixture(scope="module")
def server(tmp_path_factory, model):  # noqa: F811 (the fake model of test_sse_live)
    env = {"LLM_BASE_URL": model.base_url, "LLM_MODEL": "fake-model", "LLM_API_KEY": "test-key"}
    with LiveServer(tmp_path_factory.mktemp("links") / "data", env=env) as live:
        yield live


@pytest.fixture(scope="module")
def frames(server) -> dict[str, int]:
    """Frame ids by browser_url, posted in the last minutes and OCR'd."""
    now = time.time()
    ids = {}
    for i, url in enumerate([SCRIPT_URL, WEB_URL, *OTHER_URLS]):
        resp = server.session.post(
            server.url + "/api/v1/frames",
            files={"image": ("shot.png", render_text_image([f"Budget notes {WORD} page {i}"], size=(1280, 400)), "image/png")},
            data={"timestamp": now - 300 + 20 * i, "app_name": "Firefox", "window_name": f"Budget {WORD} {i}", "browser_url": url},
            timeout=60,
        )
        assert resp.status_code == 201, resp.text
        ids[url] = resp.json()["frame_id"]
    ocr_wait(server=server, frame_ids=list(ids.values()), timeout_s=180)
    return ids


@pytest.fixture
def dialogs(page):  # noqa: F811
    """Messages of every alert/confirm/prompt the page opens."""
    seen = []
    page.on("dialog", lambda dialog: (seen.append(dialog.message), dialog.dismiss()))
    return seen


def non_web_links(page) -> list[str]:  # noqa: F811
    """The href of every link on the page that does not go to an http(s) address."""
    return page.eval_on_selector_all(
        "a[href], area[href]", "links => links.map(a => a.href).filter(h => !/^https?:$/.test(new URL(h).protocol))"
    )


def click_text(page, locator, text: str) -> None:  # noqa: F811
    """A real mouse click in the middle of `text` inside the element `locator` finds."""
    box = locator.evaluate(
        """(element, text) => {
            const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                const at = node.data.indexOf(text);
                if (at < 0) continue;
                const range = document.createRange();
                range.setStart(node, at);
                range.setEnd(node, at + text.length);
                const r = range.getClientRects()[0];
                return {x: r.x + r.width / 2, y: r.y + r.height / 2};
            }
            return null;
        }""",
        text,
    )
    assert box, f"{text!r} is not shown"
    page.mouse.click(box["x"], box["y"])
    page.wait_for_timeout(200)


def test_the_dialog_watch_sees_a_javascript_link_run(page, dialogs):  # noqa: F811
    """The checks below would see script run: a javascript: link put in by hand does open a dialog."""
    page.evaluate("href => { const a = document.createElement('a'); a.id = 'probe'; a.href = href;"
                  " a.textContent = 'probe'; document.body.prepend(a); }", SCRIPT_URL)
    assert non_web_links(page) == [SCRIPT_URL]
    page.click("#probe")
    page.wait_for_timeout(300)
    assert dialogs == ["3"]


def test_chromium_reads_each_web_address_as_the_helper_does(page):  # noqa: F811
    read = page.evaluate(
        "values => values.map(v => { const u = new URL(v); return [u.protocol, u.href]; })", [value for value, _ in WEB]
    )
    cleaned = page.evaluate("values => values.map(v => new URL(v).href)", [web_url(value) for value, _ in WEB])
    assert all(protocol in ("http:", "https:") for protocol, _ in read)
    assert [href for _, href in read] == cleaned
    # And the browser really reads these spellings as script: they are what must not become links.
    protocols = page.evaluate("values => values.map(v => new URL(v).protocol)", [SCRIPT_URL, *OTHER_URLS[:3]])
    assert protocols == ["javascript:"] * 4


def test_a_script_address_is_text_on_the_viewer_and_clicking_it_runs_nothing(page, server, frames, dialogs):  # noqa: F811
    for url in [SCRIPT_URL, *OTHER_URLS]:
        page.goto(f"{server.url}/frames/{frames[url]}/view")
        assert non_web_links(page) == []
        shown = page.locator(".facts dd .url")
        expect(shown).to_have_count(1)
        assert shown.evaluate("e => e.tagName") == "SPAN"
        assert shown.text_content() == url
        click_text(page, shown, url.strip())
        assert page.url == f"{server.url}/frames/{frames[url]}/view"
    assert dialogs == []


def test_a_web_address_stays_a_link_that_opens_without_referrer_or_opener(page, server, frames):  # noqa: F811
    page.context.route(
        "https://example.org/**",
        lambda route: route.fulfill(content_type="text/html", body="<title>Budget</title><p>the page</p>"),
    )
    page.goto(f"{server.url}/frames/{frames[WEB_URL]}/view")
    link = page.locator(".facts dd a.url")
    expect(link).to_have_text(WEB_URL)
    assert link.get_attribute("href") == WEB_URL
    assert link.get_attribute("rel") == "noreferrer noopener" and link.get_attribute("target") == "_blank"
    with page.context.expect_page() as opened:
        link.click()
    tab = opened.value
    tab.wait_for_load_state()
    assert tab.url == WEB_URL and tab.title() == "Budget"
    assert tab.evaluate("[document.referrer, window.opener]") == ["", None]


def test_search_results_and_the_timeline_have_no_script_links(page, server, frames, dialogs):  # noqa: F811
    page.goto(f"{server.url}/search?q={WORD}&start_time={time.time() - 3600}")
    hits = page.locator("#results a.hit")
    expect(hits).to_have_count(len(frames))
    assert non_web_links(page) == []
    assert all("/frames/" in href for href in hits.evaluate_all("links => links.map(a => a.href)"))
    page.goto(server.url + "/")
    expect(page.locator(".card-frame").first).to_be_visible()
    assert non_web_links(page) == []
    assert dialogs == []


def test_a_chat_answer_and_its_evidence_link_only_to_frames_and_the_web(page, server, model, frames, dialogs):  # noqa: F811
    script, web = frames[SCRIPT_URL], frames[WEB_URL]
    model.answer = (
        f"You read the budget [14:00](myrecall://frame/{script}) and [14:01](myrecall://frame/{web})."
        f" Open [it](javascript:alert(3)) or <javascript:alert(3)> or [this]( JAVASCRIPT:alert(3)) or [that](//evil.example)"
        f" or [the page]({WEB_URL})."
    )
    page.goto(server.url + "/chat")
    page.check("input[name=preset][value=hour]", force=True)
    page.fill("textarea[name=message]", "Which budget page did I read?")
    page.press("textarea[name=message]", "Enter")
    answer = page.locator("li.answer").last
    expect(answer.locator("a.cite")).to_have_count(2)

    def check(answer):
        # The answer body: the two citations and the web link, each with a safe rel; the rest is text.
        links = answer.locator(".answer-body a")
        expect(links).to_have_count(3)
        assert links.nth(2).get_attribute("href") == WEB_URL
        assert all("noopener" in rel for rel in links.evaluate_all("links => links.map(a => a.rel)"))
        body = answer.locator(".answer-body")
        expect(body).to_contain_text("[it](javascript:alert(3))")
        # The evidence, built by chat.js from the API's items or by the template: links to the viewer.
        items = answer.locator("a.evidence-item")
        assert sorted(int(i) for i in items.evaluate_all("links => links.map(a => a.dataset.frameId)")) == sorted([script, web])
        assert all(href.startswith(server.url + "/frames/") for href in items.evaluate_all("links => links.map(a => a.href)"))
        assert non_web_links(page) == []
        for text in ["javascript:alert(3))", "<javascript:alert(3)>", "JAVASCRIPT:alert(3)"]:
            click_text(page, body, text)
        assert urlparse(page.url).path == "/chat"

    check(answer)
    page.reload()
    check(page.locator("li.answer").last)
    assert dialogs == []


def test_the_admin_shows_a_script_address_as_text_and_a_web_address_as_a_link(page, server, frames, dialogs):  # noqa: F811
    page.goto(f"{server.url}/admin/frames/frame/{frames[SCRIPT_URL]}/change/")
    field = page.locator(".field-browser_link .readonly")
    expect(field).to_have_text(SCRIPT_URL)
    expect(field.locator("a")).to_have_count(0)
    assert non_web_links(page) == []
    click_text(page, field, SCRIPT_URL)
    page.goto(f"{server.url}/admin/frames/frame/{frames[WEB_URL]}/change/")
    link = page.locator(".field-browser_link .readonly a")
    assert link.get_attribute("href") == WEB_URL and link.get_attribute("rel") == "noreferrer noopener"
    page.goto(f"{server.url}/admin/frames/frame/?q={WORD}")
    expect(page.locator("#result_list tbody tr")).to_have_count(len(frames))
    assert non_web_links(page) == []
    assert dialogs == []
