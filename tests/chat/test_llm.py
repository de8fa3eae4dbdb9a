"""chat/llm.py against a local OpenAI-compatible server: the real SDK talks real HTTP."""

import pytest

from chat.llm import LlmError, llm_complete, llm_configured, llm_stream
from tests.chat import fake_llm as fake

MESSAGES = [
    {"role": "system", "content": "Summarise the user's screen activity."},
    {"role": "user", "content": "What did I do this afternoon?"},
]


def test_streamed_text_arrives_in_order(fake_llm):
    fake_llm.pieces = ["You ", "edited ", "notes", " and ", "read ", "mail."]

    deltas = list(llm_stream(messages=MESSAGES))

    assert deltas == fake_llm.pieces


def test_complete_joins_the_stream_and_sends_the_messages(fake_llm):
    fake_llm.answer = "From 14:00 to 15:10 you wrote the quarterly report in Docs."

    answer = llm_complete(messages=MESSAGES)

    assert answer == fake_llm.answer
    assert len(fake_llm.requests) == 1
    request = fake_llm.requests[0]
    assert request["messages"] == MESSAGES
    assert request["model"] == "fake-model"
    assert request["stream"] is True


def test_model_argument_overrides_the_setting(fake_llm):
    llm_complete(messages=MESSAGES, model="other-model")

    assert fake_llm.requests[0]["model"] == "other-model"


def test_server_error_becomes_a_clear_message_after_one_retry(fake_llm):
    fake_llm.behaviour = fake.ERROR_500

    with pytest.raises(LlmError) as info:
        llm_complete(messages=MESSAGES)

    assert str(info.value).startswith("The model returned an error: 500")
    assert "The server had an error" in str(info.value)
    assert len(fake_llm.requests) == 2


def test_retries_follow_the_setting(fake_llm, settings):
    settings.LLM_MAX_RETRIES = 0
    fake_llm.behaviour = fake.ERROR_500

    with pytest.raises(LlmError):
        llm_complete(messages=MESSAGES)

    assert len(fake_llm.requests) == 1


def test_rejected_key_is_not_retried(fake_llm):
    fake_llm.behaviour = fake.ERROR_401

    with pytest.raises(LlmError) as info:
        llm_complete(messages=MESSAGES)

    assert str(info.value) == "The model returned an error: 401 Incorrect API key provided."
    assert len(fake_llm.requests) == 1


def test_hang_before_the_first_chunk_times_out(fake_llm):
    fake_llm.behaviour = fake.HANG_BEFORE_FIRST_CHUNK

    with pytest.raises(LlmError) as info:
        llm_complete(messages=MESSAGES)

    assert str(info.value) == f"The model at {fake_llm.base_url} did not answer within 1 s."
    assert len(fake_llm.requests) == 2


def test_hang_mid_stream_raises_after_the_text_so_far_without_retrying(fake_llm):
    fake_llm.pieces = ["Editing ", "notes."]
    fake_llm.behaviour = fake.HANG_MID_STREAM
    received = []

    with pytest.raises(LlmError) as info:
        for delta in llm_stream(messages=MESSAGES):
            received.append(delta)

    assert received == ["Editing "]
    assert "did not answer within 1 s" in str(info.value)
    assert len(fake_llm.requests) == 1


def test_slow_but_steady_chunks_succeed(fake_llm):
    # Each gap is under the 1 s idle timeout; together they take longer than it.
    fake_llm.behaviour = fake.SLOW_STEADY
    fake_llm.chunk_interval_s = 0.3
    fake_llm.pieces = ["one ", "two ", "three ", "four ", "five ", "six"]

    assert llm_complete(messages=MESSAGES) == "one two three four five six"


def test_empty_chunks_before_the_text_count_as_heartbeats(fake_llm):
    # The first text comes after 1.8 s of empty chunks, past the 1 s idle timeout.
    fake_llm.behaviour = fake.HEARTBEATS_BEFORE_TEXT
    fake_llm.chunk_interval_s = 0.3
    fake_llm.heartbeats = 6
    fake_llm.answer = "Reading the design doc."

    assert llm_complete(messages=MESSAGES) == "Reading the design doc."
    assert len(fake_llm.requests) == 1


def test_answer_past_the_total_time_limit_fails(fake_llm, settings):
    settings.LLM_TIMEOUT_S = 0.8
    fake_llm.behaviour = fake.SLOW_STEADY
    fake_llm.chunk_interval_s = 0.3
    fake_llm.pieces = ["one ", "two ", "three ", "four ", "five ", "six"]

    with pytest.raises(LlmError) as info:
        llm_complete(messages=MESSAGES)

    assert str(info.value) == f"The model at {fake_llm.base_url} did not finish its answer within 0.8 s."
    assert len(fake_llm.requests) == 1


def test_malformed_stream_is_a_clear_message(fake_llm):
    fake_llm.behaviour = fake.MALFORMED_STREAM

    with pytest.raises(LlmError) as info:
        llm_complete(messages=MESSAGES)

    assert str(info.value) == f"The model at {fake_llm.base_url} sent a reply that is not a chat completion stream."


def test_unreachable_endpoint_is_a_clear_message(fake_llm, settings):
    fake_llm.stop()

    with pytest.raises(LlmError) as info:
        llm_complete(messages=MESSAGES)

    assert str(info.value).startswith(f"Could not reach the model at {fake_llm.base_url}")


def test_not_configured_without_a_base_url(settings):
    settings.LLM_BASE_URL = ""

    assert llm_configured() is False
    with pytest.raises(LlmError) as info:
        llm_complete(messages=MESSAGES)
    assert "No language model is configured" in str(info.value)


def test_configured_with_a_base_url(fake_llm):
    assert llm_configured() is True


def test_missing_model_name_is_a_clear_message(fake_llm, settings):
    settings.LLM_MODEL = ""

    with pytest.raises(LlmError) as info:
        llm_complete(messages=MESSAGES)

    assert str(info.value) == "No model name is configured (LLM_MODEL is empty)."
    assert fake_llm.requests == []
