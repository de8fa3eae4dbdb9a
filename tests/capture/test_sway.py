"""The capture client on sway for real: a headless sway session with foot windows, captured by
`python -m capture` through the compositor's screencopy protocol, the focused window's app id and
title read through sway's IPC, posted to a live server, read by its OCR and found by search; a
new title, another window, the second monitor; exclusions and pause; sway going away."""

import signal
import subprocess
import sys
import time
import types

import pytest

from capture.desktop import KDE, SWAY, WLROOTS, X11, desktop_kind
from tests.capture.sway import Sway
from tests.capture.test_client import Client, desktop_lost, found, run_client
from tests.live import wait_for
from tests.server import REPO, LiveServer


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with LiveServer(tmp_path_factory.mktemp("sway") / "data", env={"MYRECALL_DEDUP_MAX_DISTANCE": "-1"}) as live:
        yield live


@pytest.fixture
def sway():
    session = Sway()
    yield session
    session.close()


def focus_wait(sway: Sway, app_id: str, title: str) -> None:
    wait_for(lambda: sway.focused() == (app_id, title), timeout_s=30)


def test_a_sway_window_is_captured_read_and_found_with_its_app_id_and_title(sway, server, tmp_path):
    sway.window("editor", "Planning notes", "Zebracalm quorum notes", "budget for the offsite")
    focus_wait(sway, "editor", "Planning notes")
    client = Client(sway, tmp_path / "state", url=server.url, token=server.token)
    try:
        hits = found(server, "Zebracalm")
        assert hits and (hits[0]["app_name"], hits[0]["window_name"]) == ("editor", "Planning notes"), client.output()
        sway.write("editor", "Xylofern harbour schedule", title="Ferries")  # the app sets a new title
        hits = found(server, "Xylofern")
        assert hits and (hits[0]["app_name"], hits[0]["window_name"]) == ("editor", "Ferries"), client.output()
        sway.window("mailer", "Inbox (3)", "Quillmoss invoice due")  # another app opens and takes the focus
        focus_wait(sway, "mailer", "Inbox (3)")
        hits = found(server, "Quillmoss")
        assert hits and (hits[0]["app_name"], hits[0]["window_name"]) == ("mailer", "Inbox (3)"), client.output()
    finally:
        assert client.stop() == 0
    assert "capturing every monitor (1 HEADLESS-1 1280x800) on sway" in client.output()


def test_on_sway_an_excluded_app_is_not_captured_and_pause_stops_capture(sway, server, tmp_path):
    state = tmp_path / "state"
    sway.window("vault", "Secrets", "Hushword vault codes")
    focus_wait(sway, "vault", "Secrets")
    client = Client(sway, state, url=server.url, token=server.token, args=["--exclude-app", "vault"])
    try:
        wait_for(lambda: "not captured: the app" in client.output(), timeout_s=60, said=client.output)
        sway.command("workspace 2")  # the excluded window off the screen, as a focused one's neighbour is not
        sway.window("notes", "Garden", "Openword garden plans")
        focus_wait(sway, "notes", "Garden")
        assert found(server, "Openword"), client.output()
        assert found(server, "Hushword", timeout_s=2) == []
        subprocess.run([sys.executable, "-m", "capture", "pause", "--state-dir", str(state)], cwd=REPO, check=True)
        time.sleep(1.5)
        sway.write("notes", "Pausedword kettle")
        time.sleep(4)
        assert found(server, "Pausedword", timeout_s=2) == [] and "paused" in client.output()
        subprocess.run([sys.executable, "-m", "capture", "resume", "--state-dir", str(state)], cwd=REPO, check=True)
        assert found(server, "Pausedword"), client.output()
    finally:
        assert client.stop() == 0


def test_the_second_monitor_on_sway_is_captured_with_monitor_2(server, tmp_path):
    sway = Sway(outputs=((1024, 768), (1280, 800)))
    try:
        sway.command("focus output HEADLESS-2")
        sway.window("viewer", "Second screen", "Marrowfinch atlas page")
        focus_wait(sway, "viewer", "Second screen")
        client = Client(sway, tmp_path / "state", url=server.url, token=server.token, args=["--monitor", "2"])
        try:
            hits = found(server, "Marrowfinch")
            assert hits and hits[0]["app_name"] == "viewer", client.output()
        finally:
            assert client.stop() == 0
        assert "capturing monitor 2 (HEADLESS-2, 1280x800) on sway" in client.output()
        none = run_client(sway, tmp_path, "--url", server.url, "--token", server.token, "--monitor", "3")
        assert none.returncode == 2 and "there is no monitor 3" in none.stderr and "2 HEADLESS-2" in none.stderr, none.stderr
        # The monitor with the focused window, whichever it is.
        client = Client(sway, tmp_path / "state2", url=server.url, token=server.token, args=["--monitor", "focused", "--device", "follow"])
        try:
            wait_for(lambda: monitors_of(server, "follow") == {"HEADLESS-2"}, timeout_s=60, said=client.output)
            sway.command("focus output HEADLESS-1")
            sway.window("atlas", "First screen", "Tidewhistle chart notes")
            focus_wait(sway, "atlas", "First screen")
            hits = found(server, "Tidewhistle")
            assert hits and frame_row(server, hits[0]["frame_id"])[:2] == ("HEADLESS-1", "atlas"), client.output()
        finally:
            assert client.stop() == 0
        assert monitors_of(server, "follow") == {"HEADLESS-1", "HEADLESS-2"}
    finally:
        sway.close()


