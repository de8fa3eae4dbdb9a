"""The one module that chooses the SQLite library: sqlean.py, a build of SQLite 3.50 with FTS5
and dbstat, in place of the one Python was linked with (3.40 on Debian 12, older elsewhere).

The keyword index needs FTS5's contentless tables that delete rows by rowid (SQLite 3.43) and
keep an unindexed column (3.45): the text is then kept once, in the OCR rows, not a second time
in the index. Imported first by the settings, it stands in for `sqlite3` before Django's backend,
Chroma or the archive import it, so every part of one process uses the same library.
"""

import sys

import sqlean
import sqlean.dbapi2

sys.modules["sqlite3"] = sqlean
sys.modules["sqlite3.dbapi2"] = sqlean.dbapi2

VERSION = sqlean.sqlite_version_info
