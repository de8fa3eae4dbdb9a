"""Agent mode end to end: the real `pi` binary run by a real `manage.py serve`, a scripted
OpenAI-compatible model (tests/agent_bridge/fake_model.py) whose tool calls Pi runs with curl
against that same server, through the skill's API and the agent's read-only token."""

import json
import os
import signal
import threading
import time

import pytest

from tests.conftest import render_text_image
from tests.server import frames_post_session, ocr_wait
from tests.server import LiveServer
from tests.agent_bridge.fake_model import FakeAgentModel, Step, bash, frame_ids_in, text, tool_results
from tests.live import login
from tests.live import sse_events as events

AUTH = '-H "Authorization: Bearer $MYRECALL_TOKEN"'
TURN_TIMEOUT_S = 18  # a turn here takes a few seconds; the watchdog test waits this long
START_TIMEOUT_S = 10  # AGENT_TURN_START_TIMEOUT_S (15 by default): Pi's first event comes within a second or two
RETRY_DELAY_S = 0.3  # AGENT_MODEL_RETRY_DELAY_S: Pi waits 0.3, 0.6, 1.2 s before its three retries


@pytest.fixture(scope="module")
def model():
    server = FakeAgentModel().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def server(tmp_path_factory, model):
    env = {
        "LLM_BASE_URL": model.base_url,
        "LLM_MODEL": "fake-agent",
        "LLM_API_KEY": "test-key",
        "AGENT_TURN_TIMEOUT_S": str(TURN_TIMEOUT_S),
        "AGENT_TURN_START_TIMEOUT_S": str(START_TIMEOUT_S),
        "AGENT_MODEL_RETRY_DELAY_S": str(RETRY_DELAY_S),  # Pi's three retries, quickly
    }
    with LiveServer(tmp_path_factory.mktemp("agent") / "data", env=env) as live:
        yield live


@pytest.fixture(scope="module")
def frames(server):
    sent = frames_post_session(server=server, count=4, start=time.time() - 600, step_s=60)
    ocr_wait(server=server, frame_ids=[f["frame_id"] for f in sent], timeout_s=300)
    return [f["frame_id"] for f in sent]


def ask(server, message="What was I working on?", **extra) -> list[tuple[str, dict]]:
    response = server.session.post(
        f"{server.url}/api/v1/chat",
        json={"message": message, "mode": "agent", "timezone": "UTC", **extra},
        headers={"Accept": "text/event-stream"},
        stream=True,
        timeout=120,
    )
    assert response.status_code == 200, response.text
    return list(events(response))


def turn(server, turn_id: int) -> dict:
    return server.session.get(f"{server.url}/api/v1/chat/turns/{turn_id}", timeout=30).json()


def search_step() -> Step:
    return bash(f'curl -s -G "$MYRECALL_URL/api/v1/search" {AUTH} --data-urlencode "q=" --data-urlencode "start_time=0" --data-urlencode "limit=2"')


