"""Every frame carries the window of its own moment: a new window title (a browser's next page)
is stored with that title even when the pixels look the same, through a live server with its
default near-duplicate skipping; a title that changes while a screenshot is taken is read again,
so the pixels are never stored under the title before (nor taken of a window that is excluded)."""

import time

import pytest
import requests

from capture.client import Client as CaptureClient
from capture.client import Config
from capture.x11 import X11Desktop
from myrecall.privacy_rules import PrivacyRules
from tests.capture.test_client import APP, Client
from tests.desktop import Desktop
from tests.live import wait_for
from tests.server import LiveServer

LINES = ("Samescreen harbour figures", "the same pixels under each title")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with LiveServer(tmp_path_factory.mktemp("moments") / "data") as live:  # near-duplicates skipped, as by default
        yield live


def stored_titles(server) -> list[str]:
    return [row[0] for row in server.rows("SELECT window_name FROM frames_frame WHERE device_name = 'desk' ORDER BY timestamp, id")]


def test_a_new_title_on_unchanged_pixels_is_a_new_frame_stored_under_that_title(desktop, server, tmp_path):
    budget, weather = f"Quarterly budget - Docs - {APP}", f"Weather in Lisbon - {APP}"
    desktop.show(*LINES, title=budget)
    client = Client(desktop, tmp_path / "state", url=server.url, token=server.token, args=["--report-every", "1"])
    try:
        wait_for(lambda: budget in stored_titles(server), timeout_s=60)
        wait_for(lambda: any(r["unchanged"] for r in client.reports()), timeout_s=60)  # the window is drawn whole
        desktop.show(*LINES, title=weather)  # only the title changes: no window manager draws it on Xvfb
        wait_for(lambda: weather in stored_titles(server), timeout_s=60)
        desktop.show(*LINES, title=budget)  # and back
        wait_for(lambda: stored_titles(server)[-1] == budget, timeout_s=60)
    finally:
        assert client.stop() == 0
    # One frame per moment, each under its own title: the unchanged screen is skipped in between.
    titles = stored_titles(server)
    assert titles[titles.index(weather):] == [weather, budget], client.output()


class RetitledWhileTaken:
    """The real X11 desktop, whose window gets a new title just after the first screenshot is taken
    (as a browser's does when its next page has been drawn)."""

    def __init__(self, x11: X11Desktop, desktop, title: str):
        self.x11, self.desktop, self.title = x11, desktop, title
        self.shots = 0

    def __getattr__(self, name):
        return getattr(self.x11, name)

    def grab(self, monitor):
        shot = self.x11.grab(monitor)
        self.shots += 1
        if self.shots == 1:
            self.desktop.show(*LINES, title=self.title)
            wait_for(lambda: self.x11.focused().title == self.title, timeout_s=30)
        return shot


@pytest.mark.parametrize("new_title,stored", [(f"Weather in Lisbon - {APP}", True), (f"Secret ledger - {APP}", False)])
def test_a_title_that_changes_while_the_screenshot_is_taken_is_read_again(desktop, tmp_path, new_title, stored):
    desktop.show(*LINES, title=f"Quarterly budget - Docs - {APP}")
    x11 = X11Desktop(desktop.display)
    try:
        wait_for(lambda: x11.focused().title == f"Quarterly budget - Docs - {APP}", timeout_s=30)
        client = CaptureClient(Config(
            url="http://127.0.0.1:9", token="unused", state_dir=tmp_path / "state", display=desktop.display,
            local_rules=PrivacyRules(windows=("*Secret*",)),
        ))
        retitled = RetitledWhileTaken(x11, desktop, new_title)
        did = client.capture_once(retitled, x11.monitor(1))
    finally:
        x11.close()
    item = client.spool.oldest()
    if stored:
        assert did == "sent to spool" and item.meta["window_name"] == new_title and retitled.shots == 2
    else:  # the window the screenshot may show is excluded: nothing is kept
        assert did == "excluded" and item is None


def test_a_new_page_address_under_the_same_title_is_a_new_frame_with_that_address(server, tmp_path):
    """A browser whose next page keeps the title (a web app) and the pixels: the address its
    extension reports is the moment's too, and each frame carries its own."""
    title = "Dashboard - Chromium"
    (tmp_path / "x").mkdir()
    browser = Desktop(tmp_path / "x", window_class="chromium")  # WM_CLASS class "Chromium": a browser MyRecall knows
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {server.token}"

    def tab(url: str) -> None:
        body = {"browser": "chromium", "state": "page", "url": url, "title": "Dashboard", "at": time.time()}
        assert session.post(f"{server.url}/api/v1/browser/tab", json=body, timeout=30).status_code == 200

    def stored() -> list[tuple[str, str]]:
        return server.rows("SELECT window_name, browser_url FROM frames_frame WHERE device_name = 'web' ORDER BY timestamp, id")

    tab("https://app.example/orders")
    browser.show(*LINES, title=title)
    client = Client(browser, tmp_path / "state", url=server.url, token=server.token, args=["--report-every", "1", "--device", "web"])
    try:
        wait_for(lambda: (title, "https://app.example/orders") in stored(), timeout_s=60)
        wait_for(lambda: any(r["unchanged"] for r in client.reports()), timeout_s=60)
        tab("https://app.example/invoices")  # same title, same pixels, another page
        wait_for(lambda: (title, "https://app.example/invoices") in stored(), timeout_s=60)
    finally:
        assert client.stop() == 0
        browser.close()
    assert stored()[-1] == (title, "https://app.example/invoices"), client.output()
