from django.db import migrations

from myrecall.migration_sql import sql_on
from search.pg_fts import TIME_LEXEMES_SQL, TIME_LEXEMES_UNDO_SQL

# PostgreSQL's keyword index: each row's tsvector gets the day and hour of its frame as lexemes of
# their own, which a search ANDs with its words, in place of a b-tree on the time (search.pg_fts
# says why). Nothing on SQLite.


class Migration(migrations.Migration):
    dependencies = [("search", "0008_postgresql_keyword_index")]
    operations = [sql_on("postgresql", TIME_LEXEMES_SQL, TIME_LEXEMES_UNDO_SQL)]
