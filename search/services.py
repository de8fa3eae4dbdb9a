"""Writes to the keyword index and the vector index."""

import logging
import math
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from frames.models import Frame, OcrResult, OcrStatus
from myrecall import priorities
from search import crosscheck
from search import vectors as vectors_store
from search.embeddings import EmbeddingError, embed_texts, embedder_info
from search.models import FrameVectors, VectorStatus
from search.passages import frame_passages, spans_pack
from search.relevance import chunk_stats
from search.keyword_base import index_row, period_bounds_s, period_of, rebuild_after, rebuild_mark, time_ms
from search.keyword_index import keyword_index

logger = logging.getLogger(__name__)


def frame_index(*, frame: Frame) -> None:
    """(Re)write a frame's entry in the keyword index (the partition of its time) from its
    OCR text and metadata."""
    text = OcrResult.objects.filter(frame=frame).values_list("text", flat=True).first() or ""
    row = index_row(
        timestamp_s=frame.timestamp.timestamp(),
        frame_id=frame.id,
        text=text,
        app_name=frame.app_name,
        window_name=frame.window_name,
        browser_url=frame.browser_url,
    )
    # One write transaction: the free rowid slots it reads are still free when it writes.
    index = keyword_index()
    with transaction.atomic(), connection.cursor() as cursor:
        index.row_delete(cursor, timestamp_s=frame.timestamp.timestamp(), frame_id=frame.id)
        index.rows_write(cursor, [row])


def frame_unindex(*, frame: Frame) -> None:
    with transaction.atomic(), connection.cursor() as cursor:
        keyword_index().row_delete(cursor, timestamp_s=frame.timestamp.timestamp(), frame_id=frame.id)


def frame_index_on_text_ready(sender, *, frame: Frame, **kwargs) -> None:
    frame_index(frame=frame)
    frame_vectors_queue(frame=frame)


def frames_reindex_on_context_changed(sender, *, frame_ids: list[int], **kwargs) -> None:
    """frames_context_changed: rewrite the keyword index rows of those frames already indexed (their
    OCR is over; the others are indexed with the new context when it is). The vector index keeps no
    URL, so it owes nothing."""
    for frame in Frame.objects.filter(id__in=frame_ids, ocr_status__in=[OcrStatus.DONE, OcrStatus.FAILED]):
        frame_index(frame=frame)


def vectors_owed_on_restore(sender, **kwargs) -> None:
    """memory_restored: an imported memory comes without its vector index; every frame is owed
    to it again (the worker embeds them in the background, keyword search answers meanwhile)."""
    vectors_rebuild_mark()


def indexes_build_on_moved(sender, *, source_dir, progress=None, **kwargs) -> dict:
    """memory_moved (the frames of an embedded data dir were copied into this database): the
    keyword index is built for every frame (the old one is SQLite's own), week by week, each
    resumable; the vector index is copied from the old data dir's files, or, when they are not
    there, every frame is owed to it again (the worker embeds them; keyword search answers
    meanwhile)."""
    from search.status import index_periods

    periods = index_periods()
    left = {period: fts_rebuild_begin(period=period) for period in periods}
    bar = progress("build the keyword index", sum(left.values())) if progress and left else None
    indexed = 0
    for period in periods:
        while count := fts_rebuild_batch(period=period):
            indexed += count
            if bar is not None:
                bar.update(count)
        fts_rebuild_finish(period=period)
    if bar is not None:
        bar.close()
    copied = vectors_store.vectors_copy_from(source_dir, progress=progress)
    owed = 0
    if not copied and FrameVectors.objects.filter(status=VectorStatus.DONE).exists():
        owed = vectors_rebuild_mark()
    return {"keyword_index_frames": indexed, "vectors_copied": copied, "frames_owed_to_vectors": owed}


def frames_unindex_on_deleting(sender, *, frames, **kwargs) -> dict:
    """frames_deleting: remove the frames' keyword index rows, and the words of the vocabulary
    that only they held, in the transaction that deletes them."""
    keys = [(frame.timestamp.timestamp(), frame.id) for frame in frames]
    # Their rows as indexed (the frames' rows are still there): the words a contentless
    # partition cannot give back.
    rows = [
        index_row(
            timestamp_s=moment.timestamp(), frame_id=frame_id, text=text or "",
            app_name=app_name, window_name=window_name, browser_url=browser_url,
        )
        for frame_id, moment, app_name, window_name, browser_url, text in Frame.objects.filter(
            id__in=[frame.id for frame in frames]
        ).values_list("id", "timestamp", "app_name", "window_name", "browser_url", "ocr__text")
    ]
    index = keyword_index()
    with connection.cursor() as cursor:
        removed, terms = index.rows_delete(cursor, keys, rows=rows)
        forgotten = index.vocab_forget(cursor, terms, first=sorted({period_of(time_ms(ts)) for ts, _ in keys}))
    return {"fts_rows": removed, "vocabulary_words": forgotten}


