"""The built-in summariser: answers from the sampled frames when no LLM is configured.

Consecutive frames of one app form an activity span; each span becomes one line with its
local start and end, the app, its windows or pages and a few phrases of what was on screen,
each followed by the citation of a frame that shows it (a window: a frame of that window; a
phrase: the frame it was read from). An answer cites each frame once and shows each quote
once. A question about the pages, apps or windows of the range is answered from the frames'
addresses, titles and apps (chat.sampling.visits_retrieve). Times are "about": sampling sees
at most two frames per bucket, so a span is as exact as the bucket width.
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from chat.sampling import ELLIPSIS, SampledFrame, Visit, chrome_lines, line_is_chrome, ocr_truncate

MODEL_NAME = "offline"
MAX_WINDOWS_PER_SPAN = 3
MAX_PHRASES_PER_SPAN = 2
MAX_PHRASE_CHARS = 70
MAX_QUOTE_CHARS = 160
MAX_ADDRESS_CHARS = 60
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


@dataclass
class Citer:
    """What an answer has cited and quoted so far. Each frame is cited once and each quote shown
    once in an answer: a claim never leans on evidence already given for another claim."""

    zone: ZoneInfo
    cited: set[int] = field(default_factory=set)
    quotes: list[str] = field(default_factory=list)

    def cite(self, frame: SampledFrame) -> str:
        self.cited.add(frame.frame_id)
        return citation(frame, self.zone)

    def free(self, frames: Iterable[SampledFrame]) -> SampledFrame | None:
        """The first of these frames not cited yet."""
        return next((frame for frame in frames if frame.frame_id not in self.cited), None)

    def quoted(self, text: str) -> bool:
        """Whether this text, or one holding it or held by it, was quoted already."""
        key = text.lower().strip(ELLIPSIS)
        return any(key in shown or shown in key for shown in self.quotes)

    def quote(self, text: str) -> str:
        self.quotes.append(text.lower().strip(ELLIPSIS))
        return f"“{md_escape(text)}”"


def cited(text: str, citer: Citer, frame: SampledFrame | None) -> str:
    """The text followed by the frame's citation (the text alone when there is no frame to cite)."""
    return f"{text} {citer.cite(frame)}" if frame else text


_BROWSER_SUFFIX = re.compile(
    r"\s+[-—–|]\s+(?:Mozilla Firefox|Firefox|Google Chrome|Chromium|Microsoft\s?Edge|Brave|Safari|Opera|Vivaldi)$", re.IGNORECASE
)


def page_title(window_name: str, app_name: str = "") -> str:
    """A window title without the browser's (or the app's) name after it."""
    title = _BROWSER_SUFFIX.sub("", window_name.strip())
    if app_name and (cut := re.sub(rf"\s+[-—–|]\s+{re.escape(app_name)}$", "", title, flags=re.IGNORECASE)):
        title = cut
    return title


def address(url: str, *, path: bool = False) -> str:
    """A page's address as shown in an answer: its host without "www.", with its path when asked
    (no query or fragment); always a part of the address as captured, in any letter case."""
    parts = urlsplit(url)
    host = (parts.hostname or "").removeprefix("www.")
    shown = host + (parts.path.rstrip("/") if path else "")
    if len(shown) > MAX_ADDRESS_CHARS:
        shown = shown[: MAX_ADDRESS_CHARS - 1] + ELLIPSIS
    return shown.replace("`", "%60")


def _place(frame: SampledFrame) -> str:
    """What the window showed, as markdown: its title in italics, with the site (as code) for a
    browser page whose title does not name it."""
    title = frame.window_name.strip()
    host = address(frame.browser_url) if frame.browser_url else ""
    shown = [f"*{md_escape(title)}*"] if title else []
    if host and host.lower() not in title.lower():
        shown.append(f"`{host}`")
    return " ".join(shown)


def _phrase_score(line: str) -> tuple[int, int]:
    letters = sum(ch.isalpha() for ch in line)
    return (letters >= 8 and letters * 2 >= len(line), min(len(line), MAX_PHRASE_CHARS))


