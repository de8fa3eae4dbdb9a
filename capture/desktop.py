"""What the capture loop needs from a desktop, whatever draws it: its monitors, the focused
window's app and title, a screenshot of a monitor, a wait for the next moment to look, whether
the screen is locked, and word when the desktop went away. Each desktop (X11 in capture.x11, sway
in capture.sway, GNOME on Wayland in capture.gnome, KDE Plasma on Wayland in capture.kde, other
wlroots compositors, Hyprland, river, labwc..., in capture.wlroots) implements `Desktop`; `desktop_kind` tells from the environment which one this session is, and
`desktop_open` connects to it."""

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

X11, SWAY, GNOME, KDE, WLROOTS = "x11", "sway", "gnome", "kde", "wlroots"
KINDS = (X11, SWAY, GNOME, KDE, WLROOTS)


@dataclass(frozen=True)
class Monitor:
    number: int  # 1 the first, 2 the second...; 0 every monitor as one image
    name: str  # the desktop's own name for it ("HDMI-1"), or its number
    x: int
    y: int
    width: int
    height: int


@dataclass(frozen=True)
class FocusedWindow:
    app_name: str  # the app as the desktop names it ("firefox", "XTerm"), "" when unknown
    title: str
    window_id: int = 0
    monitor: str = ""  # the name of the monitor it is on (its middle), "" when not known


def monitors_numbered(monitors) -> list[Monitor]:
    """Monitors as (name, x, y, width, height), numbered left to right, then top to bottom."""
    ordered = sorted(monitors, key=lambda m: (m[1], m[2], m[0]))
    return [Monitor(number=i, name=name, x=x, y=y, width=w, height=h) for i, (name, x, y, w, h) in enumerate(ordered, 1)]


@dataclass(frozen=True)
class Shot:
    width: int
    height: int
    bgra: bytes  # rows top to bottom, 4 bytes a pixel: blue, green, red, unused
    checksum: int


class DesktopError(Exception):
    """The desktop cannot be opened, or stopped answering (the session ended): the message says which."""


class ScreenError(Exception):
    """A screenshot failed while the desktop still answers (the reason, as the desktop gives it)."""


class Desktop(Protocol):
    # What went away when the desktop does, for the client's last line and report: "the X display".
    what: str

    def monitors(self) -> list[Monitor]:
        """The monitors there are now (they come and go), numbered left to right from 1."""

    def monitor(self, number: int) -> Monitor:
        """The monitor by its number (1 the first...); ValueError naming the ones there are."""

    def focused(self) -> FocusedWindow:
        """The app and title of the window with the focus ("" for both when none has it), and its monitor."""

    def window_on(self, monitor: Monitor) -> FocusedWindow:
        """The window on top on that monitor (not the focused one: that is another monitor's), "" when none."""

    def grab(self, monitor: Monitor) -> Shot:
        """A screenshot of the monitor; ScreenError when it fails, DesktopError when the desktop is gone."""

    def change_wait(self, timeout_s: float, wake_fd: int) -> bool:
        """Return True when the screen or the focused window changed (as far as the desktop tells),
        False when wake_fd can be read (the client is stopping) or after timeout_s."""

    def locked(self) -> str | None:
        """Why nothing may be taken now (the screen is locked: the message says how it was told), or None."""

    def alive_check(self) -> None:
        """DesktopError when the desktop went away (asked while nothing else is read, as when paused)."""

    def close(self) -> None:
        """Let go of the desktop (also when it is gone already)."""


def desktop_kind(*, display: str | None, environ: Mapping[str, str] = os.environ) -> str | None:
    """Which desktop this session runs, from the environment, or None when none the client knows is
    reachable. An X display given on the command line wins; a sway or GNOME Wayland session is
    recorded as such, though it also sets $DISPLAY for its X11 apps (Xwayland shows X11 nothing of
    the Wayland windows). GNOME and KDE name themselves in $XDG_CURRENT_DESKTOP ("GNOME",
    "ubuntu:GNOME", "KDE")."""
    if display:
        return X11
    if environ.get("WAYLAND_DISPLAY") and (environ.get("SWAYSOCK") or environ.get("I3SOCK")):
        return SWAY
    desktops = environ.get("XDG_CURRENT_DESKTOP", "").upper().split(":")
    if environ.get("WAYLAND_DISPLAY") and "GNOME" in desktops:
        return GNOME
    if environ.get("WAYLAND_DISPLAY") and "KDE" in desktops:
        return KDE
    # Any other Wayland session: a wlroots compositor (Hyprland, river, labwc, Wayfire...); one
    # that is not says so when opened.
    if environ.get("WAYLAND_DISPLAY"):
        return WLROOTS
    if environ.get("DISPLAY"):
        return X11
    return None


def wayland_socket(environ: Mapping[str, str]) -> str | None:
    """The Wayland display an environment names, as a path (WAYLAND_DISPLAY, in XDG_RUNTIME_DIR unless absolute)."""
    name = environ.get("WAYLAND_DISPLAY")
    if not name:
        return None
    return name if name.startswith("/") else os.path.join(environ.get("XDG_RUNTIME_DIR", ""), name)


def desktop_open(kind: str, *, display: str | None, state_dir: Path | None = None) -> Desktop:
    """The desktop, connected; state_dir is where one keeps what it needs again at the next start
    (GNOME: the screen share the user allowed), the client's default state dir when not given."""
    if kind == X11:
        from capture.x11 import X11Desktop  # here, as each desktop's module imports this one

        return X11Desktop(display)
    if kind == SWAY:
        from capture.sway import SwayDesktop

        return SwayDesktop()
    if kind == GNOME:
        from capture.client import state_dir_default
        from capture.gnome import GnomeDesktop

        return GnomeDesktop(state_dir or state_dir_default())
    if kind == KDE:
        from capture.client import state_dir_default
        from capture.kde import KdeDesktop

        return KdeDesktop(state_dir or state_dir_default())
    if kind == WLROOTS:
        from capture.wlroots import WlrootsDesktop

        return WlrootsDesktop()
    raise ValueError(f"no desktop {kind!r}: the client knows {', '.join(KINDS)}")
