# Which version of frames.reading read a frame, so that `manage.py reocr` can read again the frames
# an older reader read. Rows there are were read by the first (detection at 960 pixels).
#
# On SQLite the column comes by ALTER TABLE ADD COLUMN with a default: Django would rebuild the
# table for a NOT NULL column, which takes minutes at a million frames and drops the partial
# indexes that RunSQL made (frames_ocrresult_lines_old, frames_ocrresult_text_unpacked). Other
# databases get it the usual way (PostgreSQL adds a column with a constant default in place).
from django.db import migrations, models

TABLE = "frames_ocrresult"
HELP = "The version of frames.reading that read the frame (1: the reader before versions)."


def _reader_field():
    field = models.PositiveSmallIntegerField(default=1, help_text=HELP)
    field.set_attributes_from_name("reader")
    return field


def reader_add(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        schema_editor.execute(
            f'ALTER TABLE "{TABLE}" ADD COLUMN "reader" smallint unsigned NOT NULL DEFAULT 1 CHECK ("reader" >= 0)'
        )
    else:
        schema_editor.add_field(apps.get_model("frames", "OcrResult"), _reader_field())


def reader_remove(apps, schema_editor):
    schema_editor.remove_field(apps.get_model("frames", "OcrResult"), _reader_field())


class Migration(migrations.Migration):
    dependencies = [("frames", "0014_ocrresult_lines_old_index_postgresql")]
    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AddField(
                    model_name="ocrresult",
                    name="reader",
                    field=models.PositiveSmallIntegerField(default=1, help_text=HELP),
                ),
            ],
            database_operations=[migrations.RunPython(reader_add, reader_remove)],
        ),
    ]
