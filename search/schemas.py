from datetime import datetime

from ninja import Schema


class OcrContentOut(Schema):
    frame_id: int
    text: str
    timestamp: datetime
    app_name: str
    window_name: str
    browser_url: str
    focused: bool | None
    frame_url: str
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
