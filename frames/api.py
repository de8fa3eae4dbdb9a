from datetime import datetime
from datetime import timezone as dt_timezone

from django.http import FileResponse, HttpRequest
from ninja import File, Router, UploadedFile

from frames import selectors, services, storage
from frames.models import Frame, FrameDeletion
from frames.schemas import (
    BrowserTabIn,
    BrowserTabOut,
    BrowserTabStateIn,
    BrowserTabStateOut,
    CaptureReportIn,
    CaptureReportOut,
    FrameCreatedOut,
    FrameIn,
    FrameMetadataOut,
    FramesDeletedOut,
    PrivacyRulesIn,
    PrivacyRulesSchema,
    RangeDeleteIn,
)
from frames.tools import ACTIVITY, FRAME_TEXT, FRAMES_AROUND, frame_url
from myrecall.errors import ApplicationError
from myrecall.inputs import NoQuery, StrictForm, StrictQuery
from myrecall.schemas import responses
from myrecall.tools import route_add

router = Router(tags=["frames"])

IMAGE_CACHE_SECONDS = 86400


_MESSAGES = {
    "created": "Stored; OCR is queued.",
    "existing": "Already stored under this device_name and client_frame_id.",
    "duplicate": "Not stored: a near-duplicate of the device's previous frame.",
}


@router.post(
    "/frames",
    response=responses({200: FrameCreatedOut, 201: FrameCreatedOut}, 403, 413, 415, 422),
    summary="Ingest a screenshot",
    openapi_extra={"requestBody": {"content": {"multipart/form-data": {"encoding": {"image": {"contentType": "image/png, image/jpeg, image/webp"}}}}}},
)
def frame_create(request: HttpRequest, image: File[UploadedFile], fields: StrictForm[FrameIn], query: NoQuery):
    """Multipart upload of one PNG, JPEG or WebP screenshot with its context.
    201 when stored; 200 when it was already stored (same device_name and client_frame_id)
    or skipped as a near-duplicate of the device's previous frame (`duplicate_of` names it);
    422 when a privacy rule excludes it (the rule is named)."""
    result = services.frame_ingest(image_bytes=image.read(), **fields.dict())
    body = {
        "frame_id": result.frame_id if result.frame_id is not None else result.duplicate_of,
        "status": result.status,
        "duplicate_of": result.duplicate_of,
        "distance": result.distance,
        "message": _MESSAGES[result.status],
    }
    return (201 if result.status == "created" else 200), body


def frame_image_response(frame: Frame) -> FileResponse:
    try:
        stream, content_type = storage.image_open(frame.image_path)
    except storage.ImageDamaged as exc:
        raise ApplicationError("The frame's image file is damaged and cannot be read.", extra={"frame_id": frame.id}, status_code=404) from exc
    except storage.ImageMissing as exc:
        raise ApplicationError("The frame's image file is missing.", extra={"frame_id": frame.id}, status_code=404) from exc
    response = FileResponse(stream, content_type=content_type)
    response["Cache-Control"] = f"private, max-age={IMAGE_CACHE_SECONDS}, immutable"
    return response


@router.get("/frames/{frame_id}", response=responses({200: None}, 404), summary="The frame's image")
def frame_image(request: HttpRequest, frame_id: int, query: NoQuery):
    return frame_image_response(selectors.frame_get(frame_id=frame_id))


route_add(router, FRAME_TEXT)


@router.get("/frames/{frame_id}/metadata", response=responses({200: FrameMetadataOut}, 404))
def frame_metadata(request: HttpRequest, frame_id: int, query: NoQuery):
    frame, exact = selectors.frame_metadata_get(frame_id=frame_id)
    return {
        "frame_id": frame.id,
        "timestamp": frame.timestamp,
        "device_name": frame.device_name,
        "monitor": frame.monitor or "",
        "client_frame_id": frame.client_frame_id,
        "app_name": frame.app_name,
        "window_name": frame.window_name,
        "browser_url": frame.browser_url,
        "focused": frame.focused,
        "width": frame.width,
        "height": frame.height,
        "image_bytes": frame.image_bytes,
        "image_exact": exact,
        "ocr_status": frame.ocr_status,
        "ocr_error": frame.ocr_error,
        "frame_url": frame_url(frame.id),
        "created_at": frame.created_at,
    }


