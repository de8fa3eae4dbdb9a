# OCR text is stored compressed (frames.models.PackedTextField) and its length in characters is
# kept beside it (text_length, which the filters by length read).
#
# On SQLite neither step rebuilds the table, which Django would do twice (for a column with a
# default, and for the new field class): text_length comes by ALTER TABLE ADD COLUMN with a
# default, and is filled in one UPDATE while every text is still plain (length() counts
# characters); the text column keeps its TEXT type, in which SQLite stores the packed bytes as
# they are. A partial index lists the rows still to compress (typeof(text) = 'text', long enough
# to pack: frames.selectors.ocr_text_old), which the worker compresses in the background (or
# `manage.py compact` at once); once they are done it is empty. Other databases get the column
# the usual way and the text column as bytes.

import frames.models
from django.db import migrations, models
from frames.text import text_unpack

TABLE = "frames_ocrresult"
UNPACKED_INDEX = "frames_ocrresult_text_unpacked"


def _text_length_field():
    field = models.PositiveIntegerField(default=0)
    field.set_attributes_from_name("text_length")
    return field


def text_length_add(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        schema_editor.execute(
            f'ALTER TABLE "{TABLE}" ADD COLUMN "text_length" integer unsigned NOT NULL DEFAULT 0 CHECK ("text_length" >= 0)'
        )
    else:
        schema_editor.add_field(apps.get_model("frames", "OcrResult"), _text_length_field())
    function = "length" if schema_editor.connection.vendor in ("sqlite", "postgresql") else "char_length"
    schema_editor.execute(f'UPDATE "{TABLE}" SET "text_length" = {function}("text") WHERE "text" <> \'\'')


def text_length_remove(apps, schema_editor):
    schema_editor.remove_field(apps.get_model("frames", "OcrResult"), _text_length_field())


def text_packed(apps, schema_editor):
    connection = schema_editor.connection
    if connection.vendor == "sqlite":
        schema_editor.execute(
            f'CREATE INDEX "{UNPACKED_INDEX}" ON "{TABLE}" ("frame_id") '
            "WHERE typeof(\"text\") = 'text' AND octet_length(\"text\") >= 64"
        )
    elif connection.vendor == "postgresql":
        schema_editor.execute(
            f'ALTER TABLE "{TABLE}" ALTER COLUMN "text" TYPE bytea USING \'\\x00\'::bytea || convert_to("text", \'UTF8\')'
        )
    else:  # the text's UTF-8 without a tag, which frames.text.text_unpack reads
        model = apps.get_model("frames", "OcrResult")
        new = frames.models.PackedTextField(blank=True, default="")
        new.set_attributes_from_name("text")
        schema_editor.alter_field(model, model._meta.get_field("text"), new)


def text_unpacked(apps, schema_editor):
    """Back to plain text: every packed row is written as text again, a thousand at a time."""
    connection = schema_editor.connection
    if connection.vendor == "sqlite":
        schema_editor.execute(f'DROP INDEX IF EXISTS "{UNPACKED_INDEX}"')
    packed = "typeof(text) = 'blob'" if connection.vendor == "sqlite" else "1 = 1"
    tag = b"\x00" if connection.vendor == "postgresql" else b""  # read by the ALTER below
    after = -1
    with connection.cursor() as cursor:
        while True:
            cursor.execute(f"SELECT frame_id, text FROM {TABLE} WHERE {packed} AND frame_id > %s ORDER BY frame_id LIMIT 1000", [after])
            rows = cursor.fetchall()
            if not rows:
                break
            after = rows[-1][0]
            texts = [(text_unpack(bytes(stored)), frame_id) for frame_id, stored in rows]
            if connection.vendor != "sqlite":
                texts = [(tag + text.encode(), frame_id) for text, frame_id in texts]
            cursor.executemany(f"UPDATE {TABLE} SET text = %s WHERE frame_id = %s", texts)
    if connection.vendor == "postgresql":
        schema_editor.execute(f'ALTER TABLE "{TABLE}" ALTER COLUMN "text" TYPE text USING convert_from(substring("text" from 2), \'UTF8\')')
    elif connection.vendor != "sqlite":
        model = apps.get_model("frames", "OcrResult")
        old = models.TextField(blank=True, default="")
        old.set_attributes_from_name("text")
        schema_editor.alter_field(model, model._meta.get_field("text"), old)


class Migration(migrations.Migration):

    dependencies = [
        ("frames", "0010_ocrresult_lines_packed"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AddField(
                    model_name="ocrresult",
                    name="text_length",
                    field=models.PositiveIntegerField(default=0, help_text="Characters in the text."),
                ),
            ],
            database_operations=[migrations.RunPython(text_length_add, text_length_remove)],
        ),
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="ocrresult",
                    name="text",
                    field=frames.models.PackedTextField(blank=True, default=""),
                ),
            ],
            database_operations=[migrations.RunPython(text_packed, text_unpacked)],
        ),
    ]
