"""Chat fixtures: a local OpenAI-compatible server that chat/llm.py talks to over HTTP."""

import pytest

from chat.llm import llm_client_reset
from tests.chat.fake_llm import FakeLlm


@pytest.fixture
def fake_llm(settings):
    """A running fake model with the settings pointed at it and small timeouts."""
    server = FakeLlm().start()
    settings.LLM_BASE_URL = server.base_url
    settings.LLM_API_KEY = "test-key"
    settings.LLM_MODEL = "fake-model"
    settings.LLM_TIMEOUT_S = 10.0
    settings.LLM_FIRST_CHUNK_TIMEOUT_S = 1.0
    settings.LLM_MAX_RETRIES = 1
    llm_client_reset()
    yield server
    server.stop()
    llm_client_reset()