def _phrases(span: Span, chrome: set[str], citer: Citer) -> list[tuple[str, SampledFrame]]:
    """Up to MAX_PHRASES_PER_SPAN content lines of the span, each with a frame that shows it and
    is not cited yet: not chrome, not a window title, not quoted before in the answer, wordy before short."""
    titles = {frame.window_name.strip().lower() for frame in span.frames}
    holding: dict[str, list[SampledFrame]] = {}
    candidates = []
    for order, frame in enumerate(span.frames):
        for line in frame.ocr_lines:
            key = line.lower()
            if key in titles or len(line) < 4:
                continue
            if key in holding:
                holding[key].append(frame)
                continue
            if line_is_chrome(line, chrome=chrome, window_name=frame.window_name, browser_url=frame.browser_url):
                continue
            holding[key] = [frame]
            candidates.append((_phrase_score(line), -order, line))
    candidates.sort(key=lambda item: (item[0], item[1]), reverse=True)
    picked: list[tuple[str, SampledFrame]] = []
    for _score, _order, line in candidates:
        if len(picked) == MAX_PHRASES_PER_SPAN:
            break
        cut = line if len(line) <= MAX_PHRASE_CHARS else line[: MAX_PHRASE_CHARS - 1].rstrip() + ELLIPSIS
        taken = {frame.frame_id for _, frame in picked}
        frame = citer.free(f for f in holding[line.lower()] if f.frame_id not in taken)
        if frame is None or citer.quoted(cut) or any(cut.lower() in o.lower() or o.lower() in cut.lower() for o, _ in picked):
            continue
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


def _span_line(span: Span, chrome: set[str], citer: Citer) -> str:
    """One activity line: its times and apps, then each window with the quotes read from it, each
    quote citing the frame it was read from (a window without one cites a frame of it); frames
    cited earlier in the answer are not cited again."""
    zone = citer.zone
    phrases = _phrases(span, chrome, citer)
    taken = {frame.frame_id for _, frame in phrases}
    places: dict[str, list[SampledFrame]] = {}
    for frame in span.frames:
        places.setdefault(_place(frame), []).append(frame)
    parts, shown = [], []
    for place in places:
        if not place or len(shown) == MAX_WINDOWS_PER_SPAN:
            continue
        said = [(text, frame) for text, frame in phrases if _place(frame) == place]
        if said:
            parts.append(f"{place}: " + ", ".join(cited(citer.quote(text), citer, frame) for text, frame in said))
        elif frame := citer.free(f for f in places[place] if f.frame_id not in taken):
            parts.append(cited(place, citer, frame))
        else:
            continue  # every frame of it is cited for another claim: named uncited, it would read as shown by the next citation
        shown.append(place)
    parts += [cited(citer.quote(text), citer, frame) for text, frame in phrases if _place(frame) not in shown]
    more = len([place for place in places if place]) - len(shown)
    start, end = span.start.astimezone(zone), span.end.astimezone(zone)
    when = f"{start:%H:%M}" if f"{start:%H:%M}" == f"{end:%H:%M}" else f"{start:%H:%M}–{end:%H:%M}"
    head = f"**{when} · {md_escape(span.app_name or 'Unknown app')}**"
    if not shown:
        head = cited(head, citer, citer.free(f for f in span.frames if f.frame_id not in taken))
    return f"- {head}" + (": " + "; ".join(parts) if parts else "") + (f"; and {more} more window{'s' if more != 1 else ''}" if more > 0 else "")


def _overview(spans: list[Span], citer: Citer) -> str:
    """Where the time went: the three apps with the most, each citing a frame of that app that
    the answer does not cite elsewhere (from its longest stretch first)."""
    per_app: dict[str, float] = {}
    frames_of_app: dict[str, list[SampledFrame]] = {}
    for span in sorted(spans, key=lambda span: -span.seconds):
        per_app[span.app_name] = per_app.get(span.app_name, 0.0) + span.seconds
        frames_of_app.setdefault(span.app_name, []).extend(span.frames)
    ranked = sorted(per_app.items(), key=lambda item: -item[1])
    top = ranked[:3]
    overview = ", ".join(
        cited(f"**{md_escape(app or 'Unknown app')}** (about {duration_text(seconds)})", citer, citer.free(frames_of_app[app]))
        for app, seconds in top
    )
    others = len(ranked) - len(top)
    return f"Most time went to {overview}" + (f", and {others} other app{'s' if others != 1 else ''}." if others else ".")


