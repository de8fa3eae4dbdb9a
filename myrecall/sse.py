"""Server-sent events from a synchronous event source.

Under ASGI (daphne), Django buffers a synchronous streaming iterator whole before sending it,
so the events are produced in a worker thread and handed to an async iterator through a
queue: each event reaches the client as soon as it exists. A comment line goes out while
nothing happens for KEEPALIVE_S, and a client that goes away stops the source at its next
event (the source generator is closed, so it can record that). Under WSGI (the test client)
the source is streamed directly.
"""

import asyncio
import json
import logging
import threading
from collections.abc import AsyncIterator, Iterator

from django.core.handlers.asgi import ASGIRequest
from django.db import close_old_connections, connections
from django.http import HttpRequest, StreamingHttpResponse

logger = logging.getLogger(__name__)

KEEPALIVE_S = 15.0
_DONE = object()

Event = tuple[str, dict]


def sse_encode(event: str, data: dict) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


def _run(events: Iterator[Event], put, stop: threading.Event) -> None:
    close_old_connections()
    try:
        for item in events:
            if stop.is_set():
                break
            put(item)
    except Exception as exc:
        logger.exception("Event source failed")
        put(("error", {"message": "Internal error while answering; see the server log.", "detail": type(exc).__name__}))
    finally:
        try:
            events.close()  # type: ignore[attr-defined]
        except Exception:
            logger.exception("Event source failed while closing")
        connections.close_all()
        put(_DONE)


async def _threaded(events: Iterator[Event]) -> AsyncIterator[bytes]:
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue = asyncio.Queue()
    stop = threading.Event()

    def put(item) -> None:
        try:
            loop.call_soon_threadsafe(queue.put_nowait, item)
        except RuntimeError:  # the loop is gone: the client left and the server moved on
            stop.set()

    threading.Thread(target=_run, args=(events, put, stop), name="sse-source", daemon=True).start()
    try:
        while True:
            try:
                item = await asyncio.wait_for(queue.get(), KEEPALIVE_S)
            except TimeoutError:
                yield b": keepalive\n\n"
                continue
            if item is _DONE:
                return
            yield sse_encode(*item)
    finally:
        stop.set()


def _direct(events: Iterator[Event]) -> Iterator[bytes]:
    for item in events:
        yield sse_encode(*item)


def sse_response(request: HttpRequest, events: Iterator[Event]) -> StreamingHttpResponse:
    content = _threaded(events) if isinstance(request, ASGIRequest) else _direct(events)
    response = StreamingHttpResponse(content, content_type="text/event-stream; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


def wants_event_stream(request: HttpRequest) -> bool:
    return "text/event-stream" in request.headers.get("Accept", "")
