"""KDE Plasma on Wayland, where no program may take screenshots or read the focused window on its own:

- the screen: the ScreenCast portal (xdg-desktop-portal-kde), as capture.screencast takes it. The
  first start shows KDE's screen sharing dialog; with "Allow restoring on future sessions" ticked,
  the portal's restore token (kept in the state dir) shares the same monitors at the next start
  with no dialog.
- the focused window, its app and title, and the windows shown on each monitor: MyRecall's KWin
  script (capture/kwin-script), which the client loads into KWin over the session bus while it
  runs and unloads when it stops (nothing to install). The script calls the client on the same
  connection as the cast whenever the focus, a title or the windows shown change.
- the monitors' names: the Wayland outputs (wl_output 4 / xdg-output), by their place.
- locked: logind and org.freedesktop.ScreenSaver (capture.lockers).

When KWin, the session bus or PipeWire goes away, or the user stops the sharing in Plasma's
system tray, the desktop is gone (DesktopError)."""

import json
import logging
import os
import tempfile
import threading
from pathlib import Path

from capture.dbus import Address, Bus, BusError, Message, rule
from capture.desktop import DesktopError, FocusedWindow, Monitor, wayland_socket
from capture.portal import Dialog, Stream
from capture.screencast import CastDesktop
from capture.wayland import Outputs, WaylandError

logger = logging.getLogger("capture")

KWIN = "org.kde.KWin"
SCRIPTING = Address("/Scripting", bus_name=KWIN, interface="org.kde.kwin.Scripting")
SCRIPT_INTERFACE = "org.kde.kwin.Script"
PLUGIN = "myrecall-focus"  # the script's name in KWin
SCRIPT = Path(__file__).resolve().parent / "kwin-script" / "myrecall-focus.js"
UPDATE_INTERFACE = "org.myrecall.KWin"
FIRST_UPDATE_S = 3.0  # the script's first call comes this soon after it is loaded
STATE_MAX = 1 << 20  # a state longer than this (a megabyte of titles) is not read
TOKEN_FILE = "kde-screencast-token"
DIALOG = Dialog(desktop="KDE", name="screen sharing dialog", remember="leave \"Allow restoring on future sessions\" ticked",
                share="Share", stop="the screen sharing icon in its system tray",
                packages="xdg-desktop-portal and xdg-desktop-portal-kde")
SCRIPT_HOW = ("KWin did not run MyRecall's script, so frames have no app or window title: KWin's scripting "
              "(org.kde.KWin /Scripting on the session bus) must be on (it is in Plasma 5.27 and 6)")
KWIN_GONE = rule(type="signal", sender="org.freedesktop.DBus", interface="org.freedesktop.DBus", member="NameOwnerChanged",
                 arg0=KWIN)


def _window(value) -> dict | None:
    """A window of the script's state, its fields checked (a wrong one is no window)."""
    if not isinstance(value, dict):
        return None
    window = {"app": value.get("app"), "title": value.get("title")}
    window.update({key: value.get(key) for key in ("x", "y", "width", "height")})
    if not all(isinstance(window[key], str) for key in ("app", "title")):
        return None
    if not all(isinstance(window[key], int) and not isinstance(window[key], bool) for key in ("x", "y", "width", "height")):
        return None
    return window


