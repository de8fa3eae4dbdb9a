"""Agent answers: a question put to the Pi sidecar, its events passed on live, its answer's
citations validated and stored (seed 000; seed 003's turn state).

`agent_answer_stream` is the chat's "agent" mode (registered in AgentBridgeConfig.ready). It
yields ("start", ...), then each of Pi's events as Pi wrote it (its type as the event name,
agent_bridge.events' wire form), then the app's own ("final", payload) with the validated
citations, or ("error", {message, ...}). Every turn is an AgentTurn row with its status, the
time of Pi's last event and an audit log of its tool calls (AgentToolCall).

A citation counts only if the frame exists, lies in the range the user gave (when one was
given) and a tool result of the same turn returned it; the rest are dropped with the reason,
with the claims they alone supported. An answer whose tools found frames but that cites none
of them is not shown as a finding: the frames the searches returned are listed instead.

The watchdogs: no event AGENT_TURN_START_TIMEOUT_S after the question, or a turn longer than
AGENT_TURN_TIMEOUT_S: the turn is aborted (Pi's abort; Pi is killed and restarted when it does
not stop) and the user is told. One turn at a time: a second question meanwhile gets 409, whichever
web process it reaches (each runs its own Pi; they share the turn through AgentSlot in the
database)."""

import logging
import os
import queue
import re
import socket
import threading
import uuid
import time
import weakref
from collections.abc import Iterator
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone
from pathlib import Path
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import connections, transaction
from django.db.models import Q
from django.utils import timezone

from agent_bridge.events import AgentEnd, AutoRetryEnd, AutoRetryStart, MessageStart, PiEvent, Response, ToolEnd, ToolStart
from agent_bridge.manager import AgentManager, ProcessExited
from agent_bridge.models import AgentSlot, AgentToolCall, AgentTurn, TurnStatus
from agent_bridge.process import AgentUnavailable, PiSetup, conversation_files_remove, pi_binary
from agent_bridge.prompts import agent_question, agent_system_prompt
from chat.citations import ValidatedAnswer, citations_unlink, citations_validate
from chat.evidence import FRAME_FIELDS, SampledFrame, sampled_frame
from chat.models import ChatMessage, DroppedReason
from chat.modes import AnswerMode, ChatQuery
from chat.sampling import ocr_truncate
from chat.selectors import answer_sources
from chat.services import answer_fail, answer_final, answer_sources_add, answer_store, answers_erase, turn_open
from frames.models import Frame
from myrecall.errors import ApplicationError, NotFound
from myrecall.models import ApiToken
from myrecall.selectors import pid_alive
from myrecall.services import api_token_create
from myrecall.timezones import timezone_parse

logger = logging.getLogger(__name__)

TOKEN_NAME = "agent (web process {pid})"
RESULT_CHARS = 2000  # of a tool result kept in the audit log
ABORT_WAIT_S = 5.0
RETRY_WAIT_S = 3.0  # after a failed run, how long Pi may take to announce its own retry
EVENT_WRITE_EVERY_S = 1.0  # last_event_at is written at most this often (text deltas come by the hundred)
FALLBACK_FRAMES = 8
_FRAME_ID = re.compile(r'"frame_id"\s*:\s*(\d{1,18})|myrecall://frame/(\d{1,18})', re.IGNORECASE)

_manager: AgentManager | None = None
_manager_lock = threading.Lock()
# Given to Pi when it starts, from the first question this process gets (or the settings):
# where the skills reach the API, and the user's timezone (for `date`).
_start = {"api_url": "", "zone": "UTC"}
# What the running Pi's conversation holds: the turns of one chat from one answer (message id) on.
_conversation = {"pid": None, "session": None, "first_answer": 0}


# -- the process ------------------------------------------------------------------------------


