"""Pi's RPC output, parsed in one place: each stdout line becomes one typed event.

Pi writes one JSON object per line (LF framing; U+2028 may appear raw inside strings, so lines
are never split with str.splitlines()). Replies to commands are `response` objects that echo
the request's id; everything else is an event of the agent's run. An event type this module
does not know is logged once and passed on as `PiEvent`, never dropped and never fatal; a
line that is not a JSON object is logged and skipped.

Every event keeps what Pi wrote (`raw`). `wire()` is what the bridge passes on to clients:
Pi's own object, except that a `message_update` loses the partial message Pi repeats in every
update (twice), which would make a streamed answer's traffic grow with its square."""

import json
import logging
from dataclasses import dataclass, field

logger = logging.getLogger(__name__)

_unknown_seen: set[str] = set()


def _text(content) -> str:
    """The text parts of a message's content, joined."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(part.get("text", "") for part in content if isinstance(part, dict) and part.get("type") == "text")


@dataclass(frozen=True, kw_only=True)
class PiEvent:
    type: str
    raw: dict = field(repr=False)

    def wire(self) -> dict:
        return self.raw


@dataclass(frozen=True, kw_only=True)
class Response(PiEvent):
    """A command's reply. `id` is None when Pi could not read the command's id (malformed
    line, unknown command)."""

    id: str | None
    command: str | None
    success: bool
    data: object = None
    error: str = ""


@dataclass(frozen=True, kw_only=True)
class AgentStart(PiEvent):
    pass


@dataclass(frozen=True, kw_only=True)
class AgentEnd(PiEvent):
    """The end of one run of the agent loop. When its last assistant message stopped with an
    error and auto-retry is on, a retry follows (auto_retry_start ...), so it is not final."""

    stop_reason: str  # of the last assistant message: stop, toolUse, aborted, error ("" when none)
    error: str
    text: str  # the last assistant message's text


@dataclass(frozen=True, kw_only=True)
class TurnStart(PiEvent):
    pass


@dataclass(frozen=True, kw_only=True)
class TurnEnd(PiEvent):
    stop_reason: str
    error: str


@dataclass(frozen=True, kw_only=True)
class MessageStart(PiEvent):
    role: str


@dataclass(frozen=True, kw_only=True)
class MessageEnd(PiEvent):
    role: str  # user, assistant, toolResult
    stop_reason: str
    error: str
    text: str


@dataclass(frozen=True, kw_only=True)
class MessageDelta(PiEvent):
    """A `message_update`: `kind` is text_delta, toolcall_delta, thinking_delta, text_start, ..."""

    kind: str
    delta: str

    def wire(self) -> dict:
        update = self.raw.get("assistantMessageEvent") or {}
        return {
            "type": self.type,
            "assistantMessageEvent": {key: value for key, value in update.items() if key not in ("partial", "message")},
        }


@dataclass(frozen=True, kw_only=True)
class ToolStart(PiEvent):
    call_id: str
    tool: str
    args: dict


@dataclass(frozen=True, kw_only=True)
class ToolUpdate(PiEvent):
    call_id: str
    tool: str
    text: str  # the output so far


@dataclass(frozen=True, kw_only=True)
class ToolEnd(PiEvent):
    call_id: str
    tool: str
    text: str
    is_error: bool


@dataclass(frozen=True, kw_only=True)
class AutoRetryStart(PiEvent):
    attempt: int
    max_attempts: int
    delay_ms: int
    error: str


@dataclass(frozen=True, kw_only=True)
class AutoRetryEnd(PiEvent):
    success: bool
    attempt: int
    error: str


def _last_assistant(messages) -> dict:
    for message in reversed(messages if isinstance(messages, list) else []):
        if isinstance(message, dict) and message.get("role") == "assistant":
            return message
    return {}


def _event(obj: dict) -> PiEvent:
    kind = obj.get("type")
    common = {"type": kind, "raw": obj}
    if kind == "response":
        return Response(
            **common,
            id=obj.get("id") if isinstance(obj.get("id"), str) else None,
            command=obj.get("command"),
            success=bool(obj.get("success")),
            data=obj.get("data"),
            error=str(obj.get("error") or ""),
        )
    if kind == "message_update":
        update = obj.get("assistantMessageEvent") or {}
        return MessageDelta(**common, kind=str(update.get("type", "")), delta=str(update.get("delta") or ""))
    if kind in ("message_start", "message_end", "turn_end"):
        message = obj.get("message") or {}
        if kind == "message_start":
            return MessageStart(**common, role=str(message.get("role", "")))
        stop, error = str(message.get("stopReason") or ""), str(message.get("errorMessage") or "")
        if kind == "turn_end":
            return TurnEnd(**common, stop_reason=stop, error=error)
        return MessageEnd(**common, role=str(message.get("role", "")), stop_reason=stop, error=error, text=_text(message.get("content")))
    if kind == "agent_start":
        return AgentStart(**common)
    if kind == "agent_end":
        last = _last_assistant(obj.get("messages"))
        return AgentEnd(
            **common,
            stop_reason=str(last.get("stopReason") or ""),
            error=str(last.get("errorMessage") or ""),
            text=_text(last.get("content")),
        )
    if kind == "turn_start":
        return TurnStart(**common)
    if kind in ("tool_execution_start", "tool_execution_update", "tool_execution_end"):
        ids = {"call_id": str(obj.get("toolCallId") or ""), "tool": str(obj.get("toolName") or "")}
        if kind == "tool_execution_start":
            args = obj.get("args")
            return ToolStart(**common, **ids, args=args if isinstance(args, dict) else {})
        if kind == "tool_execution_update":
            return ToolUpdate(**common, **ids, text=_text((obj.get("partialResult") or {}).get("content")))
        return ToolEnd(**common, **ids, text=_text((obj.get("result") or {}).get("content")), is_error=bool(obj.get("isError")))
    if kind == "auto_retry_start":
        return AutoRetryStart(
            **common,
            attempt=int(obj.get("attempt") or 0),
            max_attempts=int(obj.get("maxAttempts") or 0),
            delay_ms=int(obj.get("delayMs") or 0),
            error=str(obj.get("errorMessage") or ""),
        )
    if kind == "auto_retry_end":
        return AutoRetryEnd(
            **common, success=bool(obj.get("success")), attempt=int(obj.get("attempt") or 0), error=str(obj.get("finalError") or "")
        )
    if kind not in _unknown_seen:
        _unknown_seen.add(str(kind))
        logger.info("Pi sent an event of a type the bridge does not know (%r); passing it on", kind)
    return PiEvent(**common)


def event_parse(line: str | bytes) -> PiEvent | None:
    """One line of Pi's stdout as an event; None (logged) when it is not a JSON object."""
    if isinstance(line, bytes):
        line = line.decode("utf-8", errors="replace")
    line = line.rstrip("\n").rstrip("\r")
    if not line.strip():
        return None
    try:
        obj = json.loads(line)
    except ValueError:
        logger.warning("Pi wrote a line that is not JSON: %.200s", line)
        return None
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        logger.warning("Pi wrote JSON that is not an event: %.200s", line)
        return None
    try:
        return _event(obj)
    except (TypeError, ValueError, AttributeError):
        logger.warning("Pi wrote an event of an unexpected shape: %.200s", line, exc_info=True)
        return PiEvent(type=obj["type"], raw=obj)
