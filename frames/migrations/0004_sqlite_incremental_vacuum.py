"""A database made before deletions existed has no auto-vacuum: convert it once (a VACUUM,
which rewrites the file: a minute or so for a few GB), so deleted frames give space back."""

from django.db import migrations


def incremental_vacuum_on(apps, schema_editor):
    connection = schema_editor.connection
    if connection.vendor != "sqlite":
        return
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA auto_vacuum")
        if cursor.fetchone()[0] == 2:
            return
        cursor.execute("PRAGMA auto_vacuum=INCREMENTAL")
        cursor.execute("VACUUM")


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("frames", "0003_frame_deletion")]

    operations = [migrations.RunPython(incremental_vacuum_on, migrations.RunPython.noop, elidable=True)]