def keyword_index_erase_on_erasing(sender, *, start, end, removed, **kwargs) -> None:
    """frames_erasing: merge the segments of the keyword partitions of the deleted range (and the
    vocabulary's trigram index when words left it), so that no segment keeps a deleted frame's
    words; what the merges free is zeroed (secure_delete)."""
    with connection.cursor() as cursor:
        keyword_index().range_scrub(
            cursor, start.timestamp() if start else None, end.timestamp(), vocabulary=bool(removed.get("vocabulary_words"))
        )


def frames_vectors_on_deleted(sender, *, frames, **kwargs) -> dict:
    """frames_deleted: remove the frames' entries from the vector index (every embedder's), day
    by day. Raises VectorError when the index cannot be reached: the deletion keeps it owed."""
    by_day: dict[int, list[int]] = {}
    for frame in frames:
        by_day.setdefault(vectors_store.day_of(frame.ts_ms), []).append(frame.id)
    removed = sum(vectors_store.frames_remove(day=day, frame_ids=ids) for day, ids in sorted(by_day.items()))
    return {"vectors": removed}


# Frames a rebuild batch reads and writes in one short write transaction: new frames wait at most that long.
REBUILD_BATCH = 1000


def _period_frames(period: int):
    """Frames of a period that the live path would have indexed (their OCR is over), in
    (timestamp, id) order. A millisecond of slack each side: the time in milliseconds decides the period."""
    start_s, end_s = period_bounds_s(period)
    return Frame.objects.filter(
        timestamp__gte=datetime.fromtimestamp(start_s - 0.002, tz=dt_timezone.utc),
        timestamp__lt=datetime.fromtimestamp(end_s + 0.002, tz=dt_timezone.utc),
        ocr_status__in=[OcrStatus.DONE, OcrStatus.FAILED],
    ).order_by("timestamp", "id")


def _rebuild_after(cursor, period: int) -> tuple[datetime, int] | None:
    """The (timestamp, id) of the last frame a rebuild of the period has indexed, if any."""
    after = rebuild_after(cursor, period)
    if after is None:
        return None
    after_ts, after_id = after
    moment = datetime.fromisoformat(after_ts)  # written naive in UTC before 2026-11-27, with its offset since
    return (moment.replace(tzinfo=dt_timezone.utc) if moment.tzinfo is None else moment.astimezone(dt_timezone.utc)), after_id


def _frames_after(frames, after: tuple[datetime, int] | None):
    if after is None:
        return frames
    moment, frame_id = after
    # timestamp >= first keeps the index range; the exclusion drops the frames already done at that instant.
    return frames.filter(timestamp__gte=moment).exclude(timestamp=moment, id__lte=frame_id)


def fts_vocab_reset() -> bool:
    """Empty the vocabulary before a rebuild of everything refills it, so that words of frames
    deleted since are gone; not while a rebuild is under way (its words so far would be lost)."""
    with transaction.atomic(), connection.cursor() as cursor:
        return keyword_index().vocab_reset(cursor)


def fts_rebuild_begin(*, period: int) -> int:
    """Start (or resume) rebuilding a period's keyword partition in the current layout beside
    the live one, which keeps answering searches; from now on new index rows go to both.
    Returns how many frames of the period are left to index."""
    with transaction.atomic(), connection.cursor() as cursor:
        keyword_index().rebuild_begin(cursor, period)
        after = _rebuild_after(cursor, period)
    return _frames_after(_period_frames(period), after).count()


def fts_rebuild_batch(*, period: int, size: int = REBUILD_BATCH) -> int:
    """Index the next frames of a period into its partition being rebuilt, in one transaction
    (so a frame OCR'd meanwhile is written after, or read fresh); returns how many were read,
    0 when the period is done."""
    with transaction.atomic(), connection.cursor() as cursor:
        frames = _frames_after(_period_frames(period), _rebuild_after(cursor, period))
        batch = list(
            frames.values_list("id", "timestamp", "app_name", "window_name", "browser_url", "ocr__text")[:size]
        )
        if not batch:
            return 0
        rows = []
        for frame_id, moment, app_name, window_name, browser_url, text in batch:
            if period_of(time_ms(moment.timestamp())) == period:
                rows.append(
                    index_row(
                        timestamp_s=moment.timestamp(),
                        frame_id=frame_id,
                        text=text or "",
                        app_name=app_name,
                        window_name=window_name,
                        browser_url=browser_url,
                    )
                )
        keyword_index().rebuild_write(cursor, period, rows)
        last_id, last_moment = batch[-1][0], batch[-1][1]
        rebuild_mark(cursor, period, last_moment.astimezone(dt_timezone.utc).isoformat(" "), last_id)
    return len(batch)


