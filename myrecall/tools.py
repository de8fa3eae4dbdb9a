"""MyRecall's read operations, each described once, and the one catalogue that offers them.

A `Tool` is one read operation: its name, what it does and returns (its description), the
parameters it takes with their types, limits and meanings (`params`, an InputSchema, plus the
ids it takes from its path), what it returns (`returns`, a Schema), and how it runs (`run`, over
the checked parameters and the caller's `Context`). Each app writes its own tools beside its
selectors (frames/tools.py, search/tools.py, chat/tools.py) and registers them when it is ready
(`tool_register`). Everything that offers MyRecall's reads describes from here, so a new
operation is written once and offered everywhere:

- the REST API and its OpenAPI docs: `route_add` gives a tool with a `path` its GET route under
  /api/v1, with the tool's description, parameters and answer;
- the MCP server (agent_bridge/mcp.py): every tool, its input schema from `input_schema` (times
  there also take ISO 8601 and relative forms: `arguments_read`);
- the Pi agent's skill (skills/myrecall-search/SKILL.md, written by `manage.py skill_write`):
  the tools with a path, as the curl calls Pi makes.

Times: a parameter marked `INSTANT` is epoch seconds, or ISO 8601 ("2026-11-26T14:00", local
time when it names no offset), "now", "today", "yesterday" or "2h ago"
(`myrecall.timezones.instant_parse`), in the REST API as for assistants; the OpenAPI schema
says epoch seconds, the form every client can send."""

import difflib
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any
from zoneinfo import ZoneInfo

from django.http import HttpRequest
from ninja import Path, Router, Schema
from pydantic import AfterValidator, BeforeValidator, Field, ValidationError, ValidationInfo

from myrecall.errors import ApplicationError
from myrecall.inputs import InputSchema, NoQuery, StrictQuery, errors_explained
from myrecall.schemas import responses
from myrecall.timezones import instant_parse, machine_timezone, request_timezone, timezone_parse, zone_names


def _instant_read(value: Any, info: ValidationInfo) -> Any:
    """A time given as text in a REST query: epoch seconds as they are, else any of
    instant_parse's forms, local times in the timezone the request names (its `timezone`
    parameter, else the browser's tz cookie, else this machine's)."""
    if not isinstance(value, str):
        return value
    try:
        return float(value)
    except ValueError:
        pass
    request = (info.context or {}).get("request")
    zone = _request_zone(request, request.GET.get("timezone")) if request is not None else machine_timezone()
    name = info.field_name or "time"
    try:
        return instant_parse(value, zone=zone, name=name)
    except ApplicationError as exc:
        raise ValueError(exc.message.removeprefix(f"{name} is ").removeprefix(f"{name} ")) from None


@dataclass(frozen=True)
class _Instant(BeforeValidator):
    """Field metadata: this parameter is a point in time (see the module's note); as text it is
    read with instant_parse."""

    def __repr__(self) -> str:
        return "INSTANT"


INSTANT = _Instant(_instant_read)


def _zone_known(value: str | None) -> str | None:
    if value is not None and value not in zone_names():
        raise ValueError(f"unknown timezone {value!r}; use an IANA name such as Europe/Berlin")
    return value


def _zone_names(schema: dict) -> None:
    schema["anyOf"][0]["enum"] = sorted(zone_names())


TimezoneName = Annotated[
    str | None,
    Field(
        max_length=64,
        json_schema_extra=_zone_names,
        description="IANA name local times are given in; default the browser's (tz cookie), else this machine's.",
    ),
    AfterValidator(_zone_known),
]
LONG_ENUM = 30  # an assistant is told the kind of value rather than hundreds of choices (timezones)
INSTANT_FORMS = "ISO 8601 (local time when no offset is given), epoch seconds, 'now', 'today', 'yesterday' or relative ('2h ago', '3d ago')"


@dataclass(frozen=True)
class PathId:
    """An id a tool takes from its REST path (frame_id in /frames/{frame_id}/ocr); for an
    assistant it is one more parameter."""

    name: str
    description: str


@dataclass(frozen=True)
class Context:
    """Who asks, as the tools need it: the timezone local times are given in, the address links
    are made absolute with ("" keeps them relative to the server), and whether the caller's
    token may only read (then a tool that keeps something, `Tool.keeps`, keeps nothing)."""

    zone: ZoneInfo
    origin: str = ""
    read_only: bool = True

    def link(self, path: str) -> str:
        return self.origin.rstrip("/") + path if self.origin else path


