"""Keyword search: what a person typed, from its parsed words to ranked frames, on whichever
database holds the index (search.keyword_index: SQLite FTS5 or PostgreSQL).

Exports:
- keyword_query(q) -> KeywordQuery: what a person typed, parsed into terms; KeywordQuery gives
  the query of each tier (strict, parts, prefix, inside) in an index's syntax, and the words a
  later tier needs (last_word, prefix_word, inside_words).
- vocab_starting, vocab_containing: the query-time look-ups in the index's vocabulary (the words
  that start with a typed word, the longer words that contain it).
- search_keyword(q=, filters=, limit=, offset=): a page of ranked hits and the exact total.
- PREFIX_MIN_CHARS, INSIDE_MAX_WORDS: when a word is also a prefix, how many longer words stand
  for a word found inside them.

A query has tiers, ranked in this order: every word as typed, in the text columns
(`strict`); also as compound parts (`parts`); with the last word also as a prefix, as a
search box does while one types (`prefix`); with words also inside longer words
(`inside`). search_keyword adds the later tiers only when the earlier ones find few frames.

Terms are tokenized the way the index tokenizes text (search.keyword_base.term_tokens); the
index answers counts, ranked and newest matches per scope (a period) through its primitives.
"""

import shlex
from dataclasses import dataclass

from django.conf import settings
from django.db import connection

from search.filters import Filters
from search.hits import SearchHit, hits_load
from search.keyword_base import PART_MARK, VOCAB_MIN_CHARS, term_tokens, text_normalize, token_is_word
from search.keyword_index import keyword_index

# The last query word is also a prefix from this many characters on ("rel" finds "release").
PREFIX_MIN_CHARS = 3
# A word found inside at most this many longer words (the shortest first) is searched as them.
INSIDE_MAX_WORDS = 128


@dataclass(frozen=True)
class _Term:
    tokens: tuple[str, ...]  # FTS tokens, lower-cased
    prefix: bool  # typed with a trailing *, or a single Chinese character
    parts: tuple[str, ...]  # the tokens with compound ones split, when that differs


@dataclass(frozen=True)
class KeywordQuery:
    """What a person typed, as the queries of its tiers in an index's syntax (see the module
    docstring and search.keyword_index's SYNTAX)."""

    terms: tuple[_Term, ...]

    def strict(self, syntax) -> str:
        """Every word as typed (parts are other tokens: they never match)."""
        return syntax.all_of([syntax.phrase(t.tokens, t.prefix) for t in self.terms])

    def _clauses(self, syntax, *, completions: list[str] | None = None, inside: dict[str, list[str]] | None = None) -> str:
        clauses = []
        for i, term in enumerate(self.terms):
            options = [syntax.phrase(term.tokens, term.prefix)]
            if term.parts != term.tokens:
                options.append(syntax.phrase(term.parts, term.prefix))
            if all(token_is_word(token) for token in term.parts):
                options.append(syntax.phrase([PART_MARK + part for part in term.parts], term.prefix))
            if completions is not None and i == len(self.terms) - 1:
                # The words that start so; none known: the index's own prefix query (slower: the whole week).
                options += [syntax.phrase([word]) for word in completions] or [syntax.phrase(term.tokens, True)]
            if inside and len(term.tokens) == 1:
                options += [syntax.phrase([longer]) for longer in inside.get(term.tokens[0], [])]
            clauses.append(syntax.any_of(options))
        return syntax.all_of(clauses)

    def parts(self, syntax) -> str:
        """Every word as typed or as compound parts ("torvalds" in "LinusTorvalds", "LinusTorvalds"
        as "Linus Torvalds"), in any column."""
        return self._clauses(syntax)

    def last_word(self, syntax) -> str:
        """The last word alone, as typed."""
        return syntax.phrase(self.terms[-1].tokens, self.terms[-1].prefix)

    def prefix_word(self) -> str | None:
        """The last word, when it may be the start of a longer one: a single word of letters and
        digits, long enough, not already typed with *."""
        last = self.terms[-1]
        if last.prefix or len(last.tokens) > 1 or not token_is_word(last.tokens[0]) or len(last.tokens[0]) < PREFIX_MIN_CHARS:
            return None
        return last.tokens[0]

    def prefix(self, syntax, completions: list[str]) -> str:
        """parts(), with the last word also matched as the words that start with it ("relativ"
        finds "relative"); with no completions given, as the index's prefix query."""
        return self._clauses(syntax, completions=completions)

    def inside_words(self) -> list[str]:
        """The words that may also be found inside longer words: single words of letters, long enough."""
        return [
            t.tokens[0]
            for t in self.terms
            if len(t.tokens) == 1 and not t.prefix and token_is_word(t.tokens[0]) and len(t.tokens[0]) >= VOCAB_MIN_CHARS
        ]

    def inside(self, syntax, longer: dict[str, list[str]], *, completions: list[str] | None) -> str:
        """parts() (or prefix(completions)), with words also matched as the longer words that contain them."""
        return self._clauses(syntax, completions=completions, inside=longer)


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
    words = keyword_index().vocab_starting(cursor, prefix, INSIDE_MAX_WORDS + 1)
    return None if len(words) > INSIDE_MAX_WORDS else words


