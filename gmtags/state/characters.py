"""Which character a tag means (SPEC §4; ENGINE-NOTES §4, "who matching").

The first card in `gameCharacterCards` is the player's. Names are compared by
their normalised form. When two cards share a normalised name, the player's
wins; otherwise the name is ambiguous.
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
    if len(matches) == 1 or matches[0] is found[0]:
        return matches[0]
    return "ambiguous-character"


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
