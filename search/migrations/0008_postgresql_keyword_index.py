from django.db import migrations

from search.pg_fts import CREATE_SQL, DROP_SQL

# The keyword index on PostgreSQL (search.pg_fts): its partitioned table and its vocabulary with a
# pg_trgm index. Nothing on SQLite, whose FTS5 partitions are made as frames are indexed (search.fts).


def _run(statements):
    def run(apps, schema_editor) -> None:
        if schema_editor.connection.vendor == "postgresql":
            for statement in statements:
                schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [("search", "0007_partition_spill")]
    operations = [migrations.RunPython(_run(CREATE_SQL), _run(DROP_SQL))]
