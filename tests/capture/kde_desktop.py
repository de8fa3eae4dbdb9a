"""Drives capture.kde's desktop in a KDE session, run as the session's user (tests.capture.kde's
Kde.python): opens KdeDesktop with the state dir argv[1] (the dialog, when there is no token, is
answered by the test), prints "ready" and the monitors, then answers one command a line on stdin,
each with one JSON line on stdout:

  focused           -> [app, title, monitor] of the focused window
  on N              -> the same for the window on top on monitor N
  wait SECONDS      -> true when the desktop said the focus or a title changed within SECONDS
  alive             -> null, or the DesktopError's message when the desktop is gone
  close             -> null, after letting go of the desktop (the script unloaded)

An error opening the desktop prints {"error": message} and ends."""

import json
import logging
import os
import sys
from pathlib import Path

from capture.desktop import DesktopError
from capture.kde import KdeDesktop


def say(value) -> None:
    print(json.dumps(value), flush=True)


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="capture: %(message)s")  # its lines on stderr, as the client's
    try:
        desktop = KdeDesktop(Path(sys.argv[1]))
    except DesktopError as exc:
        say({"error": str(exc)})
        return
    say([[m.name, m.x, m.y, m.width, m.height] for m in desktop.monitors()])
    wake, _never = os.pipe()
    for line in sys.stdin:
        command, *args = line.split()
        if command == "focused":
            window = desktop.focused()
            say([window.app_name, window.title, window.monitor])
        elif command == "on":
            window = desktop.window_on(desktop.monitor(int(args[0])))
            say([window.app_name, window.title, window.monitor])
        elif command == "wait":
            say(desktop.change_wait(float(args[0]), wake))
        elif command == "alive":
            try:
                desktop.alive_check()
                say(None)
            except DesktopError as exc:
                say(str(exc))
        elif command == "close":
            desktop.close()
            say(None)
            return


if __name__ == "__main__":
    main()
