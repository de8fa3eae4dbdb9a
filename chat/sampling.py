"""Which frames of a time range a summary sees (seed 002 section 4.3).

Frames of [start_time, end_time) fall into contiguous buckets of DEFAULT_BUCKET_SECONDS, widened
when the range is long so that FRAMES_PER_BUCKET per bucket stays within MAX_FRAMES. Each bucket
gives its first frame and its last (when that is another frame). A range with at most MAX_FRAMES
frames keeps them all.

Overflow rule (only reachable when MAX_FRAMES is not a multiple of FRAMES_PER_BUCKET, or with a
smaller max_frames): buckets are ranked densest first, by the number of frames of the range in
them, ties going to the earlier bucket; their `last` frames are dropped in that order until the
cap holds. A bucket's `first` frame is never dropped.
"""

import math
import re
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

from django.db.models.functions import Mod

from chat.evidence import FRAME_FIELDS, SampledFrame, sampled_frame
from frames.models import Frame
from search.filters import Filters

DEFAULT_BUCKET_SECONDS = 300
FRAMES_PER_BUCKET = 2
MAX_FRAMES = 72
MAX_OCR_CHARS_PER_FRAME = 160
ROWS_READ_MAX = 20_000  # frames of a range read whole for sampling; a longer range is sampled in SQL

ELLIPSIS = "…"


@dataclass(frozen=True)
class FrameRow:
    frame_id: int
    timestamp: datetime


def bucket_seconds_choose(*, range_seconds: float, max_frames: int = MAX_FRAMES) -> int:
    bucket_seconds = DEFAULT_BUCKET_SECONDS
    if math.ceil(range_seconds / bucket_seconds) * FRAMES_PER_BUCKET > max_frames:
        bucket_seconds = max(DEFAULT_BUCKET_SECONDS, math.ceil(range_seconds / (max_frames / FRAMES_PER_BUCKET)))
    return bucket_seconds


def _order(row: FrameRow) -> tuple[datetime, int]:
    return row.timestamp, row.frame_id