def fts_rebuild_finish(*, period: int) -> None:
    """Swap the rebuilt partition in for the live one (or drop both when the period has no
    frames left)."""
    with transaction.atomic(), connection.cursor() as cursor:
        keyword_index().rebuild_finish(cursor, period)


def keyword_layout_upgrade(limit: int) -> int:
    """A turn of moving the keyword index to its current layout (the compaction `manage.py
    compact` and the worker run): index up to `limit` frames of the newest week still in an older
    layout into its table being rebuilt, or swap that table in when the week is done. Returns how
    many frames (or 1 for a swap); 0 when every week is in the current layout."""
    index = keyword_index()
    with connection.cursor() as cursor:
        outdated = index.periods_outdated(cursor)
        if not outdated:
            return 0
        period = outdated[-1]
        under_way = index.rebuild_under_way(cursor, period)
    if not under_way:
        fts_rebuild_begin(period=period)
    count = fts_rebuild_batch(period=period, size=limit)
    if count:
        return count
    fts_rebuild_finish(period=period)
    return 1


# Vector index ---------------------------------------------------------------------------------

# Frames one embedding batch reads, embeds in one call and writes (a rebuild's batch).
EMBED_BATCH_FRAMES = 64
# The worker's batch: about a second and a half of embedding, so that the OCR of a live frame that
# arrives meanwhile never waits long behind it (the worker runs one task at a time).
EMBED_BATCH_FRAMES_WORKER = 8


def frame_vectors_queue(*, frame: Frame) -> None:
    """The frame's text changed: it owes the vector index new entries. Called inside the OCR
    transaction, so the debt lands with the text; the task is queued once that commits."""
    FrameVectors.objects.update_or_create(
        frame=frame, defaults={"status": VectorStatus.PENDING, "attempts": 0, "error": ""}
    )
    transaction.on_commit(vectors_embed_enqueue)


def vectors_embed_enqueue(*, delay_s: float = 0, priority: int = priorities.VECTORS) -> None:
    """Queue an embedding task (it takes the newest frames owed first) at this priority: new
    text goes after the OCR of live frames and before the backlog's. One already waiting is
    enough (it takes every frame owed in turn); it is raised to this priority if below."""
    from django_tasks_db.models import DBTaskResult

    from search.tasks import vectors_embed

    waiting = DBTaskResult.objects.filter(task_path=vectors_embed.module_path, status="READY")
    if waiting.exists():
        waiting.filter(priority__lt=priority).update(priority=priority)
        return
    task = vectors_embed.using(priority=priority)
    if delay_s and task.get_backend().supports_defer:
        task = task.using(run_after=timezone.now() + timedelta(seconds=delay_s))
    task.enqueue()


def frames_embed(*, frame_ids: list[int]) -> int:
    """Embed these frames' text and write it to the vector index, replacing what was there;
    returns how many frames were written. The texts of the whole batch go to the embedder in
    one call (it de-duplicates: consecutive screens repeat most lines). Raises EmbeddingError
    or VectorError; the frames then stay as they were."""
    frames = list(
        Frame.objects.filter(id__in=frame_ids).values_list(
            "id", "timestamp", "window_name", "focused", "ocr__text"
        )
    )
    if not frames:
        return 0
    info = embedder_info()
    key = info.key
    # The OCR lines' boxes: passages are cut where the screen's layout cuts (search.passages).
    boxes = {
        result.frame_id: result.lines
        for result in OcrResult.objects.filter(frame_id__in=[frame[0] for frame in frames]).only("frame_id", "text", "lines_packed", "lines_json")
    }
    cut = [
        frame_passages(window_name=window_name, text=text or "", lines=boxes.get(frame_id))
        for frame_id, _, window_name, _, text in frames
    ]
    pieces: list[list[str]] = [[passage.text for passage in passages] for passages in cut]
    flat = [piece for chunks in pieces for piece in chunks]
    vectors = embed_texts(flat) if flat else []
    # What search.relevance weighs each chunk by (its script, how near everyday questions are to it).
    records, at = [], 0
    for chunks in pieces:
        records.append(chunk_stats(chunks, vectors[at : at + len(chunks)]))
        at += len(chunks)
    by_day: dict[int, list[vectors_store.FrameEntry]] = {}
    at = 0
    for (frame_id, moment, *_), chunks in zip(frames, pieces):
        ts_ms = math.floor(moment.timestamp() * 1000)
        entry = vectors_store.FrameEntry(
            frame_id=frame_id,
            ts_ms=ts_ms,
            embeddings=vectors[at : at + len(chunks)],
        )
        at += len(chunks)
        by_day.setdefault(vectors_store.day_of(ts_ms), []).append(entry)
    for day, entries in by_day.items():
        vectors_store.day_write(embedder_key=key, day=day, entries=entries, model=info.model)
    # A frame deleted while it was embedded: its deletion may have cleared the index before this
    # wrote it, so its entries go again.
    alive = set(Frame.objects.filter(id__in=[frame[0] for frame in frames]).values_list("id", flat=True))
    for day, entries in by_day.items():
        if vanished := [entry.frame_id for entry in entries if entry.frame_id not in alive]:
            vectors_store.frames_remove(day=day, frame_ids=vanished)
    FrameVectors.objects.filter(frame_id__in=[frame[0] for frame in frames]).update(
        status=VectorStatus.DONE, embedder=key, attempts=0, error=""
    )
    second = _crosscheck_read(pieces)
    for frame_id, passages, record, reading in zip([frame[0] for frame in frames], cut, records, second):
        FrameVectors.objects.filter(frame_id=frame_id).update(
            chunks=len(passages), relevance=record, passages=spans_pack(passages), crosscheck=reading
        )
    return len(frames)


