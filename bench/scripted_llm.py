"""A local scripted "model" for bench/chat.py: an OpenAI-compatible streaming server that
answers from the packed context it receives, as a real model would have to.

It reuses the fake server of the chat tests (tests/chat/fake_llm.py: the real streaming
protocol, a role-only first chunk, heartbeats, `data: [DONE]`) and replaces its fixed answer
by one written from the request: it parses the frame blocks of the user message
(`frame ID | HH:MM:SS | app: ... | window: ... | url: ...` then `  text: ...`) and the
question after "Question: ", looks up the question's `Script` (intent, keywords, and the
mistakes to make), and writes Markdown that cites the frames it was given.

The mistakes test the citation validator: an invented id, a real frame outside the range, a
frame of the range that was not in the packed context, bare `myrecall://frame/ID` references,
wrong clock labels, viewer links, and answers with no valid citation at all (a model that
ignores the rules).

Requests are answered one at a time (the bench is sequential): the answer is written from
the last request received.
"""

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.chat.fake_llm import FakeLlm  # noqa: E402

# What a script can ask the model to get wrong, on top of a grounded answer.
INVENTED = "invented"  # an id that no frame has
OUTSIDE = "outside"  # a real frame just outside the range
NOT_IN_CONTEXT = "not_in_context"  # a frame of the range that was not sampled into the context
BARE_VALID = "bare_valid"  # a listed frame cited as a bare myrecall://frame/ID
BARE_INVALID = "bare_invalid"  # a bare reference to a frame that was not listed
WRONG_LABEL = "wrong_label"  # a listed frame with a wrong HH:MM label
VIEWER_LINK = "viewer_link"  # a listed frame linked as /frames/ID/view
NO_CITATION = "no_citation"  # times written as plain text, no links at all
ONLY_INVALID = "only_invalid"  # every citation points at an id that no frame has

MISTAKES = (INVENTED, OUTSIDE, NOT_IN_CONTEXT, BARE_VALID, BARE_INVALID, WRONG_LABEL, VIEWER_LINK, NO_CITATION, ONLY_INVALID)
# Mistakes that add one citation the validator must drop, with the reason it should give.
EXPECTED_DROP = {INVENTED: "not found", OUTSIDE: "outside range", NOT_IN_CONTEXT: "not in context", BARE_INVALID: "not in context"}

_CJK = re.compile(r"[\u3400-\u9fff]")
_HEAD = re.compile(r"^frame (\d+) \| (\d\d:\d\d):\d\d \| (.*)$")
_CITE = re.compile(r"\[(\d\d:\d\d)\]\(myrecall://frame/(\d+)\)")


@dataclass(frozen=True)
class Script:
    intent: str  # summary | topic | apps | when | offtopic
    keywords: tuple[str, ...] = ()
    mistakes: tuple[str, ...] = ()
    probe: str = ""  # a line added as it is, "{outside}" replaced by a real frame id outside the range


@dataclass
class ContextFrame:
    frame_id: int
    clock: str
    app: str
    window: str = ""
    url: str = ""
    text: str = ""

    def haystack(self) -> str:
        return f"{self.window}\n{self.url}\n{self.text}".casefold()


@dataclass
class Request:
    frames: list[ContextFrame] = field(default_factory=list)
    question: str = ""


def request_parse(body: dict) -> Request:
    """The frames and the question of the last user message."""
    user = [m for m in body.get("messages", []) if m.get("role") == "user"]
    content = user[-1]["content"] if user else ""
    context, _, question = content.rpartition("\n\nQuestion: ")
    request = Request(question=question.strip())
    for line in context.splitlines():
        head = _HEAD.match(line)
        if head:
            frame = ContextFrame(frame_id=int(head.group(1)), clock=head.group(2), app="")
            for part in head.group(3).split(" | "):
                key, _, value = part.partition(": ")
                if key == "app":
                    frame.app = value
                elif key == "window":
                    frame.window = value
                elif key == "url":
                    frame.url = value
            request.frames.append(frame)
        elif line.startswith("  text: ") and request.frames:
            request.frames[-1].text = line[len("  text: ") :]
    return request


def cite(frame: ContextFrame) -> str:
    return f"[{frame.clock}](myrecall://frame/{frame.frame_id})"


def _short(text: str, limit: int = 60) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _runs(frames: list[ContextFrame]) -> list[list[ContextFrame]]:
    runs: list[list[ContextFrame]] = []
    for frame in frames:
        if runs and runs[-1][0].app == frame.app:
            runs[-1].append(frame)
        else:
            runs.append([frame])
    return runs


