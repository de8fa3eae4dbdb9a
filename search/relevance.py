"""Which frames a search by meaning returns, and in what order, judged from the evidence of each
query rather than one similarity fixed for every query (issue 23).

An embedding model's similarities say little on their own: multilingual-e5-small puts unrelated
texts at 0.75-0.85 and answers at 0.77-0.90, a query in Chinese is nearer to any Chinese page
than to the English page that answers it, and some screens (short, generic UI text) are near to
every question. Both corrections here are calibrated on one packaged set of everyday questions
that have nothing to do with anyone's screens (search/background_queries.txt, in English and
Chinese), embedded by whatever model runs, so they need no state of the user's index:

- Order (the pull of a language): a chunk's similarity to the query, less the query's similarity
  to the mean background question of the chunk's script (Chinese-Japanese-Korean or Latin).
  A Chinese question about an English page is no longer outranked by every Chinese page
  (bench/search_quality.py: e5 cross-en 0.10 -> 0.85 recall@10). Half of that similarity is
  taken off, not all of it (PULL_WEIGHT).
- Selection (how much a chunk draws any question): when a chunk is embedded, its similarities
  to the background questions of each language are summed up as a mean and a deviation and kept
  with the frame (chunk_stats, FrameVectors.relevance, 9 bytes a chunk). At search time a
  chunk's similarity to the query is a z-score against the background questions of the query's
  language: how much more this question draws it than everyday questions do. A frame whose best
  z reaches the model's z_keep is returned; when none of the ten best reaches z_sure (nothing
  stands out: a question the screens have no answer to, or an answer that is a few lines of a
  busy screen), only one is: the nearest if its z reaches the lower z_first, else the
  nearest that reaches z_keep.

Exports:
- background(): the background questions' vectors for the embedder configured now (embedded
  once per process); background_ready().
- chunk_stats(texts, vectors) -> bytes: what a frame's chunks keep (their script and their
  similarity to the background questions), in chunk order.
- QueryRelevance, query_relevance(q, embedding): a query's language and its pull per script.
- chunk_record(stats, chunk), record_script(stats, chunk), chunk_z(record, similarity, language, floor), chunk_script(text),
  record_deviations(stats, language), deviations_floor(deviations),
  query_language(q), thresholds(), select(ranked).
"""

import re
import struct
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from search.embeddings import embed_queries, embedder_info

BACKGROUND_FILE = Path(__file__).with_name("background_queries.txt")
# Chinese, Japanese and Korean letters (a chunk or a query in those scripts).
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")
LATIN, CJK = 0, 1
# One chunk's record: its script (a byte), then mean and deviation of its similarity to the
# Latin-script background questions, then to the CJK ones (half floats).
_RECORD = struct.Struct("<B4e")
RECORD_BYTES = _RECORD.size

# (z_keep, z_sure, z_first) per packaged model, chosen on bench/search_quality.py's labelled and off-topic
# questions (bench/semantic_relevance.py sweeps them); an endpoint's model gets e5's.
# z_first: when nothing stands out, the nearest frame is returned if it reaches this. A screen
# where the answer is a few lines among many others is drawn little more than by everyday
# questions (bench/ingest.py's paraphrases: z median 1.8, a tenth under 0.5), as little as an
# unrelated screen is by a question it does not answer ("weather" on a screen about a sunflower
# project: 1.1; "marketing" on a budget review: 1.4): a little below z_keep, a search for what
# your screens do not show says so, at the cost of some answers buried in busy screens
# (bench/ingest.py by meaning: 23/40 found at 1.7, 31/40 at 1.0, 40/40 at 0).
THRESHOLDS = {"multilingual-e5-small": (2.0, 3.0, 1.7), "all-MiniLM-L6-v2": (3.0, 4.0, 2.7)}
# The share of the background questions nearest to a chunk left out of its mean and deviation.
TRIM = 0.1
DEFAULT_THRESHOLDS = THRESHOLDS["multilingual-e5-small"]
# How much of a language's pull is taken off: all of it finds the most across languages (e5
# cross-en 0.90 recall@10) but ranks a Chinese page lower for a Chinese question (zh-paraphrase
# MRR 0.88 -> 0.40); half keeps most of both (cross-en 0.85, zh-paraphrase MRR 0.61).
PULL_WEIGHT = 0.5
# How many of the best frames decide whether anything stands out.
SURE_AMONG = 10


def chunk_script(text: str) -> int:
    """CJK when at least a fifth of a chunk's letters are Chinese, Japanese or Korean, else Latin."""
    letters = len("".join(text.split()))
    return CJK if len(_CJK.findall(text)) > 0.2 * max(letters, 1) else LATIN


def query_language(q: str) -> int:
    """The background group a query is measured against: CJK when it has any such letter."""
    return CJK if _CJK.search(q) else LATIN


@dataclass(frozen=True)
class Background:
    key: str  # the embedder it was embedded by
    vectors: np.ndarray  # (questions, dimensions), unit rows
    language: np.ndarray  # (questions,) LATIN or CJK
    means: np.ndarray  # (2, dimensions): the mean question of each group


_lock = threading.Lock()
_background: dict[str, Background] = {}


def background_questions() -> list[str]:
    return [line.strip() for line in BACKGROUND_FILE.read_text(encoding="utf-8").splitlines() if line.strip() and not line.startswith("#")]


def background() -> Background:
    """The background questions embedded by the embedder configured now (once per process and
    embedder). Raises EmbeddingError when the embedder cannot answer."""
    key = embedder_info().key
    found = _background.get(key)
    if found is not None:
        return found
    with _lock:
        if key not in _background:
            questions = background_questions()
            vectors = np.asarray(embed_queries(questions), dtype=np.float32)
            language = np.array([query_language(q) for q in questions])
            means = np.stack([vectors[language == group].mean(axis=0) for group in (LATIN, CJK)])
            _background[key] = Background(key=key, vectors=vectors, language=language, means=means)
        return _background[key]


