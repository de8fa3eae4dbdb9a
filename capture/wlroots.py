"""Wayland desktops of the wlroots family: screenshots through the compositor's screencopy protocol
(capture.wayland), which also says when a monitor's pixels change. `ScreencopyDesktop` is what
they share; sway reads its windows through its own IPC (capture.sway); `WlrootsDesktop` is any
other wlroots compositor (Hyprland, river, labwc, Wayfire...): its windows through the
foreign-toplevel list the compositor offers on the same connection (zwlr_foreign_toplevel_manager_v1:
each window's app id, title, whether it has the focus, and the monitors it is on). Neither says
whether the screen is locked: capture.lockers looks (logind, the screensaver service, a locker
of the session's user)."""

import os
import select
import time
import zlib
from collections.abc import Mapping

from capture.desktop import DesktopError, FocusedWindow, Monitor, ScreenError, Shot, monitors_numbered, wayland_socket
from capture.lockers import LockCheck, session_displays
from capture.wayland import Screencopy, Toplevel, WaylandError, WaylandGone




class ScreencopyDesktop:
    """Monitors, screenshots and the wait for a change, through screencopy; a subclass reads the
    windows, and may give the wait more sources of news (`_news_sources`, `_news_read`)."""

    what = "the Wayland session"

    def __init__(self, screen: Screencopy, uid: int, environ: Mapping[str, str]):
        self.screen = screen
        self.uid = uid  # the session's user
        self._locks = LockCheck(uid, session_displays(environ))
        self._shots: dict[str, Shot] = {}  # output name -> the last screenshot of it
        self._watched: set[str] = set()  # the monitors screenshots were taken of: their changes wake the wait

    def close(self) -> None:
        self._locks.close()
        self.screen.close()

    def _gone(self, exc: Exception) -> DesktopError:
        return DesktopError(f"{self.what} at {self.screen.path} went away ({exc})")

    def monitors(self) -> list[Monitor]:
        try:
            self.screen.dispatch(0)  # outputs plugged in or out since
        except WaylandGone as exc:
            raise self._gone(exc) from exc
        return monitors_numbered((o.name, o.x, o.y, o.width, o.height) for o in self.screen.outputs.values() if o.name and o.width)

    def monitor(self, number: int) -> Monitor:
        monitors = self.monitors()
        if not 1 <= number <= len(monitors):
            names = ", ".join(f"{m.number} {m.name}" for m in monitors)
            raise ValueError(f"there is no monitor {number} on this Wayland desktop (every monitor as one image is X11's alone): "
                             f"this session has {len(monitors)} ({names})")
        return monitors[number - 1]

    def grab(self, monitor: Monitor) -> Shot:
        try:
            output = self.screen.output_named(monitor.name)
            if output is None:
                self.screen.roundtrip()  # outputs plugged in or out since
                output = self.screen.output_named(monitor.name)
            if output is None:
                raise ScreenError(f"the monitor {monitor.name} is gone")
            self._watched.add(output.name)
            if self.screen.unchanged(output) and output.name in self._shots:
                return self._shots[output.name]
            width, height, pixels = self.screen.copy(output)
        except WaylandGone as exc:
            raise self._gone(exc) from exc
        except WaylandError as exc:
            raise ScreenError(str(exc)) from exc
        shot = self._shots[output.name] = Shot(width=width, height=height, bgra=pixels, checksum=zlib.crc32(pixels))
        return shot

    def _news_sources(self) -> list:
        """What else the wait listens to (sway's IPC events)."""
        return []

    def _news_read(self, ready: list) -> bool:
        """Read what those sources sent; True when a window changed (a title, the focus)."""
        return False

    def _windows_changed(self) -> bool:
        """A window change the compositor told of on the screencopy connection (taken once)."""
        return False

    def change_wait(self, timeout_s: float, wake_fd: int) -> bool:
        """True when the pixels of a monitor recorded, or the windows, changed (a title, the focus)."""
        deadline = time.monotonic() + timeout_s
        try:
            for name in self._watched:
                if (output := self.screen.output_named(name)) is not None:
                    self.screen.watch(output)
            changed = False
            while not (self.screen.changes() or self._windows_changed() or changed):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                sources = self._news_sources()
                ready, _, _ = select.select([wake_fd, self.screen, *sources], [], [], left)
                if wake_fd in ready:
                    return False
                if self.screen in ready:
                    self.screen.dispatch(0)
                changed = self._news_read(ready)
        except (WaylandGone, OSError) as exc:
            raise self._gone(exc) from exc
        return True

    def locked(self) -> str | None:
        return self._locks.locked()

    def alive_check(self) -> None:
        try:
            self.screen.roundtrip()
        except WaylandError as exc:
            raise self._gone(exc) from exc


class WlrootsDesktop(ScreencopyDesktop):
    """A wlroots compositor without sway's IPC: the windows through its foreign-toplevel list."""

    what = "the Wayland session"

    def __init__(self, environ: Mapping[str, str] = os.environ):
        path = wayland_socket(environ) or ""
        try:
            screen = Screencopy(path)
        except WaylandError as exc:
            raise DesktopError(str(exc)) from exc
        if not screen.toplevels_known:
            screen.close()
            raise DesktopError("this Wayland compositor tells no program which window has the focus "
                               "(it offers no zwlr_foreign_toplevel_manager_v1): MyRecall cannot say which app a frame shows")
        super().__init__(screen, os.stat(path).st_uid, environ)

    def _windows_changed(self) -> bool:
        changed, self.screen.windows_changed = self.screen.windows_changed, False
        return changed

    def _window(self, window: Toplevel | None, monitor: str) -> FocusedWindow:
        if window is None:
            return FocusedWindow(app_name="", title="", monitor=monitor)
        return FocusedWindow(app_name=window.app_id, title=window.title, monitor=monitor)

    def _refresh(self) -> None:
        try:
            while self.screen.dispatch(0):
                pass
        except WaylandGone as exc:
            raise self._gone(exc) from exc

    def focused(self) -> FocusedWindow:
        self._refresh()
        window = next((w for w in self.screen.toplevels.values() if w.activated), None)
        if window is None:
            return FocusedWindow(app_name="", title="")
        outputs = [self.screen.output_of_object(object_id) for object_id in window.outputs]
        names = [output.name for output in outputs if output is not None]
        return self._window(window, names[0] if len(names) == 1 else "")

    def window_on(self, monitor: Monitor) -> FocusedWindow:
        """The window on that monitor that had the focus last (the list says nothing of stacking)."""
        self._refresh()
        output = self.screen.output_named(monitor.name)
        there = [w for w in self.screen.toplevels.values() if output is not None and output.object_id in w.outputs]
        return self._window(max(there, key=lambda w: w.activated_order, default=None), monitor.name)
