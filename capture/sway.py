"""The sway desktop (Wayland, wlroots): screenshots through the compositor's screencopy protocol
(capture.wayland), the focused window's app id and title through sway's IPC socket ($SWAYSOCK,
i3's message format: the magic "i3-ipc", the payload's length and type in native byte order,
then JSON). Both connections last the client's life; when sway exits, each reads its end.

Changes wake the client: the compositor finishes a watch (capture.wayland) once the recorded
monitor's pixels change, and sway sends window events (a new title, another window focused) on
a second IPC connection; in between, the client sleeps. sway says nothing of a locked screen
(swaylock and the like are ordinary clients): capture.lockers looks for one of the session's user."""

import json
import os
import select
import struct
import time
import zlib
from collections.abc import Mapping

from capture.desktop import DesktopError, FocusedWindow, Monitor, ScreenError, Shot, monitors_numbered
from capture.lockers import LockCheck
from capture.wayland import Screencopy, WaylandError, WaylandGone, socket_connect

MAGIC = b"i3-ipc"
HEADER = struct.Struct("=6sII")  # magic, payload length, message type
SUBSCRIBE, GET_TREE, GET_VERSION = 2, 4, 7


class SwayIPC:
    def __init__(self, path: str):
        self.path = path
        try:
            self.sock = socket_connect(path)
        except OSError as exc:
            raise DesktopError(f"cannot reach sway's IPC socket {path}: {exc.strerror}") from exc

    def fileno(self) -> int:
        return self.sock.fileno()

    def call(self, message_type: int, payload: bytes = b""):
        """Send one message; sway's answer, as JSON. OSError when sway is gone."""
        self.sock.sendall(HEADER.pack(MAGIC, len(payload), message_type) + payload)
        return self.receive()

    def receive(self):
        """The next message from sway (an answer, or an event once subscribed), as JSON."""
        magic, size, _type = HEADER.unpack(self._read(HEADER.size))
        if magic != MAGIC:
            raise OSError(f"{self.path} does not speak sway's IPC")
        # A title is whatever bytes its app set, invalid UTF-8 too (sway passes them on).
        return json.loads(self._read(size).decode("utf-8", "replace"))

    def _read(self, size: int) -> bytes:
        data = b""
        while len(data) < size:
            chunk = self.sock.recv(size - len(data))
            if not chunk:
                raise OSError("sway closed its IPC socket")
            data += chunk
        return data

    def close(self) -> None:
        self.sock.close()


def _window(node: dict, output: str) -> FocusedWindow:
    x11 = node.get("window_properties") or {}
    app = node.get("app_id") or x11.get("class") or x11.get("instance") or ""
    return FocusedWindow(app_name=app, title=node.get("name") or "", window_id=node.get("id") or 0, monitor=output)


def _children(node: dict) -> list[dict]:
    return [*node.get("nodes", ()), *node.get("floating_nodes", ())]


def focused_window(tree: dict) -> FocusedWindow:
    """The window with the focus in sway's tree: its app id (a native Wayland app) or X11 class (an
    Xwayland one), title and output; "" for app and title when an empty workspace has the focus."""
    nodes = [(tree, "")]
    while nodes:
        node, output = nodes.pop()
        if node.get("type") == "output":
            output = node.get("name") or ""
        if node.get("focused"):
            if node.get("type") not in ("con", "floating_con"):
                return FocusedWindow(app_name="", title="", monitor=output)
            return _window(node, output)
        nodes.extend((child, output) for child in _children(node))
    return FocusedWindow(app_name="", title="")


def window_shown(tree: dict, output_name: str) -> FocusedWindow:
    """The window last focused on the workspace an output shows (the one on top there)."""
    for output in tree.get("nodes", ()):
        if output.get("type") != "output" or output.get("name") != output_name:
            continue
        node = next((ws for ws in output.get("nodes", ()) if ws.get("name") == output.get("current_workspace")), None)
        while node is not None:
            children = _children(node)
            if not children:
                return _window(node, output_name) if node.get("type") in ("con", "floating_con") else FocusedWindow("", "", monitor=output_name)
            by_id = {child.get("id"): child for child in children}
            # "focus": the children's ids, the most recently focused first.
            node = next((by_id[i] for i in node.get("focus", ()) if i in by_id), children[-1])
    return FocusedWindow(app_name="", title="", monitor=output_name)


def sway_socket(environ: Mapping[str, str]) -> str | None:
    return environ.get("SWAYSOCK") or environ.get("I3SOCK")


