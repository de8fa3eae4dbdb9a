"""The screen of a Wayland desktop that lets no program take screenshots on its own (GNOME, KDE
Plasma), through the ScreenCast portal (capture.portal): the first start shows the desktop's
dialog; with the selection remembered, the portal's restore token (kept in the state dir) shares
the same monitors at the next start with no dialog.

The frames come from PipeWire through one `gst-launch-1.0` process (pipewiresrc, from Debian's
GStreamer packages: nothing in the venv), as raw BGRX frames in a multipart stream on a pipe per
monitor. The compositor sends a frame only when the monitor's picture changes: each one wakes the
client, and in between it sleeps.

`CastDesktop` is what such desktops share; each adds how it tells the focused window (GNOME: an
extension, KDE: a KWin script) and whether its compositor still runs."""

import logging
import math
import os
import select
import subprocess
import threading
import time
import zlib
from collections.abc import Callable
from pathlib import Path

from capture.dbus import BusError, Message
from capture.desktop import DesktopError, FocusedWindow, Monitor, ScreenError, Shot, monitors_numbered
from capture.lockers import LockCheck, session_displays
from capture.portal import Dialog, ScreenCast, Stream
from capture.private import dir_private, file_write

logger = logging.getLogger("capture")

FIRST_FRAME_S = 10.0  # a monitor's first picture comes this soon after the cast starts
# After the desktop said the focus or a title changed, a screenshot waits this long at most for a
# picture drawn since (the new window's; a title drawn nowhere brings none).
WINDOW_FRAME_WAIT_S = 0.5
# At most this many frames a second from each monitor: while someone types, the newest is the one
# kept, and the compositor sends the last change after a pause anyway.
FRAMES_PER_S_MAX = 2


def frame_size(stream: Stream, length: int) -> tuple[int, int] | None:
    """A frame's width and height in pixels from its length in bytes: its monitor's size on the
    desktop, times the monitor's scale (2 on a HiDPI one: twice as many pixels each way)."""
    pixels = length // 4
    width = round(stream.width * math.sqrt(pixels / (stream.width * stream.height))) if stream.width and stream.height else 0
    return (width, pixels // width) if width and pixels % width == 0 and length % 4 == 0 else None


class FrameFeed:
    """One gst-launch-1.0 process that reads each shared stream from PipeWire: the newest frame of
    each, as it comes (raw BGRX, in a multipart stream whose parts say their length)."""

    def __init__(self, streams: list[Stream], fds: list[int], arrived: Callable[[], None]):
        self.arrived = arrived
        self.lock = threading.Condition()
        self.frames: list[tuple[int, int, int, bytes] | None] = [None] * len(streams)  # count, width, height, BGRX
        self.arrivals = [0.0] * len(streams)  # when each stream's newest frame came (monotonic)
        self.ended: str | None = None
        command, reads, writes = ["gst-launch-1.0", "-q"], [], []
        for stream, fd in zip(streams, fds):
            read, write = os.pipe()
            reads.append(read)
            writes.append(write)
            command += ["pipewiresrc", f"fd={fd}", f"path={stream.node}", "do-timestamp=true", "!",
                        f"video/x-raw,max-framerate={FRAMES_PER_S_MAX}/1", "!", "videoconvert", "!", "video/x-raw,format=BGRx",
                        "!", "multipartmux", "!", "fdsink", f"fd={write}", "sync=false", "async=false"]
        try:
            self.proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                         pass_fds=[*fds, *writes], text=True, errors="replace")
        except OSError as exc:
            raise DesktopError(f"cannot run gst-launch-1.0 ({exc.strerror}): install gstreamer1.0-tools and "
                               "gstreamer1.0-pipewire (README \"Capture\")") from exc
        finally:
            for fd in (*fds, *writes):
                os.close(fd)
        self.threads = [threading.Thread(target=self._said_read, name="gst-said", daemon=True)]
        self.threads += [threading.Thread(target=self._frames_read, args=(number, stream, read), name=f"gst-frames{number}", daemon=True)
                         for number, (stream, read) in enumerate(zip(streams, reads))]
        for thread in self.threads:
            thread.start()

    def _said_read(self) -> None:
        said = [line.strip() for line in self.proc.stdout if line.strip()]
        self.proc.wait()
        errors = [line for line in said if line.startswith("ERROR")]
        with self.lock:
            self.ended = f"gst-launch-1.0 ended with code {self.proc.returncode}: {' '.join((errors or said)[-2:])}"
            self.lock.notify_all()
        self.arrived()

    def _frames_read(self, number: int, stream: Stream, fd: int) -> None:
        count = 0
        with open(fd, "rb") as parts:
            while True:
                length = None
                while (line := parts.readline()) not in (b"\r\n", b""):  # a part's headers, to its blank line
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                if not line:
                    return  # gst-launch ended: _said_read says why
                if length is None:
                    continue  # the "\r\n" that ends the part before
                data = parts.read(length)
                if len(data) < length:
                    return
                if (size := frame_size(stream, length)) is None:
                    continue  # not a whole picture (never seen): the next one is
                count += 1
                with self.lock:
                    self.frames[number] = (count, *size, data)
                    self.arrivals[number] = time.monotonic()
                    self.lock.notify_all()
                self.arrived()

    def count(self, number: int) -> int:
        frame = self.frames[number]
        return frame[0] if frame else 0

    def frame(self, number: int, wait_s: float, after: float = 0.0) -> tuple[int, int, int, bytes] | None:
        """The newest frame of the stream, waited for (at most wait_s) when none came since `after`
        (monotonic); None when none ever came."""
        with self.lock:
            self.lock.wait_for(lambda: self.arrivals[number] > after or self.ended, timeout=wait_s)
            return self.frames[number]

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for thread in self.threads:
            thread.join(timeout=2)



