"""Answers in the chat: the summary mode (seed 002), and the storing of every answer.

A summary is one bounded retrieval, one answer, its citations validated, then stored:
`summary_answer_stream` yields its events: ("start", ...), ("delta", {"text"}) as the answer
is written, then ("final", payload) or ("error", ...). Every citation is checked by
chat.citations before anything is stored or returned, and the user sees only the validated
text. `turn_open`, `answer_store` and `answer_fail` store a question and its answer for any
mode; `chat_answer_stream` runs the mode a query asks for (chat.modes), `chat_answer` runs it
to the end.
"""

import logging
import time
from collections.abc import Iterable, Iterator
from datetime import datetime
from datetime import timezone as dt_timezone
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from chat import llm, offline
from chat.citations import ValidatedAnswer, citations_validate
from chat.evidence import SampledFrame, evidence_item, sampled_frame
from chat.models import AnswerSource, ChatMessage, ChatMode, ChatRole, ChatSession, ChatStatus, Citation
from chat.modes import AnswerMode, ChatFailed, ChatQuery, answer_mode_get
from chat.prompts import context_pack, system_prompt_build
from chat.rendering import answer_html
from chat.sampling import MAX_FRAMES, bucket_seconds_choose, ocr_truncate, sample_retrieve, visits_retrieve
from chat.selectors import chat_history, chat_session_get
from chat.signals import answers_erasing
from frames.models import Frame
from myrecall.errors import ApplicationError
from search.filters import Filters
from search.selectors import SearchHit, search_keyword, search_run

logger = logging.getLogger(__name__)

HISTORY_TURNS = 2


def citations_scrub_on_deleting(sender, *, frames, **kwargs) -> dict:
    """frames_deleting: citations of deleted frames lose the OCR snippet they quoted, and their
    answers are marked as citing deleted evidence (in the transaction that deletes the frames)."""
    ids = [frame.id for frame in frames]
    cited = Citation.objects.filter(frame_id_cited__in=ids)
    messages = set(cited.values_list("message_id", flat=True))
    scrubbed = cited.update(snippet="", frame_deleted=True)
    marked = ChatMessage.objects.filter(id__in=messages, evidence_deleted=False).update(evidence_deleted=True)
    return {"citation_snippets": scrubbed, "answers_marked": marked}


def answer_sources_add(*, message_id: int, frame_ids: Iterable[int]) -> None:
    """Record frames an answer was given to read, before it may quote them."""
    AnswerSource.objects.bulk_create(
        [AnswerSource(message_id=message_id, frame_id=frame_id) for frame_id in set(frame_ids)], ignore_conflicts=True
    )


def erased_note(*, screens: int, erased_at: datetime, zone: ZoneInfo) -> str:
    return (
        f"*This answer was erased: it drew on {screens} screen{'s' if screens != 1 else ''} "
        f"deleted on {erased_at.astimezone(zone):%a %d %b %Y}.*"
    )


def _sources_gone(message_id: int, deleting: Iterable[int] = ()) -> set[int]:
    """The frames the answer was given that are gone (or are among `deleting`, whose rows go in
    this transaction)."""
    sources = set(AnswerSource.objects.filter(message_id=message_id).values_list("frame_id", flat=True))
    kept = Frame.objects.filter(id__in=sources).exclude(id__in=list(deleting)).values_list("id", flat=True)
    return sources.difference(kept)


def _erased_meanwhile(reply: ChatMessage, drew_on: Iterable[int]) -> set[int]:
    """Record the frames the answer was given; when some were deleted while it was written (the
    deletion erased it, or came before its sources were known), it is erased now. Returns those."""
    answer_sources_add(message_id=reply.id, frame_ids=drew_on)
    gone = _sources_gone(reply.id)
    if gone:
        reply.erased_at = ChatMessage.objects.filter(id=reply.id).values_list("erased_at", flat=True).get() or timezone.now()
        reply.content = erased_note(screens=len(gone), erased_at=reply.erased_at, zone=ZoneInfo(reply.timezone))
    return gone


