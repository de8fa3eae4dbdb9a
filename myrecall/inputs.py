"""How the API reads a request's input, in one place: every body, form and query is checked
whole against its schema before an operation runs, so that a malformed request changes nothing.

- `InputSchema`, the base of every request schema (`BodySchema` of a JSON body's, whose values
  must have their JSON types as they are): unknown fields are refused, text holding a NUL character
  is refused (PostgreSQL cannot store it), and a body must be a JSON object (ninja's Schema would
  read any value's attributes, so `[null, null]` became "every field at its default").
- `StrictQuery[...]` and `StrictForm[...]`: query parameters and form fields the operation does not
  declare are refused (a misspelt `app` beside a delete's range must not widen it to every app);
  `NoQuery` for an operation that takes none.
- `EPOCH_MIN` and `EPOCH_MAX`: the epoch seconds a time may take (year 1970 to 9999).
- `errors_explained`: validation errors as the message and list of the one error shape.
- `TextBool`, `NullableTextBool`: a boolean in a query or form is the word true or false (the
  latter also takes "null" or nothing, how a form spells a JSON null, for not given).
- `WHOLE_NUMBER`: an int of a strict JSON body also taken with a zero fraction (3.0), as JSON
  and the OpenAPI schema's "integer" allow; 2.5, "3" and true are still refused. It goes last in
  the Annotated, after the Field with its bounds (before it, the schema loses the bounds)."""

from collections.abc import Mapping
from typing import Annotated, Any

from ninja import Schema
from ninja.schema import DjangoGetter
from ninja.errors import ValidationError
from ninja.params import models as param_models
from pydantic import BaseModel, BeforeValidator, ConfigDict, field_validator, model_validator

EPOCH_MIN = 0.0
EPOCH_MAX = 253402300799.0  # 9999-12-31T23:59:59Z, the last second Python's datetime holds


# What every text of a request must match (said in the OpenAPI schema; InputSchema checks it).
NO_NUL_PATTERN = "^[^\\u0000]*$"


def _no_nul_documented(schema: dict, model=None) -> None:
    """Give every string of a schema without a pattern (or choices) of its own NO_NUL_PATTERN."""
    if isinstance(schema, list):
        for item in schema:
            _no_nul_documented(item)
        return
    if not isinstance(schema, dict):
        return
    if schema.get("type") == "string" and not {"pattern", "enum", "const", "format"} & schema.keys():
        schema["pattern"] = NO_NUL_PATTERN
    for value in schema.values():
        _no_nul_documented(value)


