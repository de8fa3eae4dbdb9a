"""Whether every claim of a summary answer is shown by the frames it cites.

A claim is the text of one line of the answer up to a citation, from the citation before it
(or the line's start); citations side by side share one claim. What a claim says, and what a
cited frame must then show:
- an app named in it (or, for a later claim of the line, in the line's first claim): the
  frame is of one of the apps named;
- a window or page title (*in italics*): the frame's title holds it;
- an address (`as code`): the frame's address holds it;
- a quote (“…”): the frame's text holds it, as read (whitespace aside; "…" marks a cut);
- words it holds ("(holds a, b)"): the frame's text holds each, in any letter case;
- a time or span (14:05, 14:00–14:20) in the line's first claim: the frame's local time is in it.
A claim that says none of the first five is not supported: it shows nothing to check.
Duplicates: a frame cited a second time in one answer, a quote shown a second time.
"""

import re
from dataclasses import dataclass, field
from datetime import datetime
from zoneinfo import ZoneInfo

ELLIPSIS = "…"
_CITATION = re.compile(r"\[[^\[\]\n]*\]\(myrecall://frame/(\d+)\)")
_QUOTE = re.compile(r"“([^”]*)”")
_BOLD = re.compile(r"\*\*((?:\\.|[^*\\])+)\*\*")
_ITALIC = re.compile(r"(?<![*\\])\*((?:\\.|[^*\\])+)\*(?!\*)")
_CODE = re.compile(r"`([^`]+)`")
_HOLDS = re.compile(r"\(holds ([^)]*)\)")
_SPAN = re.compile(r"(?<!\d)(\d{2}):(\d{2})(?:–(\d{2}):(\d{2}))?(?!\d)")
_ESCAPE = re.compile(r"\\(.)")


@dataclass(frozen=True)
class FrameFacts:
    """What a frame shows: its app, title, address, text and time."""

    frame_id: int
    timestamp: datetime
    app_name: str
    window_name: str
    browser_url: str
    text: str


@dataclass
class Claim:
    line: str
    text: str  # the claim's markdown, its citations aside
    frame_ids: list[int]
    line_apps: set[str]  # the apps the line's first claim names
    span: tuple[int, int] | None  # the line's time or span, in minutes of the day
    problems: list[str] = field(default_factory=list)

    @property
    def supported(self) -> bool:
        return not self.problems


@dataclass
class AnswerCheck:
    claims: list[Claim]
    repeated_frames: list[int]
    repeated_quotes: list[str]

    @property
    def unsupported(self) -> list[Claim]:
        return [claim for claim in self.claims if not claim.supported]

    @property
    def duplicates(self) -> int:
        return len(self.repeated_frames) + len(self.repeated_quotes)

    @property
    def cited(self) -> list[int]:
        return [frame_id for claim in self.claims for frame_id in claim.frame_ids]


def plain(markdown: str) -> str:
    """Markdown text as the user reads it (escapes undone)."""
    return _ESCAPE.sub(r"\1", markdown)


def collapsed(text: str) -> str:
    return " ".join(text.split())


def _pieces(shown: str) -> list[str]:
    """The parts of a quote or title around the "…" that marks where it was cut."""
    return [piece.strip() for piece in collapsed(plain(shown)).split(ELLIPSIS) if piece.strip()]


def _apps_named(text: str, apps: set[str]) -> set[str]:
    words = _HOLDS.sub(" ", _CODE.sub(" ", _ITALIC.sub(" ", _QUOTE.sub(" ", _BOLD.sub(r" \1 ", text)))))
    words = plain(words)
    return {app for app in apps if re.search(rf"(?<!\w){re.escape(app)}(?!\w)", words)}


def _span(text: str) -> tuple[int, int] | None:
    """The first time or span of a claim, in minutes of the day (quotes, titles and addresses aside)."""
    match = _SPAN.search(_CODE.sub(" ", _ITALIC.sub(" ", _QUOTE.sub(" ", text))))
    if not match:
        return None
    start = int(match.group(1)) * 60 + int(match.group(2))
    end = int(match.group(3)) * 60 + int(match.group(4)) if match.group(3) else start
    return start, end