def answers_erase(*, drew_on: dict[int, set[int]], deleting: set[int]) -> dict:
    """Erase the answers that drew on frames being deleted (message id -> those frames, recorded
    as its sources): the text, and what the model wrote, give way to a note saying so; the
    question, the chat and the answer's row stay. Later apps erase what they keep of those turns
    (answers_erasing). Returns counts by kind (answers newly erased)."""
    if not drew_on:
        return {}
    AnswerSource.objects.bulk_create(
        [AnswerSource(message_id=message_id, frame_id=frame_id) for message_id, ids in drew_on.items() for frame_id in ids],
        ignore_conflicts=True,
    )
    now = timezone.now()
    counts = {"answers_erased": 0}
    for message in ChatMessage.objects.filter(id__in=list(drew_on)).only("id", "timezone", "erased_at"):
        note = erased_note(screens=len(_sources_gone(message.id, deleting)), erased_at=now, zone=ZoneInfo(message.timezone))
        ChatMessage.objects.filter(id=message.id).update(content=note, raw_content="", erased_at=now)
        counts["answers_erased"] += message.erased_at is None
    for _receiver, erased in answers_erasing.send(sender=ChatMessage, message_ids=list(drew_on)):
        for kind, count in (erased or {}).items():
            counts[kind] = counts.get(kind, 0) + count
    return counts


def answers_erase_on_deleting(sender, *, frames, **kwargs) -> dict:
    """frames_deleting: an answer given a deleted frame to read may quote it, so it is erased
    (answers_erase). For an answer stored before its sources were kept, the deleted frames it
    cited or whose time its range covers are taken as what it read."""
    ids = {frame.id for frame in frames}
    drew_on: dict[int, set[int]] = {}
    for message_id, frame_id in AnswerSource.objects.filter(frame_id__in=ids).values_list("message_id", "frame_id"):
        drew_on.setdefault(message_id, set()).add(frame_id)
    unknown = ChatMessage.objects.filter(role=ChatRole.ASSISTANT, sources_known=False)
    first, last = min(frame.timestamp for frame in frames), max(frame.timestamp for frame in frames)
    for message_id, start, end in unknown.filter(start_time__lte=last, end_time__gt=first).values_list("id", "start_time", "end_time"):
        drew_on.setdefault(message_id, set()).update(frame.id for frame in frames if start <= frame.timestamp < end)
    cited = Citation.objects.filter(message__in=unknown, frame_id_cited__in=ids, valid=True)
    for message_id, frame_id in cited.values_list("message_id", "frame_id_cited"):
        drew_on.setdefault(message_id, set()).add(frame_id)
    return answers_erase(drew_on=drew_on, deleting=ids)


TITLE_CHARS = 80


def _utc(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, tz=dt_timezone.utc)


def mentions_retrieve(
    *, question: str, filters: Filters, frames_in_range: int = 0
) -> list[tuple[str, int, list[SampledFrame]]]:
    """For the offline summariser: the best frames of the range for each term the question asks
    about (see offline.question_terms), with the lines that hold the term as their snippet."""
    mentions = []
    for term in offline.question_terms(question):
        try:
            hits, total = search_keyword(
                q=f'"{term}"', filters=filters, limit=offline.MAX_MENTIONS_PER_TERM, offset=0
            )
        except ApplicationError:  # nothing searchable in the term
            continue
        if frames_in_range and total * 2 > frames_in_range:
            continue  # on most screens of the range: it tells nothing apart
        end = _utc(filters.end_time)
        frames = [
            _mentioned(hit, offline.mention_snippet(hit.text, term))
            for hit in hits
            if hit.timestamp < end  # keyword search includes its end instant; a summary's range does not
        ]
        mentions.append((term, total, frames))
    if mentions:
        mentions += _mentions_by_meaning(question, filters, seen={f.frame_id for _, _, frames in mentions for f in frames})
    return mentions


def _mentioned(hit: SearchHit, snippet: str) -> SampledFrame:
    """A search hit as a frame the summary may show and cite, with this snippet of its text."""
    return sampled_frame(hit, snippet=snippet, lines=tuple(hit.text.splitlines()))


# How close in meaning (cosine) a frame must be to the question to be listed as about it.
MEANING_MIN_SIMILARITY = 0.25


def _mentions_by_meaning(question: str, filters: Filters, seen: set[int]) -> list[tuple[str | None, int, list[SampledFrame]]]:
    """The other half of hybrid lookup: frames close in meaning to the whole question though none
    of its words is on them ("taxes" for a screen of Form 1040), as one mention without a term.
    Nothing when the meaning side is down: the words' mentions stand alone."""
    result = search_run(q=question, filters=filters, mode="semantic", limit=offline.MAX_MENTIONS_PER_TERM, offset=0)
    if result.degraded:
        return []
    end = _utc(filters.end_time)
    frames = [
        _mentioned(hit, ocr_truncate(text=hit.text))
        for hit in result.hits
        if hit.frame_id not in seen and (hit.score or 0) >= MEANING_MIN_SIMILARITY and hit.timestamp < end
    ]
    return [(None, len(frames), frames)] if frames else []


