"""Keyword search: what a person typed, from its parsed words to ranked frames.

Exports:
- keyword_query(q) -> KeywordQuery: what a person typed, parsed into terms; KeywordQuery gives
  the FTS5 query of each tier (strict, parts, prefix, inside) and the words a later tier needs
  (last_word, prefix_word, inside_words).
- vocab_starting, vocab_containing: the query-time look-ups in the index's vocabulary (the words
  that start with a typed word, the longer words that contain it).
- search_keyword(q=, filters=, limit=, offset=): a page of ranked hits and the exact total.
- PREFIX_MIN_CHARS, INSIDE_MAX_WORDS: when a word is also a prefix, how many longer words stand
  for a word found inside them.

A query has tiers, ranked in this order: every word as typed, in the text columns
(`strict`); also as compound parts (`parts`); with the last word also as a prefix, as a
search box does while one types (`prefix`); with words also inside longer words
(`inside`). search_keyword adds the later tiers only when the earlier ones find few frames.

The index itself is search.fts: this module calls it only to tokenize each typed term the
way the index tokenizes text (term_tokens) and for the geometry of a time range (its
partitions, their tables and bm25, the rowid range).
"""

import shlex
from dataclasses import dataclass

from django.conf import settings
from django.db import connection

from search.filters import TEXT_JOIN, Filters
from search.fts import (
    PART_MARK,
    VOCAB,
    VOCAB_MIN_CHARS,
    VOCAB_TRIGRAMS,
    Partition,
    partitions_in,
    term_tokens,
    text_normalize,
    token_is_word,
)
from search.hits import SearchHit, hits_load

# The last query word is also a prefix from this many characters on ("rel" finds "release").
PREFIX_MIN_CHARS = 3
# A word found inside at most this many longer words (the shortest first) is searched as them.
INSIDE_MAX_WORDS = 128


@dataclass(frozen=True)
class _Term:
    tokens: tuple[str, ...]  # FTS tokens, lower-cased
    prefix: bool  # typed with a trailing *, or a single Chinese character
    parts: tuple[str, ...]  # the tokens with compound ones split, when that differs


def _phrase(tokens, prefix: bool = False) -> str:
    return '"' + " ".join(tokens) + '"' + ("*" if prefix else "")


@dataclass(frozen=True)
class KeywordQuery:
    """What a person typed, as the FTS5 queries of its tiers (see the module docstring)."""

    terms: tuple[_Term, ...]

    def strict(self) -> str:
        """Every word as typed (parts are other tokens: they never match)."""
        return " AND ".join(_phrase(t.tokens, t.prefix) for t in self.terms)

    def _clauses(self, *, completions: list[str] | None = None, inside: dict[str, list[str]] | None = None) -> str:
        clauses = []
        for i, term in enumerate(self.terms):
            options = [_phrase(term.tokens, term.prefix)]
            if term.parts != term.tokens:
                options.append(_phrase(term.parts, term.prefix))
            if all(token_is_word(token) for token in term.parts):
                options.append(_phrase([PART_MARK + part for part in term.parts], term.prefix))
            if completions is not None and i == len(self.terms) - 1:
                # The words that start so; none known: FTS5's own prefix query (slower: the whole week).
                options += [_phrase([word]) for word in completions] or [_phrase(term.tokens, True)]
            if inside and len(term.tokens) == 1:
                options += [_phrase([longer]) for longer in inside.get(term.tokens[0], [])]
            clauses.append("(" + " OR ".join(options) + ")" if len(options) > 1 else options[0])
        return " AND ".join(clauses)

    def parts(self) -> str:
        """Every word as typed or as compound parts ("torvalds" in "LinusTorvalds", "LinusTorvalds"
        as "Linus Torvalds"), in any column."""
        return self._clauses()

    def last_word(self) -> str:
        """The last word alone, as typed."""
        return _phrase(self.terms[-1].tokens, self.terms[-1].prefix)

    def prefix_word(self) -> str | None:
        """The last word, when it may be the start of a longer one: a single word of letters and
        digits, long enough, not already typed with *."""
        last = self.terms[-1]
        if last.prefix or len(last.tokens) > 1 or not token_is_word(last.tokens[0]) or len(last.tokens[0]) < PREFIX_MIN_CHARS:
            return None
        return last.tokens[0]

    def prefix(self, completions: list[str]) -> str:
        """parts(), with the last word also matched as the words that start with it ("relativ"
        finds "relative"); with no completions given, as an FTS5 prefix."""
        return self._clauses(completions=completions)

    def inside_words(self) -> list[str]:
        """The words that may also be found inside longer words: single words of letters, long enough."""
        return [
            t.tokens[0]
            for t in self.terms
            if len(t.tokens) == 1 and not t.prefix and token_is_word(t.tokens[0]) and len(t.tokens[0]) >= VOCAB_MIN_CHARS
        ]

    def inside(self, longer: dict[str, list[str]], *, completions: list[str] | None) -> str:
        """parts() (or prefix(completions)), with words also matched as the longer words that contain them."""
        return self._clauses(completions=completions, inside=longer)


