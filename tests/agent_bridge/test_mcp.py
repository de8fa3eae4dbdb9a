"""MyRecall's MCP server against a real `serve`, through the MCP SDK's own client over both
transports (stdio: `manage.py mcp --token-file F`; streamable HTTP at /mcp), and through a client
no one here wrote: the MCP Inspector's CLI (npm @modelcontextprotocol/inspector)."""

import asyncio
import base64
import io
import json
import os
import subprocess
import sys
import time

import pytest
import requests
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from PIL import Image

from tests import databases
from tests.conftest import render_text_image
from tests.server import REPO, LiveServer, ocr_wait

INSPECTOR = REPO / "node_modules" / ".bin" / "mcp-inspector"
WORDS = "Zanzibar rollout checklist for the quarterly release"


@pytest.fixture(scope="module")
def mcp_server(tmp_path_factory):
    """A `serve` of this module's own: the tools' answers (what came before and after a frame, the
    last hour's activity) hold exactly its frames, whatever other tests ran before."""
    server = LiveServer(tmp_path_factory.mktemp("mcp-live") / "data")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def memory(mcp_server, tmp_path_factory):
    """Three frames of a distinctive morning on the live server, and a read-only token in a file."""
    server = mcp_server
    now = time.time()
    sent = []
    for offset, app, window, lines in (
        (-900, "Firefox", "Release plan - Docs", [WORDS, "Owner: Priya, due Friday"]),
        (-600, "Terminal", "deploy.sh", ["kubectl rollout status deployment/payments", "deployment successfully rolled out"]),
        (-300, "Firefox", "Release plan - Docs", [WORDS, "Step 3: notify the support team"]),
    ):
        image = render_text_image(lines, size=(1280, 200))
        answer = server.session.post(
            server.url + "/api/v1/frames",
            files={"image": ("frame.png", image, "image/png")},
            data={"timestamp": now + offset, "app_name": app, "window_name": window, "device_name": "mcp-test", "focused": "true"},
            timeout=60,
        )
        answer.raise_for_status()
        sent.append(answer.json()["frame_id"])
    ocr_wait(server=server, frame_ids=sent)
    token = server.manage("token_create", "mcp-client", "--read-only").strip().splitlines()[-1]
    token_file = tmp_path_factory.mktemp("mcp") / "token"
    token_file.write_text(token + "\n")
    return {"server": server, "frames": sent, "token": token, "token_file": token_file, "start": now - 3600}


def _stdio(memory, token_file=None, *, url=True) -> StdioServerParameters:
    server = memory["server"]
    return StdioServerParameters(
        command=sys.executable,
        args=[str(REPO / "manage.py"), "mcp", "--token-file", str(token_file or memory["token_file"]), *(["--url", server.url] if url else [])],
        # What the README's client config gives it: the data dir, and the database when it is not the data dir's SQLite.
        env={"PATH": os.environ["PATH"], "MYRECALL_DATA_DIR": str(server.data_dir), "HOME": os.environ.get("HOME", "/tmp"), **databases.env_for(server.data_dir)},
        cwd=str(REPO),
    )


async def _over_stdio(memory, calls, **stdio):
    async with stdio_client(_stdio(memory, **stdio)) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            return await calls(session)


async def _over_http(memory, calls, token=None):
    client = create_mcp_http_client(headers={"Authorization": f"Bearer {token or memory['token']}"})
    async with client:
        async with streamable_http_client(memory["server"].url + "/mcp", http_client=client) as (read, write, *_):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await calls(session)


TRANSPORTS = {"stdio": _over_stdio, "http": _over_http}


async def _tour(session: ClientSession, memory: dict) -> dict:
    """Every tool once, an error in the middle, and a call after it: what a client session does."""
    out = {"tools": (await session.list_tools()).tools}
    out["search"] = await session.call_tool("search", {"q": "Zanzibar rollout", "start_time": "1h ago", "mode": "keyword", "limit": 5})
    first = memory["frames"][0]
    out["text"] = await session.call_tool("frame_text", {"frame_id": first})
    out["unknown"] = await session.call_tool("frame_text", {"frame_id": 987654})
    out["bad"] = await session.call_tool("search", {"start_time": "last tuesday-ish", "limit": 1000})
    out["around"] = await session.call_tool("frames_around", {"frame_id": memory["frames"][1], "before": 1, "after": 1})
    out["activity"] = await session.call_tool("activity_summary", {"start_time": memory["start"], "end_time": "now"})
    out["image"] = await session.call_tool("frame_image", {"frame_id": first, "max_side": 640})
    out["summary"] = await session.call_tool("range_summary", {"start_time": "1h ago", "question": "What did I work on?"})
    out["no_such_tool"] = await session.call_tool("delete_everything", {})
    return out


