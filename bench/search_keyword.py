"""Keyword search latency at scale, on the app's real schema and selector.

For each size, builds a fresh database with the app's migrations in a temporary
MYRECALL_DATA_DIR, fills it with synthetic OCR-like frames (about 70% English and
30% Chinese lines, Zipf-distributed vocabularies, screens that change a little
from one capture to the next) spread over 30 days, indexed through the app's own
partitioned layout (search.fts.index_rows_write), and times
search.keyword.search_keyword on 1-day ranges with LIMIT 20, with the rank cap
(SEARCH_RANK_MAX) and with every match ranked (cap 0), then the same queries once
more through GET /api/v1/search. Some screens hold English words glued to Chinese,
camel-case, letter-digit and package-name compounds: recall on those (a glued
word, a part of a compound, a word typed in part, a word inside a longer word) is measured against the frame it was read from,
beside what exact word matching alone (the index before compound parts and
prefixes) finds. Last, times a new connection (one per request under ASGI) with
the index in 52, 156 and 520 partitions. Prints figures, asserts nothing.

With --database sqlite,postgres, each size is built and timed on each database in turn, with the
same corpus, queries and ranges (the same seed and start time), each in a child process of this
script (Django reads its database once per process), and a table puts PostgreSQL beside SQLite at
the end. PostgreSQL is a server of the bench's own (bench.pg: initdb in a temp dir, the settings it
prints); on it the database is a fresh schema per size made by the app's migrations, loaded with
the same rows (the keyword index through search.keyword_index's rows_write), then VACUUM ANALYZE
(what autovacuum would do after a bulk load) and pg_prewarm before timing. The time of a new
connection with many partitions is SQLite's alone.

    .venv/bin/python bench/search_keyword.py --sizes 100000,1000000 --queries 200
    .venv/bin/python bench/search_keyword.py --sizes 1000000 --rank-max 8000 --connections ""
    .venv/bin/python bench/search_keyword.py --sizes 1000000 --queries 200 --database sqlite,postgres
"""

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from datetime import timezone as dt_timezone
from pathlib import Path

import numpy as np
from tqdm import tqdm

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

DAY = 86400.0
SPAN_DAYS = 30
BATCH = 25_000


def _signature() -> bytes:
    """A screen's signature as the app stores it (packed: about 280 B), kept for the device's frames
    of the last hour (frames.models.FrameSignature): search never reads it, but the database's bytes
    per frame count it."""
    from frames.imaging import image_hash
    from tests.screens import new_screen, render

    return image_hash(render(new_screen(random.Random(1), "editor")))


PHASH = _signature()

# The top of an English screen's vocabulary: function words, then words of work and UI.
EN_TOP = (
    "the of and to a in is for on that with as it at by from this be are or you your an not all new file "
    "edit view help more can will we our if has was have do"
).split()
EN_WORK = (
    "budget review quarterly meeting notes release deploy server database index search memory timeline "
    "frame capture window browser editor terminal commit merge branch invoice customer report design "
    "schedule project roadmap feedback analytics dashboard migration payment account security update "
    "performance latency cache request response kernel network storage backup restore monitor alert "
    "interview candidate contract proposal marketing campaign newsletter article summary question answer "
    "settings open save close home page share copy paste delete cancel name date time status user admin "
    "login password email message inbox draft send reply today yesterday week month total amount price "
    "order item list table row column chart team issue error warning build test python config docs"
).split()
ZH_SEED = (
    "会议 记录 项目 进度 数据 索引 搜索 时间线 截图 识别 文字 预算 报告 客户 合同 设计 方案 测试 "
    "部署 服务器 网络 存储 备份 安全 更新 性能 缓存 请求 机器学习 人工智能 产品 经理 市场 营销 "
    "文章 总结 问题 答案 日程 安排 反馈 分析 仪表盘 迁移 支付 账户 监控 告警 面试 候选人 提案"
).split()
APPS = [
    ("Google Chrome", "browser"),
    ("Firefox", "browser"),
    ("Code", "editor"),
    ("Terminal", "terminal"),
    ("Slack", "chat"),
    ("WeChat", "chat"),
    ("飞书", "chat"),
    ("Obsidian", "editor"),
    ("Mail", "mail"),
]
DOMAINS = ["github.com", "docs.python.org", "mail.google.com", "zhihu.com", "example.org", "feishu.cn", "bilibili.com"]


class Zipf:
    """Draws words with Zipf-Mandelbrot frequencies, from a large pre-sampled pool (fast)."""

    def __init__(self, words: list[str], *, seed: int, s: float = 1.0, q: float = 2.7, pool: int = 2_000_000):
        self.words = words
        weights = 1.0 / (np.arange(len(words)) + 1 + q) ** s
        self.p = weights / weights.sum()
        self.rng = np.random.default_rng(seed)
        self.pool_size = pool
        self._refill()

    def _refill(self) -> None:
        picks = self.rng.choice(len(self.words), size=self.pool_size, p=self.p)
        self.pool = [self.words[i] for i in picks]
        self.pos = 0

    def take(self, k: int) -> list[str]:
        if self.pos + k > len(self.pool):
            self._refill()
        out = self.pool[self.pos : self.pos + k]
        self.pos += k
        return out


def english_words(rng: random.Random, n: int) -> list[str]:
    """Real words at the top ranks, then made-up pronounceable ones (the long tail)."""
    onsets = "b c d f g h j k l m n p r s t v w z br cl dr fl gr pl pr sh st th tr".split()
    vowels = "a e i o u ai ea ou io".split()
    codas = ["", "", "n", "r", "s", "t", "l", "nd", "st", "ck", "ng"]
    words = list(dict.fromkeys(EN_TOP + EN_WORK))
    seen = set(words)
    while len(words) < n:
        word = "".join(rng.choice(onsets) + rng.choice(vowels) for _ in range(rng.randint(1, 3))) + rng.choice(codas)
        if 3 <= len(word) <= 12 and word not in seen:
            seen.add(word)
            words.append(word)
    return words


