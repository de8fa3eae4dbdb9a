import random
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

import pytest

from chat import sampling
from chat.sampling import (
    MAX_FRAMES,
    FrameRow,
    bucket_seconds_choose,
    frames_sample,
    frames_sample_retrieve,
    ocr_truncate,
    sample_retrieve,
)
from search.filters import Filters
from search.selectors import search_browse

T0 = datetime(2026, 11, 22, 9, 0, tzinfo=dt_timezone.utc)


def rows_at(*seconds: float) -> list[FrameRow]:
    """One row per offset from T0, with the offset (as an int) for its frame id."""
    return [FrameRow(frame_id=int(s), timestamp=T0 + timedelta(seconds=s)) for s in seconds]


def ids(rows: list[FrameRow]) -> list[int]:
    return [row.frame_id for row in rows]


def sample(rows, *, hours: float = 0, seconds: float = 0, max_frames: int = MAX_FRAMES) -> list[FrameRow]:
    end = T0 + timedelta(hours=hours, seconds=seconds)
    return frames_sample(rows=rows, start_time=T0, end_time=end, max_frames=max_frames)


def test_a_small_range_keeps_every_frame_in_time_order():
    rows = rows_at(*range(0, 50))
    random.Random(1).shuffle(rows)
    assert ids(sample(rows, hours=1)) == list(range(0, 50))


def test_exactly_max_frames_are_all_kept_even_when_crowded_into_one_bucket():
    assert ids(sample(rows_at(*range(72)), hours=2)) == list(range(72))


def test_bucket_edges_a_boundary_frame_opens_the_next_bucket_and_the_end_is_excluded():
    # 2 hours: 24 buckets of 300 s. 79 frames in the first minute plus 299 make bucket 0.
    rows = rows_at(-1, *range(0, 79), 299, 300, 301, 7199, 7200)
    # bucket 0: first 0, last 299; bucket 1 (from 300): 300, 301; bucket 23: 7199 alone.
    # -1 is before the start and 7200 is the end itself: neither is a candidate.
    assert ids(sample(rows, hours=2)) == [0, 299, 300, 301, 7199]


def test_three_hours_is_exactly_36_buckets_of_five_minutes():
    # ceil(10800 / 300) * 2 = 72, not more than 72: no widening.
    assert bucket_seconds_choose(range_seconds=3 * 3600) == 300
    # One second more: ceil(10801 / 300) * 2 = 74 > 72, so ceil(10801 / 36) = 301.
    assert bucket_seconds_choose(range_seconds=3 * 3600 + 1) == 301
    picked = ids(sample(rows_at(*range(0, 10800, 3)), hours=3))
    assert len(picked) == 72
    # Bucket k is [300k, 300k + 300): first 300k, last 300k + 297.
    assert picked[:4] == [0, 297, 300, 597]
    assert picked[-2:] == [10500, 10797]


def test_eight_hours_widens_buckets_to_800_seconds():
    # ceil(28800 / 300) * 2 = 192 > 72, so bucket = ceil(28800 / 36) = 800 s, 36 buckets.
    assert bucket_seconds_choose(range_seconds=8 * 3600) == 800
    picked = ids(sample(rows_at(*range(0, 28800, 3)), hours=8))
    assert len(picked) == 72
    # Frames every 3 s. Bucket 0 [0, 800): 0, 798. Bucket 1 [800, 1600): 801, 1599.
    # Bucket 2 [1600, 2400): 1602, 2397. Bucket 35 [28000, 28800): 28002, 28797.
    assert picked[:6] == [0, 798, 801, 1599, 1602, 2397]
    assert picked[-2:] == [28002, 28797]


def test_a_short_range_keeps_five_minute_buckets_and_a_week_gets_16800_second_ones():
    assert bucket_seconds_choose(range_seconds=60) == 300
    assert bucket_seconds_choose(range_seconds=7 * 86400) == 16800  # 604800 / 36


@pytest.mark.parametrize("range_seconds", [61, 299, 300, 301, 3599, 10800, 10801, 28800, 86399, 7 * 86400])
def test_the_cap_holds_and_the_result_is_chronological_for_any_range(range_seconds):
    rng = random.Random(range_seconds)
    seconds = {rng.uniform(-60, range_seconds + 60) for _ in range(3000)}
    rows = [FrameRow(frame_id=i, timestamp=T0 + timedelta(seconds=s)) for i, s in enumerate(seconds)]
    picked = sample(rows, seconds=range_seconds)
    end = T0 + timedelta(seconds=range_seconds)
    assert 0 < len(picked) <= MAX_FRAMES
    assert [row.timestamp for row in picked] == sorted(row.timestamp for row in picked)
    assert all(T0 <= row.timestamp < end for row in picked)
    assert len(set(ids(picked))) == len(picked)


def test_overflow_drops_the_last_frame_of_the_densest_bucket():
    # max 5 over 800 s: ceil(800 / 300) * 2 = 6 > 5, so bucket = ceil(800 / 2.5) = 320 s:
    # [0, 320) 3 frames, [320, 640) 4 frames, [640, 800) 2 frames. Six picked, one too many:
    # the densest bucket, [320, 640), loses its last frame (360).
    rows = rows_at(0, 10, 20, 330, 340, 350, 360, 650, 700)
    assert ids(sample(rows, seconds=800, max_frames=5)) == [0, 20, 330, 650, 700]