@pytest.mark.parametrize("transport", sorted(TRANSPORTS))
def test_every_tool_through_the_sdk_client(memory, transport):
    server = memory["server"]
    out = asyncio.run(TRANSPORTS[transport](memory, lambda session: _tour(session, memory)))
    listed = {tool.name: tool for tool in out["tools"]}
    assert set(listed) == {"search", "frame_text", "frames_around", "frame_image", "activity_summary", "range_summary"}
    assert listed["search"].input_schema["required"] == ["start_time"]
    assert listed["search"].annotations.read_only_hint is True
    assert listed["search"].output_schema["type"] == "object"

    search = out["search"]
    assert not search.is_error, search.content
    hits = [item["content"] for item in search.structured_content["data"]]
    assert {hit["frame_id"] for hit in hits} == {memory["frames"][0], memory["frames"][2]}
    assert hits[0]["viewer_url"] == f"{server.url}/frames/{hits[0]['frame_id']}/view"
    assert requests.get(hits[0]["viewer_url"], timeout=30).status_code in (200, 302)  # the link opens (a login first)
    text = search.content[0].text
    assert f"frame {hits[0]['frame_id']} at " in text and "Zanzibar rollout" in text and f"open: {hits[0]['viewer_url']}" in text

    assert not out["text"].is_error and "Zanzibar" in out["text"].structured_content["text"]
    assert out["text"].structured_content["lines"][0]["box"]
    assert out["unknown"].is_error and "Frame 987654 does not exist" in out["unknown"].content[0].text
    bad = out["bad"].content[0].text
    assert out["bad"].is_error and "start_time is not a time" in bad and "limit" in bad
    around = out["around"].structured_content
    assert [f["frame_id"] for f in around["before"]] == [memory["frames"][0]] and around["after"][0]["frame_id"] == memory["frames"][2]

    activity = out["activity"].structured_content
    assert {app["app_name"] for app in activity["apps"]} >= {"Firefox", "Terminal"}
    assert any(WORDS in key["text"] for key in activity["key_texts"])

    image = out["image"].content[0]
    assert image.type == "image" and image.mime_type == "image/webp"
    picture = Image.open(io.BytesIO(base64.b64decode(image.data)))
    assert max(picture.size) == 640 and len(base64.b64decode(image.data)) <= 600_000

    summary = out["summary"]
    assert not summary.is_error, summary.content
    evidence = summary.structured_content["evidence"]
    assert evidence and {item["frame_id"] for item in evidence} <= set(memory["frames"]) | set(range(1, max(memory["frames"]) + 1))
    assert all(item["viewer_url"].startswith(server.url + "/frames/") for item in evidence)
    assert "myrecall://frame/" in summary.structured_content["answer_md"]

    assert out["no_such_tool"].is_error and "There is no tool 'delete_everything'" in out["no_such_tool"].content[0].text


def _chats(server) -> list[int]:
    return [row[0] for row in server.rows("SELECT id FROM chat_chatsession ORDER BY id")]


async def _listed_and_summary(session: ClientSession) -> tuple[dict, object]:
    listed = {tool.name: tool for tool in (await session.list_tools()).tools}
    return listed, await session.call_tool("range_summary", {"start_time": "1h ago", "question": "What did I work on?"})


@pytest.mark.parametrize("transport", sorted(TRANSPORTS))
def test_range_summary_keeps_nothing_for_a_read_only_token(memory, transport):
    server = memory["server"]
    before = _chats(server)
    listed, summary = asyncio.run(TRANSPORTS[transport](memory, _listed_and_summary))
    assert not summary.is_error, summary.content
    answer = summary.structured_content
    assert answer["session_id"] is None and answer["evidence"] and "myrecall://frame/" in answer["answer_md"]
    assert _chats(server) == before  # no chat in the history, as the README promises for a read-only token
    assert all(tool.annotations.read_only_hint for tool in listed.values())


