"""Writes to the keyword index."""

from django.db import connection

from frames.models import Frame, OcrResult
from search.fts import fts_prepare, index_row_delete, index_rows_write, rowid_for


def frame_index(*, frame: Frame) -> None:
    """(Re)write a frame's entry in the keyword index (the partition of its time) from its
    OCR text and metadata."""
    text = OcrResult.objects.filter(frame=frame).values_list("text", flat=True).first() or ""
    rowid = rowid_for(frame.timestamp.timestamp(), frame.id)
    row = (
        rowid,
        fts_prepare(text),
        fts_prepare(frame.app_name),
        fts_prepare(frame.window_name),
        fts_prepare(frame.browser_url),
        frame.id,
    )
    with connection.cursor() as cursor:
        index_row_delete(cursor, rowid)
        index_rows_write(cursor, [row])


def frame_unindex(*, frame: Frame) -> None:
    with connection.cursor() as cursor:
        index_row_delete(cursor, rowid_for(frame.timestamp.timestamp(), frame.id))


def frame_index_on_text_ready(sender, *, frame: Frame, **kwargs) -> None:
    frame_index(frame=frame)