def _crosscheck_read(pieces: list[list[str]]) -> list[bytes | None]:
    """The second model's reading of each frame's passages (search.crosscheck), each distinct
    passage read once (consecutive screens repeat most of theirs); None for every frame when that
    model fails: a search then reads those frames' passages itself."""
    distinct = list(dict.fromkeys(piece for chunks in pieces for piece in chunks))
    try:
        read = crosscheck.passages_read(distinct)
    except Exception:  # noqa: BLE001 - the second reading is worth having, not worth losing vectors over
        logger.exception("The second model could not read %d passages; searches will read them", len(distinct))
        return [None] * len(pieces)
    size = crosscheck.RECORD_BYTES
    at = {piece: read[i * size : (i + 1) * size] for i, piece in enumerate(distinct)}
    return [b"".join(at[piece] for piece in chunks) for chunks in pieces]


def vectors_embed_pending(*, limit: int | None = None, newest_first: bool = False) -> tuple[int, int]:
    """One batch of the frames owed to the vector index: (written, still pending). The worker
    takes the newest first (a new screen becomes searchable at once, even behind a rebuild);
    a rebuild takes the oldest first, so the two seldom take the same frames.

    Each claim counts an attempt, cleared when the batch is written or fails cleanly; a frame
    whose claims reach TASK_MAX_ATTEMPTS (its workers kept dying on it) fails with the reason,
    so one text that crashes the embedder cannot stall the others. An embedder or index that
    fails leaves the frames pending, with the error, for the next task."""
    batch = _vectors_claim(
        FrameVectors.objects.filter(status=VectorStatus.PENDING), limit=limit or EMBED_BATCH_FRAMES, newest_first=newest_first
    )
    if not batch:
        return 0, 0
    try:
        written = frames_embed(frame_ids=batch)
    except (EmbeddingError, vectors_store.VectorError) as exc:
        FrameVectors.objects.filter(frame_id__in=batch, status=VectorStatus.PENDING).update(attempts=0, error=str(exc)[:2000])
        raise
    # Frames deleted meanwhile have no row left to update; their claims go with them.
    return written, FrameVectors.objects.filter(status=VectorStatus.PENDING).count()


def _vectors_claim(rows, *, limit: int, newest_first: bool) -> list[int]:
    """Claim up to `limit` of these FrameVectors rows for embedding, counting an attempt on each;
    rows whose claims already reached TASK_MAX_ATTEMPTS fail instead. Returns the frame ids claimed."""
    with transaction.atomic():
        claimed = list(
            rows.select_for_update().order_by("-frame_id" if newest_first else "frame_id").values_list("frame_id", "attempts")[:limit]
        )
        doomed = [frame_id for frame_id, attempts in claimed if attempts >= settings.TASK_MAX_ATTEMPTS]
        if doomed:
            FrameVectors.objects.filter(frame_id__in=doomed).update(
                status=VectorStatus.FAILED, error=f"the worker stopped while embedding it {settings.TASK_MAX_ATTEMPTS} times"
            )
        batch = [frame_id for frame_id, attempts in claimed if attempts < settings.TASK_MAX_ATTEMPTS]
        FrameVectors.objects.filter(frame_id__in=batch).update(attempts=F("attempts") + 1)
    return batch


