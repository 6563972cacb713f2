"""gmtags/history/snapshots.py: snapshots named by the sha256 of canonical JSON."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gmtags import Snapshot, load_ruleset, process
from gmtags.history.snapshots import SnapshotTable, canonical_json, snapshot_hash
from gmtags.history.store import HistoryStore
from tests.conftest import FIXTURES


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


class TestCardOrder:
    """The first card is the player's character: canonical JSON and the store keep card order."""

    ZED_FIRST = {"gameCharacterCards": {"Zed": {"abilities": {"dex": 20}}, "Ada": {}}}
    ADA_FIRST = {"gameCharacterCards": {"Ada": {}, "Zed": {"abilities": {"dex": 20}}}}

    def test_sorted_cards_keep_the_names_they_had(self) -> None:
        """Cards already in sorted order are written as plain sorted JSON, as before."""
        data = Snapshot.model_validate(self.ADA_FIRST).to_json_dict()
        plain = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert canonical_json(data) == plain

    def test_another_order_is_another_game(self) -> None:
        """Two snapshots whose cards differ only in order have two names, each its order."""
        zed, ada = Snapshot.model_validate(self.ZED_FIRST), Snapshot.model_validate(self.ADA_FIRST)
        assert snapshot_hash(zed) != snapshot_hash(ada)
        text = canonical_json(zed.to_json_dict())
        assert text == '{"gameCharacterCards":{"Zed":{"abilities":{"dex":20}},"Ada":{}}}'
        assert list(json.loads(text)["gameCharacterCards"]) == ["Zed", "Ada"]

    def test_the_store_keeps_the_order(self, tmp_path: Path) -> None:
        """A chat's start and a reply's snapshots read back with the player's card first."""
        rules = load_ruleset(FIXTURES / "rulesets" / "checks" / "d20-naturals.json")
        start = Snapshot.model_validate(self.ZED_FIRST)
        with HistoryStore(tmp_path / "history.sqlite") as store:
            store.ensure_chat("c", start)
            read = store.start("c")
            after = process('[skill_check: ability="Dexterity" dc="15"]', rules, read, seed=1)
            store.edit_current("c", lambda _: after.snapshot)
        with HistoryStore(tmp_path / "history.sqlite") as store:
            assert list(store.start("c").game_character_cards) == ["Zed", "Ada"]
            stored = store.current("c")
        assert stored is not None and list(stored.game_character_cards) == ["Zed", "Ada"]
        # A `who` left out is the player's character: Zed (dex 20), not Ada.
        assert after.receipts[0].attr("who") == "Zed"
        assert after.receipts[0].attr("modifier") == "5"


_KEYS = st.sampled_from(
    ["gameCharacterCards", "gamePartySheet", "rulesetLive", "rulesetClocks", "aa", "gameA", "zz"]
)
_NAMES = st.text(min_size=1, max_size=4)
_DATA = st.dictionaries(
    _KEYS,
    st.one_of(
        st.integers(),
        st.dictionaries(_NAMES, st.dictionaries(_NAMES, st.integers(), max_size=3), max_size=3),
    ),
)


def _sorted_text(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class TestCanonicalText:
    @settings(max_examples=500, deadline=None)
    @given(data=_DATA)
    def test_sorted_everywhere_but_the_cards(self, data: dict[str, Any]) -> None:
        """Every key sorted at every depth, except the cards' own order, whatever keys come
        before or after `gameCharacterCards`; sorted cards give plain sorted JSON."""
        text = canonical_json(data)
        pieces = []
        for key, value in sorted(data.items()):
            if key == "gameCharacterCards" and isinstance(value, dict):
                members = ",".join(f"{_sorted_text(k)}:{_sorted_text(v)}" for k, v in value.items())
                pieces.append(f"{_sorted_text(key)}:{{{members}}}")
            else:
                pieces.append(f"{_sorted_text(key)}:{_sorted_text(value)}")
        assert text == "{" + ",".join(pieces) + "}"
        assert json.loads(text) == data
        cards = data.get("gameCharacterCards")
        if not isinstance(cards, dict) or list(cards) == sorted(cards):
            assert text == _sorted_text(data)