def monitors_of(server, device: str) -> set[str]:
    return {row[0] for row in server.rows("SELECT monitor FROM frames_frame WHERE device_name = %s", (device,))}


def frame_row(server, frame_id: int) -> tuple:
    """The frame's monitor, app, title, whether it had the focus, and its width in pixels."""
    (row,) = server.rows("SELECT monitor, app_name, window_name, focused, width FROM frames_frame WHERE id = %s", (frame_id,))
    return (row[0], row[1], row[2], None if row[3] is None else bool(row[3]), row[4])


def two_monitors(left: tuple[str, str, str], right: tuple[str, str, str]) -> Sway:
    """A headless sway with two monitors (1024x768, then 1280x800) and a window (app id, title,
    a line) on each; the right one has the focus."""
    sway = Sway(outputs=((1024, 768), (1280, 800)))
    for output, (app_id, title, line) in (("HEADLESS-1", left), ("HEADLESS-2", right)):
        sway.command(f"focus output {output}")
        sway.window(app_id, title, line)
        focus_wait(sway, app_id, title)
    return sway


def test_every_monitor_on_sway_is_captured_with_its_own_window_also_one_plugged_in_and_at_scale_2(server, tmp_path):
    sway = two_monitors(("atlas", "Left screen", "Quillfather harbour chart"), ("ledger", "Right screen", "Pebblewright invoice total"))
    try:
        sway.command("output HEADLESS-2 scale 2")  # HiDPI: its pixels are twice its layout size
        client = Client(sway, tmp_path / "state", url=server.url, token=server.token, args=["--device", "twin"])
        try:
            hits = found(server, "Quillfather")
            # The left monitor's frame: the window shown there, which has not the focus.
            assert hits and frame_row(server, hits[0]["frame_id"]) == ("HEADLESS-1", "atlas", "Left screen", False, 1024), client.output()
            hits = found(server, "Pebblewright")
            assert hits and frame_row(server, hits[0]["frame_id"]) == ("HEADLESS-2", "ledger", "Right screen", True, 1280), client.output()
            sway.command("create_output")  # a monitor plugged in while it runs
            sway.command("focus output HEADLESS-3")
            sway.window("third", "Third screen", "Marlinspike ferry notes")
            focus_wait(sway, "third", "Third screen")
            hits = found(server, "Marlinspike")
            assert hits and frame_row(server, hits[0]["frame_id"])[:4] == ("HEADLESS-3", "third", "Third screen", True), client.output()
        finally:
            assert client.stop() == 0
        output = client.output()
        assert "capturing every monitor (1 HEADLESS-1 1024x768, 2 HEADLESS-2 1280x800) on sway" in output, output
        assert "monitors now: 1 HEADLESS-1 1024x768, 2 HEADLESS-2 1280x800, 3 HEADLESS-3 " in output, output
    finally:
        sway.close()


def test_sway_going_away_ends_the_client_with_one_line_and_exit_code_5(sway, tmp_path):
    sway.window("editor", "Notes", "Endword lantern")
    focus_wait(sway, "editor", "Notes")
    desktop_lost(sway, tmp_path, sway.proc.kill, f"the sway session at {sway.dir}/{sway.wayland} went away")


def test_a_sway_session_is_recorded_through_sway_though_it_also_sets_an_x_display():
    session = {"WAYLAND_DISPLAY": "wayland-1", "SWAYSOCK": "/run/user/1000/sway-ipc.sock", "DISPLAY": ":0"}
    assert desktop_kind(display=None, environ=session) == SWAY
    assert desktop_kind(display=":1", environ=session) == X11  # an X display asked for by name
    assert desktop_kind(display=None, environ={"DISPLAY": ":0"}) == X11
    # Another Wayland desktop: a wlroots one (Hyprland, river...), or KDE's.
    assert desktop_kind(display=None, environ={"WAYLAND_DISPLAY": "wayland-0"}) == WLROOTS
    assert desktop_kind(display=None, environ={"WAYLAND_DISPLAY": "wayland-0", "XDG_CURRENT_DESKTOP": "Hyprland"}) == WLROOTS
    assert desktop_kind(display=None, environ={"WAYLAND_DISPLAY": "wayland-0", "XDG_CURRENT_DESKTOP": "KDE"}) == KDE