def chinese_words(rng: random.Random, n: int) -> list[str]:
    """2- and 3-character words built from a few thousand characters, themselves Zipf-distributed."""
    chars = list(dict.fromkeys("".join(ZH_SEED)))
    pool = set(chars)
    while len(chars) < 3500:
        ch = chr(rng.randint(0x4E00, 0x9FA5))
        if ch not in pool:
            pool.add(ch)
            chars.append(ch)
    char_zipf = Zipf(chars, seed=rng.randint(0, 2**31), s=0.9, pool=50_000)
    words = list(dict.fromkeys(ZH_SEED))
    seen = set(words)
    while len(words) < n:
        word = "".join(char_zipf.take(2 if rng.random() < 0.6 else 3))
        if len(set(word)) == len(word) and word not in seen:
            seen.add(word)
            words.append(word)
    return words


@dataclass
class Screen:
    app_name: str
    kind: str
    window_name: str
    browser_url: str
    zh_share: float
    target_chars: int
    lines: list[str]


class Corpus:
    """OCR-like screens: a session stays in one window for a while; between captures
    a line is edited, the view scrolls, or part of the content is replaced."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.en_vocab = english_words(self.rng, 6000)
        self.zh_vocab = chinese_words(self.rng, 5000)
        self.en = Zipf(self.en_vocab, seed=seed + 1)
        self.zh = Zipf(self.zh_vocab, seed=seed + 2)

    def en_line(self) -> str:
        rng = self.rng
        words = self.en.take(rng.randint(2, 14))
        if rng.random() < 0.3:
            words[0] = words[0].capitalize()
        if rng.random() < 0.15:
            words.append(rng.choice([f"{rng.randint(1, 999)}", f"v{rng.randint(1, 9)}.{rng.randint(0, 20)}",
                                     f"${rng.randint(1, 9999):,}", f"{rng.randint(1, 28)}/{rng.randint(1, 12)}"]))
        if rng.random() < 0.1:  # code and package names: camel case, words glued to digits
            first, second = self.en.take(2)
            words[rng.randrange(len(words))] = rng.choice(
                [first + second.capitalize(), f"{first}{rng.randint(2, 99)}", f"lib{first}-{second}{rng.randint(1, 9)}:amd64"]
            )
        return " ".join(words)

    def zh_line(self) -> str:
        rng = self.rng
        parts = []
        for word in self.zh.take(rng.randint(3, 14)):
            parts.append(word)
            if rng.random() < 0.1:
                parts.append(rng.choice("，。、：；"))
        if rng.random() < 0.2:  # an English word inside Chinese text, often with no space around it
            word = self.en.take(1)[0]
            parts.insert(rng.randrange(len(parts) + 1), word if rng.random() < 0.5 else f" {word} ")
        return "".join(parts)

    def line(self, zh_share: float) -> str:
        return self.zh_line() if self.rng.random() < zh_share else self.en_line()

    def fill(self, screen: Screen) -> None:
        size = sum(len(line) + 1 for line in screen.lines)
        while size < screen.target_chars:
            line = self.line(screen.zh_share)
            screen.lines.append(line)
            size += len(line) + 1

    def screen_new(self) -> Screen:
        rng = self.rng
        app_name, kind = rng.choice(APPS)
        roll = rng.random()
        zh_share = 0.05 if roll < 0.55 else 0.5 if roll < 0.8 else 0.85
        title = self.line(zh_share)[:60]
        url = ""
        if kind == "browser":
            url = f"https://{rng.choice(DOMAINS)}/" + "/".join(self.en.take(rng.randint(1, 3)))
        screen = Screen(
            app_name=app_name,
            kind=kind,
            window_name=f"{title} - {app_name}",
            browser_url=url,
            zh_share=zh_share,
            target_chars=int(np.exp(rng.uniform(np.log(300), np.log(2000)))),
            lines=[],
        )
        self.fill(screen)
        return screen

    def screen_next(self, screen: Screen) -> None:
        rng = self.rng
        roll = rng.random()
        if roll < 0.5:
            screen.lines[rng.randrange(len(screen.lines))] = self.line(screen.zh_share)
        elif roll < 0.85:
            del screen.lines[: rng.randint(1, 5)]
        else:
            keep = len(screen.lines) * 2 // 3
            del screen.lines[keep:]
        self.fill(screen)

    def frames(self, timestamps: np.ndarray):
        """Yield (timestamp, Screen, text) in time order."""
        screen, left = None, 0
        for ts in timestamps:
            if left == 0:
                screen, left = self.screen_new(), max(1, int(self.rng.expovariate(1 / 30)))
            else:
                self.screen_next(screen)
            left -= 1
            clock = time.strftime("%H:%M", time.gmtime(ts))
            yield float(ts), screen, screen.app_name + " " + clock + "\n" + "\n".join(screen.lines)


def django_start(data_dir: Path) -> None:
    os.environ["MYRECALL_DATA_DIR"] = str(data_dir)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "myrecall.settings")
    import django

    django.setup()


@contextmanager
def bench_data_dir(name: str, *, keep: bool, show_load: bool = True) -> Iterator[Path]:
    """A temporary data dir for one benchmark run, with Django started on it; afterwards the
    load average before and after (these machines are noisy) and the dir removed unless kept."""
    data_dir = Path(tempfile.mkdtemp(prefix=f"myrecall-bench-{name}-"))
    load_before = os.getloadavg()
    try:
        django_start(data_dir)
        yield data_dir
    finally:
        from django.db import connection

        connection.close()
        if show_load:
            load_after = os.getloadavg()
            print(f"\nload average (1 min) before {load_before[0]:.2f}, after {load_after[0]:.2f} on {os.cpu_count()} cores")
        if keep:
            print(f"kept {data_dir}")
        else:
            shutil.rmtree(data_dir, ignore_errors=True)


def database_create() -> None:
    """A fresh database file (on PostgreSQL, a fresh schema), created by the app's own migrations."""
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection

    if connection.vendor == "postgresql":
        from bench.pg import schema_reset

        own_postgres_check()
        schema_reset()
        call_command("migrate", verbosity=0)
        return
    connection.close()
    name = Path(settings.DATABASES["default"]["NAME"])
    for path in name.parent.glob(name.name + "*"):
        path.unlink()
    call_command("migrate", verbosity=0)


