from django.db import migrations

from search.fts import VOCAB_CREATE_SQL, VOCAB_DROP_SQL

# Filled as frames are indexed; `manage.py reindex --fts` fills it for frames indexed before.


class Migration(migrations.Migration):
    dependencies = [("search", "0002_partition_layout")]
    operations = [migrations.RunSQL(VOCAB_CREATE_SQL, VOCAB_DROP_SQL)]