def agent_unready_reason() -> str | None:
    """Why agent mode cannot answer here, with what to do; None when it can try."""
    if not settings.LLM_BASE_URL or not settings.LLM_MODEL:
        return (
            "Agent mode needs a model: set LLM_BASE_URL and LLM_MODEL (any OpenAI-compatible endpoint, "
            "see the README's 'Point it at an LLM') and restart MyRecall. Summary mode works without one."
        )
    if pi_binary(settings.AGENT_PI_BINARY, settings.BASE_DIR) is None:
        return (
            "Agent mode needs the Pi agent, which is not installed: run the setup command from the README "
            "again (it installs Pi with npm; Node 20.6 or newer is needed)."
        )
    return None


@transaction.atomic
def agent_token_issue() -> str:
    """A read-only API token for this web process's agent, made now; the tokens of agents whose
    web process is gone are deleted."""
    prefix = TOKEN_NAME.split("{")[0]
    for token in ApiToken.objects.filter(name__startswith=prefix, read_only=True):
        pid = re.search(r"(\d+)\)$", token.name)
        if pid is None or int(pid.group(1)) == os.getpid() or not pid_alive(int(pid.group(1))):
            token.delete()
    _, raw = api_token_create(name=TOKEN_NAME.format(pid=os.getpid()), read_only=True)
    return raw


def agent_token_revoke() -> None:
    ApiToken.objects.filter(name=TOKEN_NAME.format(pid=os.getpid()), read_only=True).delete()


def _setup() -> PiSetup:
    binary = pi_binary(settings.AGENT_PI_BINARY, settings.BASE_DIR)
    if binary is None:
        raise AgentUnavailable(agent_unready_reason() or "Pi is not installed.")
    zone = timezone_parse(_start["zone"]) or ZoneInfo("UTC")
    return PiSetup(
        binary=binary,
        home=settings.DATA_DIR / "agent" / f"pi-{os.getpid()}",
        model=settings.LLM_MODEL,
        llm_base_url=settings.LLM_BASE_URL,
        llm_api_key=settings.LLM_API_KEY,
        context_window=settings.LLM_CONTEXT_WINDOW,
        max_tokens=settings.LLM_MAX_TOKENS,
        system_prompt=agent_system_prompt(now=timezone.now(), zone=zone),
        skills=tuple(sorted(path.parent for path in (Path(settings.BASE_DIR) / "skills").glob("*/SKILL.md"))),
        model_retries=settings.AGENT_MODEL_RETRIES,
        model_retry_delay_s=settings.AGENT_MODEL_RETRY_DELAY_S,
        env={
            "MYRECALL_URL": _start["api_url"].rstrip("/"),
            "MYRECALL_TOKEN": agent_token_issue(),
            "MYRECALL_TIMEZONE": zone.key,
            "TZ": zone.key,
        },
    )


def agent_manager() -> AgentManager:
    """This web process's agent manager (Pi starts on first use)."""
    global _manager
    with _manager_lock:
        if _manager is None:
            _manager = AgentManager(_setup, max_restarts=settings.AGENT_MAX_RESTARTS)
        return _manager


def agent_stop() -> None:
    """Stop this process's Pi and revoke its token (the web server is stopping)."""
    global _manager
    with _manager_lock:
        manager, _manager = _manager, None
    if manager is not None:
        manager.stop()
        try:
            agent_token_revoke()
        except Exception:  # the database may be gone at exit
            logger.debug("The agent's token was not revoked at exit", exc_info=True)


# -- turn state -------------------------------------------------------------------------------


ERASED_CALL = "(erased with its answer: frames this turn's searches returned were deleted)"


def agent_answers_erase_on_deleting(sender, *, frames, **kwargs) -> dict:
    """frames_deleting: an answer stored before its sources were kept is erased when a search of
    its turn returned a deleted frame (the others are found by chat's answers_erase_on_deleting)."""
    ids = {frame.id for frame in frames}
    drew_on: dict[int, set[int]] = {}
    calls = AgentToolCall.objects.filter(turn__message__sources_known=False).values_list("turn__message_id", "frame_ids")
    for message_id, frame_ids in calls:
        if ids.intersection(frame_ids or ()):
            drew_on.setdefault(message_id, set()).update(ids.intersection(frame_ids))
    return answers_erase(drew_on=drew_on, deleting=ids)