def test_a_question_runs_searches_streams_live_and_keeps_only_citations_its_searches_returned(server, model, frames):
    def read_first(body):
        found = frame_ids_in(tool_results(body)[-1])
        return bash(f'curl -s "$MYRECALL_URL/api/v1/frames/{found[0]}/ocr" {AUTH}')

    not_returned = min(frames)  # exists, but a browse with limit=2 returns the newest two

    def answer(body):
        found = frame_ids_in(tool_results(body)[1])
        return text(
            f"You were reading a screen [10:00](myrecall://frame/{found[0]}). "
            f"You also saw something else [10:01](myrecall://frame/{not_returned}).\n"
            f"- an invented one [11:00](myrecall://frame/987654321)"
        )

    write_attempt = bash(
        f"curl -s -o /dev/null -w '%{{http_code}}' -X POST \"$MYRECALL_URL/api/v1/chat\" {AUTH} "
        "-H 'Content-Type: application/json' -d '{\"message\": \"x\", \"start_time\": 0}'"
    )
    model.play(write_attempt, search_step(), read_first, answer)
    got = ask(server)
    kinds = [kind for kind, _ in got]
    assert kinds[0] == "start" and kinds[-1] == "final", kinds
    starts = [data for kind, data in got if kind == "tool_execution_start"]
    assert len(starts) == 3 and all("curl" in data["args"]["command"] for data in starts)
    assert any(kind == "message_update" and data["assistantMessageEvent"]["type"] == "text_delta" for kind, data in got)
    assert all("partial" not in data.get("assistantMessageEvent", {}) for kind, data in got)
    final = got[-1][1]
    cited = [item["frame_id"] for item in final["evidence"]]
    assert len(cited) == 1 and cited[0] in frames and cited[0] != not_returned
    dropped = {item["frame_id"]: item["reason"] for item in final["dropped"]}
    assert dropped == {not_returned: "not returned by a search", 987654321: "not found"}
    assert "987654321" not in final["answer_md"] and f"frame/{not_returned}" not in final["answer_md"]
    assert f"myrecall://frame/{cited[0]}" in final["answer_md"] and final["tool_calls"] == 3
    # The turn's state and audit log; the agent's token could not write.
    state = turn(server, final["turn_id"])
    assert state["status"] == "done" and state["tool_calls"] == 3 and state["last_event_at"]
    assert state["calls"][0]["result"].strip() == "403"
    assert state["calls"][1]["frame_ids"] and "api/v1/search" in state["calls"][1]["command"]
    # Stored like any chat answer.
    stored = server.session.get(f"{server.url}/api/v1/chat/sessions/{final['session_id']}", timeout=30).json()
    assert stored["messages"][-1]["mode"] == "agent" and stored["messages"][-1]["evidence"][0]["frame_id"] == cited[0]


def test_an_answer_whose_every_citation_is_dropped_after_a_failed_search_is_never_blank(server, model, frames):
    failing = bash(f'curl -s --fail "$MYRECALL_URL/api/v1/search?start_time=sometime" {AUTH}')
    model.play(failing, text(f"You were editing the budget [10:00](myrecall://frame/{frames[0]})."))
    final = ask(server)[-1]
    assert final[0] == "final", final
    answer = final[1]["answer_md"]
    assert "not shown as a finding" in answer and "1 frame that its searches did not return" in answer
    assert "1 of its searches failed" in answer and "What it wrote, unsupported" in answer and "editing the budget" in answer
    assert "myrecall://frame/" not in answer and final[1]["evidence"] == []
    assert final[1]["dropped"] == [{"frame_id": frames[0], "reason": "not returned by a search"}]
    assert turn(server, final[1]["turn_id"])["calls"][0]["is_error"]
    stored = server.session.get(f"{server.url}/api/v1/chat/sessions/{final[1]['session_id']}", timeout=30).json()
    assert stored["messages"][-1]["content_md"] == answer and "not shown as a finding" in stored["messages"][-1]["content_html"]


def test_the_chat_page_websocket_streams_the_same_turn_and_can_abort(server, model, frames):
    import websocket  # websocket-client

    cookies = "; ".join(f"{k}={v}" for k, v in login(server).cookies.items())
    ws_url = server.url.replace("http://", "ws://") + "/ws/chat/agent/"
    refused = websocket.WebSocket()
    with pytest.raises(websocket.WebSocketException):  # no login: closed at once
        refused.connect(ws_url, origin=server.url, timeout=10)
        refused.recv()
    socket = websocket.create_connection(ws_url, cookie=cookies, origin=server.url, timeout=60)
    try:
        model.play(search_step(), lambda body: text(f"Seen [09:00](myrecall://frame/{frame_ids_in(tool_results(body)[-1])[0]})."))
        socket.send(json.dumps({"action": "ask", "message": "What did I see?", "timezone": "UTC"}))
        got = []
        while not got or got[-1]["event"] not in ("final", "error"):
            got.append(json.loads(socket.recv()))
        kinds = [item["event"] for item in got]
        assert kinds[0] == "start" and "tool_execution_start" in kinds and "tool_execution_end" in kinds, kinds
        final = got[-1]["data"]
        assert got[-1]["event"] == "final" and final["evidence"] and "thumb_url" in final["evidence"][0]
        assert 'href="/frames/' in final["answer_html"]
        # Abort from the page: the turn ends cancelled.
        model.play(text(" ".join(f"word{i}" for i in range(60)), chunk_interval_s=0.3))
        socket.send(json.dumps({"action": "ask", "message": "Slowly"}))
        got = [json.loads(socket.recv())]
        assert got[0]["event"] == "start", got[0]
        turn_id = got[0]["data"]["turn_id"]
        socket.send(json.dumps({"action": "abort", "turn_id": turn_id}))
        while got[-1]["event"] not in ("final", "error"):
            got.append(json.loads(socket.recv()))
        assert got[-1]["event"] == "error" and got[-1]["data"]["status"] == "cancelled"
        socket.send("not json")
        assert json.loads(socket.recv()) == {"event": "error", "data": {"message": "Not JSON."}}
    finally:
        socket.close()


