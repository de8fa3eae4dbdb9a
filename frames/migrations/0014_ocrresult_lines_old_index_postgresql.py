# On PostgreSQL, the partial index of OCR rows whose lines are in an older form (JSON, or packed in
# form 1), as migration 0013 makes on SQLite: such rows come from a memory copied from SQLite
# (`manage.py copy_from_sqlite`), and the worker looks for them at each start; with the index that
# reads an empty index, not every row. The condition is frames.selectors.LINES_OLD_WHERE_POSTGRESQL.
from django.db import migrations

from myrecall.migration_sql import sql_on

INDEX = "frames_ocrresult_lines_old"
WHERE = "(lines_packed IS NULL AND lines <> '[]'::jsonb) OR substr(lines_packed, 1, 1) = '\\x78'::bytea"


class Migration(migrations.Migration):
    dependencies = [("frames", "0013_ocrresult_lines_old_index")]
    operations = [
        sql_on(
            "postgresql",
            [f'CREATE INDEX IF NOT EXISTS "{INDEX}" ON "frames_ocrresult" ("frame_id") WHERE {WHERE}'],
            [f'DROP INDEX IF EXISTS "{INDEX}"'],
        )
    ]
