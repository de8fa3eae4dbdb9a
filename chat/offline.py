"""The built-in summariser: answers from the sampled frames when no LLM is configured.

Consecutive frames of one app form an activity span; each span becomes one line with its
local start and end, the app, its windows or pages, a few phrases of what was on screen,
and citations of the frames that show them. Times are "about": sampling sees at most two
frames per bucket, so a span is as exact as the bucket width.
"""

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from chat.sampling import SampledFrame, chrome_lines, line_is_chrome, ocr_truncate

MODEL_NAME = "offline"
MAX_WINDOWS_PER_SPAN = 3
MAX_PHRASES_PER_SPAN = 2
MAX_CITATIONS_PER_LINE = 3
MAX_PHRASE_CHARS = 70
MAX_BULLETS = 12
MIN_BLOCK_S = 120
IDLE_CREDIT_S = 60  # time credited to a frame whose next sampled frame is further than a bucket away

_MD_SPECIAL = re.compile(r"([\\`*_\[\]()#+!<>|~])")
_SCHEME = re.compile(r"(myrecall):", re.IGNORECASE)


def md_escape(text: str) -> str:
    """Screen text as literal markdown. A frame reference shown on screen (in a chat, in this
    project's own source) stays text: "myrecall\\://" renders as "myrecall://" but cites nothing."""
    return _SCHEME.sub(lambda m: m.group(1) + "\\:", _MD_SPECIAL.sub(r"\\\1", text))


def citation(frame: SampledFrame, zone: ZoneInfo) -> str:
    return f"[{frame.timestamp.astimezone(zone):%H:%M}](myrecall://frame/{frame.frame_id})"


def duration_text(seconds: float) -> str:
    minutes = round(seconds / 60)
    if minutes < 1:
        return "under a minute"
    if minutes < 60:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


@dataclass
class Span:
    app_name: str
    frames: list[SampledFrame] = field(default_factory=list)
    end: datetime | None = None
    seconds: float = 0.0

    @property
    def start(self) -> datetime:
        return self.frames[0].timestamp


def spans_build(*, frames: list[SampledFrame], bucket_seconds: float, range_end: datetime) -> list[Span]:
    """Consecutive frames of the same app, each with the time credited to it: the gap to the
    next sampled frame when it is at most a bucket, else IDLE_CREDIT_S (nothing was captured)."""
    spans: list[Span] = []
    for index, frame in enumerate(frames):
        following = frames[index + 1].timestamp if index + 1 < len(frames) else None
        gap = (following - frame.timestamp).total_seconds() if following else None
        if gap is not None and gap <= bucket_seconds:
            credit, end = gap, following
        else:
            credit = min(IDLE_CREDIT_S, (range_end - frame.timestamp).total_seconds())
            end = frame.timestamp + timedelta(seconds=max(credit, 0))
        if not spans or spans[-1].app_name != frame.app_name:
            spans.append(Span(app_name=frame.app_name))
        spans[-1].frames.append(frame)
        spans[-1].seconds += max(credit, 0)
        spans[-1].end = end
    return spans


def _place(frame: SampledFrame) -> str:
    """What the window showed: its title, with the site for a browser page."""
    title = frame.window_name.strip()
    host = urlsplit(frame.browser_url).hostname if frame.browser_url else ""
    if host and host.removeprefix("www.") not in title.lower():
        return f"{title} ({host.removeprefix('www.')})" if title else host.removeprefix("www.")
    return title


def _phrase_score(line: str) -> tuple[int, int]:
    letters = sum(ch.isalpha() for ch in line)
    return (letters >= 8 and letters * 2 >= len(line), min(len(line), MAX_PHRASE_CHARS))


def _phrases(span: Span, chrome: set[str]) -> list[tuple[str, SampledFrame]]:
    """Up to MAX_PHRASES_PER_SPAN content lines of the span and the frame each came from:
    not chrome, not a window title, wordy before short."""
    titles = {frame.window_name.strip().lower() for frame in span.frames}
    seen: set[str] = set()
    candidates = []
    for order, frame in enumerate(span.frames):
        for line in frame.ocr_lines:
            key = line.lower()
            if key in titles or key in seen or len(line) < 4:
                continue
            if line_is_chrome(line, chrome=chrome, window_name=frame.window_name, browser_url=frame.browser_url):
                continue
            seen.add(key)
            candidates.append((_phrase_score(line), -order, line, frame))
    candidates.sort(key=lambda item: (item[0], item[1]), reverse=True)
    picked = []
    for _score, _order, line, frame in candidates:
        if len(picked) == MAX_PHRASES_PER_SPAN:
            break
        if any(line.lower() in other.lower() or other.lower() in line.lower() for other, _ in picked):
            continue
        cut = line if len(line) <= MAX_PHRASE_CHARS else line[: MAX_PHRASE_CHARS - 1].rstrip() + "…"
        picked.append((cut, frame))
    return picked


