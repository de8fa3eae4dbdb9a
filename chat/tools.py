"""The chat app's read tool (myrecall/tools.py): the evidence chat's summary of a time range,
for an assistant. It is the summary mode of POST /api/v1/chat: one bounded retrieval, one
answer, every citation checked. For a caller whose token may write, the answer is kept in the
chat history like any other (so that deleting the frames it quotes erases it too); for a
read-only one, nothing is stored and the answer is the same."""

import dataclasses
from typing import Annotated

from ninja import Schema
from pydantic import Field

from chat import selectors, services
from chat.modes import ChatFailed
from chat.schemas import ChatIn, DroppedOut, EvidenceOut, TimeRangeOut
from myrecall.errors import ApplicationError
from myrecall.inputs import EPOCH_MAX, EPOCH_MIN, InputSchema
from frames.tools import place
from myrecall.tools import INSTANT, Context, TimezoneName, Tool

LINKS = ("frame_url", "viewer_url", "thumb_url")


class RangeSummaryIn(InputSchema):
    start_time: Annotated[float, INSTANT] = Field(ge=EPOCH_MIN, le=EPOCH_MAX, description="Epoch seconds, included.")
    end_time: Annotated[float | None, INSTANT] = Field(None, ge=EPOCH_MIN, le=EPOCH_MAX, description="Epoch seconds, not included; default now.")
    question: str = Field(
        "Summarise what I did.", min_length=1, max_length=4000, description="What to summarise or ask about the range."
    )
    app_name: str | None = Field(None, max_length=512, description="Only this app (its whole name, any letter case).")
    window_name: str | None = Field(None, max_length=1024, description="Substring, case-insensitive.")
    browser_url: str | None = Field(None, max_length=4096, description="Substring, case-insensitive.")
    timezone: TimezoneName = None


class RangeSummaryOut(Schema):
    answer_md: str = Field(description="The answer in Markdown; each claim cites a frame as [HH:MM](myrecall://frame/ID).")
    time_range: TimeRangeOut
    evidence: list[EvidenceOut] = Field(description="The frames the answer cites, each checked: it exists, lies in the range and was read for the answer.")
    dropped: list[DroppedOut] = Field(description="Citations the answer made that failed that check, and why.")
    frames_in_range: int | None
    frames_sampled: int | None
    session_id: int | None = Field(description="The chat it was kept in (MyRecall's chat page lists it); null when nothing was kept (a read-only token).")
    model: str


def range_summary(params: RangeSummaryIn, context: Context) -> dict:
    payload = ChatIn.model_validate(
        {
            "message": params.question,
            "start_time": params.start_time,
            "end_time": params.end_time,
            "timezone": context.zone.key,
            "mode": "summary",
            "app_name": params.app_name,
            "window_name": params.window_name,
            "browser_url": params.browser_url,
        }
    )
    query = selectors.chat_query(payload=payload, zone=context.zone, origin=context.origin)
    try:
        answer = services.chat_answer(query=dataclasses.replace(query, keep=not context.read_only))
    except ChatFailed as exc:
        kept = {"session_id": exc.session_id} if exc.session_id is not None else None
        raise ApplicationError(exc.message, extra=kept, status_code=exc.status_code) from exc
    evidence = [{**item, **{link: context.link(item[link]) for link in LINKS}} for item in answer["evidence"]]
    return {**{key: answer.get(key) for key in RangeSummaryOut.model_fields}, "evidence": evidence}


def range_summary_as_text(answer: dict) -> str:
    """For an assistant: the answer, then each frame it cites with the text quoted and its link."""
    lines = [answer["answer_md"]]
    if answer["evidence"]:
        lines += ["", f"Evidence (each citation checked; {answer['frames_sampled']} of the {answer['frames_in_range']} frames in the range were read):"]
        for item in answer["evidence"]:
            lines += [f"- frame {item['frame_id']} at {item['local_time']} · {place(item)}", f"  quoted: {item['ocr_snippet']}", f"  open: {item['viewer_url']}"]
    if answer["dropped"]:
        lines += ["", "Citations dropped: " + "; ".join(f"frame {item['frame_id']} ({item['reason']})" for item in answer["dropped"])]
    if answer["session_id"] is not None:
        lines += ["", f"Kept in MyRecall's chat history (chat {answer['session_id']})."]
    return "\n".join(lines)


RANGE_SUMMARY = Tool(
    name="range_summary",
    title="Summary of a time range, with evidence",
    description=(
        "MyRecall's evidence chat summarises a time range: it samples the range's frames, answers "
        "the question from them, and checks every citation. Returns the answer (Markdown, citing "
        "frames as [HH:MM](myrecall://frame/ID)) and the evidence list: each cited frame with its "
        "time, app, window, URL, the text quoted and a link to open it. Quote the evidence's links "
        "so the person can check. With a read-only token it stores nothing; with a token that may "
        "write, the question and answer are kept as a chat in MyRecall's chat history."
    ),
    params=RangeSummaryIn,
    returns=RangeSummaryOut,
    run=range_summary,
    as_text=range_summary_as_text,
    keeps="the question and its answer, as a chat in MyRecall's chat history",
)
