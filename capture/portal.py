"""The screen cast portal (xdg-desktop-portal's org.freedesktop.portal.ScreenCast, on the session
bus), through which a Wayland desktop that lets no program take screenshots on its own (GNOME,
KDE Plasma) shares the monitors the user chose in its dialog, as PipeWire streams.

The portal's restore token lets the next start skip the dialog (persist_mode 2: until the user
revokes it); the cast lasts as long as the connection that started it. A portal request answers
through a Request object's Response signal: 0 done, 1 the user cancelled, 2 refused or failed."""

import secrets
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass

from capture.dbus import Address, Bus, BusError, BusGone, Message, rule
from capture.desktop import DesktopError

PORTAL = Address("/org/freedesktop/portal/desktop", bus_name="org.freedesktop.portal.Desktop",
                 interface="org.freedesktop.portal.ScreenCast")
DIALOG_WAIT_S = 600.0  # the dialog waits for the user this long
DIALOG_LIKELY_S = 3.0  # a restored share answers in well under a second (33 ms measured on GNOME)
PORTAL_CALL_TIMEOUT_S = 30.0  # the first call starts the portal and its desktop's backend
MONITOR_SOURCE, CURSOR_HIDDEN, PERSIST_UNTIL_REVOKED = 1, 1, 2


@dataclass(frozen=True)
class Stream:
    node: int  # the PipeWire node to read
    source_id: str  # the portal's id for it
    x: int | None  # its place on the desktop (layout pixels); None when the portal does not say (KDE's)
    y: int | None
    width: int  # its size
    height: int


@dataclass(frozen=True)
class Dialog:
    """How the desktop's sharing dialog is named and answered, for the lines a user reads."""

    desktop: str  # "GNOME"
    name: str  # "Share dialog"
    remember: str  # the choice that keeps the selection: "leave \"Remember this selection\" ticked"
    share: str  # the button: "Share"
    stop: str  # where the user stops a share: "its top bar's sharing indicator"
    packages: str  # the portal's packages: "xdg-desktop-portal and xdg-desktop-portal-gnome"

    @property
    def asking(self) -> str:
        return (f"{self.desktop} asks which monitors to share: choose them in its {self.name}, {self.remember} (then it is "
                f"not asked again) and press {self.share}")


class _Interrupted(Exception):
    pass


def _interrupt(signum, _frame):
    raise _Interrupted(signal.Signals(signum).name)


