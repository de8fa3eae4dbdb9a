"""A task backend for tests of what OCR and keyword search do: every task runs in-process at
enqueue time, as with django_tasks' ImmediateBackend, but those of the embed queue (search by
meaning) are not run, as on a server whose worker has not come to them yet: their frames stay
owed to the vector index. The embedding model costs about a fifth of such a test's time."""

from django_tasks.backends.immediate import ImmediateBackend
from django_tasks.base import TaskResult, TaskResultStatus
from django_tasks.utils import get_random_id

EMBED_QUEUE = "embed"  # search.tasks.vectors_embed's


class ImmediateBackendButEmbedding(ImmediateBackend):
    def enqueue(self, task, args, kwargs):
        if task.queue_name != EMBED_QUEUE:
            return super().enqueue(task, args, kwargs)
        self.validate_task(task)
        return TaskResult(
            task=task, id=get_random_id(), status=TaskResultStatus.READY, enqueued_at=None, started_at=None,
            last_attempted_at=None, finished_at=None, args=args, kwargs=kwargs, backend=self.alias,
            errors=[], worker_ids=[],
        )
