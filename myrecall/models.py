import hashlib
import logging
import secrets

from django.db import models
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult
from django_tasks_db.utils import retry

logger = logging.getLogger(__name__)

TOKEN_PREFIX = "mr_"


def token_hash(raw: str) -> str:
    # Tokens carry 256 random bits, so a plain SHA-256 is enough (no key stretching needed).
    return hashlib.sha256(raw.encode()).hexdigest()


class ApiToken(models.Model):
    """A bearer token for the REST API; only its hash is stored."""

    name = models.CharField(max_length=100)
    key_hash = models.CharField(max_length=64, unique=True)
    hint = models.CharField(max_length=12, help_text="First characters, to tell tokens apart.")
    read_only = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.name} ({self.hint}…)"

    @staticmethod
    def new_raw() -> str:
        return TOKEN_PREFIX + secrets.token_urlsafe(32)


class WorkerHeartbeat(models.Model):
    """A background worker process as it last reported itself, every few seconds while it lives:
    the sweep reads these rows to tell a slow worker from a dead one."""

    worker_id = models.CharField(max_length=64, unique=True)
    hostname = models.CharField(max_length=255)
    pid = models.PositiveIntegerField()
    pid_space = models.CharField(
        max_length=255, default="", help_text="Where the pid names this process: kernel boot and pid namespace, or the host name."
    )
    pid_started = models.BigIntegerField(
        null=True, blank=True, help_text="When its process started, in clock ticks after boot (Linux): with the pid, one process."
    )
    started_at = models.DateTimeField()
    beat_at = models.DateTimeField()
    swept_at = models.DateTimeField(null=True, blank=True, help_text="When it last looked for tasks of dead workers.")

    def __str__(self) -> str:
        return f"worker {self.worker_id}"


class WorkerStopped(BaseException):
    """Raised inside a running task when its worker is told to stop at once; the task goes back to the queue.

    A BaseException, like KeyboardInterrupt, so a task's own `except Exception` does not record it as its failure."""


class WorkerLost(Exception):
    """Recorded on a task that workers kept dying on (killed, crashed, machine lost) until its attempts ran out."""


class TaskRun(DBTaskResult):
    """A task row as the worker that claimed it writes its outcome: only while the row still holds
    that claim (a sweep may have given it to another worker), and a task interrupted by a stop goes
    back to the queue instead of failing."""

    class Meta:
        proxy = True

    def set_failed(self, exc: BaseException) -> None:
        if isinstance(exc, WorkerStopped):
            self._requeue()
        else:
            super().set_failed(exc)

    @retry()
    def _requeue(self) -> None:
        self.status = TaskResultStatus.READY
        # A stop is not the task's fault: its claim is taken back, not counted as an attempt.
        self.worker_ids = self.worker_ids[:-1]
        self.save(update_fields=["status", "worker_ids"])

    def save(self, *args, update_fields=None, **kwargs) -> None:
        if update_fields is None:
            super().save(*args, **kwargs)
            return
        still_claimed = DBTaskResult.objects.filter(pk=self.pk, status=TaskResultStatus.RUNNING, started_at=self.started_at)
        if not still_claimed.update(**{name: getattr(self, name) for name in update_fields}):
            logger.warning("Task %s was given to another worker while this one ran it; this outcome is not recorded", self.pk)
