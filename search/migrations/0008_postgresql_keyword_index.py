from django.db import migrations

from myrecall.migration_sql import sql_on
from search.pg_fts import CREATE_SQL, DROP_SQL

# The keyword index on PostgreSQL (search.pg_fts): its partitioned table and its vocabulary with a
# pg_trgm index. Nothing on SQLite, whose FTS5 partitions are made as frames are indexed (search.fts).


class Migration(migrations.Migration):
    dependencies = [("search", "0007_partition_spill")]
    operations = [sql_on("postgresql", CREATE_SQL, DROP_SQL)]