def frames_sample(
    *, rows: list[FrameRow], start_time: datetime, end_time: datetime, max_frames: int = MAX_FRAMES
) -> list[FrameRow]:
    """The rows a summary of [start_time, end_time) sees, oldest first (ties by frame id)."""
    in_range = sorted((row for row in rows if start_time <= row.timestamp < end_time), key=_order)
    if len(in_range) <= max_frames:
        return in_range
    width = timedelta(seconds=bucket_seconds_choose(range_seconds=(end_time - start_time).total_seconds(), max_frames=max_frames))
    buckets: dict[int, list[FrameRow]] = {}
    for row in in_range:
        # timedelta // timedelta is exact integer arithmetic: a frame on a boundary opens the next bucket.
        buckets.setdefault((row.timestamp - start_time) // width, []).append(row)
    firsts = {index: frames[0] for index, frames in buckets.items()}
    lasts = {index: frames[-1] for index, frames in buckets.items() if len(frames) > 1}
    overflow = len(firsts) + len(lasts) - max_frames
    # Widening leaves at most ceil(max_frames / FRAMES_PER_BUCKET) buckets, so dropping `last`
    # frames alone always brings the count within the cap.
    for index in sorted(lasts, key=lambda index: (-len(buckets[index]), index))[: max(overflow, 0)]:
        del lasts[index]
    return sorted([*firsts.values(), *lasts.values()], key=_order)


def ocr_truncate(*, text: str, max_chars: int = MAX_OCR_CHARS_PER_FRAME) -> str:
    """Whitespace collapsed to single spaces; past max_chars, cut and ended with an ellipsis
    (the result, ellipsis included, is at most max_chars characters)."""
    collapsed = " ".join(text.split())
    if len(collapsed) <= max_chars:
        return collapsed
    return collapsed[: max_chars - len(ELLIPSIS)].rstrip() + ELLIPSIS


def _utc(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, tz=dt_timezone.utc)


def _frames_in_range(filters: Filters):
    """Frames of [start, end) matching the filters: a summary's range never includes its end.

    Not search_browse: it pages 100 at a time and loads every frame's OCR text, while sampling
    needs every frame of the range but the text of at most MAX_FRAMES of them.
    """
    return replace(filters, end_inclusive=False).frames(Frame.objects.all())


def _rows_to_sample(filters: Filters, max_frames: int) -> tuple[list[FrameRow], int]:
    """The rows frames_sample needs, and how many frames the range holds. Up to ROWS_READ_MAX
    frames every row is read; past that (a long range), only each bucket's first and last frame,
    two indexed lookups a bucket, which is what frames_sample keeps of such a range anyway."""
    frames = _frames_in_range(filters)
    count = frames.count()
    if count <= ROWS_READ_MAX:
        return [FrameRow(frame_id=i, timestamp=t) for i, t in frames.values_list("id", "timestamp")], count
    start, end = _utc(filters.start_time), _utc(filters.end_time)
    width = timedelta(seconds=bucket_seconds_choose(range_seconds=(end - start).total_seconds(), max_frames=max_frames))
    rows: list[FrameRow] = []
    for index in range(math.ceil((end - start) / width)):
        low, high = start + index * width, min(start + (index + 1) * width, end)
        bucket = _frames_in_range(replace(filters, start_time=low.timestamp(), end_time=high.timestamp()))
        ends = {bucket.order_by(*order).values_list("id", "timestamp").first() for order in (("timestamp", "id"), ("-timestamp", "-id"))}
        rows += [FrameRow(frame_id=i, timestamp=t) for i, t in ends - {None}]
    return rows, count


def _lines(text: str) -> tuple[str, ...]:
    return tuple(line for line in (" ".join(raw.split()) for raw in text.splitlines()) if line)


def chrome_lines(frames: list[tuple[str, str, tuple[str, ...]]]) -> set[str]:
    """Lines that are window chrome rather than content (menu bars, tab strips, toolbars, a
    clock): seen in at least two different windows, and on at least a third of the frames of
    the apps they appear in. `frames` holds (app, window, lines) per frame."""
    frames_per_app: dict[str, int] = {}
    windows: dict[str, set[tuple[str, str]]] = {}
    counts: dict[str, int] = {}
    for app_name, window_name, lines in frames:
        frames_per_app[app_name] = frames_per_app.get(app_name, 0) + 1
        for line in set(lines):
            windows.setdefault(line, set()).add((app_name, window_name))
            counts[line] = counts.get(line, 0) + 1
    chrome = set()
    for line, seen_in in windows.items():
        if len(seen_in) < 2:
            continue
        app_frames = sum(frames_per_app[app] for app in {app for app, _ in seen_in})
        if counts[line] * 3 >= app_frames:
            chrome.add(line)
    return chrome


MENU_WORDS = set(
    """file edit view window help selection go run terminal history bookmarks tools format insert shell profiles
    navigate code refactor build debug git vcs chat data table arrange share account accounts options actions
    message mailbox conversations people favorites develop controls playback image layer filter select type
    slide extensions tabs""".split()
)
_CLOCK_LINE = re.compile(r"\b\d{1,2}:\d{2}\b")
_DASHES = re.compile(r"[\u2010-\u2015\u2212]")
_URL_LINE = re.compile(r"^(?:https?://)?[\w.-]+\.[a-z]{2,}(?:[/?#:]\S*)?$", re.IGNORECASE)


def line_is_chrome(line: str, *, chrome: set[str], window_name: str = "", browser_url: str = "") -> bool:
    """Whether a line is the frame around the content rather than the content: chrome seen
    across windows, a menu bar, a clock, the window title again, or the page's address."""
    if line in chrome:
        return True
    words = line.split()
    if len(words) >= 3 and sum(word.lower().strip(".") in MENU_WORDS for word in words) * 5 >= len(words) * 4:
        return True
    if len(line) <= 24 and _CLOCK_LINE.search(line):
        return True
    # Spaces and kinds of dash aside: OCR reads "教程 - 知乎 —" as "教程- 知乎—", "Oslo – yr" as "Oslo - yr".
    title = _DASHES.sub("-", "".join(window_name.lower().split()))
    lowered = _DASHES.sub("-", "".join(line.lower().split()))
    if title and len(lowered) >= 5 and (lowered == title or lowered in title or title in lowered and len(lowered) - len(title) < 12):
        return True
    if browser_url and " " not in line and _URL_LINE.match(line):
        return True
    return False


def snippet_pick(*, lines: tuple[str, ...], chrome: set[str], window_name: str = "", browser_url: str = "") -> str:
    """The frame's text without its chrome (all of it when that leaves nothing), cut to
    MAX_OCR_CHARS_PER_FRAME: what the frame shows rather than the frame around it; the
    window title and address are sent beside it anyway."""
    content = [
        line for line in lines if not line_is_chrome(line, chrome=chrome, window_name=window_name, browser_url=browser_url)
    ] or list(lines)
    return ocr_truncate(text=" ".join(content))


@dataclass(frozen=True)
class Sample:
    frames: list[SampledFrame]
    frames_in_range: int


def frames_sample_retrieve(*, filters: Filters, max_frames: int = MAX_FRAMES) -> list[SampledFrame]:
    return sample_retrieve(filters=filters, max_frames=max_frames).frames


def sample_retrieve(*, filters: Filters, max_frames: int = MAX_FRAMES) -> Sample:
    """The one bounded retrieval of a summary: every frame of [start_time, end_time) that
    matches the filters is sampled, then the sampled ones are read with their OCR snippet."""
    rows, frames_in_range = _rows_to_sample(filters, max_frames)
    sampled = frames_sample(
        rows=rows, start_time=_utc(filters.start_time), end_time=_utc(filters.end_time), max_frames=max_frames
    )
    details = Frame.objects.filter(id__in=[row.frame_id for row in sampled]).values(*FRAME_FIELDS, "ocr__text")
    by_id = {detail["id"]: detail for detail in details}
    present = [row for row in sampled if row.frame_id in by_id]
    lines = {row.frame_id: _lines(by_id[row.frame_id]["ocr__text"] or "") for row in present}
    chrome = chrome_lines(
        [(by_id[row.frame_id]["app_name"], by_id[row.frame_id]["window_name"], lines[row.frame_id]) for row in present]
    )
    frames = [
        sampled_frame(
            by_id[row.frame_id],
            snippet=snippet_pick(
                lines=lines[row.frame_id],
                chrome=chrome,
                window_name=by_id[row.frame_id]["window_name"],
                browser_url=by_id[row.frame_id]["browser_url"],
            ),
            lines=lines[row.frame_id],
        )
        for row in present
    ]
    return Sample(frames=frames, frames_in_range=frames_in_range)


# Visits: where a range's time went, window by window, read from every frame of the range.
VISIT_GAP_S = DEFAULT_BUCKET_SECONDS  # a longer gap to the next frame is not time in the window
VISIT_IDLE_CREDIT_S = 60  # credited to a frame followed by such a gap (or by the end of the range)
VISITS_ROWS_MAX = 100_000  # frames of a range read for visits; a longer range reads every k-th frame
MAX_VISITS = 400


@dataclass(frozen=True)
class Visit:
    """The time a range spent in one window (one app, title and address): the seconds credited
    to its frames, when it was first and last seen, and its first frame, to cite."""

    app_name: str
    window_name: str
    browser_url: str
    seconds: float
    first: datetime
    last: datetime
    frames: int
    frame: SampledFrame


def visits_retrieve(*, filters: Filters) -> list[Visit]:
    """The windows of [start_time, end_time) that match the filters, from every frame's app,
    title and address (not from the summary's sample, which can miss a short visit): at most
    MAX_VISITS, longest first. A frame is credited the time to the next frame, or
    VISIT_IDLE_CREDIT_S when that is over VISIT_GAP_S away."""
    frames = _frames_in_range(filters)
    stride = max(1, math.ceil(frames.count() / VISITS_ROWS_MAX))
    if stride > 1:  # ids grow with capture, so every stride-th id spreads over the range
        frames = frames.alias(stride_slot=Mod("id", stride)).filter(stride_slot=0)
    rows = frames.order_by("timestamp", "id").values_list("id", "timestamp", "app_name", "window_name", "browser_url")
    end = _utc(filters.end_time)
    groups: dict[tuple[str, str, str], list] = {}  # key -> [seconds, first, last, frames, first id]

    def credit(row, following: datetime | None) -> None:
        gap = ((following or end) - row[1]).total_seconds()
        seconds = gap if following is not None and gap <= VISIT_GAP_S * stride else min(VISIT_IDLE_CREDIT_S * stride, gap)
        group = groups.setdefault(row[2:], [0.0, row[1], row[1], 0, row[0]])
        group[0] += max(seconds, 0.0)
        group[2] = row[1]
        group[3] += 1

    previous = None
    for row in rows.iterator(chunk_size=5000):
        if previous is not None:
            credit(previous, row[1])
        previous = row
    if previous is not None:
        credit(previous, None)
    kept = sorted(groups.items(), key=lambda item: -item[1][0])[:MAX_VISITS]
    details = Frame.objects.filter(id__in=[group[4] for _, group in kept]).values(*FRAME_FIELDS, "ocr__text")
    by_id = {detail["id"]: detail for detail in details}
    visits = []
    for (app_name, window_name, browser_url), (seconds, first, last, count, frame_id) in kept:
        if frame_id not in by_id:  # deleted meanwhile
            continue
        detail = by_id[frame_id]
        lines = _lines(detail["ocr__text"] or "")
        snippet = snippet_pick(lines=lines, chrome=set(), window_name=window_name, browser_url=browser_url)
        visits.append(
            Visit(
                app_name=app_name, window_name=window_name, browser_url=browser_url, seconds=seconds,
                first=first, last=last, frames=count, frame=sampled_frame(detail, snippet=snippet, lines=lines),
            )
        )
    return visits
