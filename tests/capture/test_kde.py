"""The capture client on KDE Plasma (Wayland) for real: a headless KWin 5.27 with GTK windows on two
monitors (tests.capture.kde), the screen shared once through the KDE portal's Screen Sharing dialog
(clicked through KWin's fake input), the windows read through MyRecall's KWin script, loaded into
KWin by the client over D-Bus and unloaded when it stops; the next start shares again with the
restore token and no dialog; Cancel in the dialog; KWin going away.

What cannot run here: KWin 5.27's virtual backend sends no picture on a monitor's screen cast (its
outputs never report a repaint, which the cast waits for; a GPU's outputs do), so no frame of KDE's
reaches a server in these tests. The frames take the same path as GNOME's (capture.screencast:
the portal's PipeWire stream read by gst-launch), which tests/capture/test_gnome.py runs end to end."""

import json
import os
import shutil
import signal
import stat
import subprocess
import time

import pytest

from capture.desktop import KDE, WLROOTS, X11, desktop_kind
from capture.kde import DIALOG, PLUGIN, SCRIPT_HOW, TOKEN_FILE, KdeDesktop
from capture.portal import Stream
from capture.wayland import Output
from tests.capture.kde import Kde
from tests.server import port_pick

NOTES, CHART = "org.example.Notes", "org.example.Chart"
MONITORS = [["Virtual-0", 0, 0, 1920, 1080], ["Virtual-1", 1920, 0, 1920, 1080]]


