"""A virtual X screen (Xvfb) with a real Tk window on it whose lines and title can be changed,
for the capture client's tests and benchmark."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from tests.server import REPO


class Desktop:
    def __init__(self, tmp: Path, *, size=(1280, 800)):
        self.display = None
        for number in range(90, 140):
            if not Path(f"/tmp/.X11-unix/X{number}").exists() and not Path(f"/tmp/.X{number}-lock").exists():
                self.display = f":{number}"
                break
        self.xvfb = subprocess.Popen(
            ["Xvfb", self.display, "-screen", "0", f"{size[0]}x{size[1]}x24", "-nolisten", "tcp"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        deadline = time.time() + 20
        while not Path(f"/tmp/.X11-unix/X{self.display[1:]}").exists():
            if time.time() > deadline or self.xvfb.poll() is not None:
                raise RuntimeError("Xvfb did not start")
            time.sleep(0.05)
        self.env = {**os.environ, "DISPLAY": self.display}
        self.state = tmp / "window.json"
        self.window = None

    def show(self, *lines: str, title: str, width=1000, height=500) -> None:
        """Show these lines in the test window (started on first use), titled `title`, focused."""
        tmp = self.state.with_suffix(".part")
        tmp.write_text(json.dumps({"lines": list(lines), "title": title, "width": width, "height": height}))
        os.replace(tmp, self.state)
        if self.window is None:
            self.window = subprocess.Popen([sys.executable, str(REPO / "tests" / "capture" / "window.py"), str(self.state)], env=self.env)

    def xdotool(self, *args: str) -> str:
        return subprocess.run(["xdotool", *args], env=self.env, capture_output=True, text=True, timeout=10).stdout

    def close(self) -> None:
        for proc in (self.window, self.xvfb):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
