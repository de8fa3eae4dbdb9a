"""The one module that talks D-Bus (jeepney: pure Python, no libdbus), for everything of the capture
client's on a bus: whether the session is locked (capture.lockers), the screen cast portal
(capture.portal), GNOME Shell's extension (capture.gnome_dbus) and KWin (capture.kde).

`Bus` is one connection: calls with a time limit, signals and calls from others as `Message`s, the
answers to calls others make. An error answer or a bus that does not answer is a `BusError`
whose first argument is the error's name ("org.freedesktop.DBus.Error.ServiceUnknown"); a bus that
does not answer (or a closed connection) is a `BusGone`, one kind of BusError."""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from jeepney import DBusAddress, FileDescriptor, HeaderFields, MatchRule, MessageFlag, MessageType, new_method_call, new_method_return
from jeepney.io.blocking import open_dbus_connection

Address = DBusAddress  # a service's object: Address(path, bus_name=..., interface=...)
BUS = Address("/org/freedesktop/DBus", bus_name="org.freedesktop.DBus", interface="org.freedesktop.DBus")
CALL_TIMEOUT_S = 2.0
# The service, object or method is not there: the program that would offer it does not run, or is another version.
ABSENT = ("org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.DBus.Error.UnknownMethod",
          "org.freedesktop.DBus.Error.UnknownInterface", "org.freedesktop.DBus.Error.ServiceUnknown",
          "org.freedesktop.DBus.Error.NameHasNoOwner")


class BusError(Exception):
    """A call was answered with an error: its name and message."""

    @property
    def absent(self) -> bool:
        return bool(self.args) and self.args[0] in ABSENT


class BusGone(BusError):
    """The bus does not answer, or the connection is closed: why."""


@dataclass(frozen=True)
class Message:
    """A signal, or a method call another program makes on this connection."""

    call: bool  # a method call (answer it with Bus.reply), else a signal
    sender: str
    path: str
    interface: str
    member: str
    body: tuple
    serial: int


def rule(**fields) -> MatchRule:
    """Which signals to be sent: type="signal", sender=, path=, interface=, member=, and arg0="name"."""
    arg0 = fields.pop("arg0", None)
    match = MatchRule(**fields)
    if arg0 is not None:
        match.add_arg_condition(0, arg0)
    return match


class Bus:
    def __init__(self, which: str = "SESSION", *, fds: bool = False):
        """A connection to the session bus (or "SYSTEM", or a bus address); fds: file descriptors
        may come in answers. BusError when there is no such bus."""
        try:
            self.connection = open_dbus_connection(bus=which, enable_fds=fds)
        except Exception as exc:  # noqa: BLE001 - OSError, KeyError (no $DBUS_SESSION_BUS_ADDRESS), an auth failure...
            raise BusGone(f"cannot reach the {which.lower()} bus ({exc!r})") from exc
        self.unique_name: str = self.connection.unique_name
        self._replied: dict[int, object] = {}  # jeepney messages by serial, for Bus.reply

    def call(self, address: Address, method: str, signature: str | None = None, body: tuple = (), *,
             timeout: float = CALL_TIMEOUT_S, start: bool = True) -> tuple:
        """The answer's values (a file descriptor as its number: the caller closes it); start=False
        never starts a service by asking it."""
        message = new_method_call(address, method, signature, body)
        if not start:
            message.header.flags |= MessageFlag.no_auto_start
        try:
            reply = self.connection.send_and_get_reply(message, timeout=timeout)
        except (OSError, TimeoutError, ValueError) as exc:  # ValueError: jeepney's read from a closed socket
            raise BusGone(f"the bus does not answer ({exc!r})") from exc
        if reply.header.message_type == MessageType.error:
            raise BusError(reply.header.fields.get(HeaderFields.error_name, "error"), *reply.body)
        return tuple(value.to_raw_fd() if isinstance(value, FileDescriptor) else value for value in reply.body)

    def has_owner(self, name: str) -> bool:
        return bool(self.call(BUS, "NameHasOwner", "s", (name,))[0])

    def listen(self, match: MatchRule) -> None:
        """Have the bus send this connection the signals the rule matches (read with receive())."""
        self.call(BUS, "AddMatch", "s", (match.serialise(),))

    @contextmanager
    def awaiting(self, match: MatchRule) -> Iterator[Callable[[float], tuple]]:
        """A wait(timeout) for the first signal the rule matches from here on: its values
        (TimeoutError when none came)."""
        self.listen(match)
        with self.connection.filter(match) as signals:
            yield lambda timeout: self.connection.recv_until_filtered(signals, timeout=timeout).body

    def receive(self) -> Message:
        """The next signal or call made on this connection (waits); BusGone when the connection
        is closed or the bus went away."""
        while True:
            try:
                message = self.connection.receive()
            except Exception as exc:  # noqa: BLE001 - jeepney raises what the socket does
                raise BusGone(f"the bus went away ({exc!r})") from exc
            kind = message.header.message_type
            if kind not in (MessageType.signal, MessageType.method_call):
                continue  # an answer to nothing waited for
            fields = message.header.fields
            if kind == MessageType.method_call:
                self._replied[message.header.serial] = message
            return Message(call=kind == MessageType.method_call, sender=fields.get(HeaderFields.sender, ""),
                           path=fields.get(HeaderFields.path, ""), interface=fields.get(HeaderFields.interface, ""),
                           member=fields.get(HeaderFields.member, ""), body=tuple(message.body), serial=message.header.serial)

    def reply(self, message: Message) -> None:
        """Answer a call made on this connection (with no values)."""
        call = self._replied.pop(message.serial, None)
        if call is not None and not call.header.flags & MessageFlag.no_reply_expected:
            try:
                self.connection.send(new_method_return(call))
            except OSError:
                pass  # the caller's bus went away: nothing to answer

    def close(self) -> None:
        try:
            self.connection.close()
        except OSError:
            pass
