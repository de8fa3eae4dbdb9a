from datetime import datetime

from ninja import Schema
from pydantic import Field


class FrameCreatedOut(Schema):
    frame_id: int | None
    status: str  # created | existing | duplicate
    duplicate_of: int | None = None
    distance: int | None = None
    message: str


class FrameMetadataOut(Schema):
    frame_id: int
    timestamp: datetime
    device_name: str
    client_frame_id: str | None
    app_name: str
    window_name: str
    browser_url: str
    focused: bool | None
    width: int
    height: int
    image_bytes: int
    ocr_status: str
    ocr_error: str
    frame_url: str
    created_at: datetime


class OcrWordOut(Schema):
    text: str
    box: list[int]


class OcrLineOut(Schema):
    text: str
    box: list[int]
    confidence: float
    words: list[OcrWordOut]


class FrameOcrOut(Schema):
    frame_id: int
    status: str
    error: str
    engine: str | None
    text: str
    languages: list[str]
    width: int
    height: int
    lines: list[OcrLineOut]


class FrameBriefOut(Schema):
    frame_id: int
    timestamp: datetime
    app_name: str
    window_name: str
    frame_url: str


class FrameContextOut(Schema):
    frame: FrameBriefOut
    before: list[FrameBriefOut]
    after: list[FrameBriefOut]


class FramesDeletedOut(Schema):
    deletion_id: int
    status: str  # done | running (what lives outside the database is still owed: see message)
    removed: dict[str, int]
    message: str


class PrivacyRulesSchema(Schema):
    excluded_apps: list[str] = Field(default_factory=list, description="App names, e.g. '1Password' (whole name, any case; * and ? as wildcards).")
    excluded_windows: list[str] = Field(default_factory=list, description="Window title patterns, e.g. '*Private Browsing*' (without wildcards: anywhere in the title).")
    excluded_urls: list[str] = Field(default_factory=list, description="URL patterns, e.g. 'bank.example' or 'https://*.bank.example/*'.")
    redact_secrets: bool = Field(False, description="Replace e-mail addresses, card numbers and API keys in OCR text before it is stored and indexed.")
    capture_paused: bool = Field(False, description="Capture clients take no screenshots while true.")
