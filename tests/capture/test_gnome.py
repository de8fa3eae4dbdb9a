"""The capture client on GNOME (Wayland) for real: a headless gnome-shell 43 with a GTK window,
shared once through GNOME's Share dialog (the ScreenCast portal, clicked with Mutter's
RemoteDesktop), read from PipeWire, the focused window's app and title from MyRecall's GNOME Shell
extension, posted to a live server, read by its OCR and found by search; a new title; the next
start shares again with the restore token and no dialog; Cancel in the dialog; GNOME Shell going
away."""

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from capture.desktop import GNOME, SWAY, X11, desktop_kind
from capture.gnome import ASKING, TOKEN_FILE
from tests.capture.gnome import Gnome
from tests.capture.test_client import Client, found
from tests.live import wait_for
from tests.server import LiveServer, port_pick

APP = "org.example.Notes"


class GnomeClient(Client):
    """The client in the GNOME session, as its user (tests.capture.gnome): its state dir is that
    user's, its output in the test's folder."""

    def __init__(self, gnome: Gnome, log_dir, *, url: str, token: str, args=()):
        self.state = gnome.user_dir("state")
        if (kept := token_file(gnome)).exists():  # the share an earlier client kept, as in a user's one state dir
            copy = self.state / TOKEN_FILE
            shutil.copy(kept, copy)
            os.chown(copy, gnome.user.pw_uid, gnome.user.pw_gid)
            copy.chmod(0o600)
        gnome.token_dirs.append(self.state)
        self.log = log_dir / f"{self.state.name}.log"
        self.log_start = 0
        self.proc = gnome.client(["--url", url, "--interval", "1", "--state-dir", str(self.state), "--device", "desk", *args],
                                 {"MYRECALL_TOKEN": token}, stdout=open(self.log, "a"), stderr=subprocess.STDOUT)


@pytest.fixture(scope="module")
def gnome():
    session = Gnome()
    yield session
    session.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with LiveServer(tmp_path_factory.mktemp("gnome") / "data", env={"MYRECALL_DEDUP_MAX_DISTANCE": "-1"}) as live:
        yield live


def token_file(gnome) -> Path:
    """The restore token the latest client that kept one kept, in its state dir (--state-dir)."""
    if not hasattr(gnome, "token_dirs"):
        gnome.token_dirs = []
    kept = [folder / TOKEN_FILE for folder in gnome.token_dirs if (folder / TOKEN_FILE).exists()]
    return kept[-1] if kept else gnome.dir / "no-token-yet"


def shared(gnome) -> None:
    """A client just started shares the screen: with the restore token the first test kept, or
    (this test run alone) through the dialog."""
    if not token_file(gnome).exists():
        gnome.dialog_answer("share")


def test_a_gnome_window_is_shared_once_then_captured_read_and_found_with_its_app_and_title(gnome, server, tmp_path):
    gnome.window(APP, "Planning notes", "Zebracalm quorum notes")
    client = GnomeClient(gnome, tmp_path, url=server.url, token=server.token)
    try:
        gnome.dialog_answer("share")  # the first start: GNOME's Share dialog, "Remember this selection" left ticked
        hits = found(server, "Zebracalm")
        assert hits and (hits[0]["app_name"], hits[0]["window_name"]) == (APP, "Planning notes"), client.output()
        gnome.show(APP, "Ferries", "Xylofern harbour schedule")  # a new title and text
        hits = found(server, "Xylofern")
        assert hits and (hits[0]["app_name"], hits[0]["window_name"]) == (APP, "Ferries"), client.output()
    finally:
        assert client.stop() == 0
    output = client.output()
    assert ASKING in output and "capturing every monitor (1 Meta-0 1920x1080) on gnome" in output, output
    assert "extension is not on" not in output
    assert stat.S_IMODE(token_file(gnome).stat().st_mode) == 0o600
    # The next start: the portal's restore token shares the monitor again with no dialog (nobody
    # answers one here: a dialog would hold the client).
    client = GnomeClient(gnome, tmp_path, url=server.url, token=server.token)
    try:
        gnome.show(APP, "Harbour", "Quillmoss ferry notes")
        hits = found(server, "Quillmoss")
        assert hits and hits[0]["window_name"] == "Harbour", client.output()
    finally:
        assert client.stop() == 0
    assert ASKING not in client.output()


