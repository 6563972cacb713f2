"""gmtags/transcript/named.py: a chat's snapshots by name, with the data each was named from."""

from __future__ import annotations

from gmtags import Snapshot
from gmtags.history.records import History
from gmtags.history.snapshots import SnapshotTable, snapshot_hash
from gmtags.transcript.named import NamedSnapshots, storage_form

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
