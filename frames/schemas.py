from datetime import datetime
from typing import Annotated, Literal

from ninja import Schema
from pydantic import ConfigDict, Field, field_validator, model_validator

from frames.services import EARLIEST_TIMESTAMP, timestamp_latest, timestamp_parse
from myrecall.errors import ApplicationError
from myrecall.inputs import EPOCH_MAX, EPOCH_MIN, BodySchema, InputSchema, NullableTextBool, WHOLE_NUMBER
from myrecall.browsers import browser_name_pattern
from myrecall.privacy_rules import MAX_RULE_CHARS, MAX_RULES


def _timestamp_bounds(schema: dict) -> None:
    """The timestamps accepted (the newest changes at midnight UTC)."""
    schema["minimum"] = EARLIEST_TIMESTAMP
    schema["maximum"] = timestamp_latest()


def _timestamp_checked(value: float) -> float:
    try:
        timestamp_parse(value)
    except ApplicationError as exc:  # its message names the mistake (milliseconds, before 2000)
        raise ValueError(exc.message) from None
    return value


class FrameIn(InputSchema):
    """The form fields of an upload (the image is its own field)."""

    timestamp: float = Field(
        json_schema_extra=_timestamp_bounds,
        description="When the screenshot was taken, epoch seconds (not milliseconds); from 2000-01-01 to a day past the end of the server's current UTC day.",
    )
    app_name: str = Field("", max_length=512)
    window_name: str = Field("", max_length=1024)
    browser_url: str = Field("", max_length=4096)
    focused: NullableTextBool = Field(None, description="Whether the window had the focus; omitted (or null) when unknown.")
    device_name: str = Field("default", max_length=255)
    monitor: str = Field(
        "", max_length=100,
        description="Which of the device's monitors the screenshot is of (the desktop's name for it, e.g. DP-1); empty when it has one or does not say. Each monitor's frames are compared with that monitor's.",
    )
    client_frame_id: str | None = Field(
        None, max_length=255, description="The client's own id for this capture: a retry with the same device_name and client_frame_id is stored once."
    )

    @field_validator("timestamp")
    @classmethod
    def _sane_time(cls, value: float) -> float:
        return _timestamp_checked(value)


class ContextIn(InputSchema):
    before: int = Field(5, ge=0, le=50, description="Frames before this one, nearest first.")
    after: int = Field(5, ge=0, le=50, description="Frames after this one, nearest first.")


class RangeDeleteIn(InputSchema):
    start_time: float = Field(ge=EPOCH_MIN, le=EPOCH_MAX, description="Epoch seconds, included.")
    end_time: float = Field(
        ge=EPOCH_MIN, le=EPOCH_MAX, description="Epoch seconds, not included; a range that ends where (or before) it starts holds no frames."
    )
    app_name: str = Field("", max_length=512, description="Only this app's frames (any letter case); every app's when empty.")


class FrameCreatedOut(Schema):
    frame_id: int = Field(
        description="The frame that holds this screen: the new one (created), the one stored before under this "
        "client_frame_id (existing), or the device's previous frame it nearly duplicates (duplicate)."
    )
    status: str  # created | existing | duplicate
    duplicate_of: int | None = None
    distance: int | None = None
    message: str


class FrameMetadataOut(Schema):
    frame_id: int
    timestamp: datetime
    device_name: str
    monitor: str = Field(description="The device's monitor it shows; empty when not said.")
    client_frame_id: str | None
    app_name: str
    window_name: str
    browser_url: str
    focused: bool | None
    width: int
    height: int
    image_bytes: int
    # The image reads back to exactly the pixels captured (false: a screen of photos or video,
    # stored lossy; null: its file is missing).
    image_exact: bool | None
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
    local_time: str = Field(description="ISO 8601 in the caller's timezone.")
    app_name: str
    window_name: str
    browser_url: str
    frame_url: str = Field(description="The frame's image.")
    viewer_url: str = Field(description="The frame's page in MyRecall's viewer.")


class FrameContextOut(Schema):
    frame: FrameBriefOut
    before: list[FrameBriefOut]
    after: list[FrameBriefOut]


class FramesDeletedOut(Schema):
    deletion_id: int
    status: str  # done | running (what lives outside the database is still owed: see message)
    removed: dict[str, int]
    message: str


Pattern = Annotated[str, Field(max_length=MAX_RULE_CHARS)]


class PrivacyRulesSchema(Schema):
    excluded_apps: list[Pattern] = Field(max_length=MAX_RULES, description="App names, e.g. '1Password' (whole name, any case; * and ? as wildcards).")
    excluded_windows: list[Pattern] = Field(max_length=MAX_RULES, description="Window title patterns, e.g. '*Private Browsing*' (without wildcards: anywhere in the title).")
    excluded_urls: list[Pattern] = Field(max_length=MAX_RULES, description="URL patterns, e.g. 'bank.example' or 'https://*.bank.example/*'.")
    redact_secrets: bool = Field(description="Replace e-mail addresses, card numbers and API keys in OCR text before it is stored and indexed.")
    capture_paused: bool = Field(description="Capture clients take no screenshots while true.")


