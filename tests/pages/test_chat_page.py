"""The chat page through Django's test client (stored chats with their answers, evidence and
failures, friendly 404s, login) and the viewer marking an evidence snippet; then end to end in
headless Chromium against a real server: ask, watch the answer stream in, open its evidence."""

import time
from datetime import datetime, timedelta
from urllib.parse import parse_qs, urlparse
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from tests.server import ocr_wait
from chat.models import ChatMessage, ChatSession, ChatStatus
from chat.modes import ChatQuery
from chat.services import chat_answer
from frames.models import OcrResult
from search.filters import Filters
from tests.pages.test_browser import chromium, frame_post, page, server  # noqa: F401 (fixtures)
from tests.pages.test_views import browser, frame_add, parse, select, user, zone_set  # noqa: F401 (fixtures)

SHANGHAI = ZoneInfo("Asia/Shanghai")
# 2024-05-06 14:00 in Shanghai.
T0 = datetime(2024, 5, 6, 14, 0, tzinfo=SHANGHAI).timestamp()


def ask(question: str, start: float, end: float, session_id: int | None = None) -> dict:
    filters = Filters(start_time=start, end_time=end)
    return chat_answer(query=ChatQuery(message=question, filters=filters, zone=SHANGHAI, session_id=session_id))


@pytest.mark.django_db
def test_a_stored_chat_shows_its_questions_answers_and_evidence(browser, frame_make):
    ids = [
        frame_make("Quarterly budget review\nRevenue grew 12% in Q3", at=T0 + 60, app_name="Excel", window_name="budget.xlsx"),
        frame_make("Pull request 42: fix the login form", at=T0 + 1800, app_name="Firefox", window_name="GitHub"),
    ]
    first = ask("What did I do?", T0, T0 + 3 * 3600)
    ask("And after that?", T0, T0 + 3 * 3600, session_id=first["session_id"])
    other = ask("Anything else?", T0 - 86400, T0 - 86400 + 3600)
    zone_set(browser, "Asia/Shanghai")

    resp = browser.get("/chat", {"session": first["session_id"]})
    assert resp.status_code == 200
    elements = parse(resp)
    # The history, the most recent chat first, this one marked.
    history = [a for a in select(elements, "a") if "?session=" in a.attrs.get("href", "")]
    assert [a.attrs["href"].split("=")[1] for a in history] == [str(other["session_id"]), str(first["session_id"])]
    assert history[1].attrs.get("aria-current") == "page"
    assert "What did I do?" in history[1].text
    assert any(a.text.strip() == "+ New chat" and a.attrs["href"] == "/chat" for a in select(elements, "a"))

    questions = stored(select(elements, "li", "question"))
    assert [select_text(q, elements, "question-text") for q in questions] == ["What did I do?", "And after that?"]
    # The range in the browser's timezone.
    assert "Mon 6 May 14:00–17:00" in questions[0].text
    answers = stored(select(elements, "li", "answer"))
    assert len(answers) == 2
    # The answer's own HTML, with its citations as links to the frames.
    cites = select(elements, "a", "cite")
    assert cites and {int(a.attrs["data-frame-id"]) for a in cites} <= set(ids)
    evidence = [a for a in select(elements, "a", "evidence-item") if a.attrs["data-frame-id"]]
    assert {int(a.attrs["data-frame-id"]) for a in evidence} == set(ids)
    excel = next(a for a in evidence if int(a.attrs["data-frame-id"]) == ids[0])
    assert excel.attrs["href"].startswith(f"/frames/{ids[0]}/view?hl=")
    assert "14:01" in excel.text and "Excel" in excel.text
    images = [e for e in select(elements, "img") if e.attrs.get("src", "").endswith("/thumb")]
    assert images and all(img.attrs.get("loading") == "lazy" for img in images)


def stored(turns: list) -> list:
    """Turns of the stored chat, not the empty shells the page's script fills in."""
    return [turn for turn in turns if turn.attrs.get("data-message-id")]


def select_text(element, elements, cls: str) -> str:
    """The text of the first element with class cls inside element (elements in document order)."""
    start = elements.index(element)
    return next(e.text for e in elements[start:] if cls in e.classes()).strip()


