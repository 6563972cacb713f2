"""Finding the character a tag names (SPEC §4, ENGINE-NOTES §4)."""

from __future__ import annotations

from gmtags import Snapshot
from gmtags.state.characters import find_character, party_members, player


def cards(*names: str) -> Snapshot:
    return Snapshot.model_validate({"gameCharacterCards": {name: {} for name in names}})


class TestFindCharacter:
    def test_omitted_who_is_the_player(self) -> None:
        """No `who` means the first character."""
        found = find_character(cards("Bram", "Juno"), None)
        assert not isinstance(found, str) and found.name == "Bram"

    def test_normalised_match(self) -> None:
        """`who` matches by normalised name and gives back the stored name and live key."""
        found = find_character(cards("Bram", "Élise the-Quiet"), "elise  THE quiet")
        assert not isinstance(found, str)
        assert (found.name, found.key) == ("Élise the-Quiet", "elise the quiet")

    def test_unknown(self) -> None:
        """A name matching nobody is unknown-character; so is any `who` with no cards."""
        assert find_character(cards("Bram"), "Juno") == "unknown-character"
        assert find_character(Snapshot(), None) == "unknown-character"
        assert find_character(cards("Bram"), "!!!") == "unknown-character"

    def test_ambiguous(self) -> None:
        """Two cards sharing a normalised name are ambiguous…"""
        assert find_character(cards("Bram", "Juno", "juno"), "Juno") == "ambiguous-character"

    def test_player_wins_a_shared_name(self) -> None:
        """…unless one of them is the player's card, which wins."""
        found = find_character(cards("Juno", "JUNO"), "juno")
        assert not isinstance(found, str) and found.name == "Juno"


class TestPartyMembers:
    def test_every_character_once(self) -> None:
        """who="party" means every character, one per normalised name."""
        names = [c.name for c in party_members(cards("Bram", "Juno", "juno", "Ada"))]
        assert names == ["Bram", "Ada"]

    def test_player_kept_when_shared(self) -> None:
        """A shared name that is the player's keeps the player's card only."""
        names = [c.name for c in party_members(cards("Bram", "bram", "Ada"))]
        assert names == ["Bram", "Ada"]

    def test_player(self) -> None:
        """The player is the first card, or None."""
        assert player(Snapshot()) is None
        found = player(cards("Bram", "Ada"))
        assert found is not None and found.name == "Bram"