def conversation_files_erase_on_erasing(sender, **kwargs) -> None:
    """frames_erasing: Pi's conversation files that earlier versions left held what deleted screens said."""
    conversation_files_remove(settings.DATA_DIR / "agent")


def tool_calls_erase_on_answers_erasing(sender, *, message_ids, **kwargs) -> dict:
    """answers_erasing: the tool calls of an erased answer's turn held what the screens said (the
    results) and the words the agent searched for (the commands): both go; the tool, the frame
    ids and the times stay, for the audit."""
    calls = AgentToolCall.objects.filter(turn__message_id__in=message_ids).exclude(result=ERASED_CALL, command=ERASED_CALL)
    return {"agent_tool_calls": calls.update(result=ERASED_CALL, command=ERASED_CALL)}


def _turn_update(turn: AgentTurn, **fields) -> None:
    for name, value in fields.items():
        setattr(turn, name, value)
    AgentTurn.objects.filter(pk=turn.pk).update(**fields)


def _frame_ids(text: str) -> list[int]:
    return list(dict.fromkeys(int(a or b) for a, b in _FRAME_ID.findall(text)))


def _tool_started(turn: AgentTurn, event: ToolStart) -> None:
    command = event.args.get("command") or event.args.get("path") or str(event.args)
    AgentToolCall.objects.create(turn=turn, call_id=event.call_id, tool=event.tool, command=str(command), started_at=timezone.now())
    _turn_update(turn, tool_calls=turn.tool_calls + 1)


def _tool_ended(turn: AgentTurn, event: ToolEnd) -> list[int]:
    """Record what the call returned, and the frames it returned as what the answer read; the
    frame ids in it (none from a failed call)."""
    ids = [] if event.is_error else _frame_ids(event.text)
    answer_sources_add(message_id=turn.message_id, frame_ids=Frame.objects.filter(id__in=ids).values_list("id", flat=True))
    updated = AgentToolCall.objects.filter(turn=turn, call_id=event.call_id).update(
        result=event.text[:RESULT_CHARS], result_chars=len(event.text), is_error=event.is_error, frame_ids=ids, finished_at=timezone.now()
    )
    if not updated:  # an end without its start: keep it in the log anyway
        AgentToolCall.objects.create(
            turn=turn, call_id=event.call_id, tool=event.tool, command="", result=event.text[:RESULT_CHARS],
            result_chars=len(event.text), is_error=event.is_error, frame_ids=ids, started_at=timezone.now(), finished_at=timezone.now(),
        )
    return ids


# -- the answer -------------------------------------------------------------------------------


def _frames_for(frame_ids) -> dict[int, SampledFrame]:
    rows = Frame.objects.filter(id__in=list(frame_ids)).values(*FRAME_FIELDS, "ocr__text")
    return {row["id"]: sampled_frame(row, snippet=ocr_truncate(text=row["ocr__text"] or "")) for row in rows}