def wayland_socket(environ: Mapping[str, str]) -> str | None:
    name = environ.get("WAYLAND_DISPLAY")
    if not name:
        return None
    return name if name.startswith("/") else os.path.join(environ.get("XDG_RUNTIME_DIR", ""), name)


class SwayDesktop:
    what = "the sway session"

    def __init__(self, environ: Mapping[str, str] = os.environ):
        path = sway_socket(environ) or ""
        self.ipc = SwayIPC(path)
        self.events = SwayIPC(path)
        try:
            if not self.events.call(SUBSCRIBE, b'["window", "workspace"]').get("success"):
                raise OSError("sway refused to send window events")
            self.screen = Screencopy(wayland_socket(environ) or "")
        except (OSError, WaylandError) as exc:
            self.ipc.close()
            self.events.close()
            raise DesktopError(str(exc)) from exc
        self.uid = os.stat(path).st_uid  # the session's user: its socket's owner
        self._locks = LockCheck(self.uid)
        self._shots: dict[str, Shot] = {}  # output name -> the last screenshot of it
        self._watched: set[str] = set()  # the monitors screenshots were taken of: their changes wake the wait
        self._window_changed = False

    def close(self) -> None:
        self._locks.close()
        self.ipc.close()
        self.events.close()
        self.screen.close()

    def _gone(self, exc: Exception) -> DesktopError:
        return DesktopError(f"the sway session at {self.screen.path} went away ({exc})")

    # Monitors and screenshots ----------------------------------------------------------------

    def monitors(self) -> list[Monitor]:
        try:
            self.screen.dispatch(0)  # outputs plugged in or out since
        except WaylandGone as exc:
            raise self._gone(exc) from exc
        return monitors_numbered((o.name, o.x, o.y, o.width, o.height) for o in self.screen.outputs.values() if o.name and o.width)

    def monitor(self, number: int) -> Monitor:
        monitors = self.monitors()
        if not 1 <= number <= len(monitors):
            names = ", ".join(f"{m.number} {m.name}" for m in monitors)
            raise ValueError(f"there is no monitor {number} on sway (every monitor as one image is X11's alone): "
                             f"this session has {len(monitors)} ({names})")
        return monitors[number - 1]

    def grab(self, monitor: Monitor) -> Shot:
        try:
            output = self.screen.output_named(monitor.name)
            if output is None:
                self.screen.roundtrip()  # outputs plugged in or out since
                output = self.screen.output_named(monitor.name)
            if output is None:
                raise ScreenError(f"the monitor {monitor.name} is gone")
            self._watched.add(output.name)
            if self.screen.unchanged(output) and output.name in self._shots:
                return self._shots[output.name]
            width, height, pixels = self.screen.copy(output)
        except WaylandGone as exc:
            raise self._gone(exc) from exc
        except WaylandError as exc:
            raise ScreenError(str(exc)) from exc
        shot = self._shots[output.name] = Shot(width=width, height=height, bgra=pixels, checksum=zlib.crc32(pixels))
        return shot

    def change_wait(self, timeout_s: float, wake_fd: int) -> bool:
        """True when the pixels of a monitor recorded since the last wait or the windows changed (a title, the focus)."""
        deadline = time.monotonic() + timeout_s
        try:
            for name in self._watched:
                if (output := self.screen.output_named(name)) is not None:
                    self.screen.watch(output)
            while not (self.screen.changes() or self._window_changed):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                ready, _, _ = select.select([wake_fd, self.screen, self.events], [], [], left)
                if wake_fd in ready:
                    return False
                if self.screen in ready:
                    self.screen.dispatch(0)
                while self.events in ready:  # every event sent so far: one look after them all
                    self.events.receive()
                    self._window_changed = True
                    ready, _, _ = select.select([self.events], [], [], 0)
        except (WaylandGone, OSError) as exc:
            raise self._gone(exc) from exc
        self._window_changed = False
        return True

    def locked(self) -> str | None:
        return self._locks.locked()

    # The focused window ----------------------------------------------------------------------

    def alive_check(self) -> None:
        try:
            self.ipc.call(GET_VERSION)
        except OSError as exc:
            raise self._gone(exc) from exc

    def focused(self) -> FocusedWindow:
        try:
            return focused_window(self.ipc.call(GET_TREE))
        except OSError as exc:
            raise self._gone(exc) from exc

    def window_on(self, monitor: Monitor) -> FocusedWindow:
        try:
            return window_shown(self.ipc.call(GET_TREE), monitor.name)
        except OSError as exc:
            raise self._gone(exc) from exc
