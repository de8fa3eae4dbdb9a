# OCR lines are stored packed (frames.text.lines_pack) in lines_packed; the JSON column keeps
# its name in the database ("lines") and holds the lines of rows written before, until
# `manage.py compact` packs them. State only for the rename: no table is rebuilt.

import frames.models
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("frames", "0009_frame_image_base"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RenameField(model_name="ocrresult", old_name="lines", new_name="lines_json"),
                migrations.AlterField(
                    model_name="ocrresult",
                    name="lines_json",
                    field=models.JSONField(db_column="lines", default=list, encoder=frames.models.CompactJSONEncoder),
                ),
            ],
            database_operations=[],
        ),
        migrations.AddField(
            model_name="ocrresult",
            name="lines_packed",
            field=models.BinaryField(blank=True, null=True),
        ),
    ]
