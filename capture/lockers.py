"""Whether the screen is locked, beyond what the desktop itself says:

- logind's LockedHint of this session, on the system bus: GNOME, KDE, Xfce and others set it when
  they lock (on systemd machines, or elogind). The session is this process's own
  (/org/freedesktop/login1/session/auto), or, for a client started outside it (a user service),
  the user's graphical one (the Display of /org/freedesktop/login1/user/self).
- The desktop's screensaver service on the session bus: org.freedesktop.ScreenSaver (KDE, Xfce,
  Cinnamon...) and org.gnome.ScreenSaver (GNOME), GetActive.
- Screen lockers found by their process: on wlroots desktops and many X11 ones the locker is an
  ordinary program of the session's user (sway and X say nothing of it), so a locker running as
  that user is taken to mean the screen is locked, unless its environment names other displays
  than this session's (another session of the same user: a swaylock on another sway does not
  lock this GNOME). One pass over /proc, a few milliseconds.

Each bus source that is not there (no bus, no such service) is left out from then on, quietly; one
that fails later (its bus went away) is left out with one line. A call waits at most CALL_TIMEOUT_S."""

import logging
import re
from collections.abc import Mapping
from pathlib import Path

from capture.dbus import Address, Bus, BusError, BusGone
from capture.desktop import wayland_socket

logger = logging.getLogger("capture")

CALL_TIMEOUT_S = 1.0
LOGIND = "org.freedesktop.login1"
LOGIND_PATH = "/org/freedesktop/login1"
SCREENSAVERS = (
    Address("/org/freedesktop/ScreenSaver", bus_name="org.freedesktop.ScreenSaver", interface="org.freedesktop.ScreenSaver"),
    Address("/org/gnome/ScreenSaver", bus_name="org.gnome.ScreenSaver", interface="org.gnome.ScreenSaver"),
)

# By their process name (/proc/PID/comm: the first 15 characters of the program's name).
LOCKERS = frozenset({
    "swaylock", "gtklock", "waylock", "hyprlock", "swaylock-effec", "swaylock-plugi",  # Wayland
    "i3lock", "slock", "xsecurelock", "xlock", "physlock", "light-locker", "xscreensaver-au",  # X11
})


def session_displays(environ: Mapping[str, str]) -> frozenset[str]:
    """The displays an environment names: its Wayland socket (when it can be told whole: a name
    with no XDG_RUNTIME_DIR could be any session's) and its X display (without the screen number:
    ":1.0" is ":1")."""
    found = set()
    if (socket := wayland_socket(environ)) and socket.startswith("/"):
        found.add(f"wayland:{socket}")
    if x_display := environ.get("DISPLAY"):
        found.add("x11:" + re.sub(r"\.\d+$", "", x_display))
    return frozenset(found)


def _environ(proc: Path) -> dict[str, str]:
    raw = (proc / "environ").read_bytes().decode(errors="replace")
    return dict(item.split("=", 1) for item in raw.split("\0") if "=" in item)


def locker_running(uid: int, displays: frozenset[str] = frozenset()) -> str | None:
    """The name of a screen locker running as this user, or None; with this session's displays,
    not one whose environment names only others (one that names none, or cannot be read, counts)."""
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if proc.stat().st_uid != uid or (name := (proc / "comm").read_text().strip()) not in LOCKERS:
                continue
        except OSError:
            continue  # a process that ended meanwhile
        if displays:
            try:
                theirs = session_displays(_environ(proc))
            except OSError:
                theirs = frozenset()
            if theirs and not theirs & displays:
                continue  # another session's
        return name
    return None


def _bus(which: str) -> Bus | None:
    try:
        return Bus(which)
    except BusGone:  # no such bus here (no systemd, no session bus address): not a source
        return None


def _property(bus: Bus, path: str, interface: str, name: str):
    address = Address(path, bus_name=LOGIND, interface="org.freedesktop.DBus.Properties")
    return bus.call(address, "Get", "ss", (interface, name), timeout=CALL_TIMEOUT_S, start=False)[0][1]


class SessionLock:
    """Whether logind or the desktop's screensaver service says the session is locked."""

    def __init__(self):
        self._system = _bus("SYSTEM")
        self._session = _bus("SESSION")
        self._logind_path: str | None = None  # this session's object, once found
        self._screensavers = list(SCREENSAVERS) if self._session else []
        if self._system and not self._logind_find():
            self._drop("_system")

    def _drop(self, which: str) -> None:
        bus = getattr(self, which)
        setattr(self, which, None)
        if bus is not None:
            bus.close()

    def _hint(self, path: str) -> bool:
        return bool(_property(self._system, path, f"{LOGIND}.Session", "LockedHint"))

    def _logind_find(self) -> bool:
        """This session's object on logind, or the user's graphical session's; False when logind is not there."""
        try:
            self._hint(f"{LOGIND_PATH}/session/auto")
            self._logind_path = f"{LOGIND_PATH}/session/auto"
            return True
        except BusGone:
            return False
        except BusError:
            pass  # no such session: this process was not started in one
        try:
            session_id, path = _property(self._system, f"{LOGIND_PATH}/user/self", f"{LOGIND}.User", "Display")
            if session_id:
                self._hint(path)
                self._logind_path = path
                return True
        except (BusError, ValueError, TypeError):
            pass
        return False

    def locked(self) -> str | None:
        """Why the session counts as locked ("the session is locked (logind says so)"), or None."""
        if self._system is not None:
            try:
                if self._hint(self._logind_path):
                    return "the session is locked (logind says so)"
            except BusError as exc:  # gone, or the session ended
                logger.warning("logind does not answer (%s): its lock state is no longer asked", exc)
                self._drop("_system")
        for service in list(self._screensavers):
            try:
                (active,) = self._session.call(service, "GetActive", timeout=CALL_TIMEOUT_S, start=False)
                if active:
                    return f"the screen is locked ({service.bus_name} is active)"
            except BusGone as exc:
                logger.warning("the session bus does not answer (%s): the screensaver's state is no longer asked", exc)
                self._screensavers = []
                self._drop("_session")
                break
            except BusError:
                self._screensavers.remove(service)  # no such service on this desktop
        return None

    def close(self) -> None:
        self._drop("_system")
        self._drop("_session")


class LockCheck:
    """Whether this session is locked, by every sign there is besides the desktop's own: logind or
    the desktop's screensaver service, or a screen locker of the user running."""

    def __init__(self, uid: int, displays: frozenset[str] = frozenset()):
        self.uid = uid
        self.displays = displays  # this session's (session_displays): another session's locker does not count
        self.session = SessionLock()

    def locked(self) -> str | None:
        if reason := self.session.locked():
            return reason
        if locker := locker_running(self.uid, self.displays):
            return f"the screen is locked ({locker} runs)"
        return None

    def close(self) -> None:
        self.session.close()
