"""The API does what its OpenAPI schema says, checked by schemathesis against a real `serve`:
every operation of /api/v1/openapi.json, every check (server errors, undocumented statuses,
schema-valid requests refused, schema-violating ones accepted, response shapes, stateful links),
a few examples each with a fixed seed, so that a change of the server or of its schema that
breaks the contract fails here. schemathesis.toml (read from the repository) holds the one
thing a schema cannot say (the bytes of an uploaded image)."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.server import REPO, LiveServer, frames_post_session

SEED = 21
EXAMPLES = 5


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with LiveServer(tmp_path_factory.mktemp("contract") / "data") as live:
        frames_post_session(server=live, count=3, start=time.time() - 600, step_s=60)
        yield live


def test_schemathesis_finds_no_contract_mismatch(server):
    schema = server.session.get(f"{server.url}/api/v1/openapi.json", timeout=30).json()
    operations = sum(len(methods) for methods in schema["paths"].values())
    command = [
        str(Path(sys.executable).parent / "schemathesis"), "run", f"{server.url}/api/v1/openapi.json",
        "--checks", "all", "--seed", str(SEED), "--max-examples", str(EXAMPLES), "--no-color",
        "-H", f"Authorization: Bearer {server.token}",
    ]
    env = {**os.environ, "HYPOTHESIS_STORAGE_DIRECTORY": str(server.data_dir.parent / "hypothesis")}
    run = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
    report = run.stdout + run.stderr
    assert run.returncode == 0, report[-6000:]
    assert f"Tested: {operations}" in report, report[-3000:]
    assert "Failures:" not in report and " passed" in report, report[-3000:]
