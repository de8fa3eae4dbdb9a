import re
from datetime import date, datetime, time, timedelta

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.http import FileResponse, Http404, HttpRequest, JsonResponse
from django.shortcuts import render
from django.template.defaultfilters import filesizeformat
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers
from pydantic import ValidationError

from frames import selectors, services, thumbnails, timeline
from frames.api import IMAGE_CACHE_SECONDS, frame_image_response
from frames.highlight import boxes_matching, boxes_of_snippet
from frames.schemas import PrivacyRulesIn
from myrecall.auth import BearerToken
from myrecall.errors import ApplicationError, NotFound, error_body
from myrecall.inputs import errors_explained
from myrecall.middleware import cross_origin_readable
from myrecall.space import space_parts_bytes, space_summary
from myrecall.timezones import day_bounds, local_time, request_timezone


# Chat snippets are at most 160 characters; anything longer is cut, not an error.
MAX_SNIPPET_CHARS = 1000
FRAME_IDS = range(-(2**63), 2**63)  # what screenpipe takes as a frame id: a 64-bit signed whole number


def _authenticated(request: HttpRequest) -> bool:
    return request.user.is_authenticated or bool(BearerToken()(request))


def frame_not_found_body(frame_id: int) -> dict:
    """screenpipe's 404 for a frame id it does not have ({"error", "frame_id"}, which its deep-link
    handlers read), in MyRecall's one error shape as well."""
    return {"error": "Frame not found", "frame_id": frame_id, **error_body(f"Frame {frame_id} does not exist.", {"frame_id": frame_id})}


@cross_origin_readable
@login_not_required  # answers 401 itself: API clients send a bearer token, not a session
@require_GET
def frame_image(request: HttpRequest, frame_id: str):
    """The image at the bare path where screenpipe's clients fetch it, answering as screenpipe does."""
    if not _authenticated(request):
        return JsonResponse(error_body("Authentication required: send a bearer token or log in."), status=401)
    if not re.fullmatch(r"-?[0-9]{1,20}", frame_id) or int(frame_id) not in FRAME_IDS:
        message = "The frame id must be a whole number (a frame's id, as in /frames/123)."
        return JsonResponse(error_body(message, {"field": "frame_id", "value": frame_id[:100]}), status=400)
    try:
        frame = selectors.frame_get(frame_id=int(frame_id))
    except NotFound:
        return JsonResponse(frame_not_found_body(int(frame_id)), status=404)
    try:
        return frame_image_response(frame)
    except ApplicationError as exc:
        return JsonResponse(error_body(exc.message, exc.extra), status=exc.status_code)


@require_GET
def frame_thumb(request: HttpRequest, frame_id: int):
    try:
        frame = selectors.frame_get(frame_id=frame_id)
        stream = thumbnails.thumbnail_open(frame=frame)
    except (NotFound, FileNotFoundError) as exc:
        raise Http404("No such frame image.") from exc
    response = FileResponse(stream, content_type="image/webp")
    response["Cache-Control"] = f"private, max-age={IMAGE_CACHE_SECONDS}, immutable"
    return response


def bad_request(request: HttpRequest, message: str):
    return render(request, "400.html", {"message": message}, status=400)


def _day_and_hour(request: HttpRequest, query) -> tuple[date, int | None, str | None]:
    """The day (and hour, if zoomed) a timeline request names; or an error message."""
    today = datetime.now(request_timezone(request)).date()
    try:
        day = date.fromisoformat(query["date"]) if query.get("date") else today
    except ValueError:
        return today, None, f"“{query['date']}” is not a date; use YYYY-MM-DD."
    if not date.min < day < date.max:  # its neighbours and its bounds in some timezones do not exist
        return today, None, f"{day} is outside the dates the timeline can show."
    hour = query.get("hour")
    if hour in (None, ""):
        return day, None, None
    if not (hour.isascii() and hour.isdigit()) or not 0 <= int(hour) <= 23:
        return day, None, f"“{hour}” is not an hour; use 0 to 23."
    return day, int(hour), None


