"""GNOME's D-Bus services the capture client uses (through capture.dbus), on the session bus:

- MyRecall's GNOME Shell extension (capture/gnome-extension): which window has the focus, and a
  signal when another one takes it or its title changes. GNOME lets no other program read this.
- Mutter's names of the monitors.
- whether GNOME Shell still runs (its bus name).

The screen itself comes through the ScreenCast portal (capture.portal)."""

from dataclasses import dataclass

from capture.dbus import Address, Bus, BusError, rule

SHELL = "org.gnome.Shell"
FOCUS = Address("/org/myrecall/Focus", bus_name=SHELL, interface="org.myrecall.Focus")
DISPLAY_CONFIG = Address("/org/gnome/Mutter/DisplayConfig", bus_name="org.gnome.Mutter.DisplayConfig",
                         interface="org.gnome.Mutter.DisplayConfig")
# The extension said the focused window or its title changed; GNOME Shell left the bus.
FOCUS_CHANGED = rule(type="signal", sender=SHELL, path=FOCUS.object_path, interface=FOCUS.interface, member="Changed")
SHELL_GONE = rule(type="signal", sender="org.freedesktop.DBus", interface="org.freedesktop.DBus", member="NameOwnerChanged",
                  arg0=SHELL)


@dataclass(frozen=True)
class Window:
    app_id: str  # GNOME's app ("org.gnome.TextEditor.desktop"; "window:3" for an app without a .desktop file)
    wm_class: str  # the Wayland app id, or an X11 app's class
    title: str
    x: int
    y: int
    width: int
    height: int


class GnomeBus:
    """Calls from the capture loop: the focused window, the window on a monitor, whether GNOME Shell runs."""

    def __init__(self):
        self.bus = Bus()  # BusGone when there is no session bus

    def close(self) -> None:
        self.bus.close()

    def shell_running(self) -> bool:
        return self.bus.has_owner(SHELL)

    def focus(self) -> Window | None:
        """The focused window (all "" when none has the focus), or None when the extension is not on."""
        return self._window("GetFocus")

    def window_at(self, x: int, y: int, width: int, height: int) -> Window | None:
        return self._window("WindowAt", "iiii", (x, y, width, height))

    def _window(self, method: str, signature: str | None = None, body: tuple = ()) -> Window | None:
        try:
            return Window(*self.bus.call(FOCUS, method, signature, body))
        except BusError as exc:
            if exc.absent:  # gnome-shell has no such object (or no such method, an older copy)
                return None
            raise

    def monitor_names(self) -> dict[tuple[int, int], str]:
        """Mutter's name of each monitor ("DP-1", "Meta-0") by its place on the desktop; {} when Mutter does not say."""
        try:
            _serial, _monitors, logical, _properties = self.bus.call(DISPLAY_CONFIG, "GetCurrentState")
        except BusError:
            return {}
        return {(x, y): monitors[0][0] for x, y, _scale, _transform, _primary, monitors, _props in logical if monitors}
