"""The keyword index, one interface over two implementations chosen by the database in use:
search.fts (SQLite FTS5) and search.pg_fts (PostgreSQL full-text search with pg_trgm). Both take
text tokenized as search.keyword_base says, split the index into the same periods, keep the same
vocabulary for words inside longer words, and answer the same primitives, so search.keyword (the
tiers and the ranking of a query) and search.services (the writes) never know which database
holds the index.

What an implementation offers (module-level names):
- SYNTAX: phrase(tokens, prefix), any_of(options), all_of(clauses), but_not(match, excluded):
  a query in the implementation's own syntax.
- partition_table(period): the table that holds a period's rows.
- scopes_in(cursor, start_s, end_s): the parts of the index a range is searched in, newest first
  (hashable; periods in both).
- match_count, match_ranked, match_newest, frame_ids: a scope's matches counted, ranked by
  relevance (higher better; among about the newest N when asked, with about how many matches
  are expected when the caller knows: PostgreSQL then reads only the end of the range), newest
  first, and the frames behind their keys; match_count_ranked: counted and ranked at once;
  match_count_newest: counted, with the newest of those another query does not match (one scan
  on PostgreSQL; None on SQLite, where match_newest reads them when a page needs them).
- vocab_starting, vocab_containing: the vocabulary's words that start with, or contain, a word.
- rows_write, row_delete, rows_delete, vocab_forget, range_scrub: the writes of indexing and
  deletion.
- rows_count: how many frames it holds.
- vocab_reset, rebuild_under_way, rebuild_begin, rebuild_write, rebuild_finish, periods_in,
  periods_outdated: the rebuild of a period (`manage.py reindex --fts`, compaction).
"""

from types import ModuleType

from django.db import connection


def keyword_index(vendor: str | None = None) -> ModuleType:
    """The implementation for this database (the default connection's unless named)."""
    if (vendor or connection.vendor) == "postgresql":
        from search import pg_fts

        return pg_fts
    from search import fts

    return fts
