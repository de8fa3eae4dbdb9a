"""The web server process `serve` runs (`python -m myrecall.web`, daphne's arguments): daphne serving
myrecall.asgi, with a stop that drains and always ends. SIGTERM or SIGINT: stop accepting connections,
let the requests in flight answer for up to STOP_GRACE_S, then stop; a second signal stops at once.
Either way the process is gone soon after, whatever its threads are doing (myrecall.shutdown): a
request thread waiting on the event loop that stopped would otherwise hold Python's exit forever."""

import atexit
import re
import signal
import time

from daphne.cli import CommandLineInterface
from daphne.http_protocol import WebRequest
from daphne.server import Server  # first: it installs the asyncio reactor that twisted.internet.reactor is
from django.conf import settings
from twisted.internet import reactor
from twisted.web import http as twisted_http

from myrecall.shutdown import exit_deadline, exit_now

EXIT_MARGIN_S = 3.0  # past the drain, for the exit itself (closing connections, stopping the agent)
DRAIN_CHECK_S = 0.1


class DrainingServer(Server):
    def __init__(self, *args, **kwargs):
        # Our signal handlers, not Twisted's: its stop cancels the requests in flight at once.
        super().__init__(*args, **{**kwargs, "signal_handlers": False})
        self.ports = []
        self.stopping = False

    def run(self):
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda signum, frame: reactor.callFromThread(self.stop if self.stopping else self.drain))
        super().run()

    def listen_success(self, port):
        self.ports.append(port)
        super().listen_success(port)

    def create_application(self, protocol, scope):
        if self.stopping and isinstance(protocol, WebRequest):
            _connection_close(protocol)
        return super().create_application(protocol, scope)

    def drain(self) -> None:
        self.stopping = True
        exit_deadline(settings.STOP_GRACE_S + EXIT_MARGIN_S)
        for port in self.ports:
            port.stopListening()
        # A kept-alive connection would bring request after request: each closes after its answer.
        for protocol in self.connections:
            if isinstance(protocol, WebRequest):
                _connection_close(protocol)
        deadline = time.monotonic() + settings.STOP_GRACE_S

        def check() -> None:
            if self.requests_unanswered() and time.monotonic() < deadline:
                reactor.callLater(DRAIN_CHECK_S, check)
            else:
                self.stop()

        check()

    def requests_unanswered(self) -> int:
        """HTTP requests whose app has not started its response (a stream that has, such as the live
        timeline's, never ends by itself and is not waited for)."""
        return sum(
            1
            for protocol, details in self.connections.items()
            if isinstance(protocol, WebRequest)
            and "application_instance" in details
            and not details["application_instance"].done()
            and not protocol._response_started
        )


def _connection_close(request: WebRequest) -> None:
    channel = getattr(request, "channel", None)  # a request that has finished has none
    if channel is not None:
        channel.persistent = False
        request.responseHeaders.setRawHeaders(b"connection", [b"close"])


class WebCommandLine(CommandLineInterface):
    server_class = DrainingServer


_twisted_request_line_parse = twisted_http._parseRequestLine


def _request_line_parse(line: bytes) -> tuple[bytes, bytes, bytes]:
    """Twisted (and daphne after it) answers an empty 400 to a request target with bytes past ASCII,
    which curl sends as typed (screenpipe's skill: /search?q=会议 or an emoji); screenpipe takes them.
    They are percent-encoded here, as a browser sends them, so the app reads the same UTF-8."""
    parts = line.split(b" ")
    if len(parts) == 3:
        parts[1] = re.sub(rb"[\x80-\xff]", lambda byte: b"%%%02X" % byte[0][0], parts[1])
    return _twisted_request_line_parse(b" ".join(parts))


def main() -> None:
    twisted_http._parseRequestLine = _request_line_parse
    outcome = {"code": 1}
    # Registered before the app's exit hooks, so it runs after them (stopping the agent) and ends the process there.
    atexit.register(lambda: exit_now(outcome["code"]))
    WebCommandLine.entrypoint()  # SystemExit(1) when it cannot listen
    outcome["code"] = 0


if __name__ == "__main__":
    main()