def _validate(
    query: ChatQuery, text: str, returned: list[int], frames: dict[int, SampledFrame], failed: list[str]
) -> ValidatedAnswer:
    """The answer's citations checked (exists, in the range when one was given, returned by a
    tool of this turn). When the tools returned frames and the answer cites none of them, the
    answer is not shown as a finding; the frames found are listed, verified the same way. When
    nothing of the answer is left (its every claim cited frames no search returned, and none
    returned any), the user is told so, with its text shown as unsupported and what its failed
    searches said (`failed`): never a blank answer."""
    bounds = {}
    if query.filters is not None:
        bounds = {
            "start_time": datetime.fromtimestamp(query.filters.start_time, tz=dt_timezone.utc),
            "end_time": datetime.fromtimestamp(query.filters.end_time, tz=dt_timezone.utc),
        }
    check = {"context_ids": set(returned), "zone": query.zone, "outside_context": DroppedReason.NOT_RETURNED, **bounds}
    validated = citations_validate(answer_md=text, **check)
    if not frames and not validated.answer_md.strip():
        return ValidatedAnswer(answer_md=_nothing_supported(text, validated, failed), citations=validated.citations)
    if validated.valid_ids or not frames:
        return validated
    found = sorted(frames.values(), key=lambda f: (f.timestamp, f.frame_id))[:FALLBACK_FRAMES]
    listing = "\n".join(
        f"- [{f.timestamp.astimezone(query.zone):%H:%M}](myrecall://frame/{f.frame_id}) {f.app_name or 'unknown app'}"
        + (f" — {f.window_name}" if f.window_name else "")
        + (f": {f.ocr_snippet}" if f.ocr_snippet else "")
        for f in found
    )
    fallback = citations_validate(answer_md=listing, **check)
    note = (
        "*The agent's answer cited none of the frames its searches returned, so it is not shown: nothing "
        "supports it. These are the frames it found:*"
    )
    return ValidatedAnswer(answer_md=note + "\n\n" + fallback.answer_md, citations=validated.citations + fallback.citations)


def _nothing_supported(text: str, validated: ValidatedAnswer, failed: list[str]) -> str:
    dropped = len([check for check in validated.citations if not check.valid])
    if text.strip():
        lines = [
            f"*The agent's answer is not shown as a finding: it cited {dropped} frame{'s' if dropped != 1 else ''} "
            "that its searches did not return, and its searches returned no frames.*"
            if dropped else "*The agent's answer is not shown as a finding: its searches returned no frames.*"
        ]
    else:
        lines = ["*The agent ended without an answer, and its searches returned no frames.*"]
    if failed:
        said = " ".join(failed[-1].split())[:300] or "no output"
        lines.append(f"*{len(failed)} of its searches failed; the last said:* `{said.replace('`', chr(39))}`")
    if text.strip():
        quoted = "\n".join(f"> {line}" if line.strip() else ">" for line in citations_unlink(text).strip().splitlines())
        lines.append("What it wrote, unsupported:\n\n" + quoted)
    return "\n\n".join(lines)


# The one turn across web processes (AgentSlot): who this process is, how often a turn says it is
# still running, and how long a holder may stay silent before its slot is taken (its process died).
_HOLDER = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
SLOT_BEAT_S = 5.0
SLOT_STALE_S = 30.0


def _slot_claim() -> bool:
    """Take the turn for this process unless another process holds it (and said so lately)."""
    now = timezone.now()
    free = Q(holder="") | Q(holder=_HOLDER) | Q(heartbeat_at__isnull=True) | Q(heartbeat_at__lt=now - timedelta(seconds=SLOT_STALE_S))
    if AgentSlot.objects.filter(free, pk=1).update(holder=_HOLDER, heartbeat_at=now):
        return True
    if not AgentSlot.objects.filter(pk=1).exists():  # a database made without the migration's row
        AgentSlot.objects.bulk_create([AgentSlot(pk=1)], ignore_conflicts=True)
        return bool(AgentSlot.objects.filter(free, pk=1).update(holder=_HOLDER, heartbeat_at=now))
    return False


def _slot_beat() -> None:
    AgentSlot.objects.filter(pk=1, holder=_HOLDER).update(heartbeat_at=timezone.now())


def _slot_release() -> None:
    """Give the turn back (from a thread of its own: a release may come from a garbage collection
    anywhere, an event loop's thread included, where Django refuses database calls)."""

    def release() -> None:
        try:
            AgentSlot.objects.filter(pk=1, holder=_HOLDER).update(holder="", heartbeat_at=None)
        except Exception:  # noqa: BLE001 (the slot goes stale by itself)
            logger.warning("Could not give the agent's turn back; it is free again in %.0f s", SLOT_STALE_S, exc_info=True)
        finally:
            connections.close_all()

    thread = threading.Thread(target=release, name="agent-slot-release", daemon=True)
    thread.start()
    thread.join(timeout=10)


