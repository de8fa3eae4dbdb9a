"""Synthetic but realistic screens for tests and benchmarks: an editor, a browser,
a terminal and a chat window, with English and Simplified Chinese text, drawn
with the fonts the setup installs. Every screen knows the text it shows, so a
test can check what OCR read against what was drawn.

Sequences imitate a working session: typing into an editor (one line grows),
scrolling a page (the content moves up), and switching windows.
"""

import random
import re
from dataclasses import dataclass, field
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

CJK_FONT = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"
MONO_FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"

EN_WORDS = (
    "budget review quarterly meeting notes release deploy server database index search memory timeline "
    "frame capture window browser editor terminal commit merge branch invoice customer report design "
    "schedule project roadmap feedback analytics dashboard migration payment account security update "
    "performance latency cache request response kernel network storage backup restore monitor alert "
    "interview candidate contract proposal marketing campaign newsletter article summary question answer"
).split()
ZH_WORDS = (
    "会议 记录 项目 进度 数据 库索引 搜索 时间线 截图 识别 文字 预算 报告 客户 合同 设计 方案 测试 "
    "部署 服务器 网络 存储 备份 安全 更新 性能 缓存 请求 机器学习 人工智能 产品 经理 市场 营销 "
    "文章 总结 问题 答案 日程 安排 反馈 分析 仪表盘 迁移 支付 账户 监控 告警 面试 候选人 提案"
).split()


@lru_cache(maxsize=None)
def font(size: int, mono: bool = False) -> ImageFont.FreeTypeFont:
    if mono:
        return ImageFont.truetype(MONO_FONT, size)
    for index in range(10):  # the Simplified Chinese face of the collection
        face = ImageFont.truetype(CJK_FONT, size, index=index)
        if face.getname()[0].endswith(" SC"):
            return face
    return ImageFont.truetype(CJK_FONT, size)


