"""gmtags/history/snapshots.py: snapshots named by the sha256 of canonical JSON."""

from __future__ import annotations

import hashlib

from gmtags import Snapshot
from gmtags.history.snapshots import SnapshotTable, canonical_json, snapshot_hash


class TestSnapshotHash:
    def test_is_sha256_of_canonical_json(self) -> None:
        """The name is the sha256 of sorted, compact, UTF-8 JSON."""
        snap = Snapshot.model_validate({"rulesetClocks": [{"name": "É", "size": 4, "filled": 1}]})
        text = '{"rulesetClocks":[{"filled":1,"name":"É","size":4}]}'
        assert canonical_json(snap.to_json_dict()) == text
        assert snapshot_hash(snap) == hashlib.sha256(text.encode()).hexdigest()

    def test_equal_snapshots_share_a_name(self) -> None:
        """Key order and default values do not change the name."""
        a = Snapshot.model_validate(
            {"rulesetLive": {"Vex": {"tracks": {"stress": 1}}}, "rulesetClocks": []}
        )
        b = Snapshot.model_validate(
            {"rulesetLive": {"vex": {"tracks": {"stress": 1}, "pools": {}}}}
        )
        assert snapshot_hash(a) == snapshot_hash(b)


class TestSnapshotTable:
    def test_adding_twice_stores_once(self) -> None:
        """An equal snapshot added again is not stored again."""
        table = SnapshotTable()
        first = table.add(Snapshot())
        assert table.add(Snapshot()) == first
        assert len(table) == 1

    def test_only_keeps_the_named(self) -> None:
        """`only` drops snapshots no record names."""
        table = SnapshotTable()
        keep = table.add(Snapshot())
        table.add(
            Snapshot.model_validate({"rulesetClocks": [{"name": "A", "size": 4, "filled": 0}]})
        )
        assert list(table.only({keep})) == [keep]