def test_on_sway_a_change_is_captured_at_once_not_at_the_next_interval(tmp_path, server):
    """With a look every 10 minutes, each change still comes within the test's wait: the
    compositor says when the screen changed, sway when a title did (drawn nowhere here)."""
    sway = Sway(border="none")
    try:
        sway.window("editor", "Draft one", "Brimfallow opening line")
        focus_wait(sway, "editor", "Draft one")
        client = Client(sway, tmp_path / "state", url=server.url, token=server.token, args=["--interval", "600"])
        try:
            assert found(server, "Brimfallow"), client.output()
            sway.write("editor", "Cindertwig second line")
            hits = found(server, "Cindertwig", timeout_s=30)
            assert hits and hits[0]["window_name"] == "Draft one", client.output()
            sway.write("editor", title="Draft two")  # the title alone
            wait_for(lambda: ("editor", "Draft two") in titles(server), timeout_s=30, said=client.output)
        finally:
            assert client.stop() == 0
    finally:
        sway.close()


def titles(server) -> list[tuple[str, str]]:
    return server.rows("SELECT app_name, window_name FROM frames_frame ORDER BY timestamp, id")


def test_nothing_is_captured_while_a_screen_locker_runs_on_sway(sway, server, tmp_path):
    sway.window("editor", "Diary", "Larkspindle morning entry")
    focus_wait(sway, "editor", "Diary")
    client = Client(sway, tmp_path / "state", url=server.url, token=server.token, args=["--report-every", "1"])
    try:
        assert found(server, "Larkspindle"), client.output()
        sway.command("exec swaylock --color 336699")
        wait_for(lambda: "the screen is locked (swaylock runs)" in client.output(), timeout_s=30, said=client.output)
        stored = len(titles(server))
        sway.write("editor", "Nightowlet private entry")  # behind the lock
        time.sleep(4)
        assert len(titles(server)) == stored and found(server, "Nightowlet", timeout_s=1) == [], client.output()
        assert any("the screen is locked (swaylock runs); 0 frame(s) sent" in r["line"] for r in client.reports()), client.output()
        wait_for(lambda: ("the screen is locked (swaylock runs)",) in server.rows("SELECT locked FROM frames_capturereport"), timeout_s=30, said=client.output)
        sway.signal("swaylock", signal.SIGUSR1)  # swaylock unlocks on SIGUSR1
        assert found(server, "Nightowlet"), client.output()
    finally:
        assert client.stop() == 0


def test_a_title_of_thousands_of_characters_or_invalid_utf8_is_stored_clipped_not_lost(sway, server, tmp_path):
    sway.window("editor", "Short", "Longtitleword harbour")
    focus_wait(sway, "editor", "Short")
    client = Client(sway, tmp_path / "state", url=server.url, token=server.token)
    try:
        assert found(server, "Longtitleword"), client.output()
        sway.write("editor", "Badbyteword meadow", title=b"Report \xff\xfe draft " + b"x" * 10_000)
        hits = found(server, "Badbyteword")
        assert hits, client.output()
        title = hits[0]["window_name"]
        # The server takes titles of up to 1,024 characters; the bytes that are not UTF-8 read as U+FFFD.
        assert title.startswith("Report \ufffd\ufffd draft xxx") and len(title) == 1024, title[:40]
    finally:
        assert client.stop() == 0
    assert "refused" not in client.output()


def test_a_wlroots_compositor_without_swaymsg_is_recorded_through_its_window_list(server, tmp_path):
    """Hyprland, river, labwc...: no sway IPC, the windows from the compositor's foreign-toplevel
    list. Here a headless sway whose IPC socket the client is not told of: the same protocols as
    any wlroots compositor (Hyprland is not packaged for this Debian)."""
    sway = two_monitors(("atlas", "Left list", "Fernwhistle harbour chart"), ("ledger", "Right list", "Copperloom invoice total"))
    try:
        wlroots = types.SimpleNamespace(env={key: value for key, value in sway.env.items() if key != "SWAYSOCK"})
        client = Client(wlroots, tmp_path / "state", url=server.url, token=server.token, args=["--device", "wlr"])
        try:
            hits = found(server, "Fernwhistle")
            assert hits and frame_row(server, hits[0]["frame_id"]) == ("HEADLESS-1", "atlas", "Left list", False, 1024), client.output()
            hits = found(server, "Copperloom")
            assert hits and frame_row(server, hits[0]["frame_id"]) == ("HEADLESS-2", "ledger", "Right list", True, 1280), client.output()
            sway.write("ledger", "Saltmarrow second line", title="Right renamed")
            hits = found(server, "Saltmarrow")
            assert hits and frame_row(server, hits[0]["frame_id"])[1:4] == ("ledger", "Right renamed", True), client.output()
        finally:
            assert client.stop() == 0
        assert "capturing every monitor (1 HEADLESS-1 1024x768, 2 HEADLESS-2 1280x800) on wlroots" in client.output()
    finally:
        sway.close()
