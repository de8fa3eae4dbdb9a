"""Whether the offline summary's claims are shown by the frames they cite (issue 40, item 5).

A captured session: a real `manage.py serve` (web server and worker, no model configured) is
sent 70 minutes of a working morning through POST /api/v1/frames, one screenshot every 30 s
(dedup off, so that each is kept: only their clocks differ), each drawn from text (tests/screens.render: a terminal, a text editor, a browser with its
address bar, a chat) with its app, window title and address, and read by the real OCR. Then
a labelled set of questions (English and Chinese: a summary, "when did I see", "which pages",
"which apps") goes through POST /api/v1/chat, and every claim of every answer is checked
against the frames it cites, as the OCR read them (tests/chat/claims.py: an app claim cites a
frame of that app, a quote the frame whose text holds it, a page or window a frame with that
address or title, a time a frame of that time). Reported:
- the share of claims whose every cited frame shows them (goal 100 %);
- duplicates per answer: a frame cited again, a quote shown again (goal 0);
- the questions whose answer cites the frames its label names (e.g. a frame of every page
  visited for "which pages did I read").
Prints figures; asserts nothing.

    .venv/bin/python bench/claims.py
    .venv/bin/python bench/claims.py --answers     # print every answer and its unsupported claims
"""

import argparse
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone
from pathlib import Path
from zoneinfo import ZoneInfo

from tqdm import tqdm

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.chat.claims import FrameFacts, answer_check  # noqa: E402
from tests.screens import Screen, render  # noqa: E402
from tests.server import LiveServer, ocr_wait  # noqa: E402

ZONE = ZoneInfo("Europe/Oslo")
START = datetime(2026, 3, 10, 10, 0, tzinfo=ZONE)
STEP_S = 30
SIZE = (1280, 800)

SHOP = "~/src/shop — xterm"
TODO = ["Remember to renew the passport before June", "Buy a birthday present for Ingrid", "Call the dentist about the crown"]
# (minutes, kind, app, window, address, lines): the morning, stretch by stretch.
STRETCHES = [
    (12, "terminal", "XTerm", SHOP, "", [
        "$ git log --oneline -3", "4f2a1c9 Fix rounding of VAT in invoices", "9b01d7e Add export of orders to CSV",
        "$ pytest -q tests/test_tax.py", "7 passed in 0.41s",
    ]),
    (4, "browser", "Firefox", "Invoice 2291 — Mozilla Firefox", "https://billing.example.com/invoices/2291", [
        "Invoice 2291", "Hetzner Online GmbH", "Amount due: 245 USD", "Due date: 31 March 2026",
    ]),
    (3, "terminal", "XTerm", SHOP, "", ["$ make deploy", "Deploying shop to staging", "Migrations applied: 2", "Done in 12 s"]),
    (2, "editor", "Mousepad", "todo.txt", "", TODO),
    (1, "browser", "Firefox", "Ask HN: How do you keep notes? | Hacker News — Mozilla Firefox", "https://news.ycombinator.com/item?id=4242", [
        "Ask HN: How do you keep notes?", "312 comments", "I keep one plain text file per year",
    ]),
    (5, "editor", "Mousepad", "todo.txt", "", TODO),
    (5, "browser", "Firefox", "Oslo – weather forecast – yr — Mozilla Firefox", "https://www.yr.no/en/forecast/daily-table/1-72837/Norway/Oslo/Oslo/Oslo", [
        "Weather forecast for Oslo", "Tuesday: light rain, 6 degrees", "Wednesday: cloudy, 8 degrees", "Thursday: sun, 11 degrees",
    ]),
    (5, "chat", "Slack", "#sales — Slack", "", [
        "Kari: the sales forecast for Q3 is ready", "me: thanks, I will read it after lunch", "Kari: the numbers are in the shared sheet",
    ]),
    (10, "browser", "Firefox", "pandas.DataFrame.groupby — pandas documentation — Mozilla Firefox",
     "https://pandas.pydata.org/docs/reference/api/pandas.DataFrame.groupby.html", [
        "pandas.DataFrame.groupby", "DataFrame.groupby(by=None, axis=0, level=None, as_index=True)",
        "Group DataFrame using a mapper or by a Series of columns.",
    ]),
    (6, "browser", "Firefox", "Python 教程 - 知乎 — Mozilla Firefox", "https://zhuanlan.zhihu.com/p/123456", [
        "如何用 Python 处理表格数据", "第一步：安装 pandas", "第二步：读取 CSV 文件",
    ]),
    (7, "editor", "Mousepad", "todo.txt", "", [*TODO, "Book a table for Friday"]),
    (6, "terminal", "XTerm", SHOP, "", ["$ python scripts/export.py --month 2026-02", "Exported 1,284 orders to orders-2026-02.csv"]),
    (4, "chat", "Slack", "#general — Slack", "", ["Ola: lunch at 12 in the canteen?", "me: yes, see you there"]),
]

