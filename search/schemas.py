from datetime import date, datetime

from ninja import Schema
from pydantic import Field

from frames.schemas import CaptureReportOut


class OcrContentOut(Schema):
    frame_id: int
    text: str
    excerpt: str = Field(description="Up to 300 characters of the text around its first match (the start when browsing).")
    timestamp: datetime
    local_time: str = Field(description="ISO 8601 in the caller's timezone (the timezone parameter, else the browser's, else this machine's).")
    app_name: str
    window_name: str
    browser_url: str
    focused: bool | None
    frame_url: str = Field(description="The frame's image.")
    viewer_url: str = Field(description="The frame's page in MyRecall's viewer: open it to check.")
    score: float | None
    matched: list[str]


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
    mode: str
    degraded: str | None


class OldestOut(Schema):
    frame_id: int
    timestamp: datetime
    lag_s: float


class WaitingOut(Schema):
    frames: int = Field(description="Frames waiting for this index: their OCR (and for vectors, then their embedding) is not done.")
    oldest_wait_s: float | None = Field(
        description="How long the frame that has waited longest has waited, in seconds since it arrived (or since a rebuild asked for it again); null when none waits."
    )


class KeywordStatusOut(Schema):
    rows: int
    partitions: int
    waiting: WaitingOut
    oldest_unsearchable: OldestOut | None


class EmbedderOut(Schema):
    model: str
    endpoint: str
    dimensions: int | None
    loaded: bool


class MigrationOut(Schema):
    model: str = Field(description="The embedding model the frames move to: the one configured now.")
    frames_done: int = Field(description="Frames with vectors of that model (searchable by meaning).")
    frames_total: int = Field(description="Frames with vectors of any model; the rest still have only the previous model's.")


class SemanticStatusOut(Schema):
    vectors: int | None
    waiting: WaitingOut
    frames: dict[str, int]
    oldest_unsearchable: OldestOut | None
    migration: MigrationOut | None = Field(
        description="While the worker re-embeds, newest first, the frames another embedding model wrote (after the model "
        "was changed, or an upgrade changed the default): how far it is; null when every frame has vectors of the model configured now."
    )
    embedder: EmbedderOut
    backend: str
    healthy: bool
    problem: str | None


class FramesStatusOut(Schema):
    total: int
    ocr: dict[str, int]


class DeviceStatusOut(Schema):
    device_name: str
    last_frame: datetime | None = Field(description="When its newest frame of the last day was taken; null when none.")
    last_report: CaptureReportOut | None = Field(
        description="Its capture client's latest report, if one came in the last day; null for a program that sends frames without reports."
    )


class StoragePartOut(Schema):
    name: str = Field(description="database, images, thumbnails, vectors")
    label: str
    bytes: int
    per_day: str = Field(description="exact: the part counts its bytes day by day; estimated: shared among days by their frames")


class StorageDayOut(Schema):
    day: date = Field(description="A day in this machine's timezone.")
    frames: int
    bytes: int = Field(description="Every part's bytes for the day: images exact, the others a share by frames.")
    images_bytes: int


class StorageFreedOut(Schema):
    days: int | None = Field(description="Days kept (today included); null when everything is kept.")
    frees_bytes: int = Field(description="About how many bytes deleting the older days would give back.")


class StorageOut(Schema):
    total_bytes: int
    frames: int
    measured_at: datetime = Field(description="The figures are measured at most once a minute.")
    parts: list[StoragePartOut]
    days: list[StorageDayOut] = Field(description="The newest first.")
    retention: StorageFreedOut = Field(description="The retention set (MYRECALL_RETENTION_DAYS), and what it frees.")
    if_kept: list[StorageFreedOut] = Field(description="What keeping 7, 30, 90 or 365 days would free.")


class StatusOut(Schema):
    frames: FramesStatusOut
    keyword: KeywordStatusOut
    semantic: SemanticStatusOut
    devices: list[DeviceStatusOut] = Field(description="Each device heard from in the last day (a frame or a report), the most recent first.")
    storage: StorageOut = Field(description="What the memory takes on disk, by part and by day.")
