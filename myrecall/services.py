import logging
import os
import secrets
import socket
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from myrecall import priorities
from myrecall.models import ApiToken, WorkerHeartbeat, WorkerLost, token_hash
from myrecall.selectors import pid_space, process_start, workers_dead
from myrecall.worker_hooks import abandoned_hooks

logger = logging.getLogger(__name__)

ADMIN_USERNAME = "admin"
ADMIN_PASSWORD_FILE = "admin_password.txt"


def api_token_create(*, name: str, read_only: bool = False) -> tuple[ApiToken, str]:
    """Create a token; the raw value is returned once and never stored."""
    raw = ApiToken.new_raw()
    token = ApiToken.objects.create(
        name=name, key_hash=token_hash(raw), hint=raw[:8], read_only=read_only
    )
    return token, raw


def api_token_authenticate(*, raw: str) -> ApiToken | None:
    token = ApiToken.objects.filter(key_hash=token_hash(raw)).first()
    if token is not None:
        now = timezone.now()
        # Touch at most once a minute: a write on every request would contend with ingest.
        if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token


def admin_ensure() -> str | None:
    """Create the `admin` account on first start; return its password once, else None."""
    users = get_user_model()
    if users.objects.filter(username=ADMIN_USERNAME).exists():
        return None
    password = secrets.token_urlsafe(16)
    users.objects.create_superuser(username=ADMIN_USERNAME, email="", password=password)
    path = Path(settings.DATA_DIR) / ADMIN_PASSWORD_FILE
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(password + "\n")
    os.chmod(path, 0o600)
    return password


def worker_beat(*, worker_id: str, swept: bool = False) -> None:
    """Record that this process's worker is alive; the first beat registers it, and so does a
    beat after a sweep took it for dead and removed its row."""
    now = timezone.now()
    beat = {"beat_at": now, **({"swept_at": now} if swept else {})}
    WorkerHeartbeat.objects.update_or_create(
        worker_id=worker_id,
        defaults=beat,
        create_defaults={
            **beat,
            "hostname": socket.gethostname(),
            "pid": os.getpid(),
            "pid_space": pid_space(),
            "pid_started": process_start(os.getpid()),
            "started_at": now,
        },
    )


def worker_unregister(*, worker_id: str) -> None:
    WorkerHeartbeat.objects.filter(worker_id=worker_id).delete()


@dataclass(frozen=True)
class SweepResult:
    requeued: int
    failed: int


def tasks_abandoned_sweep() -> SweepResult:
    """Give back the tasks that dead workers left RUNNING, and forget the dead workers.

    A task whose claiming worker (the last of its worker_ids) is gone goes back to READY while
    it has been claimed fewer than TASK_MAX_ATTEMPTS times; after that it is marked FAILED and
    its app's abandoned-task hook is told, so the object it works on does not stay pending. A
    live worker's task is never touched, however long it runs. Each change is one conditional
    UPDATE on the claim as read, so sweeping workers cannot both act on one task.
    """
    running = list(
        DBTaskResult.objects.running().values_list("id", "worker_ids", "started_at", "task_path", "args_kwargs")
    )
    dead = workers_dead(worker_ids={worker_ids[-1] for _, worker_ids, *_ in running if worker_ids})
    requeued = failed = 0
    for task_id, worker_ids, started_at, task_path, args_kwargs in running:
        if worker_ids and worker_ids[-1] not in dead:
            continue
        # The claim as read: a row given back and claimed again since then is left alone.
        claim = DBTaskResult.objects.filter(id=task_id, status=TaskResultStatus.RUNNING, started_at=started_at)
        attempts = len(worker_ids)
        if attempts < settings.TASK_MAX_ATTEMPTS:
            if claim.update(status=TaskResultStatus.READY):
                requeued += 1
                logger.warning(
                    "Task %s (%s) was left running by worker %s, which is gone: back in the queue (attempt %d of %d)",
                    task_id, task_path, worker_ids[-1] if worker_ids else "?", attempts, settings.TASK_MAX_ATTEMPTS,
                )
        elif _task_abandon(claim, task_id=task_id, task_path=task_path, args_kwargs=args_kwargs, worker_ids=worker_ids):
            failed += 1
    gone = workers_dead(worker_ids=WorkerHeartbeat.objects.values_list("worker_id", flat=True))
    WorkerHeartbeat.objects.filter(worker_id__in=gone).delete()
    return SweepResult(requeued=requeued, failed=failed)


def _task_abandon(claim, *, task_id, task_path: str, args_kwargs: dict, worker_ids: list[str]) -> bool:
    attempts = len(worker_ids)
    reason = f"the workers running this task stopped {attempts} times ({', '.join(worker_ids)})"
    with transaction.atomic():
        marked = claim.update(
            status=TaskResultStatus.FAILED,
            finished_at=timezone.now(),
            return_value=None,
            exception_class_path=f"{WorkerLost.__module__}.{WorkerLost.__qualname__}",
            traceback=f"{WorkerLost.__qualname__}: {reason}\n",
        )
        if not marked:
            return False
        logger.error("Task %s (%s) given up: %s", task_id, task_path, reason)
        hook = abandoned_hooks.get(task_path)
        if hook is not None:
            try:
                with transaction.atomic():
                    hook(*args_kwargs["args"], attempts=attempts, **args_kwargs["kwargs"])
            except Exception:
                # The task stays FAILED either way: a broken hook must not make the sweep retry it forever.
                logger.exception("The abandoned-task hook of %s failed", task_path)
    return True


def task_turn_give(*, priority: int) -> bool:
    """Move the task of this priority that would be taken first to the front of the queue
    (priorities.TURN); False when none is ready."""
    ready = DBTaskResult.objects.ready().filter(priority=priority)
    first = ready.order_by("run_after", "enqueued_at").values_list("id", flat=True).first()
    return first is not None and bool(ready.filter(id=first).update(priority=priorities.TURN))
