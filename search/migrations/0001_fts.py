from django.db import migrations

from search.fts import REGISTRY_CREATE_SQL, partitions_drop_all


def partitions_drop(apps, schema_editor) -> None:
    with schema_editor.connection.cursor() as cursor:
        partitions_drop_all(cursor)


class Migration(migrations.Migration):
    initial = True
    dependencies = [("frames", "0001_initial")]
    # The keyword index's partitions are created as frames are indexed; only their registry is made here.
    operations = [
        migrations.RunSQL(REGISTRY_CREATE_SQL, migrations.RunSQL.noop),
        migrations.RunPython(migrations.RunPython.noop, partitions_drop),
    ]
