from django.conf import settings
from django_tasks import task

from myrecall import priorities
from myrecall.space import compaction_pending, compaction_run

from frames.ocr import ocr_warm_up
from frames.selectors import frames_deletions_stalled, frames_past_retention
from frames.services import (
    frame_ocr_abandon,
    frame_ocr_run,
    database_space_reclaim,
    frames_deletions_finish,
    frames_ocr_requeue,
    frames_retention_apply,
)


@task(queue_name="ocr")
def frame_ocr(frame_id: int) -> str:
    return frame_ocr_run(frame_id=frame_id)


def frame_ocr_abandoned(frame_id: int, *, attempts: int) -> None:
    """frame_ocr's abandoned-task hook: its workers died `attempts` times while running it."""
    frame_ocr_abandon(frame_id=frame_id, attempts=attempts)


def ocr_lost_requeue() -> str | None:
    """Worker start-up: OCR for pending frames whose task was lost."""
    if requeued := frames_ocr_requeue():
        return f"re-queued OCR for {requeued} frame(s) whose task was lost"
    return None


def ocr_engine_warm_up() -> str:
    """Worker start-up: load the OCR models before the first frame."""
    ocr_warm_up()
    return f"OCR engine {settings.OCR_ENGINE} ready"


@task()
def frames_housekeeping() -> str:
    """Finish deletions that stopped midway, then delete what is past the retention."""
    finished = frames_deletions_finish()
    job = frames_retention_apply()
    removed = job.removed.get("frames", 0) if job else 0
    return f"finished {finished} interrupted deletion(s); retention removed {removed} frame(s)"


def housekeeping_enqueue() -> None:
    """A worker's periodic hook: queue housekeeping when there is some to do and none is queued."""
    from django_tasks_db.models import DBTaskResult

    if not (frames_past_retention() or frames_deletions_stalled()):
        return
    if DBTaskResult.objects.filter(task_path=frames_housekeeping.module_path, status__in=["READY", "RUNNING"]).exists():
        return
    frames_housekeeping.enqueue()


# Rows in an older, larger form are rewritten in the background, with the backlog: a turn of
# COMPACT_TURN_S, then the task queues itself again behind what came meanwhile.
COMPACT_TURN_S = 10.0


@task()
def storage_compact() -> str:
    done, left = compaction_run(budget_s=COMPACT_TURN_S)
    if left:
        storage_compact.using(priority=priorities.BACKLOG).enqueue()
    else:
        database_space_reclaim()
    return f"rewrote {done} row(s) in their compact form; {'more to do' if left else 'all done'}"


def storage_compact_start() -> str | None:
    """Worker start-up: go on rewriting rows stored in an older, larger form, if any are."""
    from django_tasks_db.models import DBTaskResult

    if not compaction_pending():
        return None
    if not DBTaskResult.objects.filter(task_path=storage_compact.module_path, status__in=["READY", "RUNNING"]).exists():
        storage_compact.using(priority=priorities.BACKLOG).enqueue()
    return "rows stored in an older, larger form are being rewritten compactly in the background (`manage.py compact` does it now)"
