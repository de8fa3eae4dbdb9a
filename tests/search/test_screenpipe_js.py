"""screenpipe's own JS client, @screenpipe/js 1.0.21 from npm (package.json), run by Node against a
real `serve`: its queryScreenpipe reads MyRecall's answers (it camel-cases every field and reads
pagination.total), with the bearer token a dispatcher adds, since the client sends none."""

import json
import os
import shutil
import subprocess
import time
from datetime import datetime
from datetime import timezone as dt_timezone
from pathlib import Path

import pytest

from tests.server import REPO
from tests.conftest import render_text_image

DRIVER = Path(__file__).with_name("screenpipe_client.mjs")
WORD = "marzipan"  # on both frames, and on nothing else the shared server holds


def iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, tz=dt_timezone.utc).isoformat().replace("+00:00", "Z")


def query_screenpipe(server, queries: list[dict], *, token: str, home: Path) -> dict:
    """Runs pipe.queryScreenpipe once per params object; its settings store goes under `home`."""
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "XDG_DATA_HOME": str(home / "xdg")}
    proc = subprocess.run(
        [shutil.which("node"), str(DRIVER), server.url, token, json.dumps(queries)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def frames(live_server_proc) -> dict[str, int]:
    """Two frames posted a minute or two ago and read by the worker's OCR, by app name."""
    server = live_server_proc
    now = time.time()
    posted = {}
    for i, (app, window, url) in enumerate(
        [("Google Chrome", "Recipes - Chrome", "https://cook.example.org/marzipan"), ("Slack", "general", "")]
    ):
        image = render_text_image([f"{WORD} recipe number {i}", f"almond paste and sugar step {i * 7}"], size=(1280, 200))
        resp = server.session.post(
            server.url + "/api/v1/frames",
            files={"image": ("shot.png", image, "image/png")},
            data={"timestamp": now - 120 + 60 * i, "app_name": app, "window_name": window, "browser_url": url,
                  "device_name": f"screenpipe-js-{i}"},
            timeout=30,
        )
        assert resp.status_code == 201, resp.text
        posted[app] = resp.json()["frame_id"]
    deadline = time.time() + 180
    while time.time() < deadline:
        found = server.session.get(
            server.url + "/api/v1/search", params={"q": WORD, "start_time": now - 3600, "mode": "keyword"}, timeout=30
        ).json()
        if found.get("pagination", {}).get("total") == 2:
            return posted
        time.sleep(0.5)
    pytest.fail(f"the worker did not OCR and index both frames in time: {found}")


def test_query_screenpipe_reads_myrecall_results(live_server_proc, frames, tmp_path):
    start = iso(time.time() - 3600)
    answer = query_screenpipe(
        live_server_proc,
        [
            {"q": WORD, "contentType": "ocr", "startTime": start, "limit": 10},
            {"q": WORD, "contentType": "all", "startTime": "1h ago", "endTime": "now", "appName": "chrome"},
            {"q": WORD, "contentType": "audio", "startTime": "1h ago"},
            {"q": WORD, "startTime": "1h ago", "limit": 1, "offset": 1},
        ],
        token=live_server_proc.token,
        home=tmp_path,
    )
    ocr, chrome, audio, second = answer["results"]
    assert all(result["ok"] for result in answer["results"]), answer

    body = ocr["result"]
    # Hybrid search (screenpipe's clients name no mode): both frames hold the word and come first;
    # frames of other tests close in meaning may follow them.
    assert body["pagination"]["limit"] == 10 and body["pagination"]["offset"] == 0
    assert body["pagination"]["total"] == len(body["data"]) >= 2
    by_app = {item["content"]["appName"]: item for item in body["data"][:2]}
    assert {app: item["content"]["frameId"] for app, item in by_app.items()} == frames
    item = by_app["Google Chrome"]
    assert item["type"] == "OCR"
    content = item["content"]
    assert WORD in content["text"].lower()
    assert content["windowName"] == "Recipes - Chrome"
    assert content["browserUrl"] == "https://cook.example.org/marzipan"
    assert content["deviceName"] == "screenpipe-js-0"
    assert content["offsetIndex"] == 0 and content["tags"] == [] and content["frame"] is None
    assert content["filePath"].endswith(content["frameName"])
    assert abs(datetime.fromisoformat(content["timestamp"].replace("Z", "+00:00")).timestamp() - (time.time() - 120)) < 600
    assert not any("_" in key for entry in body["data"] for key in entry["content"])  # every field camel-cased

    # Relative times as the client passes them ("1h+ago" on the wire), and app_name by its words.
    assert [entry["content"]["frameId"] for entry in chrome["result"]["data"]] == [frames["Google Chrome"]]
    assert chrome["result"]["pagination"]["total"] == 1
    assert audio["result"] == {"data": [], "pagination": {"limit": 20, "offset": 0, "total": 0}}
    assert len(second["result"]["data"]) == 1 and second["result"]["pagination"]["total"] == body["pagination"]["total"]
    assert second["result"]["data"][0]["content"]["frameId"] == body["data"][1]["content"]["frameId"]

    # The client wrote its settings store in the temporary XDG_DATA_HOME.
    assert (tmp_path / "xdg" / "screenpipe" / "store.bin").exists()


def test_without_the_token_myrecall_answers_401(live_server_proc, frames, tmp_path):
    answer = query_screenpipe(live_server_proc, [{"q": WORD, "startTime": "1h ago"}], token="", home=tmp_path)
    [result] = answer["results"]
    assert result == {"ok": False, "error": "http error! status: 401"}
