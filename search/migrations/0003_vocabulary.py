from django.db import migrations

from search.fts import VOCAB_CREATE_SQL, VOCAB_DROP_SQL

# Filled as frames are indexed; `manage.py reindex --fts` fills it for frames indexed before. On
# PostgreSQL the vocabulary is made with the rest of its keyword index (0008).


def _run(statements):
    def run(apps, schema_editor) -> None:
        if schema_editor.connection.vendor == "sqlite":
            for statement in statements:
                schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [("search", "0002_partition_layout")]
    operations = [migrations.RunPython(_run(VOCAB_CREATE_SQL), _run(VOCAB_DROP_SQL))]
