"""Distractor screens for the large memory of the captured quality set: realistic screen text
that answers none of its questions.

A large memory is the labelled screens among many others. These others are made from real text
found on this machine, cut as screens show it:
- an editor on source code: 25-60 consecutive lines of a Python file of the project's .venv;
- a page or a terminal on a changelog or README of /usr/share/doc (Debian's packages' own);
- a program's window in English: 12-40 consecutive messages of a gettext catalog (.mo) of
  /usr/share/locale or the .venv (menus, dialogs, errors as programs show them);
- the same in Chinese: the zh_CN / zh_Hans / zh_TW translations of those catalogs, a third of
  them beside their English originals (mixed screens).
Every line that touches a subject of a labelled question or an off-topic one (BLOCKED: words
and Chinese terms of their subjects) is left out, and so is every line that a labelled screen
shows, so no distractor answers a question; what is left is the ordinary noise of a computer
used for work.

distractor_frames(n, seed) gives n (app_name, window_name, browser_url, text), the same for the
same n, seed and machine."""

import gettext
import gzip
import random
import re
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
VENV_SITE = next((REPO / ".venv" / "lib").glob("python3*/site-packages"), None)

# Subjects of the labelled questions (bench.quality.captured_queries) and of the off-topic ones:
# English as word starts (case-folded), Chinese as substrings.
BLOCKED_EN = r"""
daylight dst clocks? avif thumbnail safari birthday coupon quota backups? certificate passport francs? chf swiss
subfolder subdirector directory.tree photos? nas\b uploads? body.size bills? tips?\b gratuity restaurant restor nightly
camping tents? income.tax withhold salar wages? raspberry grandm flights? delay tokyo japan parking permit checkup medical
plumb pipes? trains? rail new.year singapore relocat dentist dental teeth tooth visas? consulate cold.snap snow blizzard
storm two.step two.factor 2fa one.time otp verification.code pork braise recipe desks? standing rent\b rental landlord
last.page cats?\b claws? nails? parent teacher school hotel lisbon portugal booking tickets? docker containers? refund
charged.twice woodwork stool sourdough leaven lunch deliver spicy prescription pharmac medicine blood.pressure camera
microphone\b mic\b bicycle bikes? racks? dress.code year.end grooming dogs?\b pupp budget taxi airport reimburs expense
tennis volcano iceland knit wool telescope honey bees?\b guitar pottery clarinet origami horse dinosaur fossil snorkel
""".split()
BLOCKED_ZH = """
夏令时 缩略图 生日 优惠券 配额 备份 证书 护照 法郎 瑞士 目录 查找 照片 相片 上传 账单 小费 恢复 露营 帐篷 所得税 个税 工资 薪 树莓派
航班 延误 晚点 停车 体检 水管 车票 高铁 动车 火车 新加坡 迁移 牙 签证 寒潮 降温 验证码 两步 双重 红烧 猪肉 升降 房租 导出 猫 指甲
家长 学校 酒店 数据卷 容器 退款 木工 板凳 面团 外卖 麻辣 处方 药 相机 摄像 麦克风 隐私 自行车 年会 着装 预算 出租车 打车 报销 机场
吉他 钓鱼 火山 冰岛 蜂 马术 恐龙 化石 折纸 陶艺
""".split()
_BLOCKED = re.compile(r"\b(?:" + "|".join(BLOCKED_EN) + ")", re.IGNORECASE)
_CJK = re.compile(r"[\u3400-\u9fff]")


def line_blocked(line: str) -> bool:
    return bool(_BLOCKED.search(line)) or any(term in line for term in BLOCKED_ZH)


def _read(path: Path) -> str:
    try:
        data = gzip.open(path).read() if path.suffix == ".gz" else path.read_bytes()
    except OSError:
        return ""
    return data.decode("utf-8", errors="replace")


