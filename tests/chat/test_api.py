"""POST /api/v1/chat against a local OpenAI-compatible server that speaks the real streaming
protocol: what the model gets, what the user gets, and what is stored when it goes wrong."""

import json
import re
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

import pytest

from chat.models import ChatMessage, ChatRole, ChatStatus, Citation
from tests.chat import fake_llm as fake

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 11, 20, 13, 0, tzinfo=dt_timezone.utc)
CITE = re.compile(r"myrecall://frame/(\d+)")


@pytest.fixture
def hour(frame_make):
    """An hour of frames, one every 30 s (120: more than the 72 the model is given)."""
    return [
        frame_make(f"Quarterly report draft\nparagraph {i}", at=(T0 + timedelta(seconds=30 * i)).timestamp(), app_name="Docs", window_name="Q3 report")
        for i in range(120)
    ]


def ask(api, *, accept="application/json", **body):
    payload = {"message": "What did I do?", "start_time": T0.timestamp(), "end_time": (T0 + timedelta(hours=1)).timestamp(), "timezone": "Europe/Berlin"}
    payload.update(body)
    return api.post("/api/v1/chat", data=json.dumps(payload), content_type="application/json", HTTP_ACCEPT=accept)


def packed_ids(request: dict) -> list[int]:
    return [int(i) for i in re.findall(r"^frame (\d+) \|", request["messages"][-1]["content"], re.M)]


def sse_events(response) -> list[tuple[str, dict]]:
    body = b"".join(response.streaming_content).decode()
    events = []
    for block in body.split("\n\n"):
        lines = [line for line in block.splitlines() if not line.startswith(":")]
        if lines:
            event = next(line[7:] for line in lines if line.startswith("event: "))
            data = json.loads("".join(line[6:] for line in lines if line.startswith("data: ")))
            events.append((event, data))
    return events


def test_the_model_gets_the_packed_range_and_its_valid_citations_reach_the_user(api, fake_llm, hour, frame_make):
    outside = frame_make("the day before", at=(T0 - timedelta(days=1)).timestamp())
    # The fake model cannot see the request before answering, so it cites by position: the
    # sampled frames of [T0, T0+1h) at one frame per 30 s are the first and last of each 5-minute bucket.
    given_first, given_last = hour[0], hour[9]
    not_given = hour[5]
    fake_llm.answer = (
        f"You drafted the Q3 report [14:00](myrecall://frame/{given_first}) [14:04](myrecall://frame/{given_last}). "
        f"You also booked a flight [14:02](myrecall://frame/{not_given}) [09:00](myrecall://frame/{outside}) "
        "[14:30](myrecall://frame/424242)."
    )

    response = ask(api)

    assert response.status_code == 200, response.content
    body = response.json()
    request = fake_llm.requests[0]
    given = packed_ids(request)
    assert len(given) == 24 and given_first in given and given_last in given and not_given not in given
    assert request["stream"] is True and request["model"] == "fake-model"
    assert request["messages"][0]["role"] == "system" and "myrecall://frame/ID" in request["messages"][0]["content"]
    assert request["messages"][-1]["content"].endswith("Question: What did I do?")
    # The claim whose every citation was dropped goes with them.
    assert body["answer_md"] == (
        f"You drafted the Q3 report [14:00](myrecall://frame/{given_first}) [14:04](myrecall://frame/{given_last})."
    )
    assert [item["frame_id"] for item in body["evidence"]] == [given_first, given_last]
    assert {(d["frame_id"], d["reason"]) for d in body["dropped"]} == {
        (not_given, "not in context"),
        (outside, "outside range"),
        (424242, "not found"),
    }
    assert body["model"] == "fake-model" and body["frames_in_range"] == 120 and body["frames_sampled"] == 24
    # Nothing the user sees points at a dropped frame.
    assert set(map(int, CITE.findall(body["answer_md"]))) == {given_first, given_last}
    assert f"/frames/{not_given}/" not in body["answer_html"] and "424242" not in body["answer_html"]
    stored = ChatMessage.objects.get(id=body["message_id"])
    assert stored.status == ChatStatus.DONE and stored.model_name == "fake-model"
    assert "424242" in stored.raw_content and "424242" not in stored.content
    assert Citation.objects.filter(message=stored, valid=False).count() == 3


def test_an_answer_with_no_valid_citation_is_not_shown_as_a_finding(api, fake_llm, hour):
    fake_llm.answer = "You spent the hour planning a holiday in Lisbon [14:10](myrecall://frame/999999)."

    body = ask(api).json()

    # The user is told, and gets what the frames do show instead, verified.
    assert body["answer_md"].startswith("*The model's answer cited none of the 120 frames captured in this range")
    assert "Lisbon" not in body["answer_md"] and "**Docs**" in body["answer_md"]
    assert body["evidence"] and all(item["app_name"] == "Docs" for item in body["evidence"])
    assert {item["frame_id"] for item in body["evidence"]} <= set(hour)
    assert body["dropped"] == [{"frame_id": 999999, "reason": "not found"}]
    assert "Lisbon" in ChatMessage.objects.get(id=body["message_id"]).raw_content


def test_role_only_first_chunk_and_empty_deltas_are_heartbeats_not_text(api, fake_llm, hour):
    fake_llm.behaviour = fake.HEARTBEATS_BEFORE_TEXT
    fake_llm.heartbeats = 4
    fake_llm.chunk_interval_s = 0.5  # 2 s in all, past the 1 s first-chunk timeout: heartbeats keep it alive
    fake_llm.answer = f"You wrote the report [14:00](myrecall://frame/{hour[0]})."

    body = ask(api).json()

    assert body["answer_md"] == f"You wrote the report [14:00](myrecall://frame/{hour[0]})."
    assert len(fake_llm.requests) == 1


