import logging
import threading

from django_tasks import task

from myrecall import priorities
from search.embeddings import EmbeddingError, embedder_warm_up
from search.semantic import vectors_warm
from search.services import EMBED_BATCH_FRAMES_WORKER, frames_vectors_requeue, vectors_embed_enqueue, vectors_embed_pending
from search.vectors import VectorError

logger = logging.getLogger(__name__)

# How long a failing embedder or vector index is left alone before the frames are tried again.
RETRY_AFTER_S = 30


@task(queue_name="embed")
def vectors_embed() -> int:
    """Embed a batch of the newest frames owed to the vector index; queue the next batch while
    some are left, with the backlog (a burst that outran the worker, a restore: new text raises
    it again). When the embedder or the index fails, the frames stay owed and are tried again later."""
    try:
        written, pending = vectors_embed_pending(limit=EMBED_BATCH_FRAMES_WORKER, newest_first=True)
    except (EmbeddingError, VectorError) as exc:
        logger.warning("Embedding failed, trying again in %s s: %s", RETRY_AFTER_S, exc)
        vectors_embed_enqueue(delay_s=RETRY_AFTER_S)
        return 0
    if pending:
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


def embedder_ready_line() -> str:
    """Worker start-up: load the embedding model before the first frame."""
    return embedder_warm_up()


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
