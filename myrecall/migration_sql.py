"""A migration step of SQL for one database only: the keyword index (FTS5 or PostgreSQL's
full-text search) and a few indexes differ between SQLite and PostgreSQL."""

from django.db import migrations


def sql_on(vendor: str, forward: list[str], backward: list[str]) -> migrations.RunPython:
    """Run `forward` (migrating) or `backward` (unmigrating) on the database `vendor`
    ("sqlite", "postgresql") only; nothing on the other."""

    def step(statements):
        def run(apps, schema_editor) -> None:
            if schema_editor.connection.vendor == vendor:
                for statement in statements:
                    schema_editor.execute(statement)

        return run

    return migrations.RunPython(step(forward), step(backward))
