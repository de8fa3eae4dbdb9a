from django.db import migrations

from search.pg_fts import WORDS_TIME_SQL, WORDS_TIME_UNDO_SQL

# PostgreSQL's keyword index: one GIN index on the words and the time together in place of a GIN on
# the words and a b-tree on the time (search.pg_fts.WORDS_TIME_SQL says why). Nothing on SQLite.


def _run(statements):
    def run(apps, schema_editor) -> None:
        if schema_editor.connection.vendor == "postgresql":
            for statement in statements:
                schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [("search", "0008_postgresql_keyword_index")]
    operations = [migrations.RunPython(_run(WORDS_TIME_SQL), _run(WORDS_TIME_UNDO_SQL))]
