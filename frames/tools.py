"""The frames app's read tools (myrecall/tools.py): a frame's text and boxes, the frames around a
frame, a frame's image for an assistant, and the activity of a time range (minutes per app and
per window, with a line of text from each)."""

import time
from datetime import datetime
from datetime import timezone as dt_timezone
from typing import Annotated
from zoneinfo import ZoneInfo

from django.urls import reverse
from ninja import Schema
from pydantic import Field

from frames import selectors, storage, thumbnails
from frames.models import Frame
from frames.selectors import Usage
from frames.schemas import ContextIn, FrameContextOut, FrameOcrOut
from myrecall.errors import ApplicationError
from myrecall.inputs import EPOCH_MAX, EPOCH_MIN, InputSchema
from myrecall.timezones import local_time
from myrecall.tools import INSTANT, Context, PathId, Tool, TimezoneName

FRAME_ID = PathId("frame_id", "The frame's id, as a search result gives it.")
ACTIVITY_GAP_CAP_S = 300  # a frame stands for at most this long
ACTIVITY_APPS, ACTIVITY_WINDOWS, ACTIVITY_KEY_TEXTS = 20, 30, 20


def frame_url(frame_id: int) -> str:
    return f"/api/v1/frames/{frame_id}"


def place(item: dict) -> str:
    """Where a frame of an answer was, for an assistant: "Firefox · Release plan · https://..."."""
    return " · ".join(item[key] for key in ("app_name", "window_name", "browser_url") if item.get(key))


def brief(frame: Frame, context: Context) -> dict:
    """A frame in a list: when, where, and links to its image and its viewer."""
    return {
        "frame_id": frame.id,
        "timestamp": frame.timestamp,
        "local_time": local_time(frame.timestamp, context.zone).isoformat(timespec="seconds"),
        "app_name": frame.app_name,
        "window_name": frame.window_name,
        "browser_url": frame.browser_url,
        "frame_url": context.link(frame_url(frame.id)),
        "viewer_url": context.link(reverse("frame-view", args=[frame.id])),
    }


# -- a frame's text -------------------------------------------------------------------------------


class FrameTextIn(InputSchema):
    pass


def frame_text(params: FrameTextIn, context: Context, *, frame_id: int) -> dict:
    frame = selectors.frame_get(frame_id=frame_id)
    ocr = selectors.frame_ocr_get(frame=frame)
    return {
        "frame_id": frame.id,
        "status": frame.ocr_status,
        "error": frame.ocr_error,
        "engine": ocr.engine if ocr else None,
        "text": ocr.text if ocr else "",
        "languages": [lang for lang in (ocr.languages if ocr else "").split(",") if lang],
        "width": frame.width,
        "height": frame.height,
        "lines": [
            {
                "text": line["t"],
                "box": line["b"],
                "confidence": line.get("c", 1.0),
                "words": [{"text": w[0], "box": w[1:5]} for w in line.get("w", [])],
            }
            for line in (ocr.lines if ocr else [])
        ],
    }


FRAME_TEXT = Tool(
    name="frame_text",
    title="A frame's text",
    description=(
        "The whole text read from one frame (screenshot), with its OCR state, its languages and "
        "each line's box and words' boxes in image pixels ([x, y, w, h])."
    ),
    params=FrameTextIn,
    returns=FrameOcrOut,
    run=frame_text,
    path="/frames/{frame_id}/ocr",
    path_ids=(FRAME_ID,),
    errors=(404,),
)


# -- the frames around a frame ------------------------------------------------------------------


def frames_around(params: ContextIn, context: Context, *, frame_id: int) -> dict:
    frame = selectors.frame_get(frame_id=frame_id)
    earlier, later = selectors.frame_context(frame=frame, before=params.before, after=params.after)
    return {
        "frame": brief(frame, context),
        "before": [brief(f, context) for f in earlier],
        "after": [brief(f, context) for f in later],
    }


FRAMES_AROUND = Tool(
    name="frames_around",
    title="The frames around a frame",
    description=(
        "The frames just before and after one frame in time (any device), nearest first: what the "
        "person did just before and after it. Each with its time, app, window, URL and links."
    ),
    params=ContextIn,
    returns=FrameContextOut,
    run=frames_around,
    path="/frames/{frame_id}/context",
    path_ids=(FRAME_ID,),
    errors=(404,),
    example={"before": "3", "after": "3"},
)


