"""What both keyword index implementations share (search.fts on SQLite, search.pg_fts on
PostgreSQL): how text is cut into the words the index holds, how a typed term is cut the same
way, and the periods the index is split into by time.

Tokenization works for Chinese as well as English, and for words that OCR or the page glued to
others. Text is NFKC-normalised (full-width letters and digits become ASCII) and every run of
CJK characters is rewritten as its overlapping bigrams plus its last character ("机器学习" ->
"机器 器学 学习 习"), which also splits an English word from the Chinese around it ("由Linus
Torvalds编写"). A Chinese query becomes the phrase of its bigrams, which matches exactly where
the characters are contiguous; a single character becomes a prefix query.

Compound tokens are indexed whole and, in the `parts` column, by their parts: camel case and
letter/digit boundaries ("LinusTorvalds" -> "Linus Torvalds", "conversion3:amd64" ->
"conversion 3 amd 64"), so a word inside a longer token is found without changing what phrases
of the on-screen text match. Each part carries the PART_MARK character (private use), so it is a
token of its own: a query for the word as typed never matches a part.

Every word the index holds (letters and digits, not only digits, from VOCAB_MIN_CHARS on) is also
kept once in a vocabulary with a trigram index, so that a word can be looked for inside longer
words ("double" in "libdouble", or "resolved" where OCR dropped a space: "resolvedby").

The index is split by time into periods of PARTITION_DAYS (counted from the epoch), each recorded
in the registry table (REGISTRY) with its layout and, while `manage.py reindex --fts` rebuilds it,
how far the rebuild has got.
"""

import re
import unicodedata

from frames.text import CJK_CLASS

# A week: see search.fts for why (the cost of a partition to every new connection, and bm25's scan).
PARTITION_DAYS = 7
PARTITION_MS = PARTITION_DAYS * 86_400_000
REGISTRY = "search_partition"
REGISTRY_CREATE_SQL = f"CREATE TABLE IF NOT EXISTS {REGISTRY} (period integer PRIMARY KEY)"
REGISTRY_COLUMNS = "period, layout, build_layout, spill, build_spill"

TEXT_COLUMNS = ("text", "app_name", "window_name", "browser_url")
PART_MARK = "\ue000"

VOCAB = "search_vocab"
VOCAB_MIN_CHARS = 4

_CJK_RUN = re.compile(f"[{CJK_CLASS}]+")
_TOKEN = re.compile(r"[^\W_]+")  # what SQLite's unicode61 keeps as a token (letters and digits)
# A run of CJK characters, or a token of other letters and digits.
_QUERY_TOKEN = re.compile(f"([{CJK_CLASS}]+)|[^\\W_{CJK_CLASS}]+")
_LATIN_TOKEN = re.compile(f"[^\\W_{CJK_CLASS}]+")


def text_normalize(text: str) -> str:
    """NFKC: full-width and other compatibility forms become the letters and digits they show."""
    if not text or unicodedata.is_normalized("NFKC", text):  # the quick check is 50 times cheaper
        return text or ""
    return unicodedata.normalize("NFKC", text)


def _cjk_run_tokens(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)] + [run[-1]]


def fts_prepare(text: str) -> str:
    """The form of a text that goes into the index's text columns."""
    return bigrams(text_normalize(text))


def bigrams(normalized: str) -> str:
    """A normalised text with every CJK run rewritten as its bigrams and last character."""
    if not normalized:
        return ""
    return _CJK_RUN.sub(lambda m: " " + " ".join(_cjk_run_tokens(m.group())) + " ", normalized)


def _is_simple(token: str) -> bool:
    """A token with no inner boundary: all digits, or letters all lower, all upper or Titlecase."""
    if token.isdigit():
        return True
    return token.isalpha() and (token.islower() or token.isupper() or (token[0].isupper() and token[1:].islower()))


def token_parts(token: str) -> list[str]:
    """The parts of a compound token, split where camel case or a letter/digit change starts
    a new word ("LinusTorvalds" -> Linus, Torvalds; "HTTPServer2" -> HTTP, Server, 2); a token
    with one part gives []."""
    if _is_simple(token):
        return []
    parts, start = [], 0
    for i in range(1, len(token)):
        before, here = token[i - 1], token[i]
        if (
            before.isdigit() != here.isdigit()
            or (before.islower() and here.isupper())
            or (before.isupper() and here.isupper() and i + 1 < len(token) and token[i + 1].islower())
        ):
            parts.append(token[start:i])
            start = i
    parts.append(token[start:])
    return parts if len(parts) > 1 else []


def text_parts(*texts: str) -> str:
    """The parts of every compound token in the texts, in order and marked, for the `parts` column."""
    return parts_of(*(text_normalize(text) for text in texts))


