import math
import time

from django.http import HttpRequest
from ninja import Router

from chat import selectors, services
from chat.schemas import ChatIn, ChatOut, SessionDetailOut, SessionOut
from myrecall.errors import ApplicationError
from myrecall.schemas import ErrorOut
from myrecall.sse import sse_response, wants_event_stream
from myrecall.timezones import request_timezone, timezone_parse
from search.selectors import SearchFilters

router = Router(tags=["chat"])

MAX_RANGE_S = 31 * 24 * 3600


def _query(request: HttpRequest, payload: ChatIn) -> services.ChatQuery:
    if payload.mode == "agent":
        raise ApplicationError("mode=agent is not available yet; use mode=summary.", extra={"field": "mode"})
    if not payload.message.strip():
        raise ApplicationError("message is empty.", extra={"field": "message"})
    if payload.start_time is None:
        raise ApplicationError(
            "start_time is required: a summary covers a bounded time range (epoch seconds).", extra={"field": "start_time"}
        )
    end_time = payload.end_time if payload.end_time is not None else time.time()
    for name, value in (("start_time", payload.start_time), ("end_time", end_time)):
        if not math.isfinite(value) or value < 0:
            raise ApplicationError(f"{name} must be epoch seconds.", extra={"field": name})
    if end_time <= payload.start_time:
        raise ApplicationError(
            "end_time must be after start_time.", extra={"start_time": payload.start_time, "end_time": end_time}
        )
    if end_time - payload.start_time > MAX_RANGE_S:
        raise ApplicationError("The range is longer than 31 days; pick a shorter one.", extra={"max_seconds": MAX_RANGE_S})
    if payload.timezone:
        zone = timezone_parse(payload.timezone)
        if zone is None:
            raise ApplicationError(f"Unknown timezone {payload.timezone!r}; use an IANA name.", extra={"field": "timezone"})
    else:
        zone = request_timezone(request)
    if payload.session_id is not None:
        selectors.chat_session_get(session_id=payload.session_id)
    filters = SearchFilters(
        start_time=payload.start_time,
        end_time=end_time,
        app_name=payload.app_name or None,
        window_name=payload.window_name or None,
        browser_url=payload.browser_url or None,
        focused=payload.focused,
    )
    return services.ChatQuery(message=payload.message.strip(), filters=filters, zone=zone, session_id=payload.session_id)


@router.post("/chat", response={200: ChatOut, 400: ErrorOut, 401: ErrorOut, 404: ErrorOut, 502: ErrorOut})
def chat(request: HttpRequest, payload: ChatIn):
    """Summarise a time range with evidence: every claim cites frames that exist, lie in the range
    and were read for the answer; the rest are dropped and listed. With `Accept: text/event-stream`
    the answer streams as server-sent events: `start`, `delta` ({text}) as it is written, then
    `final` (this response's body) or `error` ({message})."""
    query = _query(request, payload)
    if wants_event_stream(request):
        return sse_response(request, services.chat_answer_stream(query=query))
    try:
        return services.chat_answer(query=query)
    except services.ChatFailed as exc:
        raise ApplicationError(
            exc.message, extra={"session_id": exc.session_id, "message_id": exc.message_id}, status_code=502
        ) from exc


@router.get("/chat/sessions", response={200: list[SessionOut], 401: ErrorOut})
def chat_sessions(request: HttpRequest, limit: int = 50):
    """Stored chats, most recently used first."""
    return selectors.chat_sessions_list(limit=max(1, min(limit, 200)))


@router.get("/chat/sessions/{session_id}", response={200: SessionDetailOut, 401: ErrorOut, 404: ErrorOut})
def chat_session(request: HttpRequest, session_id: int):
    """One chat with its messages, each answer with its evidence and what was dropped."""
    return selectors.chat_session_detail(session_id=session_id)
