from django.http import HttpRequest
from ninja import Router

from agent_bridge import selectors, services
from agent_bridge.schemas import TurnOut
from myrecall.inputs import NoQuery
from myrecall.schemas import responses

router = Router(tags=["chat"])


@router.get("/chat/turns/{turn_id}", response=responses({200: TurnOut}, 404))
def chat_turn(request: HttpRequest, turn_id: int, query: NoQuery):
    """An agent turn as it runs or as it ended: pending, running, done, failed, cancelled or
    timed_out; when Pi last sent an event; and the audit log of its tool calls (the command, the
    start of the result, the frames it returned)."""
    return selectors.agent_turn_detail(turn_id=turn_id)


@router.post("/chat/turns/{turn_id}/abort", response=responses({200: TurnOut}, 403, 404))
def chat_turn_abort(request: HttpRequest, turn_id: int, query: NoQuery):
    """Stop a running agent turn (Pi's abort). The turn ends as cancelled and the agent stays
    ready for the next question; a turn that already ended is left as it is."""
    services.agent_abort(turn_id=turn_id)
    return selectors.agent_turn_detail(turn_id=turn_id)
