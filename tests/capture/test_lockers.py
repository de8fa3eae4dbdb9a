"""A screen locker found by its process counts for its own session only: a locker of the same user
on another display (another sway, while this client captures GNOME) does not stop capture here."""

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from capture.lockers import locker_running, session_displays


@pytest.fixture
def locker(tmp_path):
    """Start a process named swaylock (a copy of sleep) with the given environment."""
    program = tmp_path / "swaylock"
    shutil.copy(shutil.which("sleep"), program)
    started = []

    def start(environ: dict[str, str]) -> subprocess.Popen:
        proc = subprocess.Popen([str(program), "60"], env=environ)
        started.append(proc)
        deadline = time.time() + 10
        while Path(f"/proc/{proc.pid}/comm").read_text().strip() != "swaylock" and time.time() < deadline:
            time.sleep(0.05)
        return proc

    yield start
    for proc in started:
        proc.kill()
        proc.wait()


def test_a_locker_counts_in_its_own_session_not_in_another_of_the_same_user(locker, tmp_path):
    theirs = {"WAYLAND_DISPLAY": "wayland-7", "XDG_RUNTIME_DIR": str(tmp_path / "sway-run")}
    ours = session_displays({"WAYLAND_DISPLAY": "wayland-0", "XDG_RUNTIME_DIR": str(tmp_path / "gnome-run")})
    uid = os.getuid()
    assert locker_running(uid, ours) is None
    proc = locker(theirs)
    assert locker_running(uid, ours) is None  # another session's swaylock
    assert locker_running(uid, session_displays(theirs)) == "swaylock"  # its own session's
    assert locker_running(uid) == "swaylock"  # a client that knows no display of its own
    assert locker_running(uid + 1, session_displays(theirs)) is None  # another user's
    proc.kill()
    proc.wait()
    assert locker_running(uid, session_displays(theirs)) is None


def test_a_locker_whose_environment_names_no_display_counts_for_every_session(locker, tmp_path):
    locker({"PATH": "/usr/bin:/bin"})
    assert locker_running(os.getuid(), session_displays({"DISPLAY": ":5.0"})) == "swaylock"


def test_the_displays_of_an_environment():
    assert session_displays({"WAYLAND_DISPLAY": "wayland-1", "XDG_RUNTIME_DIR": "/run/user/1000", "DISPLAY": ":1.0"}) == {
        "wayland:/run/user/1000/wayland-1",
        "x11::1",
    }
    assert session_displays({"WAYLAND_DISPLAY": "/tmp/w/wayland-2"}) == {"wayland:/tmp/w/wayland-2"}
    assert session_displays({"DISPLAY": ":1"}) == session_displays({"DISPLAY": ":1.0"})
    assert session_displays({}) == frozenset()
    assert session_displays({"WAYLAND_DISPLAY": "wayland-1"}) == frozenset()  # whose runtime dir: unknown, so it counts
