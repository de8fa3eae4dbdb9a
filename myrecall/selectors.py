"""Reads shared by the apps: which background workers are gone."""

import os
import socket
from collections.abc import Iterable
from datetime import timedelta
from functools import cache
from pathlib import Path

from django.conf import settings
from django.utils import timezone

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


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid runs on this machine (a zombie, killed but not yet reaped, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return not Path("/proc/self/stat").exists()  # gone just now, or a system without /proc
    return state != "Z"


def workers_dead(*, worker_ids: Iterable[str]) -> set[str]:
    """Those of worker_ids that are gone: no heartbeat row, a heartbeat older than the grace
    period, or a process in this pid space that no longer exists (known at once, no grace needed)."""
    wanted = set(worker_ids)
    fresh_since = timezone.now() - timedelta(seconds=settings.WORKER_GRACE_S)
    here = pid_space()
    rows = WorkerHeartbeat.objects.filter(worker_id__in=wanted).values_list("worker_id", "pid_space", "pid", "beat_at")
    alive = {
        worker_id
        for worker_id, space, pid, beat_at in rows
        if beat_at >= fresh_since and (space != here or pid_alive(pid))
    }
    return wanted - alive
