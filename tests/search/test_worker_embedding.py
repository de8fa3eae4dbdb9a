"""What the worker embeds for a frame of a working session (search.services.frames_embed), with
the real models: a passage still on screen from the frame before is neither embedded nor read by
the second model again, and what the frame keeps is what a worker that never saw the frame
before would keep."""

import time

import numpy as np
import pytest

import search.embeddings
from frames.models import Frame
from search import crosscheck
from search import vectors as vectors_store
from search.embeddings import embed_texts, embedder_reset
from search.models import FrameVectors
from search.passages import frame_passages
from search.services import frame_vectors_queue, frames_embed

pytestmark = pytest.mark.django_db

WINDOW = "release-notes.md - Editor"
TOPICS = ["the billing service", "the search index", "the mobile app", "the nightly backups", "the login page", "the status dashboard"]


def screen_lines() -> list[str]:
    """A screen of notes long enough for several passages, cut at line ends."""
    return [f"Note {n}: {topic} was reviewed again with the team and the open questions about {topic} were written down" for n, topic in enumerate(TOPICS * 3)]


def test_consecutive_frames_of_one_screen_read_only_their_changed_passages(frame_make, monkeypatch):
    embedder_reset()
    crosscheck.reads_forget()
    lines = screen_lines()
    changed = [*lines[:-1], "Note 17: the release moved to Thursday because the database upgrade needs one more rehearsal"]
    at = time.time() - 3600
    first = frame_make("\n".join(lines), at=at, window_name=WINDOW)
    second = frame_make("\n".join(changed), at=at + 3, window_name=WINDOW)
    for frame in Frame.objects.filter(id__in=[first, second]):
        frame_vectors_queue(frame=frame)  # as the OCR of each does

    embedded, read, written = [], [], {}
    local_embed, encode, day_write = search.embeddings._local_embed, crosscheck._encode, vectors_store.day_write

    def embed_spy(texts, kind):
        embedded.extend(texts)
        return local_embed(texts, kind)

    def encode_spy(texts):
        read.extend(texts)
        return encode(texts)

    def write_spy(*, entries, **kwargs):
        written.update({entry.frame_id: entry.embeddings for entry in entries})
        return day_write(entries=entries, **kwargs)

    monkeypatch.setattr(search.embeddings, "_local_embed", embed_spy)
    monkeypatch.setattr(crosscheck, "_encode", encode_spy)
    monkeypatch.setattr(vectors_store, "day_write", write_spy)

    assert frames_embed(frame_ids=[first]) == 1
    passages = [passage.text for passage in frame_passages(window_name=WINDOW, text="\n".join(changed))]
    assert len(passages) >= 3
    assert passages[:-1] == [passage.text for passage in frame_passages(window_name=WINDOW, text="\n".join(lines))][:-1]
    embedded.clear()
    read.clear()
    assert frames_embed(frame_ids=[second]) == 1
    # Only the passage whose text changed went through either model.
    assert embedded == [passages[-1]]
    assert read == [passages[-1]]

    # What the frame keeps is what both models give its passages read afresh.
    kept = bytes(FrameVectors.objects.get(frame_id=second).crosscheck)
    embedder_reset()
    crosscheck.reads_forget()
    assert kept == crosscheck.passages_read(passages)
    assert np.allclose(np.asarray(written[second]), np.asarray(embed_texts(passages)), atol=1e-6)
