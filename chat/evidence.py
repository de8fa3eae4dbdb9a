"""Frames an answer may show and cite, and the evidence items an answer lists for them.

`sampled_frame` is the one way a frame becomes a `SampledFrame`, whatever it was read as: a
Frame, a search hit or a row of Frame.objects.values(*FRAME_FIELDS). `evidence_item` shapes
one for the API and the pages (seed 002 section 3.1), its links built by reverse()."""

from dataclasses import dataclass
from datetime import datetime
from urllib.parse import quote
from zoneinfo import ZoneInfo

from django.urls import reverse

# The fields a row of Frame.objects.values() needs for sampled_frame.
FRAME_FIELDS = ("id", "timestamp", "app_name", "window_name", "browser_url", "focused")


@dataclass(frozen=True)
class SampledFrame:
    frame_id: int
    timestamp: datetime
    app_name: str
    window_name: str
    browser_url: str
    focused: bool | None
    ocr_snippet: str
    ocr_lines: tuple[str, ...] = ()


def sampled_frame(source, *, snippet: str, lines: tuple[str, ...] = ()) -> SampledFrame:
    """A frame the answer may show and cite, with this snippet of its text (and its lines):
    from a Frame, a search hit (search.selectors.SearchHit) or a dict of FRAME_FIELDS."""
    if isinstance(source, dict):
        frame_id, read = source["id"], source.__getitem__
    else:
        frame_id, read = getattr(source, "frame_id", None) or source.id, lambda name: getattr(source, name)
    return SampledFrame(
        frame_id=frame_id,
        timestamp=read("timestamp"),
        app_name=read("app_name"),
        window_name=read("window_name"),
        browser_url=read("browser_url"),
        focused=read("focused"),
        ocr_snippet=snippet,
        ocr_lines=lines,
    )


def viewer_url(frame_id: int, snippet: str) -> str:
    """The frame's viewer, with the snippet highlighted when there is one."""
    url = reverse("frame-view", args=[frame_id])
    return url + (f"?hl={quote(snippet)}" if snippet else "")


def evidence_item(frame: SampledFrame, zone: ZoneInfo) -> dict:
    """An evidence item of seed 002 section 3.1, plus links to the viewer and the thumbnail."""
    return {
        "frame_id": frame.frame_id,
        "timestamp": frame.timestamp.timestamp(),
        "local_time": frame.timestamp.astimezone(zone).isoformat(timespec="seconds"),
        "app_name": frame.app_name,
        "window_name": frame.window_name,
        "focused": frame.focused,
        "browser_url": frame.browser_url,
        "ocr_snippet": frame.ocr_snippet,
        "frame_url": reverse("api:frame_image", args=[frame.frame_id]),
        "viewer_url": viewer_url(frame.frame_id, frame.ocr_snippet),
        "thumb_url": reverse("frame-thumb", args=[frame.frame_id]),
    }
