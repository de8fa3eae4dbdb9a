"""A token-checking HTTP proxy in front of a Chroma server: Chroma 1.x's server has no auth of its
own, and a shared server of a cluster asks for a key. Every request needs "Authorization: Bearer
<token>" but those Chroma's token auth left open (heartbeat, version, pre-flight checks); a missing or
wrong key gets Chroma's own refusal, 403 {"error": "AuthError", "message": "Forbidden"}, which its
client raises as ChromaAuthError."""

import hmac
import http.client
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

OPEN_PATHS = {"/api/v2", "/api/v2/heartbeat", "/api/v2/version", "/api/v2/pre-flight-checks"}
# Headers that belong to one connection, not to the request or answer relayed (RFC 9110 7.6.1).
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade", "host", "content-length"}
REFUSAL = json.dumps({"error": "AuthError", "message": "Forbidden"}).encode()


class _Relay(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    upstream: tuple[str, int]
    expected: bytes

    def _authorized(self) -> bool:
        if self.command == "GET" and self.path.split("?", 1)[0].rstrip("/") in OPEN_PATHS:
            return True
        return hmac.compare_digest((self.headers.get("Authorization") or "").encode(), self.expected)

    def _body(self) -> bytes:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            chunks = []
            while size := int(self.rfile.readline().split(b";", 1)[0], 16):
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            while self.rfile.readline() not in (b"\r\n", b"\n", b""):  # trailers
                pass
            return b"".join(chunks)
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _answer(self, status: int, headers: list[tuple[str, str]], payload: bytes) -> None:
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)

    def _relay(self) -> None:
        body = self._body()
        if not self._authorized():
            self._answer(403, [("Content-Type", "application/json")], REFUSAL)
            return
        forwarded = {name: value for name, value in self.headers.items() if name.lower() not in HOP_BY_HOP}
        upstream = http.client.HTTPConnection(*self.upstream, timeout=120)
        try:
            upstream.request(self.command, self.path, body=body or None, headers=forwarded)
            answer = upstream.getresponse()
            status, payload = answer.status, answer.read()
            headers = [(name, value) for name, value in answer.getheaders() if name.lower() not in HOP_BY_HOP]
        except OSError as exc:
            status, headers = 502, [("Content-Type", "application/json")]
            payload = json.dumps({"error": "BadGateway", "message": f"the Chroma server does not answer: {exc}"}).encode()
        finally:
            upstream.close()
        self._answer(status, headers, payload)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _relay

    def log_message(self, *args) -> None:
        pass


class ChromaTokenProxy:
    """Listens on 127.0.0.1 (a free port unless given) and relays to the Chroma server at upstream
    ("host:port") the requests that carry the token; serves from a daemon thread until stop()."""

    def __init__(self, *, upstream: str, token: str, port: int = 0):
        host, _, upstream_port = upstream.rpartition(":")
        handler = type("ChromaRelay", (_Relay,), {"upstream": (host, int(upstream_port)), "expected": f"Bearer {token}".encode()})
        self._server = ThreadingHTTPServer(("127.0.0.1", port), handler)
        self._server.daemon_threads = True
        self.port = self._server.server_port
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, name="chroma-token-proxy", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)
