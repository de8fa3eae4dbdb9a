"""How far the indexes are: what the status API, the worker's start and the timeline say.

Exports:
- index_status(): what is indexed and what is not yet (GET /api/v1/status).
- index_backlog(): the frames each index waits for, and the longest wait.
- index_lag_notice(), LAG_NOTICE_S: the timeline's line when frames wait long to be searchable.
- index_layout_note(), vectors_note(): the worker's start lines (old keyword index layout,
  frames without vectors).
- vectors_migration(), vectors_migration_line(), vectors_migration_notice(): how far the move of
  search by meaning to the embedder configured now is (the status API, the worker, the timeline).
- vectors_unindexed_count(), vectors_other_model_count(): those frames, counted.
- index_periods(): the keyword index's periods in a range (what `reindex --fts` goes through).
"""

import time
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

from django.db import connection
from django.db.models import Count, Min
from django.utils import timezone

from frames.models import Frame, OcrStatus
from frames.selectors import devices_seen
from myrecall.space import Part, space_summary, tree_bytes
from myrecall.timezones import duration_short, machine_timezone
from search.embeddings import embedder_info, embedder_ready
from search.keyword_base import period_bounds_s, period_of, time_ms
from search.keyword_index import keyword_index
from search.semantic import vectors_lost
from search.vectors import VectorError, backend_describe, vectors_count, vectors_dir, vectors_gone, vectors_health

def index_periods(*, start_time: float | None = None, end_time: float | None = None) -> list[int]:
    """The periods of the keyword index that overlap [start_time, end_time] and have frames or
    a partition, oldest first: what a rebuild of that range goes through."""
    frames = Frame.objects.all()
    if start_time is not None:
        frames = frames.filter(timestamp__gte=datetime.fromtimestamp(start_time, tz=dt_timezone.utc))
    if end_time is not None:
        frames = frames.filter(timestamp__lte=datetime.fromtimestamp(end_time, tz=dt_timezone.utc))
    periods: set[int] = set()
    first = frames.order_by("timestamp").values_list("timestamp", flat=True).first()
    last = frames.order_by("-timestamp").values_list("timestamp", flat=True).first()
    if first is not None:
        for period in range(period_of(time_ms(first.timestamp())), period_of(time_ms(last.timestamp())) + 1):
            start_s, end_s = period_bounds_s(period)
            if frames.filter(
                timestamp__gte=datetime.fromtimestamp(start_s, tz=dt_timezone.utc),
                timestamp__lt=datetime.fromtimestamp(end_s, tz=dt_timezone.utc),
            ).exists():
                periods.add(period)
    with connection.cursor() as cursor:
        periods |= set(keyword_index().periods_in(cursor, start_time, end_time))
    return sorted(periods)


def index_layout_note() -> str | None:
    """A line for the worker's start when weeks of the keyword index predate its current layout."""
    with connection.cursor() as cursor:
        outdated = keyword_index().periods_outdated(cursor)
    if not outdated:
        return None
    return (
        f"the keyword index has {len(outdated)} week(s) in an older layout (words inside compound tokens not "
        "found, a second copy of the text kept, or a larger index): the worker rebuilds them in the background, newest first, "
        "and `manage.py compact` does it now (searches keep working meanwhile)"
    )


def keyword_layout_outdated() -> bool:
    with connection.cursor() as cursor:
        return bool(keyword_index().periods_outdated(cursor))


def keyword_layout_outdated_frames() -> int:
    """Frames in the weeks of the keyword index still in an older layout (an upper bound on what
    their rebuild has left)."""
    with connection.cursor() as cursor:
        periods = keyword_index().periods_outdated(cursor)
    total = 0
    for period in periods:
        start_s, end_s = period_bounds_s(period)
        total += Frame.objects.filter(
            timestamp__gte=datetime.fromtimestamp(start_s, tz=dt_timezone.utc),
            timestamp__lt=datetime.fromtimestamp(end_s, tz=dt_timezone.utc),
        ).count()
    return total


