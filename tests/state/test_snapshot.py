"""The snapshot model (SPEC §4)."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from gmtags import Snapshot, SnapshotError
from gmtags.state.names import normalize_name
from gmtags.state.snapshot import Clock, load_snapshot

SPEC_EXAMPLE = {
    "gameCharacterCards": {
        "Bram the Quiet": {
            "abilities": {"sinew": 3, "warmth": 2},
            "skills": {"ward": {"tier": "rating_1", "bonus": 1}},
            "saves": {"nerve": {"tier": "rating_0", "bonus": 2}},
            "fields": {"number": 3, "watch": "night"},
            "lists": {"gear": [{"name": "Crowbar", "bulk": 1, "packed": True}]},
            "picks": ["charms/potence"],
        }
    },
    "gamePartySheet": {"fields": {"heat": 2, "upgrades": ""}},
    "rulesetLive": {
        "bram the quiet": {
            "pools": {"resolve": 2},
            "tracks": {"stress": 1},
            "marks": {"harm": ["tear", "knock"]},
            "overflow": {"harm": 1},
            "states": {"stance": "reckless"},
            "conditions": ["prone"],
        },
        "$party": {"pools": {"coin": 3}},
    },
    "rulesetClocks": [{"name": "Alarm raised", "size": 6, "filled": 4}],
}


class TestSnapshot:
    def test_spec_example_round_trips(self) -> None:
        """The SPEC §4 example reads and writes back to the same JSON."""
        snapshot = Snapshot.model_validate(SPEC_EXAMPLE)
        assert snapshot.to_json_dict() == SPEC_EXAMPLE
        assert Snapshot.model_validate(json.loads(snapshot.to_json())) == snapshot

    def test_empty(self) -> None:
        """Snapshot() is the empty state."""
        assert Snapshot().to_json_dict() == {}

    def test_unknown_keys_are_kept(self) -> None:
        """Keys gmtags does not own survive a round trip."""
        data = {"gameCharacterCards": {"A": {"portrait": "a.png"}}, "chatExtra": [1]}
        assert Snapshot.model_validate(data).to_json_dict() == data

    def test_short_skill_form(self) -> None:
        """A skill may be written as just its tier id."""
        snapshot = Snapshot.model_validate(
            {"gameCharacterCards": {"A": {"skills": {"ward": "t1"}}}}
        )
        assert snapshot.game_character_cards["A"].skills["ward"] == "t1"

    def test_live_keys_are_normalised(self) -> None:
        """rulesetLive keys are stored as normalised names; $party stays as it is."""
        data = {"rulesetLive": {"Élise  the-Quiet": {"pools": {"a": 1}}, "$party": {}}}
        snapshot = Snapshot.model_validate(data)
        assert set(snapshot.ruleset_live) == {"elise the quiet", "$party"}

    def test_two_live_entries_for_one_name(self) -> None:
        """Two rulesetLive keys that normalise alike are refused."""
        with pytest.raises(ValidationError):
            Snapshot.model_validate({"rulesetLive": {"Bram": {}, "bram": {}}})

    def test_frozen(self) -> None:
        """A snapshot cannot be changed in place."""
        snapshot = Snapshot()
        with pytest.raises(ValidationError):
            snapshot.ruleset_clocks = ()  # type: ignore[misc]

    @pytest.mark.parametrize(
        "clock",
        [
            {"name": "A", "size": 6, "filled": 7},
            {"name": "A", "size": 6, "filled": -1},
            {"name": "A", "size": 13, "filled": 0},
            {"name": "", "size": 6, "filled": 0},
            {"name": "A[1]", "size": 6, "filled": 0},
            {"name": "A", "size": 6},
            {"name": "A", "size": 6, "filled": 1, "colour": "red"},
        ],
    )
    def test_invalid_clocks(self, clock: dict[str, object]) -> None:
        """A stored clock must be valid: fill within its size, a valid name, known keys."""
        with pytest.raises(SnapshotError) as caught:
            load_snapshot({"rulesetClocks": [clock]})
        assert caught.value.problems[0].path.startswith("rulesetClocks.0")

    def test_duplicate_clock_names(self) -> None:
        """Two clocks whose names differ only in case are refused."""
        clocks = [{"name": "A", "size": 4, "filled": 0}, {"name": "a", "size": 4, "filled": 0}]
        with pytest.raises(SnapshotError):
            load_snapshot({"rulesetClocks": clocks})

    def test_with_clocks_refuses_duplicates(self) -> None:
        """The unvalidated copy path still keeps clock names distinct."""
        clock = Clock(name="A", size=4, filled=0)
        with pytest.raises(ValueError):
            Snapshot().with_clocks((clock, Clock(name="a", size=4, filled=0)))


class TestNormalizeName:
    @pytest.mark.parametrize(
        ("name", "key"),
        [
            ("Élise  the-Quiet", "elise the quiet"),
            ("Bram  the-Quiet", "bram the quiet"),
            ("  Zoë!! ", "zoe"),
            ("$party", "party"),
            ("Ｂｒａｍ", "bram"),
        ],
    )
    def test_examples(self, name: str, key: str) -> None:
        """NFKD, marks removed, lower-cased, other runs one space, trimmed."""
        assert normalize_name(name) == key
