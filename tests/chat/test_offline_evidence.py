"""The offline summary's evidence: every claim cites frames that show it (tests/chat/claims.py),
each frame and each quote appears once in an answer, and questions about the pages or apps of
a range are answered from the frames' addresses, titles and apps."""

import re
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone
from zoneinfo import ZoneInfo

import pytest

from chat.modes import ChatQuery
from chat.services import chat_answer
from frames.models import Frame
from search.filters import Filters
from tests.chat.claims import FrameFacts, answer_check

pytestmark = pytest.mark.django_db

OSLO = ZoneInfo("Europe/Oslo")
T0 = datetime(2026, 3, 10, 9, 0, tzinfo=dt_timezone.utc)  # 10:00 in Oslo
CITE = re.compile(r"myrecall://frame/(\d+)")

# (minutes, app, window, address, lines): one frame every 30 s of each stretch, in this order.
STRETCHES = [
    (12, "XTerm", "~/src/shop — xterm", "", ["$ git log --oneline -3", "4f2a1c9 Fix rounding of VAT in invoices", "$ pytest -q tests/test_tax.py", "7 passed in 0.41s"]),
    (4, "Firefox", "Invoice 2291 — Mozilla Firefox", "https://billing.example.com/invoices/2291", ["Invoice 2291", "Amount due: 245 USD", "Due date: 31 March 2026"]),
    (3, "XTerm", "~/src/shop — xterm", "", ["$ make deploy", "Deploying shop to staging", "Done in 12 s"]),
    (2, "Mousepad", "todo.txt", "", ["Remember to renew the passport before June", "Buy a birthday present for Ingrid", "Call the dentist"]),
    # A minute mid-bucket: the summary's sample (each 5-minute bucket's first and last frame) never reads it.
    (1, "Firefox", "Ask HN: How do you keep notes? | Hacker News — Mozilla Firefox", "https://news.ycombinator.com/item?id=4242", ["Ask HN: How do you keep notes?", "312 comments"]),
    (5, "Mousepad", "todo.txt", "", ["Remember to renew the passport before June", "Buy a birthday present for Ingrid", "Call the dentist"]),
    (5, "Firefox", "Oslo – weather forecast – yr — Mozilla Firefox", "https://www.yr.no/en/forecast/daily-table/1-72837/Norway/Oslo/Oslo/Oslo", ["Weather forecast for Oslo", "Tuesday: light rain, 6°", "Wednesday: cloudy, 8°"]),
    (5, "Slack", "#sales — Slack", "", ["Kari: the sales forecast for Q3 is ready", "me: thanks, I will read it after lunch"]),
    (10, "Firefox", "pandas.DataFrame.groupby — pandas documentation — Mozilla Firefox", "https://pandas.pydata.org/docs/reference/api/pandas.DataFrame.groupby.html", ["DataFrame.groupby(by=None, axis=0, level=None)", "Group DataFrame using a mapper or by a Series of columns."]),
    (6, "Firefox", "Python 教程 - 知乎 — Mozilla Firefox", "https://zhuanlan.zhihu.com/p/123456", ["如何用 Python 处理表格数据", "第一步：安装 pandas"]),
    (7, "Mousepad", "todo.txt", "", ["Remember to renew the passport before June", "Buy a birthday present for Ingrid", "Call the dentist", "Book a table for Friday"]),
]


@pytest.fixture
def session(frame_make) -> dict[int, FrameFacts]:
    """An hour of a working morning (10:00-11:00 in Oslo): every frame, as the checker reads it."""
    frames = {}
    at = T0
    for minutes, app, window, url, lines in STRETCHES:
        for step in range(minutes * 2):
            text = "\n".join([f"{app} - {window}", *lines, f"{at.astimezone(OSLO):%H:%M:%S}"])
            frame_id = frame_make(text, at=at.timestamp(), app_name=app, window_name=window, browser_url=url)
            frames[frame_id] = FrameFacts(frame_id, at, app, window, url, text)
            at += timedelta(seconds=30)
    return frames


def ask(message: str, hours: float = 1) -> dict:
    return chat_answer(
        query=ChatQuery(
            message=message,
            filters=Filters(start_time=T0.timestamp(), end_time=(T0 + timedelta(hours=hours)).timestamp(), end_inclusive=False),
            zone=OSLO,
        )
    )


QUESTIONS = [
    "Summarise what I did",
    "When did I see the weather forecast for Oslo?",
    "Where did I see the passport reminder?",
    "How much was the amount due on the invoice?",
    "Which pages did I read in the browser?",
    "What sites did I visit?",
    "Which apps did I use?",
    "我今天看了哪些网页？",
    "我用了哪些应用？",
    "pandas groupby",
]


def test_every_claim_cites_frames_that_show_it_and_no_frame_or_quote_comes_twice(session):
    for question in QUESTIONS:
        check = answer_check(ask(question)["answer_md"], session, zone=OSLO)

        assert len(check.claims) >= 5, question
        assert [(claim.text, claim.problems) for claim in check.unsupported] == [], question
        assert check.repeated_frames == [] and check.repeated_quotes == [], question


