"""gmtags/history/schema.py: the store's versioned migrations, never destructive."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from gmtags import Snapshot
from gmtags.history.fingerprint import fingerprint
from gmtags.history.records import HistoryError
from gmtags.history.schema import LATEST, PARTS
from gmtags.history.snapshots import canonical_json, snapshot_hash
from gmtags.history.store import HistoryStore
from tests.history.test_parts import built_card

OLD_SCHEMA = """
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
"""The store's tables as gmtags wrote them before schema versions (commit f50b3c1): every
snapshot a full canonical JSON body."""

START = Snapshot.model_validate(
    {
        "gameCharacterCards": {"Élise": built_card(), "Ada": {"abilities": {"str": 3}}},
        "rulesetLive": {"elise": {"tracks": {"stress": 2}}},
    }
)
AFTER = Snapshot.model_validate(
    {**START.to_json_dict(), "rulesetClocks": [{"name": "Dawn", "size": 4, "filled": 1}]}
)


@pytest.fixture
def old_file(tmp_path: Path) -> Path:
    """A store file as the code before versions wrote it: a chat, one node, full bodies."""
    path = tmp_path / "old.sqlite"
    print_ = fingerprint("The road is dark.")
    with sqlite3.connect(path) as raw:
        raw.executescript(OLD_SCHEMA)
        raw.executemany(
            "INSERT INTO snapshots(name, body) VALUES (?, ?)",
            [(snapshot_hash(s), canonical_json(s.to_json_dict())) for s in (START, AFTER)],
        )
        raw.execute(
            "INSERT INTO histories(chat_id, start, current) VALUES ('c', ?, 1)",
            (snapshot_hash(START),),
        )
        raw.execute(
            "INSERT INTO nodes(id, chat_id, parent, kind, seed, before, after, key, tail, size,"
            " text, created) VALUES (1, 'c', NULL, 'turn', 7, ?, ?, ?, ?, ?, ?, 1.5)",
            (
                snapshot_hash(START),
                snapshot_hash(AFTER),
                print_.key,
                print_.tail,
                print_.size,
                print_.text,
            ),
        )
    return path


def _layouts(path: Path) -> dict[str, int]:
    with sqlite3.connect(path) as raw:
        return {str(n): int(k) for n, k in raw.execute("SELECT name, layout FROM snapshots")}


class TestMigrate:
    def test_an_old_file_opens_and_reads_the_same(self, old_file: Path) -> None:
        """A file of full bodies opens at the latest version with its chat, node and snapshots
        read exactly as the full bodies read."""
        with HistoryStore(old_file) as store:
            assert store.start("c") == START and store.current("c") == AFTER
            node = store.node(1)
            assert (node.seed, node.created, node.fingerprint.text) == (7, 1.5, "The road is dark.")
            full = Snapshot.model_validate(json.loads(canonical_json(AFTER.to_json_dict())))
            assert store.snapshot(node.after).to_json() == full.to_json()
            assert store.exact(fingerprint("The road is dark.").key, "c", 5)[0].id == 1
        with sqlite3.connect(old_file) as raw:
            assert raw.execute("SELECT version FROM schema_version").fetchall() == [(LATEST,)]
            assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"

    def test_old_rows_stay_and_new_writes_use_parts(self, old_file: Path) -> None:
        """Migrating rewrites no stored snapshot; a snapshot written after it is a manifest,
        and one already stored in full is not written again."""
        later = Snapshot.model_validate({**AFTER.to_json_dict(), "gamePartySheetRevision": 1})
        with HistoryStore(old_file) as store:
            store.add_node("c", 1, AFTER, later, fingerprint("More."), 8, current=True)
            assert store.current("c") == later
        layouts = _layouts(old_file)
        assert layouts[snapshot_hash(START)] == layouts[snapshot_hash(AFTER)] == 1
        assert layouts[snapshot_hash(later)] == PARTS
        with HistoryStore(old_file) as store:
            assert store.snapshot(snapshot_hash(later)) == later

    def test_opening_again_changes_nothing(self, old_file: Path) -> None:
        """A file at the latest version is not migrated again: reopening keeps every row."""
        with HistoryStore(old_file) as store:
            store.add_node("c", 1, AFTER, START, fingerprint("Back."), 9, current=True)
        before = _layouts(old_file)
        with HistoryStore(old_file) as store:
            assert len(store.nodes("c")) == 2
        assert _layouts(old_file) == before

    def test_a_newer_file_is_refused(self, tmp_path: Path) -> None:
        """A file at a version this gmtags does not know is refused with a clear error."""
        path = tmp_path / "new.sqlite"
        HistoryStore(path).close()
        with sqlite3.connect(path) as raw:
            raw.execute("UPDATE schema_version SET version = ?", (LATEST + 1,))
        with pytest.raises(HistoryError, match="schema version"):
            HistoryStore(path)

    def test_two_stores_opening_one_new_file_migrate_it_once(self, tmp_path: Path) -> None:
        """A second store opened on a file the first just made finds it migrated."""
        path = tmp_path / "twice.sqlite"
        with HistoryStore(path) as one, HistoryStore(path) as two:
            one.ensure_chat("c", START)
            assert two.start("c") == START
        with sqlite3.connect(path) as raw:
            assert raw.execute("SELECT COUNT(*) FROM schema_version").fetchone()[0] == 1

    def test_vacuum_on_a_migrated_file(self, old_file: Path) -> None:
        """Vacuum drops an unreferenced full body and the parts only an unreferenced manifest
        held; what a chat or node names stays readable."""
        lone = Snapshot.model_validate({"gameCharacterCards": {"Zed": built_card()}})
        with sqlite3.connect(old_file) as raw:
            raw.execute(
                "INSERT INTO snapshots(name, body) VALUES ('orphan', ?)",
                (canonical_json(START.to_json_dict()),),
            )
        with HistoryStore(old_file) as store:
            store.abandon(store.reserve("c", 1, "turn", lone))
            assert store.vacuum_snapshots() == 2
            assert store.current("c") == AFTER and store.start("c") == START
        with sqlite3.connect(old_file) as raw:
            assert raw.execute("SELECT COUNT(*) FROM snapshot_parts").fetchone()[0] == 0