def test_a_title_change_is_a_new_frame_at_once_not_at_the_next_interval(gnome, server, tmp_path):
    """With a look every 10 minutes, the change still comes within the test's wait: GNOME sends a
    picture when the window changes, the extension says when its title does."""
    drafts = "org.example.Drafts"
    gnome.window(drafts, "Draft one", "Brimfallow opening line")
    client = GnomeClient(gnome, tmp_path, url=server.url, token=server.token, args=["--interval", "600", "--device", "titles"])
    try:
        shared(gnome)
        wait_for(lambda: (drafts, "Draft one") in titles(server), timeout_s=60, said=client.output)
        gnome.show(drafts, "Draft two", "Brimfallow opening line")
        wait_for(lambda: (drafts, "Draft two") in titles(server), timeout_s=30, said=client.output)
    finally:
        assert client.stop() == 0
    assert found(server, "Brimfallow"), client.output()


def titles(server) -> list[tuple[str, str]]:
    return server.rows("SELECT app_name, window_name FROM frames_frame WHERE device_name = %s", ("titles",))


def test_two_monitors_shared_are_each_captured_with_their_own_name_and_window(server, tmp_path):
    gnome = Gnome(monitors=2)
    try:
        gnome.window(APP, "Left screen", "Quillfather harbour chart")  # on the first monitor, which has the focus
        client = GnomeClient(gnome, tmp_path, url=server.url, token=server.token, args=["--device", "twin"])
        try:
            gnome.dialog_answer("share", monitors=2)
            wait_for(lambda: {row[0] for row in frame_rows(server, "twin")} == {"Meta-0", "Meta-1"}, timeout_s=60, said=client.output)
        finally:
            assert client.stop() == 0
        rows = frame_rows(server, "twin")
        assert ("Meta-0", APP, "Left screen", True) in rows, rows
        assert all(row[1:3] == ("", "") for row in rows if row[0] == "Meta-1"), rows  # no window there
        assert "capturing every monitor (1 Meta-0 1920x1080, 2 Meta-1 1920x1080) on gnome" in client.output()
    finally:
        gnome.close()


def frame_rows(server, device: str) -> list[tuple]:
    """Each frame's monitor, app, title and whether its window had the focus."""
    return [(row[0], row[1], row[2], None if row[3] is None else bool(row[3])) for row in server.rows(
        "SELECT monitor, app_name, window_name, focused FROM frames_frame WHERE device_name = %s", (device,))]


def test_cancel_in_gnomes_share_dialog_ends_the_client_with_one_clear_line(gnome, server, tmp_path):
    fresh = gnome.user_dir("fresh")  # no restore token there
    proc = gnome.client(["--url", server.url, "--state-dir", str(fresh / "state")],
                        {"XDG_STATE_HOME": str(fresh), "MYRECALL_TOKEN": server.token},
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        gnome.dialog_answer("cancel")
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 2, err
    asked, ended = err.strip().splitlines()  # the dialog said, then the one line of the end
    assert ASKING in asked and ended == (
        "capture: the screen share was cancelled in GNOME's Share dialog: nothing to record. Start again, choose the monitors, "
        "leave \"Remember this selection\" ticked and press Share"
    ), err
    assert not (fresh / "state" / TOKEN_FILE).exists() and not (fresh / "myrecall-capture" / TOKEN_FILE).exists()


def test_gnome_shell_going_away_ends_the_client_with_one_line_and_exit_code_5(gnome, tmp_path):
    """As tests.capture.test_client.desktop_lost: spooling (no server), every frame kept."""
    gnome.window(APP, "Last", "Endword lantern")
    client = GnomeClient(gnome, tmp_path, url=f"http://127.0.0.1:{port_pick()}", token="placeholder", args=["--report-every", "2"])
    shared(gnome)
    assert client.reports_wait(1)[-1]["spooled"] >= 1, client.output()
    gnome.shell.kill()
    code, after = client.ended()
    kept = len(list((client.state / "spool").glob("*.png")))
    assert code == 5 and len(after) == 1 and kept >= 1, client.output()
    assert "stopped: GNOME Shell went away" in after[0] and f"{kept} frame(s) kept in the spool" in after[0], after


def test_a_gnome_wayland_session_is_recorded_through_gnome_though_it_also_sets_an_x_display():
    session = {"WAYLAND_DISPLAY": "wayland-0", "XDG_CURRENT_DESKTOP": "ubuntu:GNOME", "DISPLAY": ":0"}
    assert desktop_kind(display=None, environ=session) == GNOME
    assert desktop_kind(display=":1", environ=session) == X11
    assert desktop_kind(display=None, environ={**session, "SWAYSOCK": "/run/user/1000/sway-ipc.sock"}) == SWAY
    assert desktop_kind(display=None, environ={"XDG_CURRENT_DESKTOP": "GNOME", "DISPLAY": ":0"}) == X11  # GNOME on Xorg