def agent_answer_stream(query: ChatQuery) -> Iterator[tuple[str, dict]]:
    """The chat's agent mode: checked now (a clear 503 or 409 before anything is stored), then
    the turn's events."""
    reason = agent_unready_reason()
    if reason:
        raise ApplicationError(reason, status_code=503)
    try:
        release_here = agent_manager().turn_claim()
    except AgentUnavailable as exc:
        raise ApplicationError(exc.message, status_code=exc.status_code) from exc
    if not _slot_claim():
        release_here()
        raise ApplicationError(
            "The agent is still answering another question (asked through another MyRecall server). "
            "Wait for it to finish, or stop it with Abort, then ask again.",
            status_code=409,
        )
    released = threading.Event()

    def release() -> None:
        if not released.is_set():
            released.set()
            release_here()
            _slot_release()

    events = _turn_events(query, release)
    weakref.finalize(events, release)  # a turn that never runs gives the agent back too
    return events


# The app's own events that end a turn (Pi's events are named after Pi's types, none of these).
TURN_ENDS = ("final", "error")


def _fail(turn: AgentTurn, reply: ChatMessage, status: str, message: str, text: str, started: float) -> dict:
    ms = int((time.monotonic() - started) * 1000)
    answer_fail(reply=reply, message=message, raw=text, llm_ms=ms, total_ms=ms)
    _turn_update(turn, status=status, error=message, finished_at=timezone.now())
    return {"message": message, "session_id": reply.session_id, "message_id": reply.id, "turn_id": turn.id, "status": status}


def _turn_events(query: ChatQuery, release) -> Iterator[tuple[str, dict]]:
    """The turn, holding the agent until it ends (`release` gives it back): given back before the
    turn's last event ("final" or "error", the app's own) goes out, so a question the page sends
    as soon as it hears the turn ended is taken, not refused as busy."""
    try:
        for kind, data in _turn(query):
            if kind in TURN_ENDS:
                release()
            yield kind, data
    finally:
        release()


def _conversation_continues(session_id: int) -> bool:
    """The running Pi's conversation holds this chat's turns, and no answer among them was erased
    since (frames it read were deleted: Pi must not keep what they said)."""
    return _conversation["session"] == session_id and not ChatMessage.objects.filter(
        session_id=session_id, id__gte=_conversation["first_answer"], erased_at__isnull=False
    ).exists()


