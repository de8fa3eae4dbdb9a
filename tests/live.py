"""What tests (and benchmarks) of a live `manage.py serve` share: reading a server-sent event
stream, and logging a browser session in with the admin password."""

import json
import time

import requests

from tests.server import LiveServer


def sse_events(response):
    """(event, data) pairs of a streamed response, as they arrive on the wire."""
    name, data = None, []
    for line in response.iter_lines(decode_unicode=True):
        if line.startswith(":"):
            continue
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            data.append(line[6:])
        elif line == "" and name:
            yield name, json.loads("".join(data))
            name, data = None, []


def login(server: LiveServer, password: str | None = None) -> requests.Session:
    """A browser-like session logged in as admin (with the password first start saved, by default)."""
    if password is None:
        password = (server.data_dir / "admin_password.txt").read_text().strip()
    browser = requests.Session()
    browser.get(server.url + "/login/", timeout=10)
    browser.post(
        server.url + "/login/",
        data={"username": "admin", "password": password, "csrfmiddlewaretoken": browser.cookies["csrftoken"]},
        allow_redirects=False,
        timeout=10,
    )
    return browser


def wait_for(check, timeout_s: float = 120, said=None):
    """What check() returns once it is truthy (asked every fifth of a second); AssertionError after
    timeout_s, with what said() returns (a program's output) when given."""
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        if result := check():
            return result
        time.sleep(0.2)
    raise AssertionError("timed out" + (f"; it said:\n{said()}" if said else ""))