def _ms(since: float) -> int:
    return int((time.monotonic() - since) * 1000)


def _nothing_captured(start: datetime, end: datetime, zone: ZoneInfo, filtered: bool) -> str:
    what = "matching these filters " if filtered else ""
    return (
        f"Nothing {what}was captured between {start.astimezone(zone):%a %d %b %H:%M} and "
        f"{end.astimezone(zone):%a %d %b %H:%M} ({zone.key}), so there is nothing to summarise."
    )


def _unsupported(frames_in_range: int) -> str:
    return (
        f"*The model's answer cited none of the {frames_in_range} frames captured in this range, so it is not "
        "shown: nothing in the range supports it. (Questions that are not about your screen, such as how to use "
        "MyRecall, cannot be answered from it.) Here is what the captured frames show:*"
    )


def _offline_answer(query: ChatQuery, frames: list[SampledFrame], frames_in_range: int, frames_by_id: dict) -> str:
    """The built-in summary of the sampled frames, with where the question's words appear;
    the frames found for those words join `frames_by_id` (the frames the answer may cite)."""
    filters = query.filters
    mentions = mentions_retrieve(question=query.message, filters=filters, frames_in_range=frames_in_range)
    for _term, _total, found in mentions:
        for frame in found:
            frames_by_id[frame.frame_id] = frame  # its snippet is the line with the word
    visits = visits_retrieve(filters=filters) if offline.places_asked(query.message) else None
    for visit in visits or []:
        frames_by_id.setdefault(visit.frame.frame_id, visit.frame)
    return offline.offline_summarise(
        frames=frames,
        start_time=_utc(filters.start_time),
        end_time=_utc(filters.end_time),
        zone=query.zone,
        bucket_seconds=bucket_seconds_choose(range_seconds=filters.end_time - filters.start_time, max_frames=MAX_FRAMES),
        frames_in_range=frames_in_range,
        mentions=mentions,
        question=query.message,
        visits=visits,
    )


def turn_open(
    *, query: ChatQuery, model_name: str, start_time: datetime | None, end_time: datetime | None, retrieval_ms: int | None = None
) -> tuple[ChatSession, ChatMessage, ChatMessage]:
    """Store the question and an answer in progress (status streaming), in the query's chat or
    a new one titled after the question. Returns (session, question, answer)."""
    session = chat_session_get(session_id=query.session_id) if query.session_id else None
    with transaction.atomic():
        if session is None:
            session = ChatSession.objects.create(title=" ".join(query.message.split())[:TITLE_CHARS], timezone=query.zone.key)
        common = {"session": session, "mode": query.mode, "start_time": start_time, "end_time": end_time, "timezone": query.zone.key}
        asked = ChatMessage.objects.create(role=ChatRole.USER, content=query.message, status=ChatStatus.DONE, **common)
        reply = ChatMessage.objects.create(
            role=ChatRole.ASSISTANT, status=ChatStatus.STREAMING, model_name=model_name, retrieval_ms=retrieval_ms, **common
        )
        session.save(update_fields=["updated_at"])
    return session, asked, reply


def answer_store(
    *,
    reply: ChatMessage,
    validated: ValidatedAnswer,
    raw: str,
    frames_by_id: dict[int, SampledFrame],
    llm_ms: int,
    total_ms: int,
    drew_on: Iterable[int] = (),
) -> list[dict]:
    """Store a finished answer: its validated text, the model's raw text, every citation
    (dropped ones with the reason) and the frames it was given (`frames_by_id`, and `drew_on`:
    those of the earlier answers it was shown). One given a frame deleted meanwhile is stored
    erased. Returns its evidence items, in time order."""
    zone = ZoneInfo(reply.timezone)
    with transaction.atomic():
        gone = _erased_meanwhile(reply, [*frames_by_id, *drew_on])
        Citation.objects.bulk_create(
            Citation(
                message=reply,
                frame=None if check.frame_id in gone else check.frame,
                frame_id_cited=check.frame_id,
                timestamp=check.frame.timestamp if check.frame else None,
                snippet=frames_by_id[check.frame_id].ocr_snippet if check.frame_id in frames_by_id and check.frame_id not in gone else "",
                frame_deleted=check.frame_id in gone,
                valid=check.valid,
                dropped_reason=check.reason,
            )
            for check in validated.citations
        )
        if not gone:
            reply.content = validated.answer_md
        reply.raw_content = "" if gone else raw
        reply.evidence_deleted = bool(gone.intersection(validated.valid_ids))
        reply.status = ChatStatus.DONE
        reply.llm_ms = llm_ms
        reply.total_ms = total_ms
        reply.save(update_fields=["content", "raw_content", "erased_at", "evidence_deleted", "status", "llm_ms", "total_ms"])
    return _evidence(validated, frames_by_id, zone, gone)