def keyword_query(q: str) -> KeywordQuery:
    """Parse what a person typed into a safe query: every word or "quoted phrase" must match
    (AND); a trailing * makes a word a prefix; FTS5 operators are searched as words. Punctuation
    alone gives a query of no terms, which matches no frame."""
    try:
        raw_terms = shlex.split(q)
    except ValueError:  # an unbalanced quote: take the words as they are
        raw_terms = q.replace('"', " ").split()
    terms = []
    for raw in raw_terms:
        raw = text_normalize(raw)
        prefix = raw.endswith("*")
        tokens, parts, single_cjk = term_tokens(raw.rstrip("*"))
        if tokens:
            terms.append(_Term(tokens=tuple(tokens), prefix=prefix or single_cjk, parts=tuple(parts)))
    return KeywordQuery(terms=tuple(terms))  # no terms: nothing in q is a word, so nothing matches


def vocab_starting(cursor, prefix: str) -> list[str] | None:
    """Words of the vocabulary that start with `prefix` and are longer, the shortest first; None
    when there are more than INSIDE_MAX_WORDS (too many to list in a query)."""
    cursor.execute(
        f"SELECT term FROM {VOCAB} WHERE term > %s AND term < %s ORDER BY length(term), term LIMIT %s",
        [prefix, prefix + "\U0010ffff", INSIDE_MAX_WORDS + 1],
    )
    words = [row[0] for row in cursor.fetchall()]
    return None if len(words) > INSIDE_MAX_WORDS else words


def vocab_containing(cursor, word: str) -> list[str]:
    """Words of the vocabulary that contain `word` and are longer, the shortest first."""
    # A query word is letters and digits only: nothing in it is a LIKE wildcard.
    cursor.execute(
        f"SELECT term FROM {VOCAB} WHERE id IN (SELECT rowid FROM {VOCAB_TRIGRAMS} WHERE term LIKE %s)"
        " AND term != %s ORDER BY length(term), term LIMIT %s",
        [f"%{word}%", word, INSIDE_MAX_WORDS],
    )
    return [row[0] for row in cursor.fetchall()]


def _match_sql(partition: Partition, match: str, filters: Filters, rowid_from: int | None = None) -> tuple[str, list]:
    """FROM and WHERE of the frames of one partition in the range (from rowid_from on) whose
    index entry matches the FTS query."""
    table = partition.table
    lo, hi = partition.rowid_range(filters.start_time, filters.end_time)
    lo = lo if rowid_from is None else rowid_from
    where, params, needs_text = filters.sql()
    if len(where) > 2 or needs_text:
        # Filters on the frame: join every match to its frame.
        base = (
            f"FROM {table} JOIN frames_frame f ON f.id = {table}.frame_id"
            + (TEXT_JOIN if needs_text else "")
            + f" WHERE {table} MATCH %s AND {table}.rowid BETWEEN %s AND %s AND "
            + " AND ".join(where)
        )
        return base, [match, lo, hi, *params]
    # Time only: the rowid range is the time range (to the second, or the millisecond in older
    # layouts), so only the rows at its edges are looked up in frames_frame for their exact timestamp.
    inside_lo, inside_hi = partition.rowid_range_inside(filters.start_time, filters.end_time)
    base = (
        f"FROM {table} WHERE {table} MATCH %s AND {table}.rowid BETWEEN %s AND %s"
        f" AND ({table}.rowid BETWEEN %s AND %s OR EXISTS (SELECT 1 FROM frames_frame f"
        f" WHERE f.id = {table}.frame_id AND {where[0]} AND {where[1]}))"
    )
    return base, [match, lo, hi, inside_lo, inside_hi, *params]


