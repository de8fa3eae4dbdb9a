"""Writes to the keyword index."""

from django.db import connection

from frames.models import Frame, OcrResult
from search.fts import TABLE, fts_prepare, rowid_for


def frame_index(*, frame: Frame) -> None:
    """(Re)write a frame's entry in the keyword index from its OCR text and metadata."""
    text = OcrResult.objects.filter(frame=frame).values_list("text", flat=True).first() or ""
    rowid = rowid_for(frame.timestamp.timestamp(), frame.id)
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {TABLE} WHERE rowid = %s", [rowid])
        cursor.execute(
            f"INSERT INTO {TABLE} (rowid, text, app_name, window_name, browser_url, frame_id) "
            "VALUES (%s, %s, %s, %s, %s, %s)",
            [
                rowid,
                fts_prepare(text),
                fts_prepare(frame.app_name),
                fts_prepare(frame.window_name),
                fts_prepare(frame.browser_url),
                frame.id,
            ],
        )


def frame_unindex(*, frame: Frame) -> None:
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {TABLE} WHERE rowid = %s", [rowid_for(frame.timestamp.timestamp(), frame.id)])


def frame_index_on_text_ready(sender, *, frame: Frame, **kwargs) -> None:
    frame_index(frame=frame)
