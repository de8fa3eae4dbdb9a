"""What a cast desktop (capture.screencast, GNOME's and KDE's) does when a monitor's first picture
comes late: the look that found none says so, and the picture, once it comes, wakes the client at
once, not at the next interval (with --interval 600 that was ten minutes of nothing recorded,
seen on a loaded CI machine). The session tests (test_gnome, test_kde) run the rest for real."""

import os
import threading
import time

import pytest

from capture import screencast
from capture.desktop import ScreenError, monitors_numbered
from capture.screencast import CastDesktop


class LateFeed:
    """A feed whose monitor has sent no picture yet: `send` gives it one, as FrameFeed's reading
    thread does (the newest frame kept, then the desktop woken)."""

    ended = None

    def __init__(self, arrived):
        self.arrived = arrived
        self.frames = [None]

    def count(self, number: int) -> int:
        return self.frames[number][0] if self.frames[number] else 0

    def frame(self, number: int, wait_s: float, after: float = 0.0):
        return self.frames[number]

    def send(self) -> None:
        self.frames[0] = (self.count(0) + 1, 2, 1, b"\x00" * 8)
        self.arrived()

    def close(self) -> None:
        pass


@pytest.fixture
def desktop(monkeypatch):
    monkeypatch.setattr(screencast, "FIRST_FRAME_S", 0.1)
    cast = object.__new__(CastDesktop)  # its waiting only: no portal, no PipeWire
    cast._wake_read, cast._wake_write = cast._wake_fds = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    cast.cast = cast._locks = None
    cast._gone, cast._window_changed, cast._window_changed_at = None, False, 0.0
    cast._monitors = monitors_numbered([("Meta-0", 0, 0, 1920, 1080)])
    cast._stream_of = {"Meta-0": 0}
    cast._shots, cast._watched, cast._waited = {}, {}, {}
    cast.feed = LateFeed(cast._wake)
    yield cast
    cast.close()


def test_a_first_picture_that_comes_late_wakes_the_wait_at_once(desktop):
    monitor = desktop.monitors()[0]
    with pytest.raises(ScreenError, match="PipeWire sent no picture of Meta-0"):
        desktop.grab(monitor)
    never_read, _ = os.pipe()
    threading.Timer(0.3, desktop.feed.send).start()
    started = time.monotonic()
    assert desktop.change_wait(30, never_read) is True
    assert time.monotonic() - started < 10
    assert desktop.grab(monitor).width == 2  # and the look it woke takes it


def test_with_no_picture_yet_and_none_coming_the_wait_lasts_its_time(desktop):
    with pytest.raises(ScreenError):
        desktop.grab(desktop.monitors()[0])
    never_read, _ = os.pipe()
    started = time.monotonic()
    assert desktop.change_wait(0.5, never_read) is False  # no busy loop on a stream with no picture
    assert time.monotonic() - started >= 0.5
