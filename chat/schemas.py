from ninja import Schema
from pydantic import Field, field_validator, model_validator

from chat.modes import answer_mode_get, answer_modes, answer_modes_ready
from myrecall.inputs import EPOCH_MAX, EPOCH_MIN, BodySchema, InputSchema
from myrecall.timezones import zone_names


def _modes_schema(schema: dict) -> None:
    schema["enum"] = answer_modes_ready()


def _range_rule_schema(schema: dict) -> None:
    """Summary (any mode that covers a bounded range) needs start_time: said in the schema too."""
    bounded = [name for name, mode in answer_modes.items() if mode.needs_range]
    schema["if"] = {"anyOf": [{"not": {"required": ["mode"]}}, {"required": ["mode"], "properties": {"mode": {"enum": bounded}}}]}
    schema["then"] = {"required": ["start_time"], "properties": {"start_time": {"type": "number"}}}


class ChatIn(BodySchema):
    model_config = {"json_schema_extra": _range_rule_schema}

    message: str = Field(
        min_length=1, max_length=4000, json_schema_extra={"pattern": r"\S"},
        description="The question, e.g. 'Summarise what I did' (not only spaces).",
    )
    session_id: int | None = Field(None, description="Continue this chat; a new one is started without it.")
    start_time: float | None = Field(
        None, ge=EPOCH_MIN, le=EPOCH_MAX, description="Epoch seconds; required in summary mode."
    )
    end_time: float | None = Field(
        None, ge=EPOCH_MIN, le=EPOCH_MAX,
        description="Epoch seconds, not included; default now. A range that ends where (or before) it starts holds no frames.",
    )
    timezone: str | None = Field(
        None, json_schema_extra=lambda schema: schema["anyOf"][0].update(enum=sorted(zone_names())),
        description="IANA name the range was picked in; default the tz cookie, else UTC.",
    )
    mode: str = Field(
        "summary", json_schema_extra=_modes_schema,
        description="summary (a bounded range, summarised with evidence) or agent (the Pi agent searches for itself; offered when a model is configured).",
    )
    app_name: str | None = Field(None, max_length=512)
    window_name: str | None = Field(None, max_length=1024, description="Substring, case-insensitive.")
    browser_url: str | None = Field(None, max_length=4096, description="Substring, case-insensitive.")
    focused: bool | None = None

    @field_validator("message")
    @classmethod
    def _said(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("message is empty")
        return value

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str | None) -> str | None:
        if value is not None and value not in zone_names():
            raise ValueError(f"unknown timezone {value!r}; use an IANA name such as Europe/Berlin")
        return value

    @field_validator("mode")
    @classmethod
    def _ready_mode(cls, value: str) -> str:
        mode = answer_mode_get(value)
        if mode is None:
            raise ValueError(f"unknown mode {value!r}; use {' or '.join(answer_modes)}")
        reason = mode.unready_reason()
        if reason:
            raise ValueError(f"mode={value} is not available here. {reason}")
        return value

    @model_validator(mode="after")
    def _range_when_needed(self):
        mode = answer_mode_get(self.mode)
        if mode is not None and mode.needs_range and self.start_time is None:
            raise ValueError("start_time is required: a summary covers a bounded time range (epoch seconds)")
        return self


class SessionsIn(InputSchema):
    limit: int = Field(50, ge=1, le=200, description="At most this many chats.")


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
    erased_at: float | None = Field(
        None, description="When the answer's text was erased (epoch seconds): frames it drew on were deleted; content_md says so."
    )


class SessionDetailOut(SessionOut):
    messages: list[MessageOut]