class KdeDesktop(CastDesktop):
    what = "the KDE Plasma session"
    dialog = DIALOG
    token_file = TOKEN_FILE

    def __init__(self, state_dir):
        self._state_lock = threading.Lock()
        self._focus: dict | None = None
        self._windows: list[dict] = []
        self._updated = threading.Event()
        self._script_file: Path | None = None
        self._script_loaded = False
        self.kwin = self._bus(Bus)
        super().__init__(state_dir)  # closes all on failure

    def close(self) -> None:
        self._script_unload()
        super().close()
        self.kwin.close()
        if self._script_file is not None:
            self._script_file.unlink(missing_ok=True)
            self._script_file = None

    # What a cast desktop adds ----------------------------------------------------------------

    def _compositor_check(self) -> None:
        try:
            running = self.kwin.has_owner(KWIN)
        except BusError:
            raise DesktopError("the session bus went away") from None
        if not running:
            raise DesktopError("KWin went away" if self.cast else "KWin does not run on this session bus ($DBUS_SESSION_BUS_ADDRESS)")

    def _places(self, streams: list[Stream]) -> list[tuple[str, int, int, int, int]]:
        """Each stream's monitor from the Wayland outputs (KWin's names, "DP-1", "Virtual-0"): the
        output at the stream's place when the portal says it; else (Plasma 5.27's portal says only a
        stream's size) the first output left, left to right, of its size (in pixels or in layout
        pixels); one that matches none is named by its number."""
        outputs = sorted(self._outputs(), key=lambda o: (o.x, o.y, o.name))
        places = []
        for stream in streams:
            placed = [o for o in outputs if stream.x is not None and (o.x, o.y) == (stream.x, stream.y)]
            sized = [o for o in outputs if (stream.width, stream.height) in ((o.width, o.height), self._layout_size(o))]
            if output := (placed or sized or outputs or [None])[0]:
                outputs.remove(output)
                places.append((output.name, output.x, output.y, *self._layout_size(output)))
            else:
                places.append((f"monitor-{stream.source_id}", 0, 0, stream.width, stream.height))
        return places

    @staticmethod
    def _layout_size(output) -> tuple[int, int]:
        return output.width // max(output.scale, 1), output.height // max(output.scale, 1)

    @staticmethod
    def _outputs() -> list:
        """The Wayland outputs with a name and a size ([] when the Wayland socket does not answer)."""
        path = wayland_socket(os.environ)
        if not path:
            return []
        try:
            outputs = Outputs(path)
        except (OSError, WaylandError):
            return []
        try:
            return [o for o in outputs.outputs.values() if o.name and o.width]
        finally:
            outputs.close()

    def _watched_rules(self) -> tuple:
        return (KWIN_GONE,)

    def _heard(self, message: Message) -> None:
        if message.call and message.interface == UPDATE_INTERFACE and message.member == "Update":
            self._update(message.body)
        elif message.member == "NameOwnerChanged" and message.body[:1] == (KWIN,) and not message.body[2]:
            self._went("KWin went away")

    def _started(self) -> None:
        self._script_load()
        if not self._updated.wait(FIRST_UPDATE_S):
            logger.warning("%s", SCRIPT_HOW)

    # The script --------------------------------------------------------------------------------

    def _script_load(self) -> None:
        """Load MyRecall's script into KWin, calling this client's connection (the cast's), and run it."""
        fd, name = tempfile.mkstemp(prefix="myrecall-focus-", suffix=".js", dir=os.environ.get("XDG_RUNTIME_DIR") or None)
        self._script_file = Path(name)
        with os.fdopen(fd, "w") as file:
            file.write(SCRIPT.read_text().replace("MYRECALL_SERVICE", self.cast.bus.unique_name))
        try:
            self.kwin.call(SCRIPTING, "unloadScript", "s", (PLUGIN,))  # a copy a client that was killed left
            (number,) = self.kwin.call(SCRIPTING, "loadScript", "ss", (str(self._script_file), PLUGIN))
            self._script_loaded = True
            if number < 0:
                raise BusError("loadScript answered -1")
            self._script_run(number)
        except BusError as exc:
            logger.warning("KWin did not load MyRecall's script (%s): frames have no app or window title", exc)

    def _script_run(self, number: int) -> None:
        """Run the loaded script: its object is /Scripting/Script<N> (Plasma 6) or /<N> (Plasma 5)."""
        for path in (f"/Scripting/Script{number}", f"/{number}"):
            try:
                self.kwin.call(Address(path, bus_name=KWIN, interface=SCRIPT_INTERFACE), "run")
                return
            except BusError as exc:
                if not exc.absent:
                    raise
        self.kwin.call(SCRIPTING, "start")  # runs each script loaded

    def _script_unload(self) -> None:
        if self._script_loaded:
            self._script_loaded = False
            try:
                self.kwin.call(SCRIPTING, "unloadScript", "s", (PLUGIN,))
            except BusError:
                pass  # KWin is gone, and the script with it

    def _update(self, body: tuple) -> None:
        """The script's state (JSON): the focused window, the windows shown bottom to top."""
        if len(body) != 1 or not isinstance(body[0], str) or len(body[0]) > STATE_MAX:
            return
        try:
            state = json.loads(body[0])
        except ValueError:
            return
        if not isinstance(state, dict) or not isinstance(state.get("windows", []), list):
            return
        windows = [window for value in state.get("windows", []) if (window := _window(value)) is not None]
        with self._state_lock:
            self._focus = _window(state.get("focus"))
            self._windows = windows
        self._updated.set()
        self._focus_changed()

    # The focused window ----------------------------------------------------------------------

    def _described(self, window: dict | None, monitor: str = "") -> FocusedWindow:
        if window is None:
            return FocusedWindow(app_name="", title="", monitor=monitor)
        on = self.monitor_at(window["x"], window["y"], window["width"], window["height"], monitor)
        return FocusedWindow(app_name=window["app"], title=window["title"], monitor=on)

    def focused(self) -> FocusedWindow:
        self._gone_check()
        with self._state_lock:
            return self._described(self._focus)

    def window_on(self, monitor: Monitor) -> FocusedWindow:
        """The window on top whose middle is on the monitor."""
        self._gone_check()
        with self._state_lock:
            windows = list(self._windows)
        for window in reversed(windows):  # the top one first
            if self.monitor_at(window["x"], window["y"], window["width"], window["height"]) == monitor.name:
                return self._described(window, monitor.name)
        return self._described(None, monitor.name)
