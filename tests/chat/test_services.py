"""Summary-mode chat end to end below the API: retrieval, the offline summariser, citation
validation and what is stored."""

import json
import re
from html.parser import HTMLParser
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone
from zoneinfo import ZoneInfo

import pytest

from chat.citations import citations_validate
from chat.models import ChatMessage, ChatRole, ChatSession, ChatStatus, Citation, DroppedReason
from chat.modes import ChatQuery
from chat.prompts import context_pack, system_prompt_build
from chat.sampling import sample_retrieve
from chat.services import chat_answer
from frames.models import Frame
from search.filters import Filters

pytestmark = pytest.mark.django_db


class HtmlTags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.seen: set[str] = set()
        self.attributes: set[str] = set()

    def handle_starttag(self, tag, attrs):
        self.seen.add(tag)
        self.attributes |= {name for name, _ in attrs}

BERLIN = ZoneInfo("Europe/Berlin")
# 14:00 Berlin on a winter day is 13:00 UTC.
T0 = datetime(2026, 11, 20, 13, 0, tzinfo=dt_timezone.utc)
CITE = re.compile(r"myrecall://frame/(\d+)")

APPS = [
    ("Code", "report.py — analytics", "", ["def quarterly_totals(rows):", "return sum(r.amount for r in rows)"]),
    ("Firefox", "Pandas groupby — Mozilla Firefox", "https://pandas.pydata.org/docs/groupby", ["Group by: split-apply-combine", "DataFrame.groupby(by=None)"]),
    ("Slack", "#finance — Slack", "", ["Anna: can you send the Q3 numbers?", "me: on it, after lunch"]),
]


def query(start: datetime, end: datetime, message="Summarise what I did", **filters) -> ChatQuery:
    return ChatQuery(
        message=message,
        filters=Filters(start_time=start.timestamp(), end_time=end.timestamp(), **filters),
        zone=BERLIN,
    )


