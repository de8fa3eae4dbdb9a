"""Takes the README's screenshots of every page at 1440x900 from a real server with a
realistic day of frames: .venv/bin/python scripts/screenshots.py [OUT_DIR]"""

import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playwright.sync_api import sync_playwright  # noqa: E402

from tests.server import frames_post_session, ocr_wait  # noqa: E402
from tests.server import LiveServer  # noqa: E402

CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]
TIMEZONE = "Asia/Shanghai"


def screenshot_settled(page, path: Path) -> None:
    """A screenshot once the page has loaded everything it asked for (thumbnails, images)."""
    page.wait_for_load_state("networkidle")
    page.screenshot(path=str(path))


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, LiveServer(Path(tmp) / "data") as server:
        now = time.time()
        sent = frames_post_session(server=server, count=36, start=now - 3 * 3600, step_s=290)
        ocr_wait(server=server, frame_ids=[s["frame_id"] for s in sent])
        password = (server.data_dir / "admin_password.txt").read_text().strip()
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1440, "height": 900}, timezone_id=TIMEZONE)
            page.goto(server.url + "/login/")
            page.screenshot(path=str(out / "login.png"))
            page.fill("input[name=password]", password)
            page.click("button[type=submit]")
            page.wait_for_selector(".timeline")
            screenshot_settled(page, out / "timeline-day.png")
            hour = datetime.fromtimestamp(now - 3600).astimezone().hour
            page.click(".zoom a[aria-current] ~ a >> nth=-1")
            screenshot_settled(page, out / "timeline-hour.png")
            page.goto(server.url + "/search?q=会议")
            screenshot_settled(page, out / "search.png")
            page.click(".hit >> nth=0")
            page.wait_for_selector("#frame-image")
            screenshot_settled(page, out / "viewer.png")
            page.goto(server.url + "/chat")
            page.check("input[name=preset][value=today]", force=True)
            page.fill("textarea[name=message]", "What did I work on today?")
            page.press("textarea[name=message]", "Enter")
            page.wait_for_selector("li.answer .evidence img", timeout=120_000)
            page.wait_for_selector("#chat-form button:not([disabled])")
            screenshot_settled(page, out / "chat.png")
            page.click("li.answer .evidence-item >> nth=0")
            page.wait_for_selector("#frame-image")
            screenshot_settled(page, out / "viewer-evidence.png")
            page.goto(server.url + "/frames/999999/view")
            page.screenshot(path=str(out / "not-found.png"))
            browser.close()
            print(f"screenshots in {out} (hour {hour})")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "docs" / "screenshots")