def _catalog(path: Path) -> list[tuple[str, str]]:
    """(English, translation) of a gettext catalog, in its own order."""
    try:
        with path.open("rb") as handle:
            catalog = gettext.GNUTranslations(handle)._catalog  # noqa: SLF001 (the parsed catalog is what we want)
    except Exception:  # a catalog that does not parse is skipped
        return []
    pairs = []
    for key, value in catalog.items():
        english = key[0] if isinstance(key, tuple) else key
        if english and value and "\n" not in english.strip():
            pairs.append((english.strip(), value.strip()))
    return pairs


class Sources:
    """The real texts distractors are cut from, listed once (sorted, so a seed gives the same screens)."""

    def __init__(self) -> None:
        self.code = sorted(VENV_SITE.rglob("*.py")) if VENV_SITE else []
        docs = Path("/usr/share/doc")
        self.docs = sorted([*docs.glob("*/changelog*"), *docs.glob("*/README*"), *docs.glob("*/NEWS*")])
        zh_dirs = [Path("/usr/share/locale") / lang / "LC_MESSAGES" for lang in ("zh_CN", "zh_TW")]
        zh = [mo for folder in zh_dirs if folder.is_dir() for mo in sorted(folder.glob("*.mo"))]
        if VENV_SITE:
            zh += sorted(VENV_SITE.rglob("locale/zh_Han*/LC_MESSAGES/*.mo"))
        self.catalogs = zh
        self._cache: dict[Path, object] = {}

    def lines_of(self, path: Path) -> list[str]:
        if path not in self._cache:
            self._cache[path] = [line.rstrip()[:160] for line in _read(path).splitlines()]
        return self._cache[path]  # type: ignore[return-value]

    def pairs_of(self, path: Path) -> list[tuple[str, str]]:
        if path not in self._cache:
            self._cache[path] = _catalog(path)
        return self._cache[path]  # type: ignore[return-value]


def _window(rng: random.Random, items: list, low: int, high: int) -> list:
    if len(items) <= low:
        return list(items)
    size = rng.randint(low, min(high, len(items)))
    start = rng.randrange(0, len(items) - size + 1)
    return items[start : start + size]


def distractor_frames(n: int, *, seed: int, labelled_lines: set[str]) -> Iterator[tuple[str, str, str, str]]:
    """n distractor frames: (app_name, window_name, browser_url, text)."""
    rng = random.Random(seed)
    sources = Sources()
    made = 0

    def keep(lines: list[str]) -> list[str]:
        return [line for line in lines if line.strip() and line.strip() not in labelled_lines and not line_blocked(line)]

    while made < n:
        roll = rng.random()
        if roll < 0.35 and sources.code:
            path = rng.choice(sources.code)
            lines = keep(_window(rng, sources.lines_of(path), 25, 60))
            app, title, url = "xterm", f"{path.name} ({path.parent.name}) - VIM", ""
        elif roll < 0.55 and sources.docs:
            path = rng.choice(sources.docs)
            lines = keep(_window(rng, sources.lines_of(path), 20, 50))
            package = path.parent.name
            if rng.random() < 0.5:
                app, title, url = "Chromium", f"{path.name} - {package}", f"file:///usr/share/doc/{package}/{path.name}"
            else:
                app, title, url = "xterm", f"less /usr/share/doc/{package}/{path.name}", ""
        elif sources.catalogs:
            path = rng.choice(sources.catalogs)
            pairs = _window(rng, sources.pairs_of(path), 12, 40)
            domain = path.stem
            if roll < 0.75:  # the program in English
                lines = keep([english for english, _ in pairs])
                app, title = domain, f"{domain} - {rng.choice(['Preferences', 'Settings', 'Messages', 'Log', 'Help'])}"
            elif roll < 0.92:  # in Chinese
                lines = keep([translated for _, translated in pairs])
                app, title = domain, f"{domain} - {rng.choice(['首选项', '设置', '消息', '日志', '帮助'])}"
            else:  # both, side by side (a translator's tool)
                lines = keep([f"{english}    {translated}" for english, translated in pairs])
                app, title = "Poedit", f"{domain}.po - Poedit"
            url = ""
        else:
            continue
        text = "\n".join(lines)
        if len(text) < 120:  # a screen that says almost nothing is not a screen of this memory
            continue
        made += 1
        yield app, title, url, text
