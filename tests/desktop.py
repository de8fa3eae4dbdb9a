"""A virtual X screen (Xvfb) with a real Tk window on it whose lines and title can be changed,
for the capture client's tests and benchmark."""

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.server import REPO


class Desktop:
    def __init__(self, tmp: Path, *, size=(1280, 800), window_class: str = "memowin"):
        # Xvfb picks a free display itself and writes its number when it accepts connections: two
        # test processes at once (pytest -n 2) never race for the same one.
        read_end, write_end = os.pipe()
        self.xvfb = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write_end), "-screen", "0", f"{size[0]}x{size[1]}x24", "-nolisten", "tcp"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, pass_fds=(write_end,),
        )
        os.close(write_end)
        with os.fdopen(read_end) as numbers:
            number = numbers.readline().strip()  # empty when Xvfb exits first
        if not number:
            self.xvfb.kill()
            raise RuntimeError("Xvfb did not start")
        self.display = f":{number}"
        self.env = {**os.environ, "DISPLAY": self.display}
        self.state = tmp / "window.json"
        self.window_class = window_class  # its WM_CLASS class is this, capitalised: the frame's app
        self.window = None

    def show(self, *lines: str, title: str, width=1000, height=500) -> None:
        """Show these lines in the test window (started on first use), titled `title`, focused."""
        tmp = self.state.with_suffix(".part")
        tmp.write_text(json.dumps({"lines": list(lines), "title": title, "width": width, "height": height}))
        os.replace(tmp, self.state)
        if self.window is None:
            self.window = subprocess.Popen(
                [sys.executable, str(REPO / "tests" / "capture" / "window.py"), str(self.state), self.window_class], env=self.env
            )

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