def blocks_build(spans: list[Span], *, max_blocks: int = MAX_BULLETS, min_seconds: float = MIN_BLOCK_S) -> list[Span]:
    """Spans merged into at most max_blocks lines: the adjacent pair with the least time
    together is merged first, so long activities keep their own line and quick back-and-forth
    between apps becomes one line; a block shorter than min_seconds joins a neighbour."""
    blocks = [[span] for span in spans]

    def seconds(block: list[Span]) -> float:
        return sum(span.seconds for span in block)

    while len(blocks) > 1:
        if len(blocks) > max_blocks:
            i = min(range(len(blocks) - 1), key=lambda i: seconds(blocks[i]) + seconds(blocks[i + 1]))
        else:
            short = [i for i, block in enumerate(blocks) if seconds(block) < min_seconds]
            if not short:
                break
            i = short[0]
            # Join the shorter neighbour (a last block can only join the one before it).
            if i == len(blocks) - 1 or (i > 0 and seconds(blocks[i - 1]) <= seconds(blocks[i + 1])):
                i -= 1
        blocks[i : i + 2] = [blocks[i] + blocks[i + 1]]
    merged = []
    for block in blocks:
        per_app: dict[str, float] = {}
        for span in block:
            per_app[span.app_name] = per_app.get(span.app_name, 0.0) + span.seconds
        apps = sorted(per_app, key=lambda app: -per_app[app])
        merged.append(
            Span(
                app_name=", ".join(app or "Unknown app" for app in apps),
                frames=[frame for span in block for frame in span.frames],
                end=block[-1].end,
                seconds=seconds(block),
            )
        )
    return merged


def _span_line(span: Span, chrome: set[str], zone: ZoneInfo) -> str:
    places: list[str] = []
    for frame in span.frames:
        place = _place(frame)
        if place and place not in places:
            places.append(place)
    phrases = _phrases(span, chrome)
    cited = [span.frames[0]] + [frame for _, frame in phrases] + [span.frames[-1]]
    unique = list({frame.frame_id: frame for frame in cited}.values())[:MAX_CITATIONS_PER_LINE]
    unique.sort(key=lambda frame: (frame.timestamp, frame.frame_id))
    start, end = span.start.astimezone(zone), span.end.astimezone(zone)
    when = f"{start:%H:%M}" if f"{start:%H:%M}" == f"{end:%H:%M}" else f"{start:%H:%M}–{end:%H:%M}"
    parts = [f"**{when} · {md_escape(span.app_name or 'Unknown app')}**"]
    if places:
        shown = ", ".join(f"*{md_escape(place)}*" for place in places[:MAX_WINDOWS_PER_SPAN])
        more = len(places) - MAX_WINDOWS_PER_SPAN
        parts.append(shown + (f" and {more} more" if more > 0 else ""))
    if phrases:
        parts.append("; ".join(f"“{md_escape(text)}”" for text, _ in phrases))
    return "- " + ": ".join(parts[:2]) + ("; " + parts[2] if len(parts) > 2 else "") + " " + " ".join(
        citation(frame, zone) for frame in unique
    )


def offline_summarise(
    *,
    frames: list[SampledFrame],
    start_time: datetime,
    end_time: datetime,
    zone: ZoneInfo,
    bucket_seconds: float,
    frames_in_range: int,
    mentions: list[tuple[str, int, list[SampledFrame]]] | None = None,
) -> str:
    """A grounded markdown summary of the sampled frames: an overview of where the time went,
    then one cited line per activity span. `frames` must be non-empty and in time order."""
    spans = spans_build(frames=frames, bucket_seconds=bucket_seconds, range_end=end_time)
    chrome = chrome_lines([(frame.app_name, frame.window_name, frame.ocr_lines) for frame in frames])
    per_app: dict[str, float] = {}
    first_of_app: dict[str, SampledFrame] = {}
    for span in spans:
        per_app[span.app_name] = per_app.get(span.app_name, 0.0) + span.seconds
        first_of_app.setdefault(span.app_name, span.frames[0])
    ranked = sorted(per_app.items(), key=lambda item: -item[1])
    local_start, local_end = start_time.astimezone(zone), end_time.astimezone(zone)
    range_text = f"{local_start:%a %d %b %H:%M}–{local_end:%H:%M}" if local_start.date() == local_end.date() else (
        f"{local_start:%a %d %b %H:%M} – {local_end:%a %d %b %H:%M}"
    )
    sampled_note = (
        f"{frames_in_range} screenshots were captured; this summary reads {len(frames)} of them, spread evenly."
        if frames_in_range > len(frames)
        else f"{frames_in_range} screenshot{'s' if frames_in_range != 1 else ''} captured."
    )
    top = ranked[:3]
    overview = ", ".join(
        f"**{md_escape(app or 'Unknown app')}** (about {duration_text(seconds)}) {citation(first_of_app[app], zone)}"
        for app, seconds in top
    )
    others = len(ranked) - len(top)
    lines = [f"{range_text} ({zone.key}): {sampled_note}", ""]
    if mentions:
        lines += mentions_section(mentions=mentions, zone=zone)
    lines += [
        f"Most time went to {overview}" + (f", and {others} other app{'s' if others != 1 else ''}." if others else "."),
        "",
        "**Activity**",
        "",
    ]
    lines += [_span_line(block, chrome, zone) for block in blocks_build(spans)]
    return "\n".join(lines)