def background_ready() -> bool:
    return embedder_info().key in _background


def chunk_stats(texts: list[str], vectors: list[list[float]]) -> bytes:
    """Each chunk's script and its similarity to each group of background questions (mean and
    deviation), packed in chunk order. Raises EmbeddingError (the background needs the embedder)."""
    if not texts:
        return b""
    found = background()
    similarities = np.asarray(vectors, dtype=np.float32) @ found.vectors.T  # (chunks, questions)
    records = []
    for text, row in zip(texts, similarities, strict=True):
        latin, cjk = (_trimmed(row[found.language == group]) for group in (LATIN, CJK))
        records.append(_RECORD.pack(chunk_script(text), latin.mean(), max(latin.std(), 1e-3), cjk.mean(), max(cjk.std(), 1e-3)))
    return b"".join(records)


def _trimmed(similarities: np.ndarray) -> np.ndarray:
    """Without the nearest TRIM of the questions: a screen about what one everyday question asks
    (taxes, the weather) is not held to that question's similarity."""
    ordered = np.sort(similarities)
    return ordered[: max(2, round(len(ordered) * (1 - TRIM)))]


def record_script(stats: bytes | None, chunk: int) -> int | None:
    """The script (LATIN or CJK) of one chunk by its record, or None as chunk_record: what a search
    needs of each of the thousands of entries it reads (the rest only for the candidates)."""
    if not stats or (chunk + 1) * RECORD_BYTES > len(stats):
        return None
    return stats[chunk * RECORD_BYTES]


def chunk_record(stats: bytes | None, chunk: int) -> tuple[int, float, float, float, float] | None:
    """(script, Latin mean, Latin deviation, CJK mean, CJK deviation) of one chunk, or None when
    the frame has no record of it (embedded before records were kept, or a moment ago)."""
    if not stats or (chunk + 1) * RECORD_BYTES > len(stats):
        return None
    return _RECORD.unpack_from(stats, chunk * RECORD_BYTES)


@dataclass(frozen=True)
class QueryRelevance:
    language: int  # LATIN or CJK: the background questions it is measured against
    pull: tuple[float, float]  # per script, how much farther than the nearer script's chunks (>= 0)


def query_relevance(q: str, embedding: list[float]) -> QueryRelevance:
    """How a query stands to the two scripts: its similarity to the mean background question of
    each, as a distance to add to the chunks of that script (0 for the nearer one), so the order
    is by how much nearer a chunk is than its script's average. Raises EmbeddingError."""
    near = PULL_WEIGHT * (background().means @ np.asarray(embedding, dtype=np.float32))
    lowest = float(near.min())
    return QueryRelevance(language=query_language(q), pull=(float(near[LATIN]) - lowest, float(near[CJK]) - lowest))


def chunk_z(record: tuple[int, float, float, float, float] | None, similarity: float, language: int, floor: float = 0.0) -> float | None:
    """How much more the query draws this chunk than the background questions of its language do,
    in their deviations (at least `floor`: see deviations_floor); None without a record."""
    if record is None:
        return None
    mean, deviation = (record[1], record[2]) if language == LATIN else (record[3], record[4])
    return (similarity - mean) / max(deviation, floor, 1e-3)


def record_deviations(stats: bytes | None, language: int) -> list[float]:
    """The deviation of every chunk a frame's record keeps, against the background questions of
    `language` (for deviations_floor)."""
    count = len(stats) // RECORD_BYTES if stats else 0
    at = 2 if language == LATIN else 4
    return [_RECORD.unpack_from(stats, chunk * RECORD_BYTES)[at] for chunk in range(count)]


def deviations_floor(deviations) -> float:
    """The least deviation a z is divided by among these passages: their median. A passage that
    everyday questions all draw alike (code, a list of names in another script, a blob of
    base64) has a deviation a third of the usual one, so any question draws it a z three times
    as high as it would draw an ordinary passage equally near: in a memory with 300 unrelated
    frames of code and program messages, questions on nothing there ("dinosaur fossils", "pottery
    wheel") were kept on such passages. Measured over the candidates of one search, so it holds
    for any model and any memory (bench/search_quality.py, on bench/quality and on the captured
    set, small and large memories, in search.semantic)."""
    values = np.asarray(list(deviations), dtype=np.float32)
    return float(np.median(values)) if values.size else 0.0


def thresholds() -> tuple[float, float, float]:
    """(z_keep, z_sure, z_first) for the embedder configured now."""
    info = embedder_info()
    return THRESHOLDS.get(info.model, DEFAULT_THRESHOLDS) if info.endpoint == "local" else DEFAULT_THRESHOLDS


def select(ranked: list[tuple[int, float, float | None]]) -> list[tuple[int, float]]:
    """The frames a search by meaning returns, from (frame_id, distance, best z) in order: those
    whose z reaches z_keep; when none of the SURE_AMONG nearest reaches z_sure (nothing stands
    out), one frame only: the nearest if it reaches z_first, else the nearest that reaches
    z_keep. A frame without a record (z None) counts as kept, never as standing out."""
    keep_at, sure_at, first_at = thresholds()
    sure = any(z is not None and z >= sure_at for _, _, z in ranked[:SURE_AMONG])
    kept = [(frame_id, distance) for frame_id, distance, z in ranked if z is None or z >= keep_at]
    if sure:
        return kept
    if ranked and ranked[0][2] is not None and ranked[0][2] >= first_at:
        return [ranked[0][:2]]
    return kept[:1]
