from typing import Literal

from ninja import Schema
from pydantic import Field


class ChatIn(Schema):
    message: str = Field(min_length=1, max_length=4000, description="The question, e.g. 'Summarise what I did'.")
    session_id: int | None = Field(None, description="Continue this chat; a new one is started without it.")
    start_time: float | None = Field(None, description="Epoch seconds; required in summary mode.")
    end_time: float | None = Field(None, description="Epoch seconds; default now.")
    timezone: str | None = Field(None, description="IANA name the range was picked in; default the tz cookie, else UTC.")
    mode: Literal["summary", "agent"] = "summary"
    app_name: str | None = None
    window_name: str | None = Field(None, description="Substring, case-insensitive.")
    browser_url: str | None = Field(None, description="Substring, case-insensitive.")
    focused: bool | None = None


class TimeRangeOut(Schema):
    start_time: float
    end_time: float
    timezone: str


class EvidenceOut(Schema):
    frame_id: int
    timestamp: float
    local_time: str
    app_name: str
    window_name: str
    focused: bool | None
    browser_url: str
    ocr_snippet: str
    frame_url: str
    viewer_url: str
    thumb_url: str


class DroppedOut(Schema):
    frame_id: int
    reason: str


class TimingsOut(Schema):
    retrieval_ms: int | None = None
    llm_ms: int | None = None
    total_ms: int


class ChatOut(Schema):
    session_id: int
    message_id: int
    status: str
    model: str
    answer_md: str
    answer_html: str
    time_range: TimeRangeOut | None = Field(description="The range asked about; none for an agent question without one.")
    evidence: list[EvidenceOut]
    dropped: list[DroppedOut]
    frames_in_range: int | None = Field(None, description="Summary mode: frames captured in the range.")
    frames_sampled: int | None = Field(None, description="Summary mode: frames the model was given.")
    turn_id: int | None = Field(None, description="Agent mode: the turn, with its tool calls at /api/v1/chat/turns/{id}.")
    tool_calls: int | None = Field(None, description="Agent mode: tool calls the agent made.")
    timings: TimingsOut


class SessionOut(Schema):
    id: int
    title: str
    timezone: str
    created_at: float
    updated_at: float


class MessageOut(Schema):
    id: int
    role: str
    status: str
    mode: str
    model: str
    content_md: str
    content_html: str
    error: str
    time_range: TimeRangeOut | None
    created_at: float
    evidence: list[EvidenceOut]
    dropped: list[DroppedOut]
    evidence_deleted: int = Field(
        0, description="Frames the answer cited that were deleted since: their evidence and snippets are gone."
    )


class SessionDetailOut(SessionOut):
    messages: list[MessageOut]