class PrivacyRulesIn(PrivacyRulesSchema, BodySchema):
    """Every rule, all five fields: a PUT replaces the whole set, so none is left to a default."""


PeriodCount = Annotated[int, Field(ge=0, le=10**9), WHOLE_NUMBER]


class CaptureReportIn(BodySchema):
    """What a capture client did in its last report period; sent every period, also when it
    sent no frame, so that a quiet screen is not taken for a stopped client."""

    device_name: str = Field(min_length=1, max_length=255, description="The device name its frames are stored under.")
    period_s: float = Field(ge=1, le=86400, description="The seconds the counts cover; the client reports this often.")
    sent: PeriodCount = Field(description="Frames sent in the period.")
    unchanged: PeriodCount = Field(description="Screenshots skipped because not a pixel changed.")
    excluded: PeriodCount = Field(description="Times nothing was captured because an excluded app or window had the focus.")
    spooled: PeriodCount = Field(description="Frames waiting in the client's spool (the server could not be reached, or not yet sent).")
    paused: bool = Field(description="Whether capture is paused (on the client, or by the server's Settings).")
    locked: str = Field(
        "", max_length=200,
        description="Why no screenshot is taken now: the screen is locked, and how the client knows (e.g. 'the screen is locked (swaylock runs)'); empty when it is not.",
    )
    client: str = Field("", max_length=100, description="The reporting program and its version, e.g. myrecall-capture/1.")
    stopped: str = Field(
        "", max_length=200,
        description="Set in the last report of a client that ends, to why it ended (e.g. 'SIGINT'): the timeline then says it stopped rather than warning.",
    )


class CaptureReportOut(Schema):
    device_name: str
    received_at: datetime = Field(description="When the server got it (its clock); the timeline counts from this.")
    period_s: float
    sent: int
    unchanged: int
    excluded: int
    spooled: int
    paused: bool
    locked: str
    client: str
    stopped: str


class BrowserTabIn(BodySchema):
    """A browser extension's report of the active tab (of the browser's last focused window), sent
    when it changes and every few seconds while it stays."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        json_schema_extra={
            "oneOf": [
                {"properties": {"state": {"const": "page"}, "url": {"minLength": 1}}, "required": ["url"]},
                {"properties": {"state": {"enum": ["excluded", "private"]}, "url": {"maxLength": 0}, "title": {"maxLength": 0}}},
            ]
        },
    )

    browser: str = Field(
        min_length=1, max_length=100, pattern=browser_name_pattern(),
        description="The browser as it names itself, e.g. 'Chromium 140', 'Google Chrome', 'Firefox 143' (a browser MyRecall knows).",
    )
    state: Literal["page", "excluded", "private"] = Field(
        description="page: a page the privacy rules allow, with its url and title; excluded: a page they exclude "
        "(no url, no title); private: a private (incognito) window the user did not allow (no url, no title)."
    )
    url: str = Field("", max_length=4096, description="The page's address (state page only).")
    title: str = Field("", max_length=1024, description="The tab's title, as the window title shows it (state page only).")
    at: float = Field(
        json_schema_extra=_timestamp_bounds,
        description="When the tab was seen so, epoch seconds on the browser's clock (the capture client's: the same desktop).",
    )
    client: str = Field("", max_length=100, description="The reporting extension and its version, e.g. myrecall-extension/1.0.0.")

    @field_validator("at")
    @classmethod
    def _sane_time(cls, value: float) -> float:
        return _timestamp_checked(value)

    @model_validator(mode="after")
    def _url_only_for_a_page(self) -> "BrowserTabIn":
        if self.state == "page" and not self.url:
            raise ValueError("a page's report needs its url")
        if self.state != "page" and (self.url or self.title):
            raise ValueError(f"a report of state {self.state} carries no url and no title")
        return self


class BrowserTabOut(Schema):
    browser: str = Field(description="The browser's key: which windows are its (chromium, chrome, firefox...).")
    state: str = Field(description="What was kept: page, or excluded when the server's privacy rules exclude the page (its URL and title are not kept).")
    stale: bool = Field(description="True when the report was older than the browser's latest one and was ignored.")
    paired: int = Field(description="Frames of the browser's windows given the page's URL by this report.")
    removed: int = Field(description="Frames deleted, every copy, because they showed an excluded page.")
    released: int = Field(description="Frames that waited for this report and are now read (OCR).")


class BrowserTabStateIn(InputSchema):
    app_name: str = Field(max_length=512, description="The focused window's app (its X11 class, e.g. chromium, firefox).")
    window_name: str = Field("", max_length=1024, description="The focused window's title.")
    at: float | None = Field(None, ge=EPOCH_MIN, le=EPOCH_MAX, description="The moment asked about, epoch seconds on the caller's clock; now when omitted.")


class BrowserTabStateOut(Schema):
    browser: str | None = Field(description="The app's browser key; null when the app is not a browser MyRecall knows.")
    extension_seen: bool = Field(description="The browser's extension reported in the last two minutes.")
    excluded: bool = Field(description="The browser's active tab is a page the privacy rules exclude: take no screenshot of it.")
    browser_url: str = Field(
        "", description="The active tab's address, when the window title shows that tab (a new address is a new moment to capture); else empty."
    )
