"""MyRecall as an MCP server, so that Claude Desktop, Cursor or any MCP client can ask about the
person's screen history. This module owns the `mcp` SDK.

Every read tool of the catalogue (myrecall/tools.py) is an MCP tool, with its description, its
input schema (times also as ISO 8601, "now" or "2h ago") and its output schema; an answer comes
as structured content plus text for the model (a tool's `as_text`, else JSON); a frame's image as
image content. Errors (bad arguments, an unknown frame) are tool errors with the message: the
session goes on. With a read-only token every tool only reads; with one that may write, a tool
that keeps something (range_summary: its chat) keeps it, and its annotations say it is not read-only.

Two transports:
- stdio: `manage.py mcp --token-file F`, for clients that start a command;
- streamable HTTP at /mcp on the running server (`http_app`, mounted by myrecall/asgi.py),
  stateless, answering JSON. Both need a MyRecall token (read-only ones work); nothing anonymous.
  Links in answers point where the server answers: the request's address over HTTP; over stdio,
  `--url`, else the address `serve` recorded as it started (myrecall/address.py)."""

import asyncio
import base64
import json
import logging
from typing import Any

import mcp_types as types
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings

from myrecall.errors import ApplicationError, error_body
from myrecall.services import api_token_authenticate
from myrecall.timezones import machine_timezone, timezone_parse
from myrecall.tools import Context, Tool, arguments_read, input_schema, tool_get, tools
from myrecall.worker_hooks import web_startup_hooks

logger = logging.getLogger(__name__)

MCP_PATH = "/mcp"
INSTRUCTIONS = (
    "MyRecall is the user's screen memory: frames (screenshots) with their time, app, window, URL and "
    "text. Start with search (always bound the time range) or activity_summary for 'what did I do "
    "between X and Y'; read a frame with frame_text, its neighbours with frames_around. Every claim "
    "about what the user saw or did should cite the frame it comes from with its local time and its "
    "viewer link, so the user can open and check it. Cite only frames a tool returned."
)
ORIGIN_SCOPE_KEY = "myrecall.origin"
READ_ONLY_SCOPE_KEY = "myrecall.read_only"


def _tool_listing(tool: Tool, *, read_only: bool) -> types.Tool:
    """The tool as a client sees it: read-only unless it keeps something and this caller may write."""
    return types.Tool(
        name=tool.name,
        title=tool.title,
        description=tool.description,
        input_schema=input_schema(tool),
        output_schema=tool.returns.model_json_schema(mode="serialization") if tool.returns is not None else None,
        annotations=types.ToolAnnotations(
            title=tool.title, read_only_hint=read_only or not tool.keeps, destructive_hint=False, open_world_hint=False
        ),
    )


def _failed(message: str, extra: dict | None = None) -> types.CallToolResult:
    text = message if not extra else f"{message}\n{json.dumps(extra, ensure_ascii=False, default=str)}"
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)


def tool_call(name: str, arguments: dict[str, Any] | None, *, origin: str, read_only: bool) -> types.CallToolResult:
    """One call of a tool, in a thread that may use the database: its answer, or a tool error."""
    tool = tool_get(name)
    if tool is None:
        return _failed(f"There is no tool {name!r}; the tools are: {', '.join(t.name for t in tools())}.")
    zone_name = (arguments or {}).get("timezone")
    zone = (timezone_parse(zone_name) if isinstance(zone_name, str) else None) or machine_timezone()
    close_old_connections()
    try:
        params, ids = arguments_read(tool, arguments, zone)
        value = tool.run(params, Context(zone=zone, origin=origin, read_only=read_only), **ids)
        if tool.returns is None:
            data, mime = value
            return types.CallToolResult(content=[types.ImageContent(data=base64.b64encode(data).decode(), mime_type=mime)])
        answer = tool.returns.model_validate(value).model_dump(mode="json")
        text = tool.as_text(answer) if tool.as_text else json.dumps(answer, ensure_ascii=False)
        return types.CallToolResult(content=[types.TextContent(text=text)], structured_content=answer)
    except ApplicationError as exc:
        return _failed(exc.message, exc.extra)
    except Exception:
        logger.exception("MCP tool %s failed", name)
        return _failed("Internal error while running the tool; see MyRecall's server log.")
    finally:
        close_old_connections()


def _caller(ctx) -> dict:
    """Who calls: over HTTP, what McpHttp put in the request's scope; over stdio, what the command said."""
    request = getattr(ctx, "request", None)
    scope = getattr(request, "scope", None) or {}
    if ORIGIN_SCOPE_KEY in scope:
        return {"origin": scope[ORIGIN_SCOPE_KEY], "read_only": scope[READ_ONLY_SCOPE_KEY]}
    return _stdio_caller


_stdio_caller = {"origin": "", "read_only": True}