@pytest.mark.parametrize(
    ("behaviour", "message_part", "requests"),
    [
        (fake.ERROR_500, "The model returned an error: 500 The server had an error", 2),
        (fake.HANG_BEFORE_FIRST_CHUNK, "did not answer within 1 s", 2),
        (fake.HANG_MID_STREAM, "did not answer within 1 s", 1),
        (fake.ERROR_401, "Incorrect API key provided", 1),
    ],
)
def test_a_failing_model_gives_a_clear_502_and_a_failed_message(api, fake_llm, hour, behaviour, message_part, requests):
    fake_llm.behaviour = behaviour
    fake_llm.hang_s = 5

    response = ask(api)

    assert response.status_code == 502
    body = response.json()
    assert message_part in body["message"]
    assert set(body["extra"]) == {"session_id", "message_id"}
    stored = ChatMessage.objects.get(id=body["extra"]["message_id"])
    assert stored.status == ChatStatus.FAILED and message_part in stored.error
    assert stored.session.messages.filter(role=ChatRole.USER).count() == 1
    assert len(fake_llm.requests) == requests  # retried once only before any chunk arrived


def test_sse_streams_start_deltas_and_a_final_event_with_validated_evidence(api, fake_llm, hour):
    fake_llm.answer = f"You drafted the report [14:00](myrecall://frame/{hour[0]}) and a fake [14:01](myrecall://frame/777777)."

    response = ask(api, accept="text/event-stream")

    assert response.status_code == 200 and response["Content-Type"].startswith("text/event-stream")
    events = sse_events(response)
    names = [name for name, _ in events]
    assert names[0] == "start" and names[-1] == "final" and set(names[1:-1]) == {"delta"}
    assert "".join(data["text"] for name, data in events if name == "delta") == fake_llm.answer
    final = events[-1][1]
    assert final["answer_md"] == f"You drafted the report [14:00](myrecall://frame/{hour[0]}) and a fake."
    assert [item["frame_id"] for item in final["evidence"]] == [hour[0]]
    assert events[0][1]["session_id"] == final["session_id"] and events[0][1]["frames_sampled"] == 24


def test_sse_reports_a_model_failure_as_an_error_event(api, fake_llm, hour):
    fake_llm.behaviour = fake.ERROR_401
    events = sse_events(ask(api, accept="text/event-stream"))
    assert [name for name, _ in events] == ["start", "error"]
    assert "Incorrect API key" in events[-1][1]["message"]
    assert ChatMessage.objects.get(id=events[-1][1]["message_id"]).status == ChatStatus.FAILED


def test_follow_ups_send_the_previous_turns(api, fake_llm, hour):
    fake_llm.answer = f"Report [14:00](myrecall://frame/{hour[0]})."
    first = ask(api).json()
    ask(api, message="And after that?", session_id=first["session_id"])
    roles = [m["role"] for m in fake_llm.requests[1]["messages"]]
    assert roles == ["system", "user", "assistant", "user"]
    assert fake_llm.requests[1]["messages"][1]["content"] == "What did I do?"


@pytest.mark.parametrize(
    ("body", "status", "message_part"),
    [
        ({"start_time": None}, 400, "start_time is required"),
        ({"start_time": -5}, 400, "start_time: Input should be greater than or equal to 0"),
        ({"start_time": "1700000000"}, 400, "start_time: Input should be a valid number"),
        ({"timezone": "Mars/Olympus"}, 400, "unknown timezone 'Mars/Olympus'"),
        ({"mode": "agent"}, 400, "mode=agent is not available here. Agent mode needs a model"),  # no LLM configured here
        ({"mode": "poetry"}, 400, "unknown mode 'poetry'"),
        ({"message": ""}, 400, "Invalid input, nothing was changed: message"),
        ({"message": "   "}, 400, "message: message is empty"),
        ({"message": "x" * 4001}, 400, "Invalid input, nothing was changed: message"),
        ({"focused": 1}, 400, "focused: Input should be a valid boolean"),
        ({"colour": "red"}, 400, "colour: Extra inputs are not permitted"),
        ({"session_id": 99999}, 404, "Chat session 99999 does not exist"),
    ],
)
def test_bad_input_gets_a_clear_4xx_and_stores_nothing(api, body, status, message_part):
    response = ask(api, **body)
    assert response.status_code == status
    assert message_part in response.json()["message"] and set(response.json()) == {"message", "extra"}
    assert ChatMessage.objects.count() == 0


def test_a_body_that_is_not_json_is_a_400(api):
    response = api.post("/api/v1/chat", data="{not json", content_type="application/json")
    assert response.status_code == 400 and set(response.json()) == {"message", "extra"}


def test_chat_needs_authentication(client):
    response = client.post("/api/v1/chat", data="{}", content_type="application/json")
    assert response.status_code == 401


def test_stored_sessions_are_listed_and_read_back_with_their_evidence(api, hour, settings):
    settings.LLM_BASE_URL = ""
    first = ask(api).json()
    sessions = api.get("/api/v1/chat/sessions").json()
    assert [s["id"] for s in sessions] == [first["session_id"]] and sessions[0]["title"] == "What did I do?"
    detail = api.get(f"/api/v1/chat/sessions/{first['session_id']}").json()
    question, answer = detail["messages"]
    assert question["role"] == "user" and question["content_md"] == "What did I do?"
    assert answer["content_md"] == first["answer_md"] and answer["evidence"] == first["evidence"]
    assert answer["content_html"] == first["answer_html"]
    assert api.get("/api/v1/chat/sessions/4242").status_code == 404
