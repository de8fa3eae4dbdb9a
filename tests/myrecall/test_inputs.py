"""Bad input changes nothing: every write route (frames, privacy, chat, delete, abort) refuses a
body or query that is not what its schema says, with a 4xx in the one error shape, and what is
stored stays exactly as it was."""

import io
import json
import time

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model

from agent_bridge.models import AgentTurn, TurnStatus
from chat.models import ChatMessage, ChatRole, ChatSession
from frames.models import Frame, FrameDeletion
from frames.selectors import privacy_rules
from myrecall.asgi import application
from tests.conftest import post_frame, render_text_image

pytestmark = pytest.mark.django_db

RULES = {
    "excluded_apps": ["1Password"],
    "excluded_windows": ["*Private Browsing*"],
    "excluded_urls": ["bank.example"],
    "redact_secrets": True,
    "capture_paused": False,
}


@pytest.fixture
def stored(api, frame_make):
    """A memory with rules, frames and an ended agent turn, and a snapshot of all of it."""
    assert api.put("/api/v1/privacy", RULES, content_type="application/json").status_code == 200
    now = time.time()
    frames = [frame_make(f"screen {i}", at=now - 600 + i) for i in range(3)]
    session = ChatSession.objects.create(title="q")
    reply = ChatMessage.objects.create(session=session, role=ChatRole.ASSISTANT, content="done")
    turn = AgentTurn.objects.create(message=reply, status=TurnStatus.DONE)

    def snapshot():
        return {
            "rules": privacy_rules().to_json(),
            "frames": sorted(Frame.objects.values_list("id", "timestamp", "app_name")),
            "deletions": FrameDeletion.objects.count(),
            "messages": sorted(ChatMessage.objects.values_list("id", "content", "status")),
            "turn": AgentTurn.objects.values_list("status", "finished_at").get(id=turn.id),
        }

    return {"frames": frames, "turn": turn.id, "now": now, "snapshot": snapshot, "before": snapshot()}


def assert_refused(response, *words):
    assert 400 <= response.status_code < 500, response.content
    body = response.json()
    assert set(body) == {"message", "extra"}, body
    for word in words:
        assert word in body["message"], body["message"]


PRIVACY_BODIES = [
    ([None, None], "must be a JSON object"),
    ([RULES], "must be a JSON object"),
    ("excluded", "must be a JSON object"),
    (42, "must be a JSON object"),
    (None, ""),
    ({}, "excluded_apps"),
    ({**RULES, "excluded_apps": None}, "excluded_apps"),
    ({**RULES, "excluded_apps": "1Password"}, "excluded_apps"),
    ({**RULES, "excluded_apps": [1, 2]}, "excluded_apps"),
    ({**RULES, "redact_secrets": 0}, "redact_secrets"),
    ({**RULES, "capture_paused": "false"}, "capture_paused"),
    ({**RULES, "exclude_apps": ["typo"]}, "exclude_apps"),
    ({k: v for k, v in RULES.items() if k != "excluded_urls"}, "excluded_urls"),
    ({**RULES, "excluded_urls": ["x" * 301]}, "excluded_urls"),
    ({**RULES, "excluded_windows": ["ok", "no\x00null"]}, "excluded_windows: must not contain the NUL character"),
]


@pytest.mark.parametrize(("body", "word"), PRIVACY_BODIES)
def test_a_malformed_privacy_put_changes_no_rule(api, stored, body, word):
    response = api.put("/api/v1/privacy", json.dumps(body), content_type="application/json")
    assert_refused(response, word)
    assert stored["snapshot"]() == stored["before"]


def test_a_privacy_put_that_is_not_json_changes_no_rule(api, stored):
    assert_refused(api.put("/api/v1/privacy", "excluded_apps=", content_type="application/json"))
    assert stored["snapshot"]() == stored["before"]


@pytest.mark.parametrize(
    ("fields", "word"),
    [
        ({"timestamp": "soon"}, "timestamp"),
        ({"focused": "yes"}, "focused"),
        ({"focused": "1"}, "focused"),
        ({"app": "Firefox"}, "app"),  # not a field of this form
        ({"app_name": "x" * 513}, "app_name"),
        ({"device_name": ["a", "b"]}, "device_name"),  # given twice
        ({"window_name": "notes\x00.md"}, "window_name: must not contain the NUL character"),  # PostgreSQL stores no NUL
    ],
)
def test_a_malformed_upload_stores_nothing(api, stored, data_dir, fields, word):
    images_before = sorted(p for p in data_dir.rglob("*") if p.is_file())
    response = post_frame(api, render_text_image(["refused upload"]), **fields)
    assert_refused(response, word)
    assert stored["snapshot"]() == stored["before"]
    assert sorted(p for p in data_dir.rglob("*") if p.is_file()) == images_before