def _in_span(minute: int, span: tuple[int, int]) -> bool:
    start, end = span
    return start <= minute <= end if start <= end else minute >= start or minute <= end  # a span over midnight


def _problems(text: str, frame: FrameFacts | None, *, apps: set[str], line_apps: set[str], span, zone: ZoneInfo) -> list[str]:
    if frame is None:
        return ["cites a frame that is not in the session"]
    problems = []
    checked = False
    shown_app = frame.app_name or "Unknown app"
    named = _apps_named(text, apps) or line_apps
    if named:
        checked = True
        if shown_app not in named:
            problems.append(f"names {sorted(named)} but frame {frame.frame_id} is of {shown_app!r}")
    body = collapsed(frame.text)
    for quote in _QUOTE.findall(text):
        checked = True
        if not all(piece in body for piece in _pieces(quote)):
            problems.append(f"quotes “{plain(quote)}”, not on frame {frame.frame_id}")
    rest = _QUOTE.sub(" ", text)
    for title in _ITALIC.findall(_BOLD.sub(" ", rest)):
        checked = True
        if not all(piece.lower() in frame.window_name.lower() for piece in _pieces(title)):
            problems.append(f"names the window *{plain(title)}*, frame {frame.frame_id} is {frame.window_name!r}")
    for shown in _CODE.findall(rest):
        checked = True
        if not all(piece.lower() in frame.browser_url.lower() for piece in _pieces(shown)):
            problems.append(f"names the address {shown}, frame {frame.frame_id} is at {frame.browser_url!r}")
    for held in _HOLDS.findall(rest):
        for word in plain(held).split(", "):
            checked = True
            if word.lower() not in body.lower():
                problems.append(f"says it holds {word!r}, frame {frame.frame_id} does not")
    if span is not None:
        local = frame.timestamp.astimezone(zone)
        if not _in_span(local.hour * 60 + local.minute, span):
            problems.append(f"says {span}, frame {frame.frame_id} is at {local:%H:%M}")
    if not checked:
        problems.append("says nothing a frame could show")
    return problems


def answer_check(answer_md: str, frames: dict[int, FrameFacts], *, zone: ZoneInfo) -> AnswerCheck:
    """Every claim of the answer checked against the frames it cites (`frames`: every frame of
    the session by id), and the frames and quotes the answer repeats."""
    apps = {frame.app_name or "Unknown app" for frame in frames.values()}
    claims: list[Claim] = []
    for line in answer_md.splitlines():
        line_apps: set[str] = set()
        span = None
        position = 0
        first = True
        for match in _CITATION.finditer(line):
            text = line[position : match.start()]
            position = match.end()
            frame_id = int(match.group(1))
            if not text.strip() and claims and not first:
                claims[-1].frame_ids.append(frame_id)  # a citation beside another: the same claim
                continue
            if first:
                line_apps = _apps_named(text, apps)
                span = _span(text)
                first = False
            claims.append(Claim(line=line, text=text, frame_ids=[frame_id], line_apps=line_apps, span=span))
    for claim in claims:
        for frame_id in claim.frame_ids:
            claim.problems += _problems(
                claim.text, frames.get(frame_id), apps=apps, line_apps=claim.line_apps, span=claim.span, zone=zone
            )
    cited = [frame_id for claim in claims for frame_id in claim.frame_ids]
    repeated_frames = sorted({frame_id for frame_id in cited if cited.count(frame_id) > 1})
    quotes: list[str] = []
    repeated_quotes = []
    for quote in _QUOTE.findall("\n".join(claim.text for claim in claims)):
        key = collapsed(plain(quote)).lower().strip(ELLIPSIS + " ")
        if any(key in seen or seen in key for seen in quotes):
            repeated_quotes.append(plain(quote))
        quotes.append(key)
    return AnswerCheck(claims=claims, repeated_frames=repeated_frames, repeated_quotes=repeated_quotes)
