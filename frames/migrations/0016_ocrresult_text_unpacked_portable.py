# The partial index of 0011 (frames_ocrresult_text_unpacked: rows whose text is still plain though
# long enough to pack) measured the text with octet_length(), which SQLite has only since 3.43: an
# older SQLite, such as Debian 12's `sqlite3` (3.40) or the one Python was linked with there, could
# then neither check the database (`PRAGMA integrity_check`: "unknown function: octet_length()")
# nor write an OCR row. length(CAST(text AS BLOB)) is the same count, its UTF-8 bytes, in every
# SQLite; frames.selectors.ocr_text_old asks with the same expression, so that it reads the index.
from django.db import migrations

from myrecall.migration_sql import sql_on

INDEX = "frames_ocrresult_text_unpacked"
CREATE = f'CREATE INDEX "{INDEX}" ON "frames_ocrresult" ("frame_id") WHERE typeof("text") = \'text\' AND {{size}} >= 64'


class Migration(migrations.Migration):
    dependencies = [("frames", "0015_ocrresult_reader")]
    operations = [
        sql_on(
            "sqlite",
            [f'DROP INDEX IF EXISTS "{INDEX}"', CREATE.format(size='length(CAST("text" AS BLOB))')],
            [f'DROP INDEX IF EXISTS "{INDEX}"', CREATE.format(size='octet_length("text")')],
        )
    ]
