"""Whether the screen is locked, beyond what the desktop itself says: logind and the desktop's
screensaver service (capture.dbus), and screen lockers found by their process: on wlroots desktops and many X11 ones the locker is an
ordinary program of the session's user (sway and X say nothing of it), so a locker running as
that user is taken to mean the screen is locked. One pass over /proc, a few milliseconds."""

from pathlib import Path

from capture.dbus import SessionLock

# By their process name (/proc/PID/comm: the first 15 characters of the program's name).
LOCKERS = frozenset({
    "swaylock", "gtklock", "waylock", "hyprlock", "swaylock-effec", "swaylock-plugi",  # Wayland
    "i3lock", "slock", "xsecurelock", "xlock", "physlock", "light-locker", "xscreensaver-au",  # X11
})


def locker_running(uid: int) -> str | None:
    """The name of a screen locker running as this user, or None."""
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if proc.stat().st_uid == uid and (name := (proc / "comm").read_text().strip()) in LOCKERS:
                return name
        except OSError:
            continue  # a process that ended meanwhile
    return None


class LockCheck:
    """Whether this session is locked, by every sign there is besides the desktop's own: logind or
    the desktop's screensaver service (capture.dbus), or a screen locker of the user running."""

    def __init__(self, uid: int):
        self.uid = uid
        self.session = SessionLock()

    def locked(self) -> str | None:
        if reason := self.session.locked():
            return reason
        if locker := locker_running(self.uid):
            return f"the screen is locked ({locker} runs)"
        return None

    def close(self) -> None:
        self.session.close()