def test_overflow_ties_between_equally_dense_buckets_go_to_the_earlier_bucket():
    rows = rows_at(0, 10, 20, 30, 330, 340, 350, 360, 650, 700)
    assert ids(sample(rows, seconds=800, max_frames=5)) == [0, 330, 360, 650, 700]


def test_frames_at_the_same_instant_are_ordered_by_id():
    rows = [FrameRow(frame_id=i, timestamp=T0) for i in (9, 3, 5)]
    assert ids(sample(rows, hours=1)) == [3, 5, 9]


def test_ocr_is_collapsed_and_cut_to_160_characters_with_an_ellipsis():
    assert ocr_truncate(text="  Inbox \n\n\t 3 unread   ") == "Inbox 3 unread"
    assert ocr_truncate(text="x" * 160) == "x" * 160
    cut = ocr_truncate(text="x" * 161)
    assert cut == "x" * 159 + "…" and len(cut) == 160
    chinese = ocr_truncate(text="机器学习" * 100)
    assert len(chinese) == 160 and chinese.endswith("学…") and chinese.startswith("机器")
    assert ocr_truncate(text="a" * 158 + " " + "b" * 10) == "a" * 158 + "…"


def test_retrieval_sees_every_frame_of_the_range_not_only_the_newest_page(frame_make):
    # 150 frames in 10 minutes: more than browse's 100-row page, so both ends matter.
    made = [frame_make(f"line {s}", at=T0.timestamp() + s * 4) for s in range(150)]
    start = T0.timestamp()
    picked = frames_sample_retrieve(filters=Filters(start_time=start, end_time=start + 600))
    # Two 300 s buckets: [0, 300) holds frames 0..74 (at 0..296 s), [300, 600) frames 75..149.
    assert [frame.frame_id for frame in picked] == [made[0], made[74], made[75], made[149]]
    assert picked[0].ocr_snippet == "line 0" and picked[-1].app_name == "Editor"


def test_retrieval_applies_the_search_filters_like_browse_and_truncates_ocr(frame_make):
    kept = frame_make("draft  \n" + "word " * 60, at=T0.timestamp() + 10, window_name="Notes.md - Editor")
    frame_make("other app", at=T0.timestamp() + 20, app_name="Browser")
    frame_make("other window", at=T0.timestamp() + 30, window_name="todo.txt")
    at_end = frame_make("at the end", at=T0.timestamp() + 600)
    start = T0.timestamp()
    filters = Filters(start_time=start, end_time=start + 600, app_name="editor", window_name="notes")
    picked = frames_sample_retrieve(filters=filters)
    browsed, _ = search_browse(filters=filters, limit=100, offset=0)
    # Browse includes its end instant; a summary's range [start, end) does not.
    assert {hit.frame_id for hit in browsed} == {kept, at_end}
    assert [frame.frame_id for frame in picked] == [kept]
    assert len(picked[0].ocr_snippet) == 160 and picked[0].ocr_snippet.startswith("draft word word")


def test_a_long_range_is_sampled_in_sql_exactly_as_when_every_row_is_read(frame_make, monkeypatch):
    # 90 days, frames at uneven times (ties included) and two apps, one filtered out.
    rng = random.Random(5)
    start = T0.timestamp()
    moments = sorted(rng.uniform(0, 90 * 86400) for _ in range(300))
    for moment in moments:
        frame_make("x", at=start + moment, app_name=rng.choice(["Editor", "Editor", "Browser"]))
    frame_make("tie", at=start + moments[10], app_name="Editor")
    for filters in (
        Filters(start_time=start, end_time=start + 90 * 86400),
        Filters(start_time=start + 3600, end_time=start + 61 * 86400, app_name="editor"),
    ):
        every_row = sample_retrieve(filters=filters)
        monkeypatch.setattr(sampling, "ROWS_READ_MAX", 10)
        in_sql = sample_retrieve(filters=filters)
        monkeypatch.undo()
        assert len(in_sql.frames) == MAX_FRAMES or len(every_row.frames) < MAX_FRAMES
        assert [f.frame_id for f in in_sql.frames] == [f.frame_id for f in every_row.frames]
        assert in_sql.frames_in_range == every_row.frames_in_range > 10


def test_retrieval_of_an_empty_range_is_empty(frame_make):
    frame_make("later", at=T0.timestamp() + 5000)
    start = T0.timestamp()
    assert frames_sample_retrieve(filters=Filters(start_time=start, end_time=start + 600)) == []


@pytest.mark.parametrize(
    ("line", "chrome"),
    [
        ("File Edit Selection View Go Run Terminal Help", True),
        ("Shell Edit View Window Help", True),
        ("Wed 12 Mar 10:04", True),
        ("下午 3:15", True),
        ("zoneinfo — IANA time zone support", True),  # part of the window title
        ("docs.python.org/3/library/zoneinfo.html", True),
        ("https://docs.python.org/3/library/zoneinfo.html", True),
        ("The zoneinfo module provides a concrete time zone implementation", False),
        ("Meeting moved to 14:30 tomorrow, please confirm with Anna", False),
        ("Edit the budget before Friday", False),
        ("收件箱 预算审批 已读", False),
    ],
)
def test_lines_around_the_content_are_told_from_the_content(line, chrome):
    from chat.sampling import line_is_chrome

    window = "zoneinfo — IANA time zone support — Python 3.13 documentation"
    url = "https://docs.python.org/3/library/zoneinfo.html"
    assert line_is_chrome(line, chrome=set(), window_name=window, browser_url=url) is chrome
