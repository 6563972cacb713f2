"""gmtags/history/store.py: saves into a chat's current snapshot (`edit_current`), and the
`created` column an older file gains on opening."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from gmtags import Snapshot
from gmtags.history.fingerprint import fingerprint
from gmtags.history.records import HistoryError
from gmtags.history.store import HistoryStore
from gmtags.state.saves import StaleRevision, save_party_sheet

START = Snapshot()
ONE = Snapshot.model_validate({"rulesetClocks": [{"name": "Dawn", "size": 4, "filled": 1}]})


def _with_card(snapshot: Snapshot) -> Snapshot:
    return Snapshot.model_validate({**snapshot.to_json_dict(), "gameCharacterCards": {"Ilse": {}}})


class TestEditCurrent:
    def test_at_the_start_the_start_changes(self, store: HistoryStore) -> None:
        """A chat with no reply: the save is what its first reply will start from."""
        store.ensure_chat("c", START)
        saved = store.edit_current("c", _with_card)
        assert store.current("c") == saved == store.start("c")
        assert "Ilse" in saved.game_character_cards

    def test_the_current_reply_keeps_the_save(self, store: HistoryStore) -> None:
        """At a reply, the reply's snapshot after changes; its sibling swipe is untouched."""
        store.ensure_chat("c", START)
        first = store.add_node("c", None, START, ONE, fingerprint("a"), 1, current=False)
        second = store.add_node("c", None, START, ONE, fingerprint("b"), 2, current=True)
        saved = store.edit_current("c", _with_card)
        assert store.current("c") == saved
        assert store.snapshot(store.node(second.id).after) == saved
        assert store.snapshot(store.node(first.id).after) == ONE
        assert store.start("c") == START

    def test_a_refused_change_writes_nothing(self, store: HistoryStore) -> None:
        """A stale party save raises inside the transaction: the chat is as it was."""
        store.ensure_chat("c", START)
        with pytest.raises(StaleRevision) as raised:
            store.edit_current("c", lambda s: save_party_sheet(s, {"fields": {}}, 3))
        assert raised.value.latest == START and raised.value.revision == 0
        assert store.current("c") == START

    def test_the_revision_rises_with_each_save(self, store: HistoryStore) -> None:
        store.ensure_chat("c", START)
        for revision in range(3):
            store.edit_current("c", lambda s, r=revision: save_party_sheet(s, {"fields": {}}, r))
        assert store.current("c").game_party_sheet_revision == 3  # type: ignore[union-attr]

    def test_an_unknown_chat_is_refused(self, store: HistoryStore) -> None:
        with pytest.raises(HistoryError, match="not in the store"):
            store.edit_current("nobody", _with_card)

    def test_vacuum_keeps_edited_snapshots(self, store: HistoryStore) -> None:
        """The snapshot a save replaced stays readable in `edits`."""
        store.ensure_chat("c", START)
        store.edit_current("c", _with_card)
        store.vacuum_snapshots()
        assert store.snapshot(store.start_name("c")) == _with_card(START)


def test_an_older_file_gains_created(tmp_path: Path) -> None:
    """A file made before `nodes.created` opens, keeps its nodes, and dates new ones."""
    path = tmp_path / "old.sqlite"
    with HistoryStore(path) as store:
        store.ensure_chat("c", START)
        old = store.add_node("c", None, START, ONE, fingerprint("a"), 1, current=True)
    db = sqlite3.connect(path)
    db.execute("ALTER TABLE nodes DROP COLUMN created")
    db.execute("DROP TABLE schema_version")  # as old as the column: made before versions
    db.commit()
    db.close()
    with HistoryStore(path) as store:
        assert store.node(old.id).created is None
        new = store.add_node("c", old.id, ONE, ONE, fingerprint("b"), 2, current=True)
        assert store.node(new.id).created is not None
