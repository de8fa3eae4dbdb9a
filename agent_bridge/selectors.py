"""Reads of agent turns, shaped for the API and the admin."""

from agent_bridge.models import AgentTurn
from myrecall.errors import NotFound


def _epoch(moment) -> float | None:
    return moment.timestamp() if moment else None


def agent_turn_detail(*, turn_id: int) -> dict:
    """One turn: its state, when Pi last said anything, and every tool call it made."""
    turn = AgentTurn.objects.select_related("message").filter(pk=turn_id).first()
    if turn is None:
        raise NotFound(f"Agent turn {turn_id} does not exist.", extra={"turn_id": turn_id})
    return {
        "id": turn.id,
        "status": turn.status,
        "session_id": turn.message.session_id,
        "message_id": turn.message_id,
        "created_at": turn.created_at.timestamp(),
        "started_at": _epoch(turn.started_at),
        "last_event_at": _epoch(turn.last_event_at),
        "finished_at": _epoch(turn.finished_at),
        "events": turn.events,
        "tool_calls": turn.tool_calls,
        "error": turn.error,
        "pi_pid": turn.pi_pid,
        "calls": [
            {
                "call_id": call.call_id,
                "tool": call.tool,
                "command": call.command,
                "result": call.result,
                "result_chars": call.result_chars,
                "is_error": call.is_error,
                "frame_ids": call.frame_ids,
                "started_at": call.started_at.timestamp(),
                "finished_at": _epoch(call.finished_at),
            }
            for call in turn.calls.all()
        ],
    }
