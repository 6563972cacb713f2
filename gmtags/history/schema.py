"""The history store's tables and their versioned migrations (SPEC §7.1, §12).

A store file records the version of its schema in `schema_version` (one row).
Opening a file applies, in order and each in one transaction, every migration
past its version; a file older than the table (made before it existed) is at
version 0. Migrations only add (tables, columns, indexes): never destructive,
so a file written by any earlier gmtags opens and reads the same. A file of a
later version than this gmtags knows is refused rather than misread.

The statements are plain SQL a PostgreSQL store can share (issue 17): tables,
columns with defaults, indexes. `WITHOUT ROWID` (a SQLite storage choice for
`snapshots`) is the one SQLite-only clause, kept from version 1; whether a
table has a column is read from `PRAGMA table_info` (`information_schema` on
PostgreSQL), and a new part's id from the cursor (`RETURNING id` there).

Versions:
1. The first store: `snapshots(name, body)` with full canonical JSON bodies,
   `histories`, `nodes` (with `created`, added to older files), `edits`.
2. Snapshots as shared parts (`gmtags.history.parts`): `snapshot_parts(id,
   hash, body)` (each part once by the sha256 of its canonical JSON, its body
   zlib-compressed UTF-8) and `snapshots.layout` (1: `body` is the snapshot's
   canonical JSON, as every row a version 1 file holds; 2: `body` is a
   manifest of part ids). New snapshots are written in layout 2.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from gmtags.history.records import HistoryError

VERSION_1 = """
CREATE TABLE IF NOT EXISTS snapshots (
    name TEXT PRIMARY KEY,
    body TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS histories (
    chat_id TEXT PRIMARY KEY,
    start TEXT NOT NULL REFERENCES snapshots(name),
    current INTEGER
);
CREATE TABLE IF NOT EXISTS nodes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id TEXT NOT NULL,
    parent INTEGER,
    kind TEXT NOT NULL,
    seed INTEGER,
    before TEXT NOT NULL REFERENCES snapshots(name),
    after TEXT REFERENCES snapshots(name),
    key TEXT,
    tail TEXT,
    size INTEGER,
    receipts TEXT,
    text TEXT,
    created REAL
);
CREATE TABLE IF NOT EXISTS edits (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id TEXT NOT NULL,
    node INTEGER,
    old TEXT NOT NULL REFERENCES snapshots(name),
    new TEXT NOT NULL REFERENCES snapshots(name),
    created REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS nodes_key ON nodes(key, chat_id, id);
CREATE INDEX IF NOT EXISTS nodes_tail ON nodes(tail, size);
CREATE INDEX IF NOT EXISTS nodes_parent ON nodes(parent);
CREATE INDEX IF NOT EXISTS nodes_chat ON nodes(chat_id, id);
"""

VERSION_2 = """
CREATE TABLE IF NOT EXISTS snapshot_parts (
    id INTEGER PRIMARY KEY,
    hash TEXT NOT NULL UNIQUE,
    body BLOB NOT NULL
);
"""

FULL = 1
"""`snapshots.layout`: `body` is the snapshot's canonical JSON."""
PARTS = 2
"""`snapshots.layout`: `body` is a manifest of `snapshot_parts` ids."""


def _version_1(db: sqlite3.Connection) -> None:
    _run(db, VERSION_1)
    _add_column(db, "nodes", "created", "REAL")  # files made before nodes were dated


def _version_2(db: sqlite3.Connection) -> None:
    _run(db, VERSION_2)
    _add_column(db, "snapshots", "layout", f"INTEGER NOT NULL DEFAULT {FULL}")


def _add_column(db: sqlite3.Connection, table: str, column: str, declared: str) -> None:
    """Add a column unless the table has it (each migration can run on any older file)."""
    columns = {str(row[1]) for row in db.execute(f"PRAGMA table_info({table})")}
    if column not in columns:
        db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declared}")


def _run(db: sqlite3.Connection, script: str) -> None:
    """Each statement of `script` inside the open transaction (`executescript` would commit)."""
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (_version_1, _version_2)
"""Migration n + 1 takes a file from version n to n + 1."""
LATEST = len(MIGRATIONS)


def migrate(db: sqlite3.Connection) -> int:
    """Bring the open file to `LATEST`, one transaction per version; returns the version it had.

    The version is read again inside each migration's transaction, so two
    processes opening one file at once migrate it once.
    """
    db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    found = _version(db)
    for target in range(found + 1, LATEST + 1):
        db.execute("BEGIN IMMEDIATE")
        try:
            if _version(db) < target:
                MIGRATIONS[target - 1](db)
                db.execute("DELETE FROM schema_version")
                db.execute("INSERT INTO schema_version(version) VALUES (?)", (target,))
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
    return found


def _version(db: sqlite3.Connection) -> int:
    row = db.execute("SELECT MAX(version) FROM schema_version").fetchone()
    version = 0 if row is None or row[0] is None else int(row[0])
    if version > LATEST:
        raise HistoryError(
            f"the history store is at schema version {version}; this gmtags reads up to {LATEST}"
        )
    return version
