"""The X11 desktop: the one module that talks to the X server. python-xlib reads which window
has the focus, its app (WM_CLASS) and title; mss takes screenshots (X11's shared-memory grab).
One connection of each for the client's life; no process per frame. X11 tells of no change here
yet: the client looks again every interval."""

import select
import zlib

import mss
from mss.exception import ScreenShotError
from Xlib import X, Xatom, display, error

from capture.desktop import DesktopError, FocusedWindow, Monitor, ScreenError, Shot


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
        kwargs = {"display": display_name.encode()} if display_name else {}
        self._mss = mss.mss(**kwargs)

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
        area = {"left": monitor.x, "top": monitor.y, "width": monitor.width, "height": monitor.height}
        try:
            raw = self._mss.grab(area)
        except Exception as exc:  # mss 10 reports a lost X connection as a bare AssertionError
            self.alive_check()  # the X connection says whether the display is gone
            raise ScreenError(f"the screenshot failed: {exc!r}") from exc
        data = bytes(raw.bgra)
        return Shot(width=raw.width, height=raw.height, bgra=data, checksum=zlib.crc32(data))

    def change_wait(self, timeout_s: float, wake_fd: int) -> bool:
        select.select([wake_fd], [], [], max(0.0, timeout_s))
        return False

    def locked(self) -> str | None:
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
            return FocusedWindow(app_name=wm_class[-1] or wm_class[0], title=self._title(window), window_id=window.id)
        except error.XError:
            return FocusedWindow(app_name="", title="")  # the window closed while it was read
        except (error.ConnectionClosedError, OSError) as exc:
            raise self._gone(exc) from exc
