"""What the local OpenAI-compatible test servers (tests/chat/fake_llm.py, tests/search/fake_embeddings.py)
share: a threaded HTTP server on 127.0.0.1, a JSON request handler, and OpenAI's error body."""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeOpenAiServer:
    """A server whose handler class comes from `_handler_class()`; `stop()` first sets
    `_stopped`, which wakes handlers that are still hanging."""

    def __init__(self):
        self._stopped = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        raise NotImplementedError

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self):
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopped.set()
        self._server.shutdown()
        self._server.server_close()


class JsonHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def _read_json(self) -> dict:
        return json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")

    def _send_json(self, status: int, payload: dict):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def error_body(message: str, error_type: str) -> dict:
    return {"error": {"message": message, "type": error_type, "param": None, "code": None}}


def chat_chunk(chunk_id: str, model: str, delta: dict, finish_reason: str | None = None) -> dict:
    """One `chat.completion.chunk` of a streamed answer."""
    return {
        "id": chunk_id,
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "system_fingerprint": "fp_fake",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}],
    }


def usage_chunk(chunk_id: str, model: str) -> dict:
    """The usage-only chunk that ends a stream (stream_options.include_usage; some servers send it anyway)."""
    usage = chat_chunk(chunk_id, model, {})
    usage["choices"] = []
    usage["usage"] = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    return usage
