"""One Pi per web process (seed 000's manager): started on first use, kept running, restarted
after an exit with backoff (at most AGENT_MAX_RESTARTS tries in a row; any event from Pi
resets the count), one turn at a time.

Events go to whoever listens (the turn in progress) through queues; when Pi exits, listeners
get a `ProcessExited` so that a turn never waits for a dead process. Several web processes
each run their own Pi (the agent lives where its events are streamed)."""

import logging
import queue
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from agent_bridge.events import PiEvent
from agent_bridge.process import AgentUnavailable, PiProcess, PiSetup

logger = logging.getLogger(__name__)


class AgentBusy(AgentUnavailable):
    """A turn is in progress in this process's agent."""

    def __init__(self):
        super().__init__(
            "The agent is still answering another question. Wait for it to finish, or stop it with Abort, then ask again.",
            status_code=409,
        )


@dataclass(frozen=True, kw_only=True)
class ProcessExited(PiEvent):
    """The bridge's own event: Pi's process ended (crash, kill, or a stop)."""

    code: int
    stderr: str = field(repr=False)


class AgentManager:
    def __init__(self, setup: Callable[[], PiSetup], *, max_restarts: int = 5, backoff_s: float = 1.0):
        self._setup = setup
        self.max_restarts = max_restarts
        self.backoff_s = backoff_s
        self._lock = threading.RLock()
        self._turn_lock = threading.Lock()
        self._process: PiProcess | None = None
        self._listeners: set[queue.Queue] = set()
        self._restarts = 0  # tries in a row since Pi last said anything
        self._timer: threading.Timer | None = None
        self._stopped = False
        self.last_exit: str = ""
        self.cancelled: int | None = None  # the turn the user stopped (its abort is theirs, not a watchdog's)

    # -- the process ---------------------------------------------------------------------------

    def ensure(self) -> PiProcess:
        """The running Pi, started now when there is none (after a failed restart too)."""
        with self._lock:
            if self._process is not None and self._process.alive:
                return self._process
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            self._stopped = False
            self._start()
            return self._process

    def _start(self) -> None:
        process = PiProcess(self._setup(), on_event=self._on_event, on_exit=lambda code, err: self._on_exit(process, code, err))
        process.start()
        self._process = process

    def _on_event(self, event: PiEvent) -> None:
        self._restarts = 0
        self._publish(event)

    def _on_exit(self, process: PiProcess, code: int, stderr: str) -> None:
        tail = stderr.strip().splitlines()[-1] if stderr.strip() else ""
        self.last_exit = f"exit code {code}" + (f": {tail}" if tail else "")
        self._publish(ProcessExited(type="process_exit", raw={"type": "process_exit", "code": code}, code=code, stderr=stderr))
        with self._lock:
            if process is not self._process or self._stopped:
                return
            if self._restarts >= self.max_restarts:
                logger.error("Pi exited %s times in a row (%s); not restarting until the next question", self._restarts, self.last_exit)
                return
            delay = self.backoff_s * 2**self._restarts
            self._restarts += 1
            logger.warning("Pi exited (%s); restarting in %.0f s (try %s of %s)", self.last_exit, delay, self._restarts, self.max_restarts)
            self._timer = threading.Timer(delay, self._restart, args=(process,))
            self._timer.daemon = True
            self._timer.start()

    def _restart(self, dead: PiProcess) -> None:
        with self._lock:
            if self._stopped or self._process is not dead:
                return
            self._timer = None
            try:
                self._start()
            except AgentUnavailable as exc:
                logger.error("Pi could not be restarted: %s", exc.message)

    @property
    def process(self) -> PiProcess | None:
        return self._process

    def state(self) -> dict:
        process = self._process
        return {
            "running": bool(process and process.alive),
            "pid": process.pid if process and process.alive else None,
            "busy": self._turn_lock.locked(),
            "restarts_in_a_row": self._restarts,
            "last_exit": self.last_exit,
        }

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            if self._timer is not None:
                self._timer.cancel()
            process, self._process = self._process, None
        if process is not None:
            process.stop()

    # -- listeners and turns ---------------------------------------------------------------------

    def _publish(self, event: PiEvent) -> None:
        for listener in list(self._listeners):
            listener.put(event)

    @contextmanager
    def listen(self) -> Iterator[queue.Queue]:
        """A queue of every event from now until the block ends."""
        events: queue.Queue = queue.Queue()
        self._listeners.add(events)
        try:
            yield events
        finally:
            self._listeners.discard(events)

    def turn_claim(self) -> Callable[[], None]:
        """Take the one turn of this process's agent (AgentBusy when it is taken); returns the
        function that gives it back (safe to call more than once)."""
        if not self._turn_lock.acquire(blocking=False):
            raise AgentBusy()
        released = threading.Event()

        def release() -> None:
            if not released.is_set():
                released.set()
                self._turn_lock.release()

        return release

    @property
    def busy(self) -> bool:
        return self._turn_lock.locked()
