"""screenpipe's names and shapes for the root-level adapter (search/screenpipe.py)."""

from datetime import datetime

from ninja import Schema


class SearchParams(Schema):
    """GET /search as screenpipe's clients send it. Times, flags and numbers arrive as text
    and are read leniently in search/screenpipe.py, the way screenpipe reads them."""

    q: str | None = None
    content_type: str | None = None
    start_time: str | None = None
    end_time: str | None = None
    app_name: str | None = None
    window_name: str | None = None
    browser_url: str | None = None
    focused: str | None = None
    include_frames: str | None = None
    limit: int | None = None
    offset: int | None = None
    min_length: int | None = None
    max_length: int | None = None
    max_content_length: int | None = None


class OcrContentOut(Schema):
    frame_id: int
    text: str
    timestamp: datetime
    file_path: str
    offset_index: int
    app_name: str
    window_name: str
    tags: list[str]
    frame: str | None
    frame_name: str | None
    browser_url: str | None
    focused: bool | None
    device_name: str


class SearchItemOut(Schema):
    type: str
    content: OcrContentOut


class PaginationOut(Schema):
    limit: int
    offset: int
    total: int


class SearchOut(Schema):
    data: list[SearchItemOut]
    pagination: PaginationOut


class BoundsOut(Schema):
    left: float
    top: float
    width: float
    height: float


class TextPositionOut(Schema):
    text: str
    confidence: float
    bounds: BoundsOut


class FrameOcrOut(Schema):
    frame_id: int
    text: str
    text_positions: list[TextPositionOut]


class FrameMetadataOut(Schema):
    frame_id: int
    timestamp: datetime
    app_name: str
    window_name: str
    browser_url: str | None
    focused: bool | None
    device_name: str


class FrameNotFoundOut(Schema):
    """screenpipe's 404 body for an unknown frame, with MyRecall's message and extra beside it."""

    error: str
    frame_id: int
    message: str
    extra: dict


class FrameBriefOut(Schema):
    frame_id: int
    timestamp: datetime
    app_name: str
    window_name: str


class FrameContextOut(Schema):
    frame_id: int
    text: str | None
    nodes: list[dict]
    urls: list[str]
    text_source: str
    # MyRecall's own: the frames just before and after in time, nearest first.
    before: list[FrameBriefOut]
    after: list[FrameBriefOut]


class AppUsageOut(Schema):
    name: str
    frame_count: int
    minutes: float
    first_seen: str
    last_seen: str


class WindowUsageOut(Schema):
    app_name: str
    window_name: str
    browser_url: str
    minutes: float
    frame_count: int


class KeyTextOut(Schema):
    text: str
    app_name: str
    window_name: str
    timestamp: str


class RecentTextOut(Schema):
    text: str
    app_name: str
    timestamp: str


class AudioSummaryOut(Schema):
    segment_count: int
    speakers: list[dict]
    top_transcriptions: list[dict]


class TimeRangeOut(Schema):
    start: str
    end: str


class RecordingOut(Schema):
    last_frame_at: str | None
    last_audio_at: str | None
    frames_in_range: int
    audio_segments_in_range: int
    recent_capture: bool


class ActivitySummaryOut(Schema):
    apps: list[AppUsageOut]
    windows: list[WindowUsageOut]
    key_texts: list[KeyTextOut]
    # The older servers' name, which screenpipe's MCP server still reads.
    recent_texts: list[RecentTextOut]
    edited_files: list[dict]
    audio_summary: AudioSummaryOut
    total_frames: int
    time_range: TimeRangeOut
    data_status: str
    query_status: str
    recording: RecordingOut


class HealthOut(Schema):
    status: str
    status_code: int
    last_frame_timestamp: datetime | None
    last_audio_timestamp: datetime | None
    frame_status: str
    audio_status: str
    message: str
    verbose_instructions: str | None
    device_status_details: str | None