def _evidence(validated: ValidatedAnswer, frames_by_id: dict[int, SampledFrame], zone: ZoneInfo, gone: set[int] = frozenset()) -> list[dict]:
    """The evidence items of the frames an answer validly cites (but those in `gone`), in time order."""
    cited = sorted(
        (frames_by_id[frame_id] for frame_id in validated.valid_ids if frame_id not in gone), key=lambda f: (f.timestamp, f.frame_id)
    )
    return [evidence_item(frame, zone) for frame in cited]


def answer_final(*, reply: ChatMessage, validated: ValidatedAnswer, evidence: list[dict], **extra) -> dict:
    """The `final` event of a stored answer (the API's answer body)."""
    return {
        "session_id": reply.session_id,
        "message_id": reply.id,
        "status": reply.status,
        "model": reply.model_name,
        "answer_md": reply.content,
        "answer_html": answer_html(
            answer_md=reply.content, viewer_urls={item["frame_id"]: item["viewer_url"] for item in evidence}
        ),
        "time_range": {"start_time": reply.start_time.timestamp(), "end_time": reply.end_time.timestamp(), "timezone": reply.timezone}
        if reply.start_time and reply.end_time
        else None,
        "evidence": evidence,
        "dropped": [{"frame_id": check.frame_id, "reason": str(check.reason)} for check in validated.citations if not check.valid],
        **extra,
    }


def answer_fail(
    *, reply: ChatMessage, message: str, raw: str, llm_ms: int, total_ms: int, status: str = ChatStatus.FAILED, drew_on: Iterable[int] = ()
) -> None:
    """Store why an answer could not be given, what the model had written and the frames it
    was given (see answer_store)."""
    with transaction.atomic():
        gone = _erased_meanwhile(reply, drew_on)
        reply.status = status
        reply.error = message
        reply.raw_content = "" if gone else raw
        reply.llm_ms = llm_ms
        reply.total_ms = total_ms
        reply.save(update_fields=["status", "error", "content", "raw_content", "erased_at", "llm_ms", "total_ms"])


def _model_answer(query: ChatQuery, history: list[dict], frames: list[SampledFrame], frames_in_range: int) -> Iterator[str]:
    """The configured model's answer over the chat's last turns and the packed frames, as it streams."""
    filters, zone = query.filters, query.zone
    messages = [
        {
            "role": "system",
            "content": system_prompt_build(now=timezone.now(), zone=zone, start_time=_utc(filters.start_time), end_time=_utc(filters.end_time)),
        },
        *history,
        {"role": "user", "content": context_pack(frames=frames, zone=zone, frames_in_range=frames_in_range) + f"\n\nQuestion: {query.message}"},
    ]
    yield from llm.llm_stream(messages=messages)


def _validate(query: ChatQuery, raw: str, frames: list[SampledFrame], frames_in_range: int, frames_by_id: dict) -> ValidatedAnswer:
    """The answer's citations checked against the range and the frames it was given. An answer
    that cites none of a non-empty range is not shown as a finding: what the frames do show
    follows, verified the same way."""
    filters, zone = query.filters, query.zone
    bounds = {"start_time": _utc(filters.start_time), "end_time": _utc(filters.end_time), "zone": zone}
    validated = citations_validate(answer_md=raw, context_ids=set(frames_by_id), **bounds)
    if frames and not validated.valid_ids:
        fallback = citations_validate(
            answer_md=_offline_answer(query, frames, frames_in_range, frames_by_id), context_ids=set(frames_by_id), **bounds
        )
        validated = ValidatedAnswer(
            answer_md=_unsupported(frames_in_range) + "\n\n" + fallback.answer_md,
            citations=validated.citations + fallback.citations,
        )
    return validated


