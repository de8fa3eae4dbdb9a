# OCR lines are packed in a binary form (form 2 of frames.text, about 0.44x form 1). Rows in an
# older form (JSON, or form 1) are packed again by the worker in the background, or at once by
# `manage.py compact`; on SQLite this partial index lists them (the condition of
# frames.selectors.LINES_OLD_WHERE), so that finding them does not read every row. Once they are
# done it is empty.
from django.db import migrations

from myrecall.migration_sql import sql_on

INDEX = "frames_ocrresult_lines_old"
WHERE = "(lines_packed IS NULL AND lines <> '[]') OR substr(lines_packed, 1, 1) = x'78'"


class Migration(migrations.Migration):
    dependencies = [("frames", "0012_frame_signature")]
    operations = [
        sql_on(
            "sqlite",
            [f'CREATE INDEX "{INDEX}" ON "frames_ocrresult" ("frame_id") WHERE {WHERE}'],
            [f'DROP INDEX IF EXISTS "{INDEX}"'],
        )
    ]