@pytest.fixture
def day(frame_make):
    """Three hours (14:00–17:00 Berlin) at one frame a minute, cycling Code, Firefox and Slack
    every 20 minutes, each screen with a menu bar (chrome) and changing content."""
    ids = []
    for minute in range(180):
        app, window, url, content = APPS[(minute // 20) % 3]
        text = "\n".join(["File Edit View Window Help", *content, f"status line {minute}"])
        ids.append(frame_make(text, at=(T0 + timedelta(minutes=minute)).timestamp(), app_name=app, window_name=window, browser_url=url))
    return ids


def test_offline_summary_of_three_hours_cites_real_frames_on_every_activity_line(day):
    payload = chat_answer(query=query(T0, T0 + timedelta(hours=3)))

    answer = payload["answer_md"]
    assert payload["model"] == "offline" and payload["status"] == "done"
    assert payload["frames_in_range"] == 180 and payload["frames_sampled"] == 72
    activity = [line for line in answer.splitlines() if line.startswith("- ")]
    # Nine 20-minute spans, in order, each with its local times, app and window.
    assert len(activity) == 9
    assert activity[0].startswith("- **14:00–14:20 · Code**: *report.py — analytics*")
    assert "Firefox" in activity[1] and "pandas.pydata.org" in activity[1] and "Slack" in activity[2]
    assert all(CITE.search(line) for line in activity)
    assert "quarterly\\_totals" in answer or "quarterly_totals" in answer
    # Window chrome is never quoted as what the person did.
    assert "File Edit View" not in answer
    # Every cited id is a sampled frame of the range, listed once in the evidence in time order.
    cited = {int(i) for i in CITE.findall(answer)}
    evidence_ids = [item["frame_id"] for item in payload["evidence"]]
    assert cited == set(evidence_ids) and evidence_ids == sorted(evidence_ids)
    assert cited <= set(day)
    first = payload["evidence"][0]
    assert first["local_time"] == "2026-11-20T14:00:00+01:00" and first["app_name"] == "Code"
    assert first["frame_url"] == f"/api/v1/frames/{first['frame_id']}"
    assert first["viewer_url"].startswith(f"/frames/{first['frame_id']}/view?hl=")
    assert "File Edit View" not in first["ocr_snippet"] and "quarterly_totals" in first["ocr_snippet"]
    assert payload["dropped"] == []


def test_offline_summary_overview_gives_time_per_app(day):
    answer = chat_answer(query=query(T0, T0 + timedelta(hours=3)))["answer_md"]

    overview = next(line for line in answer.splitlines() if line.startswith("Most time went to"))
    assert "**Code** (about 1 h)" in overview and "**Firefox** (about 1 h)" in overview
    assert "180 screenshots were captured; this summary reads 72 of them" in answer


def test_the_answer_and_its_citations_are_stored(day):
    payload = chat_answer(query=query(T0, T0 + timedelta(hours=1)))

    reply = ChatMessage.objects.get(id=payload["message_id"])
    assert reply.role == ChatRole.ASSISTANT and reply.status == ChatStatus.DONE
    assert reply.content == payload["answer_md"] and reply.model_name == "offline"
    assert reply.timezone == "Europe/Berlin" and reply.start_time == T0
    assert reply.total_ms is not None and reply.retrieval_ms is not None
    question = reply.session.messages.get(role=ChatRole.USER)
    assert question.content == "Summarise what I did"
    citations = Citation.objects.filter(message=reply)
    assert {c.frame_id_cited for c in citations} == {e["frame_id"] for e in payload["evidence"]}
    assert all(c.valid and c.frame_id == c.frame_id_cited and c.snippet for c in citations)
    assert reply.session.title == "Summarise what I did"


def test_a_follow_up_continues_the_session(day):
    first = chat_answer(query=query(T0, T0 + timedelta(hours=1)))
    follow = ChatQuery(
        message="And the next hour?",
        filters=Filters(start_time=(T0 + timedelta(hours=1)).timestamp(), end_time=(T0 + timedelta(hours=2)).timestamp()),
        zone=BERLIN,
        session_id=first["session_id"],
    )
    second = chat_answer(query=follow)
    assert second["session_id"] == first["session_id"]
    assert ChatMessage.objects.filter(session_id=first["session_id"]).count() == 4


def test_an_empty_range_says_plainly_that_nothing_was_captured(day):
    start = T0 + timedelta(hours=5)
    payload = chat_answer(query=query(start, start + timedelta(hours=1)))

    assert payload["evidence"] == [] and payload["frames_in_range"] == 0
    assert payload["answer_md"] == (
        "Nothing was captured between Fri 20 Nov 19:00 and Fri 20 Nov 20:00 (Europe/Berlin), so there is nothing to summarise."
    )


def test_filters_narrow_the_summary_to_one_app(day):
    payload = chat_answer(query=query(T0, T0 + timedelta(hours=3), app_name="slack"))
    assert {item["app_name"] for item in payload["evidence"]} == {"Slack"}
    assert payload["frames_in_range"] == 60


def test_validation_keeps_real_frames_and_drops_the_rest_with_a_reason(day, frame_make):
    outside = frame_make("yesterday", at=(T0 - timedelta(days=1)).timestamp())
    in_range_not_given = day[10]
    given = {day[0], day[1]}
    text = (
        f"You wrote code [14:00](myrecall://frame/{day[0]}) and [09:99](myrecall://frame/{day[1]}), "
        f"read docs [14:10](myrecall://frame/{in_range_not_given}), "
        f"planned [yesterday](myrecall://frame/{outside}) and met [12:00](myrecall://frame/999999). "
        f"Also myrecall://frame/{day[0]} again."
    )

    result = citations_validate(
        answer_md=text, context_ids=given, start_time=T0, end_time=T0 + timedelta(hours=3), zone=BERLIN
    )

    reasons = {c.frame_id: (c.valid, c.reason) for c in result.citations}
    assert reasons == {
        day[0]: (True, ""),
        day[1]: (True, ""),
        in_range_not_given: (False, DroppedReason.NOT_IN_CONTEXT),
        outside: (False, DroppedReason.OUTSIDE_RANGE),
        999999: (False, DroppedReason.NOT_FOUND),
    }
    # Dropped links are gone from the text; a wrong clock label is corrected to the frame's time.
    assert result.answer_md == (
        f"You wrote code [14:00](myrecall://frame/{day[0]}) and [14:01](myrecall://frame/{day[1]}), "
        f"read docs, planned and met. Also [14:00](myrecall://frame/{day[0]}) again."
    )
    assert result.valid_ids == [day[0], day[1]]


@pytest.mark.parametrize(
    "written",
    [
        '[09:59](myrecall://frame/{id} "release notes")',
        "[the release notes of the previous sprint, open in a second window next to the editor, for reference](myrecall://frame/{id})",
        "[the release notes [draft]](myrecall://frame/{id})",
        "see frame: andseemyrecall://frame/{id}",
        "(localhost/myrecall://frame/{id})",
        "[09:59](MYRECALL://frame/{id})",
        "<myrecall://frame/{id}>",
        '<a href="myrecall://frame/{id}">09:59</a>',
        "[09:59](<myrecall://frame/{id}>)",
    ],
)
def test_every_way_of_writing_a_citation_is_checked_and_a_claim_resting_on_dropped_ones_goes(day, frame_make, written):
    outside = frame_make("yesterday", at=(T0 - timedelta(days=1)).timestamp())
    text = (
        f"You wrote code [14:00](myrecall://frame/{day[0]}).\n\n"
        f"- You edited the report [14:00](myrecall://frame/{day[0]})\n"
        f"- Before that you read the release notes {written.format(id=outside)}\n"
        f"Then you read the notes {written.format(id=outside)}. And then you chatted [14:01](myrecall://frame/{day[1]})."
    )

    result = citations_validate(
        answer_md=text, context_ids={day[0], day[1]}, start_time=T0, end_time=T0 + timedelta(hours=1), zone=BERLIN
    )

    assert [(c.frame_id, c.reason) for c in result.citations if not c.valid] == [(outside, DroppedReason.OUTSIDE_RANGE)]
    assert str(outside) not in result.answer_md and "release notes" not in result.answer_md
    assert "Then you read the notes" not in result.answer_md
    assert result.answer_md == (
        f"You wrote code [14:00](myrecall://frame/{day[0]}).\n\n"
        f"- You edited the report [14:00](myrecall://frame/{day[0]})\n"
        f"And then you chatted [14:01](myrecall://frame/{day[1]})."
    )


def test_validation_reads_viewer_and_api_links_as_citations_too(day):
    text = f"Edited [the report](/frames/{day[0]}/view) and [x](/api/v1/frames/{day[2]})."
    result = citations_validate(answer_md=text, context_ids={day[0]}, start_time=T0, end_time=T0 + timedelta(hours=1), zone=BERLIN)
    assert result.answer_md == f"Edited [the report](myrecall://frame/{day[0]}) and."
    assert [c.reason for c in result.citations if not c.valid] == [DroppedReason.NOT_IN_CONTEXT]


def test_context_and_prompt_carry_the_frames_times_and_rules(day):
    sample = sample_retrieve(filters=Filters(start_time=T0.timestamp(), end_time=(T0 + timedelta(minutes=3)).timestamp()))
    packed = context_pack(frames=sample.frames, zone=BERLIN, frames_in_range=sample.frames_in_range)
    assert packed.splitlines()[0] == "All 3 frames captured in the range, oldest first."
    assert f"frame {day[0]} | 14:00:00 | app: Code | window: report.py — analytics | focused" in packed
    # The menu bar is left out: the snippet's 160 characters are for what the screen shows.
    assert "  text: def quarterly_totals(rows): return sum(r.amount for r in rows) status line 0" in packed

    prompt = system_prompt_build(now=T0 + timedelta(hours=4), zone=BERLIN, start_time=T0, end_time=T0 + timedelta(hours=3))
    assert "Current time: 2026-11-20T18:00:00+01:00 (Europe/Berlin, UTC+01:00)" in prompt
    assert "2026-11-20 14:00 to 2026-11-20 17:00 (Europe/Berlin)" in prompt
    assert "[HH:MM](myrecall://frame/ID)" in prompt and "Never invent" in prompt


def test_html_in_screen_text_is_escaped_in_the_rendered_answer(frame_make):
    frame_make('<img src=x onerror="alert(1)"> <script>alert(2)</script>', at=T0.timestamp(), window_name="<b>evil</b>")
    payload = chat_answer(query=query(T0, T0 + timedelta(minutes=5)))
    html = payload["answer_html"]
    tags = HtmlTags()
    tags.feed(html)
    assert tags.seen <= {"p", "strong", "em", "ul", "li", "a"}
    assert all(not name.startswith("on") for name in tags.attributes)
    assert "&lt;b&gt;evil&lt;/b&gt;" in html and "&lt;script&gt;alert(2)&lt;/script&gt;" in html


def test_deleted_frames_never_come_back_as_evidence(day):
    payload = chat_answer(query=query(T0, T0 + timedelta(minutes=10)))
    Frame.objects.filter(id=payload["evidence"][0]["frame_id"]).delete()
    from chat.selectors import chat_session_detail

    detail = chat_session_detail(session_id=payload["session_id"])
    shown = [item["frame_id"] for item in detail["messages"][1]["evidence"]]
    assert payload["evidence"][0]["frame_id"] not in shown and len(shown) == len(payload["evidence"]) - 1


def test_question_terms_keep_what_to_look_for_and_drop_how_to_answer():
    from chat.offline import question_terms

    assert question_terms("Summarise what I did today 14:00-17:00") == []
    assert question_terms("When did I read about groupby in pandas?") == ["groupby", "pandas"]
    assert question_terms("总结一下我今天 14:00-17:00 做了什么") == []
    assert question_terms("我什么时候看了“季度报告”?") == ["季度报告"]
    assert question_terms("飞书周报里写了哪些项目进度？") == ["飞书周报", "项目进度"]
    assert question_terms("我上午在知乎上看了什么关于 DeepSeek 的内容？") == ["DeepSeek", "知乎"]
    assert question_terms("What did I do in these three hours?") == []


def test_offline_answers_where_the_question_s_words_appear_and_says_when_they_do_not(day):
    payload = chat_answer(query=query(T0, T0 + timedelta(hours=3), message="When did I read about groupby or flights?"))
    nothing = chat_answer(query=query(T0, T0 + timedelta(hours=3), message="When did I book flights?"))
    assert "“book”, “flights” appear on no screen captured in this range." in nothing["answer_md"]

    answer = payload["answer_md"]
    section = answer[answer.index("**Where “groupby” appears**") : answer.index("Most time went to")]
    assert "(60 frames; the 4 best matches)" in section
    # The four frames show the same line of the same page: one line, quoted once, citing each.
    found = [line for line in section.splitlines() if line.startswith("- ")]
    assert len(found) == 1 and "Firefox" in found[0] and "“DataFrame.groupby\\(by=None\\)”" in found[0]
    assert len(CITE.findall(found[0])) == 4
    # A word found nowhere is not mentioned when another word was found: it would be noise.
    assert "flights" not in answer
    # Those frames back the answer even when sampling did not pick them, and their snippet is the matching line.
    cited = {int(i) for i in CITE.findall(section)}
    evidence = {item["frame_id"]: item for item in payload["evidence"]}
    assert cited <= set(evidence) and payload["dropped"] == []
    assert all(evidence[i]["ocr_snippet"] == "DataFrame.groupby(by=None)" for i in cited)


def test_quick_back_and_forth_between_apps_becomes_one_line_and_long_work_keeps_its_own(frame_make):
    # 09:00–10:00 UTC: one hour in the editor, then an hour switching between Meet and Notion every 5 minutes.
    start = datetime(2026, 11, 20, 9, 0, tzinfo=dt_timezone.utc)
    for minute in range(0, 120):
        if minute < 60:
            app, window = "Code", "budget.py"
        else:
            app, window = ("Meet", "Sprint planning") if (minute // 5) % 2 == 0 else ("Notion", "Sprint notes")
        frame_make(f"{app} content line {minute}", at=(start + timedelta(minutes=minute)).timestamp(), app_name=app, window_name=window)

    answer = chat_answer(query=query(start, start + timedelta(hours=2)))["answer_md"]

    activity = [line for line in answer.splitlines() if line.startswith("- ")]
    assert len(activity) <= 12
    assert activity[0].startswith("- **10:00–11:00 · Code**")
    assert any("Meet, Notion" in line or "Notion, Meet" in line for line in activity)
    assert all(CITE.search(line) for line in activity)


def test_a_frame_reference_shown_on_screen_is_quoted_as_text_not_cited(frame_make):
    for minute in range(3):
        frame_make(
            f"Chat with Anna\nsee [14:00](myrecall://frame/99999) for the budget {minute}",
            at=(T0 + timedelta(minutes=minute)).timestamp(),
            app_name="Slack",
            window_name="#finance",
        )

    payload = chat_answer(query=query(T0, T0 + timedelta(minutes=5), message="where did I see myrecall://frame/99999?"))

    assert payload["dropped"] == [] and payload["evidence"]
    assert "myrecall\\://frame/99999" in payload["answer_md"]
    assert "myrecall://frame/99999" in payload["answer_html"] and 'data-frame-id="99999"' not in payload["answer_html"]


@pytest.mark.django_db(transaction=True)
def test_an_answer_stored_before_its_sources_were_kept_is_erased_when_a_frame_of_its_range_is_deleted(frame_make):
    from frames.services import frames_delete

    gone = frame_make("Zahnarztpraxis Weber invoice", at=T0.timestamp())
    frame_make("oat milk and apples", at=(T0 + timedelta(hours=2)).timestamp())
    session = ChatSession.objects.create(title="t", timezone="UTC")
    legacy = {"session": session, "role": ChatRole.ASSISTANT, "status": ChatStatus.DONE, "sources_known": False}
    quoting = ChatMessage.objects.create(
        content="You paid the Zahnarztpraxis Weber invoice.", start_time=T0 - timedelta(hours=1), end_time=T0 + timedelta(hours=1), **legacy
    )
    elsewhere = ChatMessage.objects.create(
        content="You bought oat milk.", start_time=T0 + timedelta(hours=1), end_time=T0 + timedelta(hours=3), **legacy
    )

    job = frames_delete(start=T0 - timedelta(minutes=1), end=T0 + timedelta(minutes=1))

    assert job.removed["answers_erased"] == 1
    quoting.refresh_from_db()
    elsewhere.refresh_from_db()
    assert quoting.content.startswith("*This answer was erased: it drew on 1 screen deleted on") and quoting.erased_at
    assert list(quoting.sources.values_list("frame_id", flat=True)) == [gone]
    assert elsewhere.content == "You bought oat milk." and elsewhere.erased_at is None


@pytest.mark.django_db(transaction=True)
def test_an_answer_whose_frames_are_deleted_while_it_is_written_is_stored_erased(frame_make, settings):
    from chat.services import summary_answer_stream
    from frames.services import frames_delete

    settings.LLM_BASE_URL = ""
    ids = [frame_make(f"Zahnarztpraxis Weber invoice {i}", at=(T0 + timedelta(minutes=i)).timestamp(), app_name="Firefox") for i in range(2)]
    events = summary_answer_stream(query(T0 - timedelta(hours=1), T0 + timedelta(hours=1), message="What did I do?"))
    assert next(events)[0] == "start"
    frames_delete(start=T0 - timedelta(hours=1), end=T0 + timedelta(hours=1))  # the answer has its frames, not yet its text
    *deltas, (kind, final) = list(events)
    assert "Zahnarztpraxis" in "".join(delta["text"] for _, delta in deltas)  # streamed as it was written
    assert kind == "final" and final["answer_md"].startswith("*This answer was erased: it drew on 2 screens deleted on")
    assert final["evidence"] == []
    stored = ChatMessage.objects.get(id=final["message_id"])
    assert stored.content == final["answer_md"] and stored.raw_content == "" and stored.erased_at
    assert Citation.objects.filter(message=stored, frame_id_cited__in=ids).exists()
    assert not Citation.objects.filter(message=stored).exclude(snippet="").exists()


@pytest.mark.django_db(transaction=True)
def test_an_answer_shown_an_earlier_answer_that_read_a_deleted_frame_is_erased_with_it(frame_make, fake_llm):
    from frames.services import frames_delete

    gone = frame_make("Zahnarztpraxis Weber invoice", at=T0.timestamp(), app_name="Firefox")
    kept = frame_make("oat milk and apples", at=(T0 + timedelta(hours=2)).timestamp())

    def ask(start, answer, session_id=None):
        fake_llm.answer = answer
        return chat_answer(query=ChatQuery(
            message="What did I do?", zone=BERLIN, session_id=session_id,
            filters=Filters(start_time=start.timestamp(), end_time=(start + timedelta(hours=2)).timestamp(), end_inclusive=False),
        ))

    first = ask(T0 - timedelta(hours=1), f"You paid the Weber invoice [14:00](myrecall://frame/{gone}).")
    shown = ask(T0 + timedelta(hours=1), f"After the Weber invoice, oat milk [16:00](myrecall://frame/{kept}).", first["session_id"])
    assert "Weber invoice" in json.dumps(fake_llm.requests[-1]["messages"][:-1])  # the earlier turn went to the model
    other = ask(T0 + timedelta(hours=1), f"Oat milk [16:00](myrecall://frame/{kept}).")

    job = frames_delete(start=T0 - timedelta(minutes=1), end=T0 + timedelta(minutes=1))

    assert job.removed["answers_erased"] == 2
    for answer in (first, shown):
        assert ChatMessage.objects.get(id=answer["message_id"]).content.startswith("*This answer was erased: it drew on 1 screen")
    assert ChatMessage.objects.get(id=other["message_id"]).content == other["answer_md"] and "Oat milk" in other["answer_md"]
