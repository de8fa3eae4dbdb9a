"""GNOME's D-Bus services the capture client uses (jeepney, as capture.dbus: pure Python), on the
session bus:

- the ScreenCast portal (xdg-desktop-portal, with GNOME's backend): the monitors the user chose in
  GNOME's Share dialog, cast through PipeWire. The portal's restore token lets the next start
  skip the dialog ("Remember this selection"); the cast lasts as long as the connection that
  started it.
- MyRecall's GNOME Shell extension (capture/gnome-extension): which window has the focus, and a
  signal when another one takes it or its title changes. GNOME lets no other program read this.
- whether GNOME Shell still runs (its bus name).

A portal request answers through a Request object's Response signal: 0 done, 1 the user
cancelled, 2 refused or failed."""

import secrets
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass

from jeepney import DBusAddress, HeaderFields, MatchRule, MessageType, new_method_call
from jeepney.io.blocking import open_dbus_connection

from capture.desktop import DesktopError

PORTAL = DBusAddress("/org/freedesktop/portal/desktop", bus_name="org.freedesktop.portal.Desktop")
SCREENCAST = "org.freedesktop.portal.ScreenCast"
SHELL = "org.gnome.Shell"
FOCUS = DBusAddress("/org/myrecall/Focus", bus_name=SHELL, interface="org.myrecall.Focus")
DISPLAY_CONFIG = DBusAddress("/org/gnome/Mutter/DisplayConfig", bus_name="org.gnome.Mutter.DisplayConfig",
                             interface="org.gnome.Mutter.DisplayConfig")
BUS = DBusAddress("/org/freedesktop/DBus", bus_name="org.freedesktop.DBus", interface="org.freedesktop.DBus")
CALL_TIMEOUT_S = 2.0
DIALOG_WAIT_S = 600.0  # the Share dialog waits for the user this long
DIALOG_LIKELY_S = 3.0  # a restored share answers in well under a second (33 ms measured)
PORTAL_CALL_TIMEOUT_S = 30.0  # the first call starts the portal and its GNOME backend
MONITOR_SOURCE, CURSOR_HIDDEN, PERSIST_UNTIL_REVOKED = 1, 1, 2
# The extension is not there: gnome-shell has no such object (or no such method, an older copy).
EXTENSION_ABSENT = ("org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.DBus.Error.UnknownMethod",
                    "org.freedesktop.DBus.Error.UnknownInterface", "org.freedesktop.DBus.Error.ServiceUnknown")


class BusError(Exception):
    """A call failed: the error's name, or why the bus did not answer."""


@dataclass(frozen=True)
class Stream:
    node: int  # the PipeWire node to read
    source_id: str  # the portal's id for it
    x: int  # its place and size on the desktop (layout pixels)
    y: int
    width: int
    height: int


@dataclass(frozen=True)
class Window:
    app_id: str  # GNOME's app ("org.gnome.TextEditor.desktop"; "window:3" for an app without a .desktop file)
    wm_class: str  # the Wayland app id, or an X11 app's class
    title: str
    x: int
    y: int
    width: int
    height: int


def _connect(enable_fds: bool = False):
    try:
        return open_dbus_connection(bus="SESSION", enable_fds=enable_fds)
    except (OSError, KeyError, TimeoutError) as exc:  # KeyError: no $DBUS_SESSION_BUS_ADDRESS
        raise DesktopError(f"cannot reach the session bus ({exc!r}): GNOME's portal and extension are on it") from exc


def _call(connection, address: DBusAddress, method: str, signature: str | None = None, body: tuple = (), timeout: float = CALL_TIMEOUT_S):
    try:
        reply = connection.send_and_get_reply(new_method_call(address, method, signature, body), timeout=timeout)
    except (OSError, TimeoutError, ValueError) as exc:  # ValueError: jeepney's read from a closed socket
        raise BusError(f"the session bus does not answer ({exc!r})") from exc
    if reply.header.message_type == MessageType.error:
        raise BusError(reply.header.fields.get(HeaderFields.error_name, "error"), *reply.body)
    return reply.body


class GnomeBus:
    """Calls from the capture loop: the focused window, the window on a monitor, whether GNOME Shell runs."""

    def __init__(self):
        self.connection = _connect()

    def close(self) -> None:
        self.connection.close()

    def shell_running(self) -> bool:
        return bool(_call(self.connection, BUS, "NameHasOwner", "s", (SHELL,))[0])

    def focus(self) -> Window | None:
        """The focused window (all "" when none has the focus), or None when the extension is not on."""
        return self._window("GetFocus")

    def window_at(self, x: int, y: int, width: int, height: int) -> Window | None:
        return self._window("WindowAt", "iiii", (x, y, width, height))

    def _window(self, method: str, signature: str | None = None, body: tuple = ()) -> Window | None:
        try:
            return Window(*_call(self.connection, FOCUS, method, signature, body))
        except BusError as exc:
            if exc.args[0] in EXTENSION_ABSENT:
                return None
            raise

    def monitor_names(self) -> dict[tuple[int, int], str]:
        """Mutter's name of each monitor ("DP-1", "Meta-0") by its place on the desktop; {} when Mutter does not say."""
        try:
            _serial, _monitors, logical, _properties = _call(self.connection, DISPLAY_CONFIG, "GetCurrentState")
        except BusError:
            return {}
        return {(x, y): monitors[0][0] for x, y, _scale, _transform, _primary, monitors, _props in logical if monitors}


