# Which version of frames.reading read a frame, so that `manage.py reocr` can read again the frames
# an older reader read. Rows there are were read by the first (detection at 960 pixels).
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("frames", "0014_ocrresult_lines_old_index_postgresql")]
    operations = [
        migrations.AddField(
            model_name="ocrresult",
            name="reader",
            field=models.PositiveSmallIntegerField(
                default=1, help_text="The version of frames.reading that read the frame (1: the reader before versions)."
            ),
        ),
    ]
