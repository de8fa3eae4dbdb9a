"""search/embeddings.py with the real packaged models (the default, multilingual-e5-small, and
all-MiniLM-L6-v2 where a test reads MiniLM's own tokenizer), and against a local
OpenAI-compatible /embeddings server over real HTTP. The local tests come first: they share one
load of each model."""

import logging
import math
import threading
import time

import pytest

from search import embeddings
from search.embeddings import (
    E5_SMALL,
    MINILM,
    EmbeddingError,
    builtin_model,
    embed_query,
    embed_texts,
    embedder_info,
    embedder_load_async,
    embedder_ready,
    embedder_reads_cjk,
    embedder_reset,
    embedder_warm_up,
    text_chunks,
)
from tests.search import fake_embeddings
from tests.search.fake_embeddings import FakeEmbeddings, fake_vector

# One line with no spaces, 528 characters (a Chinese character is one token to the local tokenizer).
CHINESE = "屏幕记忆会把每一帧截图里的文字识别出来并且保存在本地数据库中以便之后按时间和应用搜索" * 12


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def norm(vector: list[float]) -> float:
    return math.sqrt(sum(x * x for x in vector))


def served(texts: list[str], model: str = "fake-embed") -> list:
    """What the fake server's vectors for these texts are once unit-normalised."""
    return [pytest.approx([x / norm(fake_vector(model, text)) for x in fake_vector(model, text)]) for text in texts]


@pytest.fixture
def minilm(settings):
    settings.EMBEDDINGS_MODEL = MINILM.name
    return settings


@pytest.fixture
def local_tokenizer(minilm):
    """The tokenizer the loaded MiniLM encodes with, to check text_chunks (which counts with its own copy)."""
    return embeddings._local_model().transformer.tokenizer


def token_count(tokenizer, text: str) -> int:
    return len(tokenizer(text, add_special_tokens=True)["input_ids"])


def test_the_default_is_the_multilingual_model_without_torch(settings):
    settings.EMBEDDINGS_MODEL = ""
    info = embedder_info()
    assert builtin_model() is E5_SMALL and embedder_reads_cjk()
    assert (info.model, info.endpoint, info.dimensions, info.max_tokens) == ("multilingual-e5-small", "local", 384, 128)
    settings.EMBEDDINGS_MODEL = E5_SMALL.name  # named or by default: the same model, the same vectors
    assert embedder_info() == info


def test_local_vectors_are_384_d_unit_and_rank_a_paraphrase_first():
    invoice = embed_query("invoice from the dentist")
    paraphrase, unrelated = embed_texts(["dental clinic bill due 30 Nov", "kubectl get pods in the staging cluster"])
    assert [len(invoice), len(paraphrase), len(unrelated)] == [384, 384, 384]
    assert all(abs(norm(vector) - 1) < 1e-4 for vector in (invoice, paraphrase, unrelated))
    assert cosine(invoice, paraphrase) > cosine(invoice, unrelated) + 0.05  # e5's similarities crowd into 0.7-0.9


@pytest.mark.parametrize("model", ["all-MiniLM-L6-v2", "multilingual-e5-small"])
def test_local_keeps_order_and_gives_duplicates_the_same_vector(settings, model):
    settings.EMBEDDINGS_MODEL = model
    settings.EMBEDDINGS_CACHE_SIZE = 0  # each text below is encoded again, on its own
    texts = ["weather in Berlin", "git rebase onto main", "weather in Berlin", "pasta recipe", "git rebase onto main"]
    vectors = embed_texts(texts)
    assert len(vectors) == 5
    assert vectors[0] == vectors[2] and vectors[1] == vectors[4]
    assert vectors == [pytest.approx(embed_texts([text])[0], abs=1e-5) for text in texts]  # batched or alone, the same
    forecast = embed_query("forecast for Berlin")
    assert cosine(forecast, vectors[0]) > cosine(forecast, vectors[1])
    # The cache keeps a query and a passage of the same text apart (e5 embeds them differently).
    settings.EMBEDDINGS_CACHE_SIZE = 1024
    same = embed_query("pasta recipe") == pytest.approx(embed_texts(["pasta recipe"])[0], abs=1e-5)
    assert same is (model == "all-MiniLM-L6-v2")


