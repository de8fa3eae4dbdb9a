"""Reads of stored chats, shaped like the chat API's answers."""

from urllib.parse import quote
from zoneinfo import ZoneInfo

from chat.models import ChatMessage, ChatSession
from chat.rendering import answer_html
from chat.sampling import SampledFrame
from myrecall.errors import NotFound
from myrecall.timezones import timezone_parse


def viewer_url(frame_id: int, snippet: str) -> str:
    return f"/frames/{frame_id}/view" + (f"?hl={quote(snippet)}" if snippet else "")


def evidence_item(frame: SampledFrame, zone: ZoneInfo) -> dict:
    """An evidence item of seed 002 section 3.1, plus links to the viewer and the thumbnail."""
    return {
        "frame_id": frame.frame_id,
        "timestamp": frame.timestamp.timestamp(),
        "local_time": frame.timestamp.astimezone(zone).isoformat(timespec="seconds"),
        "app_name": frame.app_name,
        "window_name": frame.window_name,
        "focused": frame.focused,
        "browser_url": frame.browser_url,
        "ocr_snippet": frame.ocr_snippet,
        "frame_url": f"/api/v1/frames/{frame.frame_id}",
        "viewer_url": viewer_url(frame.frame_id, frame.ocr_snippet),
        "thumb_url": f"/frames/{frame.frame_id}/thumb",
    }


def chat_session_get(*, session_id: int) -> ChatSession:
    try:
        return ChatSession.objects.get(id=session_id)
    except ChatSession.DoesNotExist as exc:
        raise NotFound(f"Chat session {session_id} does not exist.", extra={"session_id": session_id}) from exc


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
        evidence.append(
            evidence_item(
                SampledFrame(
                    frame_id=frame.id,
                    timestamp=frame.timestamp,
                    app_name=frame.app_name,
                    window_name=frame.window_name,
                    browser_url=frame.browser_url,
                    focused=frame.focused,
                    ocr_snippet=citation.snippet,
                ),
                zone,
            )
        )
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
    }


def chat_session_detail(*, session_id: int) -> dict:
    session = chat_session_get(session_id=session_id)
    messages = session.messages.prefetch_related("citations__frame")
    return {**_session(session), "messages": [message_shape(message) for message in messages]}
