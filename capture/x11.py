"""The X11 desktop: the one module that talks to the X server. python-xlib reads which window
has the focus, its app (WM_CLASS) and title; mss takes screenshots (X11's shared-memory grab).
One connection of each for the client's life; no process per frame.

Changes wake the client: the DAMAGE extension reports the first change on the screen after each
screenshot (one event, however much is drawn until the next), and property events a new focused
window or title (a title alone may change no pixel); in between, the client sleeps. The screen
counts as locked while the X screensaver is on (MIT-SCREEN-SAVER) or a screen locker of this
user runs."""

import os
import select
import time
import zlib

import mss
from mss.exception import ScreenShotError
from Xlib import X, Xatom, display, error
from Xlib.ext import damage, screensaver

from capture.desktop import DesktopError, FocusedWindow, Monitor, ScreenError, Shot
from capture.lockers import locker_running


class X11Desktop:
    what = "the X display"

    def __init__(self, display_name: str | None = None):
        try:
            self.display = display.Display(display_name)
        except (error.DisplayError, error.ConnectionClosedError, OSError) as exc:
            raise DesktopError(f"cannot open the X display {display_name or '$DISPLAY'}: {exc}") from exc
        self.root = self.display.screen().root
        self._atoms = {
            name: self.display.intern_atom(name)
            for name in ("_NET_ACTIVE_WINDOW", "_NET_WM_NAME", "UTF8_STRING")
        }
        # The properties whose change is a new moment: the focused window, its title, its app.
        self._moment_atoms = {self._atoms["_NET_ACTIVE_WINDOW"], self._atoms["_NET_WM_NAME"], Xatom.WM_NAME, Xatom.WM_CLASS}
        kwargs = {"display": display_name.encode()} if display_name else {}
        self._mss = mss.mss(**kwargs)
        self._damage = None
        if self.display.has_extension("DAMAGE"):
            self.display.damage_query_version()  # the extension answers nothing before it is asked this
            self._damage = self.root.damage_create(damage.DamageReportNonEmpty)
        # python-xlib gives each display its own copy of an extension's event class: known by its code.
        self._damage_event = getattr(self.display.extension_event, "DamageNotify", None)
        self.root.change_attributes(event_mask=X.PropertyChangeMask)
        self._screensaver = self.display.has_extension("MIT-SCREEN-SAVER")
        self._window_watched = 0  # the window whose title changes are reported
        self._changed = True  # since the last screenshot, as far as X said
        self._last: tuple[Monitor, Shot] | None = None

    def close(self) -> None:
        try:
            self._mss.close()
        except ScreenShotError:
            pass  # the display is gone already
        try:
            self.display.close()
        except (error.ConnectionClosedError, OSError):
            pass

    # Monitors and screenshots ----------------------------------------------------------------

    def monitor(self, number: int) -> Monitor:
        """mss's monitors: 1 the first...; 0 all of them as one image."""
        monitors = self._mss.monitors
        if not 0 <= number < len(monitors):
            raise ValueError(f"there is no monitor {number}: this display has {len(monitors) - 1}")
        area = monitors[number]
        return Monitor(number=number, name=str(number), x=area["left"], y=area["top"], width=area["width"], height=area["height"])

    def grab(self, monitor: Monitor) -> Shot:
        """A screenshot; the last one again when X reported no change since (with DAMAGE only)."""
        self._events_read()
        if self._damage is not None and not self._changed and self._last and self._last[0] == monitor:
            return self._last[1]
        if self._damage is not None:
            # The damage so far is in this screenshot: cleared (and what X reported of it read)
            # before it is taken, so that only a change from now on is reported.
            try:
                self.display.damage_subtract(self._damage)
                self.display.sync()
            except (error.ConnectionClosedError, OSError) as exc:
                raise self._gone(exc) from exc
            self._events_read()
        self._changed = False
        area = {"left": monitor.x, "top": monitor.y, "width": monitor.width, "height": monitor.height}
        try:
            raw = self._mss.grab(area)
        except Exception as exc:  # mss 10 reports a lost X connection as a bare AssertionError
            self._changed = True
            self.alive_check()  # the X connection says whether the display is gone
            raise ScreenError(f"the screenshot failed: {exc!r}") from exc
        data = bytes(raw.bgra)
        shot = Shot(width=raw.width, height=raw.height, bgra=data, checksum=zlib.crc32(data))
        self._last = (monitor, shot)
        return shot

    def _events_read(self) -> bool:
        """Handle the events X sent; True when one says the screen, the focus or a title changed."""
        changed = False
        try:
            while self.display.pending_events():
                event = self.display.next_event()
                if event.type == self._damage_event:  # the next comes after the next screenshot's subtract
                    changed = True
                elif event.type == X.PropertyNotify and event.atom in self._moment_atoms:
                    changed = True
        except (error.ConnectionClosedError, OSError) as exc:
            raise self._gone(exc) from exc
        self._changed |= changed
        return changed

    def change_wait(self, timeout_s: float, wake_fd: int) -> bool:
        deadline = time.monotonic() + timeout_s
        while not self._events_read():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            ready, _, _ = select.select([wake_fd, self.display], [], [], left)
            if wake_fd in ready:
                return False
        return True

    def locked(self) -> str | None:
        try:
            if self._screensaver and self.root.screensaver_query_info().state == screensaver.StateOn:
                return "the X screensaver is on"
        except (error.ConnectionClosedError, OSError) as exc:
            raise self._gone(exc) from exc
        if locker := locker_running(os.getuid()):
            return f"the screen is locked ({locker} runs)"
        return None

    # The focused window ----------------------------------------------------------------------

    def alive_check(self) -> None:
        """One round trip to the X server."""
        try:
            self.display.get_input_focus()
        except (error.ConnectionClosedError, OSError) as exc:
            raise self._gone(exc) from exc

    def _gone(self, exc: Exception) -> DesktopError:
        return DesktopError(f"the X display {self.display.get_display_name()} went away ({exc})")

    def _active(self):
        """The focused top-level window: the window manager's _NET_ACTIVE_WINDOW, or (no
        EWMH window manager) the X input focus."""
        try:
            prop = self.root.get_full_property(self._atoms["_NET_ACTIVE_WINDOW"], X.AnyPropertyType)
            if prop is not None and prop.value and prop.value[0]:
                return self.display.create_resource_object("window", prop.value[0])
        except error.XError:
            pass
        focus = self.display.get_input_focus().focus
        if isinstance(focus, int) or focus in (X.NONE, X.PointerRoot):
            return None
        return focus

    def _named(self, window):
        """The window, or the nearest ancestor below the root, that carries WM_CLASS."""
        for _ in range(20):
            if window is None or window.id == self.root.id:
                return None
            try:
                if window.get_wm_class():
                    return window
                parent = window.query_tree().parent
            except error.XError:
                return None
            window = parent if parent and parent.id != self.root.id else None
        return None

    def _title(self, window) -> str:
        try:
            prop = window.get_full_property(self._atoms["_NET_WM_NAME"], self._atoms["UTF8_STRING"])
            if prop is not None and prop.value:
                value = prop.value
                return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
            prop = window.get_full_property(Xatom.WM_NAME, X.AnyPropertyType)
            if prop is not None and prop.value:
                value = prop.value
                return value.decode("latin-1") if isinstance(value, bytes) else str(value)
        except error.XError:
            pass
        return ""

    def focused(self) -> FocusedWindow:
        try:
            window = self._named(self._active())
            if window is None:
                return FocusedWindow(app_name="", title="")
            wm_class = window.get_wm_class() or ("", "")
            if window.id != self._window_watched:  # its title changes are reported from now on
                window.change_attributes(event_mask=X.PropertyChangeMask, onerror=error.CatchError())
                self._window_watched = window.id
            return FocusedWindow(app_name=wm_class[-1] or wm_class[0], title=self._title(window), window_id=window.id)
        except error.XError:
            return FocusedWindow(app_name="", title="")  # the window closed while it was read
        except (error.ConnectionClosedError, OSError) as exc:
            raise self._gone(exc) from exc
