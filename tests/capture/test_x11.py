"""The capture client on X11 beyond the timer: a change on the screen (the DAMAGE extension) or
of the focused window's title (a property event; no window manager draws titles on Xvfb) is
captured at once, not at the next interval; nothing is taken while the X screensaver is on, or
logind or the desktop's screensaver service says the session is locked."""

import time

import pytest
from Xlib import X, display

from tests.capture.dbus_standin import Bus, Logind, ScreenSaver
from tests.capture.test_client import APP, Client, found
from tests.live import wait_for
from tests.server import LiveServer


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with LiveServer(tmp_path_factory.mktemp("x11") / "data", env={"MYRECALL_DEDUP_MAX_DISTANCE": "-1"}) as live:
        yield live


def stored(server, device: str) -> list[tuple[str, str]]:
    return server.rows("SELECT app_name, window_name FROM frames_frame WHERE device_name = %s ORDER BY timestamp, id", (device,))


def test_on_x11_a_change_is_captured_at_once_not_at_the_next_interval(desktop, server, tmp_path):
    desktop.show("Gorsewhistle opening line", title="Draft one — Memowin")
    client = Client(desktop, tmp_path / "state", url=server.url, token=server.token, args=["--interval", "600", "--device", "onchange"])
    try:
        assert found(server, "Gorsewhistle"), client.output()
        desktop.show("Gorsewhistle opening line", "Thimbleroot second line", title="Draft one — Memowin")
        hits = found(server, "Thimbleroot", timeout_s=30)
        assert hits and hits[0]["app_name"] == APP, client.output()
        desktop.show("Gorsewhistle opening line", "Thimbleroot second line", title="Draft two — Memowin")  # the title alone
        wait_for(lambda: (APP, "Draft two — Memowin") in stored(server, "onchange"), timeout_s=30, said=client.output)
    finally:
        assert client.stop() == 0


def test_a_screen_that_keeps_changing_is_looked_at_every_two_seconds_not_at_each_change(desktop, server, tmp_path):
    """Someone types: the window changes eight times a second for 8 s. The client looks at once at
    the first changes, then every BUSY_GAP_S (2 s) with what changed meanwhile (it sent a frame at
    nearly every change before: 165 a minute in bench/capture.py's typing)."""
    desktop.show("Larkspindle typing test", title="Typing — Memowin")
    client = Client(desktop, tmp_path / "state", url=server.url, token=server.token, args=["--interval", "600", "--device", "typing"])
    try:
        assert found(server, "Larkspindle"), client.output()
        before = len(stored(server, "typing"))
        for number in range(64):
            desktop.show("Larkspindle typing test", f"keystroke {number:02d} {'abcdefgh'[:number % 8 + 1]}", title="Typing — Memowin")
            time.sleep(0.125)
        desktop.show("Larkspindle typing test", "Emberquill last line", title="Typing — Memowin")
        assert found(server, "Emberquill", timeout_s=30), client.output()  # the change after the burst is still taken
    finally:
        assert client.stop() == 0
    during = len(stored(server, "typing")) - before
    assert 3 <= during <= 9, (during, client.output())  # 8 s at a look every 2 s, the first two at once, the last line


def screensaver(desktop, mode: int) -> None:
    x = display.Display(desktop.display)
    x.force_screen_saver(mode)
    x.sync()
    x.close()


def test_nothing_is_captured_while_the_x_screensaver_is_on(desktop, server, tmp_path):
    desktop.show("Pipistrelle evening notes", title="Notes — Memowin")
    client = Client(desktop, tmp_path / "state", url=server.url, token=server.token, args=["--report-every", "1", "--device", "saver"])
    try:
        assert found(server, "Pipistrelle"), client.output()
        screensaver(desktop, X.ScreenSaverActive)
        wait_for(lambda: "the X screensaver is on" in client.output(), timeout_s=30, said=client.output)
        before = len(stored(server, "saver"))
        desktop.show("Mothwhisper private notes", title="Private — Memowin")
        time.sleep(4)
        assert len(stored(server, "saver")) == before and found(server, "Mothwhisper", timeout_s=1) == [], client.output()
        assert any("the X screensaver is on; 0 frame(s) sent" in r["line"] for r in client.reports()), client.output()
        # The server's device line says why nothing comes.
        wait_for(lambda: server.rows("SELECT locked FROM frames_capturereport WHERE device_name = %s", ("saver",)) == [("the X screensaver is on",)], timeout_s=30, said=client.output)
        screensaver(desktop, X.ScreenSaverReset)
        assert found(server, "Mothwhisper"), client.output()
    finally:
        assert client.stop() == 0


def test_nothing_is_captured_while_logind_or_the_desktops_screensaver_says_the_session_is_locked(desktop, server, tmp_path):
    """GNOME, KDE and others tell logind when they lock (LockedHint), KDE and Xfce also answer on
    their screensaver service: stand-ins for both on private buses (tests.capture.dbus_standin)."""
    system, session = Bus(tmp_path / "system"), Bus(tmp_path / "session")
    logind, saver = Logind(system), ScreenSaver(session)
    desktop.env.update(DBUS_SYSTEM_BUS_ADDRESS=system.address, DBUS_SESSION_BUS_ADDRESS=session.address)
    desktop.show("Wrenfallow morning notes", title="Notes — Memowin")
    client = Client(desktop, tmp_path / "state", url=server.url, token=server.token, args=["--report-every", "1", "--device", "logind"])
    try:
        assert found(server, "Wrenfallow"), client.output()
        for lock, unlock, said, word in (
            (lambda: setattr(logind, "locked", True), lambda: setattr(logind, "locked", False), "the session is locked (logind says so)", "Quillbracken"),
            (lambda: setattr(saver, "active", True), lambda: setattr(saver, "active", False),
             "the screen is locked (org.freedesktop.ScreenSaver is active)", "Thornmallow"),
        ):
            lock()
            wait_for(lambda: said in client.output(), timeout_s=30, said=client.output)
            before = len(stored(server, "logind"))
            desktop.show(f"{word} private notes", title="Private — Memowin")
            time.sleep(3)
            assert len(stored(server, "logind")) == before and found(server, word, timeout_s=1) == [], client.output()
            wait_for(lambda: server.rows("SELECT locked FROM frames_capturereport WHERE device_name = %s", ("logind",)) == [(said,)], timeout_s=30, said=client.output)
            unlock()
            assert found(server, word), client.output()
    finally:
        assert client.stop() == 0
        for closing in (logind, saver, system, session):
            closing.close()
    assert logind.calls and saver.calls
