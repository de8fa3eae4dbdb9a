"""Agent mode's checks and records, in process (the live tests run the real Pi)."""

import pytest

from agent_bridge.models import AgentToolCall, AgentTurn
from agent_bridge.services import _frame_ids, agent_token_issue, agent_token_revoke, agent_unready_reason
from chat.models import ChatMessage, ChatRole, ChatSession
from myrecall.models import ApiToken


def test_a_missing_pi_is_a_clear_400_before_anything_is_stored(api, settings):
    settings.LLM_BASE_URL, settings.LLM_MODEL = "http://127.0.0.1:9/v1", "m"
    settings.AGENT_PI_BINARY = "/nonexistent/pi"
    assert "Pi agent" in agent_unready_reason()
    response = api.post("/api/v1/chat", {"message": "hi", "mode": "agent"}, content_type="application/json")
    assert response.status_code == 400 and "setup command" in response.json()["message"]
    assert not ChatMessage.objects.exists() and not AgentTurn.objects.exists()


def test_the_agents_token_is_read_only_and_replaced_not_piled_up(db):
    first = agent_token_issue()
    second = agent_token_issue()
    assert first != second
    tokens = ApiToken.objects.filter(name__startswith="agent (web process")
    assert tokens.count() == 1 and tokens.get().read_only
    agent_token_revoke()
    assert not tokens.exists()


@pytest.mark.parametrize(
    ("result", "ids"),
    [
        ('{"data": [{"content": {"frame_id": 12}}, {"content": {"frame_id": 7}}]}', [12, 7]),
        ('{"frame": {"frame_id": 3}, "before": [{"frame_id": 2}], "after": []}', [3, 2]),
        ("see myrecall://frame/44 and myrecall://frame/44", [44]),
        ("frame 99 is interesting; id 5", []),  # numbers in prose are not returned frames
    ],
)
def test_frame_ids_a_tool_result_returned(result, ids):
    assert _frame_ids(result) == ids


def test_a_turn_and_its_tool_calls_are_readable_and_in_the_admin(api, admin_client, db):
    session = ChatSession.objects.create(title="t", timezone="UTC")
    reply = ChatMessage.objects.create(session=session, role=ChatRole.ASSISTANT, mode="agent", timezone="UTC")
    turn = AgentTurn.objects.create(message=reply, status="done", tool_calls=1)
    from django.utils import timezone

    AgentToolCall.objects.create(turn=turn, call_id="c1", tool="bash", command="curl -s x", result="{}", frame_ids=[1], started_at=timezone.now())
    body = api.get(f"/api/v1/chat/turns/{turn.id}").json()
    assert body["status"] == "done" and body["calls"][0]["command"] == "curl -s x" and body["calls"][0]["frame_ids"] == [1]
    assert api.get("/api/v1/chat/turns/999999").status_code == 404
    assert admin_client.get(f"/admin/agent_bridge/agentturn/{turn.id}/change/").status_code == 200
    # Aborting a turn that ended leaves it as it was.
    assert api.post(f"/api/v1/chat/turns/{turn.id}/abort").json()["status"] == "done"
