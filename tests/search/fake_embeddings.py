"""A small local OpenAI-compatible embeddings server for tests: POST /v1/embeddings with
{model, input: [...], encoding_format} answers a real `list` of `embedding` objects (base64
float32 when asked, as the openai SDK asks by default), and plays one scripted behaviour."""

import base64
import hashlib
import struct

from tests.fake_openai import FakeOpenAiServer, JsonHandler, error_body

NORMAL = "normal"
OUT_OF_ORDER = "out_of_order"  # data[] reversed; each item keeps its true index
ERROR_500 = "error_500"
HANG = "hang"  # answers nothing until hang_s passes or the server stops
TOO_FEW = "too_few"  # one vector less than inputs

DIMENSIONS = 8


def fake_vector(model: str, text: str) -> list[float]:
    """The server's deterministic, deliberately not unit-length vector for a text."""
    digest = hashlib.sha256(f"{model}\n{text}".encode()).digest()
    return [float(byte - 128) for byte in digest[:DIMENSIONS]]


class FakeEmbeddings(FakeOpenAiServer):
    """Set `behaviour` and `hang_s` before a call; `requests` holds every request body
    received, in order, and `inputs` every text received, across requests."""

    def __init__(self):
        self.behaviour = NORMAL
        self.hang_s = 30.0
        self.requests: list[dict] = []
        super().__init__()

    @property
    def inputs(self) -> list[str]:
        return [text for body in self.requests for text in body["input"]]

    def _handler_class(self):
        fake = self

        class Handler(JsonHandler):
            def do_POST(self):
                body = self._read_json()
                if self.path.rstrip("/") != "/v1/embeddings":
                    self._send_json(404, error_body("Unknown path.", "invalid_request_error"))
                    return
                if isinstance(body.get("input"), str):
                    body["input"] = [body["input"]]
                fake.requests.append(body)
                if fake.behaviour == HANG:
                    fake._stopped.wait(fake.hang_s)
                    return
                if fake.behaviour == ERROR_500:
                    message = "The server had an error while processing your request."
                    self._send_json(500, error_body(message, "server_error"))
                    return
                self._send_json(200, _answer(body, fake.behaviour))

        return Handler


def _answer(body: dict, behaviour: str) -> dict:
    model, texts = body["model"], body["input"]
    data = [
        {"object": "embedding", "index": i, "embedding": _encode(fake_vector(model, text), body.get("encoding_format"))}
        for i, text in enumerate(texts)
    ]
    if behaviour == OUT_OF_ORDER:
        data.reverse()
    if behaviour == TOO_FEW:
        data.pop()
    tokens = sum(len(text.split()) for text in texts)
    return {"object": "list", "data": data, "model": model, "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}


def _encode(vector: list[float], encoding_format: str | None) -> list[float] | str:
    if encoding_format == "base64":
        return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode()
    return vector