def vocab_containing(cursor, word: str) -> list[str]:
    """Words of the vocabulary that contain `word` and are longer, the shortest first."""
    return keyword_index().vocab_containing(cursor, word, INSIDE_MAX_WORDS)


@dataclass
class _Tier:
    """The matches of one tier of a query in each scope of the range, newest scope first, with
    an upper bound of their count in each; ranked by relevance, or newest first."""

    matches: list[tuple[object, str]]
    bounds: list[int]
    by_relevance: bool = True
    ranked: list[tuple[float, object, int]] | None = None  # the best matches, when ranked while counted
    newest: list[list | None] | None = None  # per scope, its newest matches when read while counted


def _counts(cursor, index, matches: list[tuple[object, str]], filters: Filters) -> list[int]:
    return [index.match_count(cursor, scope, match, filters) for scope, match in matches]


def _counted_newest(cursor, index, scopes: list, match: str, previous: str, previous_counts: list[int], filters: Filters, n: int) -> _Tier:
    """A later tier: the matches of `match` (a superset of `previous`, the tiers before it) counted,
    scope by scope, with the newest n of those that are not `previous`'s where the index reads
    them in the same scan; its bounds are those counts."""
    syntax = index.SYNTAX
    counts, newest = [], []
    for scope, excluded_most in zip(scopes, previous_counts):
        count, keys = index.match_count_newest(cursor, scope, match, previous, excluded_most, filters, n)
        counts.append(count)
        newest.append(keys)
    return _Tier([(s, syntax.but_not(match, previous)) for s in scopes], counts, by_relevance=False, newest=newest)


def _counted_ranked(cursor, index, scopes: list, parts: str, strict: str, filters: Filters, n: int) -> _Tier:
    """The first tier (strict matches) with its best n ranked while the matches of `parts` (a
    superset) are counted, scope by scope; its bounds are those counts. See _ranked for the cap."""
    cap = settings.SEARCH_RANK_MAX
    left = max(cap, n) if cap else None
    counts, ranked = [], []
    for number, scope in enumerate(scopes):
        if left == 0:  # the newest matches are ranked already: the older scopes are only counted
            counts += _counts(cursor, index, [(scope, parts)], filters)
            continue
        count, rows, cut = index.match_count_ranked(cursor, scope, parts, strict, filters, n, newest=left)
        counts.append(count)
        ranked += [(score, key, -number) for score, key in rows]  # a newer scope first among equal scores
        if left is not None:
            # The count may be far above the strict matches: fewer than n rows are all of them.
            # Never below 0: a count past what was left spends the cap (the older scopes are only counted).
            left = 0 if cut else max(0, left - (count if len(rows) >= n else len(rows)))
    ranked.sort(reverse=True)
    return _Tier([(scope, strict) for scope in scopes], counts, ranked=ranked[:n])


def _tiers(cursor, index, query: KeywordQuery, scopes: list, filters: Filters, n: int) -> tuple[list[_Tier], int]:
    """The tiers of a query in the range and the exact count of all their matches: exact
    matches; matches through compound parts only; when those are few and the last word as typed
    is rare in the range (so likely unfinished), matches through it as a prefix only; and when
    all those are still few, matches of words inside longer words ("double" in "libdouble").
    The exact matches' best n are ranked while the first two tiers are counted."""
    syntax = index.SYNTAX
    strict = query.strict(syntax)
    parts = query.parts(syntax)
    first = _counted_ranked(cursor, index, scopes, parts, strict, filters, n)  # strict matches are a subset of parts'
    counts = first.bounds
    tiers = [first, _Tier([(s, syntax.but_not(parts, strict)) for s in scopes], counts)]
    total = sum(counts)
    few = settings.SEARCH_FALLBACK_BELOW
    previous = parts
    completions = None
    word = query.prefix_word()
    if (
        word
        and total < few
        and (
            len(query.terms) == 1
            or sum(_counts(cursor, index, [(s, query.last_word(syntax)) for s in scopes], filters)) < few
        )
    ):
        completions = vocab_starting(cursor, word) or []
        prefix = query.prefix(syntax, completions)
        # Newest first: relevance would scan the whole week for every completion, to rank a guess.
        tiers.append(_counted_newest(cursor, index, scopes, prefix, previous, counts, filters, n))
        counts = tiers[-1].bounds
        total = sum(counts)
        previous = prefix
    longer = {word: vocab_containing(cursor, word) for word in query.inside_words()} if total < few else {}
    if any(longer.values()):
        inside = query.inside(syntax, longer, completions=completions)
        tiers.append(_counted_newest(cursor, index, scopes, inside, previous, counts, filters, n))
        total = sum(tiers[-1].bounds)
    return tiers, total