def _oldest(frames) -> dict | None:
    first = frames.order_by("timestamp", "id").values("id", "timestamp").first()
    if first is None:
        return None
    return {"frame_id": first["id"], "timestamp": first["timestamp"], "lag_s": round(time.time() - first["timestamp"].timestamp(), 1)}


def vectors_unindexed_count() -> int:
    """Frames whose OCR is over but that the vector index was never asked for (they predate it):
    `manage.py reindex --vectors` embeds them."""
    from search.models import FrameVectors

    return (
        Frame.objects.filter(ocr_status__in=[OcrStatus.DONE, OcrStatus.FAILED])
        .exclude(id__in=FrameVectors.objects.values("frame_id"))
        .count()
    )


def vectors_other_model_count() -> int:
    """Frames whose vectors were made by another model than the one configured now (EMBEDDINGS_MODEL
    or the endpoint changed, or an upgrade changed the default): search by meaning does not see
    them until the worker has moved them to this one (search.services.vectors_migrate_batch)."""
    from search.models import FrameVectors, VectorStatus

    return FrameVectors.objects.filter(status=VectorStatus.DONE).exclude(embedder=embedder_info().key).count()


def vectors_note() -> str | None:
    """A line for the worker's start when frames predate the vector index."""
    if missing := vectors_unindexed_count():
        return f"{missing} frame(s) predate the vector index and are not searchable by meaning: run `manage.py reindex --vectors`"
    return None


def vectors_migration(*, other_model: int | None = None, done: int | None = None) -> dict | None:
    """How far the move of search by meaning to the embedder configured now is, while frames
    have vectors of another model only: {"model", "frames_done", "frames_total"} (done: frames
    with vectors of this model; total: frames with vectors of any). None when nothing is left
    to move. The counts can be passed when the caller has them."""
    from search.models import FrameVectors, VectorStatus

    other_model = vectors_other_model_count() if other_model is None else other_model
    if not other_model:
        return None
    done = FrameVectors.objects.filter(status=VectorStatus.DONE).count() if done is None else done
    return {"model": embedder_info().model, "frames_done": done - other_model, "frames_total": done}


def vectors_migration_line(migration: dict) -> str:
    return (
        f"Search by meaning is being rebuilt for {migration['model']}: {migration['frames_done']:,} of "
        f"{migration['frames_total']:,} frames done (newest first); keyword search finds everything meanwhile."
    )


def vectors_migration_notice() -> str | None:
    """The timeline's line while search by meaning moves to the embedder configured now."""
    migration = vectors_migration()
    return vectors_migration_line(migration) if migration else None


def _waited_s(since: datetime | None) -> float | None:
    return None if since is None else round(max((timezone.now() - since).total_seconds(), 0.0), 1)


def index_backlog() -> dict[str, dict]:
    """How far behind each index is: the frames waiting for it, and how long the one that has
    waited longest has waited (since it arrived, or since a rebuild asked for it again). The
    keyword index waits for OCR (its row is written with the text); the vector index waits for
    OCR, then for embedding."""
    from search.models import FrameVectors, VectorStatus

    unread = Frame.objects.filter(ocr_status=OcrStatus.PENDING)
    unread_since = unread.aggregate(since=Min("created_at"))["since"]
    owed = FrameVectors.objects.filter(status=VectorStatus.PENDING)
    owed_since = owed.aggregate(since=Min("updated_at"))["since"]
    unread_count = unread.count()
    return {
        "keyword": {"frames": unread_count, "oldest_wait_s": _waited_s(unread_since)},
        "semantic": {
            "frames": unread_count + owed.count(),
            "oldest_wait_s": _waited_s(min((at for at in (unread_since, owed_since) if at), default=None)),
        },
    }


def vectors_space(zone) -> Part:
    """The vector index's files in the data dir (a Chroma server of CHROMA_URL keeps its own)."""
    return Part(bytes=tree_bytes(vectors_dir()))


