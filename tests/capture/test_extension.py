"""MyRecall's browser extension for real: Chromium, headed on Xvfb, with the packed build of
extension/ (scripts/extension.sh) loaded and set up through its own options page, reports its active
tab to a live server; the real capture client records the browser's window on that display, and the
stored frame carries the page's address (found by a word of the address alone). A page whose
address a privacy rule excludes is never stored: no frame, no text, no address in any file of the
data dir or the client's spool. The Firefox package passes Mozilla's add-ons linter (Firefox itself
is not driven here), and the rules' JavaScript matches as myrecall/privacy_rules.py does."""

import json
import subprocess
import time
import zipfile

import pytest

from tests.capture.test_client import Client, found
from tests.conftest import files_holding
from tests.desktop import Desktop
from myrecall.privacy_rules import pattern_matches
from tests.extension_browser import EXTENSION, ExtensionBrowser, Pages, packed_chromium
from tests.live import wait_for
from tests.server import REPO, LiveServer

RULES = {"excluded_apps": [], "excluded_windows": [], "excluded_urls": [], "redact_secrets": False, "capture_paused": False}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with LiveServer(tmp_path_factory.mktemp("extension") / "data") as live:
        yield live


@pytest.fixture(scope="module")
def packages(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    return out, packed_chromium(out)


@pytest.fixture
def setup(tmp_path, server, packages):
    desktop = Desktop(tmp_path)
    pages = Pages()
    browser = None
    try:
        browser = ExtensionBrowser(desktop, tmp_path / "profile", extension=packages[1])
        yield desktop, pages, browser
    finally:
        if browser is not None:
            browser.close()
        pages.close()
        desktop.close()


def frames_of(server, window_name: str) -> list[dict]:
    body = server.session.get(
        f"{server.url}/api/v1/search", params={"start_time": time.time() - 3600, "app_name": "Chromium", "limit": 100}, timeout=30
    ).json()
    return [hit["content"] for hit in body["data"] if hit["content"]["window_name"] == window_name]


def test_the_options_page_says_what_is_wrong_and_then_that_it_is_connected(setup, server):
    _, _, browser = setup
    said = browser.options(url=server.url, token="not-a-token")
    assert "refused the token" in said and "token_create" in said
    read_only = server.manage("token_create", "reader", "--read-only").strip().splitlines()[-1]
    assert "read-only" in browser.options(url=server.url, token=read_only)
    said = browser.options(url=server.url, token=server.token)
    # It says in words what its first report sent (it said "reported (page)").
    assert said.startswith(f"Connected to MyRecall at {server.url}: a first report was sent with the active tab's address and title."), said
    # The options page is the active tab: excluded, it is reported without its address or title, and said so.
    assert server.session.put(f"{server.url}/api/v1/privacy", json={**RULES, "excluded_urls": ["chrome-extension://*"]}, timeout=30).status_code == 200
    try:
        said = browser.options(url=server.url, token=server.token)
    finally:
        server.session.put(f"{server.url}/api/v1/privacy", json=RULES, timeout=30)
    assert "a first report was sent: the active tab is a page your privacy rules exclude, so without its address or title" in said, said


def test_a_captured_browser_frame_has_its_pages_url_and_an_excluded_page_is_never_stored(setup, server, tmp_path):
    desktop, pages, browser = setup
    assert "Connected" in browser.options(url=server.url, token=server.token)
    page_url = f"{pages.url}/quokkatrail/notes?title=Harbour%20timetable&text=Ferry%20harbour%20timetable"
    browser.open(page_url)
    client = Client(desktop, tmp_path / "state", url=server.url, token=server.token)
    try:
        deadline = time.time() + 90
        while time.time() < deadline and not [f for f in frames_of(server, "Harbour timetable - Chromium") if f["browser_url"]]:
            time.sleep(0.5)
        stored = frames_of(server, "Harbour timetable - Chromium")
        assert stored and {f["browser_url"] for f in stored} == {page_url}, (stored, client.output())
        # The keyword index has the address: a word only the address holds finds the frame.
        hits = found(server, "quokkatrail", timeout_s=60)
        assert hits and hits[0]["browser_url"] == page_url, client.output()

        rules = {**RULES, "excluded_urls": ["*/secret-ledger*"]}
        assert server.session.put(f"{server.url}/api/v1/privacy", json=rules, timeout=30).status_code == 200
        browser.open(f"{pages.url}/secret-ledger?title=Ledger%20Q3&text=Wombatfund%20balance%20sheet")
        excluded = "not captured: the active tab of Chromium is a page the privacy rules exclude"
        wait_for(lambda: excluded in client.output(), timeout_s=60)
        # Back on an allowed page, capture goes on.
        browser.open(f"{pages.url}/open?title=Tide%20tables&text=Tide%20tables%20for%20the%20bay")
        assert found(server, "tables", timeout_s=90), client.output()
    finally:
        assert client.stop() == 0
        server.session.put(f"{server.url}/api/v1/privacy", json=RULES, timeout=30)
    assert frames_of(server, "Ledger Q3 - Chromium") == []
    assert found(server, "Wombatfund", timeout_s=3) == []
    assert [f for f in frames_of(server, "Tide tables - Chromium") if "/open" in f["browser_url"]], client.output()
    # Nothing of it anywhere: not in the database, the indexes, the images, nor the client's spool (the
    # rule itself holds "secret-ledger": its address is looked for by the rest of it).
    gone = ["title=Ledger%20Q3", "Ledger Q3", "wombatfund"]
    assert files_holding(server.data_dir, gone, skip=server.log_path) == {}
    assert files_holding(tmp_path / "state", gone) == {}


def test_one_source_packs_for_both_browsers_and_the_firefox_package_passes_mozillas_linter(packages):
    out, _ = packages
    with zipfile.ZipFile(next(out.glob("*-chromium.zip"))) as chromium, zipfile.ZipFile(next(out.glob("*-firefox.xpi"))) as firefox:
        for_chromium, for_firefox = (json.loads(archive.read("manifest.json")) for archive in (chromium, firefox))
        assert sorted(chromium.namelist()) == sorted(firefox.namelist())
    assert for_chromium["background"] == {"service_worker": "background.js"} and "browser_specific_settings" not in for_chromium
    assert for_firefox["background"] == {"scripts": ["rules.js", "background.js"]}
    assert for_firefox["browser_specific_settings"]["gecko"]["id"]
    lint = subprocess.run(
        [str(REPO / "node_modules" / ".bin" / "addons-linter"), "--output", "json", str(next(out.glob("*-firefox.xpi")))],
        capture_output=True, text=True, timeout=300,
    )
    report = json.loads(lint.stdout)
    assert (report["errors"], report["warnings"]) == ([], []), report
    assert report["summary"] == {"errors": 0, "notices": 0, "warnings": 0}


CASES = [
    ("bank.example", "https://www.BANK.example/login", False),
    ("*/secret-ledger*", "http://127.0.0.1:8000/secret-ledger?x=1", False),
    ("https://*.bank.example/*", "https://bank.example/", False),
    ("*Private Browsing*", "Inbox — Mozilla Firefox Private Browsing", False),
    ("page?", "Page1", False),
    ("[draft]*", "[Draft] notes", False),  # [ ] are literal
    ("STRASSE", "straße", False),  # casefold
    ("1password", "1Password", True),  # app names match whole
    ("code", "VS Codeium", True),
    ("  spaced  ", "a spaced title", False),
    ("", "anything", False),
]


def test_the_extensions_rules_match_as_the_servers_do():
    script = (
        "require(process.argv[1]);"
        "const cases = JSON.parse(process.argv[2]);"
        "console.log(JSON.stringify(cases.map(([p, v, whole]) => globalThis.MyRecallRules.patternMatches(p, v, whole))));"
    )
    run = subprocess.run(["node", "-e", script, str(EXTENSION / "rules.js"), json.dumps(CASES)], capture_output=True, text=True, check=True)
    expected = [pattern_matches(pattern, value, whole=whole) for pattern, value, whole in CASES]
    assert json.loads(run.stdout) == expected
    assert any(expected) and not all(expected)
