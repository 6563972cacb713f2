"""Which character a tag means (SPEC §4; ENGINE-NOTES §4, "who matching").

The first card in `gameCharacterCards` is the player's. Names are compared by
their normalised form. When two cards share a normalised name, the player's
wins; otherwise the name is ambiguous (`ambiguous-character`: two cards share
it, so only renaming one can tell them apart).

`find_character` matches a name exactly: saving a card and the builder use it,
so saving "Bram" never replaces "Bram Ironfoot". `resolve_who` is how a tag's
`who=` finds its character (SPEC §4, revised): a name no card has is the one
card whose normalised name starts with the name's words ("Bram" → "Bram
Ironfoot"; word by word, so "Bra" is no start of it), and two such cards are
`ambiguous-who` (the model should write the full name). Decision where SPEC §4
is silent: cards sharing the one name that starts that way are read as an
exact name is (the player's wins, else `ambiguous-character`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from gmtags.memo import IdentityMemo
from gmtags.state.names import normalize_name
from gmtags.state.snapshot import CharacterCard, Snapshot

PARTY_WHO = "party"
"""`who="party"` on a sheet command means every character (SPEC §4)."""

Miss = Literal["unknown-character", "ambiguous-character"]
"""Why `find_character` found no character."""

WhoMiss = Literal["unknown-character", "ambiguous-character", "ambiguous-who"]
"""Why `resolve_who` found no character: `ambiguous-who` when two cards' names start
with the name written (SPEC §4)."""


@dataclass(frozen=True, slots=True)
class Character:
    """A character found in the snapshot: stored name, `rulesetLive` key and card."""

    name: str
    key: str
    card: CharacterCard


def _characters(snapshot: Snapshot) -> list[Character]:
    cards = snapshot.game_character_cards
    return list(_CHARACTERS.get((cards,), None, lambda: _listed(cards)))


def _listed(cards: Mapping[str, CharacterCard]) -> tuple[Character, ...]:
    return tuple(Character(name, normalize_name(name), card) for name, card in cards.items())


_CHARACTERS: IdentityMemo[tuple[Character, ...]] = IdentityMemo(256)
"""The characters of a snapshot's cards, kept while the cards are the same (issue 16)."""


def player(snapshot: Snapshot) -> Character | None:
    """The player's character: the first card, or None when there is none."""
    found = _characters(snapshot)
    return found[0] if found else None


def find_character(snapshot: Snapshot, who: str | None) -> Character | Miss:
    """The character `who` names; omitted `who` is the player's character.

    ENGINE-NOTES §4: no match is `unknown-character`; two cards with the same
    normalised name are `ambiguous-character` unless one of them is the player's.
    """
    found = _characters(snapshot)
    if who is None:
        return found[0] if found else "unknown-character"
    key = normalize_name(who)
    matches = [character for character in found if character.key == key]
    if not matches or not key:
        return "unknown-character"
    return _one(matches, found)


def _one(matches: list[Character], found: list[Character]) -> Character | Miss:
    """The one of cards sharing a normalised name: the only one, else the player's."""
    if len(matches) == 1 or matches[0] is found[0]:
        return matches[0]
    return "ambiguous-character"


def resolve_who(snapshot: Snapshot, who: str | None) -> Character | WhoMiss:
    """The character a tag's `who=` names (SPEC §4, revised; module doc).

    The exact normalised name first (`find_character`); when no card has it,
    the one card whose normalised name starts with the name's words, compared
    word by word; cards of two names starting so are `ambiguous-who`.
    """
    exact = find_character(snapshot, who)
    if exact != "unknown-character" or who is None:
        return exact
    words = normalize_name(who).split(" ")
    if words == [""]:
        return exact
    found = _characters(snapshot)
    starts = [c for c in found if c.key.split(" ")[: len(words)] == words]
    if not starts:
        return exact
    if len({character.key for character in starts}) > 1:
        return "ambiguous-who"
    return _one(starts, found)


def party_members(snapshot: Snapshot) -> list[Character]:
    """Every character once per normalised name, for `who="party"` (ENGINE-NOTES §4).

    A name two cards share is skipped, unless one of them is the player's, which stays.
    """
    found = _characters(snapshot)
    members: list[Character] = []
    for character in found:
        same = [other for other in found if other.key == character.key]
        if len(same) == 1 or (character is found[0]):
            members.append(character)
    return members
