"""gmtags/state/saves.py: a built card or party sheet saved into a snapshot (SPEC §10, §11)."""

from __future__ import annotations

import pytest

from gmtags import Snapshot
from gmtags.errors import SnapshotError
from gmtags.state.saves import StaleRevision, raise_revision, save_card, save_party_sheet

STATE = Snapshot.model_validate(
    {
        "gameCharacterCards": {"Bram": {"abilities": {"str": 3}}, "Élise": {}},
        "gamePartySheet": {"fields": {"heat": 1}},
        "gamePartySheetRevision": 2,
    }
)


class TestSaveCard:
    def test_a_matching_name_replaces_that_card_under_its_stored_name(self) -> None:
        saved = save_card(STATE, "elise", {"fields": {"notes": "Built"}})
        assert list(saved.game_character_cards) == ["Bram", "Élise"]
        assert saved.game_character_cards["Élise"].fields == {"notes": "Built"}

    def test_a_new_name_comes_last(self) -> None:
        """The first card stays the player's character."""
        saved = save_card(STATE, "Ilse", {})
        assert list(saved.game_character_cards) == ["Bram", "Élise", "Ilse"]

    def test_the_rest_of_the_snapshot_stays(self) -> None:
        saved = save_card(STATE, "Bram", {})
        assert saved.game_party_sheet == STATE.game_party_sheet
        assert saved.game_party_sheet_revision == 2

    @pytest.mark.parametrize("name", ["", "  ", " Bram", "!!"])
    def test_names_that_cannot_be_a_character(self, name: str) -> None:
        with pytest.raises(SnapshotError, match="name"):
            save_card(STATE, name, {})

    def test_a_name_two_cards_share_is_refused(self) -> None:
        """As a tag's `who` naming it is: which of the two was meant cannot be told."""
        two = Snapshot.model_validate({"gameCharacterCards": {"Ada": {}, "Bo": {}, "bo": {}}})
        with pytest.raises(SnapshotError, match="two characters"):
            save_card(two, "BO", {})
        assert list(save_card(two, "ada", {}).game_character_cards) == ["Ada", "Bo", "bo"]

    def test_a_card_that_is_not_one_is_refused_at_its_place(self) -> None:
        with pytest.raises(SnapshotError) as raised:
            save_card(STATE, "Bram", {"abilities": {"str": "high"}})
        assert next(p.path for p in raised.value.problems).startswith("card.abilities.str")


class TestSavePartySheet:
    def test_a_save_on_the_current_revision_raises_it(self) -> None:
        saved = save_party_sheet(STATE, {"fields": {"heat": 3}}, 2)
        assert saved.game_party_sheet_revision == 3
        assert saved.to_json_dict()["gamePartySheet"] == {"fields": {"heat": 3}}

    @pytest.mark.parametrize("opened", [0, 1, 3])
    def test_a_save_opened_on_another_revision_is_stale(self, opened: int) -> None:
        """002: a save opened before someone else's is refused; the latest is shown."""
        with pytest.raises(StaleRevision) as raised:
            save_party_sheet(STATE, {"fields": {"heat": 3}}, opened)
        assert raised.value.latest is STATE and raised.value.revision == 2
        assert raised.value.opened == opened
        assert f"opened on revision {opened}, now 2" in str(raised.value)

    def test_a_sheet_that_is_not_one_is_refused_at_its_place(self) -> None:
        with pytest.raises(SnapshotError) as raised:
            save_party_sheet(STATE, {"fields": {"heat": [1]}}, 2)
        assert next(p.path for p in raised.value.problems).startswith("sheet.fields.heat")


def test_a_party_command_raises_the_revision() -> None:
    assert raise_revision(STATE).game_party_sheet_revision == 3
    assert raise_revision(Snapshot()).to_json_dict() == {"gamePartySheetRevision": 1}


def test_a_negative_revision_does_not_load() -> None:
    with pytest.raises(ValueError):
        Snapshot.model_validate({"gamePartySheetRevision": -1})
