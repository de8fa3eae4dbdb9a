"""The hard screen set (tests/hard_screens/): real programs captured on a virtual X display
(terminals, editors, htop, tmux, a spreadsheet, dense and dark pages, Chinese and mixed, HiDPI),
each with the words and identifiers a person can read on it (truth.json).

A query is read when the keyword index would match it as typed: its tokens, cut as the index
cuts text (search.keyword_base), follow each other in the tokens of the OCR text.
"""

import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

HARD_SCREENS = Path(__file__).resolve().parent / "hard_screens"
_WORD = re.compile(r"[^\W_]+")  # a token as the index keeps it: letters and digits
KINDS = ("documentation", "terminal", "editor", "dense_app", "dark", "mixed_chinese")


@dataclass
class HardScreen:
    file: str
    kind: str
    language: str
    size: tuple[int, int]
    scale: float
    queries: list[str]

    @property
    def path(self) -> Path:
        return HARD_SCREENS / self.file

    def pixels(self) -> np.ndarray:
        with Image.open(self.path) as image:
            return np.asarray(image.convert("RGB"))


def hard_screens() -> list[HardScreen]:
    rows = json.loads((HARD_SCREENS / "truth.json").read_text())
    return [
        HardScreen(
            file=row["file"],
            kind=row["kind"],
            language=row["language"],
            size=tuple(row["size"]),
            scale=row.get("scale", 1),
            queries=list(row["queries"]),
        )
        for row in rows
    ]


def query_language(query: str) -> str:
    """zh for a query with Chinese characters in it, en otherwise."""
    from frames.text import CJK_RE

    return "zh" if CJK_RE.search(query) else "en"


def _tokens(text: str) -> list[str]:
    from search.keyword_base import bigrams, text_normalize

    return [token.lower() for token in _WORD.findall(bigrams(text_normalize(text)))]


def query_read(query: str, text: str) -> bool:
    """Whether the OCR text holds the query as the keyword index would match it typed whole."""
    from search.keyword_base import term_tokens

    wanted, _, _ = term_tokens(query)
    if not wanted:
        return False
    have = _tokens(text)
    size = len(wanted)
    return any(have[i : i + size] == wanted for i in range(len(have) - size + 1))


def queries_missed(screen: HardScreen, text: str) -> list[str]:
    return [query for query in screen.queries if not query_read(query, text)]