class Driver:
    """capture.kde's desktop in the session, as its user, asked one thing at a time (tests/capture/kde_desktop.py)."""

    def __init__(self, kde: Kde, state):
        self.proc = kde.python(["tests/capture/kde_desktop.py", str(state)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)

    def opened(self):
        line = self.proc.stdout.readline()
        assert line, self.proc.stderr.read()
        return json.loads(line)

    def ask(self, command: str):
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, self.proc.stderr.read()
        return json.loads(line)

    def end(self) -> str:
        """Its stderr (its log lines), once it ended."""
        try:
            _out, err = self.proc.communicate(timeout=30)
        finally:
            self.proc.kill()
        return err


@pytest.fixture(scope="module")
def kde():
    session = Kde(monitors=2)
    yield session
    session.close()


def state_with_token(kde: Kde, token_from=None):
    """A new state dir of the session's user, with the restore token another one kept."""
    state = kde.user_dir("state")
    if token_from is not None:
        shutil.copy(token_from / TOKEN_FILE, state / TOKEN_FILE)
        os.chown(state / TOKEN_FILE, kde.user.pw_uid, kde.user.pw_gid)
    return state


def client(kde: Kde, state, log):
    """The capture client in the session, sending to a port nothing listens on (its frames wait in the spool)."""
    return kde.client(["--url", f"http://127.0.0.1:{port_pick()}", "--state-dir", str(state), "--device", "plasma"],
                      {"MYRECALL_TOKEN": "unused"}, stdout=open(log, "w"), stderr=subprocess.STDOUT)


def output_wait(log, text: str, proc, timeout_s: float = 60) -> str:
    deadline = time.time() + timeout_s
    while time.time() < deadline and proc.poll() is None:
        if text in (out := log.read_text()):
            return out
        time.sleep(0.2)
    raise AssertionError(f"{text!r} not said: {log.read_text()}")


def test_both_monitors_are_shared_once_named_and_each_windows_read_through_kwins_script(kde):
    kde.window(NOTES, "Left screen", "Quillfather harbour chart")  # on the first monitor, which has the focus
    state = kde.user_dir("state")
    driver = Driver(kde, state)
    try:
        kde.dialog_answer("share", monitors=2)
        assert driver.opened() == MONITORS
        assert stat.S_IMODE((state / TOKEN_FILE).stat().st_mode) == 0o600 and (state / TOKEN_FILE).read_text().strip()
        assert kde.script_loaded(PLUGIN)
        assert driver.ask("focused") == [NOTES, "Left screen", "Virtual-0"]
        # A window opened where the pointer is, on the second monitor, takes the focus: the script says so at once.
        kde.input("click", "2880", "900")
        kde.window(CHART, "Right screen", "Tidewater tables")
        assert driver.ask("wait 10") is True
        assert driver.ask("focused") == [CHART, "Right screen", "Virtual-1"]
        assert driver.ask("on 2") == [CHART, "Right screen", "Virtual-1"]
        assert driver.ask("on 1") == [NOTES, "Left screen", "Virtual-0"]  # the window on top there, not focused
        kde.show(CHART, "Right screen, renamed", "Tidewater tables")
        assert driver.ask("wait 10") is True
        assert driver.ask("focused") == [CHART, "Right screen, renamed", "Virtual-1"]
        assert driver.ask("alive") is None
        assert driver.ask("close") is None
        assert not kde.script_loaded(PLUGIN)  # unloaded as the client let go
    finally:
        err = driver.end()
    assert DIALOG.asking in err and SCRIPT_HOW not in err, err
    kde.token_dir = state


def test_the_client_starts_again_with_the_token_and_no_dialog_and_ctrl_c_unloads_the_script(kde, tmp_path):
    state = state_with_token(kde, kde.token_dir)
    log = tmp_path / "client.log"
    proc = client(kde, state, log)
    try:
        out = output_wait(log, "capturing every monitor (1 Virtual-0 1920x1080, 2 Virtual-1 1920x1080) on kde", proc)
        assert DIALOG.asking not in out and SCRIPT_HOW not in out, out
        assert kde.script_loaded(PLUGIN)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0, log.read_text()
    finally:
        proc.kill()
    assert "stopped by SIGINT" in log.read_text()
    assert not kde.script_loaded(PLUGIN)


def test_cancel_in_kdes_dialog_ends_the_client_with_one_clear_line(kde):
    proc = kde.client(["--url", f"http://127.0.0.1:{port_pick()}", "--state-dir", str(kde.user_dir("state"))],
                      {"MYRECALL_TOKEN": "unused"}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        kde.dialog_answer("cancel")
        _out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 2, err
    unreachable, asked, ended = err.strip().splitlines()  # no server here; the dialog said, then the one line of the end
    assert "cannot reach" in unreachable, err
    assert DIALOG.asking in asked and ended == (
        "capture: the screen share was cancelled in KDE's screen sharing dialog: nothing to record. Start again, choose the "
        "monitors, leave \"Allow restoring on future sessions\" ticked and press Share"), err


def test_kwin_going_away_ends_the_client_with_code_5(kde, tmp_path):
    """Last: the session ends with KWin."""
    log = tmp_path / "client.log"
    proc = client(kde, state_with_token(kde, kde.token_dir), log)
    try:
        output_wait(log, "on kde", proc)
        kde.kwin.kill()
        assert proc.wait(timeout=60) == 5, log.read_text()
    finally:
        proc.kill()
    assert "stopped: KWin went away" in log.read_text()


def test_a_kde_wayland_session_is_told_from_its_environment():
    session = {"WAYLAND_DISPLAY": "wayland-0", "XDG_CURRENT_DESKTOP": "KDE", "DISPLAY": ":1"}
    assert desktop_kind(display=None, environ=session) == KDE
    assert desktop_kind(display=":1", environ=session) == X11  # an X display given on the command line wins
    assert desktop_kind(display=None, environ={"XDG_CURRENT_DESKTOP": "KDE", "DISPLAY": ":0"}) == X11  # Plasma on Xorg
    assert desktop_kind(display=None, environ={"WAYLAND_DISPLAY": "wayland-1", "XDG_CURRENT_DESKTOP": "Hyprland"}) == WLROOTS


def test_shared_streams_are_matched_to_kwins_monitors_by_place_when_given_else_by_size_left_to_right(monkeypatch):
    """KDE's portal (Plasma 5.27) gives a stream's size only; a newer one may give its place too."""
    outputs = [Output(global_name=1, object_id=3, name="HDMI-A-1", width=3840, height=2160, scale=2, x=1920, y=0),
               Output(global_name=2, object_id=4, name="DP-1", width=1920, height=1080, x=0, y=0),
               Output(global_name=3, object_id=5, name="DP-2", width=1920, height=1080, x=0, y=1080)]
    monkeypatch.setattr(KdeDesktop, "_outputs", staticmethod(lambda: list(outputs)))
    desktop = object.__new__(KdeDesktop)  # only its matching, no session

    def stream(node, width, height, x=None, y=None):
        return Stream(node=node, source_id=str(node), x=x, y=y, width=width, height=height)

    # By size, left to right: the HiDPI one by its layout size (1920x1080 at scale 2) or its pixels.
    assert desktop._places([stream(7, 3840, 2160), stream(8, 1920, 1080), stream(9, 1920, 1080)]) == [
        ("HDMI-A-1", 1920, 0, 1920, 1080), ("DP-1", 0, 0, 1920, 1080), ("DP-2", 0, 1080, 1920, 1080)]
    # By place when the portal says it, whatever the order.
    assert desktop._places([stream(8, 1920, 1080, 0, 1080), stream(9, 1920, 1080, 0, 0)]) == [
        ("DP-2", 0, 1080, 1920, 1080), ("DP-1", 0, 0, 1920, 1080)]
    # More streams than monitors (one unplugged since): the last is named by its number.
    assert desktop._places([stream(n, 1920, 1080) for n in (1, 2, 3, 4)])[-1] == ("monitor-4", 0, 0, 1920, 1080)