route_add(router, FRAMES_AROUND)
route_add(router, ACTIVITY)


def _utc(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, tz=dt_timezone.utc)


@router.delete(
    "/frames",
    response=responses({200: FramesDeletedOut}, 403),
    summary="Delete every copy of a time range's frames",
)
def frames_delete(request: HttpRequest, params: StrictQuery[RangeDeleteIn]):
    """Deletes the frames from start_time up to (not including) end_time, epoch seconds, of one
    app when app_name is given (any letter case): their images, thumbnails, OCR text, keyword
    index rows, vectors, and the snippets chat answers quoted from them (those answers are
    marked as citing deleted evidence). Reports what it removed, by kind. Not allowed for
    read-only tokens."""
    start, end = _utc(params.start_time), _utc(params.end_time)
    job = services.frames_delete(start=start, end=end, app_name=params.app_name.strip())
    done = job.status == FrameDeletion.Status.DONE
    frames = job.removed.get("frames", 0)
    message = f"Deleted {frames} frame{'s' if frames != 1 else ''}."
    if not done:
        message += f" Their vectors or files are still to be removed ({job.error}); the worker finishes it."
    return {"deletion_id": job.id, "status": job.status, "removed": job.removed, "message": message}


@router.get("/privacy", response=responses({200: PrivacyRulesSchema}), summary="The privacy rules")
def privacy_get(request: HttpRequest, query: NoQuery):
    """What capture must leave out: excluded apps, window titles and URLs; whether OCR text has
    secrets redacted; whether capture is paused. Capture clients read this to never send an
    excluded screen."""
    return selectors.privacy_rules().to_json()


@router.put("/privacy", response=responses({200: PrivacyRulesSchema}, 403), summary="Replace the privacy rules")
def privacy_put(request: HttpRequest, rules: PrivacyRulesIn, query: NoQuery):
    """Replaces every rule: all five fields are required. Frames matching an exclusion are refused from then on (422, with the
    rule); those stored before stay until deleted (DELETE /api/v1/frames)."""
    return services.privacy_update(**rules.dict()).to_json()


@router.post("/capture/report", response=responses({200: CaptureReportOut}, 403), summary="A capture client's periodic report")
def capture_report(request: HttpRequest, report: CaptureReportIn, query: NoQuery):
    """A capture client says what it did in its last period (frames sent, screenshots skipped as
    unchanged, ticks excluded by privacy rules, frames waiting in its spool, whether it is paused).
    The server keeps the latest per device_name, replacing the one before; the timeline reads it
    to tell a quiet screen from a client that stopped. Not allowed for read-only tokens."""
    return services.capture_report_record(**report.dict())


# The browser extension (extension/) ---------------------------------------------------------------


@router.post("/browser/tab", response=responses({200: BrowserTabOut}, 403), summary="A browser extension's report of the active tab")
def browser_tab_report(request: HttpRequest, report: BrowserTabIn, query: NoQuery):
    """The extension sends its browser's active tab (of the last focused window) when it changes and
    every few seconds while it stays. Frames of that browser's windows are paired with it by time and
    window title: their browser_url is filled (also frames stored before the report came), and frames
    taken while an excluded page was active are deleted, every copy. A page the server's privacy rules
    exclude is kept without its URL or title (state "excluded" in the answer). `browser` must name a
    browser MyRecall knows (400 otherwise); not allowed for read-only tokens."""
    result = services.browser_tab_report(**report.dict())
    return {
        "browser": result.browser,
        "state": result.state,
        "stale": result.span is None,
        "paired": result.paired,
        "removed": result.removed,
        "released": result.released,
    }


@router.get("/browser/tab", response=responses({200: BrowserTabStateOut}), summary="Whether a browser window's active tab may be captured")
def browser_tab_state(request: HttpRequest, params: StrictQuery[BrowserTabStateIn]):
    """For a capture client, before it takes a screenshot of a browser window: whether that browser's
    extension reports (in the last two minutes) and whether its active tab is a page the privacy rules
    exclude, at `at` (now by default)."""
    at = _utc(params.at) if params.at is not None else datetime.now(tz=dt_timezone.utc)
    tab = selectors.browser_tab_at(app_name=params.app_name, window_name=params.window_name, at=at)
    return {"browser": tab.browser, "extension_seen": tab.extension_seen, "excluded": tab.excluded, "browser_url": tab.browser_url}
