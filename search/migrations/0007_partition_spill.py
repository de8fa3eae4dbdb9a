from django.db import migrations

from search.fts import REGISTRY

# From layout 4 a partition's rowids count seconds; a frame whose second is full takes a slot of a
# later one, and the partition records the most seconds a row was moved (search.fts). Partitions
# of older layouts keep 0 until the worker or `manage.py compact` rebuilds them in layout 4.
COLUMNS = {"spill": "integer NOT NULL DEFAULT 0", "build_spill": "integer NOT NULL DEFAULT 0"}


class Migration(migrations.Migration):
    dependencies = [("search", "0006_frame_vectors_relevance")]
    operations = [
        migrations.RunSQL(
            f"ALTER TABLE {REGISTRY} ADD COLUMN {name} {kind}", f"ALTER TABLE {REGISTRY} DROP COLUMN {name}"
        )
        for name, kind in COLUMNS.items()
    ]