def offline_summarise(
    *,
    frames: list[SampledFrame],
    start_time: datetime,
    end_time: datetime,
    zone: ZoneInfo,
    bucket_seconds: float,
    frames_in_range: int,
    mentions: list[tuple[str, int, list[SampledFrame]]] | None = None,
    question: str = "",
    visits: list[Visit] | None = None,
) -> str:
    """A grounded markdown summary of the sampled frames: for a question about the pages, apps
    or windows of the range, those (from `visits`); where the question's words appear
    (`mentions`); an overview of where the time went; then one cited line per activity span.
    Every frame is cited once and every quote shown once. `frames` must be non-empty and in time order."""
    citer = Citer(zone=zone)
    spans = spans_build(frames=frames, bucket_seconds=bucket_seconds, range_end=end_time)
    chrome = chrome_lines([(frame.app_name, frame.window_name, frame.ocr_lines) for frame in frames])
    local_start, local_end = start_time.astimezone(zone), end_time.astimezone(zone)
    range_text = f"{local_start:%a %d %b %H:%M}–{local_end:%H:%M}" if local_start.date() == local_end.date() else (
        f"{local_start:%a %d %b %H:%M} – {local_end:%a %d %b %H:%M}"
    )
    sampled_note = (
        f"{frames_in_range} screenshots were captured; this summary reads {len(frames)} of them, spread evenly."
        if frames_in_range > len(frames)
        else f"{frames_in_range} screenshot{'s' if frames_in_range != 1 else ''} captured."
    )
    lines = [f"{range_text} ({zone.key}): {sampled_note}", ""]
    kind = places_asked(question)
    if kind and visits is not None:
        lines += places_section(kind=kind, visits=visits, terms=question_terms(question), citer=citer)
    if mentions:
        lines += mentions_section(mentions=mentions, citer=citer)
    activity = [_span_line(block, chrome, citer) for block in blocks_build(spans)]
    if not kind:
        lines += [_overview(spans, citer), ""]
    lines += ["**Activity**", "", *activity]
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
    ago since while during between
    page pages site sites website websites web webpage webpages url urls link links tab tabs browser browsers
    domain domains visit visited visiting""".split()
)
# Chinese words of a question that say what kind of answer is wanted; what is left between them
# (and punctuation) are the things to look for.
CJK_STOP_PHRASES = sorted(
    """总结一下 总结 概括 一下 今天 昨天 上午 下午 晚上 早上 中午 刚才 这个 那个 这些 那些 什么时候 什么 哪些 哪个 哪里
    怎么 如何 为什么 多少 时候 做了 干了 在做 在干 看了 看过 写了 写过 读了 用了 打开 关于 内容 里面 其中 一些 有没有 是否
    应用 软件 程序 窗口 网页 页面 网站 网址 链接 标签页 浏览器 浏览 访问 使用 时间 我的 我们 你 我 他 她 了 的 在 和 与 及 是 吗 呢 吧 都 也 过 里 上 中 点 到 从""".split(),
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


def _mention_quote(frame: SampledFrame, terms: list[str]) -> str:
    """What a found frame shows of the words: its line holding the most of them, as read (cut
    around the first word when long); the frame's snippet when no line holds one."""
    lines = [" ".join(line.split()) for line in frame.ocr_lines]
    scored = [(sum(term.lower() in line.lower() for term in terms), -len(line), line) for line in lines if line]
    best = max(scored, default=(0, 0, ""))
    if not best[0]:
        return frame.ocr_snippet
    line = best[2]
    if len(line) <= MAX_QUOTE_CHARS:
        return line
    at = min(line.lower().find(term.lower()) for term in terms if term.lower() in line.lower())
    start = max(0, min(at - MAX_QUOTE_CHARS // 3, len(line) - MAX_QUOTE_CHARS + 2))
    piece = line[start : start + MAX_QUOTE_CHARS - 2].strip()
    return (ELLIPSIS if start else "") + piece + (ELLIPSIS if start + MAX_QUOTE_CHARS - 2 < len(line) else "")


def mentions_section(*, mentions: list[tuple[str | None, int, list[SampledFrame]]], citer: Citer) -> list[str]:
    """Lines answering "where does X appear": each frame found once, however many of the words
    found it, with the words it holds; the frames that show the same line of the same window
    share one line. Frames found by meaning (term None) follow. Terms found nowhere are named
    only when none was found (else they are noise)."""
    absent = [term for term, _total, frames in mentions if not frames]
    if len(absent) == len(mentions) and absent:
        names = ", ".join(f"“{md_escape(term)}”" for term in absent)
        verb = "appears" if len(absent) == 1 else "appear"
        return [f"{names} {verb} on no screen captured in this range.", ""]
    found = [(term, total, frames) for term, total, frames in mentions if frames and term is not None]
    words: dict[int, list[str]] = {}
    by_id: dict[int, SampledFrame] = {}
    for term, _total, frames in found:
        for frame in frames:
            by_id.setdefault(frame.frame_id, frame)
            words.setdefault(frame.frame_id, []).append(term)
    lines = []
    if found:
        if len(found) == 1:
            term, total, frames = found[0]
            shown = f"; the {len(frames)} best matches" if total > len(frames) else ""
            lines += [f"**Where “{md_escape(term)}” appears** ({total} frame{'s' if total != 1 else ''}{shown}):", ""]
        else:
            names = ", ".join(f"“{md_escape(term)}”" for term, _, _ in found[:-1]) + f" and “{md_escape(found[-1][0])}”"
            counts = ", ".join(f"“{md_escape(term)}” on {total}" for term, total, _ in found)
            cut = any(total > len(frames) for _, total, frames in found)
            shown = f"; the {MAX_MENTIONS_PER_TERM} best of each" if cut else ""
            lines += [f"**Where {names} appear** (frames: {counts}{shown}):", ""]
        ordered = sorted(by_id.values(), key=lambda f: (-len(words[f.frame_id]), f.timestamp, f.frame_id))
        lines += _found_lines(ordered, words, citer, show_words=len(found) > 1)
        lines.append("")
    for term, total, frames in mentions:
        if term is None and frames:
            fresh = [frame for frame in frames if frame.frame_id not in by_id]
            lines += [f"**Close in meaning to your question** ({total} more frame{'s' if total != 1 else ''}):", ""]
            lines += _found_lines(sorted(fresh, key=lambda f: (f.timestamp, f.frame_id)), {}, citer, show_words=False)
            lines.append("")
    return lines


def _found_lines(frames: list[SampledFrame], words: dict[int, list[str]], citer: Citer, *, show_words: bool) -> list[str]:
    """One line per quote and window: its time or times, the app and window, the quote, the words
    it holds when asked, and every frame that shows it."""
    groups: dict[tuple[str, str, str], list[SampledFrame]] = {}
    for frame in frames:
        quote = _mention_quote(frame, words.get(frame.frame_id, []))
        groups.setdefault((quote, frame.app_name, _place(frame)), []).append(frame)
    lines = []
    for (quote, app_name, place), group in groups.items():
        group = [frame for frame in group if frame.frame_id not in citer.cited]
        if not group:
            continue
        first, last = group[0].timestamp.astimezone(citer.zone), max(f.timestamp for f in group).astimezone(citer.zone)
        when = f"{first:%H:%M}" if f"{first:%H:%M}" == f"{last:%H:%M}" else f"{first:%H:%M}–{last:%H:%M}"
        where = md_escape(app_name or "Unknown app") + (f", {place}" if place else "")
        said = "" if citer.quoted(quote) else f": {citer.quote(quote)}"
        held = sorted({term for frame in group for term in words.get(frame.frame_id, [])}, key=str.lower)
        matches = f" (holds {', '.join(md_escape(term) for term in held)})" if show_words and held else ""
        lines.append(f"- {when} · {where}{said}{matches} " + " ".join(citer.cite(frame) for frame in group))
    return lines


# Questions that ask which pages, apps or windows the range holds, by the kind they ask for.
PLACE_WORDS = {
    "pages": "pages sites websites webpages urls links tabs domains 网页 页面 网站 网址 链接 标签页",
    "apps": "apps applications programs 应用 软件 程序 app",
    "windows": "windows 窗口",
}
_PLACE_KIND = {word: kind for kind, words in PLACE_WORDS.items() for word in words.split()}
_EN_PLACES = re.compile(
    r"\b(?:which|what|list|show|all)\b(?:\s+(?:me|the|all|of|other|different|distinct|web|those|these|kinds?))*\s+"
    r"(web\s?pages|pages|sites|websites|urls|links|tabs|domains|apps|applications|programs|windows)\b",
    re.IGNORECASE,
)
_ZH_PLACES = re.compile(
    r"(?:哪些|哪几个|什么|所有|几个|(?:访问|浏览|打开|使用|用|看)(?:了|过))的?(网页|页面|网站|网址|链接|标签页|应用|软件|程序|窗口|app)",
    re.IGNORECASE,
)


def places_asked(question: str) -> str | None:
    """"pages", "apps" or "windows" when the question asks which of those the range holds ("which
    pages did I read", "what sites", "我用了哪些应用"), else None."""
    match = _EN_PLACES.search(question) or _ZH_PLACES.search(question)
    if not match:
        return None
    word = re.sub(r"\s", "", match.group(1).lower())
    return _PLACE_KIND.get(word) or _PLACE_KIND.get(word.removeprefix("web")) or "pages"


_BROWSER_APP = re.compile(r"firefox|chrom|safari|edge|brave|opera|vivaldi|browser|浏览器", re.IGNORECASE)
MAX_PLACES = 15


@dataclass
class Place:
    """Visits taken together as one page, app or window; the longest of them names and cites it."""

    visits: list[Visit] = field(default_factory=list)

    @property
    def seconds(self) -> float:
        return sum(visit.seconds for visit in self.visits)

    @property
    def longest(self) -> Visit:
        return max(self.visits, key=lambda visit: visit.seconds)

    def when(self, zone: ZoneInfo) -> str:
        first = min(visit.first for visit in self.visits).astimezone(zone)
        last = max(visit.last for visit in self.visits).astimezone(zone)
        return f"{first:%H:%M}" if f"{first:%H:%M}" == f"{last:%H:%M}" else f"{first:%H:%M}–{last:%H:%M}"


def _pages(visits: list[Visit]) -> dict[tuple, Place]:
    """Visits of browser pages by page: by address (host and path), or by title in a browser
    window with no address."""
    browsers = {visit.app_name for visit in visits if visit.browser_url} | {
        visit.app_name for visit in visits if _BROWSER_APP.search(visit.app_name)
    }
    pages: dict[tuple, Place] = {}
    for visit in visits:
        if visit.browser_url:
            key = ("url", address(visit.browser_url, path=True).lower())
        elif visit.app_name in browsers and visit.window_name.strip():
            key = ("title", visit.app_name, page_title(visit.window_name, visit.app_name).lower())
        else:
            continue
        pages.setdefault(key, Place()).visits.append(visit)
    return pages


def _place_line(kind: str, place: Place, citer: Citer) -> str:
    visit = place.longest
    app = md_escape(visit.app_name or "Unknown app")
    spent = f"about {duration_text(place.seconds)}, {place.when(citer.zone)}"
    if kind == "apps":
        windows = len({v.window_name for v in place.visits if v.window_name})
        text = f"**{app}** · {spent}" + (f", {windows} window{'s' if windows != 1 else ''}" if windows else "")
    else:
        title = page_title(visit.window_name, visit.app_name) if kind == "pages" else visit.window_name.strip()
        where = [f"*{md_escape(title)}*"] if title else []
        if kind == "pages" and visit.browser_url:
            where.append(f"`{address(visit.browser_url, path=True)}`")
        text = " ".join(where or ["*untitled window*"]) + f" · {app} · {spent}"
    frame = visit.frame if visit.frame.frame_id not in citer.cited else None
    return "- " + cited(text, citer, frame)


def places_section(*, kind: str, visits: list[Visit], terms: list[str], citer: Citer) -> list[str]:
    """The pages, apps or windows of the range, most time first, from the frames' addresses,
    titles and apps: each with the time spent, when, and a frame of it. Pages whose title or
    address holds a word of the question, when some do, stand alone."""
    if kind == "pages":
        places = _pages(visits)
        noun = "web page"
    elif kind == "apps":
        places = {}
        for visit in visits:
            places.setdefault(visit.app_name, Place()).visits.append(visit)
        noun = "app"
    else:
        places = {}
        for visit in visits:
            places.setdefault((visit.app_name, visit.window_name), Place()).visits.append(visit)
        noun = "window"
    if not places:
        return [f"No {noun} was captured in this range: no screenshot has a browser address or a browser window.", ""]
    holding = ""
    if kind == "pages" and terms:
        named = {
            key: place for key, place in places.items()
            if any(term.lower() in f"{v.window_name} {v.browser_url}".lower() for v in place.visits for term in terms)
        }
        if named:
            places = named
            holding = " whose title or address holds " + " or ".join(f"“{md_escape(term)}”" for term in terms)
    ranked = sorted(places.values(), key=lambda place: -place.seconds)
    total = sum(place.seconds for place in ranked)
    heading = {"web page": "Pages visited", "app": "Apps used", "window": "Windows used"}[noun]
    lines = [
        f"**{heading}{holding}** ({len(ranked)} {noun}{'s' if len(ranked) != 1 else ''}, about {duration_text(total)} in all, "
        "from the screenshots' apps, titles and addresses):",
        "",
    ]
    lines += [_place_line(kind, place, citer) for place in ranked[:MAX_PLACES]]
    rest = ranked[MAX_PLACES:]
    if rest:
        lines.append(f"- and {len(rest)} more {noun}s, about {duration_text(sum(p.seconds for p in rest))} in all")
    return lines + [""]
