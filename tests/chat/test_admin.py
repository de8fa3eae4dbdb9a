from datetime import datetime
from datetime import timezone as dt_timezone
from zoneinfo import ZoneInfo

import pytest
from django.urls import reverse

from chat.models import ChatMessage, ChatMode, ChatRole, ChatSession, ChatStatus, Citation, DroppedReason
from frames.models import Frame

pytestmark = pytest.mark.django_db

AT = datetime(2026, 11, 22, 14, 5, tzinfo=dt_timezone.utc)
MISSING_FRAME_ID = 987654


@pytest.fixture
def chat():
    frame = Frame.objects.create(
        timestamp=AT, app_name="Editor", image_path="frames/x.webp", width=800, height=600, image_bytes=1
    )
    session = ChatSession.objects.create(title="afternoon", timezone="Europe/Berlin")
    ChatMessage.objects.create(session=session, role=ChatRole.USER, content="summarise what I did")
    answer = ChatMessage.objects.create(
        session=session,
        role=ChatRole.ASSISTANT,
        content="You edited **quarterly-report.md** [15:05](myrecall://frame/%d)." % frame.id,
        mode=ChatMode.SUMMARY,
        start_time=datetime(2026, 11, 22, 13, 0, tzinfo=dt_timezone.utc),
        end_time=datetime(2026, 11, 22, 16, 0, tzinfo=dt_timezone.utc),
        timezone="Europe/Berlin",
        status=ChatStatus.DONE,
        model_name="offline",
        retrieval_ms=12,
        total_ms=40,
    )
    Citation.objects.create(
        message=answer, frame=frame, frame_id_cited=frame.id, timestamp=AT, snippet="quarterly-report.md", valid=True
    )
    Citation.objects.create(
        message=answer, frame=None, frame_id_cited=MISSING_FRAME_ID, valid=False, dropped_reason=DroppedReason.NOT_FOUND
    )
    return {"session": session, "answer": answer, "frame": frame}


def test_session_pages_show_the_conversation(admin_client, chat):
    listing = admin_client.get(reverse("admin:chat_chatsession_changelist"))
    assert listing.status_code == 200 and "afternoon" in listing.text
    page = admin_client.get(reverse("admin:chat_chatsession_change", args=[chat["session"].id]))
    assert page.status_code == 200
    assert "summarise what I did" in page.text and "quarterly-report.md" in page.text


def test_message_page_shows_each_cited_frame_and_why_one_was_dropped(admin_client, chat):
    page = admin_client.get(reverse("admin:chat_chatmessage_change", args=[chat["answer"].id]))
    assert page.status_code == 200
    frame_id = chat["frame"].id
    assert f'<img src="{reverse("frame-thumb", args=[frame_id])}"' in page.text
    assert f'href="{reverse("frame-view", args=[frame_id])}"' in page.text
    assert "not found" in page.text and str(MISSING_FRAME_ID) in page.text
    assert reverse("frame-thumb", args=[MISSING_FRAME_ID]) not in page.text


def test_citation_list_shows_thumbnails_validity_and_dropped_reasons(admin_client, chat):
    listing = admin_client.get(reverse("admin:chat_citation_changelist"))
    assert listing.status_code == 200
    assert reverse("frame-thumb", args=[chat["frame"].id]) in listing.text
    assert "not found" in listing.text
    dropped = Citation.objects.get(frame_id_cited=MISSING_FRAME_ID)
    page = admin_client.get(reverse("admin:chat_citation_change", args=[dropped.id]))
    assert page.status_code == 200 and "not found" in page.text
    only_dropped = admin_client.get(reverse("admin:chat_citation_changelist"), {"valid__exact": "0"})
    assert reverse("frame-thumb", args=[chat["frame"].id]) not in only_dropped.text


def test_messages_filter_by_mode_and_status_and_search_content(admin_client, chat):
    ChatMessage.objects.create(
        session=chat["session"], role=ChatRole.ASSISTANT, content="agent reply about spreadsheets",
        mode=ChatMode.AGENT, status=ChatStatus.FAILED, error="timeout",
    )
    url = reverse("admin:chat_chatmessage_changelist")
    agent = admin_client.get(url, {"mode__exact": "agent"})
    assert agent.status_code == 200 and "1 chat message" in agent.text
    failed = admin_client.get(url, {"status__exact": "failed", "mode__exact": "summary"})
    assert "0 chat messages" in failed.text
    found = admin_client.get(url, {"q": "spreadsheets"})
    assert "1 chat message" in found.text
    since = admin_client.get(url, {"created_at__gte": "2000-01-01 00:00:00+00:00"})
    assert since.status_code == 200 and "3 chat messages" in since.text


def test_records_cannot_be_added_or_edited(admin_client, chat):
    assert admin_client.get(reverse("admin:chat_chatmessage_add")).status_code == 403
    url = reverse("admin:chat_chatmessage_change", args=[chat["answer"].id])
    admin_client.post(url, {"content": "rewritten"})
    chat["answer"].refresh_from_db()
    assert chat["answer"].content.startswith("You edited")


def test_admin_shows_a_real_answer_with_what_it_dropped_and_why(admin_client, fake_llm, frame_make):
    from datetime import timedelta

    from chat.modes import ChatQuery
    from chat.services import chat_answer
    from search.filters import Filters

    kept = frame_make("Budget 2027 draft", at=AT.timestamp(), app_name="Sheets")
    fake_llm.answer = f"You edited the budget [15:05](myrecall://frame/{kept}) and [15:06](myrecall://frame/{MISSING_FRAME_ID})."
    payload = chat_answer(
        query=ChatQuery(
            message="what did I do",
            filters=Filters(start_time=AT.timestamp(), end_time=(AT + timedelta(hours=1)).timestamp()),
            zone=ZoneInfo("Europe/Berlin"),
        )
    )

    page = admin_client.get(reverse("admin:chat_chatmessage_change", args=[payload["message_id"]])).content.decode()
    assert "not found" in page and str(MISSING_FRAME_ID) in page
    assert f"/frames/{kept}/thumb" in page and "Budget 2027 draft" in page
    # What the model wrote, including the dropped link, stays inspectable.
    assert f"myrecall://frame/{MISSING_FRAME_ID}" in page
    session_page = admin_client.get(reverse("admin:chat_chatsession_change", args=[payload["session_id"]]))
    assert session_page.status_code == 200 and "what did I do" in session_page.content.decode()
