"""The background worker process: django-tasks-db's Worker under a known id, a heartbeat while
the process lives, a sweep that gives back the tasks of workers that are gone, the apps' start-up
hooks, a turn for every priority level, and a stop that loses no work."""

import logging
import os
import secrets
import signal
import socket
import threading
import time
from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.db import connection
from django_tasks import DEFAULT_TASK_BACKEND_ALIAS
from django_tasks_db.management.commands.db_worker import Worker
from django_tasks_db.models import DBTaskResult

from myrecall.models import TaskRun, WorkerStopped
from myrecall.selectors import tasks_ready_priorities
from myrecall.services import task_turn_give, tasks_abandoned_sweep, worker_beat, worker_unregister
from myrecall.shutdown import exit_deadline
from myrecall.worker_hooks import periodic_hooks, startup_hooks

logger = logging.getLogger(__name__)


def worker_id_new() -> str:
    # Readable in the task table; the random tail tells apart two lives of one pid.
    return f"{socket.gethostname()[:40]}:{os.getpid()}:{secrets.token_hex(4)}"


class Turns:
    """Gives every priority level a turn (myrecall.priorities): when tasks of a level have waited
    TASK_TURN_S while this worker took only higher ones, the first of them goes to the front.
    Without it, live frames that come faster than they are read would hold the backlog forever."""

    def __init__(self) -> None:
        self.last: dict[int, float] = {}  # level -> when it last had a turn, or was first seen waiting

    def taken(self, priority: int) -> None:
        self.last[priority] = time.monotonic()

    def give(self) -> None:
        now = time.monotonic()
        waiting = tasks_ready_priorities()
        self.last = {level: self.last.get(level, now) for level in waiting}
        for level in waiting[1:]:  # the highest is taken next anyway
            if now - self.last[level] >= settings.TASK_TURN_S and task_turn_give(priority=level):
                self.last[level] = now


class RecoveringWorker(Worker):
    """django-tasks-db's Worker with a stop that never fails the task in flight: the first
    SIGINT/SIGTERM lets it finish (for up to WORKER_STOP_S) and then stops; a second, or that
    time passing, interrupts it, puts it back in the queue (not counted as an attempt) and stops.
    The process is gone STOP_GRACE_S later whatever it is doing (myrecall.shutdown). After each
    task it gives waiting levels their turn."""

    interrupted = False

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.turns = Turns()

    def shutdown(self, signum, frame) -> None:
        name = signal.strsignal(signum)
        if self.running:
            self.running = False
            exit_deadline(settings.WORKER_STOP_S + settings.STOP_GRACE_S)
            if self.running_task:
                logger.warning("%s: stopping after the task in flight (again: put it back in the queue and stop now)", name)
                overtime = threading.Timer(settings.WORKER_STOP_S, self._overtime, args=(signum,))
                overtime.daemon = True
                overtime.start()
            return
        if not self.interrupted:
            self.interrupted = True
            logger.warning("%s: stopping now; the task in flight goes back to the queue", name)
            raise WorkerStopped(name)

    def _overtime(self, signum: int) -> None:
        if self.running_task:
            logger.warning("The task in flight is still running %g s after the stop", settings.WORKER_STOP_S)
            os.kill(os.getpid(), signum)  # as a second Ctrl-C: the main thread puts it back and stops

    def run_task(self, db_task_result: DBTaskResult) -> None:
        self.turns.taken(db_task_result.priority)
        db_task_result.__class__ = TaskRun  # the same row, written the way TaskRun says
        super().run_task(db_task_result)
        if not self.running:
            return
        try:
            self.turns.give()
        except Exception:
            logger.exception("Giving the waiting tasks their turn failed; trying again after the next task")
            connection.close()


class Heartbeat(threading.Thread):
    """Beats for its worker every WORKER_HEARTBEAT_S while the process lives, and sweeps for
    the tasks of dead workers every WORKER_SWEEP_S."""

    def __init__(self, worker_id: str):
        super().__init__(name="worker-heartbeat", daemon=True)
        self.worker_id = worker_id
        self.stopping = threading.Event()
        self.periodic_due: dict[int, float] = {}

    def run(self) -> None:
        last_beat = time.time()
        next_sweep = last_beat + settings.WORKER_SWEEP_S
        try:
            while not self.stopping.wait(settings.WORKER_HEARTBEAT_S):
                now = time.time()
                if now - last_beat > settings.WORKER_GRACE_S:
                    # This process could not beat (a suspended machine, a long-locked database): neither
                    # could the others, so they get a sweep period to beat again before they are judged.
                    next_sweep = now + settings.WORKER_SWEEP_S
                sweep = now >= next_sweep
                if sweep:
                    next_sweep = now + settings.WORKER_SWEEP_S
                if self._tick(sweep=sweep):
                    last_beat = now
        finally:
            connection.close()

    def _tick(self, *, sweep: bool) -> bool:
        try:
            if sweep:
                tasks_abandoned_sweep()
            worker_beat(worker_id=self.worker_id, swept=sweep)
        except Exception:
            logger.exception("Worker heartbeat or sweep failed; trying again")
            connection.close()
            return False
        self._periodic()
        return True

    def _periodic(self) -> None:
        now = time.monotonic()
        for index, (every_s, hook) in enumerate(periodic_hooks):
            if now < self.periodic_due.setdefault(index, now):
                continue
            self.periodic_due[index] = now + every_s()
            try:
                hook()
            except Exception:
                logger.exception("Periodic hook %s failed; trying again next time", getattr(hook, "__name__", hook))
                connection.close()

    def stop(self) -> None:
        self.stopping.set()
        self.join(timeout=10)


def worker_run(*, say: Callable[[str], None]) -> None:
    """Run a worker for every queue until it is stopped; say() prints a line of its progress."""
    if settings.WORKER_GRACE_S < 2 * settings.WORKER_HEARTBEAT_S:
        raise ImproperlyConfigured("MYRECALL_WORKER_GRACE_S must be at least twice MYRECALL_WORKER_HEARTBEAT_S.")
    worker = RecoveringWorker(
        queue_names=["*"],
        interval=settings.WORKER_INTERVAL,
        batch=False,
        backend_name=DEFAULT_TASK_BACKEND_ALIAS,
        startup_delay=False,
        max_tasks=None,
        worker_id=worker_id_new(),
        excluded_queue_names=[],
    )
    # From here a stop is orderly: one during start-up ends the worker before its first task.
    worker.configure_signals()
    worker_beat(worker_id=worker.worker_id)
    heartbeat = Heartbeat(worker.worker_id)
    heartbeat.start()
    try:
        swept = tasks_abandoned_sweep()
        if swept.requeued or swept.failed:
            say(f"took back {swept.requeued} task(s) left running by stopped workers, gave up {swept.failed}")
        # Finished task records are kept a day for inspection, not forever.
        call_command("prune_db_task_results", min_age_days=1, verbosity=0)
        for hook in startup_hooks:
            if line := hook():
                say(line)
        say("ready: taking tasks")
        worker.run()
    except WorkerStopped:
        pass
    finally:
        heartbeat.stop()
        worker_unregister(worker_id=worker.worker_id)