def test_range_summary_keeps_its_chat_for_a_token_that_may_write_and_says_so(memory):
    server = memory["server"]
    before = _chats(server)
    listed, summary = asyncio.run(_over_http(memory, _listed_and_summary, token=server.token))
    assert not summary.is_error, summary.content
    assert listed["range_summary"].annotations.read_only_hint is False
    assert "chat history" in listed["range_summary"].description
    assert all(tool.annotations.read_only_hint for name, tool in listed.items() if name != "range_summary")
    session_id = summary.structured_content["session_id"]
    assert _chats(server) == [*before, session_id]
    assert f"Kept in MyRecall's chat history (chat {session_id})" in summary.content[0].text


def test_an_unknown_argument_is_named_with_the_one_it_stands_for(memory):
    async def calls(session):
        return (
            await session.call_tool("search", {"query": "Zanzibar", "start_time": "1h ago"}),
            await session.call_tool("frames_around", {"frame": memory["frames"][1], "befor": 1}),
        )

    search, around = asyncio.run(_over_http(memory, calls))
    message, _, extra = search.content[0].text.partition("\n")
    assert search.is_error and 'Unknown argument "query" (did you mean "q"?)' in message
    assert [error["field"] for error in json.loads(extra)["errors"]] == ["query"]
    message, _, extra = around.content[0].text.partition("\n")
    assert around.is_error and 'Unknown argument "frame" (did you mean "frame_id"?)' in message
    assert 'Unknown argument "befor" (did you mean "before"?)' in message
    assert {error["field"] for error in json.loads(extra)["errors"]} >= {"frame", "befor"}


def test_stdio_links_point_where_serve_answers_without_url(memory):
    """The README's config gives no --url: the links still open on a server started on another port."""
    server = memory["server"]

    async def calls(session):
        return await session.call_tool("search", {"q": "kubectl rollout", "start_time": "1h ago", "mode": "keyword"})

    found = asyncio.run(_over_stdio(memory, calls, url=False))
    assert not found.is_error, found.content
    hit = found.structured_content["data"][0]["content"]
    assert hit["frame_id"] == memory["frames"][1] and hit["viewer_url"] == f"{server.url}/frames/{hit['frame_id']}/view"


def test_activity_and_summary_answer_the_model_in_text_and_end_now_by_default(memory):
    server = memory["server"]

    async def calls(session):
        return (
            await session.call_tool("activity_summary", {"start_time": memory["start"]}),
            await session.call_tool("range_summary", {"start_time": memory["start"]}),
        )

    activity, summary = asyncio.run(_over_http(memory, calls))
    assert not activity.is_error, activity.content  # end_time is optional, as search's: now
    data = activity.structured_content
    assert data["total_frames"] == 3 and {app["app_name"] for app in data["apps"]} == {"Firefox", "Terminal"}
    text = activity.content[0].text
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)
    assert text.startswith("Activity from ") and "3 frames" in text
    assert "- Firefox: " in text and "- Terminal: " in text and WORDS in text
    assert f"open: {server.url}/frames/{memory['frames'][2]}/view" in text

    assert not summary.is_error, summary.content
    text = summary.content[0].text
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)
    assert text.startswith(summary.structured_content["answer_md"])
    for item in summary.structured_content["evidence"]:
        assert f"- frame {item['frame_id']} at {item['local_time']}" in text and f"open: {item['viewer_url']}" in text


def test_http_needs_a_token(memory):
    url = memory["server"].url + "/mcp"
    hello = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    for auth in ({}, {"Authorization": "Bearer not-a-token"}, {"Authorization": "Basic eDp5"}):
        answer = requests.post(url, json=hello, headers={**headers, **auth}, timeout=30)
        assert answer.status_code == 401 and "Authentication required" in answer.json()["message"]
        assert answer.headers["WWW-Authenticate"].startswith("Bearer")
    # A logged-in browser's cookie is not a token either.
    browser = requests.Session()
    browser.get(memory["server"].url + "/login/", timeout=30)
    assert browser.post(url, json=hello, headers=headers, timeout=30).status_code == 401
    # The write token and a read-only one both read.
    for token in (memory["server"].token, memory["token"]):
        answer = requests.post(url, json=hello, headers={**headers, "Authorization": f"Bearer {token}"}, timeout=30)
        assert answer.status_code == 200, answer.text
        assert "search" in {tool["name"] for tool in answer.json()["result"]["tools"]}


