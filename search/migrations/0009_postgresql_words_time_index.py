from django.db import migrations

from myrecall.migration_sql import sql_on
from search.pg_fts import WORDS_TIME_SQL, WORDS_TIME_UNDO_SQL

# PostgreSQL's keyword index: one GIN index on the words and the time together in place of a GIN on
# the words and a b-tree on the time (search.pg_fts.WORDS_TIME_SQL says why). Nothing on SQLite.


class Migration(migrations.Migration):
    dependencies = [("search", "0008_postgresql_keyword_index")]
    operations = [sql_on("postgresql", WORDS_TIME_SQL, WORDS_TIME_UNDO_SQL)]
