"""The sweep that gives back tasks of dead workers, and how a worker records a task's outcome,
on the real task table: which workers count as gone, the attempt limit and its hook, a claim
that changed hands, and a task interrupted by a stop; and the turn every priority level gets."""

import os
import socket
import subprocess
import sys
from datetime import timedelta

import pytest
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from frames.models import Frame, OcrStatus
from frames.tasks import frame_ocr
from myrecall import priorities
from myrecall import worker as worker_module
from myrecall.models import TaskRun, WorkerHeartbeat, WorkerStopped
from myrecall.selectors import pid_space, process_start
from myrecall.services import tasks_abandoned_sweep, worker_beat
from myrecall.worker_hooks import abandoned_hooks

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def limits(settings):
    settings.WORKER_GRACE_S = 60
    settings.TASK_MAX_ATTEMPTS = 3


def _pending_frame(window_name: str = "notes.md") -> Frame:
    return Frame.objects.create(
        timestamp=timezone.now(), app_name="Editor", window_name=window_name, image_path="frames/x.webp",
        width=800, height=600, image_bytes=1000,
    )


def _running(frame: Frame, *worker_ids: str) -> DBTaskResult:
    """The frame's OCR task, claimed by each of worker_ids in turn (the last one holds it)."""
    row = DBTaskResult.objects.get(id=frame_ocr.enqueue(frame.id).id)
    for worker_id in worker_ids:
        row.claim(worker_id)
    return row


ME = os.getpid()
UNKNOWN = object()


def _heartbeat(worker_id: str, *, space: str = "", pid: int = ME, started=UNKNOWN, age_s: float = 0) -> None:
    """A worker's row; by default this very process, in this pid space."""
    at = timezone.now() - timedelta(seconds=age_s)
    WorkerHeartbeat.objects.create(
        worker_id=worker_id, hostname=socket.gethostname(), pid=pid, pid_space=space or pid_space(),
        pid_started=process_start(pid) if started is UNKNOWN else started, started_at=at, beat_at=at,
    )


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _status(row: DBTaskResult) -> str:
    row.refresh_from_db()
    return row.status


@pytest.mark.parametrize(
    "heartbeat",
    [
        {"age_s": 50},
        # Its beats stopped (a suspended laptop, a database locked for minutes), but its process lives.
        {"age_s": 3600},
        # Another machine, or a container with its own pids: a pid unknown here says nothing.
        {"age_s": 50, "space": "another-machine", "pid": "dead", "started": 12345},
    ],
    ids=["beating", "late beats, live process here", "beating elsewhere"],
)
def test_a_live_workers_task_is_left_alone_however_long_it_runs(heartbeat):
    row = _running(_pending_frame(), "alive")
    DBTaskResult.objects.update(started_at=timezone.now() - timedelta(hours=3))
    _heartbeat("alive", **_with_dead_pid(heartbeat))

    assert tasks_abandoned_sweep().requeued == 0
    assert _status(row) == "RUNNING"
    assert WorkerHeartbeat.objects.count() == 1


@pytest.mark.parametrize(
    "heartbeat",
    [
        {"pid": "dead"},  # fresh, but its process here is gone: no need to wait the grace
        {"started": 1},  # its pid now names another process
        {"age_s": 61, "space": "another-machine"},
        {"age_s": 61, "started": None},  # no /proc to ask: the heartbeat decides
        None,  # never registered, or already cleaned up
    ],
    ids=["process gone", "pid reused", "silent past the grace elsewhere", "silent past the grace, no /proc", "no heartbeat"],
)
def test_a_dead_workers_task_goes_back_to_the_queue(heartbeat):
    row = _running(_pending_frame(), "gone")
    if heartbeat is not None:
        _heartbeat("gone", **_with_dead_pid(heartbeat))

    swept = tasks_abandoned_sweep()

    assert (swept.requeued, swept.failed) == (1, 0)
    assert _status(row) == "READY"
    assert row.worker_ids == ["gone"]  # the attempt is remembered
    assert not WorkerHeartbeat.objects.exists()  # the dead worker is forgotten
    assert DBTaskResult.objects.ready().filter(id=row.id).exists()  # a worker can take it now


def _with_dead_pid(heartbeat: dict) -> dict:
    return {**heartbeat, "pid": _dead_pid()} if heartbeat.get("pid") == "dead" else heartbeat


def test_a_task_whose_workers_died_too_often_fails_and_its_frame_with_it(api):
    frame = _pending_frame(window_name="quarterly-plan.md")
    row = _running(frame, "w1", "w2", "w3")

    swept = tasks_abandoned_sweep()

    assert (swept.requeued, swept.failed) == (0, 1)
    row.refresh_from_db()
    assert row.status == "FAILED"
    assert row.exception_class_path == "myrecall.models.WorkerLost"
    assert "stopped 3 times (w1, w2, w3)" in row.traceback
    frame.refresh_from_db()
    assert (frame.ocr_status, frame.ocr_error) == (OcrStatus.FAILED, "the worker stopped during OCR 3 times")
    found = api.get("/api/v1/search", {"q": "quarterly", "start_time": timezone.now().timestamp() - 60, "mode": "keyword"})
    assert [hit["content"]["frame_id"] for hit in found.json()["data"]] == [frame.id]  # findable by its window title
    assert tasks_abandoned_sweep().failed == 0  # told once