FRAME_SQL = (
    "INSERT INTO frames_frame (id, timestamp, device_name, client_frame_id, app_name, window_name, browser_url, "
    "focused, image_path, width, height, image_bytes, ocr_status, ocr_attempts, ocr_error, created_at) "
    "VALUES (?, ?, 'laptop', NULL, ?, ?, ?, ?, ?, 1920, 1080, 180000, 'done', 1, '', ?)"
)
OCR_SQL = (
    "INSERT INTO frames_ocrresult (frame_id, engine, text, text_length, languages, lines, ocr_area, carried_from_id, "
    "elapsed_ms, created_at) VALUES (?, 'rapidocr', ?, ?, ?, '[]', 1.0, NULL, 2450, ?)"
)


def ocr_text_columns(text: str) -> tuple:
    """(text, text_length) of an OCR row as the app writes them: the text packed by its own field."""
    from django.db import connection

    from frames.models import OcrResult

    return OcrResult._meta.get_field("text").get_db_prep_save(text, connection), len(text)


def ocr_text_read(stored) -> str:
    """An OCR row's text read by SQL, as the app reads it (packed texts are bytes)."""
    from frames.text import text_unpack

    return stored if stored is None or isinstance(stored, str) else text_unpack(bytes(stored))


def rows_write(*, frame_sql: str, frames: list[tuple], ocr_sql: str, ocrs: list[tuple], fts: list[tuple]) -> None:
    """Insert a batch of frames, their OCR rows and their index rows in one transaction, then empty the lists.
    The SQL has ? placeholders (SQLite's); on PostgreSQL they become psycopg's %s."""
    from django.db import connection, transaction

    from search.keyword_index import keyword_index

    with transaction.atomic():
        raw = connection.connection
        if connection.vendor == "postgresql":
            with raw.cursor() as cursor:
                cursor.executemany(frame_sql.replace("?", "%s"), frames)
                cursor.executemany(ocr_sql.replace("?", "%s"), ocrs)
        else:
            raw.executemany(frame_sql, frames)
            raw.executemany(ocr_sql, ocrs)
        with connection.cursor() as cursor:
            keyword_index().rows_write(cursor, fts)
    frames.clear()
    ocrs.clear()
    fts.clear()


def frames_generate(*, size: int, t0: float, seed: int, timestamps: np.ndarray | None = None) -> float:
    """Insert `size` frames with their OCR text and index rows, as the app would have written them,
    spread over SPAN_DAYS from t0 (or at the sorted `timestamps` given)."""
    from django.db import connection

    from frames.text import text_languages
    from search.keyword_base import index_row

    adapt = connection.ops.adapt_datetimefield_value
    rng = np.random.default_rng(seed)
    if timestamps is None:
        timestamps = np.sort(rng.uniform(t0, t0 + SPAN_DAYS * DAY, size))
    corpus = Corpus(seed)
    frames, ocrs, fts = [], [], []
    started = time.perf_counter()

    def flush() -> None:
        rows_write(frame_sql=FRAME_SQL, frames=frames, ocr_sql=OCR_SQL, ocrs=ocrs, fts=fts)

    connection.ensure_connection()
    for frame_id, (ts, screen, text) in enumerate(
        tqdm(corpus.frames(timestamps), total=size, desc=f"generate {size:,}", unit="frame", mininterval=2), start=1
    ):
        moment = datetime.fromtimestamp(ts, tz=dt_timezone.utc)
        stamp = adapt(moment)
        key = (screen.app_name, screen.window_name, screen.browser_url)
        frames.append((frame_id, stamp, *key, frame_id % 10 != 0, f"frames/{moment:%Y/%m/%d}/{frame_id}.jpg", stamp))
        ocrs.append((frame_id, *ocr_text_columns(text), ",".join(text_languages(text)), stamp))
        fts.append(
            index_row(
                timestamp_s=moment.timestamp(), frame_id=frame_id, text=text,
                app_name=key[0], window_name=key[1], browser_url=key[2],
            )
        )
        if len(frames) >= BATCH:
            flush()
    if frames:
        flush()
    with connection.cursor() as cursor:
        signatures_write(cursor)
        if connection.vendor == "postgresql":
            from bench.pg import sequences_reset

            sequences_reset(["frames_frame"])  # the ids were given: the app's next frame follows them
        else:
            cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return time.perf_counter() - started


def signatures_write(cursor) -> None:
    """The screen signatures the app keeps: those of each device's frames within SIGNATURE_KEEP_S of its newest."""
    from django.db import connection

    from frames.services import SIGNATURE_KEEP_S

    if connection.vendor == "postgresql":
        cursor.execute(
            "INSERT INTO frames_framesignature (frame_id, device_name, timestamp, phash) "
            "SELECT f.id, f.device_name, f.timestamp, %s FROM frames_frame f JOIN "
            "(SELECT device_name, max(timestamp) AS newest FROM frames_frame GROUP BY device_name) d ON d.device_name = f.device_name "
            "WHERE f.timestamp >= d.newest - make_interval(secs => %s) ON CONFLICT DO NOTHING",
            [PHASH, SIGNATURE_KEEP_S],
        )
        return
    cursor.execute(
        "INSERT OR IGNORE INTO frames_framesignature (frame_id, device_name, timestamp, phash) "
        "SELECT f.id, f.device_name, f.timestamp, %s FROM frames_frame f JOIN "
        "(SELECT device_name, max(timestamp) AS newest FROM frames_frame GROUP BY device_name) d ON d.device_name = f.device_name "
        "WHERE f.timestamp >= strftime('%%Y-%%m-%%d %%H:%%M:%%f', d.newest, %s)",
        [PHASH, f"-{SIGNATURE_KEEP_S:.0f} seconds"],
    )


