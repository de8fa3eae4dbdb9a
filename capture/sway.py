"""The sway desktop (Wayland, wlroots): screenshots through the compositor's screencopy protocol
(capture.wayland, through capture.wlroots), the focused window's app id and title through sway's IPC socket ($SWAYSOCK,
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
from collections.abc import Mapping

from capture.desktop import DesktopError, FocusedWindow, Monitor, wayland_socket
from capture.wayland import Screencopy, WaylandError, socket_connect
from capture.wlroots import ScreencopyDesktop

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


class SwayDesktop(ScreencopyDesktop):
    what = "the sway session"

    def __init__(self, environ: Mapping[str, str] = os.environ):
        path = sway_socket(environ) or ""
        self.ipc = SwayIPC(path)
        self.events = SwayIPC(path)
        try:
            if not self.events.call(SUBSCRIBE, b'["window", "workspace"]').get("success"):
                raise OSError("sway refused to send window events")
            screen = Screencopy(wayland_socket(environ) or "")
        except (OSError, WaylandError) as exc:
            self.ipc.close()
            self.events.close()
            raise DesktopError(str(exc)) from exc
        super().__init__(screen, os.stat(path).st_uid, environ)  # the session's user: its socket's owner

    def close(self) -> None:
        self.ipc.close()
        self.events.close()
        super().close()

    # Window events: sway sends them on a second IPC connection ---------------------------------

    def _news_sources(self) -> list:
        return [self.events]

    def _news_read(self, ready: list) -> bool:
        changed = False
        while self.events in ready:  # every event sent so far: one look after them all
            self.events.receive()
            changed = True
            ready, _, _ = select.select([self.events], [], [], 0)
        return changed

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