def test_an_upload_without_an_image_stores_nothing(api, stored):
    assert_refused(api.post("/api/v1/frames", {"timestamp": time.time()}), "image")
    assert_refused(api.post("/api/v1/frames", {"image": io.BytesIO(b"not an image"), "timestamp": time.time()}), "PNG")
    assert stored["snapshot"]() == stored["before"]


@pytest.mark.parametrize(
    "params",
    [
        {"start_time": 0, "end_time": 4e9, "app": "Editor"},  # a misspelt app_name must not widen the range to every app
        {"start_time": "yesterday", "end_time": 4e9},
        {"start_time": -1, "end_time": 4e9},
        {"end_time": 4e9},
        {"start_time": 0, "end_time": 1e300},
        {"start_time": [0, 1], "end_time": 4e9},
    ],
)
def test_a_malformed_range_delete_deletes_nothing(api, stored, params):
    query = "&".join(f"{k}={v}" for k, values in params.items() for v in (values if isinstance(values, list) else [values]))
    assert_refused(api.delete(f"/api/v1/frames?{query}"))
    assert stored["snapshot"]() == stored["before"]


def test_a_range_that_ends_before_it_starts_deletes_nothing(api, stored):
    response = api.delete(f"/api/v1/frames?start_time={stored['now']}&end_time={stored['now'] - 3600}")
    assert response.status_code == 200 and response.json()["removed"] == {}
    after = stored["snapshot"]()
    assert after["frames"] == stored["before"]["frames"] and after["rules"] == stored["before"]["rules"]


@pytest.mark.parametrize(
    ("body", "word"),
    [
        ([None, None], "must be a JSON object"),
        ("summarise", "must be a JSON object"),
        ({"message": "hi"}, "start_time is required"),
        ({"message": "hi", "start_time": "1700000000"}, "start_time"),
        ({"message": 5, "start_time": 0}, "message"),
        ({"message": "hi", "start_time": 0, "focused": "true"}, "focused"),
        ({"message": "hi", "start_time": 0, "session": 1}, "session"),
        ({"message": "hi", "start_time": 0, "session_id": 1.5}, "session_id"),
        ({"message": "hi", "start_time": 0, "mode": "agent"}, "mode"),  # no model configured here
        ({"message": "hi", "start_time": 0, "timezone": "Europe/Nowhere"}, "timezone"),
        ({"message": "what\x00 did I do", "start_time": 0}, "message: must not contain the NUL character"),
    ],
)
def test_a_malformed_chat_question_stores_nothing(api, stored, body, word):
    response = api.post("/api/v1/chat", json.dumps(body), content_type="application/json")
    assert_refused(response, word)
    assert stored["snapshot"]() == stored["before"]


@pytest.mark.parametrize("path", ["abc", "1.5", "-1", "99999"])
def test_an_abort_of_no_such_turn_changes_nothing(api, stored, path):
    assert_refused(api.post(f"/api/v1/chat/turns/{path}/abort"))
    assert stored["snapshot"]() == stored["before"]


def test_an_abort_of_an_ended_turn_leaves_it_as_it_ended(api, stored):
    response = api.post(f"/api/v1/chat/turns/{stored['turn']}/abort")
    assert response.status_code == 200 and response.json()["status"] == "done"
    assert stored["snapshot"]() == stored["before"]


