"""Reads shared by the apps: which background workers are gone, what waits in the task queue."""

import os
import socket
from collections.abc import Iterable
from datetime import timedelta
from functools import cache
from pathlib import Path

from django.conf import settings
from django.utils import timezone

from django_tasks_db.models import DBTaskResult

from myrecall.models import WorkerHeartbeat


@cache
def pid_space() -> str:
    """Where a pid names one process: this kernel boot and pid namespace on Linux (so containers, or
    machines, that share a host name are told apart), else the host name."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
        return f"{boot} {os.readlink('/proc/self/ns/pid')}"
    except OSError:
        return socket.gethostname()


def process_start(pid: int) -> int | None:
    """When process pid started, in clock ticks after boot, from /proc (Linux): with the pid it names
    one process for good, though pids are reused. None when no such process lives (a zombie, killed
    but not yet reaped, does not) or there is no /proc."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return None if fields[0] == "Z" else int(fields[19])


def pid_alive(pid: int) -> bool:
    """Whether some process has this pid here (all one can tell without /proc)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # someone else's process
    return True


def workers_dead(*, worker_ids: Iterable[str]) -> set[str]:
    """Those of worker_ids that are gone, or never registered.

    A worker in this pid space (this machine or container) lives exactly as long as its process:
    known at once, however late its heartbeat (a suspended laptop, a database locked for minutes).
    Elsewhere a worker lives while its heartbeat is younger than the grace period."""
    wanted = set(worker_ids)
    fresh_since = timezone.now() - timedelta(seconds=settings.WORKER_GRACE_S)
    here = pid_space()

    def alive(space: str, pid: int, started: int | None, beat_at) -> bool:
        if space == here and started is not None:
            return process_start(pid) == started
        return beat_at >= fresh_since and (space != here or pid_alive(pid))

    rows = WorkerHeartbeat.objects.filter(worker_id__in=wanted).values_list(
        "worker_id", "pid_space", "pid", "pid_started", "beat_at"
    )
    return wanted - {worker_id for worker_id, *process in rows if alive(*process)}


def tasks_ready_priorities() -> list[int]:
    """The priorities that tasks ready to run now wait at, highest (taken next) first."""
    return list(DBTaskResult.objects.ready().order_by("-priority").values_list("priority", flat=True).distinct())