def sizes_on_disk() -> dict[str, int]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name")
        return dict(cursor.fetchall())


# The parts of a database compared across engines, by the tables they are made of (indexes included).
BYTE_PARTS = ("keyword index", "keyword vocabulary", "OCR rows", "frames", "screen signatures", "total database")


def bytes_by_part() -> dict[str, int]:
    """Bytes of each of BYTE_PARTS, each table with its indexes (and TOAST on PostgreSQL): the
    keyword index is SQLite's search_fts_* tables (FTS5's shadow tables) or PostgreSQL's search_kw_*
    partitions (GIN and b-tree included); the total is the file (after a checkpoint) or
    pg_database_size."""
    from django.conf import settings
    from django.db import connection

    if connection.vendor == "postgresql":
        from bench.pg import database_bytes, relation_bytes

        tables, total, keyword = relation_bytes(), database_bytes(), "search_kw_"
    else:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT coalesce(s.tbl_name, d.name), sum(d.pgsize) FROM dbstat d "
                "LEFT JOIN sqlite_schema s ON s.name = d.name GROUP BY 1"
            )
            tables = dict(cursor.fetchall())
        total, keyword = Path(settings.DATABASES["default"]["NAME"]).stat().st_size, "search_fts_"
    return {
        "keyword index": sum(v for k, v in tables.items() if k.startswith(keyword)),
        "keyword vocabulary": sum(v for k, v in tables.items() if k.startswith("search_vocab")),
        "OCR rows": tables.get("frames_ocrresult", 0),
        "frames": tables.get("frames_frame", 0),
        "screen signatures": tables.get("frames_framesignature", 0),
        "total database": total,
    }


@dataclass
class QuerySet:
    label: str
    queries: list[str]
    ranges: list[tuple[float, float]]  # one 1-day range per query


def ranges_sample(rng: random.Random, t0: float, n: int) -> list[tuple[float, float]]:
    starts = [t0 + rng.uniform(0, (SPAN_DAYS - 1) * DAY) for _ in range(n)]
    return [(start, start + DAY) for start in starts]


def english_pairs(rng: random.Random, n: int) -> tuple[list[str], list[tuple[float, float]]]:
    """Two adjacent English words read from random frames, each with a 1-day range around its
    frame: a phrase the person saw, searched for in the day they saw it."""
    from django.db import connection

    pairs: list[str] = []
    ranges: list[tuple[float, float]] = []
    with connection.cursor() as cursor:
        cursor.execute("SELECT max(frame_id) FROM frames_ocrresult")
        top = cursor.fetchone()[0]
        while len(pairs) < n:
            cursor.execute(
                "SELECT o.text, f.timestamp FROM frames_ocrresult o JOIN frames_frame f ON f.id = o.frame_id "
                "WHERE o.frame_id = %s",
                [rng.randint(1, top)],
            )
            stored, moment = cursor.fetchone()
            text = ocr_text_read(stored)
            lines = [line.lower().split() for line in text.splitlines()[1:]]
            lines = [words for words in lines if len(words) >= 2 and all(w.isascii() and w.isalpha() for w in words[:2])]
            if lines:
                words = rng.choice(lines)
                pairs.append(f'"{words[0]} {words[1]}"')
                start = moment.replace(tzinfo=dt_timezone.utc).timestamp() - rng.uniform(0, DAY)
                ranges.append((start, start + DAY))
    return pairs, ranges


_CJK = "\u4e00-\u9fff"
RECALL_PATTERNS = {
    "glued to Chinese": re.compile(f"[{_CJK}]([A-Za-z]{{3,}})[{_CJK}]"),  # "使用Docker部署" -> docker
    "part of a compound": re.compile(r"\b[a-z]{3,}([A-Z][a-z]{3,})\b|(?<![A-Za-z])([a-z]{3,})\d{1,2}\b"),  # releaseNotes, deploy12
    "typed in part": re.compile(r"\b([a-z]{7,})\b"),  # its first letters
    "inside a longer word": re.compile(r"\blib([a-z]{4,})-"),  # libdeploy-... -> deploy
}


@dataclass
class RecallCase:
    q: str
    frame_id: int
    timestamp: float


def recall_cases(rng: random.Random, n: int) -> dict[str, list[RecallCase]]:
    """n words of each new kind, each read from a random frame that shows it."""
    from django.db import connection

    cases: dict[str, list[RecallCase]] = {kind: [] for kind in RECALL_PATTERNS}
    with connection.cursor() as cursor:
        cursor.execute("SELECT max(frame_id) FROM frames_ocrresult")
        top = cursor.fetchone()[0]
        for _ in range(200 * n):
            if all(len(found) >= n for found in cases.values()):
                break
            frame_id = rng.randint(1, top)
            cursor.execute(
                "SELECT o.text, f.timestamp FROM frames_ocrresult o JOIN frames_frame f ON f.id = o.frame_id "
                "WHERE o.frame_id = %s",
                [frame_id],
            )
            stored, moment = cursor.fetchone()
            text = ocr_text_read(stored)
            ts = moment.replace(tzinfo=dt_timezone.utc).timestamp()
            for kind, pattern in RECALL_PATTERNS.items():
                words = [next(g for g in m.groups() if g) for m in pattern.finditer(text)]
                if words and len(cases[kind]) < n:
                    word = rng.choice(words).lower()
                    q = word[: rng.randint(4, len(word) - 2)] if kind == "typed in part" else word
                    cases[kind].append(RecallCase(q, frame_id, ts))
    return cases


