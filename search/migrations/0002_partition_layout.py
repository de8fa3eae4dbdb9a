from django.db import migrations

from search.fts import REGISTRY

# Partitions made before this migration have layout 1 (no `parts` column) until
# `manage.py reindex --fts` rebuilds them; search reads both layouts meanwhile.
COLUMNS = {
    "layout": "integer NOT NULL DEFAULT 1",
    "build_layout": "integer",
    "build_after_ts": "text",  # where a rebuild has got to: the last frame done, by (timestamp, id)
    "build_after_id": "integer",
}


class Migration(migrations.Migration):
    dependencies = [("search", "0001_fts")]
    operations = [
        migrations.RunSQL(
            f"ALTER TABLE {REGISTRY} ADD COLUMN {name} {kind}", f"ALTER TABLE {REGISTRY} DROP COLUMN {name}"
        )
        for name, kind in COLUMNS.items()
    ]