@dataclass(frozen=True)
class Tool:
    name: str  # snake_case: the MCP tool's name and the REST operation's id
    title: str  # a few words
    description: str  # what it does and what it returns, for people and models alike
    params: type[InputSchema]
    returns: type[Schema] | None  # None: it returns an image (bytes and its media type)
    run: Callable[..., Any]  # run(params, context, **path_ids) -> a dict shaped as `returns`
    path: str | None = None  # REST: GET /api/v1{path}; None: offered to assistants only
    path_ids: tuple[PathId, ...] = ()
    errors: tuple[int, ...] = ()  # REST answers beyond 400 and 401 (404 for an unknown frame)
    example: dict[str, str] = field(default_factory=dict)  # the skill's curl example: parameter -> shell word
    as_text: Callable[[dict], str] | None = None  # how an assistant reads the answer (else as JSON)
    keeps: str = ""  # what it stores for a caller that may write (range_summary: its chat); "": nothing, for anyone

    def summary_line(self) -> str:
        return self.description.split("\n\n")[0].replace("\n", " ")


_catalogue: dict[str, Tool] = {}


def tool_register(tool: Tool) -> None:
    """Offer a tool (from an app's ready()); a second tool of one name is a mistake."""
    if tool.name in _catalogue and _catalogue[tool.name] is not tool:
        raise ValueError(f"two tools are named {tool.name!r}")
    _catalogue[tool.name] = tool


def tools() -> list[Tool]:
    """Every tool, in the order the apps registered them (pipeline order)."""
    return list(_catalogue.values())


def tool_get(name: str) -> Tool | None:
    return _catalogue.get(name)


def instant_fields(params: type[InputSchema]) -> list[str]:
    return [name for name, info in params.model_fields.items() if any(meta is INSTANT for meta in info.metadata)]


# -- the REST API ---------------------------------------------------------------------------------


def request_context(request: HttpRequest, zone_name: str | None = None) -> Context:
    """A REST caller's context: the timezone it names (a `timezone` parameter, else the browser's
    tz cookie, else this machine's), links relative to the server."""
    return Context(zone=_request_zone(request, zone_name))


def _request_zone(request: HttpRequest, zone_name: str | None) -> ZoneInfo:
    """The timezone a REST caller names: `zone_name` (its `timezone` parameter), else the
    browser's tz cookie, else this machine's. An unknown name counts as none (the parameter's
    own check refuses it)."""
    zone = timezone_parse(zone_name) if zone_name else None
    if zone is None and (request.GET.get("tz") or request.COOKIES.get("tz")):
        zone = request_timezone(request)
    return zone or machine_timezone()


def route_add(router: Router, tool: Tool) -> None:
    """The tool's GET route under the router: its path ids from the path, its parameters from the
    query (strictly: unknown or repeated ones are refused), its answer as `returns` says."""
    if tool.path is None or tool.returns is None:
        raise ValueError(f"tool {tool.name!r} has no REST route")

    def endpoint(request: HttpRequest, params=None, **ids):
        params = params if tool.params.model_fields else tool.params()
        return tool.run(params, request_context(request, getattr(params, "timezone", None)), **ids)

    parameters = [inspect.Parameter("request", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=HttpRequest)]
    parameters += [
        inspect.Parameter(pid.name, inspect.Parameter.KEYWORD_ONLY, annotation=Annotated[int, Path(..., description=pid.description)])
        for pid in tool.path_ids
    ]
    parameters.append(
        inspect.Parameter(
            "params",
            inspect.Parameter.KEYWORD_ONLY,
            # An operation without parameters refuses any given, as the others refuse unknown ones.
            annotation=StrictQuery[tool.params] if tool.params.model_fields else NoQuery,
        )
    )
    endpoint.__signature__ = inspect.Signature(parameters)
    endpoint.__name__ = endpoint.__qualname__ = tool.name
    endpoint.__doc__ = tool.description
    router.get(
        tool.path,
        response=responses({200: tool.returns}, *tool.errors),
        summary=tool.title,
        operation_id=tool.name,
        url_name=tool.name,
    )(endpoint)