def _devices_context(request: HttpRequest) -> dict:
    """The devices that sent frames or whose capture client reported in the last day, for the timeline's device line."""
    zone = request_timezone(request)
    now = datetime.now(zone)
    today_start, _ = day_bounds(now.date(), zone)
    devices = timeline.devices_status(
        devices=selectors.devices_seen(since=now - timedelta(days=1)),
        now=now.timestamp(),
        today_start=today_start,
        silent_after_s=settings.CAPTURE_SILENT_S,
    )
    return {
        "devices": [{**device.__dict__, "local": device.last and local_time(device.last, zone)} for device in devices],
        "capture_paused": selectors.privacy_rules().capture_paused,
    }


@require_GET
def timeline_devices(request: HttpRequest):
    """The device line alone: today's timeline refreshes it while it is open."""
    return render(request, "frames/_devices.html", _devices_context(request))


def _day_context(request: HttpRequest, day: date, hour: int | None) -> dict:
    zone = request_timezone(request)
    today = datetime.now(zone).date()
    start, end = day_bounds(day, zone)
    rows = selectors.frames_between(start=start, end=end)
    if hour is None:
        axis_start, axis_end = start, end
        visible = rows
        cards = timeline.buckets(rows=rows, start=start, bucket_s=timeline.DAY_BUCKET_S)
    else:
        first = datetime.combine(day, time(hour), tzinfo=zone)
        axis_start = first.timestamp()
        # The hour the clocks repeat when DST ends lasts two hours; fold=1 is its second pass.
        axis_end = max(axis_start, first.replace(fold=1).timestamp()) + 3600
        visible = [r for r, (h, _) in zip(rows, timeline.local_clocks(rows=rows, zone=zone)) if h == hour]
        cards = timeline.buckets(rows=visible, start=axis_start, bucket_s=timeline.HOUR_BUCKET_S)
    chart = timeline.active_minutes(rows=rows, zone=zone)
    colors = {app: timeline.app_color(app) for app in chart}
    return {
        **(_devices_context(request) if day == today else {}),
        "day": day,
        "today": today,
        "is_today": day == today,
        "prev_day": day - timedelta(days=1),
        "next_day": day + timedelta(days=1),
        "hour": hour,
        "latest_id": selectors.frame_latest_id(),
        "notices": timeline.timeline_notices(),
        "hours": list(range(24)),
        "hours_with_frames": [h for h in range(24) if any(hours[h] for hours in chart.values())],
        "total": len(rows),
        "visible_total": len(visible),
        "segments": timeline.app_segments(rows=visible, start=axis_start, end=axis_end),
        "ticks": _ticks(axis_start, axis_end, zone, hourly=hour is None),
        "cards": [
            {**card.__dict__, "local": local_time(card.frame_ts, zone), "color": timeline.app_color(card.app_name)}
            for card in cards
        ],
        "chart": [{"app": app, "color": colors[app], "minutes": sum(hours)} for app, hours in chart.items()],
        "chart_hours": [
            {
                "hour": h,
                "stack": [{"app": app, "color": colors[app], "minutes": hours[h]} for app, hours in chart.items() if hours[h]],
            }
            for h in range(24)
        ],
        "day_apps": sorted({row["app_name"] for row in rows if row["app_name"]}, key=str.lower),
        "delete_from": f"{hour:02d}:00" if hour is not None else "00:00",
        "delete_to": f"{hour:02d}:59" if hour is not None else "23:59",
    }


def _timeline_render(request: HttpRequest, context: dict, status: int = 200):
    template = "frames/timeline.html#day" if request.headers.get("HX-Request") else "frames/timeline.html"
    return render(request, template, context, status=status)


@require_GET
@vary_on_headers("HX-Request")  # so the browser never shows the cached #day partial as the page
def timeline_page(request: HttpRequest):
    day, hour, error = _day_and_hour(request, request.GET)
    if error:
        return bad_request(request, error)
    return _timeline_render(request, _day_context(request, day, hour))


def _clock(value: str, name: str) -> time:
    try:
        return time.fromisoformat(value)
    except ValueError:
        raise ApplicationError(f"“{value}” is not a time for {name}; use HH:MM.") from None


