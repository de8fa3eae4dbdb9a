"""How a question is answered: the modes the chat offers, as a registry.

The chat answers in summary mode itself. A later app (agent_bridge) adds a mode from its
AppConfig.ready with `answer_mode_register`, so the chat never imports it. A mode streams the
events of one answer: ("start", {...}), ("delta", {"text"}) and its own kinds of events as
the answer is made, then ("final", payload) or ("error", {message, session_id, message_id})."""

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from search.filters import Filters


@dataclass(frozen=True)
class ChatQuery:
    message: str
    filters: Filters | None  # the range and filters asked about; a mode that searches itself may take none
    zone: ZoneInfo
    session_id: int | None = None
    mode: str = "summary"
    origin: str = ""  # the address the question came in on (http://host:port), for modes that call the API back
    keep: bool = True  # False: the summary mode stores nothing (no chat, no answer), for a caller that may only read


class ChatFailed(Exception):
    """The answer could not be produced; `message` is for the user, the ids say what was stored."""

    def __init__(self, message: str, *, session_id: int, message_id: int, status_code: int = 502):
        super().__init__(message)
        self.message = message
        self.session_id = session_id
        self.message_id = message_id
        self.status_code = status_code


@dataclass(frozen=True)
class AnswerMode:
    name: str
    stream: Callable[[ChatQuery], Iterator[tuple[str, dict]]]
    needs_range: bool  # a summary covers a bounded range; an agent chooses its own
    description: str = ""
    unready_reason: Callable[[], str | None] = lambda: None  # why it cannot answer here, with what to do


answer_modes: dict[str, AnswerMode] = {}


def answer_mode_register(mode: AnswerMode) -> None:
    answer_modes[mode.name] = mode


def answer_mode_get(name: str) -> AnswerMode | None:
    return answer_modes.get(name)


def answer_modes_ready() -> list[str]:
    """The modes that can answer in this installation (as configured now)."""
    return [name for name, mode in answer_modes.items() if not mode.unready_reason()]