def _turn(query: ChatQuery) -> Iterator[tuple[str, dict]]:
    started = time.monotonic()
    manager = agent_manager()
    bounds = (None, None)
    if query.filters is not None:
        bounds = tuple(datetime.fromtimestamp(t, tz=dt_timezone.utc) for t in (query.filters.start_time, query.filters.end_time))
    session, _, reply = turn_open(query=query, model_name=f"pi:{settings.LLM_MODEL}", start_time=bounds[0], end_time=bounds[1])
    turn = AgentTurn.objects.create(message=reply)
    text = ""
    try:
        running = manager.process
        if running is not None and running.pid == _conversation["pid"] and not _conversation_continues(session.id):
            # A new conversation is a new Pi: Pi's new_session would write the conversation to files
            # in its working dir from then on, --no-session notwithstanding (Pi 0.73.1).
            manager.stop()
        with manager.listen() as events:
            if manager.process is None:
                _start.update(api_url=settings.AGENT_API_URL or query.origin or "http://127.0.0.1:8000", zone=query.zone.key)
            process = manager.ensure()
            if _conversation["pid"] != process.pid:  # a Pi just started (or restarted): its conversation is empty
                _conversation.update(pid=process.pid, session=session.id, first_answer=reply.id)
            _turn_update(turn, pi_pid=process.pid)
            yield "start", {
                "session_id": session.id, "message_id": reply.id, "turn_id": turn.id, "model": reply.model_name,
                "time_range": {"start_time": query.filters.start_time, "end_time": query.filters.end_time, "timezone": query.zone.key}
                if query.filters is not None else None,
            }
            # What Pi's conversation holds from the chat's earlier turns, this answer may quote too.
            earlier = AgentTurn.objects.filter(
                message__session_id=session.id, message_id__gte=_conversation["first_answer"], message_id__lt=reply.id
            ).values_list("message_id", flat=True)
            answer_sources_add(message_id=reply.id, frame_ids=answer_sources(message_ids=list(earlier)))
            if manager.cancelled == turn.id:  # stopped before Pi got the question
                yield "error", _fail(turn, reply, TurnStatus.CANCELLED, "Stopped: the question was aborted.", "", started)
                return
            prompt = agent_question(message=query.message, now=timezone.now(), zone=query.zone, start=bounds[0], end=bounds[1])
            # Not waited for here: its reply is one of the events the turn-start watchdog waits for.
            prompt_id, _ = process.send({"type": "prompt", "message": prompt})
            _turn_update(turn, status=TurnStatus.RUNNING, started_at=timezone.now())
            outcome = yield from _follow(query, turn, events, time.monotonic(), prompt_id)
    except AgentUnavailable as exc:
        yield "error", _fail(turn, reply, TurnStatus.FAILED, exc.message, text, started)
        return
    except GeneratorExit:
        _abort(manager)
        _fail(turn, reply, TurnStatus.CANCELLED, "The answer was interrupted: the client went away.", text, started)
        raise
    except Exception:
        logger.exception("Agent turn %s failed", turn.id)
        yield "error", _fail(turn, reply, TurnStatus.FAILED, "Internal error while the agent answered; see the server log.", text, started)
        return
    status, message, text, returned = outcome
    if status != TurnStatus.DONE:
        yield "error", _fail(turn, reply, status, message, text, started)
        return
    frames = _frames_for(returned)
    failed = list(AgentToolCall.objects.filter(turn=turn, is_error=True).order_by("started_at").values_list("result", flat=True))
    validated = _validate(query, text, returned, frames, failed)
    total_ms = int((time.monotonic() - started) * 1000)
    evidence = answer_store(reply=reply, validated=validated, raw=text, frames_by_id=frames, llm_ms=total_ms, total_ms=total_ms)
    _turn_update(turn, status=TurnStatus.DONE, finished_at=timezone.now())
    yield "final", answer_final(
        reply=reply, validated=validated, evidence=evidence, turn_id=turn.id, tool_calls=turn.tool_calls,
        timings={"total_ms": total_ms},
    )


def _abort(manager: AgentManager) -> bool:
    """Pi's abort; when Pi does not answer it, Pi is killed (the manager restarts it)."""
    process = manager.process
    if process is None or not process.alive:
        return False
    try:
        process.request({"type": "abort"}, timeout=ABORT_WAIT_S)
        return True
    except AgentUnavailable:
        logger.warning("Pi did not answer an abort; killing it")
        process.kill()
        return False


def agent_abort(*, turn_id: int) -> AgentTurn:
    """Stop a running turn (the page's Abort): Pi's abort; the turn ends as cancelled."""
    turn = AgentTurn.objects.filter(pk=turn_id).first()
    if turn is None:
        raise NotFound(f"Agent turn {turn_id} does not exist.", extra={"turn_id": turn_id})
    if turn.status in (TurnStatus.PENDING, TurnStatus.RUNNING):
        manager = agent_manager()
        manager.cancelled = turn.id
        _abort(manager)
    return turn