@require_POST
def timeline_delete(request: HttpRequest):
    """Delete a range of the day shown (local clock times, both minutes included), of one app
    or all: the first post shows what would go, the second (confirm=yes) deletes it."""
    day, hour, error = _day_and_hour(request, request.POST)
    if error:
        return bad_request(request, error)
    context = _day_context(request, day, hour)
    form = {key: request.POST.get(key, "").strip() for key in ("from", "to", "app_name")}
    context.update(delete_from=form["from"] or context["delete_from"], delete_to=form["to"] or context["delete_to"])
    context["delete_app"] = form["app_name"]
    try:
        zone = request_timezone(request)
        first = datetime.combine(day, _clock(context["delete_from"], "From"), tzinfo=zone)
        last = datetime.combine(day, _clock(context["delete_to"], "To"), tzinfo=zone)
        start, end = first, last + timedelta(minutes=1)  # "to 14:59" takes 14:59's frames too
        if end <= start:
            raise ApplicationError("“To” must not be before “From”.")
        if "\x00" in form["app_name"]:  # no database stores it in text (PostgreSQL refuses it)
            raise ApplicationError("The app must not contain the NUL character (U+0000).")
    except ApplicationError as exc:
        context["delete_error"] = exc.message
        return _timeline_render(request, context, status=400)
    if request.POST.get("confirm") != "yes":
        counts = selectors.frames_range_counts(start=start, end=end, app_name=form["app_name"])
        context["delete_preview"] = {"total": sum(counts.values()), "apps": list(counts.items())[:8], "more_apps": max(0, len(counts) - 8)}
        return _timeline_render(request, context)
    # The space freed as Settings measures it: the files removed less the images of kept frames
    # stored again without the deleted frames they were stored against.
    files_before = space_parts_bytes(zone=zone, names=FILE_PARTS)
    job = services.frames_delete(start=start, end=end, app_name=form["app_name"])
    files_after = space_parts_bytes(zone=zone, names=FILE_PARTS)
    context = _day_context(request, day, hour)
    context["deleted"] = deleted_summary(job, files_before=files_before, files_after=files_after)
    return _timeline_render(request, context)


FILE_PARTS = ("images", "thumbnails")  # the parts of Settings' "Space on disk" a deletion frees at once


def deleted_summary(job, *, files_before: int, files_after: int) -> str:
    removed = job.removed
    frames = removed.get("frames", 0)
    kinds = (
        ("fts_rows", "keyword index entry", "keyword index entries"),
        ("vectors", "vector", "vectors"),
        ("answers_erased", "chat answer erased", "chat answers erased"),
    )
    details = [f"{removed[kind]} {one if removed[kind] == 1 else many}" for kind, one, many in kinds if removed.get(kind)]
    text = f"Deleted {frames} frame{'s' if frames != 1 else ''}" + (": " + ", ".join(details) if details else "") + "."
    if files_after < files_before:
        text += f" {filesizeformat(files_before - files_after)} of screen images and thumbnails freed, as Settings counts them"
        text += f" ({filesizeformat(files_after)} left)."
    else:  # frames captured meanwhile took as much
        text += f" Screen images and thumbnails take {filesizeformat(files_after)}, as Settings counts them."
    if job.status != "done":
        text += f" Some of it is still to be removed ({job.error}); the worker finishes it."
    return text


def _ticks(start: float, end: float, zone, *, hourly: bool) -> list[dict]:
    step = 3 * 3600 if hourly else 600
    ticks = []
    t = start
    while t < end:
        ticks.append({"left_pct": round((t - start) / (end - start) * 100, 3), "label": local_time(t, zone).strftime("%H:%M")})
        t += step
    return ticks


