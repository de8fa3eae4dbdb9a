"""A small Wayland client in Python, speaking the wire protocol on the compositor's socket itself
(no libwayland, no protocol XML at run time): enough to list the outputs and copy their pixels
through wlroots' screencopy protocol (sway, Hyprland, river, labwc, wayfire). The requests and
events used, by opcode, are those of wayland.xml (wl_display, wl_registry, wl_callback, wl_shm,
wl_shm_pool, wl_buffer, wl_output up to version 4), xdg-output-unstable-v1 (up to 3) and
wlr-screencopy-unstable-v1 (up to 3).

A copied frame arrives in the compositor's pixel format; XRGB8888 and ARGB8888 (what wlroots'
renderers offer) are, in memory, the same blue-green-red-unused bytes as an X11 screenshot."""

import array
import mmap
import os
import socket
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field

FORMAT_ARGB8888, FORMAT_XRGB8888 = 0, 1  # wl_shm formats
FLAG_Y_INVERT = 1  # zwlr_screencopy_frame_v1.flags: the rows come bottom to top
COPY_TIMEOUT_S = 5.0  # a copy the compositor has not finished by then has failed


class WaylandError(Exception):
    """The compositor refused a request, or a copy failed (the message says which)."""


class WaylandGone(WaylandError):
    """The connection to the compositor is closed (it exited, or the session ended)."""


def _uint(value: int) -> bytes:
    return struct.pack("<I", value & 0xFFFFFFFF)


def _int(value: int) -> bytes:
    return struct.pack("<i", value)


def _string(text: str) -> bytes:
    data = text.encode() + b"\0"
    return _uint(len(data)) + data + b"\0" * (-len(data) % 4)


class _Args:
    """The arguments of one event, read in order."""

    def __init__(self, body: bytes):
        self.body, self.at = body, 0

    def uint(self) -> int:
        (value,) = struct.unpack_from("<I", self.body, self.at)
        self.at += 4
        return value

    def int(self) -> int:
        (value,) = struct.unpack_from("<i", self.body, self.at)
        self.at += 4
        return value

    def string(self) -> str:
        size = self.uint()
        text = self.body[self.at:self.at + max(size - 1, 0)]
        self.at += size + (-size % 4)
        return text.decode("utf-8", "replace")

    def uints(self) -> list[int]:
        """An array argument of 32-bit values."""
        size = self.uint()
        values = list(struct.unpack_from(f"<{size // 4}I", self.body, self.at))
        self.at += size + (-size % 4)
        return values


Handler = Callable[[int, _Args], None]