def test_a_frame_read_before_its_worker_died_is_not_failed():
    frame = _pending_frame()
    row = _running(frame, "w1", "w2", "w3")
    Frame.objects.filter(id=frame.id).update(ocr_status=OcrStatus.DONE)  # committed, then the kill

    tasks_abandoned_sweep()

    assert _status(row) == "FAILED"
    frame.refresh_from_db()
    assert (frame.ocr_status, frame.ocr_error) == (OcrStatus.DONE, "")


def test_a_broken_hook_does_not_keep_the_task_running(monkeypatch):
    def broken(frame_id, *, attempts):
        raise RuntimeError("bug in the hook")

    monkeypatch.setitem(abandoned_hooks, frame_ocr.module_path, broken)
    row = _running(_pending_frame(), "w1", "w2", "w3")

    assert tasks_abandoned_sweep().failed == 1
    assert _status(row) == "FAILED"


def test_an_outcome_is_recorded_only_while_the_claim_holds():
    row = _running(_pending_frame(), "slow")
    run = TaskRun.objects.get(id=row.id)
    # Meanwhile the row was given back and claimed by another worker.
    DBTaskResult.objects.filter(id=row.id).update(status="READY")
    DBTaskResult.objects.get(id=row.id).claim("fast")

    run.set_successful("done")

    row.refresh_from_db()
    assert (row.status, row.worker_ids) == ("RUNNING", ["slow", "fast"])


def test_a_task_interrupted_by_a_stop_goes_back_to_the_queue_uncounted():
    row = _running(_pending_frame(), "earlier", "stopping")

    TaskRun.objects.get(id=row.id).set_failed(WorkerStopped("SIGTERM"))

    row.refresh_from_db()
    assert (row.status, row.worker_ids) == ("READY", ["earlier"])


def test_a_beat_registers_the_worker_again_after_a_sweep_removed_it():
    worker_beat(worker_id="me")
    first = WorkerHeartbeat.objects.get()
    WorkerHeartbeat.objects.all().delete()

    worker_beat(worker_id="me", swept=True)

    again = WorkerHeartbeat.objects.get()
    assert (again.worker_id, again.hostname, again.pid, again.pid_space, again.pid_started) == (
        "me", socket.gethostname(), ME, pid_space(), process_start(ME)
    )
    assert again.swept_at is not None and again.beat_at >= first.beat_at


def _priority(task_id: str) -> int:
    return DBTaskResult.objects.get(id=task_id).priority


def test_a_level_that_waited_past_its_turn_goes_to_the_front_and_the_top_level_stays(settings):
    def queued(priority: int) -> str:
        return frame_ocr.using(priority=priority).enqueue(_pending_frame().id).id

    live, backlog_first, backlog_next, overtaken = (
        queued(priorities.OCR_LIVE), queued(priorities.BACKLOG), queued(priorities.BACKLOG), queued(priorities.OCR_OVERTAKEN)
    )
    turns = worker_module.Turns()
    settings.TASK_TURN_S = 3600
    turns.give()  # seen waiting now: not yet their turn
    assert [_priority(t) for t in (live, backlog_first, backlog_next, overtaken)] == [20, 0, 0, 5]

    settings.TASK_TURN_S = 0
    turns.give()
    # The first of each lower level goes to the front; the live level is taken next anyway.
    assert [_priority(t) for t in (live, backlog_first, backlog_next, overtaken)] == [20, 100, 0, 100]
    claimed = []
    while (task := DBTaskResult.objects.ready().get_locked()) is not None:
        task.claim("w")
        claimed.append(str(task.id))
    assert claimed == [backlog_first, overtaken, live, backlog_next]


def test_while_live_frames_come_faster_than_they_are_read_the_backlog_still_drains(settings, monkeypatch):
    """A live frame arrives during every task, so the live level never empties; each backlog task
    is still taken, in order, one TASK_TURN_S of live work after the one before (2.5 s tasks)."""
    clock = [0.0]
    monkeypatch.setattr(worker_module.time, "monotonic", lambda: clock[0])
    settings.TASK_TURN_S = 30
    backlog = [frame_ocr.enqueue(_pending_frame().id).id for _ in range(3)]
    turns = worker_module.Turns()
    taken = []
    frame_ocr.using(priority=priorities.OCR_LIVE).enqueue(_pending_frame().id)
    for _ in range(60):
        task = DBTaskResult.objects.ready().get_locked()
        task.claim("w")
        turns.taken(task.priority)
        frame_ocr.using(priority=priorities.OCR_LIVE).enqueue(_pending_frame().id)  # arrives while it runs
        clock[0] += 2.5
        taken.append(str(task.id))
        turns.give()
    at = [taken.index(task_id) for task_id in backlog]
    per_turn = settings.TASK_TURN_S / 2.5
    assert at[0] >= per_turn and at == sorted(at)
    assert all(later - earlier <= per_turn + 1 for earlier, later in zip(at, at[1:]))