@pytest.mark.django_db
def test_a_failed_answer_shows_its_error_and_a_dropped_citation_is_counted(browser):
    session = ChatSession.objects.create(title="Broken one")
    start = timezone.now() - timedelta(hours=1)
    common = {"session": session, "start_time": start, "end_time": start + timedelta(hours=1), "timezone": "UTC"}
    ChatMessage.objects.create(role="user", content="Summarise", status=ChatStatus.DONE, **common)
    ChatMessage.objects.create(
        role="assistant", status=ChatStatus.FAILED, error="The model did not answer within 60 s.", **common
    )
    elements = parse(browser.get("/chat", {"session": session.id}))
    [failed] = stored(select(elements, "li", "failed"))
    assert "The answer failed: The model did not answer within 60 s." in failed.text
    assert select(elements, "p", "error")


@pytest.mark.django_db
def test_html_in_screen_text_stays_text_on_the_page(browser, frame_make):
    frame_make('<img src=x onerror="alert(1)"> <script>alert(2)</script> evil page', at=T0 + 60)
    first = ask("What was on <b>screen</b>?", T0, T0 + 3600)
    html = browser.get("/chat", {"session": first["session_id"]}).content.decode()
    assert "<img src=x" not in html and "<script>alert" not in html
    assert "<b>screen</b>" not in html and "&lt;b&gt;screen&lt;/b&gt;" in html


@pytest.mark.django_db
def test_a_new_chat_and_unknown_chats(browser):
    resp = browser.get("/chat")
    assert resp.status_code == 200
    elements = parse(resp)
    assert select(elements, "textarea") and select(elements, "li", "empty")[0].text.strip() == "No chats yet."
    for wrong in ["999999", "abc", "9" * 40]:
        resp = browser.get("/chat", {"session": wrong})
        assert resp.status_code == 404
        assert "Not found" in resp.content.decode() and 'class="top"' in resp.content.decode()
    assert "There is no chat 999999" in browser.get("/chat", {"session": "999999"}).content.decode()


@pytest.mark.django_db
def test_the_chat_page_needs_a_login(client):
    resp = client.get("/chat", {"session": "1"})
    assert resp.status_code == 302 and resp["Location"].startswith("/login/?next=")


@pytest.mark.django_db(transaction=True)
def test_the_viewer_marks_the_lines_of_an_evidence_snippet(browser, immediate_ocr):
    frame_id = frame_add(T0, "File Edit View", "Quarterly budget review", "Revenue grew in Q3")
    lines = OcrResult.objects.get(frame_id=frame_id).lines
    assert len(lines) == 3
    snippet = "Quarterly budget review Revenue grew in Q3"

    page = parse(browser.get(f"/frames/{frame_id}/view", {"hl": snippet}))
    marked = [[int(r.attrs[k]) for k in ("x", "y", "width", "height")] for r in select(page, "rect", "evidence-line")]
    assert marked == [lines[1]["b"], lines[2]["b"]]
    assert select(page, "p", "evidence-text")[0].text.strip() == f"Evidence text: {snippet}"
    assert "2 lines of the evidence text marked" in select(page, "p", "evidence-note")[0].text
    # Only the cited frame: the neighbours' links do not carry it.
    assert not any("hl=" in a.attrs.get("href", "") for a in select(page, "a"))
    # With a search word too, both are marked.
    page = parse(browser.get(f"/frames/{frame_id}/view", {"hl": snippet, "q": "budget"}))
    assert len(select(page, "rect", "evidence-line")) == 2 and len(select(page, "rect", "hit")) == 1

    page = parse(browser.get(f"/frames/{frame_id}/view", {"hl": "text from another screen"}))
    assert select(page, "rect", "evidence-line") == []
    assert "None of this frame’s text lines match" in select(page, "p", "evidence-note")[0].text
    page = parse(browser.get(f"/frames/{frame_id}/view"))
    assert select(page, "p", "evidence-text") == [] and select(page, "rect", "evidence-line") == []


