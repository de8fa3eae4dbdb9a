"""The one module that talks to the X server (python-xlib): which window has the focus, its
app (WM_CLASS) and title. One connection for the client's life; no process per frame."""

from dataclasses import dataclass

from Xlib import X, Xatom, display, error


@dataclass(frozen=True)
class FocusedWindow:
    app_name: str  # WM_CLASS's class part ("firefox", "XTerm"), "" when unknown
    title: str
    window_id: int = 0


class X11Error(Exception):
    """The X display cannot be opened or answered (the message says which)."""


class FocusReader:
    def __init__(self, display_name: str | None = None):
        try:
            self.display = display.Display(display_name)
        except (error.DisplayError, error.ConnectionClosedError, OSError) as exc:
            raise X11Error(f"cannot open the X display {display_name or '$DISPLAY'}: {exc}") from exc
        self.root = self.display.screen().root
        self._atoms = {
            name: self.display.intern_atom(name)
            for name in ("_NET_ACTIVE_WINDOW", "_NET_WM_NAME", "UTF8_STRING")
        }

    def close(self) -> None:
        try:
            self.display.close()
        except (error.ConnectionClosedError, OSError):
            pass  # the display is gone already

    def alive_check(self) -> None:
        """One round trip to the X server; X11Error when the display went away."""
        try:
            self.display.get_input_focus()
        except (error.ConnectionClosedError, OSError) as exc:
            raise self._gone(exc) from exc

    def _gone(self, exc: Exception) -> X11Error:
        return X11Error(f"the X display {self.display.get_display_name()} went away ({exc})")

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
        """The app and title of the window with the focus ("" for both when none has it)."""
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
