from django.db import migrations, models


class Migration(migrations.Migration):
    """Each frame keeps what search by meaning weighs its chunks by (search.relevance)."""

    dependencies = [
        ("search", "0005_frame_vectors_by_embedder"),
    ]

    operations = [
        migrations.AddField(
            model_name="framevectors",
            name="relevance",
            field=models.BinaryField(blank=True, default=None, null=True),
        ),
    ]