def socket_connect(path: str) -> socket.socket:
    """A stream socket connected to the UNIX socket at path; OSError (and nothing left open) when it cannot be."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
    try:
        sock.connect(path)
    except OSError:
        sock.close()
        raise
    return sock


class Connection:
    """One connection: object ids, requests out, events in to each object's handler."""

    def __init__(self, path: str):
        self.path = path
        try:
            self.sock = socket_connect(path)
        except OSError as exc:
            raise WaylandGone(f"cannot connect to the Wayland compositor at {path}: {exc.strerror}") from exc
        self._handlers: dict[int, Handler] = {1: self._display_event}
        self._next_id = 2
        self._free_ids: list[int] = []
        self._received = b""
        self.globals: dict[int, tuple[str, int]] = {}  # global name -> interface, version
        self.registry = self.object_new(self._registry_event)
        self.request(1, 1, _uint(self.registry))  # wl_display.get_registry

    def fileno(self) -> int:
        return self.sock.fileno()

    def close(self) -> None:
        self.sock.close()

    def object_new(self, handler: Handler) -> int:
        object_id = self._free_ids.pop() if self._free_ids else self._next_id
        if object_id == self._next_id:
            self._next_id += 1
        self._handlers[object_id] = handler
        return object_id

    def request(self, object_id: int, opcode: int, args: bytes = b"", fd: int | None = None) -> None:
        message = _uint(object_id) + _uint(((8 + len(args)) << 16) | opcode) + args
        try:
            if fd is None:
                self.sock.sendall(message)
            else:
                self.sock.sendmsg([message], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [fd]))])
        except OSError as exc:
            raise WaylandGone(f"the Wayland compositor at {self.path} closed the connection ({exc.strerror})") from exc

    def bind(self, name: int, interface: str, version: int, handler: Handler) -> int:
        object_id = self.object_new(handler)
        self.request(self.registry, 0, _uint(name) + _string(interface) + _uint(version) + _uint(object_id))
        return object_id

    def dispatch(self, timeout_s: float | None) -> bool:
        """Wait up to timeout_s (None: for ever, 0: not at all) for events and hand each whole one to
        its object; False when none came."""
        self.sock.settimeout(max(timeout_s, 0.0) if timeout_s is not None else None)
        try:
            data = self.sock.recv(1 << 16)
        except (TimeoutError, BlockingIOError):
            return False
        except OSError as exc:
            raise WaylandGone(f"the Wayland compositor at {self.path} closed the connection ({exc.strerror})") from exc
        if not data:
            raise WaylandGone(f"the Wayland compositor at {self.path} closed the connection")
        self._received += data
        while len(self._received) >= 8:
            object_id, word = struct.unpack_from("<II", self._received)
            size = word >> 16
            if len(self._received) < size:
                break
            body, self._received = self._received[8:size], self._received[size:]
            if handler := self._handlers.get(object_id):
                handler(word & 0xFFFF, _Args(body))
        return True

    def roundtrip(self) -> None:
        """Every event of the requests sent so far is handled on return."""
        done = []
        callback = self.object_new(lambda _opcode, _args: done.append(True))
        self.request(1, 0, _uint(callback))  # wl_display.sync
        deadline = time.monotonic() + COPY_TIMEOUT_S
        while not done:
            if not self.dispatch(deadline - time.monotonic()) and time.monotonic() >= deadline:
                raise WaylandError(f"the Wayland compositor at {self.path} does not answer")

    def _display_event(self, opcode: int, args: _Args) -> None:
        if opcode == 0:  # error(object_id, code, message)
            object_id, code, message = args.uint(), args.uint(), args.string()
            raise WaylandError(f"the compositor refused a request to object {object_id} (code {code}): {message}")
        if opcode == 1:  # delete_id(id): the id may be used again
            object_id = args.uint()
            self._handlers.pop(object_id, None)
            self._free_ids.append(object_id)

    def _registry_event(self, opcode: int, args: _Args) -> None:
        if opcode == 0:  # global(name, interface, version)
            name, interface, version = args.uint(), args.string(), args.uint()
            self.globals[name] = (interface, version)
            self.global_added(name, interface, version)
        elif opcode == 1:  # global_remove(name)
            name = args.uint()
            self.globals.pop(name, None)
            self.global_removed(name)

    def global_added(self, name: int, interface: str, version: int) -> None:
        """A global the compositor offers (at start, or later: a monitor plugged in)."""

    def global_removed(self, name: int) -> None:
        """A global gone (a monitor unplugged)."""


@dataclass
class Output:
    """A monitor as the compositor describes it: its size in pixels, its place in the layout."""

    global_name: int
    object_id: int
    name: str = ""  # "HDMI-A-1", "HEADLESS-1": from wl_output 4 or xdg-output
    width: int = 0  # the current mode, in pixels
    height: int = 0
    scale: int = 1
    x: int = 0  # its place in the layout, in logical pixels (xdg-output)
    y: int = 0
    xdg_id: int = 0


@dataclass
class Toplevel:
    """A window as the compositor's foreign-toplevel list tells of it (zwlr_foreign_toplevel_manager_v1)."""

    app_id: str = ""
    title: str = ""
    activated: bool = False  # it has the focus
    outputs: set[int] = field(default_factory=set)  # the wl_output objects (this connection's) it is on
    activated_order: int = 0  # higher: it had the focus more recently
    pending: dict = field(default_factory=dict)  # what the events before the next `done` set


@dataclass
class _Copy:
    """One screencopy frame in flight, and what the compositor said of it."""

    output: Output
    frame_id: int = 0
    format: int | None = None
    width: int = 0
    height: int = 0
    stride: int = 0
    flags: int = 0
    buffer_known: bool = False
    copied: bool = False
    presented_ns: int = 0  # when the frame copied was shown (the compositor's monotonic clock)
    failed: bool = False
    damage: list[tuple[int, int, int, int]] = field(default_factory=list)