# -- assistants (MCP) -------------------------------------------------------------------------------


def input_schema(tool: Tool) -> dict:
    """The JSON Schema of the tool's arguments for an assistant: its path ids, then its
    parameters, with their limits; times also as text (INSTANT_FORMS)."""
    schema = tool.params.model_json_schema()
    properties = {
        pid.name: {"type": "integer", "minimum": 1, "description": pid.description} for pid in tool.path_ids
    }
    for name, prop in schema.get("properties", {}).items():
        if name in instant_fields(tool.params):
            said = prop.get("description", "")
            prop = {
                "anyOf": [{"type": "number"}, {"type": "string", "maxLength": 64}],
                "description": f"{said} Also {INSTANT_FORMS}.".strip(),
                **({"default": prop["default"]} if "default" in prop else {}),
            }
        properties[name] = _short_enums(prop)
    required = [pid.name for pid in tool.path_ids] + list(schema.get("required", []))
    out = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        out["required"] = required
    if "$defs" in schema:
        out["$defs"] = schema["$defs"]
    return out


def _short_enums(prop: dict) -> dict:
    if len(prop.get("enum", ())) > LONG_ENUM:
        prop = {key: value for key, value in prop.items() if key != "enum"}
    if "anyOf" in prop:
        prop = {**prop, "anyOf": [_short_enums(option) for option in prop["anyOf"]]}
    return prop


# Other names assistants give arguments, and the argument each stands for where a tool takes it.
ARGUMENT_MEANT = {
    "query": "q", "text": "q", "search": "q", "keywords": "q", "term": "q",
    "start": "start_time", "from": "start_time", "since": "start_time",
    "end": "end_time", "to": "end_time", "until": "end_time",
    "app": "app_name", "application": "app_name", "window": "window_name", "title": "window_name", "url": "browser_url",
    "id": "frame_id", "frame": "frame_id", "tz": "timezone",
    "count": "limit", "max_results": "limit", "n": "limit", "prompt": "question", "message": "question",
}


def _argument_meant(name: str, known: list[str]) -> str | None:
    """The argument an unknown one most likely stands for: its usual other name, else the closest spelling."""
    meant = ARGUMENT_MEANT.get(name.casefold())
    if meant in known:
        return meant
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    return close[0] if close else None


def arguments_read(tool: Tool, arguments: dict | None, zone: ZoneInfo) -> tuple[InputSchema, dict[str, int]]:
    """An assistant's arguments as the tool's parameters and path ids, checked as the REST API
    checks its query; raises ApplicationError with every problem named (an unknown argument with
    the one it likely stands for)."""
    arguments = dict(arguments or {})
    ids: dict[str, int] = {}
    problems = []
    known = [pid.name for pid in tool.path_ids] + list(tool.params.model_fields)
    for name in [name for name in arguments if name not in known]:
        del arguments[name]
        meant = _argument_meant(name, known)
        hint = f'did you mean "{meant}"?' if meant else f"the arguments are: {', '.join(known)}"
        problems.append({"loc": [name], "msg": f'Unknown argument "{name}" ({hint})'})
    for pid in tool.path_ids:
        value = arguments.pop(pid.name, None)
        if isinstance(value, str) and re.fullmatch(r"\s*\d{1,18}\s*", value):
            value = int(value)
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            problems.append({"loc": [pid.name], "msg": "required: a frame id (a whole number from a search result)"})
        else:
            ids[pid.name] = value
    for name in instant_fields(tool.params):
        value = arguments.get(name)
        if isinstance(value, str):
            try:
                arguments[name] = instant_parse(value, zone=zone, name=name)
            except ApplicationError as exc:
                problems.append({"loc": [name], "msg": exc.message})
                arguments.pop(name)
    try:
        params = tool.params.model_validate(arguments)
    except ValidationError as exc:
        said = {problem["loc"][0] for problem in problems}
        problems += [error for error in exc.errors() if not error["loc"] or error["loc"][0] not in said]  # a time said above is not also "required"
        params = None
    if problems:
        # Located as the REST query's parameters are, so that an argument named "query" or "body" keeps its name.
        message, listed = errors_explained([{**problem, "loc": ["query", *problem.get("loc", ())]} for problem in problems])
        raise ApplicationError(message.replace("nothing was changed", "nothing was read"), extra={"errors": listed})
    return params, ids