def _ranked(cursor, index, tier: _Tier, filters: Filters, n: int) -> list[tuple[float, object, int]]:
    """The n best of a tier's matches by relevance, as (score, key, scope number), best first;
    fewer only when the tier has fewer. Past SEARCH_RANK_MAX matches only about the newest that
    many are ranked (0: every match)."""
    if tier.ranked is not None:
        return tier.ranked[:n]
    if not tier.by_relevance:
        return _newest(cursor, index, tier, filters, n)
    cap = settings.SEARCH_RANK_MAX
    left = max(cap, n) if cap else sum(tier.bounds)
    ranked = []
    for number, ((scope, match), bound) in enumerate(zip(tier.matches, tier.bounds)):
        if left <= 0:
            break
        if not bound:
            continue
        rows, cut = index.match_ranked(cursor, scope, match, filters, n, newest=left if bound > left else None, expected=bound)
        # A newer scope comes first among equal scores.
        ranked += [(score, key, -number) for score, key in rows]
        # The bound may be far above the tier's matches here: fewer than n rows are all of them.
        left = 0 if cut else left - (bound if len(rows) >= n else len(rows))
    ranked.sort(reverse=True)
    return ranked[:n]


def _newest(cursor, index, tier: _Tier, filters: Filters, n: int) -> list[tuple[float, object, int]]:
    """The n newest of a tier's matches, as (score, key, scope number) with a score that falls
    down the list."""
    newest = []
    for number, ((scope, match), bound) in enumerate(zip(tier.matches, tier.bounds)):
        if len(newest) >= n:
            break
        if bound:
            read = tier.newest[number] if tier.newest is not None else None
            keys = read[: n - len(newest)] if read is not None else index.match_newest(cursor, scope, match, filters, n - len(newest))
            newest += [(key, -number) for key in keys]
    return [(1 / (1 + position), key, number) for position, (key, number) in enumerate(newest)]


def _tier_score(tier: int, relevance: float) -> float:
    """One scale for the whole list, higher is better: exact matches score in (3, 4], matches
    through compound parts in (2, 3], through a prefix or inside longer words below; by relevance
    inside a tier."""
    return 4 - tier - 1 / (1 + max(relevance, 0.0))


def search_keyword(*, q: str, filters: Filters, limit: int, offset: int) -> tuple[list[SearchHit], int]:
    """Frames whose text or metadata match every word of q: exact word matches first, then
    matches through a compound token's parts, both ranked by relevance (bm25 on SQLite; see
    _ranked for the cap); then, when those are few, through the last word as a prefix, then
    through words inside longer words, newest first.

    Each scope (period) of the range is counted and ranked on its own and the pages are merged
    by score; bm25 weighs a word by how rare it is in its period."""
    query = keyword_query(q)
    if not query.terms:  # only punctuation or symbols: no word to match
        return [], 0
    index = keyword_index()
    with connection.cursor() as cursor:
        scopes = index.scopes_in(cursor, filters.start_time, filters.end_time)
        tiers, total = _tiers(cursor, index, query, scopes, filters, offset + limit)
        page: list[tuple[object, object, float]] = []  # (scope, key, score)
        skip = offset
        for number, tier in enumerate(tiers):
            if len(page) >= limit or skip >= total:
                break
            want = skip + limit - len(page)
            ranked = _ranked(cursor, index, tier, filters, want)
            page += [(scopes[-scope_number], key, _tier_score(number, score)) for score, key, scope_number in ranked[skip:]]
            # A tier that gave fewer than asked has no more: what is left to skip goes on to the next.
            skip = max(0, skip - len(ranked))
        frame_ids = index.frame_ids(cursor, [(scope, key) for scope, key, _ in page])
    return hits_load([(frame_ids[(scope, key)], score) for scope, key, score in page]), total
