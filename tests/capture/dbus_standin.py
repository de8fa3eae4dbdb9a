"""A private D-Bus message bus (Debian's dbus-daemon, with a session bus's rules) and stand-ins on it
for what the capture client asks whether the session is locked: logind's session object
(org.freedesktop.login1: the LockedHint property) and a desktop's screensaver service
(org.freedesktop.ScreenSaver: GetActive). logind cannot run here (no systemd, no system bus);
each stand-in owns its real name and answers the real calls over the bus, nothing else."""

import subprocess
import threading
from pathlib import Path

from jeepney import HeaderFields, MessageType, new_error, new_method_return
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection

SESSION_PATH = "/org/freedesktop/login1/session/auto"


class Bus:
    def __init__(self, folder: Path):
        folder.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            ["dbus-daemon", "--session", "--nofork", "--nopidfile", f"--address=unix:path={folder / 'bus'}", "--print-address=1"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )
        self.address = self.proc.stdout.readline().decode().strip()
        if not self.address:
            raise RuntimeError("dbus-daemon did not start")

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


class StandIn(threading.Thread):
    """Owns `name` on the bus; a call is answered by `answer(path, interface, member, body)`, which
    gives (signature, body) or None (then the caller gets UnknownMethod, as from a real service)."""

    def __init__(self, bus: Bus, name: str, answer):
        super().__init__(daemon=True)
        self.connection = open_dbus_connection(bus=bus.address)
        reply = self.connection.send_and_get_reply(message_bus.RequestName(name), timeout=10)
        assert reply.body == (1,), reply.body  # the primary owner
        self.answer = answer
        self.calls = 0
        self.stopping = threading.Event()
        self.start()

    def run(self) -> None:
        while not self.stopping.is_set():
            try:
                message = self.connection.receive(timeout=0.2)
            except TimeoutError:
                continue
            except OSError:
                return
            if message.header.message_type != MessageType.method_call:
                continue
            fields = message.header.fields
            self.calls += 1
            found = self.answer(fields.get(HeaderFields.path), fields.get(HeaderFields.interface), fields.get(HeaderFields.member), message.body)
            if found is None:
                self.connection.send(new_error(message, "org.freedesktop.DBus.Error.UnknownMethod"))
            else:
                self.connection.send(new_method_return(message, *found))

    def close(self) -> None:
        self.stopping.set()
        self.join(timeout=5)
        self.connection.close()


class Logind(StandIn):
    def __init__(self, bus: Bus):
        self.locked = False
        super().__init__(bus, "org.freedesktop.login1", self._answer)

    def _answer(self, path, interface, member, body):
        if (path, interface, member, body) == (SESSION_PATH, "org.freedesktop.DBus.Properties", "Get", ("org.freedesktop.login1.Session", "LockedHint")):
            return "v", (("b", self.locked),)
        return None


class ScreenSaver(StandIn):
    def __init__(self, bus: Bus):
        self.active = False
        super().__init__(bus, "org.freedesktop.ScreenSaver", self._answer)

    def _answer(self, path, interface, member, body):
        if (path, interface, member) == ("/org/freedesktop/ScreenSaver", "org.freedesktop.ScreenSaver", "GetActive"):
            return "b", (self.active,)
        return None
