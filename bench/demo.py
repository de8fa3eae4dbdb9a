"""A day of realistic frames posted through the real API, for screenshots and browser tests."""

import io
import random
import time

from bench.live import LiveServer
from bench.screens import render, session


def frames_post_session(*, server: LiveServer, count: int, start: float, step_s: float, seed: int = 11) -> list[dict]:
    """Post `count` frames of a working session, `step_s` apart from `start`; returns what was sent."""
    sent = []
    for i, (screen, action) in enumerate(session(random.Random(seed), count)):
        buf = io.BytesIO()
        render(screen).save(buf, format="PNG")
        ts = start + i * step_s
        resp = server.session.post(
            server.url + "/api/v1/frames",
            files={"image": ("frame.png", buf.getvalue(), "image/png")},
            data={
                "timestamp": ts,
                "app_name": screen.app_name,
                "window_name": screen.window_name,
                "browser_url": screen.browser_url,
                "focused": "true",
                "device_name": "demo",
            },
            timeout=60,
        )
        resp.raise_for_status()
        sent.append({"frame_id": resp.json()["frame_id"], "timestamp": ts, "action": action, "screen": screen})
    return sent


def ocr_wait(*, server: LiveServer, frame_ids: list[int], timeout_s: float = 600) -> None:
    deadline = time.time() + timeout_s
    pending = {i for i in frame_ids if i}
    while pending and time.time() < deadline:
        for frame_id in list(pending):
            status = server.session.get(f"{server.url}/api/v1/frames/{frame_id}/metadata", timeout=30).json()["ocr_status"]
            if status != "pending":
                pending.discard(frame_id)
        time.sleep(0.5)
    if pending:
        raise TimeoutError(f"OCR still pending for {sorted(pending)}")
