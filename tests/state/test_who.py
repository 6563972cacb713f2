"""How a tag's `who=` finds its character (SPEC §4, revised): `resolve_who`."""

from __future__ import annotations

from gmtags import Snapshot
from gmtags.state.characters import Character, find_character, resolve_who


def cards(*names: str) -> Snapshot:
    return Snapshot.model_validate({"gameCharacterCards": {name: {} for name in names}})


def name_of(found: Character | str) -> str:
    assert isinstance(found, Character), found
    return found.name


class TestResolveWho:
    def test_exact_name_first(self) -> None:
        """A card with the name itself wins over a longer card starting with it."""
        assert name_of(resolve_who(cards("Bram Ironfoot", "Bram"), "bram")) == "Bram"

    def test_the_one_card_starting_with_the_name(self) -> None:
        """SPEC §4: `who="Bram"` is the one card whose name starts with it, "Bram Ironfoot"."""
        found = resolve_who(cards("Juno", "Bram Ironfoot"), "Bram")
        assert isinstance(found, Character)
        assert (found.name, found.key) == ("Bram Ironfoot", "bram ironfoot")

    def test_normalised_words(self) -> None:
        """The start is compared on normalised names: case, accents and punctuation fold."""
        assert name_of(resolve_who(cards("Élise the-Quiet"), "ELISE, the")) == "Élise the-Quiet"

    def test_word_by_word(self) -> None:
        """SPEC §4: the name's words start the card's: "Bra" and "Bram Iron" start nothing."""
        snap = cards("Bram Ironfoot")
        assert resolve_who(snap, "Bra") == "unknown-character"
        assert resolve_who(snap, "Bram Iron") == "unknown-character"
        assert resolve_who(snap, "Ironfoot") == "unknown-character"
        assert resolve_who(snap, "Bram Ironfoot the Bold") == "unknown-character"

    def test_two_cards_starting_with_the_name_are_ambiguous(self) -> None:
        """SPEC §4: two such cards refuse the command, `ambiguous-who`."""
        assert resolve_who(cards("Bram Ironfoot", "Bram Stoker"), "Bram") == "ambiguous-who"

    def test_the_players_card_does_not_win_a_start(self) -> None:
        """Two cards starting with the name are ambiguous even when one is the player's."""
        assert resolve_who(cards("Bram Ironfoot", "Juno", "Bram Stoker"), "bram") == (
            "ambiguous-who"
        )

    def test_shared_exact_name_keeps_its_rule(self) -> None:
        """Two cards sharing the name are `ambiguous-character` unless one is the player's."""
        assert resolve_who(cards("Bram", "Juno", "JUNO"), "juno") == "ambiguous-character"
        assert name_of(resolve_who(cards("Juno", "JUNO"), "juno")) == "Juno"

    def test_one_shared_name_starting_with_it(self) -> None:
        """Cards sharing the one name that starts so are read as that exact name would be."""
        assert resolve_who(cards("Ada", "Bram Ironfoot", "bram ironfoot"), "Bram") == (
            "ambiguous-character"
        )
        assert name_of(resolve_who(cards("Bram Ironfoot", "BRAM IRONFOOT"), "Bram")) == (
            "Bram Ironfoot"
        )

    def test_no_match_either_way(self) -> None:
        """A name no card has or starts with is unknown (a stranger for a check)."""
        assert resolve_who(cards("Bram Ironfoot"), "Zed") == "unknown-character"
        assert resolve_who(cards("Bram Ironfoot"), "!!!") == "unknown-character"
        assert resolve_who(Snapshot(), "Bram") == "unknown-character"

    def test_omitted_is_the_player(self) -> None:
        """No `who` is the first character, as before."""
        assert name_of(resolve_who(cards("Bram Ironfoot", "Juno"), None)) == "Bram Ironfoot"
        assert resolve_who(Snapshot(), None) == "unknown-character"


class TestFindCharacterStaysExact:
    def test_no_start_matching(self) -> None:
        """Saving a card and the builder find a name exactly: "Bram" is not "Bram Ironfoot"."""
        assert find_character(cards("Bram Ironfoot"), "Bram") == "unknown-character"