PAGES = ["billing.example.com", "news.ycombinator.com", "yr.no", "pandas.pydata.org", "zhuanlan.zhihu.com"]
APPS = ["XTerm", "Firefox", "Mousepad", "Slack"]


@dataclass(frozen=True)
class Question:
    text: str
    # What the answer must cite: for each (field, value), a frame whose field holds the value
    # (field: app, url, window or text).
    must_cite: tuple[tuple[str, str], ...]


QUESTIONS = [
    Question("Summarise what I did", (("app", "XTerm"), ("app", "Firefox"), ("app", "Mousepad"), ("app", "Slack"))),
    Question("What did I do this morning?", (("app", "XTerm"), ("app", "Firefox"))),
    Question("When did I see the weather forecast for Oslo?", (("url", "yr.no"),)),
    Question("Where did I see the passport reminder?", (("text", "renew the passport"),)),
    Question("How much was the amount due on the invoice?", (("text", "Amount due"),)),
    Question("When did I read about groupby in pandas?", (("url", "pandas.pydata.org"),)),
    Question("What did Kari say about the sales forecast?", (("text", "sales forecast"),)),
    Question("Which pages did I read in the browser?", tuple(("url", page) for page in PAGES)),
    Question("What sites did I visit?", tuple(("url", page) for page in PAGES)),
    Question("我今天看了哪些网页？", tuple(("url", page) for page in PAGES)),
    Question("Which apps did I use?", tuple(("app", app) for app in APPS)),
    Question("我用了哪些应用？", tuple(("app", app) for app in APPS)),
    Question("Which windows did I have open?", (("window", "todo.txt"), ("window", "#sales"), ("window", SHOP))),
    Question("我什么时候看了知乎的文章？", (("url", "zhihu.com"),)),
]


