from django.http import HttpRequest
from ninja import Router

from chat import selectors, services
from chat.modes import ChatFailed, ChatQuery, answer_mode_get
from chat.schemas import ChatIn, ChatOut, SessionDetailOut, SessionOut
from myrecall.errors import ApplicationError
from myrecall.schemas import ErrorOut
from myrecall.sse import sse_response, wants_event_stream
from myrecall.timezones import request_timezone, timezone_parse
from search.filters import filters_parse

router = Router(tags=["chat"])

MAX_RANGE_S = 31 * 24 * 3600


def _query(request: HttpRequest, payload: ChatIn) -> ChatQuery:
    mode = answer_mode_get(payload.mode)
    if mode is None:
        raise ApplicationError(f"mode={payload.mode} is not available in this installation; use mode=summary.", extra={"field": "mode"})
    if not payload.message.strip():
        raise ApplicationError("message is empty.", extra={"field": "message"})
    if payload.start_time is None and mode.needs_range:
        raise ApplicationError(
            "start_time is required: a summary covers a bounded time range (epoch seconds).", extra={"field": "start_time"}
        )
    filters = None
    if payload.start_time is not None:
        filters = filters_parse(
            start_time=payload.start_time,
            end_time=payload.end_time,
            app_name=payload.app_name,
            window_name=payload.window_name,
            browser_url=payload.browser_url,
            focused=payload.focused,
            allow_empty=False,
            end_inclusive=False,
        )
        if filters.end_time - filters.start_time > MAX_RANGE_S:
            raise ApplicationError("The range is longer than 31 days; pick a shorter one.", extra={"max_seconds": MAX_RANGE_S})
    if payload.timezone:
        zone = timezone_parse(payload.timezone)
        if zone is None:
            raise ApplicationError(f"Unknown timezone {payload.timezone!r}; use an IANA name.", extra={"field": "timezone"})
    else:
        zone = request_timezone(request)
    if payload.session_id is not None:
        selectors.chat_session_get(session_id=payload.session_id)
    return ChatQuery(
        message=payload.message.strip(), filters=filters, zone=zone, session_id=payload.session_id, mode=mode.name,
        origin=request.build_absolute_uri("/"),
    )


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
    except ChatFailed as exc:
        raise ApplicationError(
            exc.message, extra={"session_id": exc.session_id, "message_id": exc.message_id}, status_code=exc.status_code
        ) from exc


@router.get("/chat/sessions", response={200: list[SessionOut], 401: ErrorOut})
def chat_sessions(request: HttpRequest, limit: int = 50):
    """Stored chats, most recently used first."""
    return selectors.chat_sessions_list(limit=max(1, min(limit, 200)))


@router.get("/chat/sessions/{session_id}", response={200: SessionDetailOut, 401: ErrorOut, 404: ErrorOut})
def chat_session(request: HttpRequest, session_id: int):
    """One chat with its messages, each answer with its evidence and what was dropped."""
    return selectors.chat_session_detail(session_id=session_id)
