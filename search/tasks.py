import logging
import threading

from django.conf import settings
from django_tasks import task

from myrecall import priorities
from search.embeddings import EmbeddingError, embedder_warm_up
from search.semantic import judging_warm_up, vectors_warm
from search.services import (
    EMBED_BATCH_FRAMES_WORKER,
    frames_vectors_requeue,
    vectors_embed_enqueue,
    vectors_embed_next,
    vectors_migration_resume,
)
from search.status import vectors_migration, vectors_migration_line
from search.vectors import VectorError

logger = logging.getLogger(__name__)

# How long a failing embedder or vector index is left alone before the frames are tried again.
RETRY_AFTER_S = 30


@task(queue_name="embed")
def vectors_embed() -> int:
    """Embed a batch of the newest frames owed to the vector index, or when none is, a batch of
    the move to a newly configured embedder; queue the next batch while some are left, with the
    backlog (a burst that outran the worker, a restore, the move: new text raises it again).
    When the embedder or the index fails, the frames stay as they were and are tried again later."""
    try:
        written, more = vectors_embed_next(limit=EMBED_BATCH_FRAMES_WORKER)
    except (EmbeddingError, VectorError) as exc:
        logger.warning("Embedding failed, trying again in %s s: %s", RETRY_AFTER_S, exc)
        vectors_embed_enqueue(delay_s=RETRY_AFTER_S)
        return 0
    if more:
        vectors_embed_enqueue(priority=priorities.BACKLOG)
    return written


def vectors_embed_abandoned(*, attempts: int) -> None:
    """vectors_embed's abandoned-task hook: its workers died on it; the next task fails the frames
    that keep killing them (their claims count) and embeds the rest."""
    vectors_embed_enqueue()


def vectors_lost_requeue() -> str | None:
    """Worker start-up: an embedding task for frames owed to the vector index whose task was lost."""
    if pending := frames_vectors_requeue():
        return f"{pending} frame(s) wait for the vector index; embedding them"
    return None


def vectors_migration_start() -> str | None:
    """Worker start-up: go on moving search by meaning to the embedder configured now, when
    frames have only another model's vectors (after an upgrade changed the default, or the model
    was changed), or drop the other model's leftover collections."""
    try:
        moving = vectors_migration_resume()
    except VectorError as exc:
        return f"the vectors of an earlier embedding model are not dropped yet: {exc}"
    migration = vectors_migration() if moving else None
    return vectors_migration_line(migration) if migration else None


def embedder_ready_line() -> str:
    """Worker start-up: load the embedding model before the first frame, and what embedding a
    frame reads besides it (search.semantic.judging_warm_up: the relevance records and the second
    model's reading are written with each frame's vectors)."""
    line = embedder_warm_up()
    if settings.WARM_UP:  # else when the first frame's vectors are written
        try:
            judging_warm_up()
        except EmbeddingError:
            pass  # the line above says the embedder is not ready; the first frame tries again
    return line


def vectors_warm_report() -> None:
    """Load the recent days of the vector index and log how many it loaded."""
    try:
        count = vectors_warm()
    except (EmbeddingError, VectorError) as exc:
        logger.info("The vector index was not warmed up: %s", exc)
        return
    if count:
        logger.info("Vector index: the %s most recent day(s) with vectors are loaded", count)
    else:
        logger.info("Vector index: no day has vectors yet, nothing to load")


def vectors_warm_in_background() -> None:
    """Web start-up: warm the vector index for recent days without delaying the server."""
    threading.Thread(target=vectors_warm_report, name="vectors-warm", daemon=True).start()
