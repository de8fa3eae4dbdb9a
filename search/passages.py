"""A frame's passages: the pieces of what it shows that search by meaning embeds, one vector each.

A frame means its window title, then what its screen says (frame_text); that text is cut into
pieces that each fit the embedding model (search.embeddings.text_chunks: whole lines where they
fit). The vector index keeps one entry per passage, numbered in this order ("<frame_id>:<n>"),
so the number a vector query answers with names the passage that matched, and the same frame
text always gives the same passages: what was embedded can be cut again to show it.

Exports:
- frame_text(window_name, text): what a frame means, as one text.
- frame_passages(window_name=, text=): its passages, in the vector index's order.
- passage_lines(window_name=, text=, number=): what the screen says in passage `number` (without
  the window title the first passage begins with); "" when the frame has no such passage.
"""

from search.embeddings import text_chunks


def frame_text(window_name: str, text: str) -> str:
    """What a frame means: its window title, then what the screen says."""
    return "\n".join(part for part in ((window_name or "").strip(), (text or "").strip()) if part)


def frame_passages(*, window_name: str, text: str, first: int | None = None) -> list[str]:
    """The frame's passages, numbered as the vector index numbers its entries (only the first
    `first` of them, when given: the rest of the text is not cut)."""
    return text_chunks(frame_text(window_name, text), first=first)


def passage_lines(*, window_name: str, text: str, number: int) -> str:
    """The screen's lines in the frame's passage `number`: the passage that matched a search by
    meaning, as the result shows it (the window title is shown beside it already)."""
    if number < 0:
        return ""
    passages = frame_passages(window_name=window_name, text=text, first=number + 1)
    if number >= len(passages):
        return ""
    passage = passages[number]
    title = (window_name or "").strip()
    if number == 0 and title and passage.startswith(title):
        passage = passage[len(title) :]
    return passage.strip()