def _embedder_other(key: str) -> str | None:
    """An embedder other than `key` that frames still have their only vectors from, or None. Two
    seeks on the (status, embedder) index, however many frames there are."""
    done = FrameVectors.objects.filter(status=VectorStatus.DONE)
    below = done.filter(embedder__lt=key).order_by("-embedder").values_list("embedder", flat=True).first()
    if below is not None:
        return below
    return done.filter(embedder__gt=key).order_by("embedder").values_list("embedder", flat=True).first()


def vectors_migrate_batch(*, limit: int | None = None) -> tuple[int, bool]:
    """One batch of the move of search by meaning to the embedder configured now, after the model
    changed (EMBEDDINGS_MODEL, the endpoint, or an upgrade's new default): the newest frames whose
    only vectors another model wrote are embedded anew, so recent days are searchable by meaning
    first (keyword search finds every frame meanwhile). Returns (written, whether frames are left
    to move). Once none is left, every other model's collections are dropped. Claims count
    attempts as in vectors_embed_pending; an embedder or index that fails leaves the frames as
    they were and raises EmbeddingError or VectorError."""
    key = embedder_info().key
    other = _embedder_other(key)
    written = 0
    if other is not None:
        rows = FrameVectors.objects.filter(status=VectorStatus.DONE, embedder=other)
        batch = _vectors_claim(rows, limit=limit or EMBED_BATCH_FRAMES, newest_first=True)
        try:
            written = frames_embed(frame_ids=batch) if batch else 0
        except (EmbeddingError, vectors_store.VectorError) as exc:
            rows.filter(frame_id__in=batch).update(attempts=0, error=str(exc)[:2000])
            raise
        other = _embedder_other(key)
    if other is None:
        vectors_store.embedders_drop(keep=key)
    return written, other is not None


def vectors_embed_next(*, limit: int) -> tuple[int, bool]:
    """The worker's batch: the newest frames owed to the vector index (new text) or, when none
    is owed, a batch of the move to the embedder configured now. Returns (written, whether
    either has frames left). Raises EmbeddingError or VectorError as those do."""
    written, pending = vectors_embed_pending(limit=limit, newest_first=True)
    if written or pending:
        return written, bool(pending) or _embedder_other(embedder_info().key) is not None
    return vectors_migrate_batch(limit=limit)


def vectors_migration_resume() -> bool:
    """Worker start-up: when frames have only another model's vectors, queue their move to the
    embedder configured now (with the backlog: new frames go first), going on where a stopped
    worker left it; else drop what is left of other models' collections (a worker stopped
    between the last batch and the drop). Returns whether frames are left to move; raises
    VectorError when the index cannot be reached for the drop."""
    key = embedder_info().key
    if _embedder_other(key) is None:
        vectors_store.embedders_drop(keep=key)
        return False
    vectors_embed_enqueue(priority=priorities.BACKLOG)
    return True


def frames_vectors_requeue() -> int:
    """Worker start-up: queue an embedding task when frames are owed to the vector index and
    none is queued (a crash between a commit and its enqueue). Returns the frames owed."""
    pending = FrameVectors.objects.filter(status=VectorStatus.PENDING).count()
    if pending:
        vectors_embed_enqueue()
    return pending


def vectors_rebuild_mark(*, start_time: float | None = None, end_time: float | None = None) -> int:
    """Mark every frame of the range (whose OCR is over) as owed to the vector index, so a
    rebuild re-embeds it; frames without a row get one. Returns how many are owed."""
    frames = Frame.objects.filter(ocr_status__in=[OcrStatus.DONE, OcrStatus.FAILED])
    if start_time is not None:
        frames = frames.filter(timestamp__gte=datetime.fromtimestamp(start_time, tz=dt_timezone.utc))
    if end_time is not None:
        frames = frames.filter(timestamp__lte=datetime.fromtimestamp(end_time, tz=dt_timezone.utc))
    ids = list(frames.values_list("id", flat=True))
    for at in range(0, len(ids), 5000):
        chunk = ids[at : at + 5000]
        with transaction.atomic():
            have = set(FrameVectors.objects.filter(frame_id__in=chunk).values_list("frame_id", flat=True))
            FrameVectors.objects.bulk_create([FrameVectors(frame_id=frame_id) for frame_id in chunk if frame_id not in have])
            FrameVectors.objects.filter(frame_id__in=have).update(
                status=VectorStatus.PENDING, attempts=0, error="", updated_at=timezone.now()
            )
    return len(ids)
