"""A real Chromium with MyRecall's extension loaded (extension/, or its packed build unpacked), headed
on a virtual X screen (tests.desktop.Desktop), set up through the extension's own options page; and
a small local web server of test pages. Shared by the extension's tests and bench/browser.py."""

import html
import subprocess
import threading
import time
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from playwright.sync_api import sync_playwright

from scripts.screenshots import CHROMIUM_ARGS
from tests.server import REPO

EXTENSION = REPO / "extension"
TIMEOUT_MS = 20_000


class Pages:
    """A local web server: /NAME answers a page titled by the `title` query (default NAME) whose body
    shows the `text` query in large letters."""

    def __init__(self):
        pages = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                from urllib.parse import parse_qs, urlparse

                parsed = urlparse(self.path)
                query = parse_qs(parsed.query)
                title = query.get("title", [parsed.path.strip("/") or "home"])[0]
                text = query.get("text", [title])[0]
                body = (
                    f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title></head>"
                    "<body style='margin:0;background:#fff'><h1 style='font:64px/1.3 DejaVu Sans,sans-serif;margin:40px'>"
                    f"{html.escape(text)}</h1></body></html>"
                ).encode()
                pages.hits.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.hits: list[str] = []
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class ExtensionBrowser:
    """Chromium, headed on the desktop's display, with the extension loaded (persistent context)."""

    def __init__(self, desktop, profile: Path, *, extension: Path = EXTENSION, size=(1280, 800)):
        self._pw = sync_playwright().start()
        try:
            self.context = self._pw.chromium.launch_persistent_context(
                str(profile),
                executable_path="/usr/bin/chromium",
                headless=False,
                env=desktop.env,
                viewport=None,
                args=[
                    *CHROMIUM_ARGS,
                    f"--window-size={size[0]},{size[1]}",
                    "--window-position=0,0",
                    f"--disable-extensions-except={extension}",
                    f"--load-extension={extension}",
                ],
            )
            self.context.set_default_timeout(TIMEOUT_MS)
            # A busy machine can take a while to start it.
            self.worker = self.context.service_workers[0] if self.context.service_workers else (
                self.context.wait_for_event("serviceworker", timeout=90_000)
            )
            self.extension_id = self.worker.url.split("/")[2]
            self.page = self.context.pages[0] if self.context.pages else self.context.new_page()
        except BaseException:
            self._pw.stop()
            raise

    def options(self, *, url: str, token: str, allow_private: bool = False) -> str:
        """Set the options on the extension's options page (in a tab of its own), press Test
        connection, and return what the page then says."""
        page = self.context.new_page()
        page.goto(f"chrome-extension://{self.extension_id}/options.html")
        page.fill("#url", url)
        page.fill("#token", token)
        page.set_checked("#allowPrivate", allow_private)
        page.click("#save")
        self._result_wait(page, lambda said: said == "Saved.")
        page.click("#test")
        said = self._result_wait(page, lambda said: said not in ("", "Testing…"))
        page.close()
        return said

    @staticmethod
    def _result_wait(page, done, timeout_s: float = 20) -> str:
        """What the options page's result line says once `done` holds (the page's CSP forbids the
        evaluated predicates of wait_for_function)."""
        deadline = time.time() + timeout_s
        while True:
            said = page.text_content("#result") or ""
            if done(said) or time.time() > deadline:
                return said
            time.sleep(0.1)

    def open(self, url: str) -> None:
        """Show this address in the browser's first tab, in front."""
        self.page.bring_to_front()
        self.page.goto(url)

    def close(self) -> None:
        try:
            self.context.close()
        finally:
            self._pw.stop()


def packed_chromium(out: Path) -> Path:
    """Build the packages with scripts/extension.sh into `out` and unpack the Chromium one; its folder."""
    subprocess.run(["bash", str(REPO / "scripts" / "extension.sh"), str(out)], check=True, capture_output=True, text=True)
    folder = out / "chromium"
    with zipfile.ZipFile(next(out.glob("*-chromium.zip"))) as archive:
        archive.extractall(folder)
    return folder