def parts_of(*normalized: str) -> str:
    out: list[str] = []
    for text in normalized:
        if text:
            for token in _TOKEN.findall(_CJK_RUN.sub(" ", text)):
                out += token_parts(token)
    return " ".join(PART_MARK + part for part in out)


def index_row(
    *, timestamp_s: float, frame_id: int, text: str, app_name: str, window_name: str, browser_url: str
) -> tuple[int, str, str, str, str, str, int]:
    """A frame's row for the index: (its time in milliseconds, text, app_name, window_name,
    browser_url, parts, frame_id), the texts as the index takes them."""
    fields = [text_normalize(value) for value in (text, app_name, window_name, browser_url)]  # once each
    return (time_ms(timestamp_s), *(bigrams(value) for value in fields), parts_of(*fields), frame_id)


def vocab_terms(rows: list[tuple]) -> set[str]:
    """The vocabulary words of index rows (as index_row makes them)."""
    terms: set[str] = set()
    for row in rows:
        for column in row[1:5]:
            terms.update(_LATIN_TOKEN.findall(column.lower()))
    return {term for term in terms if len(term) >= VOCAB_MIN_CHARS and not term.isdigit()}


def token_fold(term: str) -> str:
    """A word as SQLite's unicode61 (remove_diacritics 2) keeps it: 'café' -> 'cafe'."""
    if term.isascii():  # nothing to fold (most words; NFKD costs a microsecond a word)
        return term
    return "".join(ch for ch in unicodedata.normalize("NFKD", term) if not unicodedata.combining(ch))


def token_is_word(token: str) -> bool:
    """Whether a query token is a word of letters and digits (not Chinese, Japanese or Korean)."""
    return not _CJK_RUN.search(token)


def term_tokens(term: str) -> tuple[list[str], list[str], bool]:
    """The tokens of one typed query term (normalised, without a trailing *), tokenized as the
    index tokenizes text: a run of CJK characters as its bigrams (a single character alone),
    other words lower-cased; the same with compound tokens split into parts; and whether the
    last token is a single CJK character."""
    tokens: list[str] = []
    parts: list[str] = []
    last_single_cjk = False
    for m in _QUERY_TOKEN.finditer(term):
        if m.group(1):
            run = m.group()
            pairs = [run[i : i + 2] for i in range(len(run) - 1)] if len(run) > 1 else [run]
            tokens += pairs
            parts += pairs
            last_single_cjk = len(run) == 1
        else:
            token = m.group()
            tokens.append(token.lower())
            parts += [part.lower() for part in token_parts(token)] or [token.lower()]
            last_single_cjk = False
    return tokens, parts, last_single_cjk


def vocab_starting(cursor, prefix: str, limit: int) -> list[str]:
    """Up to `limit` words of the vocabulary that start with `prefix` and are longer, the shortest
    first (the same table and query on either database: its terms compare by code point)."""
    cursor.execute(
        f"SELECT term FROM {VOCAB} WHERE term > %s AND term < %s ORDER BY length(term), term LIMIT %s",
        [prefix, prefix + "\U0010ffff", limit],
    )
    return [row[0] for row in cursor.fetchall()]


# Periods ---------------------------------------------------------------------------------------


def time_ms(timestamp_s: float) -> int:
    return int(timestamp_s * 1000)


def period_of(ms: int) -> int:
    """The period of a time in milliseconds."""
    return ms // PARTITION_MS


def periods_between(start_s: float, end_s: float) -> tuple[int, int]:
    """The first and last periods that may hold frames of [start_s, end_s] (a millisecond of slack)."""
    return period_of(time_ms(start_s) - 1), period_of(time_ms(end_s) + 1)


def period_bounds_s(period: int) -> tuple[float, float]:
    """The epoch seconds [start, end) of a period."""
    return period * PARTITION_MS / 1000, (period + 1) * PARTITION_MS / 1000


def periods_range(start_s: float | None, end_s: float | None) -> tuple[int, int]:
    """The periods that may hold frames of [start_s, end_s] (None: no bound)."""
    first = -(2**62) if start_s is None else periods_between(start_s, start_s)[0]
    last = 2**62 if end_s is None else periods_between(end_s, end_s)[1]
    return first, last


def rebuild_after(cursor, period: int):
    """The (timestamp as stored, id) of the last frame a rebuild of the period has indexed, if any."""
    cursor.execute(f"SELECT build_after_ts, build_after_id FROM {REGISTRY} WHERE period = %s", [period])
    row = cursor.fetchone()
    if row is None or row[0] is None:
        return None
    return row


def rebuild_mark(cursor, period: int, after_ts, after_id: int) -> None:
    """Record the last frame a rebuild of the period has indexed."""
    cursor.execute(
        f"UPDATE {REGISTRY} SET build_after_ts = %s, build_after_id = %s WHERE period = %s",
        [after_ts, after_id, period],
    )