class CastDesktop:
    """A desktop recorded through the portal's screen cast. A subclass sets `what`, `dialog` and
    `token_file`, and says how its focused window is told (focused, window_on, and the signals or
    calls of `_watched_rules` handed to `_heard`) and whether its compositor runs (`_compositor_check`)."""

    what = "the session"
    dialog: Dialog
    token_file = "screencast-token"  # in the state dir: the portal's restore token

    def __init__(self, state_dir: Path):
        self.cast = self.feed = self._locks = None
        self._wake_read, self._wake_write = self._wake_fds = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        self._gone: str | None = None
        self._window_changed = False
        self._window_changed_at = 0.0
        try:
            self._compositor_check()
            self._start(Path(state_dir) / self.token_file)
            self._locks = LockCheck(os.getuid(), session_displays(os.environ))
        except BusError as exc:
            self.close()
            raise self._not_answering(exc) from exc
        except BaseException:
            self.close()
            raise
        self._shots: dict[int, tuple[int, Shot]] = {}  # stream number -> its frame count and screenshot then
        self._watched: dict[int, int] = {}  # the streams screenshots were taken (or tried) of -> their frame count then
        self._waited: dict[int, float] = {}  # stream number -> the window change a screenshot of it last waited after

    def _not_answering(self, exc: BusError) -> DesktopError:
        return DesktopError(f"{self.dialog.desktop} does not answer on the session bus ({' '.join(map(str, exc.args))})")

    def _bus(self, make: Callable):
        """make(): the desktop's own connection (capture.dbus); DesktopError when there is no session bus."""
        try:
            return make()
        except BusError as exc:
            raise self._not_answering(exc) from exc

    # What a desktop adds -------------------------------------------------------------------

    def _compositor_check(self) -> None:
        """DesktopError when the compositor does not run (or its bus went away)."""
        raise NotImplementedError

    def _monitor_names(self) -> dict[tuple[int, int], str]:
        """The compositor's name of each monitor ("DP-1") by its place on the desktop; {} when not known."""
        return {}

    def _places(self, streams: list[Stream]) -> list[tuple[str, int, int, int, int]]:
        """Each stream's monitor: its name, place and size, in the streams' order (named by their
        place on the desktop, as the portal gives it)."""
        names = self._monitor_names()
        return [(names.get((s.x, s.y)) or f"monitor-{s.source_id}", s.x or 0, s.y or 0, s.width, s.height) for s in streams]

    def _watched_rules(self) -> tuple:
        """The signals that say the focused window or its title changed (capture.dbus.rule)."""
        return ()

    def _heard(self, message: Message) -> None:
        """A signal of _watched_rules, or a call made on the cast's connection."""

    def _started(self) -> None:
        """Called once the cast runs."""

    # The cast ------------------------------------------------------------------------------

    def _start(self, token_file: Path) -> None:
        token = token_file.read_text().strip() if token_file.exists() else None
        self.cast = ScreenCast(token or None, self.dialog, asking=lambda: logger.info("%s", self.dialog.asking))
        if self.cast.restore_token and self.cast.restore_token != token:
            dir_private(token_file.parent, (self.token_file,))
            file_write(token_file, self.cast.restore_token.encode())  # a token may serve once: the new one is kept
        streams = self.cast.streams
        places = self._places(streams)
        self._monitors = monitors_numbered(places)
        self._stream_of = {place[0]: number for number, place in enumerate(places)}
        self.feed = FrameFeed(streams, [self.cast.pipewire_open() for _ in streams], self._wake)
        self.cast.watch(gone=self._went, also=self._watched_rules(), heard=self._heard)
        self._started()

    def close(self) -> None:
        """Let go of all (once; again does nothing)."""
        for name in ("feed", "cast", "_locks"):
            if (part := getattr(self, name)) is not None:
                setattr(self, name, None)
                part.close()
        # Their threads have ended (they wake the loop through this pipe): its numbers may be reused now.
        fds, self._wake_fds = self._wake_fds, ()
        for fd in fds:
            os.close(fd)

    # What the other threads say --------------------------------------------------------------

    def _wake(self) -> None:
        try:
            os.write(self._wake_write, b"x")
        except OSError:  # full (a wake is pending anyway) or closed (closing)
            pass

    def _focus_changed(self) -> None:
        self._window_changed = True
        self._window_changed_at = time.monotonic()
        self._wake()

    def _went(self, why: str) -> None:
        self._gone = self._gone or why
        self._wake()

    def _gone_check(self) -> None:
        """DesktopError when a thread said the cast ended, saying why (the compositor gone first of all)."""
        if self._gone or self.feed.ended:
            self._compositor_check()
            raise DesktopError(self._gone or f"PipeWire stopped sending the screen ({self.feed.ended})")

    def alive_check(self) -> None:
        self._gone_check()
        self._compositor_check()

    # Monitors and screenshots ----------------------------------------------------------------

    def monitors(self) -> list[Monitor]:
        """The monitors shared in the desktop's dialog (one plugged in later is not: start again to share it)."""
        return self._monitors

    def monitor(self, number: int) -> Monitor:
        if not 1 <= number <= len(self._monitors):
            names = ", ".join(f"{m.number} {m.name}" for m in self._monitors)
            raise ValueError(f"there is no monitor {number} among those shared with {self.dialog.desktop}'s "
                             f"{self.dialog.name}: {len(self._monitors)} shared ({names})")
        return self._monitors[number - 1]

    def grab(self, monitor: Monitor) -> Shot:
        self._gone_check()
        number = self._stream_of.get(monitor.name)
        if number is None:
            raise ScreenError(f"the monitor {monitor.name} is not shared")
        if self.feed.count(number) == 0:
            frame = self.feed.frame(number, FIRST_FRAME_S)
        else:  # the picture of the window the desktop says changed, not the one before, if it comes (waited for once)
            changed_at = self._window_changed_at
            frame = self.feed.frame(number, WINDOW_FRAME_WAIT_S if self._waited.get(number) != changed_at else 0, after=changed_at)
            self._waited[number] = changed_at
        if frame is None:
            self._gone_check()
            self._watched[number] = 0  # its first picture, when it comes late, wakes change_wait
            raise ScreenError(f"PipeWire sent no picture of {monitor.name} in {FIRST_FRAME_S:.0f} s")
        count, width, height, pixels = frame
        self._watched[number] = count
        kept = self._shots.get(number)
        if kept is None or kept[0] != count:
            kept = self._shots[number] = (count, Shot(width=width, height=height, bgra=pixels, checksum=zlib.crc32(pixels)))
        return kept[1]

    def change_wait(self, timeout_s: float, wake_fd: int) -> bool:
        """True when a monitor screenshots were taken of sent a new picture, or the desktop said the
        focused window or its title changed."""
        deadline = time.monotonic() + timeout_s
        while not (self._window_changed or any(self.feed.count(n) != seen for n, seen in self._watched.items())):
            self._gone_check()
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            ready, _, _ = select.select([wake_fd, self._wake_read], [], [], left)
            if wake_fd in ready:
                return False
            if self._wake_read in ready:
                try:
                    os.read(self._wake_read, 4096)
                except BlockingIOError:
                    pass
        self._window_changed = False
        return True

    def locked(self) -> str | None:
        return self._locks.locked()

    def monitor_at(self, x: int, y: int, width: int, height: int, default: str = "") -> str:
        """The name of the shared monitor a window's middle is on, else default."""
        middle_x, middle_y = x + width // 2, y + height // 2
        return next((m.name for m in self._monitors if m.x <= middle_x < m.x + m.width and m.y <= middle_y < m.y + m.height),
                    default)

    def focused(self) -> FocusedWindow:
        raise NotImplementedError

    def window_on(self, monitor: Monitor) -> FocusedWindow:
        raise NotImplementedError
