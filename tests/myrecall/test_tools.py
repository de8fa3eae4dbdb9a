"""The read tools are written once (myrecall/tools.py and each app's tools.py) and offered from
there: the REST routes and their OpenAPI docs, the Pi skill, and the arguments an assistant
sends (MCP). A tool added to the catalogue appears in every one of them."""

import time
from datetime import datetime
from datetime import timezone as dt_timezone
from zoneinfo import ZoneInfo

import pytest
from ninja import NinjaAPI, Router, Schema
from pydantic import Field

from agent_bridge.skill import skill_path, skill_render
from myrecall.errors import ApplicationError
from myrecall.inputs import InputSchema
from myrecall.tools import INSTANT, Context, PathId, Tool, arguments_read, input_schema, route_add, tool_get, tools
from typing import Annotated

pytestmark = pytest.mark.django_db

DAY = 86400


def test_the_catalogue_holds_every_read_operation():
    names = [tool.name for tool in tools()]
    assert names == ["frame_text", "frames_around", "frame_image", "activity_summary", "search", "range_summary"]
    for tool in tools():
        assert tool.description and tool.title and tool.params and tool.run


def test_openapi_describes_each_rest_tool_from_the_catalogue(api):
    schema = api.get("/api/v1/openapi.json").json()
    operations = {op["operationId"]: (path, op) for path, ops in schema["paths"].items() for op in ops.values()}
    for tool in tools():
        if tool.path is None:
            assert tool.name not in operations
            continue
        path, op = operations[tool.name]
        assert path == "/api/v1" + tool.path
        assert op["description"] == tool.description
        given = {p["name"] for p in op.get("parameters", [])}
        assert given == set(tool.params.model_fields) | {pid.name for pid in tool.path_ids}
        assert "200" in op["responses"] and "400" in op["responses"] and "401" in op["responses"]
    limit = next(p for p in operations["search"][1]["parameters"] if p["name"] == "limit")
    assert limit["schema"]["maximum"] == 100 and limit["schema"]["minimum"] == 1


def test_the_skill_is_what_the_catalogue_says():
    assert skill_path().read_text(encoding="utf-8") == skill_render(), "run `manage.py skill_write`"
    text = skill_render()
    for tool in tools():
        assert (f"`GET /api/v1{tool.path}`" in text) is (tool.path is not None)
    assert "`limit` (integer, 1 to 100, default 20)" in text
    assert "frames/FRAME_ID/ocr" in text


def test_an_assistant_gives_times_as_people_write_them():
    search = tool_get("search")
    schema = input_schema(search)
    assert schema["required"] == ["start_time"]
    assert {"type": "string", "maxLength": 64} in schema["properties"]["start_time"]["anyOf"]
    assert "2h ago" in schema["properties"]["start_time"]["description"]
    zone = ZoneInfo("Asia/Kolkata")
    params, ids = arguments_read(search, {"q": "budget", "start_time": "2h ago", "end_time": "2026-11-26T14:00"}, zone)
    assert ids == {}
    assert abs(params.start_time - (time.time() - 7200)) < 5
    assert params.end_time == datetime(2026, 11, 26, 8, 30, tzinfo=dt_timezone.utc).timestamp()  # 14:00 in Kolkata
    params, _ = arguments_read(search, {"start_time": 1764145800, "end_time": "1764149400"}, zone)
    assert (params.start_time, params.end_time) == (1764145800.0, 1764149400.0)
    params, _ = arguments_read(search, {"start_time": "2026-11-26T14:00:00Z"}, zone)
    assert params.start_time == datetime(2026, 11, 26, 14, 0, tzinfo=dt_timezone.utc).timestamp()


def test_an_assistants_bad_arguments_are_named_and_read_nothing():
    search = tool_get("search")
    with pytest.raises(ApplicationError) as caught:
        arguments_read(search, {"start_time": "yesterday-ish", "limit": 500, "colour": "red"}, ZoneInfo("UTC"))
    fields = {e["field"] for e in caught.value.extra["errors"]}
    assert fields == {"start_time", "limit", "colour"}
    assert "nothing was read" in caught.value.message
    with pytest.raises(ApplicationError) as caught:
        arguments_read(tool_get("frame_text"), {"frame_id": "seven"}, ZoneInfo("UTC"))
    assert caught.value.extra["errors"][0]["field"] == "frame_id"
    _, ids = arguments_read(tool_get("frame_text"), {"frame_id": 7}, ZoneInfo("UTC"))
    assert ids == {"frame_id": 7}


