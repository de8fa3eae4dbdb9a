from django.http import HttpRequest
from ninja import Router

from chat import selectors, services
from chat.modes import ChatFailed
from chat.schemas import ChatIn, ChatOut, SessionDetailOut, SessionOut, SessionsIn
from myrecall.errors import ApplicationError
from myrecall.inputs import NoQuery, StrictQuery
from myrecall.schemas import responses
from myrecall.sse import sse_response, wants_event_stream
from myrecall.timezones import request_timezone

router = Router(tags=["chat"])


@router.post("/chat", response=responses({200: ChatOut}, 404, 409, 502, 503))
def chat(request: HttpRequest, payload: ChatIn, params: NoQuery):
    """Summarise a time range with evidence: every claim cites frames that exist, lie in the range
    and were read for the answer; the rest are dropped and listed. With `Accept: text/event-stream`
    the answer streams as server-sent events: `start`, `delta` ({text}) as it is written, then
    `final` (this response's body) or `error` ({message})."""
    query = selectors.chat_query(payload=payload, zone=request_timezone(request), origin=request.build_absolute_uri("/"))
    if wants_event_stream(request):
        return sse_response(request, services.chat_answer_stream(query=query))
    try:
        return services.chat_answer(query=query)
    except ChatFailed as exc:
        raise ApplicationError(
            exc.message, extra={"session_id": exc.session_id, "message_id": exc.message_id}, status_code=exc.status_code
        ) from exc


@router.get("/chat/sessions", response=responses({200: list[SessionOut]}))
def chat_sessions(request: HttpRequest, params: StrictQuery[SessionsIn]):
    """Stored chats, most recently used first."""
    return selectors.chat_sessions_list(limit=params.limit)


@router.get("/chat/sessions/{session_id}", response=responses({200: SessionDetailOut}, 404))
def chat_session(request: HttpRequest, session_id: int, query: NoQuery):
    """One chat with its messages, each answer with its evidence and what was dropped."""
    return selectors.chat_session_detail(session_id=session_id)