def recall_measure(cases: list[RecallCase]) -> tuple[float, float]:
    """Share of cases whose frame is found now, and by exact word matching alone."""
    from django.db import connection

    from search.filters import Filters
    from search.keyword import keyword_query, search_keyword
    from search.keyword_base import period_of, time_ms
    from search.keyword_index import keyword_index

    index = keyword_index()
    now = before = 0
    with connection.cursor() as cursor:
        for case in cases:
            hits, _ = search_keyword(
                q=case.q, filters=Filters(start_time=case.timestamp - 0.5, end_time=case.timestamp + 0.5),
                limit=100, offset=0,
            )
            now += case.frame_id in {hit.frame_id for hit in hits}
            strict = keyword_query(case.q).strict(index.SYNTAX)
            period = period_of(time_ms(case.timestamp))
            if connection.vendor == "postgresql":
                cursor.execute(
                    f"SELECT count(*) FROM {index.partition_table(period)} WHERE doc @@ %s::tsquery AND frame_id = %s",
                    [strict, case.frame_id],
                )
            else:
                partition = index.partition_get(cursor, period)
                cursor.execute(
                    f"SELECT count(*) FROM {partition.table} WHERE {partition.table} MATCH %s AND frame_id = %s",
                    [strict, case.frame_id],
                )
            before += cursor.fetchone()[0]
    return now / len(cases), before / len(cases)


def query_sets(corpus: Corpus, n: int, *, t0: float, seed: int) -> list[QuerySet]:
    rng = random.Random(seed)
    en = corpus.en_vocab
    zh2 = [w for w in corpus.zh_vocab if len(w) == 2][:1000]
    zh3 = [w for w in corpus.zh_vocab if len(w) == 3][:1000]

    def words(label: str, choices: list[str]) -> QuerySet:
        return QuerySet(label, [rng.choice(choices) for _ in range(n)], ranges_sample(rng, t0, n))

    return [
        words("English, common (rank 15-120)", en[15:120]),
        words("English, rare (rank 1500-6000)", en[1500:6000]),
        words("Chinese, 2 characters", zh2),
        words("Chinese, 3 characters", zh3),
        QuerySet("English phrase, 2 words (seen that day)", *english_pairs(rng, n)),
        words("English stopword (rank 1-10)", en[:10]),
    ]


def percentiles(samples_ms: list[float]) -> tuple[float, float, float]:
    arr = np.array(samples_ms)
    return float(np.percentile(arr, 50)), float(np.percentile(arr, 95)), float(arr.max())


def selector_time(
    queries: list[str], ranges: list[tuple[float, float]], desc: str
) -> tuple[list[float], list[float], list[int]]:
    """Wall and CPU milliseconds of each search, and its total. CPU time is the part other
    processes on the machine cannot inflate."""
    from search.filters import Filters
    from search.keyword import search_keyword

    times, cpu_times, totals = [], [], []
    for q, (start, end) in tqdm(list(zip(queries, ranges)), desc=desc, unit="q", leave=False):
        began, began_cpu = time.perf_counter(), time.thread_time()
        _, total = search_keyword(q=q, filters=Filters(start_time=start, end_time=end), limit=20, offset=0)
        times.append((time.perf_counter() - began) * 1000)
        cpu_times.append((time.thread_time() - began_cpu) * 1000)
        totals.append(total)
    return times, cpu_times, totals


def api_time(queries: list[str], ranges: list[tuple[float, float]]) -> list[float]:
    from django.test import Client

    from myrecall.services import api_token_create

    _, raw = api_token_create(name="bench")
    client = Client(SERVER_NAME="localhost", HTTP_AUTHORIZATION=f"Bearer {raw}")
    times = []
    for q, (start, end) in tqdm(list(zip(queries, ranges)), desc="HTTP", unit="q", leave=False):
        began = time.perf_counter()
        resp = client.get("/api/v1/search", {"q": q, "start_time": start, "end_time": end, "limit": 20})
        times.append((time.perf_counter() - began) * 1000)
        if resp.status_code != 200:
            raise RuntimeError(f"{q!r}: {resp.status_code} {resp.content[:200]!r}")
    return times


def file_read(path: Path) -> None:
    """Read the database once, so that timings start from the OS cache rather than the disk."""
    with open(path, "rb") as f:
        while f.read(16 * 2**20):
            pass