def summary_answer_stream(query: ChatQuery) -> Iterator[tuple[str, dict]]:
    """The events of one summary answer: retrieve, answer, validate, store. The answer is
    stored whatever happens (done or failed); for a query that keeps nothing, nothing is stored
    (the events' ids are None and the model sees no earlier turns)."""
    started = time.monotonic()
    filters, zone = query.filters, query.zone
    start_time, end_time = _utc(filters.start_time), _utc(filters.end_time)

    sample = sample_retrieve(filters=filters)
    frames, frames_in_range = sample.frames, sample.frames_in_range
    retrieval_ms = _ms(started)
    model_name = settings.LLM_MODEL if llm.llm_configured() else offline.MODEL_NAME
    if query.keep:
        session, asked, reply = turn_open(query=query, model_name=model_name, start_time=start_time, end_time=end_time, retrieval_ms=retrieval_ms)
    else:  # an answer shaped as a stored one, never saved
        session = asked = None
        reply = ChatMessage(
            role=ChatRole.ASSISTANT, status=ChatStatus.STREAMING, mode=query.mode, model_name=model_name, retrieval_ms=retrieval_ms,
            start_time=start_time, end_time=end_time, timezone=zone.key,
        )

    time_range = {"start_time": filters.start_time, "end_time": filters.end_time, "timezone": zone.key}
    raw = ""
    llm_started = time.monotonic()
    # The frames the answer may cite: the sample, plus (offline) the frames found for the question's terms.
    frames_by_id = {frame.frame_id: frame for frame in frames}
    # The model is shown the chat's last turns too (the offline summariser is not): what they drew on.
    history, history_sources = chat_history(session=session, before_id=asked.id, turns=HISTORY_TURNS) if session and llm.llm_configured() else ([], set())

    def fail(message: str) -> None:
        if query.keep:
            answer_fail(
                reply=reply, message=message, raw=raw, llm_ms=_ms(llm_started), total_ms=_ms(started), drew_on=[*frames_by_id, *history_sources]
            )

    try:
        yield "start", {
            "session_id": reply.session_id,
            "message_id": reply.id,
            "time_range": time_range,
            "frames_in_range": frames_in_range,
            "frames_sampled": len(frames),
            "model": model_name,
        }
        if not frames:
            raw = _nothing_captured(start_time, end_time, zone, filters.narrowed())
            yield "delta", {"text": raw}
        elif llm.llm_configured():
            for text in _model_answer(query, history, frames, frames_in_range):
                raw += text
                yield "delta", {"text": text}
        else:
            raw = _offline_answer(query, frames, frames_in_range, frames_by_id)
            for line in raw.splitlines(keepends=True):
                yield "delta", {"text": line}
    except llm.LlmError as exc:
        fail(exc.message)
        yield "error", {"message": exc.message, "session_id": reply.session_id, "message_id": reply.id}
        return
    except GeneratorExit:
        message = "The answer was interrupted: the client went away."
        fail(message)
        raise
    except Exception:
        logger.exception("Chat answer %s failed", reply.id)
        message = "Internal error while answering; see the server log."
        fail(message)
        yield "error", {"message": message, "session_id": reply.session_id, "message_id": reply.id}
        return
    llm_ms = _ms(llm_started)

    validated = _validate(query, raw, frames, frames_in_range, frames_by_id)
    if query.keep:
        evidence = answer_store(
            reply=reply, validated=validated, raw=raw, frames_by_id=frames_by_id, llm_ms=llm_ms, total_ms=_ms(started), drew_on=history_sources
        )
    else:
        reply.content, reply.status, reply.total_ms = validated.answer_md, ChatStatus.DONE, _ms(started)
        evidence = _evidence(validated, frames_by_id, zone)
    yield "final", answer_final(
        reply=reply,
        validated=validated,
        evidence=evidence,
        time_range=time_range,
        frames_in_range=frames_in_range,
        frames_sampled=len(frames),
        timings={"retrieval_ms": retrieval_ms, "llm_ms": llm_ms, "total_ms": reply.total_ms},
    )


SUMMARY = AnswerMode(name=ChatMode.SUMMARY.value, stream=summary_answer_stream, needs_range=True, description="a summary of a time range")


def chat_answer_stream(*, query: ChatQuery) -> Iterator[tuple[str, dict]]:
    """The events of one answer in the query's mode."""
    mode = answer_mode_get(query.mode)
    if mode is None:
        raise ApplicationError(f"mode={query.mode} is not available.", extra={"field": "mode"})
    return mode.stream(query)


def chat_answer(*, query: ChatQuery) -> dict:
    """The final payload of one answer; raises `ChatFailed` when it could not be given."""
    for event, payload in chat_answer_stream(query=query):
        if event == "final":
            return payload
        if event == "error":
            raise ChatFailed(
                payload["message"], session_id=payload["session_id"], message_id=payload["message_id"],
                status_code=payload.get("status_code", 502),
            )
    raise RuntimeError("the answer's events ended without a final event")