def session_post(server: LiveServer) -> list[int]:
    """The morning's screenshots, posted as a capture client posts them; the clock in the
    corner changes every frame, as on a real screen (identical screens are not kept)."""
    ids = []
    at = START
    steps = [(kind, app, window, url, lines) for minutes, kind, app, window, url, lines in STRETCHES for _ in range(minutes * 60 // STEP_S)]
    for kind, app, window, url, lines in tqdm(steps, desc="posting frames", unit="frame"):
        screen = Screen(kind=kind, app_name=app, window_name=window, browser_url=url, lines=[*lines, "", f"{at:%H:%M:%S}"])
        buf = io.BytesIO()
        render(screen, SIZE).save(buf, format="PNG")
        response = server.session.post(
            server.url + "/api/v1/frames",
            files={"image": ("frame.png", buf.getvalue(), "image/png")},
            data={"timestamp": at.timestamp(), "app_name": app, "window_name": window, "browser_url": url, "focused": "true", "device_name": "bench"},
            timeout=60,
        )
        response.raise_for_status()
        ids.append(response.json()["frame_id"])
        at += timedelta(seconds=STEP_S)
    if len(set(ids)) != len(steps):
        raise RuntimeError(f"{len(steps)} screenshots posted, {len(set(ids))} kept")
    return ids


def frames_read(server: LiveServer, ids: list[int]) -> dict[int, FrameFacts]:
    """Every frame of the session as the server keeps it: its app, title, address and the OCR's text."""
    frames = {}
    for frame_id in ids:
        meta = server.session.get(f"{server.url}/api/v1/frames/{frame_id}/metadata", timeout=30).json()
        text = server.session.get(f"{server.url}/api/v1/frames/{frame_id}/ocr", timeout=30).json()["text"]
        frames[frame_id] = FrameFacts(
            frame_id=frame_id,
            timestamp=datetime.fromisoformat(meta["timestamp"].replace("Z", "+00:00")),
            app_name=meta["app_name"],
            window_name=meta["window_name"],
            browser_url=meta["browser_url"],
            text=text,
        )
    return frames


def labels_met(question: Question, cited: list[FrameFacts]) -> list[str]:
    """The labels of the question that no cited frame meets."""
    def holds(frame: FrameFacts, field: str, value: str) -> bool:
        shown = {"app": frame.app_name, "url": frame.browser_url, "window": frame.window_name, "text": " ".join(frame.text.split())}[field]
        return value.lower() in shown.lower()

    return [f"{field}={value}" for field, value in question.must_cite if not any(holds(frame, field, value) for frame in cited)]


def code_state() -> str:
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "chat", "tests/chat", "bench/claims.py"], cwd=REPO, capture_output=True, text=True).stdout
    return f"commit {head}" + (" with uncommitted changes to chat/, tests/chat/ or this bench" if dirty.strip() else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--answers", action="store_true", help="print every answer and its unsupported claims")
    args = parser.parse_args()
    command = " ".join([os.path.relpath(sys.executable, REPO), *sys.argv])
    work = Path(tempfile.mkdtemp(prefix="myrecall-bench-claims-"))
    started = time.monotonic()
    # Dedup off: these screens differ only by their clock, where a real one changes more.
    with LiveServer(work / "data", env={"LLM_BASE_URL": "", "LLM_MODEL": "", "MYRECALL_DEDUP_MAX_DISTANCE": "-1"}) as server:
        ids = session_post(server)
        ocr_wait(server=server, frame_ids=ids, timeout_s=1800)
        ingest_s = time.monotonic() - started
        frames = frames_read(server, ids)
        rows = []
        for question in tqdm(QUESTIONS, desc="questions", unit="answer"):
            body = {
                "message": question.text, "start_time": START.timestamp(),
                "end_time": (START + timedelta(seconds=STEP_S * len(ids))).timestamp(), "timezone": ZONE.key,
            }
            response = server.session.post(server.url + "/api/v1/chat", data=json.dumps(body), headers={"Content-Type": "application/json"}, timeout=300)
            response.raise_for_status()
            payload = response.json()
            check = answer_check(payload["answer_md"], frames, zone=ZONE)
            missing = labels_met(question, [frames[i] for i in check.cited if i in frames])
            rows.append((question, payload, check, missing))

    claims = sum(len(check.claims) for _, _, check, _ in rows)
    supported = sum(len(check.claims) - len(check.unsupported) for _, _, check, _ in rows)
    duplicates = [check.duplicates for _, _, check, _ in rows]
    if args.answers:
        for question, payload, check, missing in rows:
            print(f"\n===== {question.text}\n{payload['answer_md']}")
            for claim in check.unsupported:
                print(f"  UNSUPPORTED: {claim.text.strip()!r}: {'; '.join(claim.problems)}")
            if check.duplicates:
                print(f"  REPEATED: frames {check.repeated_frames}, quotes {check.repeated_quotes}")
            if missing:
                print(f"  LABELS NOT CITED: {missing}")
    print(f"\n== offline summary claims over a captured session: {len(ids)} screenshots (real OCR), "
          f"{len(QUESTIONS)} labelled questions, no model ==")
    print(f"{'question':<48} {'claims':>6} {'shown':>6} {'dups':>5}  labels")
    for question, _payload, check, missing in rows:
        shown = len(check.claims) - len(check.unsupported)
        labels = "all cited" if not missing else "missing " + ", ".join(missing)
        print(f"{question.text[:48]:<48} {len(check.claims):>6} {shown:>6} {check.duplicates:>5}  {labels}")
    print(f"\nclaims whose cited frames show them: {supported}/{claims} = {supported / max(claims, 1):.1%} (goal 100 %)")
    print(f"duplicates per answer (a frame cited again, a quote shown again): mean {sum(duplicates) / len(duplicates):.2f}, "
          f"max {max(duplicates)} (goal 0)")
    print(f"answers citing every frame their label names: {sum(not m for *_, m in rows)}/{len(rows)}")
    print(f"\ncommand: {command}\ncode: {code_state()}; session posted and read in {ingest_s:.0f} s")


if __name__ == "__main__":
    main()
