"""Writes to the keyword index."""

from datetime import datetime
from datetime import timezone as dt_timezone

from django.db import connection, transaction

from frames.models import Frame, OcrResult, OcrStatus
from search.fts import (
    LAYOUT,
    REGISTRY,
    VOCAB,
    VOCAB_TRIGRAMS,
    build_rows_write,
    index_row,
    index_row_delete,
    index_rows_write,
    partition_create,
    partition_get,
    partition_of,
    partition_swap,
    period_bounds_s,
    rowid_for,
    table_create,
)


def frame_index(*, frame: Frame) -> None:
    """(Re)write a frame's entry in the keyword index (the partition of its time) from its
    OCR text and metadata."""
    text = OcrResult.objects.filter(frame=frame).values_list("text", flat=True).first() or ""
    rowid = rowid_for(frame.timestamp.timestamp(), frame.id)
    row = index_row(
        rowid=rowid,
        frame_id=frame.id,
        text=text,
        app_name=frame.app_name,
        window_name=frame.window_name,
        browser_url=frame.browser_url,
    )
    with connection.cursor() as cursor:
        index_row_delete(cursor, rowid)
        index_rows_write(cursor, [row])


def frame_unindex(*, frame: Frame) -> None:
    with connection.cursor() as cursor:
        index_row_delete(cursor, rowid_for(frame.timestamp.timestamp(), frame.id))


def frame_index_on_text_ready(sender, *, frame: Frame, **kwargs) -> None:
    frame_index(frame=frame)


# Frames a rebuild batch reads and writes in one short write transaction: new frames wait at most that long.
REBUILD_BATCH = 1000


def _period_frames(period: int):
    """Frames of a period that the live path would have indexed (their OCR is over), in
    (timestamp, id) order. A millisecond of slack each side: the rowid decides the period."""
    start_s, end_s = period_bounds_s(period)
    return Frame.objects.filter(
        timestamp__gte=datetime.fromtimestamp(start_s - 0.002, tz=dt_timezone.utc),
        timestamp__lt=datetime.fromtimestamp(end_s + 0.002, tz=dt_timezone.utc),
        ocr_status__in=[OcrStatus.DONE, OcrStatus.FAILED],
    ).order_by("timestamp", "id")


def _rebuild_after(cursor, period: int) -> tuple[datetime, int] | None:
    """The (timestamp, id) of the last frame a rebuild of the period has indexed, if any."""
    cursor.execute(f"SELECT build_after_ts, build_after_id FROM {REGISTRY} WHERE period = %s", [period])
    after_ts, after_id = cursor.fetchone()
    if after_ts is None:
        return None
    return datetime.fromisoformat(after_ts).replace(tzinfo=dt_timezone.utc), after_id


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
        cursor.execute(f"SELECT 1 FROM {REGISTRY} WHERE build_layout IS NOT NULL LIMIT 1")
        if cursor.fetchone():
            return False
        cursor.execute(f"DELETE FROM {VOCAB}")
        cursor.execute(f"INSERT INTO {VOCAB_TRIGRAMS} ({VOCAB_TRIGRAMS}) VALUES ('delete-all')")
    return True


def fts_rebuild_begin(*, period: int) -> int:
    """Start (or resume) rebuilding a period's keyword partition in the current layout beside
    the live one, which keeps answering searches; from now on new index rows go to both.
    Returns how many frames of the period are left to index."""
    with transaction.atomic(), connection.cursor() as cursor:
        partition = partition_get(cursor, period) or partition_create(cursor, period)
        if partition.build_layout != LAYOUT:
            cursor.execute(f"DROP TABLE IF EXISTS {partition.build_table}")
            table_create(cursor, partition.build_table, LAYOUT)
            cursor.execute(
                f"UPDATE {REGISTRY} SET build_layout = %s, build_after_ts = NULL, build_after_id = NULL WHERE period = %s",
                [LAYOUT, period],
            )
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
            rowid = rowid_for(moment.timestamp(), frame_id)
            if partition_of(rowid) == period:
                rows.append(
                    index_row(
                        rowid=rowid,
                        frame_id=frame_id,
                        text=text or "",
                        app_name=app_name,
                        window_name=window_name,
                        browser_url=browser_url,
                    )
                )
        partition = partition_get(cursor, period)
        build_rows_write(cursor, partition, rows)
        last_id, last_moment = batch[-1][0], batch[-1][1]
        cursor.execute(
            f"UPDATE {REGISTRY} SET build_after_ts = %s, build_after_id = %s WHERE period = %s",
            [connection.ops.adapt_datetimefield_value(last_moment), last_id, period],
        )
    return len(batch)


def fts_rebuild_finish(*, period: int) -> None:
    """Swap the rebuilt partition in for the live one (or drop both when the period has no
    frames left)."""
    with transaction.atomic(), connection.cursor() as cursor:
        partition_swap(cursor, period)
