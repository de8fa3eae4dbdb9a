from django.db import migrations

from myrecall.migration_sql import sql_on
from search.pg_fts import TIME_BLOCKS_SQL, TIME_BLOCKS_UNDO_SQL

# PostgreSQL's keyword index: blocks of 2, 4 and 8 hours as lexemes of each row beside its day and
# hour, so that a range asks the word index for fewer entries (search.pg_fts says why). Nothing on
# SQLite.


class Migration(migrations.Migration):
    dependencies = [("search", "0009_postgresql_time_lexemes")]
    operations = [sql_on("postgresql", TIME_BLOCKS_SQL, TIME_BLOCKS_UNDO_SQL)]
