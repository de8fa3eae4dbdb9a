"""Streaming through the real server (daphne, ASGI): each event leaves as soon as it exists,
and a client that goes away leaves its message stored as failed, not hanging."""

import time

import pytest
import requests

from tests.server import frames_post_session
from tests.server import LiveServer
from tests.chat import fake_llm as fake
from tests.live import sse_events as events



@pytest.fixture(scope="module")
def model():
    server = fake.FakeLlm().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def server(tmp_path_factory, model):
    env = {
        "LLM_BASE_URL": model.base_url,
        "LLM_MODEL": "fake-model",
        "LLM_API_KEY": "test-key",
        "LLM_FIRST_CHUNK_TIMEOUT_S": "20",
    }
    with LiveServer(tmp_path_factory.mktemp("sse") / "data", env=env) as live:
        yield live


@pytest.fixture(scope="module")
def frame(server):
    sent = frames_post_session(server=server, count=1, start=time.time() - 60, step_s=1)
    return sent[0]


def ask(server, frame, **extra):
    body = {"message": "What did I do?", "start_time": frame["timestamp"] - 1, "end_time": time.time() + 1, "timezone": "UTC"}
    return server.session.post(
        f"{server.url}/api/v1/chat",
        json={**body, **extra},
        headers={"Accept": "text/event-stream"},
        stream=True,
        timeout=30,
    )


def test_each_delta_reaches_the_client_before_the_model_writes_the_next(server, model, frame):
    model.behaviour = fake.GATED
    model.pieces = ["You ", "worked ", f"[here](myrecall://frame/{frame['frame_id']})."]
    with ask(server, frame) as response:
        assert response.status_code == 200 and response.headers["Content-Type"].startswith("text/event-stream")
        stream = events(response)
        assert next(stream)[0] == "start"
        received = []
        for name, data in stream:
            if name == "delta":
                received.append(data["text"])
                # The model is held until this piece arrived: a buffered response would never get here.
                if len(received) < len(model.pieces):
                    model.release()
            if name == "final":
                break
        assert received == model.pieces
        assert [item["frame_id"] for item in data["evidence"]] == [frame["frame_id"]]


def test_a_client_that_leaves_mid_answer_leaves_a_failed_message(server, model, frame):
    model.behaviour = fake.GATED
    model.pieces = ["Partial ", "answer."]
    with ask(server, frame) as response:
        stream = events(response)
        start = next(stream)[1]
        assert next(stream)[0] == "delta"
    # Gone: the server notices (daphne reports the disconnect), the next piece finds nobody
    # listening, and the answer is recorded as interrupted.
    time.sleep(2.0)
    model.release()
    deadline = time.time() + 20
    while time.time() < deadline:
        detail = server.session.get(f"{server.url}/api/v1/chat/sessions/{start['session_id']}", timeout=10).json()
        answer = next(m for m in detail["messages"] if m["id"] == start["message_id"])
        if answer["status"] != "streaming":
            break
        time.sleep(0.2)
    assert answer["status"] == "failed" and "interrupted" in answer["error"]
    # The server is still fine.
    assert requests.get(f"{server.url}/login/", timeout=10).status_code == 200
