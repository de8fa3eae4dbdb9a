"""Reads of stored chats, shaped like the chat API's answers."""

from zoneinfo import ZoneInfo

from chat.evidence import evidence_item, sampled_frame
from chat.models import AnswerSource, ChatMessage, ChatSession, ChatStatus
from chat.modes import ChatQuery
from chat.rendering import answer_html
from chat.schemas import ChatIn
from myrecall.errors import NotFound
from myrecall.timezones import timezone_parse
from search.filters import filters_parse


def chat_query(*, payload: ChatIn, zone: ZoneInfo, origin: str) -> ChatQuery:
    """A question as checked by ChatIn, made into what an answer mode takes: its range and filters
    (a summary's range excludes its end), its zone (`zone` when it names none), its chat (404
    when there is no such chat). `origin` is the address it came in on."""
    filters = None
    if payload.start_time is not None:
        filters = filters_parse(
            start_time=payload.start_time,
            end_time=payload.end_time,
            app_name=payload.app_name,
            window_name=payload.window_name,
            browser_url=payload.browser_url,
            focused=payload.focused,
            end_inclusive=False,
        )
    if payload.session_id is not None:
        chat_session_get(session_id=payload.session_id)
    return ChatQuery(
        message=payload.message.strip(), filters=filters, zone=timezone_parse(payload.timezone) or zone,
        session_id=payload.session_id, mode=payload.mode, origin=origin,
    )


def chat_session_get(*, session_id: int) -> ChatSession:
    try:
        return ChatSession.objects.get(id=session_id)
    except ChatSession.DoesNotExist as exc:
        raise NotFound(f"Chat session {session_id} does not exist.", extra={"session_id": session_id}) from exc


def chat_history(*, session: ChatSession, before_id: int, turns: int) -> tuple[list[dict], set[int]]:
    """The last `turns` exchanges of the chat before this message, oldest first, as
    {role, content} (finished messages only), and the frames those answers were given (an answer
    shown them may quote those frames)."""
    rows = list(
        session.messages.filter(id__lt=before_id, status=ChatStatus.DONE)
        .order_by("-created_at", "-id")
        .values("id", "role", "content")[: turns * 2]
    )
    return [{"role": row["role"], "content": row["content"]} for row in reversed(rows)], answer_sources(
        message_ids=[row["id"] for row in rows]
    )


def answer_sources(*, message_ids: list[int]) -> set[int]:
    """The frames these answers were given to read (an erased answer's no longer count: its text is gone)."""
    sources = AnswerSource.objects.filter(message_id__in=message_ids, message__erased_at__isnull=True)
    return set(sources.values_list("frame_id", flat=True))


def chat_sessions_list(*, limit: int = 50) -> list[dict]:
    return [_session(session) for session in ChatSession.objects.all()[:limit]]


def _session(session: ChatSession) -> dict:
    return {
        "id": session.id,
        "title": session.title or f"Chat {session.id}",
        "timezone": session.timezone,
        "created_at": session.created_at.timestamp(),
        "updated_at": session.updated_at.timestamp(),
    }


def message_shape(message: ChatMessage) -> dict:
    """A stored message with its evidence (valid citations whose frame still exists, in time
    order) and its dropped citations."""
    zone = timezone_parse(message.timezone) or ZoneInfo("UTC")
    citations = list(message.citations.all())
    evidence = []
    seen = set()
    for citation in sorted((c for c in citations if c.valid and c.frame is not None), key=lambda c: (c.frame.timestamp, c.frame_id)):
        if citation.frame_id in seen:
            continue
        seen.add(citation.frame_id)
        frame = citation.frame
        evidence.append(evidence_item(sampled_frame(frame, snippet=citation.snippet), zone))
    viewer_urls = {item["frame_id"]: item["viewer_url"] for item in evidence}
    return {
        "id": message.id,
        "role": message.role,
        "status": message.status,
        "mode": message.mode,
        "model": message.model_name,
        "content_md": message.content,
        "content_html": answer_html(answer_md=message.content, viewer_urls=viewer_urls)
        if message.role == "assistant"
        else "",
        "error": message.error,
        "time_range": {
            "start_time": message.start_time.timestamp(),
            "end_time": message.end_time.timestamp(),
            "timezone": message.timezone,
        }
        if message.start_time and message.end_time
        else None,
        "created_at": message.created_at.timestamp(),
        "evidence": evidence,
        "dropped": [{"frame_id": c.frame_id_cited, "reason": c.dropped_reason} for c in citations if not c.valid],
        # Frames it cited that were deleted since (their snippets with them).
        "evidence_deleted": len({c.frame_id_cited for c in citations if c.valid and c.frame_deleted}),
        "erased_at": message.erased_at.timestamp() if message.erased_at else None,
    }


def chat_session_detail(*, session_id: int) -> dict:
    session = chat_session_get(session_id=session_id)
    messages = session.messages.prefetch_related("citations__frame")
    return {**_session(session), "messages": [message_shape(message) for message in messages]}
