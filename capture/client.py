"""The capture loop: every interval (and, on a desktop that tells of changes, soon after each
change), unless paused, the screen is locked or the focused window is excluded, a screenshot of
the monitor with the focused window's app and title goes into the spool when a pixel changed
since the last one, or the app, the window title or the page address the browser's
extension reported did (a new page in a browser whose pixels look the same is a new moment,
stored with its own title and address); an uploader thread sends
the spool to the server in capture order, reads the server's privacy rules every RULES_REFRESH_S,
and sends the report of each report period (so the server knows the client runs while it sends
no frame). Its state dir and everything in it are the user's alone (capture.private).

A browser window with the focus: the page's address is not readable from X11, but MyRecall's
browser extension tells the server which tab is active; before each screenshot of a browser whose
extension reports, the client asks the server whether that tab is a page the privacy rules exclude
(one small GET; a browser without the extension is asked about again every TAB_RECHECK_S).

The desktop (capture.desktop: X11, sway, GNOME, KDE...) is opened once; the loop asks it for the focused window
and the screenshot, and waits on it between looks."""

import json
import logging
import os
import select
import signal
import socket
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from capture import CLIENT_NAME
from capture.desktop import X11, Desktop, DesktopError, FocusedWindow, Monitor, ScreenError, desktop_open
from capture.png import shot_png
from capture.private import dir_private, file_touch, file_write
from capture.server import Outcome, Server
from capture.spool import Spool
from myrecall.browsers import browser_of_app
from myrecall.privacy_rules import PrivacyRules, exclusion_find

logger = logging.getLogger("capture")

RULES_REFRESH_S = 30.0
TAB_RECHECK_S = 30.0  # a browser whose extension was not heard from is asked about again after this
BACKOFF_MAX_S = 30.0
LAST_REPORT_TIMEOUT_S = (2, 3)  # connect, read: an ending client waits little
# Screenshots taken again in one tick when the focused window or its title changed while one was
# taken (its pixels may be either window's); past that, the last is kept with the window read after it.
FOCUS_READS = 3
# How a user gives the client its token (said when it has none, or one the server refuses).
TOKEN_HOW = ("put it in a file only you can read and pass --token-file FILE, or set MYRECALL_TOKEN in the "
             "client's environment (not --token: a command line is visible to every account on this machine)")
# What the client writes in its state dir (capture.private tightens these and nothing else there).
STATE_FILES = ("paused", "rules.json", "spool", "spool/*")

# On a desktop that tells of changes, a change is looked at QUIET_GAP_S after it (a window switch
# draws for a few frames). When changes keep coming, each within BURST_S of the look before it,
# twice in a row (someone types, scrolls, a video plays), the next look is BUSY_GAP_S after the
# last, so a busy screen costs a look every BUSY_GAP_S, with what changed meanwhile in it; one
# change right after a look (a window still drawing) is looked at again at once.
QUIET_GAP_S = 0.1
BUSY_GAP_S = 2.0
BURST_S = 1.0

# The longest app, title and monitor name the server takes (POST /api/v1/frames): longer ones are sent cut.
APP_MAX, TITLE_MAX, MONITOR_MAX = 512, 1024, 100

# --monitor besides a number: a frame of each monitor, or of the one with the focused window.
ALL, FOCUSED = "all", "focused"

# Exit codes (README "Capture"): 0 also after SIGINT or SIGTERM
EXIT_OK, EXIT_USAGE, EXIT_BAD_TOKEN, EXIT_NOT_MYRECALL, EXIT_DISPLAY_LOST = 0, 2, 3, 4, 5


def sendable(text: str, limit: int) -> str:
    """The text as the server takes it: its first `limit` characters, in UTF-8 (an unpaired
    surrogate, which no title should hold, becomes "?")."""
    return text[:limit].encode("utf-8", "replace").decode("utf-8")


def monitors_said(monitors: list[Monitor]) -> str:
    """ "1 DP-1 2560x1440, 2 HDMI-1 1920x1080" """
    return ", ".join(f"{m.number} {m.name} {m.width}x{m.height}" for m in monitors)