class _Interrupted(Exception):
    pass


def _interrupt(signum, _frame):
    raise _Interrupted(signal.Signals(signum).name)


class ScreenCast:
    """A screen cast of the monitors the user shares, from the portal; it ends with close() (or
    when GNOME stops it: its top bar's sharing indicator has a Stop button)."""

    def __init__(self, restore_token: str | None, asking: Callable[[], None]):
        """Starts the cast; asking() is called before a Share dialog may be shown (no token to
        restore). DesktopError when the user cancels the dialog or the portal refuses."""
        self.connection = _connect(enable_fds=True)
        self.sender = self.connection.unique_name[1:].replace(".", "_")
        try:
            self._start(restore_token, asking)
        except BusError as exc:
            self.connection.close()
            if exc.args[0] == "org.freedesktop.DBus.Error.ServiceUnknown":
                raise DesktopError("no screen cast portal on the session bus: install xdg-desktop-portal and "
                                   "xdg-desktop-portal-gnome (README \"Capture\")") from exc
            raise DesktopError(f"GNOME's screen cast portal failed: {' '.join(map(str, exc.args))}") from exc
        except BaseException:
            self.connection.close()
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
            Stream(node=node, source_id=str(props.get("id", ("s", node))[1]), x=props["position"][1][0],
                   y=props["position"][1][1], width=props["size"][1][0], height=props["size"][1][1])
            for node, props in started.get("streams", ())
        ]
        if not self.streams:
            raise DesktopError("GNOME shared no monitor: start again and choose one in the Share dialog")

    def _request(self, method: str, signature: str, body: tuple, timeout: float = PORTAL_CALL_TIMEOUT_S) -> dict:
        """Call a portal method and wait for its Request's Response: its results."""
        token = "myrecall_" + secrets.token_hex(4)
        path = f"/org/freedesktop/portal/desktop/request/{self.sender}/{token}"
        rule = MatchRule(type="signal", interface="org.freedesktop.portal.Request", member="Response", path=path)
        _call(self.connection, BUS, "AddMatch", "s", (rule.serialise(),))
        *head, options = body
        with self.connection.filter(rule) as responses:
            _call(self.connection, PORTAL.with_interface(SCREENCAST), method, signature,
                  (*head, {**options, "handle_token": ("s", token)}), timeout=PORTAL_CALL_TIMEOUT_S)
            try:
                response, results = self.connection.recv_until_filtered(responses, timeout=timeout).body
            except TimeoutError:
                raise DesktopError(f"GNOME's Share dialog got no answer in {DIALOG_WAIT_S / 60:.0f} minutes: start again "
                                   "and press Share") from None
        if response == 1:
            raise DesktopError("the screen share was cancelled in GNOME's dialog: nothing to record. Start again, choose the "
                               "monitors, leave \"Remember this selection\" ticked and press Share")
        if response != 0:
            raise DesktopError(f"GNOME's screen cast portal refused to share the screen ({method} answered {response})")
        return {key: value for key, (_signature, value) in results.items()}

    def pipewire_open(self) -> int:
        """A new connection to PipeWire that may read the shared streams: its file descriptor (the caller closes it)."""
        (fd,) = _call(self.connection, PORTAL.with_interface(SCREENCAST), "OpenPipeWireRemote", "oa{sv}", (self.session, {}),
                      timeout=PORTAL_CALL_TIMEOUT_S)
        return fd.to_raw_fd()

    def watch(self, changed: Callable[[], None], gone: Callable[[str], None]) -> None:
        """From now on, in a thread of its own: changed() when the extension says the focused window
        or its title changed; gone(why) once when GNOME Shell leaves the bus, the cast is stopped, or
        the bus goes away."""
        rules = [
            MatchRule(type="signal", sender=SHELL, path=FOCUS.object_path, interface=FOCUS.interface, member="Changed"),
            MatchRule(type="signal", sender=BUS.bus_name, interface=BUS.interface, member="NameOwnerChanged"),
            MatchRule(type="signal", interface="org.freedesktop.portal.Session", member="Closed", path=self.session),
        ]
        rules[1].add_arg_condition(0, SHELL)
        for rule in rules:
            _call(self.connection, BUS, "AddMatch", "s", (rule.serialise(),))
        self._closing = False
        self._thread = threading.Thread(target=self._watch, args=(changed, gone), name="gnome-watch", daemon=True)
        self._thread.start()

    def _watch(self, changed: Callable[[], None], gone: Callable[[str], None]) -> None:
        while True:
            try:
                message = self.connection.receive()
            except Exception as exc:  # the socket closed: by close(), or the bus went away
                if not self._closing:
                    gone(f"the session bus went away ({exc!r})")
                return
            fields = message.header.fields
            member = fields.get(HeaderFields.member)
            if member == "Changed" and fields.get(HeaderFields.interface) == FOCUS.interface:
                changed()
            elif member == "NameOwnerChanged" and message.body[0] == SHELL and not message.body[2]:
                gone("GNOME Shell went away")
            elif member == "Closed" and fields.get(HeaderFields.path) == self.session:
                gone("GNOME stopped the screen share (its top bar's sharing indicator)")

    def close(self) -> None:
        self._closing = True
        try:
            self.connection.close()  # the portal ends the session with its connection
        except OSError:
            pass
        if (thread := getattr(self, "_thread", None)) is not None:
            thread.join(timeout=2)