def test_local_info_matches_the_model(minilm):
    info = embedder_info()
    assert (info.model, info.endpoint, info.dimensions, info.max_tokens) == ("all-MiniLM-L6-v2", "local", 384, 128)
    model = embeddings._local_model().transformer
    assert model.max_seq_length == 256 >= info.max_tokens  # pieces fit what the model reads whole
    assert model.get_embedding_dimension() == info.dimensions
    assert info.key.isascii() and info.key.isalnum() and info.key.islower() and 3 <= len(info.key) <= 24


def test_text_chunks_keep_every_word_and_fit_the_tokenizer(local_tokenizer):
    lines = [f"line {i}: the quarterly report for project falcon was reviewed by team {i}" for i in range(60)]
    lines.insert(10, " ".join(f"word{i}" for i in range(400)))  # one line far longer than the model takes
    text = "\n".join(lines) + "\n\n   \n"
    chunks = text_chunks(text)
    assert len(chunks) > 3
    assert " ".join(chunks).split() == text.split()
    assert max(token_count(local_tokenizer, chunk) for chunk in chunks) <= embedder_info().max_tokens
    assert "line 0: the quarterly report" in chunks[0]  # lines that fit stay whole


def test_text_chunks_split_a_long_chinese_run(local_tokenizer, settings):
    settings.EMBEDDINGS_MAX_TOKENS = 64
    chunks = text_chunks(CHINESE)
    assert len(chunks) >= len(CHINESE) // 64
    assert "".join(chunks) == CHINESE
    assert max(token_count(local_tokenizer, chunk) for chunk in chunks) <= 64


def test_text_chunks_of_short_and_empty_text():
    assert text_chunks("Rechnung #4411 due 30 Nov") == ["Rechnung #4411 due 30 Nov"]
    assert text_chunks("  first\n\n second  ") == ["first\nsecond"]
    assert text_chunks("") == []
    assert text_chunks(" \n\t\n ") == []