class EchoIn(InputSchema):
    since: Annotated[float, INSTANT] = Field(description="From when.")
    words: int = Field(3, ge=1, le=9, description="How many words.")


class EchoOut(Schema):
    thing_id: int
    since: float
    words: int
    zone: str


def test_a_new_tool_is_written_once_and_offered_everywhere(client, api_token):
    echo = Tool(
        name="echo_thing",
        title="Echo a thing",
        description="Says back what it was given.",
        params=EchoIn,
        returns=EchoOut,
        run=lambda params, context, *, thing_id: {"thing_id": thing_id, "since": params.since, "words": params.words, "zone": context.zone.key},
        path="/things/{thing_id}/echo",
        path_ids=(PathId("thing_id", "The thing."),),
        example={"since": "$(date +%s)"},
    )
    router = Router()
    route_add(router, echo)
    local = NinjaAPI(urls_namespace="echo-test")
    local.add_router("/", router)
    operation = local.get_openapi_schema(path_prefix="")["paths"]["/things/{thing_id}/echo"]["get"]
    assert operation["operationId"] == "echo_thing" and operation["description"] == "Says back what it was given."
    assert {p["name"] for p in operation["parameters"]} == {"thing_id", "since", "words"}
    schema = input_schema(echo)
    assert schema["required"] == ["thing_id", "since"] and schema["properties"]["words"]["maximum"] == 9
    params, ids = arguments_read(echo, {"thing_id": 4, "since": "now", "words": 2}, ZoneInfo("UTC"))
    assert echo.run(params, Context(zone=ZoneInfo("UTC")), **ids)["thing_id"] == 4


def test_activity_summary_over_rest(api, frame_make):
    now = time.time()
    first = frame_make("Quarterly budget review with the finance team", at=now - 600, app_name="Firefox", window_name="Budget")
    frame_make("def main(): print('hello from the editor window')", at=now - 300, app_name="Code", window_name="main.py")
    frame_make("Quarterly budget review, second draft of the numbers", at=now - 200, app_name="Firefox", window_name="Budget")
    answer = api.get("/api/v1/activity", {"start_time": now - 3600, "end_time": now, "timezone": "Europe/Berlin"})
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["total_frames"] == 3 and body["timezone"] == "Europe/Berlin"
    assert [app["app_name"] for app in body["apps"]] == ["Firefox", "Code"]
    assert body["key_texts"][0]["text"] == "Quarterly budget review, second draft of the numbers"
    assert body["key_texts"][0]["viewer_url"] == f"/frames/{first + 2}/view"
    assert body["key_texts"][0]["local_time"].endswith("+01:00")
    only = api.get("/api/v1/activity", {"start_time": now - 3600, "end_time": now, "app_name": "code"}).json()
    assert [app["app_name"] for app in only["apps"]] == ["Code"]
    until_now = api.get("/api/v1/activity", {"start_time": now - 3600}).json()  # end_time defaults to now, as search's
    assert until_now["total_frames"] == 3 and until_now["end_time"] >= now
    refused = api.get("/api/v1/activity", {"end_time": now})
    assert refused.status_code == 400 and refused.json()["extra"]["errors"][0]["field"] == "start_time"
    refused = api.get("/api/v1/activity", {"start_time": now - 3600, "end_time": now, "app": "Code"})
    assert refused.status_code == 400


def test_search_results_carry_local_time_and_the_viewer(api, frame_make):
    now = time.time()
    frame_id = frame_make("The quarterly budget spreadsheet", at=now - 60)
    body = api.get("/api/v1/search", {"q": "budget", "start_time": now - 3600, "mode": "keyword", "timezone": "Asia/Shanghai"}).json()
    content = body["data"][0]["content"]
    assert content["frame_id"] == frame_id
    assert content["viewer_url"] == f"/frames/{frame_id}/view" and content["local_time"].endswith("+08:00")
    around = api.get(f"/api/v1/frames/{frame_id}/context").json()
    assert around["frame"]["viewer_url"] == f"/frames/{frame_id}/view"