def index_status() -> dict:
    """What is indexed and what is not yet, for GET /api/v1/status: frames by OCR state; keyword
    index rows, the frames waiting for it (index_backlog) and the oldest frame by capture time
    not yet searchable by its words; vectors, the frames waiting for them and the oldest not yet
    searchable by meaning; how far the move to a newly configured embedder is; the embedder, the
    vector backend and whether it answers; the devices heard from in the last day, with their
    last frame and their capture client's last report; what the memory takes on disk."""
    from search.models import FrameVectors, VectorStatus

    by_state = dict(Frame.objects.values_list("ocr_status").annotate(n=Count("id")).values_list("ocr_status", "n"))
    with connection.cursor() as cursor:
        rows = keyword_index().rows_count(cursor)
        partitions = keyword_index().periods_in(cursor, None, None)
    vector_states = dict(FrameVectors.objects.values_list("status").annotate(n=Count("frame")).values_list("status", "n"))
    info = embedder_info()
    other_model = vectors_other_model_count()
    healthy, reason = vectors_health()
    vectors = None
    if healthy:
        try:
            vectors = vectors_count(embedder_key=info.key)
            if vectors_lost(info.key):
                raise vectors_gone()
        except VectorError as exc:
            healthy, reason = False, str(exc)
    pending_ocr = Frame.objects.filter(ocr_status=OcrStatus.PENDING)
    pending_vectors = Frame.objects.filter(
        id__in=FrameVectors.objects.filter(status=VectorStatus.PENDING).values("frame_id")
    ) | pending_ocr
    backlog = index_backlog()
    return {
        "frames": {"total": sum(by_state.values()), "ocr": {state: by_state.get(state, 0) for state in OcrStatus.values}},
        "keyword": {
            "rows": rows,
            "partitions": len(partitions),
            "waiting": backlog["keyword"],
            "oldest_unsearchable": _oldest(pending_ocr),
        },
        "semantic": {
            "vectors": vectors,
            "waiting": backlog["semantic"],
            "frames": {
                **{state: vector_states.get(state, 0) for state in VectorStatus.values},
                "never": vectors_unindexed_count(),
                # Of the done: with vectors of the model configured now, and of another (still to move).
                "of_model": vector_states.get(VectorStatus.DONE, 0) - other_model,
                "other_model": other_model,
            },
            # While frames move to the model configured now (see vectors_migration); else null.
            "migration": vectors_migration(other_model=other_model, done=vector_states.get(VectorStatus.DONE, 0)),
            "oldest_unsearchable": _oldest(pending_vectors),
            "embedder": {"model": info.model, "endpoint": info.endpoint, "dimensions": info.dimensions, "loaded": embedder_ready()},
            "backend": backend_describe(),
            "healthy": healthy,
            "problem": None if healthy else reason,
        },
        "devices": [
            {"device_name": device.name, "last_frame": device.last_frame, "last_report": device.report}
            for device in devices_seen(since=timezone.now() - timedelta(days=1))
        ],
        "storage": space_summary(zone=machine_timezone()),
    }


# Frames waiting this long (seconds) for an index are worth a line on the timeline.
LAG_NOTICE_S = 60


def index_lag_notice() -> str | None:
    """A line for the timeline when frames have waited long to become searchable (how many, for
    each index, and the longest wait), or search by meaning is down; None when all is well."""
    parts = []
    backlog = index_backlog()
    keyword, semantic = backlog["keyword"], backlog["semantic"]
    if (keyword["oldest_wait_s"] or 0) > LAG_NOTICE_S:
        parts.append(
            f"{keyword['frames']} frame(s) wait for text recognition and keyword search, the longest for "
            f"{duration_short(keyword['oldest_wait_s'])} (what you capture now is read first)"
        )
    if (semantic["oldest_wait_s"] or 0) > LAG_NOTICE_S:
        parts.append(
            f"{semantic['frames']} frame(s) are not yet searchable by meaning, the longest waiting for {duration_short(semantic['oldest_wait_s'])}"
        )
    healthy, reason = vectors_health()
    if not healthy:
        parts.append(f"search by meaning is unavailable: {reason}")
    return ("Indexing is behind: " + "; ".join(parts) + ".") if parts else None
