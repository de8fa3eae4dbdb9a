"""The one module that talks D-Bus (jeepney: pure Python, no libdbus): whether the session is locked
as the session manager or the desktop says it.

- logind's LockedHint of this session, on the system bus: GNOME, KDE, Xfce and others set it when
  they lock (on systemd machines, or elogind). The session is this process's own
  (/org/freedesktop/login1/session/auto), or, for a client started outside it (a user service),
  the user's graphical one (the Display of /org/freedesktop/login1/user/self).
- The desktop's screensaver service on the session bus: org.freedesktop.ScreenSaver (KDE, Xfce,
  Cinnamon...) and org.gnome.ScreenSaver (GNOME), GetActive.

Each source that is not there (no bus, no such service) is left out from then on, quietly; one that
fails later (its bus went away) is left out with one line. A call waits at most CALL_TIMEOUT_S."""

import logging

from jeepney import DBusAddress, HeaderFields, MessageFlag, MessageType, new_method_call
from jeepney.io.blocking import open_dbus_connection

logger = logging.getLogger("capture")

CALL_TIMEOUT_S = 1.0
LOGIND = "org.freedesktop.login1"
SCREENSAVERS = (
    ("org.freedesktop.ScreenSaver", "/org/freedesktop/ScreenSaver", "org.freedesktop.ScreenSaver"),
    ("org.gnome.ScreenSaver", "/org/gnome/ScreenSaver", "org.gnome.ScreenSaver"),
)


class _Absent(Exception):
    """The service or object is not there (asked once: it is not asked again)."""


class SessionLock:
    def __init__(self):
        self._system = self._connect("SYSTEM")
        self._session = self._connect("SESSION")
        self._logind_path: str | None = None  # this session's object, once found
        self._screensavers = list(SCREENSAVERS) if self._session else []
        if self._system and not self._logind_find():
            self._drop("_system")

    @staticmethod
    def _connect(bus: str):
        try:
            return open_dbus_connection(bus=bus)
        except Exception:  # no such bus here (no systemd, no session bus address): not a source
            return None

    def _drop(self, which: str) -> None:
        connection = getattr(self, which)
        setattr(self, which, None)
        if connection is not None:
            try:
                connection.close()
            except OSError:
                pass

    def _call(self, connection, address: DBusAddress, method: str, signature: str | None = None, body: tuple = ()):
        message = new_method_call(address, method, signature, body)
        message.header.flags |= MessageFlag.no_auto_start  # never start a service by asking it
        reply = connection.send_and_get_reply(message, timeout=CALL_TIMEOUT_S)
        if reply.header.message_type == MessageType.error:
            raise _Absent(reply.header.fields.get(HeaderFields.error_name, "error"))
        return reply.body

    def _hint(self, path: str) -> bool:
        address = DBusAddress(path, bus_name=LOGIND, interface="org.freedesktop.DBus.Properties")
        (_, value), = self._call(self._system, address, "Get", "ss", (f"{LOGIND}.Session", "LockedHint"))
        return bool(value)

    def _logind_find(self) -> bool:
        """This session's object on logind, or the user's graphical session's; False when logind is not there."""
        try:
            self._hint(f"/{LOGIND.replace('.', '/')}/session/auto")
            self._logind_path = f"/{LOGIND.replace('.', '/')}/session/auto"
            return True
        except _Absent:
            pass
        except Exception:
            return False
        try:
            address = DBusAddress(f"/{LOGIND.replace('.', '/')}/user/self", bus_name=LOGIND, interface="org.freedesktop.DBus.Properties")
            (_, (session_id, path)), = self._call(self._system, address, "Get", "ss", (f"{LOGIND}.User", "Display"))
            if session_id:
                self._hint(path)
                self._logind_path = path
                return True
        except Exception:
            pass
        return False

    def locked(self) -> str | None:
        """Why the session counts as locked ("the session is locked (logind)"), or None."""
        if self._system is not None:
            try:
                if self._hint(self._logind_path):
                    return "the session is locked (logind says so)"
            except Exception as exc:
                logger.warning("logind does not answer (%s): its lock state is no longer asked", exc)
                self._drop("_system")
        for service in list(self._screensavers):
            name, path, interface = service
            try:
                (active,) = self._call(self._session, DBusAddress(path, bus_name=name, interface=interface), "GetActive")
                if active:
                    return f"the screen is locked ({name} is active)"
            except _Absent:
                self._screensavers.remove(service)  # no such service on this desktop
            except Exception as exc:
                logger.warning("the session bus does not answer (%s): the screensaver's state is no longer asked", exc)
                self._screensavers = []
                self._drop("_session")
                break
        return None

    def close(self) -> None:
        self._drop("_system")
        self._drop("_session")