class ScriptedModel:
    """Writes an answer for one request; `scripts` maps a question to its script and
    `frame_count` is the number of frames in the database (ids 1..frame_count, in time order)."""

    def __init__(self, *, scripts: dict[str, Script], frame_count: int):
        self.scripts = scripts
        self.frame_count = frame_count

    def answer(self, body: dict) -> str:
        request = request_parse(body)
        script = self.scripts.get(request.question, Script("summary"))
        zh = bool(_CJK.search(request.question))
        frames = request.frames
        if script.intent == "offtopic" or not frames:
            return self._offtopic(zh)
        writer = {"summary": self._summary, "topic": self._topic, "apps": self._apps, "when": self._when}[script.intent]
        text = writer(frames, script, zh)
        return self._mistakes(text, frames, script, zh)

    # Grounded answers ---------------------------------------------------------------------------

    def _offtopic(self, zh: bool) -> str:
        if zh:
            return "屏幕截图里没有能回答这个问题的内容。这个问题与所选时间段内的屏幕活动无关。"
        return (
            "The screen captures of this range do not answer that: it is not something that was on "
            "your screen. MyRecall's own settings and documentation would be the place to look."
        )

    def _summary(self, frames: list[ContextFrame], script: Script, zh: bool) -> str:
        runs = _runs(frames)
        totals: dict[str, int] = {}
        first: dict[str, ContextFrame] = {}
        for run in runs:
            totals[run[0].app] = totals.get(run[0].app, 0) + len(run)
            first.setdefault(run[0].app, run[0])
        top = sorted(totals, key=lambda app: -totals[app])[:3]
        if len(runs) > 8:
            keep = sorted(sorted(range(len(runs)), key=lambda i: -len(runs[i]))[:8])
            runs = [runs[i] for i in keep]
        if zh:
            lines = [f"这段时间主要在用 {'、'.join(f'{app} {cite(first[app])}' for app in top)}。", ""]
        else:
            apps = ", ".join(f"{app} {cite(first[app])}" for app in top)
            lines = [f"Between {frames[0].clock} and {frames[-1].clock} you mostly worked in {apps}.", ""]
        for run in runs:
            windows = list(dict.fromkeys(frame.window for frame in run if frame.window))[:2]
            detail = _short(run[len(run) // 2].text, 50)
            shown = " and ".join(f"*{_short(window, 45)}*" for window in windows) or run[0].app
            cited = list({frame.frame_id: frame for frame in (run[0], run[len(run) // 2])}.values())
            if zh:
                lines.append(f"- {run[0].clock}–{run[-1].clock} 在 **{run[0].app}**：{shown}，屏幕上是“{detail}” {' '.join(map(cite, cited))}")
            else:
                lines.append(f"- {run[0].clock}–{run[-1].clock} **{run[0].app}**: {shown}, showing “{detail}” {' '.join(map(cite, cited))}")
        return "\n".join(lines)

    def _matches(self, frames: list[ContextFrame], keywords: tuple[str, ...]) -> list[ContextFrame]:
        wanted = [keyword.casefold() for keyword in keywords]
        return [frame for frame in frames if any(word in frame.haystack() for word in wanted)]

    def _not_found(self, script: Script, zh: bool) -> str:
        if zh:
            return f"这段时间的截图里没有找到关于“{script.keywords[0]}”的内容。"
        return f"I found nothing about “{script.keywords[0]}” in the captures of this range."

    def _topic(self, frames: list[ContextFrame], script: Script, zh: bool) -> str:
        hits = self._matches(frames, script.keywords)
        if not hits:
            return self._not_found(script, zh)
        by_window: dict[str, list[ContextFrame]] = {}
        for frame in hits:
            by_window.setdefault(frame.window or frame.app, []).append(frame)
        if zh:
            lines = [f"你在 {hits[0].clock} 到 {hits[-1].clock} 之间看了相关内容 {cite(hits[0])}。", ""]
        else:
            lines = [f"You were on this between {hits[0].clock} and {hits[-1].clock} {cite(hits[0])}.", ""]
        for window, group in list(by_window.items())[:5]:
            cited = list({frame.frame_id: frame for frame in (group[0], group[-1])}.values())
            text = _short(group[0].text, 70)
            if zh:
                lines.append(f"- **{_short(window, 50)}**（{group[0].app}）：“{text}” {' '.join(map(cite, cited))}")
            else:
                lines.append(f"- **{_short(window, 50)}** in {group[0].app}: “{text}” {' '.join(map(cite, cited))}")
        return "\n".join(lines)

    def _apps(self, frames: list[ContextFrame], script: Script, zh: bool) -> str:
        by_app: dict[str, list[ContextFrame]] = {}
        for frame in frames:
            by_app.setdefault(frame.app, []).append(frame)
        ranked = sorted(by_app.items(), key=lambda item: -len(item[1]))
        lines = ["你用了这些应用，按截图数量排序：" if zh else "The apps on screen, most captures first:", ""]
        for app, group in ranked[:8]:
            share = round(100 * len(group) / len(frames))
            if zh:
                lines.append(f"- **{app}**：约 {share}% 的截图，从 {cite(group[0])} 到 {cite(group[-1])}")
            else:
                lines.append(f"- **{app}**: about {share}% of the captures, from {cite(group[0])} to {cite(group[-1])}")
        return "\n".join(lines)

    def _when(self, frames: list[ContextFrame], script: Script, zh: bool) -> str:
        hits = self._matches(frames, script.keywords)
        if not hits:
            return self._not_found(script, zh)
        first, last = hits[0], hits[-1]
        if zh:
            text = f"最早是在 {first.clock}，{first.app} 里的 *{_short(first.window, 50)}* {cite(first)}。"
            if last is not first:
                text += f"\n\n最后一次出现在 {last.clock} {cite(last)}。"
        else:
            text = f"First at {first.clock}, in {first.app}: *{_short(first.window, 50)}* {cite(first)}."
            if last is not first:
                text += f"\n\nIt was last on screen at {last.clock} {cite(last)}."
        return text

    # Mistakes ----------------------------------------------------------------------------------

    def _ids(self, frames: list[ContextFrame]) -> tuple[int | None, list[int]]:
        """A real frame just outside the listed range, and the first two inside it that were not listed."""
        listed = {frame.frame_id for frame in frames}
        low, high = min(listed), max(listed)
        outside = low - 1 if low > 1 else (high + 1 if high < self.frame_count else None)
        inside = [i for i in range(low + 1, min(high, low + 1000)) if i not in listed][:2]
        return outside, inside

    def _mistakes(self, text: str, frames: list[ContextFrame], script: Script, zh: bool) -> str:
        outside, unlisted = self._ids(frames)
        inside = unlisted[0] if unlisted else None
        inside_2 = unlisted[-1] if unlisted else None
        mistakes = script.mistakes
        extra = []
        invented = self.frame_count + 4242
        for mistake in mistakes:
            if mistake == INVENTED:
                extra.append(f"- {'还看了部署检查清单' if zh else 'You also went through the deployment checklist'} [10:42](myrecall://frame/{invented})")
            elif mistake == OUTSIDE and outside is not None:
                extra.append(f"- {'之前还在回邮件' if zh else 'Just before that you were answering mail'} [08:59](myrecall://frame/{outside})")
            elif mistake == NOT_IN_CONTEXT and inside is not None:
                extra.append(f"- {'中间还切换过窗口' if zh else 'In between you switched windows briefly'} [11:11](myrecall://frame/{inside})")
            elif mistake == BARE_INVALID and inside_2 is not None:
                extra.append(f"{'另见' if zh else 'See also'} myrecall://frame/{inside_2}")
            elif mistake == BARE_VALID:
                text = _CITE.sub(lambda m: f"myrecall://frame/{m.group(2)}", text, count=1)
            elif mistake == WRONG_LABEL:
                text = _CITE.sub(lambda m: f"[23:59](myrecall://frame/{m.group(2)})", text, count=1)
            elif mistake == VIEWER_LINK:
                text = _CITE.sub(lambda m: f"[{m.group(1)}](/frames/{m.group(2)}/view)", text, count=1)
            elif mistake == NO_CITATION:
                text = _CITE.sub(lambda m: f"({m.group(1)})", text)
            elif mistake == ONLY_INVALID:
                text = _CITE.sub(lambda m: f"[{m.group(1)}](myrecall://frame/{int(m.group(2)) + 10 * self.frame_count})", text)
        if script.probe:
            extra.append(script.probe.replace("{outside}", str(outside if outside is not None else invented)))
        return text + ("\n" + "\n".join(extra) if extra else "")


class ScriptedLlm(FakeLlm):
    """The tests' fake server, answering each request with `model.answer(request body)`."""

    def __init__(self, model: ScriptedModel, *, words_per_chunk: int = 4):
        super().__init__()
        self.model = model
        self.words_per_chunk = words_per_chunk

    def answer_pieces(self) -> list[str]:
        text = self.model.answer(self.requests[-1])
        words = text.split(" ")
        step = self.words_per_chunk
        return [" ".join(words[i : i + step]) + (" " if i + step < len(words) else "") for i in range(0, len(words), step)]
