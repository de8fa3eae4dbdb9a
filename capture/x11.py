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

from capture.desktop import DesktopError, FocusedWindow, Monitor, ScreenError, Shot, monitors_numbered
from capture.lockers import LockCheck, session_displays


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
            for name in ("_NET_ACTIVE_WINDOW", "_NET_WM_NAME", "UTF8_STRING", "_NET_CLIENT_LIST_STACKING", "_NET_WM_STATE", "_NET_WM_STATE_HIDDEN")
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
        self._locks = LockCheck(os.getuid(), session_displays({"DISPLAY": display_name} if display_name else os.environ))
        # RandR 1.5 names the monitors ("DP-1") and says when they come and go; without it, mss's list.
        self._randr = self.display.has_extension("RANDR") and self._randr_version() >= (1, 5)
        self._names: dict[int, str] = {}  # RandR monitor name atom -> its name
        self._window_watched = 0  # the window whose title changes are reported
        # Changes X reported so far; a monitor's screenshot is taken again only when one came after
        # its last (DAMAGE tells that the screen changed, not which monitor).
        self._change_count = 0
        self._shots: dict[Monitor, tuple[int, Shot]] = {}  # monitor -> its last screenshot and the count then

    def close(self) -> None:
        self._locks.close()
        try:
            self._mss.close()
        except ScreenShotError:
            pass  # the display is gone already
        try:
            self.display.close()
        except (error.ConnectionClosedError, OSError):
            pass

    # Monitors and screenshots ----------------------------------------------------------------

    def _randr_version(self) -> tuple[int, int]:
        try:
            answer = self.display.xrandr_query_version()
            return answer.major_version, answer.minor_version
        except error.XError:
            return (0, 0)

    def monitors(self) -> list[Monitor]:
        """The monitors as X says now (RandR 1.5: by name, "DP-1"; else mss's, by number)."""
        try:
            if self._randr:
                found = []
                for info in self.root.xrandr_get_monitors(is_active=True).monitors:
                    if info["name"] not in self._names:
                        self._names[info["name"]] = self.display.get_atom_name(info["name"])
                    found.append((self._names[info["name"]], info["x"], info["y"], info["width_in_pixels"], info["height_in_pixels"]))
                if found:
                    return monitors_numbered(found)
        except (error.ConnectionClosedError, OSError) as exc:
            raise self._gone(exc) from exc
        areas = self._mss.monitors[1:]
        return monitors_numbered((str(i), a["left"], a["top"], a["width"], a["height"]) for i, a in enumerate(areas, 1))

    def monitor(self, number: int) -> Monitor:
        """1 the first monitor...; 0 all of them as one image (a screen of no monitor's name)."""
        if number == 0:
            area = self._mss.monitors[0]
            return Monitor(number=0, name="", x=area["left"], y=area["top"], width=area["width"], height=area["height"])
        monitors = self.monitors()
        if not 1 <= number <= len(monitors):
            names = ", ".join(f"{m.number} {m.name}" for m in monitors)
            raise ValueError(f"there is no monitor {number}: this display has {len(monitors)} ({names})")
        return monitors[number - 1]

    def grab(self, monitor: Monitor) -> Shot:
        """A screenshot; the monitor's last one again when X reported no change since (with DAMAGE only)."""
        self._events_read()
        last = self._shots.get(monitor)
        if self._damage is not None and last and last[0] == self._change_count:
            return last[1]
        if self._damage is not None:
            # The damage so far is in this screenshot: cleared (and what X reported of it read)
            # before it is taken, so that only a change from now on is reported.
            try:
                self.display.damage_subtract(self._damage)
                self.display.sync()
            except (error.ConnectionClosedError, OSError) as exc:
                raise self._gone(exc) from exc
            self._events_read()
        count = self._change_count
        area = {"left": monitor.x, "top": monitor.y, "width": monitor.width, "height": monitor.height}
        try:
            raw = self._mss.grab(area)
        except Exception as exc:  # mss 10 reports a lost X connection as a bare AssertionError
            self._shots.pop(monitor, None)
            self.alive_check()  # the X connection says whether the display is gone
            raise ScreenError(f"the screenshot failed: {exc!r}") from exc
        data = bytes(raw.bgra)
        shot = Shot(width=raw.width, height=raw.height, bgra=data, checksum=zlib.crc32(data))
        self._shots = {m: kept for m, kept in self._shots.items() if m.name != monitor.name}  # a monitor that moved or was resized
        self._shots[monitor] = (count, shot)
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
        self._change_count += changed
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
        return self._locks.locked()

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

    def _middle(self, window) -> tuple[int, int]:
        """Where the window's middle is on the screen."""
        geometry = window.get_geometry()
        spot = self.root.translate_coords(window, geometry.width // 2, geometry.height // 2)
        return spot.x, spot.y

    def _monitor_at(self, x: int, y: int, monitors: list[Monitor]) -> str:
        return next((m.name for m in monitors if m.x <= x < m.x + m.width and m.y <= y < m.y + m.height), "")

    def focused(self) -> FocusedWindow:
        try:
            window = self._named(self._active())
            if window is None:
                return FocusedWindow(app_name="", title="")
            wm_class = window.get_wm_class() or ("", "")
            if window.id != self._window_watched:  # its title changes are reported from now on
                window.change_attributes(event_mask=X.PropertyChangeMask, onerror=error.CatchError())
                self._window_watched = window.id
            monitors = self.monitors()
            monitor = monitors[0].name if len(monitors) == 1 else self._monitor_at(*self._middle(window), monitors)
            return FocusedWindow(app_name=wm_class[-1] or wm_class[0], title=self._title(window), window_id=window.id, monitor=monitor)
        except error.XError:
            return FocusedWindow(app_name="", title="")  # the window closed while it was read
        except (error.ConnectionClosedError, OSError) as exc:
            raise self._gone(exc) from exc

    def window_on(self, monitor: Monitor) -> FocusedWindow:
        """The topmost window shown whose middle is on the monitor (the window manager's stacking
        list, _NET_CLIENT_LIST_STACKING: bottom to top)."""
        try:
            prop = self.root.get_full_property(self._atoms["_NET_CLIENT_LIST_STACKING"], Xatom.WINDOW)
            for window_id in reversed(list(prop.value) if prop is not None else []):
                window = self.display.create_resource_object("window", window_id)
                try:
                    if window.get_attributes().map_state != X.IsViewable:
                        continue
                    state = window.get_full_property(self._atoms["_NET_WM_STATE"], Xatom.ATOM)
                    if state is not None and self._atoms["_NET_WM_STATE_HIDDEN"] in state.value:
                        continue
                    x, y = self._middle(window)
                    if not (monitor.x <= x < monitor.x + monitor.width and monitor.y <= y < monitor.y + monitor.height):
                        continue
                    named = self._named(window) or window
                    wm_class = named.get_wm_class() or ("", "")
                    return FocusedWindow(app_name=wm_class[-1] or wm_class[0], title=self._title(named), window_id=named.id, monitor=monitor.name)
                except error.XError:
                    continue  # it closed meanwhile
        except error.XError:
            pass
        except (error.ConnectionClosedError, OSError) as exc:
            raise self._gone(exc) from exc
        return FocusedWindow(app_name="", title="", monitor=monitor.name)