def plan_print(q: str, start: float) -> None:
    """EXPLAIN QUERY PLAN of the statements one search runs, to show FTS5 takes the rowid range
    (on PostgreSQL, EXPLAIN: the GIN index of one week's partition, the time as an index condition)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from search.filters import Filters
    from search.keyword import search_keyword

    with CaptureQueriesContext(connection) as captured:
        search_keyword(q=q, filters=Filters(start_time=start, end_time=start + DAY), limit=20, offset=0)
    print(f"\nquery plans for q={q!r}:")
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            for query in captured.captured_queries:
                if not query["sql"].lstrip().upper().startswith("SELECT"):
                    continue
                cursor.execute("EXPLAIN " + query["sql"])
                steps = "\n        ".join(row[0] for row in cursor.fetchall())
                print(f"  {query['sql'][:100]}...\n        {steps}")
            return
        for query in captured.captured_queries:
            cursor.execute("EXPLAIN QUERY PLAN " + query["sql"])
            steps = "; ".join(row[-1] for row in cursor.fetchall())
            print(f"  {query['sql'][:60]}...\n      {steps}")


def size_run(*, size: int, n_queries: int, seed: int, t0: float | None = None) -> dict:
    """Build, load and time one size on the database in use; prints as it goes and returns the
    figures (for the table of engines side by side)."""
    from django.conf import settings
    from django.db import connection

    postgres = connection.vendor == "postgresql"
    cap_default = settings.SEARCH_RANK_MAX
    database_create()
    if t0 is None:
        t0 = time.time() - SPAN_DAYS * DAY
    elapsed = frames_generate(size=size, t0=t0, seed=seed)
    figures: dict = {"database": "PostgreSQL" if postgres else "SQLite", "size": size, "queries": n_queries,
                     "load_frames_per_s": size / elapsed, "capped": {}, "every": {}, "recall": {}}
    if postgres:
        size_report_postgres(size=size, elapsed=elapsed, figures=figures)
    else:
        size_report_sqlite(size=size, elapsed=elapsed)
    figures["bytes"] = bytes_by_part()

    corpus = Corpus(seed)
    sets = query_sets(corpus, n_queries, t0=t0, seed=seed + 3)
    if postgres:
        from bench.pg import prewarm

        print(f"pg_prewarm of every table and index: {prewarm():.1f} s")
    else:
        file_read(Path(settings.DATABASES["default"]["NAME"]))
    selector_time(sets[0].queries[:20], sets[1].ranges[:20], "warm-up")
    plan_print(sets[0].queries[0], t0 + DAY)
    rng = random.Random(seed + 5)
    cases = recall_cases(rng, n_queries)
    print(f"\nrecall on words the frame shows, {n_queries} each (frame found in a 1-second range; before = exact words only):")
    for kind, kind_cases in cases.items():
        now, before = recall_measure(kind_cases)
        figures["recall"][kind] = [now, before]
        print(f"  {kind:22} now {now:6.1%}   before {before:6.1%}   e.g. {', '.join(c.q for c in kind_cases[:4])}")
        day_ranges = [(c.timestamp - rng.uniform(0, DAY), 0.0) for c in kind_cases]
        sets.append(QuerySet(f"new: {kind}", [c.q for c in kind_cases], [(a, a + DAY) for a, _ in day_ranges]))

    for cap in dict.fromkeys([settings.SEARCH_RANK_MAX, 0]):
        settings.SEARCH_RANK_MAX = cap
        into = figures["every" if cap == 0 else "capped"]
        if cap:
            figures["cap"] = cap
        label = f"SEARCH_RANK_MAX {cap:,} (only the newest {cap:,} matches of a tier ranked)" if cap else "every match ranked (SEARCH_RANK_MAX 0)"
        print(f"\nsearch_keyword, 1-day range, limit 20, {n_queries} queries each, {label}:")
        print(f"  {'queries':40} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'p95 CPU':>8} {'median hits':>12}")
        all_times = []
        for qs in sets:
            times, cpu_times, totals = selector_time(qs.queries, qs.ranges, qs.label)
            all_times += times
            p50, p95, worst = percentiles(times)
            _, cpu95, _ = percentiles(cpu_times)
            into[qs.label] = [p50, p95, statistics.median(totals)]
            print(f"  {qs.label:40} {p50:8.1f} {p95:8.1f} {worst:8.1f} {cpu95:8.1f} {statistics.median(totals):12,.0f}")
        p50, p95, _ = percentiles(all_times)
        into[ALL_LABEL] = [p50, p95, None]
        print(f"  {'all of the above':40} {p50:8.1f} {p95:8.1f}")
    settings.SEARCH_RANK_MAX = cap_default

    share = max(1, n_queries // 5)
    mixed = [q for qs in sets[:5] for q in qs.queries[:share]]
    ranges = [r for qs in sets[:5] for r in qs.ranges[:share]]
    direct, _, _ = selector_time(mixed, ranges, "selector, mixed")
    http = api_time(mixed, ranges)
    d50, d95, _ = percentiles(direct)
    h50, h95, _ = percentiles(http)
    figures["selector_mixed"], figures["api"], figures["api_queries"] = [d50, d95], [h50, h95], len(mixed)
    print(f"\nsame {len(mixed)} mixed queries (first five sets): selector p50 {d50:.1f} / p95 {d95:.1f} ms, "
          f"GET /api/v1/search p50 {h50:.1f} / p95 {h95:.1f} ms (API overhead about {h50 - d50:.1f} ms)")
    return figures


ALL_LABEL = "all of the above"


def size_report_sqlite(*, size: int, elapsed: float) -> None:
    from django.conf import settings
    from django.db import connection

    from search.fts import PARTITION_DAYS, PREFIX, partitions_all

    db_file = Path(settings.DATABASES["default"]["NAME"])
    disk = sizes_on_disk()
    index = sum(v for k, v in disk.items() if k.startswith(PREFIX) and k.endswith(("_data", "_idx")))
    stored = sum(v for k, v in disk.items() if k.startswith(PREFIX) and k.endswith(("_content", "_docsize")))
    with connection.cursor() as cursor:
        partitions = len(partitions_all(cursor))
    ocr = disk.get("frames_ocrresult", 0)

    print(f"\n== {size:,} frames over {SPAN_DAYS} days ({size / SPAN_DAYS:,.0f} per day) ==")
    print(f"generated and indexed in {elapsed:.0f} s ({size / elapsed:,.0f} frames/s)")
    print(f"database file {db_file.stat().st_size / 2**20:,.0f} MiB ({db_file.stat().st_size / size:,.0f} B/frame)")
    print(f"  FTS index ({PREFIX}*_data + _idx): {index / size:,.0f} B/frame ({index / 2**20:,.0f} MiB)")
    print(f"  FTS stored columns ({PREFIX}*_content + _docsize): {stored / size:,.0f} B/frame")
    print(f"  partitions: {partitions} of {PARTITION_DAYS} days ({size / partitions:,.0f} frames each on average)")
    print(f"  OCR text (frames_ocrresult, text packed as the app stores it, lines '[]'): {ocr / size:,.0f} B/frame")


def size_report_postgres(*, size: int, elapsed: float, figures: dict) -> None:
    """What the load made on PostgreSQL, after VACUUM ANALYZE."""
    from django.db import connection

    from bench.pg import database_bytes, index_bytes, relation_bytes, vacuum_analyze
    from search.keyword_base import PARTITION_DAYS
    from search.pg_fts import PREFIX, periods_in

    vacuum_s = vacuum_analyze()
    figures["vacuum_s"] = vacuum_s
    tables = relation_bytes()
    total = database_bytes()
    heap, gin_and_btree = index_bytes(PREFIX)
    with connection.cursor() as cursor:
        partitions = len(periods_in(cursor, None, None))
        cursor.execute(f"SELECT coalesce(sum(pg_relation_size(i.indexrelid)), 0) FROM pg_index i JOIN pg_class c "
                       f"ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam JOIN pg_class t ON t.oid = i.indrelid "
                       f"WHERE a.amname = 'gin' AND t.relname LIKE %s", [PREFIX.replace("_", "\\_") + "%"])
        gin = int(cursor.fetchone()[0])
    vocab = sum(v for k, v in tables.items() if k.startswith("search_vocab"))
    ocr = tables.get("frames_ocrresult", 0)

    print(f"\n== {size:,} frames over {SPAN_DAYS} days ({size / SPAN_DAYS:,.0f} per day), PostgreSQL ==")
    print(f"generated and indexed in {elapsed:.0f} s ({size / elapsed:,.0f} frames/s); then VACUUM ANALYZE {vacuum_s:.0f} s")
    print(f"database (pg_database_size) {total / 2**20:,.0f} MiB ({total / size:,.0f} B/frame)")
    print(f"  keyword index ({PREFIX}* partitions): {(heap + gin_and_btree) / size:,.0f} B/frame "
          f"({(heap + gin_and_btree) / 2**20:,.0f} MiB): rows (tsvector, TOAST included) {heap / size:,.0f}, "
          f"GIN {gin / size:,.0f}, primary key {(gin_and_btree - gin) / size:,.0f} B/frame")
    print(f"  vocabulary (search_vocab with its trigram index): {vocab / size:,.0f} B/frame")
    print(f"  partitions: {partitions} of {PARTITION_DAYS} days ({size / max(partitions, 1):,.0f} frames each on average)")
    print(f"  OCR text (frames_ocrresult, text packed as the app stores it, lines '[]'): {ocr / size:,.0f} B/frame")


def connection_cost(counts: list[int], *, opens: int = 100) -> None:
    """What a new connection (one per request under ASGI) pays to parse the schema before its
    first query, with the keyword index in this many partitions (empty ones added in the past)."""
    from django.db import connection, transaction

    from search.fts import partition_create, partitions_all

    print("\nnew connection + first query (Django's own connect, PRAGMAs included):")
    for count in counts:
        with transaction.atomic(), connection.cursor() as cursor:
            existing = set(partitions_all(cursor))
            for period in [p for p in range(1, count + 1) if p not in existing][: count - len(existing)]:
                partition_create(cursor, period)
        times = []
        for _ in range(opens):
            connection.close()
            began = time.perf_counter()
            with connection.cursor() as cursor:
                cursor.execute("SELECT count(*) FROM search_partition")
                partitions = cursor.fetchone()[0]
            times.append((time.perf_counter() - began) * 1000)
        p50, p95, _ = percentiles(times)
        print(f"  {partitions:5} partitions ({partitions / 52:4.1f} years of weeks): p50 {p50:.1f} ms, p95 {p95:.1f} ms")


DATABASES = {"sqlite": "SQLite", "postgres": "PostgreSQL"}
GOAL_PG_P95_MS = 40.0  # issue 25: keyword p95 at 1,000,000 frames on PostgreSQL
# Set by this script for its children on the PostgreSQL server it started: only then may a run drop
# and make again the schema of the database DATABASE_URL names.
OWN_SERVER_ENV = "MYRECALL_BENCH_OWN_POSTGRES"


def own_postgres_check() -> None:
    """Refuse to run on a PostgreSQL server this bench did not start (it empties the database)."""
    from django.db import connection

    if connection.vendor == "postgresql" and os.environ.get(OWN_SERVER_ENV) != "1":
        raise SystemExit(
            "DATABASE_URL names PostgreSQL: this bench empties the database it runs on, so it only runs on a server of its "
            "own (--database postgres starts one). Unset DATABASE_URL for SQLite."
        )


def databases_parse(text: str) -> list[str]:
    names = [name.strip().lower() for name in text.split(",") if name.strip()]
    names = ["postgres" if name in ("postgresql", "pg") else name for name in names]
    if not names or any(name not in DATABASES for name in names):
        raise SystemExit(f"--database takes a comma-separated list of {', '.join(DATABASES)}; got {text!r}")
    return list(dict.fromkeys(names))


def child_run(*, database: str, argv: list[str], server_url: str | None) -> dict:
    """This script in a child process on one database (Django reads its database once per process);
    its output goes to ours, its figures come back through a file."""
    with tempfile.TemporaryDirectory(prefix="myrecall-bench-figures-") as folder:
        out = Path(folder) / "figures.json"
        env = {key: value for key, value in os.environ.items() if key not in ("DATABASE_URL", OWN_SERVER_ENV)}
        if database == "postgres":
            env |= {"DATABASE_URL": server_url, OWN_SERVER_ENV: "1"}
        print(f"\n######## {DATABASES[database]} ########", flush=True)
        done = subprocess.run([sys.executable, str(Path(__file__).resolve()), *argv, "--figures-out", str(out)], env=env, cwd=REPO)
        if done.returncode != 0:
            raise SystemExit(f"the {DATABASES[database]} run failed (exit {done.returncode})")
        return json.loads(out.read_text())


def engines_run(args, databases: list[str]) -> None:
    """Each size on each database in turn, same corpus, queries and ranges; then the table."""
    from bench.pg import BenchPostgres, settings_parse

    t0 = time.time() - SPAN_DAYS * DAY
    sizes = [int(s) for s in args.sizes.split(",")]
    load_before = os.getloadavg()[0]
    started = time.time()
    server = BenchPostgres(settings_parse(args.pg_setting)) if "postgres" in databases else None
    results: dict[int, dict[str, dict]] = {}
    try:
        if server:
            print(f"PostgreSQL for this run: {server.describe()}", flush=True)
        for at, size in enumerate(sizes):
            for database in databases:
                last_sqlite = database == "sqlite" and at == len(sizes) - 1
                argv = ["--sizes", str(size), "--queries", str(args.queries), "--seed", str(args.seed), "--t0", repr(t0),
                        "--connections", args.connections if last_sqlite else "", "--days", str(args.days)]
                if args.rank_max is not None:
                    argv += ["--rank-max", str(args.rank_max)]
                if args.keep:
                    argv.append("--keep")
                results.setdefault(size, {})[database] = child_run(
                    database=database, argv=argv, server_url=server.url if server else None
                )
    finally:
        if server:
            server.stop()
    print(f"\n==== {' beside '.join(DATABASES[d] for d in reversed(databases))} in the same run ====")
    print(f"command: {' '.join([Path(sys.executable).name, *sys.argv])}")
    print(f"{os.cpu_count()} cores; 1-min load average {load_before:.1f} -> {os.getloadavg()[0]:.1f}; "
          f"{(time.time() - started) / 60:.0f} min")
    for size, by_database in results.items():
        side_by_side_print(size, [by_database[d] for d in databases])


def side_by_side_print(size: int, runs: list[dict]) -> None:
    names = [run["database"] for run in runs]
    first = runs[0]
    cap = first.get("cap")
    width = 22

    def cells(values: list) -> str:
        return "".join(f"{v:>{width}}" for v in values)

    def ms(pair) -> str:
        return "-" if pair is None else f"{pair[0]:.1f} / {pair[1]:.1f}"

    print(f"\n{size:,} frames over {SPAN_DAYS} days, search_keyword, 1-day range, limit 20, {first['queries']} queries per kind; "
          f"p50 / p95 ms:")
    head = [f"{name} capped" for name in names] + [f"{name} all ranked" for name in names]
    print(f"  {'queries':40}" + cells(head))
    for label in first["capped"]:
        row = [ms(run["capped"].get(label)) for run in runs] + [ms(run["every"].get(label)) for run in runs]
        print(f"  {label:40}" + cells(row))
    print(f"  (capped: SEARCH_RANK_MAX {cap:,}, only the newest matches of a tier ranked; all ranked: SEARCH_RANK_MAX 0)"
          if cap else "  (SEARCH_RANK_MAX 0 for both)")
    for run in runs:
        if run["database"] == "PostgreSQL" and run["capped"]:
            p95 = run["capped"][ALL_LABEL][1]
            print(f"  PostgreSQL, all queries capped: p95 {p95:.1f} ms [goal p95 <= {GOAL_PG_P95_MS:g} ms at 1,000,000 frames: "
                  f"{'meets goal' if p95 <= GOAL_PG_P95_MS else 'MISSES goal'}{'' if size >= 1_000_000 else ', at this size'}]")
    print(f"  {'mixed queries (' + str(first['api_queries']) + '), selector':40}" + cells([ms(run["selector_mixed"]) for run in runs]))
    print(f"  {'the same through GET /api/v1/search':40}" + cells([ms(run["api"]) for run in runs]))
    print(f"  {'recall, now / exact words only':40}" + cells(names))
    for kind in first["recall"]:
        print(f"    {kind:38}" + cells([f"{run['recall'][kind][0]:.0%} / {run['recall'][kind][1]:.0%}" for run in runs]))
    print(f"  {'bytes per frame':40}" + cells(names))
    for part in BYTE_PARTS:
        print(f"    {part:38}" + cells([f"{run['bytes'][part] / size:,.0f}" for run in runs]))
    print(f"  {'load (generate + index), frames/s':40}" + cells([f"{run['load_frames_per_s']:,.0f}" for run in runs]))


def main() -> None:
    global SPAN_DAYS
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100000,1000000", help="comma-separated frame counts")
    parser.add_argument("--queries", type=int, default=200, help="queries per kind")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--days", type=int, default=SPAN_DAYS,
                        help="days the frames are spread over (fewer: more frames a day, as at a larger size)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary data dir and print its path")
    parser.add_argument("--rank-max", type=int, help="override SEARCH_RANK_MAX for the capped run (0 ranks every match)")
    parser.add_argument("--connections", default="52,156,520", help="partition counts to time a new connection at")
    parser.add_argument("--database", help="comma-separated: sqlite (the default, in this process), postgres (a server of "
                        "the bench's own); several: each size on each, and a table side by side")
    parser.add_argument("--pg-setting", action="append", default=[], metavar="NAME=VALUE",
                        help="a PostgreSQL setting over bench.pg.BENCH_SETTINGS (repeatable)")
    parser.add_argument("--t0", type=float, help=argparse.SUPPRESS)  # the start of the span, the same for every database
    parser.add_argument("--figures-out", help=argparse.SUPPRESS)  # a child's figures, as JSON
    args = parser.parse_args()
    SPAN_DAYS = args.days

    if args.database is not None and databases_parse(args.database) != ["sqlite"]:
        engines_run(args, databases_parse(args.database))
        return
    figures = []
    with bench_data_dir("search", keep=args.keep, show_load=False):
        if args.rank_max is not None:
            from django.conf import settings

            settings.SEARCH_RANK_MAX = args.rank_max
        for size in (int(s) for s in args.sizes.split(",")):
            figures.append(size_run(size=size, n_queries=args.queries, seed=args.seed, t0=args.t0))
        if args.connections:
            connection_cost([int(c) for c in args.connections.split(",")])
    if args.figures_out:
        Path(args.figures_out).write_text(json.dumps(figures[-1]))


if __name__ == "__main__":
    main()