def test_the_checker_finds_claims_their_frames_do_not_show_and_repeats(session):
    by_app = {}
    for frame in session.values():
        by_app.setdefault(frame.app_name, []).append(frame.frame_id)
    xterm, firefox, notes = by_app["XTerm"][0], by_app["Firefox"][0], by_app["Mousepad"][0]
    answer = "\n".join([
        f"Most time went to **XTerm** (about 14 min) [10:12](myrecall://frame/{firefox}).",
        f"- **10:19–10:29 · Mousepad**: *todo.txt*: “Remember to renew the passport before June” [10:00](myrecall://frame/{xterm})",
        f"- 10:19 · Mousepad, *todo.txt*: “Remember to renew the passport before June” [10:19](myrecall://frame/{notes})",
        f"- **Mousepad** [10:19](myrecall://frame/{notes}) [10:00](myrecall://frame/{xterm})",
    ])

    check = answer_check(answer, session, zone=OSLO)

    assert len(check.claims) == 4 and [claim.supported for claim in check.claims] == [False, False, True, False]
    assert "but frame" in check.claims[0].problems[0] and any("quotes" in p for p in check.claims[1].problems)
    assert check.repeated_frames == [xterm, notes] and check.repeated_quotes == ["Remember to renew the passport before June"]


def test_a_frame_found_by_several_words_is_listed_once_with_the_words_it_holds(session):
    answer = ask("When did I see the weather forecast for Oslo?")["answer_md"]

    section = answer[answer.index("**Where “weather”, “forecast” and “Oslo” appear**") : answer.index("Most time went to")]
    found = [line for line in section.splitlines() if line.startswith("- ")]
    cited = [int(i) for line in found for i in CITE.findall(line)]
    assert len(cited) == len(set(cited)) == 4
    assert all(session[i].browser_url.startswith("https://www.yr.no/") for i in cited)
    assert "(holds forecast, Oslo, weather)" in found[0] and "“Weather forecast for Oslo”" in found[0]


def test_a_line_on_many_frames_is_quoted_once(session):
    answer = ask("Where did I see the passport reminder?")["answer_md"]

    assert answer.count("Remember to renew the passport before June") == 1
    assert "**Where “passport” appears** (28 frames; the 4 best matches)" in answer


@pytest.mark.parametrize("question", ["Which pages did I read in the browser?", "我今天看了哪些网页？"])
def test_which_pages_were_read_is_answered_from_every_frame_s_address_and_title(session, question):
    payload = ask(question)

    answer = payload["answer_md"]
    assert "appears**" not in answer  # no search for the word "pages"
    section = answer[answer.index("**Pages visited** (5 web pages") : answer.index("**Activity**")]
    pages = [line for line in section.splitlines() if line.startswith("- ")]
    assert pages[0].startswith(
        "- *pandas.DataFrame.groupby — pandas documentation* `pandas.pydata.org/docs/reference/api/pandas.DataFrame.group…`"
        " · Firefox · about 10 min, 10:37–10:46"
    )
    assert "*Oslo – weather forecast – yr* `yr.no/en/forecast/daily-table/1-72837/Norway/Oslo/Oslo/Oslo`" in section
    # A page of one minute that the summary's sample never read.
    hacker_news = next(line for line in pages if "news.ycombinator.com/item" in line)
    assert "*Ask HN: How do you keep notes? \\| Hacker News*" in hacker_news and "about 1 min, 10:21 [" in hacker_news
    assert session[int(CITE.search(hacker_news).group(1))].browser_url == "https://news.ycombinator.com/item?id=4242"
    assert payload["dropped"] == [] and {int(i) for i in CITE.findall(answer)} == {e["frame_id"] for e in payload["evidence"]}


@pytest.mark.parametrize("question", ["Which apps did I use?", "我用了哪些应用？"])
def test_which_apps_were_used_is_answered_from_the_frames_apps(session, question):
    answer = ask(question)["answer_md"]

    section = answer[answer.index("**Apps used** (4 apps") : answer.index("**Activity**")]
    apps = [line for line in section.splitlines() if line.startswith("- ")]
    assert [line.split("**")[1] for line in apps] == ["Firefox", "XTerm", "Mousepad", "Slack"]
    assert apps[0].startswith("- **Firefox** · about 26 min, 10:12–10:52, 5 windows [")
    assert all(session[int(CITE.search(line).group(1))].app_name == line.split("**")[1] for line in apps)


def test_a_window_whose_frames_are_cited_elsewhere_is_not_named_before_another_s_citation(frame_make):
    # Every frame fits the sample; the passport's two frames are cited where the word appears.
    notes = {}
    for step, (window, lines) in enumerate([("todo.txt", "Remember to renew the passport"), ("todo.txt", "Remember to renew the passport"),
                                            ("letter.txt", "Dear Ingrid, thank you for the flowers"), ("letter.txt", "Dear Ingrid, thank you for the lovely flowers")]):
        at = T0 + timedelta(seconds=60 * step)
        frame_id = frame_make(lines, at=at.timestamp(), app_name="Mousepad", window_name=window)
        notes[frame_id] = FrameFacts(frame_id, at, "Mousepad", window, "", lines)

    answer = ask("Where did I see the passport reminder?", hours=0.1)["answer_md"]

    check = answer_check(answer, notes, zone=OSLO)
    assert [(claim.text, claim.problems) for claim in check.unsupported] == []
    line = next(line for line in answer.splitlines() if line.startswith("- **10:00"))
    assert "*todo.txt*" not in line and line.endswith("; and 1 more window")


def test_the_window_title_as_ocr_read_it_is_not_quoted_as_content():
    from chat.sampling import line_is_chrome

    title = "Python 教程 - 知乎 — Mozilla Firefox"
    assert line_is_chrome("Firefox - Python 教程- 知乎— Mozilla Firefox", chrome=set(), window_name=title)
    oslo = "Oslo – weather forecast – yr — Mozilla Firefox"
    assert line_is_chrome("Firefox - Oslo - weather forecast - yr — Mozilla Firefox", chrome=set(), window_name=oslo)
    assert not line_is_chrome("第一步：安装 pandas", chrome=set(), window_name=title)
