"""Agent mode's checks and records, in process (the live tests run the real Pi)."""

from datetime import timedelta

import pytest

from agent_bridge.models import AgentToolCall, AgentTurn
from agent_bridge.services import ERASED_CALL, _frame_ids, agent_token_issue, agent_token_revoke, agent_unready_reason
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


@pytest.mark.django_db(transaction=True)
def test_deleting_a_frame_an_older_agent_answers_search_returned_erases_it_its_calls_and_pis_conversation_files(frame_make, settings, tmp_path):
    from django.utils import timezone

    from frames.services import frames_delete

    settings.DATA_DIR = tmp_path
    at = timezone.now() - timedelta(days=1)
    gone = frame_make("Zahnarztpraxis Weber invoice", at=at.timestamp())
    kept = frame_make("oat milk and apples", at=(at + timedelta(hours=1)).timestamp())
    session = ChatSession.objects.create(title="t", timezone="UTC")

    def answer(content, frame_id):  # stored before answers kept what they read: found by their searches
        reply = ChatMessage.objects.create(session=session, role=ChatRole.ASSISTANT, mode="agent", content=content, sources_known=False)
        turn = AgentTurn.objects.create(message=reply)
        AgentToolCall.objects.create(
            turn=turn, call_id="c1", tool="bash", command="curl search?q=invoice", result=f"text of frame {frame_id}",
            frame_ids=[frame_id], started_at=timezone.now(),
        )
        return reply

    quoting, whole = answer("You paid the Zahnarztpraxis invoice.", gone), answer("You bought oat milk.", kept)
    conversation = tmp_path / "agent" / "pi-123" / "work" / "2026-11-20T10-00-00-000Z_abc.jsonl"
    conversation.parent.mkdir(parents=True)
    conversation.write_text('{"type":"message","content":"Zahnarztpraxis Weber invoice"}\n')

    job = frames_delete(start=at - timedelta(minutes=1), end=at + timedelta(minutes=1))

    assert job.removed["answers_erased"] == 1 and job.removed["agent_tool_calls"] == 1
    quoting.refresh_from_db()
    assert quoting.content.startswith("*This answer was erased: it drew on 1 screen deleted on") and quoting.erased_at
    call = AgentToolCall.objects.get(turn__message=quoting)
    assert call.result == call.command == ERASED_CALL and call.frame_ids == [gone]
    whole.refresh_from_db()
    assert whole.content == "You bought oat milk." and AgentToolCall.objects.get(turn__message=whole).result == f"text of frame {kept}"
    assert not conversation.exists()


def test_a_question_while_another_server_answers_one_gets_409_before_anything_is_stored(api, settings):
    # Another web process (another machine on the same database) holds the one turn and said so just now.
    from django.utils import timezone

    from agent_bridge.models import AgentSlot

    settings.LLM_BASE_URL, settings.LLM_MODEL = "http://127.0.0.1:9/v1", "m"
    assert agent_unready_reason() is None  # Pi is installed: only the slot stops the question
    AgentSlot.objects.update_or_create(pk=1, defaults={"holder": "other-host:4242:abcd", "heartbeat_at": timezone.now()})
    response = api.post("/api/v1/chat", {"message": "hi", "mode": "agent"}, content_type="application/json")
    assert response.status_code == 409 and "another MyRecall server" in response.json()["message"]
    assert not ChatMessage.objects.exists() and not AgentTurn.objects.exists()
    assert AgentSlot.objects.get(pk=1).holder == "other-host:4242:abcd"


@pytest.mark.django_db(transaction=True)
def test_the_turn_of_a_server_that_went_silent_is_taken_and_given_back():
    from django.utils import timezone

    from agent_bridge import services
    from agent_bridge.models import AgentSlot

    AgentSlot.objects.all().delete()  # a database whose row went missing: made again
    assert services._slot_claim()
    assert AgentSlot.objects.get(pk=1).holder == services._HOLDER
    services._slot_release()
    assert AgentSlot.objects.get(pk=1).holder == ""
    silent = timezone.now() - timedelta(seconds=services.SLOT_STALE_S + 1)
    AgentSlot.objects.filter(pk=1).update(holder="dead-host:1:0000", heartbeat_at=silent)
    assert services._slot_claim()  # its process died mid-turn: the slot is taken over
    AgentSlot.objects.filter(pk=1).update(holder="live-host:1:0000", heartbeat_at=timezone.now())
    assert not services._slot_claim()