def state_dir_default() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "myrecall-capture"


def pause_file(state_dir: Path) -> Path:
    return state_dir / "paused"


def state_dir_private(state_dir: Path) -> Path:
    """The state dir, created or tightened so that only its user can read it."""
    return dir_private(state_dir, STATE_FILES)


@dataclass
class Config:
    url: str
    token: str
    interval_s: float = 3.0
    monitor: int | str = ALL  # a number (1 the first...; 0 every monitor as one image, X11), ALL or FOCUSED
    device_name: str = field(default_factory=socket.gethostname)
    state_dir: Path = field(default_factory=state_dir_default)
    spool_bytes: int = 500 * 2**20
    display: str | None = None
    desktop: str = X11  # which desktop to open (capture.desktop.desktop_kind)
    local_rules: PrivacyRules = field(default_factory=PrivacyRules)
    report_s: float = 60.0  # how often the "last minute" line is logged


class Fatal(Exception):
    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


class Client:
    def __init__(self, config: Config):
        self.config = config
        self.state_dir = state_dir_private(Path(config.state_dir))
        self.spool = Spool(self.state_dir / "spool", max_bytes=config.spool_bytes)
        self.server = Server(config.url, config.token)
        self.tab_server = Server(config.url, config.token)  # the capture thread's own connection
        self._tab_unseen_until: dict[str, float] = {}  # browser key -> when to ask again (monotonic)
        self.stopping = threading.Event()
        self._wake_read, self._wake_write = os.pipe()  # written once on stopping: ends the desktop's wait
        self.wake = threading.Event()  # a new frame in the spool
        self.fatal: Fatal | None = None
        self.server_rules = self._rules_cached()
        self.sent = self.captured = self.skipped_unchanged = self.skipped_excluded = 0
        self._reported = (0, 0, 0)  # sent, unchanged, excluded at the last report
        self._dropped_reported = 0  # frames the full spool had dropped at the last report line
        self._report_due: dict | None = None  # the latest report, until the uploader sends it
        self._reports_taken = True  # False once the server said it has no route for reports (an older one)
        self.stopped_by: str | None = None  # the signal's name
        # Per monitor (by name): the checksum of its last frame put in the spool, and that frame's
        # app, title and page address.
        self._last_checksum: dict[str, int] = {}
        self._last_window: dict[str, tuple[str, str, str]] = {}
        self._chosen: Monitor | None = None  # the monitor --monitor N named at the start
        self._monitors_seen: list[Monitor] | None = None
        self._gone_said = False
        self._tab_url = ""  # the address of the browser tab the window last judged shows, when the server knows it
        self._sending: Path | None = None  # the spooled frame the uploader is sending now
        self._last_excluded: str | None = None
        self._paused_said: str | None = None
        self._locked: str | None = None  # why the screen was locked at the last look
        self._down = False  # the server did not answer the last request
        self._rules_at = 0.0  # when the server's rules are read next (monotonic)

    # Rules ------------------------------------------------------------------------------------

    def _rules_file(self) -> Path:
        return self.state_dir / "rules.json"

    def _rules_cached(self) -> PrivacyRules:
        """The server's rules as last read, so they hold while it cannot be reached."""
        try:
            return PrivacyRules.from_json(json.loads(self._rules_file().read_text()))
        except (FileNotFoundError, ValueError):
            return PrivacyRules()

    def _stop_if_fatal(self, answer) -> None:
        if answer.outcome is Outcome.BAD_TOKEN:
            raise Fatal(
                EXIT_BAD_TOKEN,
                f"The server at {self.config.url} refused the token ({answer.detail}). Make one on the server with "
                f"`.venv/bin/python manage.py token_create <this machine>`; {TOKEN_HOW}.",
            )
        if answer.outcome is Outcome.NOT_MYRECALL:
            raise Fatal(
                EXIT_NOT_MYRECALL,
                f"{self.config.url} does not look like a MyRecall server ({answer.detail}). "
                "Give the address the server prints at start, e.g. http://127.0.0.1:8000.",
            )

    def rules_refresh(self) -> None:
        answer, body = self.server.privacy_get()
        self._stop_if_fatal(answer)
        if body is not None:
            self.server_rules = PrivacyRules.from_json(body)
            file_write(self._rules_file(), json.dumps(body).encode())
        elif answer.outcome is Outcome.RETRY:
            self._unreachable(answer.detail)

    def _unreachable(self, detail: str) -> None:
        if not self._down:
            logger.warning("cannot reach %s (%s): capturing into the spool, sending it when the server answers", self.config.url, detail)
        self._down = True

    def _reachable(self) -> None:
        if self._down:
            logger.info("the server answers again: sending %d spooled frame(s)", self.spool.count())
            self._rules_at = 0.0  # and read its rules now
        self._down = False

    def paused(self) -> str | None:
        if pause_file(self.state_dir).exists():
            return "paused (`bash scripts/capture.sh resume` to go on)"
        if self.server_rules.capture_paused:
            return "paused on the server's Settings page"
        return None

    def excluded(self, app_name: str, title: str) -> str | None:
        self._tab_url = ""
        for rules in (self.config.local_rules, self.server_rules):
            if found := exclusion_find(rules, app_name=app_name, window_name=title):
                return found.reason
        return self.tab_excluded(app_name, title)

    def tab_excluded(self, app_name: str, title: str) -> str | None:
        """Why not to capture a browser window now: its active tab is a page the privacy rules
        exclude, as the browser's extension told the server. None when it may be captured, when the
        app is not a browser, or when the server cannot say (it then judges the frame itself)."""
        browser = browser_of_app(app_name)
        if browser is None or time.monotonic() < self._tab_unseen_until.get(browser.key, 0.0):
            return None
        state = self.tab_server.browser_tab_get(
            app_name=sendable(app_name, APP_MAX), window_name=sendable(title, TITLE_MAX), at=time.time()
        )
        if state is None:
            return None
        if not state.get("extension_seen"):
            self._tab_unseen_until[browser.key] = time.monotonic() + TAB_RECHECK_S
            return None
        if state.get("excluded"):
            return f"the active tab of {browser.names[0]} is a page the privacy rules exclude"
        self._tab_url = str(state.get("browser_url") or "")
        return None

    # Capture ----------------------------------------------------------------------------------

    def _not_captured(self, reason: str, monitor: Monitor) -> str:
        self.skipped_excluded += 1
        if self._last_excluded != reason:
            logger.info("not captured: %s", reason)
        self._last_excluded = reason
        self._last_checksum.pop(monitor.name, None)  # the next allowed screen is sent even if it looks the same
        return "excluded"

    def _held(self, desktop: Desktop) -> str | None:
        """"paused" while capture is paused or the screen is locked (said once), else None."""
        self._locked = desktop.locked()
        if reason := self.paused() or self._locked:
            desktop.alive_check()  # nothing is read while paused, but a lost desktop still ends the client
            if self._paused_said != reason:
                logger.info("%s", reason)
            self._paused_said = reason
            return "paused"
        if self._paused_said:
            logger.info("capturing again")
            self._paused_said = None
        return None

    def capture_once(self, desktop: Desktop, monitor: Monitor) -> str:
        """One look at one monitor: what it did ("sent to spool", "unchanged", "excluded", "paused",
        also while the screen is locked)."""
        return self._held(desktop) or self._monitor_capture(desktop, monitor)

    def look(self, desktop: Desktop) -> list[str]:
        """One look at each monitor recorded (--monitor): what each did."""
        if held := self._held(desktop):
            return [held]
        did = []
        for monitor in self.monitors_now(desktop):
            try:
                did.append(self._monitor_capture(desktop, monitor))
            except (OSError, ScreenError) as exc:  # the others are still taken
                logger.warning("capture failed%s: %s", f" on monitor {monitor.name}" if monitor.name else "", exc)
                did.append("failed")
        return did

    def monitors_now(self, desktop: Desktop) -> list[Monitor]:
        """The monitors to take now: every one there is, the one with the focused window, or the one
        --monitor N named at the start, while it is there (it may be unplugged and plugged again)."""
        if self._chosen is not None and self._chosen.number == 0:
            return [self._chosen]  # every monitor as one image
        monitors = desktop.monitors()
        if monitors != self._monitors_seen:
            if self._monitors_seen is not None:
                logger.info("monitors now: %s", monitors_said(monitors) or "none")
            names = {m.name for m in monitors}
            self._last_checksum = {name: kept for name, kept in self._last_checksum.items() if name in names}
            self._monitors_seen = monitors
        if self.config.monitor == ALL:
            return monitors
        if self.config.monitor == FOCUSED:
            name = desktop.focused().monitor
            return [next((m for m in monitors if m.name == name), monitors[0])] if monitors else []
        found = [m for m in monitors if m.name == self._chosen.name]
        if not found and not self._gone_said:
            logger.warning("monitor %s is gone: nothing is captured until it is back", self._chosen.name)
        elif found and self._gone_said:
            logger.info("monitor %s is back", self._chosen.name)
        self._gone_said = not found
        return found

    def _monitors_start(self, desktop: Desktop) -> str:
        """What the first line says is recorded: "every monitor (1 DP-1 2560x1440, ...)"; ValueError
        for a monitor number there is not."""
        if self.config.monitor in (ALL, FOCUSED):
            monitors = self._monitors_seen = desktop.monitors()
            which = "every monitor" if self.config.monitor == ALL else "the monitor with the focused window, of"
            return f"{which} ({monitors_said(monitors)})"
        monitor = self._chosen = desktop.monitor(int(self.config.monitor))
        if monitor.number == 0:
            return f"every monitor as one image ({monitor.width}x{monitor.height})"
        return f"monitor {monitor.number} ({monitor.name}, {monitor.width}x{monitor.height})"

    def _window_on(self, desktop: Desktop, monitor: Monitor) -> tuple[FocusedWindow, bool | None]:
        """The window a screenshot of the monitor shows the user at: the focused one when it is on
        that monitor (or its monitor is not known), else the one on top there; and whether it has the focus."""
        window = desktop.focused()
        if monitor.name and window.monitor and window.monitor != monitor.name:
            return desktop.window_on(monitor), False
        return window, (True if window.app_name else None)

    def _monitor_capture(self, desktop: Desktop, monitor: Monitor) -> str:
        """The window is read before and after the screenshot: when the focus or the title changed
        meanwhile (the pixels may be the new window's), the new window is judged and taken again."""
        window, focused = self._window_on(desktop, monitor)
        for _ in range(FOCUS_READS):
            if reason := self.excluded(window.app_name, window.title):
                return self._not_captured(reason, monitor)
            taken_ns = time.time_ns()
            shot = desktop.grab(monitor)
            after, focused = self._window_on(desktop, monitor)
            if after == window:
                break
            window = after
        else:  # a title that keeps changing (a clock, a progress count): the last screenshot, if allowed
            if reason := self.excluded(window.app_name, window.title):
                return self._not_captured(reason, monitor)
        self._last_excluded = None
        # A new app, title or page address is a new moment, whatever the pixels.
        moment = (window.app_name, window.title, self._tab_url)
        if shot.checksum == self._last_checksum.get(monitor.name) and moment == self._last_window.get(monitor.name):
            self.skipped_unchanged += 1
            return "unchanged"
        image = shot_png(shot)
        meta = {
            "timestamp_ns": taken_ns,
            "app_name": sendable(window.app_name, APP_MAX),
            "window_name": sendable(window.title, TITLE_MAX),
            # Not readable from X11: the address the browser's extension reported for this tab, if any.
            "browser_url": self._tab_url,
            "focused": focused,
            "device_name": self.config.device_name,
            "client_frame_id": f"{self.config.device_name}-{taken_ns}",
        }
        if monitor.name:
            meta["monitor"] = sendable(monitor.name, MONITOR_MAX)
        self.spool.put(image, meta)
        self._last_checksum[monitor.name] = shot.checksum
        self._last_window[monitor.name] = moment
        self.captured += 1
        self.wake.set()
        return "sent to spool"

    # Upload -----------------------------------------------------------------------------------

    def upload_loop(self) -> None:
        backoff = 1.0
        try:
            while not self.stopping.is_set():
                if (report := self._report_due) is not None:
                    self._report_due = None
                    self.report_send(report)
                if time.monotonic() >= self._rules_at:
                    self._rules_at = time.monotonic() + RULES_REFRESH_S
                    self.rules_refresh()
                item = self.spool.oldest()
                if item is None:
                    self.wake.wait(1.0)
                    self.wake.clear()
                    continue
                self._sending = item.path
                try:
                    answer = self.server.frame_post(item.path.read_bytes(), item.meta)
                finally:
                    self._sending = None
                if answer.outcome is not Outcome.RETRY:
                    self._reachable()
                if answer.outcome is Outcome.STORED:
                    self.spool.remove(item)
                    self.sent += 1
                    backoff = 1.0
                elif answer.outcome is Outcome.REFUSED:
                    logger.warning("the server refused frame %s: %s (dropped)", item.meta["client_frame_id"], answer.detail)
                    self.spool.remove(item)
                elif answer.outcome is Outcome.RETRY:
                    self._unreachable(answer.detail)
                    self.stopping.wait(backoff)
                    backoff = min(backoff * 2, BACKOFF_MAX_S)
                else:
                    self._stop_if_fatal(answer)
        except Fatal as exc:
            self.fatal = exc
            self.stop()
        except Exception as exc:  # never die silently: the main loop reports it
            logger.exception("uploader failed")
            self.fatal = Fatal(1, f"the uploader failed: {exc}")
            self.stop()

    # Run --------------------------------------------------------------------------------------

    def report_take(self) -> dict:
        """What the report period that just ended did (the counts start again from zero): frames
        sent, skipped as unchanged, excluded, what waits in the spool, whether paused or locked; the body of
        POST /api/v1/capture/report."""
        now = (self.sent, self.skipped_unchanged, self.skipped_excluded)
        sent, unchanged, excluded = (a - b for a, b in zip(now, self._reported))
        self._reported = now
        return {
            "device_name": self.config.device_name,
            "period_s": self.config.report_s,
            "sent": sent,
            "unchanged": unchanged,
            "excluded": excluded,
            "spooled": self.waiting(),
            "paused": self.paused() is not None,
            "client": CLIENT_NAME,
        } | ({"locked": self._locked[:200]} if self._locked else {})  # sent only then: an older server takes no such field

    def waiting(self) -> int:
        """Frames in the spool that wait to be sent: the one being sent counts only while the server
        does not answer (while it does, that frame is on its way, not waiting)."""
        return self.spool.count(besides=None if self._down else self._sending)

    def report_line(self, report: dict) -> str:
        period = "minute" if self.config.report_s == 60 else f"{self.config.report_s:g} s"
        waiting = f"{report['spooled']} waiting in the spool"
        if self._down:
            waiting += f" ({self.config.url} cannot be reached)"
        if dropped := self.spool.dropped - self._dropped_reported:
            waiting += f", {dropped} oldest dropped as the spool was full"
            self._dropped_reported = self.spool.dropped
        paused = f"{reason}; " if (reason := self.paused() or self._locked) else ""
        return (
            f"last {period}: {paused}{report['sent']} frame(s) sent, {report['unchanged']} skipped as unchanged, "
            f"{report['excluded']} excluded by privacy rules, {waiting}"
        )

    def report_send(self, report: dict) -> None:
        """Send a report; one that does not arrive is not sent again (the next one replaces it)."""
        if not self._reports_taken:
            return
        answer = self.server.report_post(report)
        if answer.outcome is Outcome.RETRY:
            self._unreachable(answer.detail)
            return
        self._reachable()
        if answer.outcome is Outcome.NOT_MYRECALL:  # the address answered our privacy rules, so an older server
            logger.info("the server takes no capture reports (an older MyRecall): its timeline judges this device by its frames alone")
            self._reports_taken = False
        elif answer.outcome is Outcome.REFUSED:
            logger.warning("the server refused the capture report: %s", answer.detail)
        else:
            self._stop_if_fatal(answer)

    def report_last(self, reason: str) -> None:
        """The last report says the client ended and why, so the timeline shows a stop, not a
        silence. Sent once, briefly: an ending client waits little for a server that does not answer,
        and says nothing more about it (its one closing line is the stop's)."""
        if self._reports_taken:
            self.server.report_post({**self.report_take(), "stopped": reason}, timeout=LAST_REPORT_TIMEOUT_S)

    def stop(self) -> None:
        """End the loop (from a signal handler or the uploader): the desktop's wait returns at once."""
        if not self.stopping.is_set():
            self.stopping.set()
            os.write(self._wake_write, b"x")

    def _stop_on_signal(self, signum, _frame) -> None:
        self.stopped_by = signal.Signals(signum).name
        self.stop()

    def _spool_kept(self) -> str:
        count = self.spool.count()
        if not count:
            return "nothing waits in the spool"
        return f"{count} frame(s) kept in the spool {self.spool.dir}, sent at the next start"

    def run(self) -> int:
        # Explicit handlers: a shell starts background jobs with SIGINT ignored, and then Python
        # installs no KeyboardInterrupt; either signal ends the loop with the spool kept.
        signal.signal(signal.SIGINT, self._stop_on_signal)
        signal.signal(signal.SIGTERM, self._stop_on_signal)
        self.rules_refresh()  # a bad token or URL stops here, before anything is captured
        desktop = desktop_open(self.config.desktop, display=self.config.display, state_dir=self.state_dir)
        try:
            what = self._monitors_start(desktop)
        except ValueError:
            desktop.close()
            raise
        uploader = threading.Thread(target=self.upload_loop, name="uploader", daemon=True)
        uploader.start()
        signal.signal(signal.SIGUSR1, lambda *_: self.pause_toggle())
        logger.info(
            "capturing %s on %s every %.1f s as %r to %s; spool %s",
            what, self.config.desktop, self.config.interval_s, self.config.device_name, self.config.url, self.spool.dir,
        )
        display_lost = None
        try:
            next_tick = next_report = time.monotonic()
            pending = 0  # changes in a row that each came within BURST_S of the look before
            next_report += self.config.report_s
            while not self.stopping.is_set():
                # The report before this tick's screenshot: a frame taken a moment ago is not yet waiting.
                if time.monotonic() >= next_report:
                    next_report += self.config.report_s
                    report = self.report_take()
                    logger.info("%s", self.report_line(report))
                    self._report_due = report  # sent by the uploader: a slow server never holds capture up
                    self.wake.set()
                looked = time.monotonic()
                self.look(desktop)
                next_tick += self.config.interval_s
                delay = next_tick - time.monotonic()
                if delay < 0:  # fell behind (a suspended machine): start again from now
                    next_tick, delay = time.monotonic(), 0
                if not self.stopping.is_set() and desktop.change_wait(delay, self._wake_read):
                    # A change before the tick: looked at after the gap, and the ticks count from that look.
                    now = time.monotonic()
                    pending = pending + 1 if now - looked < BURST_S else 0
                    at = looked + BUSY_GAP_S if pending >= 2 else now + QUIET_GAP_S
                    select.select([self._wake_read], [], [], max(0.0, at - now))
                    next_tick = time.monotonic()
                else:
                    pending = 0
        except DesktopError as exc:
            display_lost = exc
        finally:
            self.stop()
            uploader.join(timeout=35)
            desktop.close()
        if self.fatal:
            raise self.fatal
        self.report_last(f"{desktop.what} went away" if display_lost else f"stopped by {self.stopped_by}")
        if display_lost:
            raise Fatal(EXIT_DISPLAY_LOST, f"stopped: {display_lost}; {self._spool_kept()} (exit code {EXIT_DISPLAY_LOST})")
        logger.info(
            "stopped by %s: %d frame(s) sent; %s (exit code %d)",
            self.stopped_by, self.sent, self._spool_kept(), EXIT_OK,
        )
        return EXIT_OK

    def pause_toggle(self) -> None:
        path = pause_file(self.state_dir)
        if path.exists():
            path.unlink(missing_ok=True)
        else:
            file_touch(path)