def test_without_sse_the_final_answer_comes_as_json(server, model, frames):
    model.play(search_step(), lambda body: text(f"Seen [09:00](myrecall://frame/{frame_ids_in(tool_results(body)[-1])[0]})."))
    response = server.session.post(
        f"{server.url}/api/v1/chat", json={"message": "What did I see?", "mode": "agent"}, timeout=120
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["evidence"] and body["status"] == "done" and not body["dropped"]


def test_abort_mid_stream_cancels_the_turn_and_the_next_question_works(server, model, frames):
    model.play(text(" ".join(f"word{i}" for i in range(60)), chunk_interval_s=0.3))
    got: list = []
    response = server.session.post(
        f"{server.url}/api/v1/chat",
        json={"message": "Tell me slowly", "mode": "agent"},
        headers={"Accept": "text/event-stream"},
        stream=True,
        timeout=120,
    )
    for kind, data in events(response):
        got.append((kind, data))
        if kind == "message_update" and data["assistantMessageEvent"]["type"] == "text_delta" and len(got) > 8:
            aborted = server.session.post(f"{server.url}/api/v1/chat/turns/{got[0][1]['turn_id']}/abort", timeout=30)
            assert aborted.status_code == 200
    assert got[-1][0] == "error" and got[-1][1]["status"] == "cancelled"
    assert turn(server, got[0][1]["turn_id"])["status"] == "cancelled"
    model.play(text("Nothing was found in the last hour."))
    assert ask(server)[-1][0] == "final"


def test_a_second_question_while_one_runs_gets_409(server, model, frames):
    model.play(text(" ".join(f"w{i}" for i in range(20)), chunk_interval_s=0.2))
    response = server.session.post(
        f"{server.url}/api/v1/chat", json={"message": "first", "mode": "agent"},
        headers={"Accept": "text/event-stream"}, stream=True, timeout=120,
    )
    stream = events(response)
    assert next(stream)[0] == "start"
    second = server.session.post(f"{server.url}/api/v1/chat", json={"message": "again", "mode": "agent"}, timeout=30)
    assert second.status_code == 409 and "still answering" in second.json()["message"]
    assert list(stream)[-1][0] == "final"  # the first one was not disturbed


def test_the_model_failing_gives_a_clear_error_after_pis_retries(server, model, frames):
    model.play(*[Step(status=500)] * 20)
    started = time.time()
    got = ask(server)
    assert got[-1][0] == "error" and "model did not answer" in got[-1][1]["message"]
    assert time.time() - started < TURN_TIMEOUT_S + 10
    assert len(model.requests) == 1 + 3  # the question, then Pi's three retries (AGENT_MODEL_RETRIES)
    assert turn(server, got[0][1]["turn_id"])["status"] == "failed"
    model.play(text("Back."))
    assert ask(server)[-1][0] == "final"


def test_pi_killed_mid_turn_fails_clearly_restarts_and_the_next_question_works(server, model, frames):
    model.play(Step(text="late", hang_s=60))
    got: list = []
    response = server.session.post(
        f"{server.url}/api/v1/chat", json={"message": "hang", "mode": "agent"},
        headers={"Accept": "text/event-stream"}, stream=True, timeout=120,
    )
    for kind, data in events(response):
        got.append((kind, data))
        if kind == "agent_start":
            os.kill(turn(server, got[0][1]["turn_id"])["pi_pid"], signal.SIGKILL)
    assert got[-1][0] == "error" and "stopped unexpectedly" in got[-1][1]["message"]
    model.play(text("Alive again."))
    deadline = time.time() + 30
    while True:  # the manager restarts Pi after a short backoff; a question meanwhile starts it too
        final = ask(server)[-1]
        if final[0] == "final" or time.time() > deadline:
            break
        time.sleep(1)
    assert final[0] == "final" and "Alive again" in final[1]["answer_md"]


def test_a_turn_longer_than_the_watchdog_is_stopped_and_the_agent_stays_usable(server, model, frames):
    model.play(Step(text="too late", hang_s=TURN_TIMEOUT_S + 30))
    started = time.time()
    got = ask(server)
    assert got[-1][0] == "error" and got[-1][1]["status"] == "timed_out"
    assert "longer than" in got[-1][1]["message"] and time.time() - started < TURN_TIMEOUT_S + 15
    model.play(text("Ready."))
    assert ask(server)[-1][0] == "final"


def test_an_unreachable_model_gives_a_clear_error_after_pis_retries(tmp_path):
    from tests.server import port_pick

    closed = port_pick()  # nothing listens there
    env = {
        "LLM_BASE_URL": f"http://127.0.0.1:{closed}/v1", "LLM_MODEL": "nowhere", "AGENT_TURN_TIMEOUT_S": "60",
        "AGENT_MODEL_RETRY_DELAY_S": str(RETRY_DELAY_S),
    }
    with LiveServer(tmp_path / "data", env=env) as live:
        started = time.time()
        got = ask(live)
        assert got[-1][0] == "error" and "model did not answer" in got[-1][1]["message"], got[-1]
        assert time.time() - started < 60
        assert live.session.get(f"{live.url}/api/v1/chat/turns/{got[0][1]['turn_id']}", timeout=30).json()["status"] == "failed"


def test_a_pi_that_says_nothing_after_the_question_is_stopped_by_the_start_watchdog(server, model, frames):
    model.play(text("First."))
    first = ask(server)
    pid = turn(server, first[0][1]["turn_id"])["pi_pid"]
    os.kill(pid, signal.SIGSTOP)  # alive, silent: no reply, no event
    try:
        started = time.time()
        got = ask(server, session_id=first[0][1]["session_id"])  # the same chat: straight to the prompt
        assert got[-1][0] == "error" and got[-1][1]["status"] == "timed_out", got[-1]
        assert f"did not start answering within {START_TIMEOUT_S} s" in got[-1][1]["message"] and time.time() - started < START_TIMEOUT_S + 15
    finally:
        try:
            os.kill(pid, signal.SIGCONT)
        except ProcessLookupError:
            pass  # killed by the bridge, as it should be
    deadline = time.time() + 30
    while True:
        # A reply each try: a try that ends before its turn is answered (the agent still restarting)
        # may have taken the one queued before it.
        model.play(text("Restarted."))
        final = ask(server)[-1]
        if final[0] == "final" or time.time() > deadline:
            break
        time.sleep(1)
    assert final[0] == "final" and "Restarted" in final[1]["answer_md"]


def test_no_llm_configured_is_a_clear_400_and_the_schema_does_not_offer_agent_mode(tmp_path):
    with LiveServer(tmp_path / "data", env={"LLM_BASE_URL": "", "LLM_MODEL": ""}) as live:
        response = live.session.post(f"{live.url}/api/v1/chat", json={"message": "hi", "mode": "agent"}, timeout=30)
        assert response.status_code == 400 and "LLM_BASE_URL" in response.json()["message"]
        schema = live.session.get(f"{live.url}/api/v1/openapi.json", timeout=30).json()["components"]["schemas"]["ChatIn"]
        assert schema["properties"]["mode"]["enum"] == ["summary"]
        # Summary mode still answers.
        response = live.session.post(
            f"{live.url}/api/v1/chat", json={"message": "hi", "start_time": time.time() - 60}, timeout=60
        )
        assert response.status_code == 200


def test_deleting_the_frames_an_agent_answer_read_erases_it_its_tool_calls_and_what_pi_holds(server, model):
    """The agent searched for screens, quoted them, then answered again from what it had read:
    deleting those screens erases both answers (the questions stay), their tool calls' results
    and commands, and Pi's conversation of that chat; no file of the data dir holds their words.
    An answer of another chat that read only a kept screen is whole."""
    start = time.time() - 2 * 86400
    erased_words = ["Zorblaxian", "Quarnwhistle"]

    def post(line, app, minute):
        response = server.session.post(
            f"{server.url}/api/v1/frames", timeout=60,
            files={"image": ("f.png", render_text_image([line, "quarterly figures"], size=(1000, 140)), "image/png")},
            data={"timestamp": start + minute * 60, "app_name": app, "window_name": "ledger"},
        )
        assert response.status_code == 201, response.text
        return response.json()["frame_id"]

    gone = [post(f"Zorblaxian ledger {minute}", "Quarnwhistle", minute) for minute in range(2)]
    kept = post("Plimbertrove notes", "Editor", 30)
    ocr_wait(server=server, frame_ids=[*gone, kept], timeout_s=300)
    window = f'--data-urlencode "start_time={start - 60:.0f}" --data-urlencode "end_time={start + 3600:.0f}"'

    def search(word):
        return bash(f'curl -s -G "$MYRECALL_URL/api/v1/search" {AUTH} --data-urlencode "q={word}" --data-urlencode "mode=keyword" {window}')

    def quote(words):
        def answer(body):
            found = frame_ids_in(tool_results(body)[-1])
            return text(f"You read the {words} [10:00](myrecall://frame/{found[0]}).")
        return answer

    model.play(search("Zorblaxian"), quote("Zorblaxian ledger in Quarnwhistle"))
    first = ask(server)[-1][1]
    assert "Zorblaxian" in first["answer_md"] and {item["frame_id"] for item in first["evidence"]} <= set(gone), first
    model.play(text("As I said: the ledger, in the same app."))
    again = ask(server, session_id=first["session_id"])[-1][1]
    model.play(search("Plimbertrove"), quote("Plimbertrove notes"))
    other = ask(server, message="And my notes?")[-1][1]
    assert [item["frame_id"] for item in other["evidence"]] == [kept], other
    assert set(server.words_kept(erased_words)) == set(erased_words)

    response = server.session.delete(
        f"{server.url}/api/v1/frames", timeout=120, params={"start_time": start - 60, "end_time": start + 10 * 60}
    )
    assert response.status_code == 200 and response.json()["removed"]["answers_erased"] == 2, response.text

    messages = server.session.get(f"{server.url}/api/v1/chat/sessions/{first['session_id']}", timeout=30).json()["messages"]
    note = "*This answer was erased: it drew on 2 screens deleted on"
    assert [m["content_md"][: len(note)] if m["role"] == "assistant" else m["content_md"] for m in messages] == [
        "What was I working on?", note, "What was I working on?", note,
    ]
    calls = turn(server, first["turn_id"])["calls"]
    assert calls and all("Zorblaxian" not in call["command"] + call["result"] for call in calls), calls
    kept_call = turn(server, other["turn_id"])["calls"][0]
    assert "Plimbertrove" in kept_call["command"] and "Plimbertrove" in kept_call["result"]
    whole = server.session.get(f"{server.url}/api/v1/chat/sessions/{other['session_id']}", timeout=30).json()["messages"][-1]
    assert whole["content_md"] == other["answer_md"] and whole["erased_at"] is None
    left = server.words_kept(erased_words)
    assert left == {}, left
    # The next question of that chat starts Pi on a new conversation: what it read is not sent to the model.
    model.play(text("Nothing more."))
    ask(server, session_id=first["session_id"])
    assert "zorblaxian" not in json.dumps(model.requests).lower()
    # The other tests of the module count the server's frames.
    server.session.delete(f"{server.url}/api/v1/frames", timeout=120, params={"start_time": start - 60, "end_time": start + 3600})


def test_the_chat_page_in_agent_mode_shows_steps_live_and_the_evidence_opens_the_frame(server, model, frames):
    from playwright.sync_api import expect, sync_playwright

    from scripts.screenshots import CHROMIUM_ARGS

    gate = threading.Event()

    def answer_after_gate(body):
        gate.wait(30)  # the step is on the page before the answer comes
        found = frame_ids_in(tool_results(body)[-1])
        return text(f"You looked at this screen [09:00](myrecall://frame/{found[0]}).")

    model.play(search_step(), answer_after_gate)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(timezone_id="UTC", viewport={"width": 1280, "height": 900})
            context.set_default_timeout(30_000)
            tab = context.new_page()
            tab.goto(server.url + "/")
            # The first page sets the tz cookie and reloads once.
            tab.wait_for_function("performance.getEntriesByType('navigation')[0].type === 'reload'")
            tab.fill("input[name=password]", (server.data_dir / "admin_password.txt").read_text().strip())
            tab.click("button[type=submit]")
            tab.wait_for_url(server.url + "/")
            tab.goto(server.url + "/chat")
            tab.check("input[name=mode][value=agent]", force=True)
            tab.check("input[name=preset][value=any]", force=True)
            tab.fill("textarea[name=message]", "What did I look at?")
            tab.click("#chat-form button[type=submit]")
            step = tab.locator(".steps .step").first
            expect(step).to_contain_text("api/v1/search")  # live, while the model still holds its answer
            expect(tab.locator("#chat-abort")).to_be_visible()
            expect(step.locator(".state")).to_have_text("2 results of 4")
            gate.set()
            evidence = tab.locator(".turn.answer .evidence a.evidence-item").first
            expect(evidence).to_be_visible()
            expect(tab.locator("#chat-abort")).to_be_hidden()
            frame_id = int(evidence.get_attribute("data-frame-id"))
            assert frame_id in frames
            evidence.click()
            tab.wait_for_url(f"**/frames/{frame_id}/view**")
        finally:
            browser.close()



def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _children(pid: int) -> list[int]:
    with open(f"/proc/{pid}/task/{pid}/children") as children:
        return [int(child) for child in children.read().split()]


def test_a_killed_serve_takes_pi_and_the_command_it_runs_down_with_it(tmp_path, model):
    env = {"LLM_BASE_URL": model.base_url, "LLM_MODEL": "fake-agent", "LLM_API_KEY": "test-key"}
    with LiveServer(tmp_path / "data", env=env) as live:
        model.play(bash("sleep 600"), text("never said"))
        response = live.session.post(
            f"{live.url}/api/v1/chat", json={"message": "wait", "mode": "agent"},
            headers={"Accept": "text/event-stream"}, stream=True, timeout=120,
        )
        stream = events(response)
        turn_id = next(stream)[1]["turn_id"]
        next(data for kind, data in stream if kind == "agent_start")
        pi_pid = turn(live, turn_id)["pi_pid"]
        deadline = time.time() + 60
        while not (tools := _children(pi_pid)) and time.time() < deadline:  # Pi runs the command in a session of its own
            time.sleep(0.2)
        assert tools, "Pi did not run the command"

        live.proc.kill()  # no handler runs: the web server learns it from the kernel, Pi from the web server
        live.proc.wait()
        deadline = time.time() + 60
        while any(_alive(pid) for pid in [pi_pid, *tools]) and time.time() < deadline:
            time.sleep(0.2)
    left = [pid for pid in [pi_pid, *tools] if _alive(pid)]
    for pid in left:  # not to leave them running past a failure
        os.kill(pid, signal.SIGKILL)
    assert left == [], f"Pi {pi_pid}, its command {tools}"