def sentence(rng: random.Random, *, zh_share: float = 0.3, words: int | None = None) -> str:
    n = words or rng.randint(4, 10)
    if rng.random() < zh_share:
        return "".join(rng.choice(ZH_WORDS) for _ in range(max(2, n // 2 + 1)))
    return " ".join(rng.choice(EN_WORDS) for _ in range(n))


@dataclass
class Screen:
    """What one frame shows: its window, its context and the text lines drawn."""

    kind: str  # editor | browser | terminal | chat
    app_name: str
    window_name: str
    browser_url: str = ""
    lines: list[str] = field(default_factory=list)
    scroll: int = 0  # first visible line

    def visible_lines(self, rows: int) -> list[str]:
        return self.lines[self.scroll : self.scroll + rows]


THEMES = {
    "editor": {"bg": (250, 250, 250), "fg": (30, 30, 30), "bar": (230, 232, 236), "mono": True, "size": 20, "pitch": 30},
    "browser": {"bg": (255, 255, 255), "fg": (40, 40, 40), "bar": (222, 225, 230), "mono": False, "size": 20, "pitch": 34},
    "terminal": {"bg": (24, 26, 30), "fg": (220, 220, 220), "bar": (50, 52, 58), "mono": True, "size": 20, "pitch": 30},
    "chat": {"bg": (245, 247, 250), "fg": (25, 25, 25), "bar": (210, 220, 235), "mono": False, "size": 22, "pitch": 40},
}
TOP = 90  # title bar and toolbar height


def rows_for(kind: str, height: int = 1080) -> int:
    return (height - TOP - 20) // THEMES[kind]["pitch"]


def render(screen: Screen, size: tuple[int, int] = (1920, 1080)) -> Image.Image:
    theme = THEMES[screen.kind]
    width, height = size
    img = Image.new("RGB", size, theme["bg"])
    draw = ImageDraw.Draw(img)
    ui = font(18)
    draw.rectangle([0, 0, width, 40], fill=theme["bar"])
    draw.text((20, 8), f"{screen.app_name} - {screen.window_name}", font=ui, fill=(60, 60, 60) if screen.kind != "terminal" else (200, 200, 200))
    draw.rectangle([0, 40, width, TOP - 10], fill=tuple(max(c - 12, 0) for c in theme["bar"]))
    if screen.browser_url:
        draw.rounded_rectangle([20, 46, 1100, 76], radius=12, fill=(255, 255, 255))
        draw.text((36, 50), screen.browser_url, font=ui, fill=(70, 70, 70))
    face = font(theme["size"], mono=theme["mono"] and False)
    mono_face = font(theme["size"], mono=True)
    left = 80 if screen.kind == "editor" else 60
    for row, text in enumerate(screen.visible_lines(rows_for(screen.kind, height))):
        y = TOP + row * theme["pitch"]
        if screen.kind == "editor":
            draw.text((14, y), f"{screen.scroll + row + 1:>3}", font=mono_face, fill=(150, 150, 150))
        has_cjk = any("\u4e00" <= ch <= "\u9fff" for ch in text)
        use = mono_face if (theme["mono"] and not has_cjk) else face
        if screen.kind == "chat" and row % 2:
            draw.rounded_rectangle([left - 12, y - 4, min(left + 30 + int(use.getlength(text)), width - 40), y + theme["pitch"] - 8], radius=10, fill=(220, 235, 255))
        draw.text((left, y), text, font=use, fill=theme["fg"])
    return img


APPS = {
    "editor": ("Code", lambda rng: f"{rng.choice(['notes', 'server', 'report', 'budget'])}.{rng.choice(['py', 'md', 'txt'])}", ""),
    "browser": ("Firefox", lambda rng: f"{sentence(rng, zh_share=0.3, words=3)}", "https://example.org/{}"),
    "terminal": ("Terminal", lambda rng: "bash: ~/work", ""),
    "chat": ("WeChat", lambda rng: rng.choice(["项目群", "产品讨论", "Team chat"]), ""),
}


def new_screen(rng: random.Random, kind: str | None = None, *, zh_share: float = 0.3, length: int = 80) -> Screen:
    kind = kind or rng.choice(list(APPS))
    app, window, url = APPS[kind]
    lines = [sentence(rng, zh_share=zh_share) for _ in range(length)]
    return Screen(
        kind=kind,
        app_name=app,
        window_name=window(rng),
        browser_url=url.format(rng.randint(1, 9999)) if url else "",
        lines=lines,
    )


def session(rng: random.Random, steps: int, *, zh_share: float = 0.3):
    """Yield (Screen, action) for a realistic sequence of captures: mostly typing and
    scrolling within a window, sometimes a switch to another window."""
    windows = [new_screen(rng, kind, zh_share=zh_share) for kind in APPS]
    current = rng.choice(windows)
    yield current, "open"
    for _ in range(steps - 1):
        roll = rng.random()
        if roll < 0.15:
            current = rng.choice([w for w in windows if w is not current])
            action = "switch"
        elif roll < 0.35:
            limit = max(len(current.lines) - rows_for(current.kind), 0)
            current.scroll = min(current.scroll + rng.randint(3, 12), limit)
            action = "scroll"
        else:
            row = min(current.scroll + rng.randint(0, rows_for(current.kind) - 1), len(current.lines) - 1)
            extra = " " + rng.choice(EN_WORDS) if rng.random() > zh_share else rng.choice(ZH_WORDS)
            if len(current.lines[row]) < 90:
                current.lines[row] += extra
            else:
                current.lines.insert(row + 1, extra.strip())
            action = "type"
        yield current, action


LATIN_WORD = re.compile(r"[A-Za-z]+")
CJK_RUN = re.compile(r"[\u4e00-\u9fff]+")
ZH_VOCAB = sorted(set(ZH_WORDS), key=len, reverse=True)


def words_drawn(*, screen: Screen, rows: int | None = None) -> set[str]:
    """Words in the content lines visible on a screen (`rows` of them; as many as 1080 pixels
    hold by default): English words, and Chinese vocabulary words (a Chinese line is a run
    of them, split here by longest match)."""
    words: set[str] = set()
    for line in screen.visible_lines(rows or rows_for(screen.kind)):
        words.update(w.lower() for w in LATIN_WORD.findall(line))
        for run in CJK_RUN.findall(line):
            pos = 0
            while pos < len(run):
                match = next((w for w in ZH_VOCAB if run.startswith(w, pos)), run[pos])
                words.add(match)
                pos += len(match)
    return words


def words_found(*, words: set[str], text: str) -> set[str]:
    """Which of `words` the OCR text contains: English as whole words, Chinese as substrings."""
    latin = {w.lower() for w in LATIN_WORD.findall(text)}
    joined = "".join(text.split())
    return {w for w in words if (w in latin if w.isascii() else w in joined)}