def test_concurrent_first_calls_load_the_model_once(caplog):
    embedder_reset()
    assert not embedder_ready()
    caplog.set_level(logging.INFO, logger="search.embeddings")
    embedder_load_async()
    embedder_load_async()
    results: list[list[float]] = []
    threads = [threading.Thread(target=lambda: results.append(embed_query("same query"))) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert embedder_ready()
    assert len(results) == 4 and all(result == results[0] for result in results)
    assert len([r for r in caplog.records if r.getMessage().startswith("Loaded embedding model")]) == 1
    assert embedder_warm_up().startswith("embedder multilingual-e5-small ready (")


@pytest.fixture
def fake(settings):
    """A running fake endpoint with the settings pointed at it and small timeouts."""
    server = FakeEmbeddings().start()
    settings.EMBEDDINGS_BASE_URL = server.base_url
    settings.EMBEDDINGS_API_KEY = "test-key"
    settings.EMBEDDINGS_MODEL = "fake-embed"
    settings.EMBEDDINGS_TIMEOUT_S = 0.5
    settings.EMBEDDINGS_MAX_RETRIES = 1
    settings.EMBEDDINGS_BATCH_SIZE = 4
    embedder_reset()
    yield server
    server.stop()
    embedder_reset()


def test_remote_sends_each_distinct_text_once_and_keeps_input_order(fake):
    texts = ["alpha", "beta", "alpha", "gamma", "beta", "alpha", "delta", "epsilon", "zeta", "gamma"]
    vectors = embed_texts(texts)
    assert sorted(fake.inputs) == sorted(set(texts))
    assert [len(body["input"]) for body in fake.requests] == [4, 2]  # batches of EMBEDDINGS_BATCH_SIZE
    assert vectors == served(texts)
    assert all(abs(norm(vector) - 1) < 1e-6 for vector in vectors)


def test_remote_restores_order_from_data_index(fake):
    fake.behaviour = fake_embeddings.OUT_OF_ORDER
    texts = ["one", "two", "three"]
    assert embed_texts(texts) == served(texts)


def test_remote_cache_sends_nothing_the_second_time_and_is_keyed_by_model(fake, settings):
    first = embed_texts(["cached text", "other text"])
    assert embed_query("cached text") == first[0]
    assert embed_texts(["other text", "cached text"]) == [first[1], first[0]]
    assert len(fake.requests) == 1

    settings.EMBEDDINGS_MODEL = "fake-embed-2"  # no embedder_reset: the cache key itself must tell the models apart
    second = embed_query("cached text")
    assert fake.inputs == ["cached text", "other text", "cached text"]
    assert fake.requests[-1]["model"] == "fake-embed-2"
    assert [second] == served(["cached text"], model="fake-embed-2")


def test_remote_cache_size_zero_turns_it_off(fake, settings):
    settings.EMBEDDINGS_CACHE_SIZE = 0
    embed_query("again")
    embed_query("again")
    assert fake.inputs == ["again", "again"]


def test_remote_cache_is_keyed_by_endpoint(fake, settings):
    embed_query("shared text")
    other = FakeEmbeddings().start()
    try:
        settings.EMBEDDINGS_BASE_URL = other.base_url
        embed_query("shared text")
        assert other.inputs == ["shared text"]
    finally:
        other.stop()


def test_remote_info_learns_dimensions_and_keys_differ_by_model(fake, settings):
    info = embedder_info()
    assert (info.model, info.endpoint, info.dimensions, info.max_tokens) == ("fake-embed", fake.base_url, None, 512)
    assert embedder_warm_up().startswith(f"embedder fake-embed at {fake.base_url} ready (")
    assert embedder_info().dimensions == fake_embeddings.DIMENSIONS
    assert embedder_ready()
    settings.EMBEDDINGS_MODEL = "fake-embed-2"
    assert embedder_info().key != info.key
    assert embedder_info().key.isalnum() and len(embedder_info().key) <= 24


def test_remote_timeout_retries_once_then_raises(fake):
    fake.behaviour = fake_embeddings.HANG
    started = time.monotonic()
    with pytest.raises(EmbeddingError, match="did not answer within 0.5 s"):
        embed_query("slow")
    assert time.monotonic() - started < 6
    assert fake.inputs == ["slow", "slow"]


def test_remote_server_error_raises(fake):
    fake.behaviour = fake_embeddings.ERROR_500
    with pytest.raises(EmbeddingError, match="500 The server had an error"):
        embed_texts(["a", "b"])
    assert embedder_warm_up().startswith("embedder fake-embed not ready: The embedding endpoint returned an error: 500")


def test_remote_wrong_count_raises(fake):
    fake.behaviour = fake_embeddings.TOO_FEW
    with pytest.raises(EmbeddingError, match="answered 2 vectors for 3 texts"):
        embed_texts(["a", "b", "c"])


def test_remote_without_model_name_raises(fake, settings):
    settings.EMBEDDINGS_MODEL = ""
    with pytest.raises(EmbeddingError, match="EMBEDDINGS_MODEL is empty"):
        embed_query("anything")
    assert fake.requests == []


def test_remote_endpoint_down_raises(fake, settings):
    fake.stop()
    with pytest.raises(EmbeddingError, match="Could not reach the embedding endpoint"):
        embed_query("anything")


def test_remote_text_chunks_estimate_one_token_per_chinese_character(fake, settings):
    settings.EMBEDDINGS_MAX_TOKENS = 50
    chunks = text_chunks(CHINESE)
    assert "".join(chunks) == CHINESE
    assert len(chunks) == math.ceil(len(CHINESE) / 48)  # 50 less two special tokens