@dataclass
class _Tier:
    """The matches of one tier of a query in each partition of the range, newest partition
    first, with an upper bound of their count in each; ranked by bm25, or newest first."""

    matches: list[tuple[Partition, str]]
    bounds: list[int]
    by_bm25: bool = True


def _counts(cursor, matches: list[tuple[Partition, str]], filters: Filters) -> list[int]:
    counts = []
    for partition, match in matches:
        base, params = _match_sql(partition, match, filters)
        cursor.execute(f"SELECT count(*) {base}", params)
        counts.append(cursor.fetchone()[0])
    return counts


def _tiers(cursor, query: KeywordQuery, partitions: list[Partition], filters: Filters) -> tuple[list[_Tier], int]:
    """The tiers of a query in the range and the exact count of all their matches: exact
    matches; matches through compound parts only; when those are few and the last word as typed
    is rare in the range (so likely unfinished), matches through it as a prefix only; and when
    all those are still few, matches of words inside longer words ("double" in "libdouble")."""
    strict = [(p, query.strict()) for p in partitions]
    parts = query.parts()
    counts = _counts(cursor, [(p, parts) for p in partitions], filters)  # strict matches are a subset of these
    tiers = [_Tier(strict, counts), _Tier([(p, f"({parts}) NOT ({query.strict()})") for p in partitions], counts)]
    total = sum(counts)
    few = settings.SEARCH_FALLBACK_BELOW
    previous = parts
    completions = None
    word = query.prefix_word()
    if (
        word
        and total < few
        and (len(query.terms) == 1 or sum(_counts(cursor, [(p, query.last_word()) for p in partitions], filters)) < few)
    ):
        completions = vocab_starting(cursor, word) or []
        prefix = query.prefix(completions)
        prefix_counts = _counts(cursor, [(p, prefix) for p in partitions], filters)
        # Newest first: bm25 would scan the whole week for every completion, to rank a guess.
        tiers.append(_Tier([(p, f"({prefix}) NOT ({previous})") for p in partitions], prefix_counts, by_bm25=False))
        total = sum(prefix_counts)
        previous = prefix
    longer = {word: vocab_containing(cursor, word) for word in query.inside_words()} if total < few else {}
    if any(longer.values()):
        inside = query.inside(longer, completions=completions)
        inside_counts = _counts(cursor, [(p, inside) for p in partitions], filters)
        tiers.append(_Tier([(p, f"({inside}) NOT ({previous})") for p in partitions], inside_counts, by_bm25=False))
        total = sum(inside_counts)
    return tiers, total


def _ranked(cursor, tier: _Tier, filters: Filters, n: int) -> list[tuple[float, int, int]]:
    """The n best of a tier's matches by bm25, as (score, rowid, period), best first; fewer
    only when the tier has fewer. Past SEARCH_RANK_MAX matches only about the newest that many
    are ranked (0: every match)."""
    if not tier.by_bm25:
        return _newest(cursor, tier, filters, n)
    cap = settings.SEARCH_RANK_MAX
    left = max(cap, n) if cap else sum(tier.bounds)
    ranked = []
    for (partition, match), bound in zip(tier.matches, tier.bounds):
        if left <= 0:
            break
        if not bound:
            continue
        table = partition.table
        base, params = _match_sql(partition, match, filters)
        boundary = None
        if bound > left:
            cursor.execute(f"SELECT {table}.rowid {base} ORDER BY {table}.rowid DESC LIMIT 1 OFFSET %s", [*params, left - 1])
            if boundary := cursor.fetchone():
                base, params = _match_sql(partition, match, filters, rowid_from=boundary[0])
        # Only rowid and score go through the sort; frame ids are read for the page alone.
        cursor.execute(
            f"SELECT -{partition.bm25} AS score, {table}.rowid {base} ORDER BY score DESC, {table}.rowid DESC LIMIT %s",
            [*params, n],
        )
        rows = cursor.fetchall()
        ranked += [(score, rowid, partition.period) for score, rowid in rows]
        # The bound may be far above the tier's matches here: fewer than n rows are all of them.
        left = 0 if boundary else left - (bound if len(rows) >= n else len(rows))
    ranked.sort(reverse=True)
    return ranked[:n]


