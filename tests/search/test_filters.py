"""One filter type: its SQL, its ORM query and the request parser agree on what every filter means."""

from datetime import datetime
from datetime import timezone as dt_timezone

import pytest
from django.db import connection

from frames.models import Frame, OcrResult, OcrStatus
from myrecall.errors import ApplicationError
from search.filters import Filters, filters_parse

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=dt_timezone.utc).timestamp()


def frame_add(at: float, text: str = "", **fields) -> int:
    frame = Frame.objects.create(
        timestamp=datetime.fromtimestamp(at, tz=dt_timezone.utc),
        image_path=f"x/{at}.webp",
        width=10,
        height=10,
        image_bytes=1,
        ocr_status=OcrStatus.DONE,
        **fields,
    )
    OcrResult.objects.create(frame=frame, engine="test", text=text, lines=[])
    return frame.id


@pytest.fixture
def frames(db):
    return {
        "code": frame_add(T0, "def main(): pass", app_name="Code", window_name="main.py — proj", focused=True),
        "chrome": frame_add(T0 + 10, "Invoice 4411", app_name="Google Chrome", window_name="Billing", browser_url="https://dentist.example/bills", focused=False),
        "chrome_lower": frame_add(T0 + 20, "x" * 500, app_name="google chrome", window_name="News", browser_url="https://news.example"),
        "end": frame_add(T0 + 60, "at the end", app_name="Code", window_name="README"),
        "after": frame_add(T0 + 61, "after", app_name="Code"),
    }


def by_sql(filters: Filters) -> set[int]:
    where, params, needs_text = filters.sql()
    join = " LEFT JOIN frames_ocrresult o ON o.frame_id = f.id" if needs_text else ""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT f.id FROM frames_frame f{join} WHERE {' AND '.join(where)}", params)
        return {row[0] for row in cursor.fetchall()}


def by_orm(filters: Filters) -> set[int]:
    return set(filters.frames(Frame.objects.all()).values_list("id", flat=True))


CASES = [
    ({}, {"code", "chrome", "chrome_lower", "end"}),
    ({"end_inclusive": False}, {"code", "chrome", "chrome_lower"}),
    ({"app_name": "google CHROME"}, {"chrome", "chrome_lower"}),
    ({"apps": ("Code", "Google Chrome")}, {"code", "chrome", "chrome_lower", "end"}),
    ({"apps": ()}, set()),
    ({"apps": ("Code", "Google Chrome"), "app_name": "code"}, {"code", "end"}),
    ({"window_name": "MAIN.py"}, {"code"}),
    ({"browser_url": "dentist"}, {"chrome"}),
    ({"window_name": "%"}, set()),
    ({"focused": True}, {"code"}),
    ({"focused": False}, {"chrome"}),
    ({"min_length": 100}, {"chrome_lower"}),
    ({"max_length": 12}, {"chrome", "end"}),
]


@pytest.mark.parametrize("extra,expected", CASES)
def test_sql_and_orm_mean_the_same(frames, extra, expected):
    filters = Filters(start_time=T0, end_time=T0 + 60, **extra)
    want = {frames[name] for name in expected}
    assert by_sql(filters) == want
    assert by_orm(filters) == want


def test_parse_checks_the_range_and_drops_blank_names():
    filters = filters_parse(start_time=T0, end_time=T0 + 5, app_name="  ", window_name="", browser_url=None)
    assert filters == Filters(start_time=T0, end_time=T0 + 5)
    assert not filters.narrowed()
    assert filters_parse(start_time=T0, app_name="Code").narrowed()
    for bad in (dict(start_time=float("nan")), dict(start_time=-1), dict(start_time=1e300)):
        with pytest.raises(ApplicationError):
            filters_parse(**bad)
    # A range that ends before it starts holds no frames: an empty range, not an error.
    reversed_range = filters_parse(start_time=T0, end_time=T0 - 1)
    assert (reversed_range.start_time, reversed_range.end_time, reversed_range.end_inclusive) == (T0, T0, False)
    with pytest.raises(ApplicationError, match="after start_time"):
        filters_parse(start_time=T0, end_time=T0 - 1, allow_empty=False)
    with pytest.raises(ApplicationError, match="after start_time"):
        filters_parse(start_time=T0, end_time=T0, allow_empty=False)
