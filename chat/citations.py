"""Citations in an answer: found, checked and rewritten, for every answer mode.

A frame is cited by a markdown link ([14:05](myrecall://frame/12), with or without a title) or
a bare reference anywhere, in any letter case. Links to the viewer or the API are read as
citations too, so a model that writes those is held to the same rules. One pass over the text
with both forms, so every reference is checked exactly once and nothing escapes the check."""

import re
from dataclasses import dataclass, field
from datetime import datetime
from zoneinfo import ZoneInfo

from chat.models import DroppedReason
from frames.models import Frame

_TARGET = r"(?:myrecall://frame/|/frames/|/api/v1/frames/)(?P<id>\d{1,18})"
_CITATION = re.compile(
    rf"\[(?P<label>[^\[\]\n]{{0,200}})\]\(\s*<?{_TARGET}[^)\s>]*>?(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)"
    r"|myrecall://frame/(?P<bare>\d{1,18})",
    re.IGNORECASE,
)
_CLOCK = re.compile(r"^\s*\d{1,2}:\d{2}(:\d{2})?\s*$")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+")


@dataclass
class CitationCheck:
    frame_id: int
    label: str
    valid: bool
    reason: str = ""
    frame: Frame | None = None


@dataclass
class ValidatedAnswer:
    answer_md: str
    citations: list[CitationCheck] = field(default_factory=list)

    @property
    def valid_ids(self) -> list[int]:
        seen: list[int] = []
        for check in self.citations:
            if check.valid and check.frame_id not in seen:
                seen.append(check.frame_id)
        return seen


def _cited_id(match: re.Match) -> int:
    return int(match.group("id") or match.group("bare"))


def citations_unlink(text: str) -> str:
    """The text with every frame citation taken out (a link's label kept as plain text): to show
    what an answer said without vouching for what it cited."""
    return _CITATION.sub(lambda match: (match.group("label") or "").strip(), text)


def cited_ids(text: str) -> list[int]:
    """The frame ids a text cites, in order of first citation."""
    return list(dict.fromkeys(_cited_id(match) for match in _CITATION.finditer(text)))


def _claims_drop(text: str, valid: set[int]) -> str:
    """Remove the claims whose every citation was dropped: a bullet as a whole, else the sentence."""
    kept_lines = []
    for line in text.splitlines():
        ids = [_cited_id(m) for m in _CITATION.finditer(line)]
        if not ids:
            kept_lines.append(line)
            continue
        if _BULLET.match(line):
            if any(i in valid for i in ids):
                kept_lines.append(line)
            continue
        sentences = _SENTENCE_END.split(line)
        kept = []
        for sentence in sentences:
            cited = [_cited_id(m) for m in _CITATION.finditer(sentence)]
            if cited and not any(i in valid for i in cited):
                continue
            kept.append(sentence)
        if kept:
            kept_lines.append(" ".join(kept))
    return "\n".join(kept_lines)


def citations_validate(
    *,
    answer_md: str,
    context_ids: set[int],
    zone: ZoneInfo,
    start_time: datetime | None = None,
    end_time: datetime | None = None,
    outside_context: str = DroppedReason.NOT_IN_CONTEXT,
) -> ValidatedAnswer:
    """Every frame the answer cites, checked: it must exist, lie in [start_time, end_time) when
    the answer has a range, and be one of `context_ids` (the frames the answer was given, or
    that its tools returned; `outside_context` is the reason recorded otherwise). A claim
    (bullet or sentence) whose citations were all dropped is removed with them; a dropped
    citation beside a valid one is removed alone. A kept citation links as
    `myrecall://frame/ID`, its clock label corrected to the frame's local time."""
    cited = {_cited_id(m) for m in _CITATION.finditer(answer_md)}
    frames = Frame.objects.in_bulk({frame_id for frame_id in cited if frame_id < 2**63})
    checks: dict[int, CitationCheck] = {}
    for match in _CITATION.finditer(answer_md):
        frame_id = _cited_id(match)
        if frame_id in checks:
            continue
        label = match.group("label") or ""
        frame = frames.get(frame_id)
        if frame is None:
            checks[frame_id] = CitationCheck(frame_id, label, False, DroppedReason.NOT_FOUND)
        elif (start_time and frame.timestamp < start_time) or (end_time and frame.timestamp >= end_time):
            checks[frame_id] = CitationCheck(frame_id, label, False, DroppedReason.OUTSIDE_RANGE, frame)
        elif frame_id not in context_ids:
            checks[frame_id] = CitationCheck(frame_id, label, False, outside_context, frame)
        else:
            checks[frame_id] = CitationCheck(frame_id, label, True, "", frame)
    valid = {frame_id for frame_id, check in checks.items() if check.valid}

    def rewrite(match: re.Match) -> str:
        result = checks[_cited_id(match)]
        if not result.valid:
            return ""
        label = (match.group("label") or "").strip()
        if not label or _CLOCK.match(label):
            label = f"{result.frame.timestamp.astimezone(zone):%H:%M}"
        return f"[{label}](myrecall://frame/{result.frame_id})"

    text = _CITATION.sub(rewrite, _claims_drop(answer_md, valid))
    # Tidy what removed links leave behind: "( )", "[]", "<>", doubled spaces, a space before punctuation.
    text = re.sub(r"\(\s*[,;]?\s*\)|\[\s*[,;]?\s*\]|<\s*>", "", text)
    text = re.sub(r"[ \t]{2,}", " ", text)
    text = re.sub(r"[ \t]+([.,;:!?)])", r"\1", text)
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(line.rstrip() for line in text.splitlines())).strip()
    return ValidatedAnswer(answer_md=text, citations=list(checks.values()))
