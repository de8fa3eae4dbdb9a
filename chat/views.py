from collections import Counter
from datetime import datetime

from django.http import Http404, HttpRequest
from django.shortcuts import render
from django.views.decorators.http import require_GET

from chat import selectors
from chat.modes import answer_mode_get
from frames.selectors import app_names
from myrecall.errors import NotFound
from myrecall.timezones import local_time, request_timezone

SESSIONS_SHOWN = 50


def range_label(start: datetime, end: datetime) -> str:
    """'Mon 6 May 14:00–17:00', or both days when the range spans midnight."""
    if start.date() == end.date():
        return f"{start:%a} {start.day} {start:%b %H:%M}–{end:%H:%M}"
    return f"{start:%a} {start.day} {start:%b %H:%M} – {end:%a} {end.day} {end:%b %H:%M}"


def dropped_label(dropped: list[dict]) -> str:
    """'2 citations dropped: outside range' (reasons by count, most common first)."""
    if not dropped:
        return ""
    reasons = ", ".join(reason for reason, _ in Counter(item["reason"] for item in dropped).most_common())
    return f"{len(dropped)} citation{'s' if len(dropped) != 1 else ''} dropped: {reasons}"


def deleted_label(count: int) -> str:
    if not count:
        return ""
    frames = "frame it cited was" if count == 1 else "frames it cited were"
    return f"{count} {frames} deleted since this answer: those claims can no longer be checked."


def _turn(message: dict, zone) -> dict:
    span = message["time_range"]
    return {
        **message,
        "range": range_label(local_time(span["start_time"], zone), local_time(span["end_time"], zone)) if span else "",
        "dropped_label": dropped_label(message["dropped"]),
        "deleted_label": deleted_label(message["evidence_deleted"]),
        "evidence": [{**item, "local": local_time(item["timestamp"], zone)} for item in message["evidence"]],
    }


@require_GET
def chat_page(request: HttpRequest):
    zone = request_timezone(request)
    session = None
    if "session" in request.GET:
        raw = request.GET["session"]
        if not (raw.isascii() and raw.isdigit() and len(raw) <= 18):  # 18 digits fit in SQLite's integers
            raise Http404(f"“{raw}” is not a chat; pick one from the list.")
        try:
            session = selectors.chat_session_detail(session_id=int(raw))
        except NotFound as exc:
            raise Http404(f"There is no chat {raw}: it may have been deleted.") from exc
    agent = answer_mode_get("agent")  # registered by agent_bridge, when installed
    agent_unready = agent.unready_reason() if agent is not None else None
    context = {
        "apps": app_names(),
        # Offered only when it can answer; else the page says why and how to turn it on.
        "agent_offered": agent is not None and not agent_unready,
        "agent_unready": agent_unready or "",
        "sessions": [
            {**item, "updated": local_time(item["updated_at"], zone)} for item in selectors.chat_sessions_list(limit=SESSIONS_SHOWN)
        ],
        "session": session,
        "turns": [_turn(message, zone) for message in session["messages"]] if session else [],
    }
    return render(request, "chat/chat.html", context)
