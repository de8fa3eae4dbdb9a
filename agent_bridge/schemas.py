from typing import Literal

from ninja import Schema

from chat.schemas import ChatIn
from myrecall.inputs import BodySchema


class AskIn(ChatIn):
    """A question sent over the chat page's agent socket: the API's question, with its action."""

    action: Literal["ask"]
    mode: Literal["agent"] = "agent"


class AbortIn(BodySchema):
    action: Literal["abort"]
    turn_id: int


class ToolCallOut(Schema):
    call_id: str
    tool: str
    command: str
    result: str
    result_chars: int
    is_error: bool
    frame_ids: list[int]
    started_at: float
    finished_at: float | None


class TurnOut(Schema):
    id: int
    status: str
    session_id: int
    message_id: int
    created_at: float
    started_at: float | None
    last_event_at: float | None
    finished_at: float | None
    events: int
    tool_calls: int
    error: str
    pi_pid: int | None
    calls: list[ToolCallOut]