# -- a frame's image, for an assistant ----------------------------------------------------------


class FrameImageIn(InputSchema):
    max_side: int = Field(1280, ge=320, le=1920, description="Pixels of the image's longer side (it is never enlarged).")


def frame_image(params: FrameImageIn, context: Context, *, frame_id: int) -> tuple[bytes, str]:
    frame = selectors.frame_get(frame_id=frame_id)
    try:
        return thumbnails.frame_preview(frame=frame, max_side=params.max_side), "image/webp"
    except storage.ImageMissing as exc:
        raise ApplicationError("The frame's image file is missing.", extra={"frame_id": frame.id}, status_code=404) from exc


FRAME_IMAGE = Tool(
    name="frame_image",
    title="A frame's image",
    description=(
        "The screenshot of one frame as an image (WebP, scaled down to max_side, at most 600 KB). "
        "Read its text with frame_text first: look at the image only when the layout or a picture matters."
    ),
    params=FrameImageIn,
    returns=None,
    run=frame_image,
    path_ids=(FRAME_ID,),
)


# -- the activity of a range --------------------------------------------------------------------


class ActivityIn(InputSchema):
    start_time: Annotated[float, INSTANT] = Field(ge=EPOCH_MIN, le=EPOCH_MAX, description="Epoch seconds, included.")
    end_time: Annotated[float | None, INSTANT] = Field(None, ge=EPOCH_MIN, le=EPOCH_MAX, description="Epoch seconds, included; default now.")
    app_name: str | None = Field(None, max_length=512, description="Only this app (its whole name, any letter case).")
    timezone: TimezoneName = None


class AppUsageOut(Schema):
    app_name: str
    minutes: float
    frame_count: int
    first_seen: datetime
    last_seen: datetime


class WindowUsageOut(Schema):
    app_name: str
    window_name: str
    browser_url: str
    minutes: float
    frame_count: int
    newest_frame_id: int
    viewer_url: str


class KeyTextOut(Schema):
    text: str = Field(description="The line that best stands for the window's newest screen.")
    frame_id: int
    local_time: str
    app_name: str
    window_name: str
    viewer_url: str


class ActivityOut(Schema):
    start_time: float
    end_time: float
    timezone: str
    total_frames: int
    minutes: float = Field(description="Time covered by the frames (each stands for the time until its device's next, at most 5 minutes).")
    apps: list[AppUsageOut] = Field(description="The apps, most time first (at most 20).")
    windows: list[WindowUsageOut] = Field(description="The windows, most time first (at most 30).")
    key_texts: list[KeyTextOut] = Field(description="A line from each window's newest screen, the most recent first (at most 20).")


def key_line(text: str, q: str = "") -> str | None:
    """The line that best stands for a screen: the longest of 30-300 characters (else the
    longest, cut to 300); with q, only lines that contain it."""
    lines = [line.strip() for line in text.splitlines()]
    lines = [line for line in lines if (q.casefold() in line.casefold() if q else len(line) >= 15)]
    if not lines:
        return None
    fitting = [line for line in lines if 30 <= len(line) <= 300]
    return max(fitting or lines, key=len)[:300]


def _utc(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, tz=dt_timezone.utc)


def by_time_spent(usage: dict) -> list:
    """(key, Usage) pairs, the most time first (then by key)."""
    return sorted(usage.items(), key=lambda item: (-item[1].seconds, item[0]))


def key_texts_pick(per_window: dict, *, q: str = "", limit: int = ACTIVITY_KEY_TEXTS) -> list[tuple[str, str, Usage, str]]:
    """A line of text from each window's newest screen, the most recent first, each line once:
    (app, window, its usage, the line); with q, only lines that contain it."""
    latest = sorted(per_window.items(), key=lambda item: item[1].last_seen, reverse=True)
    texts = selectors.frames_texts(frame_ids=[usage.newest_frame_id for _, usage in latest])
    picked, seen = [], set()
    for (app, window), usage in latest:
        line = key_line(texts.get(usage.newest_frame_id, ""), q)
        if line is None or line.casefold() in seen:
            continue
        seen.add(line.casefold())
        picked.append((app, window, usage, line))
        if len(picked) == limit:
            break
    return picked


