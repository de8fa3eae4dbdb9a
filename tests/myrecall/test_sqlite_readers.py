"""The database file reads with any SQLite from 3.40 on, such as Python's own sqlite3 and Debian 12's
`sqlite3` command, not only with the newer SQLite MyRecall runs on (myrecall/sqlite.py): nothing
stored in its schema (indexes, checks, triggers) calls a function an older SQLite lacks, so such a
SQLite can check the file and write its rows. (The keyword index's tables are FTS5 tables that
need SQLite 3.45: the README says how to read those with the SQLite in .venv.)"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

from frames.selectors import ocr_text_old

REPO = Path(__file__).resolve().parents[2]
TEXT = "Quarterly budget review, invoice 2026 and the dentist's reply " * 3  # long enough to pack

# Run by `manage.py shell` (the project's SQLite): a database as a user has it, with a frame read.
MAKE = """
from datetime import datetime, timezone
from django.core.management import call_command
from django.db import connection
from django.db.migrations.loader import MigrationLoader
{before}
from frames.models import OcrResult
# The frame as the database has it (an install from before migration frames 0017 lacks a column).
loader = MigrationLoader(connection)
Frame = loader.project_state(max(key for key in loader.applied_migrations if key[0] == "frames")).apps.get_model("frames", "Frame")
frame = Frame.objects.create(
    timestamp=datetime(2026, 3, 2, 9, tzinfo=timezone.utc), image_path="x/0.webp", width=10, height=10, image_bytes=1
)
OcrResult.objects.create(frame_id=frame.id, engine="test", text={text!r}, lines=[])
call_command("migrate", verbosity=0)
"""
# Run by a plain Python, whose `sqlite3` is the standard library's.
CHECK = """
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
checks = [db.execute("PRAGMA integrity_check").fetchall()]
# A write of an OCR row evaluates each of its indexes' conditions: the text stored plain, as
# MyRecall before packing wrote it.
db.execute("UPDATE frames_ocrresult SET text = ?", [sys.argv[2]])
db.commit()
checks.append(db.execute("PRAGMA integrity_check").fetchall())
print(json.dumps({"sqlite": sqlite3.sqlite_version, "module": sqlite3.__file__, "checks": checks}))
"""


def _run(args: list[str], env: dict) -> str:
    done = subprocess.run(args, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.sqlite_only
@pytest.mark.parametrize(
    "before",
    [
        "",  # a new install: every migration at once
        'call_command("migrate", "frames", "0015", verbosity=0)',  # an install from before migration frames 0016
    ],
    ids=["fresh", "upgraded"],
)
def test_pythons_own_sqlite_checks_and_writes_the_database(tmp_path, before):
    env = {key: value for key, value in os.environ.items() if key not in ("DATABASE_URL", "REDIS_URL", "CHROMA_URL", "CHROMA_TOKEN")}
    env["MYRECALL_DATA_DIR"] = str(tmp_path)
    if not before:
        _run([sys.executable, "manage.py", "migrate", "--verbosity", "0"], env)
    _run([sys.executable, "manage.py", "shell", "-c", MAKE.format(before=before, text=TEXT)], env)
    found = json.loads(_run([sys.executable, "-c", CHECK, str(tmp_path / "myrecall.sqlite3"), TEXT], env))
    assert "sqlean" not in found["module"]
    assert found["checks"] == [[["ok"]], [["ok"]]], found


@pytest.mark.sqlite_only
@pytest.mark.django_db
def test_rows_still_to_pack_are_found_through_their_index():
    """ocr_text_old asks with the condition of the partial index frames_ocrresult_text_unpacked,
    so that SQLite reads the index (empty once every text is packed), not every OCR row."""
    where = ocr_text_old().query.where.children[0].sqls[0]
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN QUERY PLAN SELECT frame_id FROM frames_ocrresult WHERE {where}")
        plan = " ".join(str(row) for row in cursor.fetchall())
    assert "frames_ocrresult_text_unpacked" in plan
