from django.db import migrations

from myrecall.migration_sql import sql_on
from search.fts import VOCAB_CREATE_SQL, VOCAB_DROP_SQL

# Filled as frames are indexed; `manage.py reindex --fts` fills it for frames indexed before. On
# PostgreSQL the vocabulary is made with the rest of its keyword index (0008).


class Migration(migrations.Migration):
    dependencies = [("search", "0002_partition_layout")]
    operations = [sql_on("sqlite", VOCAB_CREATE_SQL, VOCAB_DROP_SQL)]