class ScreenCast:
    """A screen cast of the monitors the user shares, from the portal; it ends with close() (or
    when the desktop stops it)."""

    def __init__(self, restore_token: str | None, dialog: Dialog, asking: Callable[[], None]):
        """Starts the cast; asking() is called before the dialog may be shown (no token to
        restore). DesktopError when the user cancels the dialog or the portal refuses."""
        self.dialog = dialog
        try:
            self.bus = Bus(fds=True)
        except BusGone as exc:
            raise DesktopError(f"{exc}: {dialog.desktop}'s screen cast portal is on the session bus") from exc
        self.sender = self.bus.unique_name[1:].replace(".", "_")
        self._thread: threading.Thread | None = None
        self._closing = False
        try:
            self._start(restore_token, asking)
        except BusError as exc:
            self.bus.close()
            if exc.args and exc.args[0] == "org.freedesktop.DBus.Error.ServiceUnknown":
                raise DesktopError(f"no screen cast portal on the session bus: install {dialog.packages} "
                                   "(README \"Capture\")") from exc
            raise DesktopError(f"{dialog.desktop}'s screen cast portal failed: {' '.join(map(str, exc.args))}") from exc
        except BaseException:
            self.bus.close()
            raise

    def _start(self, restore_token: str | None, asking: Callable[[], None]) -> None:
        options = {"session_handle_token": ("s", "myrecall_" + secrets.token_hex(4))}
        self.session = self._request("CreateSession", "a{sv}", (options,))["session_handle"]
        sources = {"types": ("u", MONITOR_SOURCE), "multiple": ("b", True), "cursor_mode": ("u", CURSOR_HIDDEN),
                   "persist_mode": ("u", PERSIST_UNTIL_REVOKED)}
        if restore_token:
            sources["restore_token"] = ("s", restore_token)
        self._request("SelectSources", "oa{sv}", (self.session, sources))
        # The dialog comes when there is no token to restore, or the one given is refused (the
        # monitors changed): said at once, or when the portal takes long to answer.
        said = threading.Timer(0 if not restore_token else DIALOG_LIKELY_S, asking)
        said.start()
        # Ctrl-C or SIGTERM while the dialog waits for the user ends the start (the client's own
        # handlers only take effect once capture runs).
        previous = {signum: signal.signal(signum, _interrupt) for signum in (signal.SIGINT, signal.SIGTERM)}
        try:
            started = self._request("Start", "osa{sv}", (self.session, "", {}), timeout=DIALOG_WAIT_S)
        except _Interrupted as exc:
            raise DesktopError(f"stopped by {exc} before the screen was shared") from None
        finally:
            said.cancel()
            for signum, handler in previous.items():
                signal.signal(signum, handler)
        self.restore_token: str | None = started.get("restore_token")
        self.streams = [
            Stream(node=node, source_id=str(props.get("id", ("s", node))[1]), x=place[0] if place else None,
                   y=place[1] if place else None, width=props["size"][1][0], height=props["size"][1][1])
            for node, props in started.get("streams", ())
            for place in [props.get("position", (None, None))[1]]
        ]
        if not self.streams:
            raise DesktopError(f"{self.dialog.desktop} shared no monitor: start again and choose one in its {self.dialog.name}")

    def _request(self, method: str, signature: str, body: tuple, timeout: float = PORTAL_CALL_TIMEOUT_S) -> dict:
        """Call a portal method and wait for its Request's Response: its results."""
        token = "myrecall_" + secrets.token_hex(4)
        path = f"/org/freedesktop/portal/desktop/request/{self.sender}/{token}"
        *head, options = body
        with self.bus.awaiting(rule(type="signal", interface="org.freedesktop.portal.Request", member="Response", path=path)) as response:
            self.bus.call(PORTAL, method, signature, (*head, {**options, "handle_token": ("s", token)}),
                          timeout=PORTAL_CALL_TIMEOUT_S)
            try:
                answer, results = response(timeout)
            except TimeoutError:
                raise DesktopError(f"{self.dialog.desktop}'s {self.dialog.name} got no answer in {DIALOG_WAIT_S / 60:.0f} "
                                   f"minutes: start again and press {self.dialog.share}") from None
        if answer == 1:
            raise DesktopError(f"the screen share was cancelled in {self.dialog.desktop}'s {self.dialog.name}: nothing to "
                               f"record. Start again, choose the monitors, {self.dialog.remember} and press {self.dialog.share}")
        if answer != 0:
            raise DesktopError(f"{self.dialog.desktop}'s screen cast portal refused to share the screen ({method} answered {answer})")
        return {key: value for key, (_signature, value) in results.items()}

    def pipewire_open(self) -> int:
        """A new connection to PipeWire that may read the shared streams: its file descriptor (the caller closes it)."""
        (fd,) = self.bus.call(PORTAL, "OpenPipeWireRemote", "oa{sv}", (self.session, {}), timeout=PORTAL_CALL_TIMEOUT_S)
        return fd

    def watch(self, gone: Callable[[str], None], also: tuple = (), heard: Callable[[Message], None] | None = None) -> None:
        """From now on, in a thread of its own: gone(why) once when the cast is stopped or the bus
        goes away; heard(message) for each signal of the rules in `also`, and each call another
        program makes on this connection (answered after heard() returns)."""
        self.bus.listen(rule(type="signal", interface="org.freedesktop.portal.Session", member="Closed", path=self.session))
        for match in also:
            self.bus.listen(match)
        self._thread = threading.Thread(target=self._watch, args=(gone, heard), name="portal-watch", daemon=True)
        self._thread.start()

    def _watch(self, gone: Callable[[str], None], heard: Callable[[Message], None] | None) -> None:
        while True:
            try:
                message = self.bus.receive()
            except BusGone as exc:  # by close(), or the bus went away
                if not self._closing:
                    gone(f"the session bus went away ({exc})")
                return
            if not message.call and message.member == "Closed" and message.path == self.session:
                gone(f"{self.dialog.desktop} stopped the screen share ({self.dialog.stop})")
            elif heard is not None:
                heard(message)
            if message.call:
                self.bus.reply(message)

    def close(self) -> None:
        self._closing = True
        self.bus.close()  # the portal ends the session with its connection
        if self._thread is not None:
            self._thread.join(timeout=2)