def test_stdio_refuses_a_token_it_does_not_know(memory, tmp_path):
    wrong = tmp_path / "token"
    wrong.write_text("mr_not-a-real-token")
    params = _stdio(memory, wrong)
    run = subprocess.run([params.command, *params.args], env=params.env, cwd=params.cwd, capture_output=True, text=True, timeout=120, input="")
    assert run.returncode != 0 and "is not a MyRecall token of this data dir" in run.stderr
    assert run.stdout == ""  # nothing but the protocol ever goes to stdout
    # A data dir MyRecall never ran on (a wrong MYRECALL_DATA_DIR in the client's config): said plainly.
    empty = {**params.env, "MYRECALL_DATA_DIR": str(tmp_path / "never-used"), **databases.env_for(tmp_path / "never-used")}
    run = subprocess.run([params.command, *params.args], env=empty, cwd=params.cwd, capture_output=True, text=True, timeout=120, input="")
    assert run.returncode != 0 and "There is no MyRecall database in" in run.stderr and "Traceback" not in run.stderr
    assert run.stdout == ""


def _inspector(*args: str) -> dict:
    run = subprocess.run([str(INSPECTOR), "--cli", *args], cwd=REPO, capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stdout + run.stderr
    return json.loads(run.stdout)


def test_the_mcp_inspector_cli_lists_and_searches(memory):
    server = memory["server"]
    over_http = [server.url + "/mcp", "--transport", "http", "--header", f"Authorization: Bearer {memory['token']}"]
    listed = _inspector(*over_http, "--method", "tools/list")
    assert {tool["name"] for tool in listed["tools"]} >= {"search", "frame_text", "range_summary"}
    found = _inspector(
        *over_http, "--method", "tools/call", "--tool-name", "search",
        "--tool-arg", "q=kubectl rollout", "--tool-arg", "start_time=1h ago", "--tool-arg", "mode=keyword",
    )
    assert not found.get("isError") and found["structuredContent"]["data"][0]["content"]["frame_id"] == memory["frames"][1]
    params = _stdio(memory)
    given = [word for name, value in databases.env_for(server.data_dir).items() for word in ("-e", f"{name}={value}")]
    over_stdio = ["-e", f"MYRECALL_DATA_DIR={server.data_dir}", *given, "--method", "tools/list", "--", params.command, *params.args]
    listed = _inspector(*over_stdio)
    assert {tool["name"] for tool in listed["tools"]} >= {"search", "activity_summary"}


def test_bad_messages_get_errors_and_the_server_goes_on(memory):
    server = memory["server"]
    url = server.url + "/mcp"
    headers = {"Authorization": f"Bearer {memory['token']}", "Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    assert requests.post(url, data=b"{not json", headers=headers, timeout=30).json()["error"]["code"] == -32700
    assert requests.post(url, data=b"[]", headers=headers, timeout=30).status_code == 400
    unknown = requests.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "nope"}, headers=headers, timeout=30)
    assert unknown.json()["error"]["code"] == -32601
    wrong = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "search", "arguments": [1, 2]}}
    assert "error" in requests.post(url, json=wrong, headers=headers, timeout=30).json()
    huge = b'{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"x":"' + b"a" * 5_000_000 + b'"}}'
    assert requests.post(url, data=huge, headers=headers, timeout=30).status_code == 413
    for method in ("GET", "DELETE", "PUT"):  # stateless: nothing to stream or end; answered at once
        answer = requests.request(method, url, headers=headers, timeout=30)
        assert answer.status_code == 405 and answer.headers["Allow"] == "POST"
    rebound = requests.post(url, json={"jsonrpc": "2.0", "id": 4, "method": "tools/list"}, headers={**headers, "Host": "evil.example"}, timeout=30)
    assert rebound.status_code == 421  # a page that rebinds a name of its own to 127.0.0.1
    listed = requests.post(url, json={"jsonrpc": "2.0", "id": 5, "method": "tools/list"}, headers=headers, timeout=30)
    assert listed.status_code == 200 and listed.json()["result"]["tools"]
