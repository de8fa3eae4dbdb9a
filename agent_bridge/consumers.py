"""The Chat page's live agent turn over a websocket (ws/chat/agent/).

The page sends {"action": "ask", ...the API's question (chat.schemas.ChatIn), mode "agent"} and
{"action": "abort", "turn_id"}, each checked whole by its schema (agent_bridge.schemas). The turn runs in a thread (the same events as
the API's SSE stream: "start", Pi's own events, then "final" or "error"); each event reaches
this socket through the channel layer as {"event", "data"}."""

import asyncio
import json
import logging
import threading

from asgiref.sync import sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from django.db import close_old_connections, connections
from pydantic import ValidationError

from agent_bridge.schemas import AbortIn, AskIn
from agent_bridge.services import agent_abort
from chat.modes import ChatQuery
from chat.selectors import chat_query
from chat.services import chat_answer_stream
from myrecall.errors import ApplicationError
from myrecall.inputs import errors_explained
from myrecall.timezones import DEFAULT_TZ, TZ_COOKIE, timezone_parse

logger = logging.getLogger(__name__)


def _turn_run(channel_name: str, query: ChatQuery, loop: asyncio.AbstractEventLoop) -> None:
    """Run one turn and send each of its events to the socket (a thread of its own). Each send
    runs on the server's event loop, where the channel layer lives: the in-memory layer's queues
    are not thread-safe, and a send from another loop reached the socket up to a second late."""
    layer = get_channel_layer()

    def send(channel: str, message: dict) -> None:
        asyncio.run_coroutine_threadsafe(layer.send(channel, message), loop).result(timeout=30)

    close_old_connections()
    try:
        for event, data in chat_answer_stream(query=query):
            send(channel_name, {"type": "turn.event", "event": event, "data": data})
    except ApplicationError as exc:
        send(channel_name, {"type": "turn.event", "event": "error", "data": {"message": exc.message, **exc.extra}})
    except Exception:
        logger.exception("Agent turn over the websocket failed")
        send(channel_name, {"type": "turn.event", "event": "error", "data": {"message": "Internal error; see the server log."}})
    finally:
        connections.close_all()


class AgentChatConsumer(AsyncWebsocketConsumer):
    async def connect(self):
        if not self.scope["user"].is_authenticated:
            await self.close(code=4401)
            return
        self.zone = timezone_parse(self.scope.get("cookies", {}).get(TZ_COOKIE)) or timezone_parse(DEFAULT_TZ)
        headers = dict(self.scope.get("headers") or [])
        host = headers.get(b"host", b"127.0.0.1").decode("latin-1")
        self.origin = f"http://{host}/"
        await self.accept()

    async def receive(self, text_data=None, bytes_data=None):
        try:
            message = json.loads(text_data or "{}")
        except ValueError:
            await self._error("Not JSON.")
            return
        schema = {"ask": AskIn, "abort": AbortIn}.get(message.get("action") if isinstance(message, dict) else None)
        if schema is None:
            await self._error("Unknown action; send ask or abort.")
            return
        try:
            parsed = schema.model_validate(message)
            if isinstance(parsed, AbortIn):
                await sync_to_async(agent_abort)(turn_id=parsed.turn_id)
                return
            query = await sync_to_async(chat_query)(payload=parsed, zone=self.zone, origin=self.origin)
        except ValidationError as exc:
            await self._error(errors_explained(exc.errors())[0])
            return
        except ApplicationError as exc:
            await self._error(exc.message)
            return
        loop = asyncio.get_running_loop()
        threading.Thread(target=_turn_run, args=(self.channel_name, query, loop), name="agent-turn-ws", daemon=True).start()

    async def turn_event(self, event):
        await self.send(text_data=json.dumps({"event": event["event"], "data": event["data"]}, ensure_ascii=False))

    async def _error(self, message: str):
        await self.send(text_data=json.dumps({"event": "error", "data": {"message": message}}))
