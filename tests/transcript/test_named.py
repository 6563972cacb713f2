"""gmtags/transcript/named.py: a chat's snapshots by name, with the data each was named from."""

from __future__ import annotations

import pytest

from gmtags import Snapshot
from gmtags.history.records import History
from gmtags.history.snapshots import SnapshotTable, snapshot_hash
from gmtags.transcript import state
from gmtags.transcript.chat import Chat
from gmtags.transcript.named import NamedSnapshots, StoredSnapshots, storage_form
from tests.conftest import count_snapshot_reads

VEX = {"gameCharacterCards": {"Vex": {"abilities": {"finesse": 2}}}}


class TestNamedSnapshots:
    def test_names_as_the_history_store_names(self, start: Snapshot) -> None:
        """A snapshot's name is its sha256 name (`gmtags.history.snapshots`), its data its
        storage form."""
        table = NamedSnapshots()
        name = table.add(start)
        assert name == snapshot_hash(start) == SnapshotTable().add(start)
        assert table.data(name) == start.to_json_dict()
        assert table[name] is start

    def test_equal_snapshots_are_stored_once(self) -> None:
        """Two objects with the same content share one name and one entry; the first is kept."""
        table = NamedSnapshots()
        first, second = Snapshot.model_validate(VEX), Snapshot.model_validate(VEX)
        assert table.add(first) == table.add(second) == table.add(first)
        assert len(table) == 1 and table[table.add(second)] is first
        assert table.add(Snapshot()) != table.add(first)
        assert len(table) == 2

    def test_only_keeps_the_names_asked_for(self, start: Snapshot) -> None:
        """`only` drops the snapshots no record refers to, data and all."""
        table = NamedSnapshots()
        kept, dropped = table.add(start), table.add(Snapshot())
        only = table.only({kept})
        assert list(only) == [kept] and dropped not in only
        assert only.data(kept) == start.to_json_dict()


class TestStorageForm:
    def test_from_either_kind_of_table(self, start: Snapshot) -> None:
        """The storage form is the same whether the history's table kept the data or not."""
        named, plain = NamedSnapshots(), SnapshotTable()
        name = named.add(start)
        plain.add(start)
        assert storage_form(History("c", name, 0, {}, named), name) == storage_form(
            History("c", name, 0, {}, plain), name
        )


class TestStoredSnapshots:
    def _raw(self, *snapshots: Snapshot) -> dict[str, object]:
        return {snapshot_hash(s): s.to_json_dict() for s in snapshots}

    def test_an_entry_is_read_when_asked_for(self, start: Snapshot) -> None:
        """Only the entry asked for is read: the others, damaged or not, wait."""
        raw = self._raw(start, Snapshot.model_validate(VEX))
        damaged = "0" * 64
        raw[damaged] = {"rulesetClocks": "not a list"}
        table = StoredSnapshots(raw)
        name = snapshot_hash(start)
        assert table[name] == start and table.data(name) == start.to_json_dict()
        assert len(table._items) == 1  # the one read
        assert damaged not in table and table.get(damaged) is None
        assert len(table) == 2 and set(table) == set(raw) - {damaged}

    def test_an_entry_edited_by_hand_is_not_stored(self, start: Snapshot) -> None:
        """An entry whose content no longer has its name reads as absent, as before."""
        name = snapshot_hash(start)
        table = StoredSnapshots({name: VEX})
        assert name not in table
        with pytest.raises(KeyError):
            table.data(name)
        assert list(table.only({name})) == []

    def test_the_state_of_one_message_reads_one_snapshot(
        self, heist_done: Chat, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """`transcript state` reads the one snapshot it gives, of all the chat stores."""
        whole = state(heist_done)
        read = count_snapshot_reads(monkeypatch)
        assert state(heist_done) == whole
        stored = heist_done.metadata["gmtags"]["snapshots"]
        assert len(stored) > 2 and len(read) == 1
