"""The parser on transcripts recorded from the real Pi binary (tests/agent_bridge/transcripts)."""

import json
from pathlib import Path

import pytest

from agent_bridge.events import (
    AgentEnd,
    AutoRetryEnd,
    AutoRetryStart,
    MessageDelta,
    MessageEnd,
    PiEvent,
    Response,
    ToolEnd,
    ToolStart,
    event_parse,
)

REFERENCE = Path(__file__).resolve().parent / "transcripts"  # recorded again by tests/agent_bridge/record_transcripts.py


def transcript(name: str) -> list[PiEvent]:
    with open(REFERENCE / f"{name}.jsonl", "rb") as stream:  # LF framing, read line by line as the bridge does
        return [event for line in stream if (event := event_parse(line)) is not None]


def test_every_recorded_line_parses_to_an_event_of_its_type():
    for path in sorted(REFERENCE.glob("transcript*.jsonl")):
        if path.name.endswith(".stdin.jsonl"):
            continue
        with open(path, "rb") as stream:
            lines = [line for line in stream if line.strip()]
        events = [event_parse(line) for line in lines]
        assert all(event is not None for event in events), path.name
        assert [event.type for event in events] == [json.loads(line)["type"] for line in lines], path.name


def test_a_turn_with_a_skill_read_and_a_curl_call():
    events = transcript("transcript-skill")
    starts = [e for e in events if isinstance(e, ToolStart)]
    ends = [e for e in events if isinstance(e, ToolEnd)]
    assert [(e.tool, e.call_id) for e in starts] == [("read", "call_read_3"), ("bash", "call_curl_4")]
    assert starts[1].args["command"].startswith("curl -s ")
    assert ends[1].call_id == "call_curl_4" and not ends[1].is_error and '"results"' in ends[1].text
    text = "".join(e.delta for e in events if isinstance(e, MessageDelta) and e.kind == "text_delta")
    assert text == "Found 1 screen: Firefox - hello world page."
    final = [e for e in events if isinstance(e, AgentEnd)][-1]
    assert final.stop_reason == "stop" and final.text == text


def test_a_message_update_is_passed_on_without_the_repeated_partial_message():
    update = next(e for e in transcript("transcript-skill") if isinstance(e, MessageDelta) and e.kind == "text_delta")
    assert "partial" in update.raw["assistantMessageEvent"]
    wire = update.wire()
    assert wire == {"type": "message_update", "assistantMessageEvent": {k: v for k, v in update.raw["assistantMessageEvent"].items() if k != "partial"}}
    assert len(json.dumps(wire)) < len(json.dumps(update.raw)) / 3


def test_abort_ends_the_run_with_stop_reason_aborted_and_the_busy_prompt_is_refused():
    events = transcript("transcript-abort")
    refused = next(e for e in events if isinstance(e, Response) and e.id == "p2")
    assert not refused.success and "already processing" in refused.error
    first_end = next(e for e in events if isinstance(e, AgentEnd))
    assert first_end.stop_reason == "aborted"
    assert any(isinstance(e, Response) and e.id == "a1" and e.success for e in events)


def test_a_failing_provider_retries_then_gives_up():
    events = transcript("transcript-500")
    retries = [e for e in events if isinstance(e, AutoRetryStart)]
    assert [e.attempt for e in retries] == [1, 2, 3] and retries[0].delay_ms == 2000
    gave_up = next(e for e in events if isinstance(e, AutoRetryEnd))
    assert not gave_up.success and "500" in gave_up.error
    assert all(e.stop_reason == "error" for e in events if isinstance(e, AgentEnd))


def test_no_model_configured_is_a_refused_prompt():
    (reply,) = [e for e in transcript("transcript-noconfig") if isinstance(e, Response)]
    assert reply.id == "p1" and not reply.success and "No API key" in reply.error


def test_malformed_commands_get_replies_some_without_an_id():
    replies = [e for e in transcript("transcript-malformed") if isinstance(e, Response)]
    assert replies[0].command == "parse" and replies[0].id is None and not replies[0].success
    assert any(r.id == "x1" and "Model not found" in r.error for r in replies)


def test_an_aborted_tool_is_an_error_result():
    end = next(e for e in transcript("transcript-toolabort") if isinstance(e, ToolEnd))
    assert end.is_error and "Command aborted" in end.text


@pytest.mark.parametrize(
    "line",
    [b"", b"\n", b"not json\n", b"[1, 2]\n", b"42\n", b'{"no": "type"}\n', b'{"type": 5}\n'],
)
def test_lines_that_are_not_events_are_skipped(line):
    assert event_parse(line) is None


def test_an_unknown_event_type_is_passed_on_whole():
    event = event_parse(b'{"type": "compaction_start", "reason": "threshold"}\n')
    assert type(event) is PiEvent and event.type == "compaction_start" and event.wire()["reason"] == "threshold"


def test_a_line_separator_inside_a_string_stays_inside_the_event():
    line = json.dumps({"type": "message_update", "assistantMessageEvent": {"type": "text_delta", "delta": "a\u2028b"}}, ensure_ascii=False)
    event = event_parse(line.encode() + b"\n")
    assert isinstance(event, MessageDelta) and event.delta == "a\u2028b"


def test_a_known_type_of_an_unexpected_shape_is_kept_as_a_plain_event():
    event = event_parse(b'{"type": "message_end", "message": "oops"}\n')
    assert event is not None and event.type == "message_end"
    assert isinstance(event_parse(b'{"type": "message_end", "message": {"role": "assistant", "content": "hi"}}\n'), MessageEnd)
