# Screen signatures move from every frame to a side table that keeps them only for each device's
# recent frames (frames.models.FrameSignature; ingest compares a new frame with the one before it):
# the signatures of each device's frames within an hour (frames.services.SIGNATURE_KEEP_S) of its
# newest are copied there, compressed (frames.imaging.hash_pack), then the column is dropped
# (ALTER TABLE DROP COLUMN on SQLite: no table is rebuilt).

from datetime import timedelta

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import Max

from frames.imaging import hash_pack

KEEP_S = 3600  # frames.services.SIGNATURE_KEEP_S when this was written


def signatures_copy(apps, schema_editor):
    db = schema_editor.connection.alias
    Frame = apps.get_model("frames", "Frame")
    FrameSignature = apps.get_model("frames", "FrameSignature")
    newest = Frame.objects.using(db).values("device_name").annotate(newest=Max("timestamp")).values_list("device_name", "newest")
    for device_name, moment in newest:
        rows = Frame.objects.using(db).filter(device_name=device_name, timestamp__gte=moment - timedelta(seconds=KEEP_S)).exclude(phash=b"")
        FrameSignature.objects.using(db).bulk_create(
            [
                FrameSignature(frame_id=frame_id, device_name=device_name, timestamp=at, phash=hash_pack(bytes(phash)))
                for frame_id, at, phash in rows.values_list("id", "timestamp", "phash").iterator(chunk_size=2000)
            ],
            batch_size=500,
        )


def signatures_restore(apps, schema_editor):
    """Back: the frames whose signature was kept get it again (the others an empty one)."""
    db = schema_editor.connection.alias
    Frame = apps.get_model("frames", "Frame")
    FrameSignature = apps.get_model("frames", "FrameSignature")
    for frame_id, phash in FrameSignature.objects.using(db).values_list("frame_id", "phash").iterator(chunk_size=2000):
        Frame.objects.using(db).filter(id=frame_id).update(phash=phash)


class Migration(migrations.Migration):

    dependencies = [
        ("frames", "0011_ocrresult_text_packed"),
    ]

    operations = [
        migrations.CreateModel(
            name="FrameSignature",
            fields=[
                (
                    "frame",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="signature",
                        serialize=False,
                        to="frames.frame",
                    ),
                ),
                ("device_name", models.CharField(max_length=255)),
                ("timestamp", models.DateTimeField()),
                ("phash", models.BinaryField(max_length=2048)),
            ],
            options={
                "indexes": [models.Index(fields=["device_name", "timestamp"], name="frames_fram_device__90ee7f_idx")],
            },
        ),
        migrations.RunPython(signatures_copy, signatures_restore),
        # State only, for going back: the column comes back with an empty signature in each row.
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(model_name="frame", name="phash", field=models.BinaryField(default=b"", max_length=2048)),
            ],
        ),
        migrations.RemoveField(
            model_name="frame",
            name="phash",
        ),
    ]