@pytest.fixture(scope="module")
def hour_frames(server):  # noqa: F811 (the module-scoped server above)
    """A few frames in the last minutes, with real rendered text, OCR'd."""
    now = time.time()
    lines = [
        (["Quarterly budget review", "Revenue grew 12% in Q3"], "Excel"),
        (["Pull request 42: fix the login form", "All checks have passed"], "Firefox"),
        (['<img src=x onerror="window.pwned=1"> rendered as text'], "Notes"),
    ]
    ids = [frame_post(server, text, timestamp=now - 240 + 60 * i, app_name=app) for i, (text, app) in enumerate(lines)]
    ocr_wait(server=server, frame_ids=ids, timeout_s=180)
    return ids


def test_ask_in_the_browser_and_open_the_evidence(page, server, hour_frames):  # noqa: F811
    page.click("nav a:text-is('Chat')")
    page.wait_for_url("**/chat")
    page.check("input[name=preset][value=hour]", force=True)
    send = page.locator("#chat-form button[type=submit]")
    # Send is disabled while the answer streams (the offline answer can be quick: watch for it).
    send.evaluate(
        "b => new MutationObserver(() => { if (b.disabled) window.sendWasDisabled = true; })"
        ".observe(b, {attributes: true})"
    )
    page.evaluate(
        "new MutationObserver(records => { if (records.some(r => r.target.classList?.contains('streaming')"
        " && r.addedNodes.length)) window.sawTextGrow = true; }).observe(document.getElementById('conversation'),"
        " {subtree: true, childList: true})"
    )
    page.fill("textarea[name=message]", "What did I do?")
    page.press("textarea[name=message]", "Enter")
    answer = page.locator("li.answer").last
    # The stream ends with the rendered answer, its citations and its evidence.
    expect(answer.locator("a.cite").first).to_be_visible()
    expect(send).to_be_enabled()
    assert page.evaluate("window.sendWasDisabled") is True
    # It was shown as text while it streamed, then replaced by the rendered answer.
    assert page.evaluate("window.sawTextGrow") is True
    assert answer.locator(".streaming").count() == 0
    expect(page.locator("li.question .question-text")).to_have_text(["What did I do?"])
    thumbs = answer.locator("a.evidence-item img")
    assert thumbs.count() >= 1
    assert all(src.endswith("/thumb") for src in thumbs.evaluate_all("imgs => imgs.map(i => i.getAttribute('src'))"))
    assert page.evaluate("window.pwned") is None
    # The address now names the chat, and the history lists it.
    session_id = parse_qs(urlparse(page.url).query)["session"][0]
    expect(page.locator(f"#session-list a[href='?session={session_id}']")).to_contain_text("What did I do?")

    # A follow-up stays in the same chat (reloaded from the server, so rendered by the template).
    page.fill("textarea[name=message]", "And the budget?")
    send.click()
    expect(page.locator("li.answer")).to_have_count(2)
    expect(page.locator("li.answer").last.locator("a.cite").first).to_be_visible()
    page.reload()
    expect(page.locator("li.question .question-text")).to_have_text(["What did I do?", "And the budget?"])
    assert page.evaluate("window.pwned") is None

    # A range the API refuses (before 1970): nothing is stored, so no turn is added; its message
    # shows under the form and the question stays in the box, to send again once the range is put right.
    page.fill("input[name=start]", "1969-06-01 09:00")
    expect(page.locator("input[name=preset][value=custom]")).to_be_checked()
    page.fill("textarea[name=message]", "What did I do back then?")
    page.press("textarea[name=message]", "Enter")
    expect(page.locator("#chat-form-error")).to_contain_text("start_time")
    expect(page.locator("textarea[name=message]")).to_have_value("What did I do back then?")
    expect(page.locator("li.question")).to_have_count(2)
    expect(send).to_be_enabled()

    item = page.locator("li.answer").first.locator("a.evidence-item").first
    frame_id = item.get_attribute("data-frame-id")
    item.click()
    page.wait_for_url(f"**/frames/{frame_id}/view?hl=*")
    expect(page.locator(".evidence-text")).to_contain_text("Evidence text:")
    assert page.locator("rect.evidence-line").count() >= 1
