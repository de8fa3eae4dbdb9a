"""Clicks and keys on a KDE Plasma (KWin) Wayland session through KWin's fake input protocol
(org_kde_kwin_fake_input version 4, from plasma-wayland-protocols' fake-input.xml: requests by
opcode, no events), for the KDE capture tests. A small client on capture.wayland's connection.

KWin offers the protocol only to a client whose executable it can name (it reads the client's
/proc entry: run this as the session's user) and that a desktop file grants it, or to any such
client when KWin runs with KWIN_WAYLAND_NO_PERMISSION_CHECKS=1 (tests.capture.kde does).

/usr/bin/python3 tests/capture/kde_input.py SOCKET click X Y [click X Y ...] | key CODE ..."""

import struct
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture.wayland import Connection, WaylandError, _string, _uint  # noqa: E402

INTERFACE = "org_kde_kwin_fake_input"
AUTHENTICATE, BUTTON, POINTER_MOTION_ABSOLUTE, KEYBOARD_KEY = 0, 2, 9, 10  # request opcodes
BUTTON_LEFT = 0x110  # BTN_LEFT (linux/input-event-codes.h)
PRESSED, RELEASED = 1, 0


def _fixed(value: float) -> bytes:
    """A wl_fixed_t: 24.8 signed fixed point."""
    return struct.pack("<i", round(value * 256))


class FakeInput:
    def __init__(self, socket_path: str):
        self.conn = Connection(socket_path)
        self.conn.roundtrip()
        name = next((name for name, (interface, _) in self.conn.globals.items() if interface == INTERFACE), None)
        if name is None:
            raise WaylandError(f"KWin does not offer {INTERFACE} to this client: start kwin_wayland with "
                               "KWIN_WAYLAND_NO_PERMISSION_CHECKS=1 and run this as the session's user")
        self.device = self.conn.bind(name, INTERFACE, 4, lambda _opcode, _args: None)
        self.conn.request(self.device, AUTHENTICATE, _string("MyRecall tests") + _string("clicks in the share dialog"))
        self.conn.roundtrip()

    def _send(self, opcode: int, args: bytes, pause_s: float = 0.1) -> None:
        self.conn.request(self.device, opcode, args)
        self.conn.roundtrip()
        time.sleep(pause_s)  # a press and a release in the same instant are not a click to every widget

    def click(self, x: float, y: float) -> None:
        """The pointer to (x, y) in the session's layout, then a left click."""
        self._send(POINTER_MOTION_ABSOLUTE, _fixed(x) + _fixed(y))
        for state in (PRESSED, RELEASED):
            self._send(BUTTON, _uint(BUTTON_LEFT) + _uint(state))

    def key(self, code: int) -> None:
        """A key pressed and released: its Linux key code (KEY_ESC 1, KEY_ENTER 28)."""
        for state in (PRESSED, RELEASED):
            self._send(KEYBOARD_KEY, _uint(code) + _uint(state), pause_s=0.05)


def main(argv: list[str]) -> None:
    device, words = FakeInput(argv[0]), argv[1:]
    while words:
        if words[0] == "click":
            device.click(float(words[1]), float(words[2]))
            words = words[3:]
        elif words[0] == "key":
            device.key(int(words[1]))
            words = words[2:]
        else:
            raise SystemExit(f"unknown action {words[0]!r}: click X Y or key CODE")
    device.conn.roundtrip()
    device.conn.close()


if __name__ == "__main__":
    main(sys.argv[1:])