async def _list_tools(ctx, params) -> types.ListToolsResult:
    read_only = _caller(ctx)["read_only"]
    return types.ListToolsResult(tools=[_tool_listing(tool, read_only=read_only) for tool in tools()])


async def _call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
    return await sync_to_async(tool_call, thread_sensitive=True)(params.name, params.arguments, **_caller(ctx))


def server_make() -> Server:
    return Server(
        "myrecall",
        version="1",
        title="MyRecall",
        description="The user's screen memory: search it, read frames, summarise a time range with evidence.",
        instructions=INSTRUCTIONS,
        on_list_tools=_list_tools,
        on_call_tool=_call_tool,
    )


# -- stdio --------------------------------------------------------------------------------------------


def stdio_run(*, origin: str, read_only: bool) -> None:
    """Serve one client over stdin and stdout until it closes them, for a token that may only read or not."""
    _stdio_caller.update(origin=origin.rstrip("/"), read_only=read_only)
    for hook in web_startup_hooks:  # what a process that answers searches loads at start: the embedder
        hook()
    server = server_make()

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    asyncio.run(main())


# -- streamable HTTP at /mcp -------------------------------------------------------------------------


def _allowed_hosts() -> list[str]:
    hosts = [host for host in settings.ALLOWED_HOSTS if host != "*"]
    return [f"{host}:*" for host in hosts] + hosts


class McpHttp:
    """The ASGI app at /mcp: a bearer token is required (the login cookie does not count), then the
    SDK's streamable HTTP transport answers, stateless, in JSON."""

    def __init__(self):
        self._server = server_make()
        security = None
        if "*" not in settings.ALLOWED_HOSTS:
            hosts = _allowed_hosts()
            security = TransportSecuritySettings(
                enable_dns_rebinding_protection=True,
                allowed_hosts=hosts,
                allowed_origins=[f"{scheme}://{host}" for host in hosts for scheme in ("http", "https")],
            )
        self._app = self._server.streamable_http_app(
            streamable_http_path=MCP_PATH, stateless_http=True, json_response=True, transport_security=security
        )
        self._running: asyncio.Task | None = None
        self._lock: asyncio.Lock | None = None

    async def _manager_running(self) -> None:
        """The SDK's session manager runs for the server's life; daphne sends no ASGI lifespan
        events, so it starts with the first request."""
        if self._running is not None and not self._running.done():
            return
        self._lock = self._lock or asyncio.Lock()
        async with self._lock:
            if self._running is not None and not self._running.done():
                return
            ready = asyncio.Event()

            async def hold() -> None:
                async with self._server.session_manager.run():
                    ready.set()
                    await asyncio.Event().wait()

            if self._running is not None:  # it stopped (an error): a manager runs once, so make anew
                self.__init__()
                self._lock = asyncio.Lock()
            self._running = asyncio.get_running_loop().create_task(hold())
            await ready.wait()

    async def _refuse(self, send, status: int, message: str) -> None:
        body = json.dumps(error_body(message)).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        if status == 401:
            headers.append((b"www-authenticate", b'Bearer realm="MyRecall"'))
        if status == 405:
            headers.append((b"allow", b"POST"))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope, receive, send) -> None:
        headers = {key.decode("latin-1").lower(): value.decode("latin-1") for key, value in scope.get("headers", [])}
        scheme, _, raw = headers.get("authorization", "").partition(" ")
        token = await sync_to_async(api_token_authenticate, thread_sensitive=True)(raw=raw.strip()) if scheme.lower() == "bearer" and raw.strip() else None
        if token is None:
            await self._refuse(send, 401, "Authentication required: send a MyRecall token as 'Authorization: Bearer <token>' (make one with `.venv/bin/python manage.py token_create NAME --read-only`).")
            return
        if scope.get("method") != "POST":
            # Stateless: no stream of the server's own to GET, no session to DELETE (the spec's 405).
            await self._refuse(send, 405, "MCP here is stateless streamable HTTP: send each JSON-RPC message as a POST.")
            return
        await self._manager_running()
        host = headers.get("host", "")
        scope = {**scope, ORIGIN_SCOPE_KEY: f"{scope.get('scheme', 'http')}://{host}" if host else "", READ_ONLY_SCOPE_KEY: token.read_only}
        await self._app(scope, receive, send)


def http_route(django_app):
    """The site's HTTP app: /mcp (and below) to the MCP server, everything else to Django."""
    mcp_app = None

    async def app(scope, receive, send):
        nonlocal mcp_app
        path = scope.get("path", "")
        if scope["type"] == "http" and (path == MCP_PATH or path.startswith(MCP_PATH + "/")):
            mcp_app = mcp_app or McpHttp()
            await mcp_app(scope, receive, send)
            return
        await django_app(scope, receive, send)

    return app