@require_GET
def frame_view(request: HttpRequest, frame_id: int):
    zone = request_timezone(request)
    try:
        frame = selectors.frame_get(frame_id=frame_id)
    except NotFound as exc:
        raise Http404(exc.message) from exc
    ocr = selectors.frame_ocr_get(frame=frame)
    before, after = selectors.frame_context(frame=frame, before=1, after=1)
    q = request.GET.get("q", "").strip()
    # A chat answer's evidence link names the OCR text that backs its claim.
    hl = " ".join(request.GET.get("hl", "").split())[:MAX_SNIPPET_CHARS]
    lines = ocr.lines if ocr else []
    context = {
        "frame": frame,
        "ocr": ocr,
        "local": local_time(frame.timestamp, zone),
        "prev": before[0] if before else None,
        "next": after[0] if after else None,
        "q": q,
        "lines": [{"text": line["t"], "box": line["b"]} for line in lines],
        "highlights": boxes_matching(lines=lines, q=q) if q else [],
        "hl": hl,
        "evidence_boxes": boxes_of_snippet(lines=lines, snippet=hl) if hl else [],
        "permalink": request.build_absolute_uri(f"/frames/{frame.id}/view"),
        "color": timeline.app_color(frame.app_name),
    }
    return render(request, "frames/viewer.html", context)


def _lines(value: str) -> list[str]:
    return [line.strip() for line in value.splitlines() if line.strip()]


PATTERN_FIELDS = ("excluded_apps", "excluded_windows", "excluded_urls")


def settings_page(request: HttpRequest):
    """The privacy rules, edited as one pattern per line; the retention, and the space the memory
    takes (by part and by day) with what keeping fewer days would free."""
    saved, error = False, ""
    if request.method == "POST":
        # Checkboxes are absent when unticked; the pattern boxes are always sent by the page, so a
        # post without one is not this form and changes nothing (it would clear those rules).
        fields = {
            **{key: _lines(request.POST.get(key, "")) for key in PATTERN_FIELDS},
            "redact_secrets": bool(request.POST.get("redact_secrets")),
            "capture_paused": bool(request.POST.get("capture_paused")),
        }
        missing = [key for key in PATTERN_FIELDS if key not in request.POST]
        try:
            if missing:
                raise ApplicationError(f"Nothing was saved: the form has no {', '.join(missing)}.")
            rules = services.privacy_update(**PrivacyRulesIn(**fields).dict()).to_json()
            saved = True
        except ValidationError as exc:
            rules, error = fields, errors_explained(exc.errors())[0]
        except ApplicationError as exc:
            rules, error = fields, exc.message
    else:
        rules = selectors.privacy_rules().to_json()
    form = {key: "\n".join(value) if isinstance(value, list) else value for key, value in rules.items()}
    space = space_summary(zone=request_timezone(request))
    images = sum(part["bytes"] for part in space["parts"] if part["name"] == "images")
    context = {
        "form": form,
        "saved": saved,
        "error": error,
        "retention_days": settings.RETENTION_DAYS,
        "space": space,
        # The images alone: the database and indexes have a size of their own before the first frame.
        "image_per_frame": images // space["frames"] if space["frames"] else 0,
        "keeping_fewer": keeping_fewer_said(space["if_kept"]),
    }
    return render(request, "frames/settings.html", context, status=400 if error else 200)


def keeping_fewer_said(if_kept: list[dict]) -> str:
    """What keeping only the last days of each choice would free (space_summary's if_kept, fewest
    days first), each figure once: the choices that free the same are named together, and those
    that free nothing as what nothing is older than."""
    groups: list[tuple[list[int], int]] = []
    for choice in if_kept:
        if groups and groups[-1][1] == choice["frees_bytes"]:
            groups[-1][0].append(choice["days"])
        else:
            groups.append(([choice["days"]], choice["frees_bytes"]))
    freeing = [(days, size) for days, size in groups if size]
    if not freeing:
        return f"Everything stored is from the last {if_kept[0]['days']} days: a retention limit would free nothing yet."
    said = [
        f"{' or '.join(str(d) for d in days)} days {'would free ' if not i else ''}about {filesizeformat(size)}"
        for i, (days, size) in enumerate(freeing)
    ]
    text = "Keeping only the last " + ", ".join(said)
    older = [days[0] for days, size in groups if not size]
    if older:
        text += f"; nothing is older than {older[0]} days"
    return text + "."
