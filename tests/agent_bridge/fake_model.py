"""A local OpenAI-compatible model server that scripts the model's side of an agent turn, for
the real Pi binary: streamed text, tool calls (Pi runs them: `read` of a skill, `bash` with
curl against the live test server), and failures.

Each request Pi sends is answered by the next step of `script`; a step is a Step, or a callable
that gets the request body (with every message so far, tool results included) and returns one.
When the script runs out, the model answers "Done." so a turn always ends."""

import json
import re
import threading
import time
import uuid
from dataclasses import dataclass, field

from tests.fake_openai import FakeOpenAiServer, JsonHandler, chat_chunk, error_body, usage_chunk


@dataclass
class Step:
    text: str = ""  # streamed word by word
    tool: str = ""  # a tool call instead: "bash" or "read"
    args: dict = field(default_factory=dict)
    status: int = 200  # an error status instead of an answer
    hang_s: float = 0.0  # wait this long before answering (a stuck model)
    chunk_interval_s: float = 0.0  # between streamed pieces
    call_id: str = ""  # the tool call's id; a random one when empty


def text(answer: str, **kw) -> Step:
    return Step(text=answer, **kw)


def bash(command: str, **kw) -> Step:
    return Step(tool="bash", args={"command": command}, **kw)


def tool_results(body: dict) -> list[str]:
    """The text of every tool result in the request, oldest first."""
    found = []
    for message in body.get("messages", []):
        if message.get("role") == "tool":
            content = message.get("content")
            if isinstance(content, list):
                content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
            found.append(content or "")
    return found


def frame_ids_in(result: str) -> list[int]:
    return [int(i) for i in re.findall(r'"frame_id"\s*:\s*(\d+)', result)]


class FakeAgentModel(FakeOpenAiServer):
    def __init__(self):
        self.script: list = []
        self.requests: list[dict] = []
        self.first_byte_at: list[float] = []  # time.monotonic() of each response's first streamed byte
        self._lock = threading.Lock()
        super().__init__()

    def play(self, *steps) -> None:
        with self._lock:
            self.script = list(steps)
            self.requests.clear()

    def _next(self, body: dict) -> Step:
        with self._lock:
            self.requests.append(body)
            step = self.script.pop(0) if self.script else Step(text="Done.")
        return step(body) if callable(step) else step

    def _handler_class(self):
        fake = self

        class Handler(JsonHandler):
            def do_POST(self):
                body = self._read_json()
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send_json(404, error_body("Unknown path.", "invalid_request_error"))
                    return
                step = fake._next(body)
                if step.hang_s:
                    fake._stopped.wait(step.hang_s)
                    if fake._stopped.is_set():
                        return
                if step.status != 200:
                    self._send_json(step.status, error_body("The fake model failed on purpose.", "server_error"))
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                chunk_id = f"chatcmpl-{uuid.uuid4().hex[:12]}"
                model = body.get("model", "")
                fake.first_byte_at.append(time.monotonic())
                self._event(chat_chunk(chunk_id, model, {"role": "assistant", "content": ""}))
                try:
                    if step.tool:
                        call = {"index": 0, "id": step.call_id or f"call_{uuid.uuid4().hex[:8]}", "type": "function",
                                "function": {"name": step.tool, "arguments": ""}}
                        self._event(chat_chunk(chunk_id, model, {"tool_calls": [call]}))
                        arguments = json.dumps(step.args)
                        for i in range(0, len(arguments), 40):
                            piece = {"index": 0, "function": {"arguments": arguments[i : i + 40]}}
                            self._event(chat_chunk(chunk_id, model, {"tool_calls": [piece]}))
                        self._event(chat_chunk(chunk_id, model, {}, finish_reason="tool_calls"))
                    else:
                        words = step.text.split(" ")
                        for i, word in enumerate(words):
                            if step.chunk_interval_s:
                                if fake._stopped.wait(step.chunk_interval_s):
                                    return
                            self._event(chat_chunk(chunk_id, model, {"content": word if i == len(words) - 1 else word + " "}))
                        self._event(chat_chunk(chunk_id, model, {}, finish_reason="stop"))
                    self._event(usage_chunk(chunk_id, model))
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):  # Pi aborted the request
                    return

            def _event(self, payload: dict):
                self.wfile.write(b"data: " + json.dumps(payload).encode() + b"\n\n")
                self.wfile.flush()

        return Handler