class InputSchema(Schema):
    """Query and form fields arrive as text and are converted to their types; JSON bodies are strict
    (a boolean is true or false, not 0; a number is not a string)."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_no_nul_documented)

    @model_validator(mode="before")
    @classmethod
    def _an_object(cls, data: Any) -> Any:
        # A JSON object arrives as a dict, then (a second pass of ninja's Schema) wrapped in a
        # DjangoGetter; anything else (a list, a number) is not an object.
        if isinstance(data, Mapping) or isinstance(data, DjangoGetter) and isinstance(data._obj, Mapping):
            return data
        raise ValueError("the body must be a JSON object")

    @field_validator("*", mode="after")
    @classmethod
    def _no_nul(cls, value: Any) -> Any:
        # PostgreSQL stores no NUL in text (nor in JSON): refused on either database, as Django's forms do.
        if _holds_nul(value):
            raise ValueError("must not contain the NUL character (U+0000)")
        return value


def _holds_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, BaseModel):
        return any(_holds_nul(item) for item in value.__dict__.values())
    if isinstance(value, Mapping):
        return any(_holds_nul(key) or _holds_nul(item) for key, item in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(_holds_nul(item) for item in value)
    return False


class BodySchema(InputSchema):
    model_config = ConfigDict(extra="forbid", strict=True)


def _fields_check(model: type, given, source: str) -> None:
    """Refuse a parameter the operation does not declare, or one given twice that takes one value."""
    known = set(getattr(model, "__ninja_flatten_map__", {}))
    lists = set(getattr(model, "__ninja_collection_fields__", []))
    errors = [
        {"loc": [source, name], "msg": f"unknown {source} parameter; known: {', '.join(sorted(known)) or 'none'}"}
        for name in sorted(set(given) - known)
    ] + [
        {"loc": [source, name], "msg": "given more than once; it takes one value"}
        for name in sorted(set(given) & known - lists) if len(given.getlist(name)) > 1
    ]
    if errors:
        raise ValidationError(errors)


class _StrictQueryModel(param_models.QueryModel):
    @classmethod
    def get_request_data(cls, request, api, path_params):
        _fields_check(cls, request.GET, "query")
        return super().get_request_data(request, api, path_params)


class _StrictFormModel(param_models.FormModel):
    @classmethod
    def get_request_data(cls, request, api, path_params):
        _fields_check(cls, request.POST, "form")
        return super().get_request_data(request, api, path_params)


class Query(param_models.Query):
    _model = _StrictQueryModel

    @classmethod
    def _param_source(cls) -> str:
        return "query"


class Form(param_models.Form):
    _model = _StrictFormModel

    @classmethod
    def _param_source(cls) -> str:
        return "form"


class _Shortcut:
    def __init__(self, param: type):
        self._param = param

    def __getitem__(self, annotation: Any) -> Any:
        return Annotated[annotation, self._param(...)]


StrictQuery = _Shortcut(Query)
StrictForm = _Shortcut(Form)


class NoParams(InputSchema):
    """The query of an operation that takes no query parameters."""


# `query: NoQuery` on an operation that takes no query parameters: any one given is refused, as
# on every other operation (a mistyped filter must not be silently ignored).
NoQuery = Annotated[NoParams, Query(None)]


def _text_bool(value: Any) -> Any:
    if isinstance(value, str):
        word = value.strip().lower()
        if word in {"true", "false"}:
            return word == "true"
        raise ValueError("must be true or false")
    return value


def _text_null(value: Any) -> Any:
    return None if isinstance(value, str) and value.strip().lower() in {"", "null"} else value


def _integral(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value


WHOLE_NUMBER = BeforeValidator(_integral)
TextBool = Annotated[bool, BeforeValidator(_text_bool)]  # a query's or form's boolean: true or false, not 1 or yes
NullableTextBool = Annotated[bool | None, BeforeValidator(_text_bool), BeforeValidator(_text_null)]  # also "null" or empty: not given


def _field(loc) -> str | None:
    """("body", "payload", "message") -> "message"; ("query", "limit") -> "limit"; a
    schema validated on its own (a websocket message) has no source: ("message",)."""
    parts = [str(part) for part in loc]
    if parts and parts[0] in {"body", "query", "form", "path", "file"}:
        parts = parts[2:] if parts[0] == "body" else parts[1:]  # a body's operation parameter name is not in it
    return ".".join(parts) or None


ERRORS_SAID = 5  # a message names this many problems; extra.errors lists every one


def errors_explained(errors, *, writes: bool = True) -> tuple[str, list[dict]]:
    """Pydantic's or ninja's validation errors as the one error shape's message and list. The
    message names the first ERRORS_SAID problems and counts the rest; it says nothing was changed
    when the request could have changed something (writes=False for a read: a GET)."""
    listed = [{"field": _field(err.get("loc", ())), "error": str(err.get("msg", "")).removeprefix("Value error, ")} for err in errors]
    said = "; ".join(
        (f"{e['field']}: {e['error']}" if e["field"] else e["error"]).rstrip(". ") for e in listed[:ERRORS_SAID]
    )
    if len(listed) > ERRORS_SAID:
        said += f"; and {len(listed) - ERRORS_SAID} more (extra.errors lists them all)"
    return f"Invalid input{', nothing was changed' if writes else ''}: {said}.", listed