def back_to(store: HistoryStore, version: int, column: str) -> None:
    """Make `store` one of schema `version`: the column that version added taken out."""
    with store.database.writing() as db:
        db.execute(f"ALTER TABLE nodes DROP COLUMN {column}")
        db.execute(f"UPDATE schema_version SET version = {version}")


def version_of(store: HistoryStore) -> int:
    with store.database.reading() as db:
        found: int = db.execute("SELECT MAX(version) FROM schema_version").fetchone()[0]
    return found


class TestVersion4:
    def test_applied_is_added_to_a_version_3_store(self, store_path: str) -> None:
        """Schema 4 adds `nodes.applied` to a store of version 3 (SQLite and PostgreSQL); its
        nodes read as they did, their receipts their fingerprint's."""
        receipt = '[clock: name="Dawn" tick="1" result="ok" now="1/4"]'
        with HistoryStore(store_path) as store:
            store.ensure_chat("c", START)
            node = store.reserve("c", None, "turn", START)
            done = store.complete(node, AFTER, fingerprint(receipt), current=True)
            back_to(store, 3, "applied")
        with HistoryStore(store_path) as store:
            assert version_of(store) == LATEST
            again = store.node(done.id)
            assert again.applied == () and again.receipts == (receipt,)
            assert store.snapshot(again.after) == AFTER


class TestVersion5:
    def test_excerpt_is_added_to_a_version_4_store(self, store_path: str) -> None:
        """Schema 5 adds `nodes.excerpt` to a store of version 4 (SQLite and PostgreSQL): its
        nodes read as they did, with no excerpt; a reply stored after names its first words."""
        with HistoryStore(store_path) as store:
            store.ensure_chat("c", START)
            old = store.complete(
                store.reserve("c", None, "turn", START), AFTER, fingerprint("Dusk."), current=True
            )
            back_to(store, 4, "excerpt")
        with HistoryStore(store_path) as store:
            assert version_of(store) == LATEST
            again = store.node(old.id)
            assert again.excerpt == "" and again.fingerprint.text == "Dusk."
            node = store.reserve("c", old.id, "turn", AFTER)
            done = store.complete(node, AFTER, fingerprint("Dawn."), current=True, excerpt="Dawn.")
            assert done.excerpt == "Dawn." and store.node(done.id).excerpt == "Dawn."
            assert [n.excerpt for n in store.nodes("c")] == ["", "Dawn."]