@pytest.mark.django_db(transaction=True)
def test_a_malformed_agent_question_on_the_chat_socket_is_refused_and_stores_nothing(client, settings):
    """The chat page's agent socket reads its messages by the same schema as the API."""
    settings.LLM_BASE_URL, settings.LLM_MODEL = "http://127.0.0.1:9/v1", "m"  # agent mode offered
    user = get_user_model().objects.create_superuser("admin", password="a long enough password")
    client.force_login(user)
    headers = [(b"origin", b"http://127.0.0.1:8000"), (b"host", b"127.0.0.1:8000"),
               (b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())]
    sent = [
        ("[1, 2]", "Unknown action"),
        ('{"action": "ask"}', "message: Field required"),
        ('{"action": "ask", "message": "hi", "start_time": "0"}', "start_time"),
        ('{"action": "ask", "message": "hi", "mode": "summary"}', "mode"),
        ('{"action": "ask", "message": "hi", "colour": "red"}', "colour"),
        ('{"action": "abort", "turn_id": "7"}', "turn_id"),
        ('{"action": "abort", "turn_id": 99999}', "does not exist"),
    ]

    async def scenario():
        ws = WebsocketCommunicator(application, "/ws/chat/agent/", headers=headers)
        connected, _ = await ws.connect()
        assert connected
        answers = []
        for text, _ in sent:
            await ws.send_to(text_data=text)
            answers.append(json.loads(await ws.receive_from(timeout=10)))
        await ws.disconnect()
        return answers

    for (text, word), answer in zip(sent, async_to_sync(scenario)()):
        assert answer["event"] == "error" and word in answer["data"]["message"], (text, answer)
    assert not ChatMessage.objects.exists()


# ---- what a newcomer reads in the answers ----


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/status?x=1",
        "/api/v1/privacy?x=1",
        "/api/v1/chat/sessions/1?x=1",
        "/api/v1/chat/turns/1?x=1",
        "/api/v1/frames/1?x=1",
        "/api/v1/frames/1/metadata?x=1",
    ],
)
def test_an_unknown_query_parameter_is_refused_on_every_route(api, stored, path):
    resp = api.get(path)
    assert resp.status_code == 400, resp.content
    body = resp.json()
    assert body["extra"]["errors"] == [{"field": "x", "error": body["extra"]["errors"][0]["error"]}]
    assert "unknown query parameter" in body["message"]
    # A read changed nothing to begin with: its message does not say so.
    assert body["message"].startswith("Invalid input: ") and "nothing was changed" not in body["message"]


def test_an_unknown_query_parameter_beside_a_write_changes_nothing(api, stored):
    resp = api.put("/api/v1/privacy?dry=1", {**RULES, "capture_paused": True}, content_type="application/json")
    assert_refused(resp, "nothing was changed", "dry")
    assert stored["snapshot"]() == stored["before"]


def test_a_partial_privacy_put_names_every_missing_field_in_its_message(api, stored):
    resp = api.put("/api/v1/privacy", {"excluded_apps": []}, content_type="application/json")
    body = resp.json()
    fields = [error["field"] for error in body["extra"]["errors"]]
    assert len(fields) == 4
    for field in fields:
        assert field in body["message"], (field, body["message"])
    assert ".." not in body["message"]


def test_a_message_ending_in_a_full_stop_gets_no_second_one(api, stored):
    resp = api.post("/api/v1/chat", {"message": "what did I do", "mode": "summary"}, content_type="application/json")
    body = resp.json()
    assert resp.status_code == 400 and "start_time" in body["message"], body
    assert not body["message"].endswith("..")


def test_the_rest_api_takes_times_as_the_mcp_tools_do(api, stored):
    now = stored["now"]
    for start in ("yesterday", "2h ago", "today", str(now - 3600), "2000-01-01T00:00:00Z"):
        resp = api.get("/api/v1/search", {"q": "screen", "start_time": start, "end_time": "now"})
        assert resp.status_code == 200, (start, resp.content)
        assert len(resp.json()["data"]) == 3, start
    # A local time is read in the timezone the request names.
    local = api.get("/api/v1/search", {"q": "screen", "start_time": "2000-01-01T00:00", "timezone": "Asia/Shanghai"})
    assert local.status_code == 200 and len(local.json()["data"]) == 3


def test_a_time_that_is_not_a_time_says_what_the_api_takes(api, stored):
    resp = api.get("/api/v1/search", {"q": "screen", "start_time": "last tuesday"})
    body = resp.json()
    assert resp.status_code == 400
    message = body["message"]
    assert message.startswith("Invalid input: start_time: not a time") and "epoch seconds" in message and "16h ago" in message, message
    assert body["extra"]["errors"][0]["field"] == "start_time"


def test_token_create_says_whether_the_token_is_read_only(db, capsys):
    from django.core.management import call_command

    call_command("token_create", "agent", "--read-only")
    said = capsys.readouterr().err
    assert "read-only" in said and "change nothing" in said
    call_command("token_create", "capture")
    assert "read-only" not in capsys.readouterr().err