class _Buffer:
    """Shared memory the compositor copies a frame into, kept for the next frame of the same size."""

    def __init__(self, conn: Connection, shm: int, copy: _Copy):
        self.key = (copy.format, copy.width, copy.height, copy.stride)
        self.size = copy.stride * copy.height
        self.fd = os.memfd_create("myrecall-screencopy", os.MFD_CLOEXEC)
        os.ftruncate(self.fd, self.size)
        self.memory = mmap.mmap(self.fd, self.size, mmap.MAP_SHARED, mmap.PROT_READ)
        pool = conn.object_new(lambda _opcode, _args: None)
        conn.request(shm, 0, _uint(pool) + _int(self.size), fd=self.fd)  # wl_shm.create_pool
        self.buffer_id = conn.object_new(lambda _opcode, _args: None)
        conn.request(pool, 0, _uint(self.buffer_id) + _int(0) + _int(copy.width) + _int(copy.height)
                     + _int(copy.stride) + _uint(copy.format))  # wl_shm_pool.create_buffer
        conn.request(pool, 1)  # wl_shm_pool.destroy: the buffer keeps the memory
        self.conn = conn

    def close(self) -> None:
        self.conn.request(self.buffer_id, 0)  # wl_buffer.destroy
        self.memory.close()
        os.close(self.fd)


class Outputs(Connection):
    """The compositor's outputs (monitors) with their names and places, kept up to date as
    events are read."""

    def __init__(self, path: str):
        self.outputs: dict[int, Output] = {}  # global name -> output
        self.xdg_manager = 0
        super().__init__(path)
        self.roundtrip()  # the globals, bound as they are announced
        self._bound()
        self.roundtrip()  # what each output says of itself once bound

    def _bound(self) -> None:
        """Called after the first roundtrip: the globals are bound."""

    def global_added(self, name: int, interface: str, version: int) -> None:
        if interface == "zxdg_output_manager_v1":
            self.xdg_manager = self.bind(name, interface, min(version, 3), lambda _opcode, _args: None)
            for output in self.outputs.values():
                self._xdg_output_get(output)
        elif interface == "wl_output":
            output = Output(global_name=name, object_id=0)
            output.object_id = self.bind(name, interface, min(version, 4), lambda op, args: self._output_event(output, op, args))
            self.outputs[name] = output
            self._xdg_output_get(output)

    def global_removed(self, name: int) -> None:
        self.outputs.pop(name, None)

    def _xdg_output_get(self, output: Output) -> None:
        if self.xdg_manager and not output.xdg_id:
            output.xdg_id = self.object_new(lambda op, args: self._xdg_output_event(output, op, args))
            self.request(self.xdg_manager, 1, _uint(output.xdg_id) + _uint(output.object_id))  # get_xdg_output

    @staticmethod
    def _output_event(output: Output, opcode: int, args: _Args) -> None:
        if opcode == 1:  # mode(flags, width, height, refresh)
            flags, width, height = args.uint(), args.int(), args.int()
            if flags & 1:  # the current mode
                output.width, output.height = width, height
        elif opcode == 3:  # scale(factor)
            output.scale = args.int()
        elif opcode == 4:  # name(name), version 4
            output.name = args.string()

    @staticmethod
    def _xdg_output_event(output: Output, opcode: int, args: _Args) -> None:
        if opcode == 0:  # logical_position(x, y)
            output.x, output.y = args.int(), args.int()
        elif opcode == 3:  # name(name), version 2
            output.name = args.string()


