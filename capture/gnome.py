"""The GNOME desktop on Wayland, where no program may take screenshots or read the focused window
on its own:

- the screen: the ScreenCast portal, as capture.screencast takes it. The first start shows
  GNOME's Share dialog; with "Remember this selection" ticked, the portal's restore token (kept in
  the state dir) shares the same monitors at the next start with no dialog.
- the focused window, its app and title: MyRecall's GNOME Shell extension
  (capture/gnome-extension, installed by capture.gnome_extension); without it, frames have no app or title, and the start says how to
  install it.
- locked: logind and org.gnome.ScreenSaver (capture.lockers).

When GNOME Shell, the session bus or PipeWire goes away, or the user stops the sharing in GNOME's
top bar, the desktop is gone (DesktopError)."""

import logging
from collections.abc import Callable

from capture.dbus import BusError, Message
from capture.desktop import DesktopError, FocusedWindow, Monitor, ScreenError
from capture.gnome_dbus import FOCUS, FOCUS_CHANGED, SHELL, SHELL_GONE, GnomeBus, Window
from capture.gnome_extension import UUID
from capture.portal import Dialog
from capture.screencast import CastDesktop

logger = logging.getLogger("capture")

TOKEN_FILE = "gnome-screencast-token"  # in the state dir: the portal's restore token
EXTENSION_HOW = (
    f"GNOME Shell's MyRecall extension is not on, so frames have no app or window title: install it as README "
    f"\"Capture\" says (`bash scripts/capture.sh gnome-extension`, log out and in, `gnome-extensions enable {UUID}`), "
    "then start capture again"
)
DIALOG = Dialog(desktop="GNOME", name="Share dialog", remember="leave \"Remember this selection\" ticked", share="Share",
                stop="its top bar's sharing indicator", packages="xdg-desktop-portal and xdg-desktop-portal-gnome")
ASKING = DIALOG.asking


class GnomeDesktop(CastDesktop):
    what = "the GNOME session"
    dialog = DIALOG
    token_file = TOKEN_FILE

    def __init__(self, state_dir):
        self.bus = self._bus(GnomeBus)
        super().__init__(state_dir)  # closes all on failure

    def close(self) -> None:
        super().close()
        self.bus.close()

    def _compositor_check(self) -> None:
        try:
            running = self.bus.shell_running()
        except BusError:
            raise DesktopError("the session bus went away") from None
        if not running:
            raise DesktopError("GNOME Shell went away" if self.cast else "GNOME Shell does not run on this session bus "
                               "($DBUS_SESSION_BUS_ADDRESS)")

    def _monitor_names(self) -> dict[tuple[int, int], str]:
        return self.bus.monitor_names()

    def _watched_rules(self) -> tuple:
        return (FOCUS_CHANGED, SHELL_GONE)

    def _heard(self, message: Message) -> None:
        if message.member == "Changed" and message.interface == FOCUS.interface:
            self._focus_changed()
        elif message.member == "NameOwnerChanged" and message.body[:1] == (SHELL,) and not message.body[2]:
            self._went("GNOME Shell went away")

    def _started(self) -> None:
        if self.bus.focus() is None:
            logger.warning("%s", EXTENSION_HOW)

    # The focused window ----------------------------------------------------------------------

    def _window(self, ask: Callable[[], Window | None], monitor: str = "") -> FocusedWindow:
        try:
            window = ask()
        except BusError as exc:
            self.alive_check()
            raise ScreenError(f"GNOME Shell did not say which window is shown ({' '.join(map(str, exc.args))})") from exc
        if window is None or not (window.wm_class or window.app_id or window.title):
            return FocusedWindow(app_name="", title="", monitor=monitor)
        # The Wayland app id (an X11 app's class), as sway names apps; else GNOME's own id for it.
        app = window.wm_class or window.app_id.removesuffix(".desktop")
        return FocusedWindow(app_name=app, title=window.title, monitor=self.monitor_at(window.x, window.y, window.width,
                                                                                       window.height, monitor))

    def focused(self) -> FocusedWindow:
        return self._window(self.bus.focus)

    def window_on(self, monitor: Monitor) -> FocusedWindow:
        return self._window(lambda: self.bus.window_at(monitor.x, monitor.y, monitor.width, monitor.height), monitor.name)