def _newest(cursor, tier: _Tier, filters: Filters, n: int) -> list[tuple[float, int, int]]:
    """The n newest of a tier's matches, as (score, rowid, period) with a score that falls
    down the list."""
    newest = []
    for (partition, match), bound in zip(tier.matches, tier.bounds):
        if len(newest) >= n:
            break
        if bound:
            base, params = _match_sql(partition, match, filters)
            cursor.execute(
                f"SELECT {partition.table}.rowid {base} ORDER BY {partition.table}.rowid DESC LIMIT %s",
                [*params, n - len(newest)],
            )
            newest += [(rowid, partition.period) for (rowid,) in cursor.fetchall()]
    return [(1 / (1 + position), rowid, period) for position, (rowid, period) in enumerate(newest)]


def _frame_ids(cursor, entries: list[tuple[int, int]], partitions: list[Partition]) -> dict[tuple[int, int], int]:
    """Frame ids of (period, rowid) index entries."""
    tables = {p.period: p.table for p in partitions}
    found = {}
    for period in {period for period, _ in entries}:
        rowids = [rowid for p, rowid in entries if p == period]
        cursor.execute(
            f"SELECT rowid, frame_id FROM {tables[period]} WHERE rowid IN ({', '.join(['%s'] * len(rowids))})", rowids
        )
        found.update({(period, rowid): frame_id for rowid, frame_id in cursor.fetchall()})
    return found


def _tier_score(tier: int, bm25_score: float) -> float:
    """One scale for the whole list, higher is better: exact matches score in (3, 4], matches
    through compound parts in (2, 3], through a prefix or inside longer words below; by bm25
    inside a tier."""
    return 4 - tier - 1 / (1 + max(bm25_score, 0.0))


def search_keyword(*, q: str, filters: Filters, limit: int, offset: int) -> tuple[list[SearchHit], int]:
    """Frames whose text or metadata match every word of q: exact word matches first, then
    matches through a compound token's parts, both ranked by bm25 (see _ranked for the cap);
    then, when those are few, through the last word as a prefix, then through words inside
    longer words, newest first.

    Each partition of the range is counted and ranked on its own and the pages are merged by
    score; bm25 weighs a word by how rare it is in its partition's period."""
    query = keyword_query(q)
    if not query.terms:  # only punctuation or symbols: no word to match
        return [], 0
    with connection.cursor() as cursor:
        partitions = partitions_in(cursor, filters.start_time, filters.end_time)
        tiers, total = _tiers(cursor, query, partitions, filters)
        page: list[tuple[int, int, float]] = []  # (period, rowid, score)
        skip = offset
        for number, tier in enumerate(tiers):
            if len(page) >= limit or skip >= total:
                break
            want = skip + limit - len(page)
            ranked = _ranked(cursor, tier, filters, want)
            page += [(period, rowid, _tier_score(number, score)) for score, rowid, period in ranked[skip:]]
            # A tier that gave fewer than asked has no more: what is left to skip goes on to the next.
            skip = max(0, skip - len(ranked))
        frame_ids = _frame_ids(cursor, [(period, rowid) for period, rowid, _ in page], partitions)
    return hits_load([(frame_ids[(period, rowid)], score) for period, rowid, score in page]), total
