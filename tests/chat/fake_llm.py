"""A small local OpenAI-compatible chat server for tests: it speaks the real streaming
protocol (server-sent `data:` lines of `chat.completion.chunk` objects, then
`data: [DONE]`) and plays one scripted behaviour at a time."""

import json
import threading
import time
import uuid

from tests.fake_openai import FakeOpenAiServer, JsonHandler, chat_chunk, error_body, usage_chunk

NORMAL = "normal"
ERROR_500 = "error_500"
ERROR_401 = "error_401"
HANG_BEFORE_FIRST_CHUNK = "hang_before_first_chunk"
HANG_MID_STREAM = "hang_mid_stream"
SLOW_STEADY = "slow_steady"
HEARTBEATS_BEFORE_TEXT = "heartbeats_before_text"
MALFORMED_STREAM = "malformed_stream"
GATED = "gated"  # sends the first piece, then each next one only after release()


class FakeLlm(FakeOpenAiServer):
    """Set `behaviour`, `answer` (streamed in `pieces`), `hang_s`, `chunk_interval_s` and
    `heartbeats` before a call; `requests` holds every request body received, in order."""

    def __init__(self):
        self.behaviour = NORMAL
        self.answer = "Hello from the fake model."
        self.pieces: list[str] | None = None
        self.hang_s = 30.0
        self.chunk_interval_s = 0.0
        self.heartbeats = 0
        self.requests: list[dict] = []
        self._gate = threading.Semaphore(0)
        super().__init__()

    def answer_pieces(self) -> list[str]:
        if self.pieces is not None:
            return self.pieces
        words = self.answer.split(" ")
        return [word if i == len(words) - 1 else word + " " for i, word in enumerate(words)]

    def release(self, pieces: int = 1) -> None:
        """Lets a GATED stream send `pieces` more pieces."""
        for _ in range(pieces):
            self._gate.release()

    def hang(self) -> None:
        self._stopped.wait(self.hang_s)

    def _handler_class(self):
        fake = self

        class Handler(JsonHandler):
            def do_POST(self):
                body = self._read_json()
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send_json(404, error_body("Unknown path.", "invalid_request_error"))
                    return
                fake.requests.append(body)
                behaviour = fake.behaviour
                if behaviour == ERROR_500:
                    self._send_json(500, error_body("The server had an error while processing your request.", "server_error"))
                elif behaviour == ERROR_401:
                    self._send_json(401, error_body("Incorrect API key provided.", "invalid_request_error"))
                elif behaviour == HANG_BEFORE_FIRST_CHUNK:
                    fake.hang()
                elif body.get("stream"):
                    self._stream(body, behaviour)
                else:
                    self._send_json(200, _completion(body.get("model", ""), fake.answer))

            def _stream(self, body: dict, behaviour: str):
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                chunk_id = f"chatcmpl-{uuid.uuid4().hex[:12]}"
                model = body.get("model", "")
                self._event(chat_chunk(chunk_id, model, {"role": "assistant", "content": ""}))
                self._event(chat_chunk(chunk_id, model, {}))
                if behaviour == MALFORMED_STREAM:
                    self.wfile.write(b"data: {not json\n\n")
                    self.wfile.flush()
                    return
                if behaviour == HEARTBEATS_BEFORE_TEXT:
                    for _ in range(fake.heartbeats):
                        time.sleep(fake.chunk_interval_s)
                        self._event(chat_chunk(chunk_id, model, {"content": ""}))
                for i, piece in enumerate(fake.answer_pieces()):
                    if behaviour == HANG_MID_STREAM and i == 1:
                        fake.hang()
                        return
                    if behaviour == GATED and i > 0 and not fake._gate.acquire(timeout=fake.hang_s):
                        return
                    if behaviour == SLOW_STEADY:
                        time.sleep(fake.chunk_interval_s)
                    self._event(chat_chunk(chunk_id, model, {"content": piece}))
                    self._event(chat_chunk(chunk_id, model, {"content": ""}))
                self._event(chat_chunk(chunk_id, model, {}, finish_reason="stop"))
                # Some compatible servers send the usage-only chunk even when not asked for it.
                self._event(usage_chunk(chunk_id, model))
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()

            def _event(self, payload: dict):
                self.wfile.write(b"data: " + json.dumps(payload).encode() + b"\n\n")
                self.wfile.flush()

        return Handler


def _completion(model: str, text: str) -> dict:
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text, "refusal": None},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": len(text.split()), "total_tokens": 10 + len(text.split())},
    }