class Screencopy(Outputs):
    """The compositor's outputs, kept up to date, and copies of their pixels."""

    def __init__(self, path: str):
        self.shm = self.manager = 0
        self.manager_version = 0
        self._buffers: dict[str, _Buffer] = {}  # output name (":watch" after it for a watch's) -> its buffer
        self._watches: dict[str, _Copy] = {}  # output name -> its watch, armed or fired
        self._copied_ns: dict[str, int] = {}  # output name -> when the frame it was last copied from was shown
        self._changed: set[str] = set()  # outputs that changed since they were last copied
        self._news: set[str] = set()  # outputs that changed since `changes` was last asked
        self.toplevels: dict[int, Toplevel] = {}  # the compositor's object id -> the window
        self._toplevel_global: tuple[int, int] | None = None  # its name and version, when offered
        self._activations = 0
        self.windows_changed = False  # a window was focused, retitled, opened or closed since it was last cleared
        super().__init__(path)

    def _bound(self) -> None:
        if not self.manager:
            self.close()
            raise WaylandError("this Wayland compositor offers no screencopy (zwlr_screencopy_manager_v1): it is not wlroots-based")
        if self._toplevel_global is not None:  # after the outputs, so that each window says which it is on
            name, version = self._toplevel_global
            self.bind(name, "zwlr_foreign_toplevel_manager_v1", min(version, 3), self._toplevel_manager_event)

    def global_added(self, name: int, interface: str, version: int) -> None:
        if interface == "wl_shm":
            self.shm = self.bind(name, interface, 1, lambda _opcode, _args: None)
        elif interface == "zwlr_screencopy_manager_v1":
            self.manager_version = min(version, 3)
            self.manager = self.bind(name, interface, self.manager_version, lambda _opcode, _args: None)
        elif interface == "zwlr_foreign_toplevel_manager_v1":
            self._toplevel_global = (name, version)
        else:
            super().global_added(name, interface, version)

    def global_removed(self, name: int) -> None:
        if output := self.outputs.get(name):
            for key in (output.name, f"{output.name}:watch"):
                if buffer := self._buffers.pop(key, None):
                    buffer.close()
        super().global_removed(name)

    def output_named(self, name: str) -> Output | None:
        return next((output for output in self.outputs.values() if output.name == name), None)

    # Windows (foreign toplevels) ----------------------------------------------------------------

    @property
    def toplevels_known(self) -> bool:
        """Whether the compositor tells of its windows (not every wlroots compositor does)."""
        return self._toplevel_global is not None

    def _toplevel_manager_event(self, opcode: int, args: _Args) -> None:
        if opcode == 0:  # toplevel(new_id): an object the compositor made
            handle = args.uint()
            window = self.toplevels[handle] = Toplevel()
            self._handlers[handle] = lambda op, event_args: self._toplevel_event(handle, window, op, event_args)

    def _toplevel_event(self, handle: int, window: Toplevel, opcode: int, args: _Args) -> None:
        if opcode == 0:  # title
            window.pending["title"] = args.string()
        elif opcode == 1:  # app_id
            window.pending["app_id"] = args.string()
        elif opcode == 2:  # output_enter(wl_output)
            window.outputs.add(args.uint())
        elif opcode == 3:  # output_leave(wl_output)
            window.outputs.discard(args.uint())
        elif opcode == 4:  # state(array): 2 is activated
            window.pending["activated"] = 2 in args.uints()
        elif opcode == 5:  # done: what came before it holds from now
            if window.pending.get("activated") and not window.activated:
                self._activations += 1
                window.activated_order = self._activations
            for key, value in window.pending.items():
                setattr(window, key, value)
            window.pending = {}
            self.windows_changed = True
        elif opcode == 6:  # closed
            self.toplevels.pop(handle, None)
            self._handlers.pop(handle, None)
            self.request(handle, 7)  # destroy
            self.windows_changed = True

    def output_of_object(self, object_id: int) -> Output | None:
        return next((output for output in self.outputs.values() if output.object_id == object_id), None)

    # Copies ----------------------------------------------------------------------------------

    def _copy_event(self, copy: _Copy, opcode: int, args: _Args) -> None:
        if opcode == 0:  # buffer(format, width, height, stride): a shared-memory buffer it can fill
            copy.format, copy.width, copy.height, copy.stride = args.uint(), args.uint(), args.uint(), args.uint()
            copy.buffer_known = self.manager_version < 3  # before version 3, the only buffer type offered
        elif opcode == 1:  # flags(flags)
            copy.flags = args.uint()
        elif opcode == 2:  # ready(tv_sec_hi, tv_sec_lo, tv_nsec)
            high, low, nanoseconds = args.uint(), args.uint(), args.uint()
            copy.presented_ns = ((high << 32) | low) * 1_000_000_000 + nanoseconds
            copy.copied = True
        elif opcode == 3:  # failed
            copy.failed = True
        elif opcode == 4:  # damage(x, y, width, height)
            copy.damage.append((args.uint(), args.uint(), args.uint(), args.uint()))
        elif opcode == 6:  # buffer_done: every buffer type is offered
            copy.buffer_known = True

    def copy(self, output: Output) -> tuple[int, int, bytes]:
        """The output's pixels now: width, height and the rows top to bottom, four bytes a pixel
        (blue, green, red, unused). WaylandError when the copy fails (the output went away)."""
        self.watch(output)  # armed with the copy: a change the copy shows fires it at the copy's own frame
        copy = _Copy(output=output)
        copy.frame_id = self.object_new(lambda op, args: self._copy_event(copy, op, args))
        self.request(self.manager, 0, _uint(copy.frame_id) + _int(0) + _uint(output.object_id))  # capture_output, no cursor
        try:
            self._wait(lambda: copy.buffer_known or copy.failed, output)
            if copy.failed or copy.format is None:
                raise WaylandError(f"the compositor would not copy {output.name}")
            if copy.format not in (FORMAT_XRGB8888, FORMAT_ARGB8888):
                raise WaylandError(f"{output.name} is copied in pixel format {copy.format:#x}, which the client cannot read yet")
            buffer = self._buffer_for(copy, output.name)
            self.request(copy.frame_id, 0, _uint(buffer.buffer_id))  # copy(buffer)
            self._wait(lambda: copy.copied or copy.failed, output)
            if copy.failed:
                raise WaylandError(f"the copy of {output.name} failed")
            self._copied_ns[output.name] = copy.presented_ns
            self._changed.discard(output.name)  # the copy shows every change so far
            self._news.discard(output.name)
            watch = self._watches[output.name]
            if watch.copied and not watch.failed and watch.presented_ns <= copy.presented_ns:
                self._watch_arm(output)  # it fired at this copy's frame, before the copy was ready
            return copy.width, copy.height, _rows(copy, buffer.memory)
        finally:
            self.request(copy.frame_id, 1)  # destroy

    def _buffer_for(self, copy: _Copy, key: str) -> _Buffer:
        buffer = self._buffers.get(key)
        if buffer is None or buffer.key != (copy.format, copy.width, copy.height, copy.stride):
            if buffer is not None:
                buffer.close()
            buffer = self._buffers[key] = _Buffer(self, self.shm, copy)
        return buffer

    # Watches: a copy of one pixel with damage, which the compositor finishes only once the output
    # changed (anywhere on it) since this connection's last such copy: a change costs no copy of
    # the screen, and no change costs nothing at all. A watch that fires at a frame no later than
    # the last copy's reports what that copy shows already, and is armed again unsaid.

    def watch(self, output: Output) -> None:
        """Arm the output's watch, unless armed already (a first watch fires at once)."""
        if output.name in self._watches and not self._watches[output.name].copied:
            return
        self._watch_arm(output)

    def _watch_arm(self, output: Output) -> None:
        copy = self._watches[output.name] = _Copy(output=output)
        copy.frame_id = self.object_new(lambda op, args: self._watch_event(copy, op, args))
        self.request(self.manager, 1, _uint(copy.frame_id) + _int(0) + _uint(output.object_id)
                     + _int(0) + _int(0) + _int(1) + _int(1))  # capture_output_region: the top left pixel

    def _watch_event(self, copy: _Copy, opcode: int, args: _Args) -> None:
        self._copy_event(copy, opcode, args)
        if opcode in (0, 6) and copy.buffer_known and not copy.failed:
            buffer = self._buffer_for(copy, f"{copy.output.name}:watch")
            self.request(copy.frame_id, 2, _uint(buffer.buffer_id))  # copy_with_damage(buffer)
            copy.buffer_known = False  # asked once
        elif opcode in (2, 3):  # ready or failed: either way, the output is worth a look
            copy.copied = True
            self.request(copy.frame_id, 1)  # destroy
            name = copy.output.name
            if not copy.failed and copy.presented_ns <= self._copied_ns.get(name, -1):
                self._watch_arm(copy.output)  # what it saw is in the last copy
            else:
                self._changed.add(name)
                self._news.add(name)

    def unchanged(self, output: Output) -> bool:
        """Nothing changed on the output since it was last copied (its watch is armed and has not
        fired since that copy): that copy is still what it shows."""
        while self.dispatch(0):
            pass
        watch = self._watches.get(output.name)
        return watch is not None and not watch.copied and output.name not in self._changed

    def changes(self) -> set[str]:
        """The outputs that changed since this was last asked (their watches are armed again on the
        next `watch`)."""
        news, self._news = self._news, set()
        return news

    def _wait(self, done: Callable[[], bool], output: Output) -> None:
        deadline = time.monotonic() + COPY_TIMEOUT_S
        while not done():
            left = deadline - time.monotonic()
            if left <= 0:
                raise WaylandError(f"the compositor did not copy {output.name} within {COPY_TIMEOUT_S:g} s")
            self.dispatch(left)

    def close(self) -> None:
        for buffer in self._buffers.values():
            buffer.memory.close()
            os.close(buffer.fd)
        self._buffers.clear()
        super().close()


def _rows(copy: _Copy, memory: mmap.mmap) -> bytes:
    """The pixels, four bytes each, rows top to bottom without padding."""
    row = copy.width * 4
    if copy.stride == row and not copy.flags & FLAG_Y_INVERT:
        return memory[:row * copy.height]
    rows = [memory[y * copy.stride:y * copy.stride + row] for y in range(copy.height)]
    if copy.flags & FLAG_Y_INVERT:
        rows.reverse()
    return b"".join(rows)