def _follow(query: ChatQuery, turn: AgentTurn, events: queue.Queue, started: float, prompt_id: str):
    """Pass Pi's events on until the turn ends (`started`: when the question went to Pi);
    returns (status, message, text, frame ids returned)."""
    first_deadline = started + settings.AGENT_TURN_START_TIMEOUT_S
    deadline = started + settings.AGENT_TURN_TIMEOUT_S
    seen_event = False
    returned: list[int] = []
    text = ""
    pending_end: AgentEnd | None = None
    pending_end_at = 0.0
    last_write = 0.0
    manager = agent_manager()
    aborts = 0  # the user's aborts sent from here: 1 before Pi showed this run begun, 2 once it had
    last_beat = time.monotonic()
    while True:
        if time.monotonic() - last_beat >= SLOT_BEAT_S:  # still answering: the other servers wait
            _slot_beat()
            last_beat = time.monotonic()
        if manager.cancelled == turn.id and (aborts == 0 or (aborts == 1 and seen_event)):
            # The user's abort may have come before Pi began this run (Pi ignores an abort then): it
            # is sent again from here, and once more when the run's first event shows it began.
            aborts = 2 if seen_event else 1
            _abort(manager)
        now = time.monotonic()
        limit = min(deadline, first_deadline if not seen_event else deadline)
        if pending_end is not None:
            limit = min(limit, pending_end_at + RETRY_WAIT_S)
        if now >= limit:
            if pending_end is not None:  # no retry announced: the failed run was the last
                return TurnStatus.FAILED, _model_failed(pending_end.error), text, returned
            aborted = _abort(manager)
            what = (
                f"The agent did not start answering within {settings.AGENT_TURN_START_TIMEOUT_S:g} s"
                if not seen_event
                else f"The agent's answer took longer than {settings.AGENT_TURN_TIMEOUT_S:g} s"
            )
            tail = "; it was stopped and is ready for the next question." if aborted else "; it was restarted."
            return TurnStatus.TIMED_OUT, what + tail, text, returned
        try:
            event: PiEvent = events.get(timeout=min(limit - now, 0.5))
        except queue.Empty:
            continue
        if isinstance(event, ProcessExited):
            return TurnStatus.FAILED, (
                f"The agent stopped unexpectedly ({manager.last_exit or 'exit code ' + str(event.code)}); "
                "it restarts by itself: ask again in a few seconds."
            ), text, returned
        if isinstance(event, Response):
            if event.id == prompt_id and not event.success:
                return TurnStatus.FAILED, f"The agent refused the question: {event.error}", text, returned
            continue  # other replies (their callers get them by id)
        seen_event = True
        now_wall = time.monotonic()
        if now_wall - last_write >= EVENT_WRITE_EVERY_S:
            _turn_update(turn, last_event_at=timezone.now(), events=turn.events + 1)
            last_write = now_wall
        else:
            turn.events += 1
        yield event.type, event.wire()
        if isinstance(event, ToolStart):
            _tool_started(turn, event)
        elif isinstance(event, ToolEnd):
            returned += [frame_id for frame_id in _tool_ended(turn, event) if frame_id not in returned]
        elif isinstance(event, MessageStart) and event.role == "assistant":
            pending_end = None
        elif isinstance(event, AutoRetryStart):
            pending_end = None
        elif isinstance(event, AutoRetryEnd) and not event.success:
            return TurnStatus.FAILED, _model_failed(event.error), text, returned
        elif isinstance(event, AgentEnd):
            _turn_update(turn, last_event_at=timezone.now(), events=turn.events)
            if event.stop_reason == "aborted":
                cancelled = getattr(manager, "cancelled", None) == turn.id
                return (TurnStatus.CANCELLED, "Stopped: the question was aborted.", event.text, returned) if cancelled else (
                    TurnStatus.TIMED_OUT, "The agent's turn was stopped.", event.text, returned
                )
            if event.stop_reason == "error":
                pending_end, pending_end_at = event, time.monotonic()
                continue
            return TurnStatus.DONE, "", event.text, returned


def _model_failed(error: str) -> str:
    return f"The model did not answer the agent ({error or 'no reason given'}). Check LLM_BASE_URL and that the model server is up, then ask again."


AGENT = AnswerMode(
    name="agent", stream=agent_answer_stream, needs_range=False, description="the Pi agent searches for itself",
    unready_reason=agent_unready_reason,
)