def activity(params: ActivityIn, context: Context) -> dict:
    end_time = time.time() if params.end_time is None else params.end_time
    apps = None
    if params.app_name and params.app_name.strip():
        wanted = params.app_name.strip().casefold()
        apps = {app for app in selectors.app_names() if app.casefold() == wanted}
    per_app, per_window = selectors.frames_usage(
        start=_utc(params.start_time), end=_utc(end_time), apps=apps, gap_cap_s=ACTIVITY_GAP_CAP_S
    )

    def viewer(frame_id: int) -> str:
        return context.link(reverse("frame-view", args=[frame_id]))

    return {
        "start_time": params.start_time,
        "end_time": end_time,
        "timezone": context.zone.key,
        "total_frames": sum(usage.frame_count for usage in per_app.values()),
        "minutes": round(sum(usage.seconds for usage in per_app.values()) / 60, 1),
        "apps": [
            {
                "app_name": app,
                "minutes": round(usage.seconds / 60, 1),
                "frame_count": usage.frame_count,
                "first_seen": usage.first_seen,
                "last_seen": usage.last_seen,
            }
            for app, usage in by_time_spent(per_app)[:ACTIVITY_APPS]
        ],
        "windows": [
            {
                "app_name": app,
                "window_name": window,
                "browser_url": usage.browser_url,
                "minutes": round(usage.seconds / 60, 1),
                "frame_count": usage.frame_count,
                "newest_frame_id": usage.newest_frame_id,
                "viewer_url": viewer(usage.newest_frame_id),
            }
            for (app, window), usage in by_time_spent(per_window)[:ACTIVITY_WINDOWS]
        ],
        "key_texts": [
            {
                "text": line,
                "frame_id": usage.newest_frame_id,
                "local_time": local_time(usage.last_seen, context.zone).isoformat(timespec="seconds"),
                "app_name": app,
                "window_name": window,
                "viewer_url": viewer(usage.newest_frame_id),
            }
            for app, window, usage, line in key_texts_pick(per_window)
        ],
    }


def activity_as_text(answer: dict) -> str:
    """For an assistant: the range in local time, then the apps, the windows and the lines, one a line."""
    zone = ZoneInfo(answer["timezone"])

    def clock(value: float | str) -> str:
        moment = datetime.fromisoformat(value) if isinstance(value, str) else _utc(value)
        return moment.astimezone(zone).isoformat(timespec="minutes")

    lines = [
        f"Activity from {clock(answer['start_time'])} to {clock(answer['end_time'])} ({answer['timezone']}): "
        f"{answer['total_frames']} frames, about {answer['minutes']:g} minutes."
    ]
    sections = (
        ("apps", "Apps, most time first:", lambda app: (
            f"- {app['app_name'] or 'Unknown app'}: {app['minutes']:g} min, {app['frame_count']} frames, "
            f"{clock(app['first_seen'])} to {clock(app['last_seen'])}"
        )),
        ("windows", "Windows, most time first:", lambda window: (
            f"- {place(window) or 'Unknown window'}: {window['minutes']:g} min, {window['frame_count']} frames; "
            f"newest frame {window['newest_frame_id']}, open: {window['viewer_url']}"
        )),
        ("key_texts", "A line from each window's newest screen, most recent first:", lambda key: (
            f"- frame {key['frame_id']} at {key['local_time']} · {place(key)}: {key['text']}\n  open: {key['viewer_url']}"
        )),
    )
    for name, heading, line in sections:
        if answer[name]:
            lines += ["", heading, *(line(item) for item in answer[name])]
    return "\n".join(lines)


ACTIVITY = Tool(
    name="activity_summary",
    title="Activity of a time range",
    description=(
        "What the person spent a time range on, without reading every frame: minutes and frames per "
        "app and per window (with its URL), and a line of text from each window's newest screen "
        "with its frame id. A good first call for 'what did I do between X and Y'; then search or "
        "read frames for detail."
    ),
    params=ActivityIn,
    returns=ActivityOut,
    run=activity,
    path="/activity",
    as_text=activity_as_text,
    example={"start_time": "$(date -d 'today 09:00' +%s)", "end_time": "$(date +%s)"},
)
