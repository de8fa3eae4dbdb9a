from django.db import migrations

from search.fts import CREATE_SQL, DROP_SQL


class Migration(migrations.Migration):
    initial = True
    dependencies = [("frames", "0001_initial")]
    operations = [migrations.RunSQL(CREATE_SQL, DROP_SQL)]