# Words of a question that say what kind of answer is wanted, not what to look for.
STOPWORDS = set(
    """a about above after again all also am an and any are as at be been before being below between both but by can
    could did do does doing done during each few for from further get got had has have having he her here hers him his
    how i if in into is it its itself just last let me more most my myself no nor not now of off on once only or other
    our out over own same she should so some such than that the their them then there these they this those through to
    too under until up very was we were what when where which while who whom why will with would you your yours
    today yesterday tonight morning afternoon evening hour hours minute minutes day week time times range period
    summarise summarize summary summaries recap overview tell show list give describe explain happen happened
    doing work worked working spend spent look looked looking see saw read reading use used using open opened
    apps app application applications window windows thing things stuff please quick quickly short briefly brief
    what's whats which where's anything something everything
    one two three four five six seven eight nine ten eleven twelve half couple several around roughly about
    check checked start started finish finished write wrote written note noted take took make made find found
    start end ended begin began last first next previous earlier later latest recent recently
    morning noon lunch lunchtime evening night week weekend monday tuesday wednesday thursday friday saturday sunday
    ago since while during between""".split()
)
# Chinese words of a question that say what kind of answer is wanted; what is left between them
# (and punctuation) are the things to look for.
CJK_STOP_PHRASES = sorted(
    """总结一下 总结 概括 一下 今天 昨天 上午 下午 晚上 早上 中午 刚才 这个 那个 这些 那些 什么时候 什么 哪些 哪个 哪里
    怎么 如何 为什么 多少 时候 做了 干了 在做 在干 看了 看过 写了 写过 读了 用了 打开 关于 内容 里面 其中 一些 有没有 是否
    应用 软件 程序 时间 我的 我们 你 我 他 她 了 的 在 和 与 及 是 吗 呢 吧 都 也 过 里 上 中 点 到 从""".split(),
    key=len,
    reverse=True,
)
_CJK_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
MAX_TERMS = 3
MAX_MENTIONS_PER_TERM = 4
_QUOTED = re.compile(r"[\"“”「」『』]([^\"“”「」『』]{2,60})[\"“”「」『』]")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.\-]{2,}")


def question_terms(question: str) -> list[str]:
    """What a question asks to find: its quoted phrases (any language), then its English words
    that are not about the answer's form ("summarise", "today", "what"...), at most MAX_TERMS."""
    terms = [phrase.strip() for phrase in _QUOTED.findall(question) if phrase.strip()]
    rest = _QUOTED.sub(" ", question)
    for word in _WORD.findall(rest):
        word = word.strip(".-")
        if len(word) >= 3 and word.lower() not in STOPWORDS and word.lower() not in {t.lower() for t in terms}:
            terms.append(word)
    for run in _CJK_RUN.findall(rest):
        for phrase in CJK_STOP_PHRASES:
            run = run.replace(phrase, " ")
        terms += [piece for piece in run.split() if 2 <= len(piece) <= 8 and piece not in terms]
    return terms[:MAX_TERMS]


def mention_snippet(text: str, term: str) -> str:
    """The lines of a frame's text that hold the term (whitespace collapsed, cut to 160)."""
    lines = [" ".join(line.split()) for line in text.splitlines()]
    holding = [line for line in lines if term.lower() in line.lower()]
    return ocr_truncate(text=" ".join(holding or lines))


def mentions_section(*, mentions: list[tuple[str, int, list[SampledFrame]]], zone: ZoneInfo) -> list[str]:
    """Lines answering "where does X appear": per term found, its frames in time order, each
    cited. Terms found nowhere are named only when none was found (else they are noise)."""
    lines = []
    absent = [term for term, _total, frames in mentions if not frames]
    if len(absent) == len(mentions) and absent:
        names = ", ".join(f"“{md_escape(term)}”" for term in absent)
        verb = "appears" if len(absent) == 1 else "appear"
        return [f"{names} {verb} on no screen captured in this range.", ""]
    for term, total, frames in mentions:
        if not frames:
            continue
        shown = f"; the {len(frames)} best matches" if total > len(frames) else ""
        if term is None:  # found by meaning, not by a word
            lines += [f"**Close in meaning to your question** ({total} more frame{'s' if total != 1 else ''}):", ""]
        else:
            lines += [f"**Where “{md_escape(term)}” appears** ({total} frame{'s' if total != 1 else ''}{shown}):", ""]
        for frame in sorted(frames, key=lambda f: (f.timestamp, f.frame_id)):
            place = _place(frame)
            where = f"{md_escape(frame.app_name or 'Unknown app')}" + (f", *{md_escape(place)}*" if place else "")
            lines.append(
                f"- {frame.timestamp.astimezone(zone):%H:%M} · {where}: “{md_escape(frame.ocr_snippet)}” {citation(frame, zone)}"
            )
        lines.append("")
    return lines
