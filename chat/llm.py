"""The one module that talks to an LLM: any OpenAI-compatible endpoint, through the
`openai` SDK, always streamed.

Any chunk, even a role-only or empty one, is a heartbeat (seed 001). Timeouts are
conservative and reach the caller as one `LlmError` whose message can be shown to
the user as it is. Retries happen only before the first chunk, so streamed text is
never repeated."""

import logging
import time
from collections.abc import Iterator
from functools import lru_cache
from typing import TYPE_CHECKING

import httpx2
from django.conf import settings

if TYPE_CHECKING:
    import openai

logger = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 10.0
RETRY_BACKOFF_S = 0.5


class LlmError(Exception):
    """The model could not answer; the message is meant for the user."""

    def __init__(self, message: str, *, retryable: bool = False):
        super().__init__(message)
        self.message = message
        self.retryable = retryable


def llm_configured() -> bool:
    return bool(settings.LLM_BASE_URL)


@lru_cache(maxsize=1)
def _client(base_url: str, api_key: str) -> "openai.OpenAI":
    import openai  # only when a model is asked: the SDK takes 0.8 s to import, in every process

    # Retries are ours (only before the first chunk); local endpoints take any key but the SDK wants one.
    return openai.OpenAI(base_url=base_url, api_key=api_key or "unused", max_retries=0)


def llm_client_reset() -> None:
    """Forget the cached client (tests that start a new endpoint)."""
    _client.cache_clear()


def llm_stream(*, messages: list[dict], model: str | None = None) -> Iterator[str]:
    """Text deltas of one streamed chat completion, in order; raises `LlmError`."""
    if not llm_configured():
        raise LlmError("No language model is configured (LLM_BASE_URL is empty).")
    model = model or settings.LLM_MODEL
    if not model:
        raise LlmError("No model name is configured (LLM_MODEL is empty).")
    deadline = time.monotonic() + settings.LLM_TIMEOUT_S
    attempts = 1 + max(settings.LLM_MAX_RETRIES, 0)
    for attempt in range(1, attempts + 1):
        received_chunk = False
        try:
            for chunk_text in _stream_once(messages=messages, model=model, deadline=deadline):
                received_chunk = True
                if chunk_text:
                    yield chunk_text
            return
        except LlmError as exc:
            backoff_s = RETRY_BACKOFF_S * attempt
            out_of_time = time.monotonic() + backoff_s >= deadline
            if received_chunk or not exc.retryable or attempt == attempts or out_of_time:
                raise
            logger.warning("LLM attempt %d of %d failed, retrying: %s", attempt, attempts, exc.message)
            time.sleep(backoff_s)


def llm_complete(*, messages: list[dict], model: str | None = None) -> str:
    """The whole answer of one chat completion; raises `LlmError`."""
    return "".join(llm_stream(messages=messages, model=model))


def _stream_once(*, messages: list[dict], model: str, deadline: float) -> Iterator[str]:
    """One request: yields each chunk's text, "" for a chunk that is only a heartbeat."""
    base_url = settings.LLM_BASE_URL
    idle_s = settings.LLM_FIRST_CHUNK_TIMEOUT_S
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise LlmError(f"The model at {base_url} did not finish its answer within {settings.LLM_TIMEOUT_S:g} s.")
    # The read timeout bounds the wait for the response and for every chunk after it (any bytes
    # reset it, so empty chunks are heartbeats); the total deadline is checked between chunks.
    timeout = httpx2.Timeout(min(idle_s, remaining), connect=min(CONNECT_TIMEOUT_S, remaining))
    client = _client(base_url, settings.LLM_API_KEY)
    import openai  # imported by _client already

    stream = None
    try:
        stream = client.chat.completions.create(
            model=model, messages=messages, stream=True, timeout=timeout
        )
        for chunk in stream:
            if time.monotonic() > deadline:
                raise LlmError(
                    f"The model at {base_url} did not finish its answer within {settings.LLM_TIMEOUT_S:g} s."
                )
            yield "".join(choice.delta.content or "" for choice in chunk.choices if choice.delta)
    except (openai.APITimeoutError, httpx2.TimeoutException) as exc:
        raise LlmError(f"The model at {base_url} did not answer within {idle_s:g} s.", retryable=True) from exc
    except openai.APIConnectionError as exc:
        raise LlmError(f"Could not reach the model at {base_url}: {exc.__cause__ or exc}.", retryable=True) from exc
    except httpx2.TransportError as exc:
        raise LlmError(f"The connection to the model at {base_url} broke: {exc}.", retryable=True) from exc
    except openai.APIStatusError as exc:
        retryable = exc.status_code >= 500 or exc.status_code in (408, 429)
        raise LlmError(f"The model returned an error: {exc.status_code} {_error_text(exc)}", retryable=retryable) from exc
    except openai.APIError as exc:
        raise LlmError(f"The model returned an error: {exc.message}") from exc
    except ValueError as exc:
        raise LlmError(f"The model at {base_url} sent a reply that is not a chat completion stream.") from exc
    finally:
        if stream is not None:
            stream.close()


def _error_text(exc: "openai.APIStatusError") -> str:
    body = exc.body
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
    return exc.response.reason_phrase or exc.message
