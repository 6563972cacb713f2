"""The party builder (BUILDER chunk I; 002 "Creación compartida del grupo", 1.163).

002: "El creador se escribe exactamente igual que el de un personaje (reservas,
pasos, filas con precio, ofertas de gasto, perfiles) y sigue las mismas reglas
respecto a los campos y las listas propios del grupo. Sus pasos de catálogo y de
copia de filas pueden leer los catálogos del conjunto que alimentan las listas
del grupo." So a party build is a character build over the party's sheet:
`party_view` is the ruleset whose `sheet` holds the party's fields, lists and
advancement and nothing else (no abilities, skills, saves or derived values:
import already refuses a party builder naming them, `gmtags.ruleset.validate.builder_refs`
and each step model's `check_refs`), and the build runs on it unchanged.

"Los campos de miembros se calculan a partir de los personajes tal como están
cada vez que se lee la ficha compartida": a `fromMembers` field is read from
`members` (a `gameCharacterCards` mapping) exactly as play reads it
(`gmtags.sheet.party.PartyValues`: `count` how many characters, `sum` a number
field of theirs added up), stands on the sheet while the build reads it (a
step's `when`, a count, an offer's limit), and is never written back: the party
sheet the build gives holds none of them.

A party sheet is `{"fields", "lists"}` (SPEC §4 `gamePartySheet`) with the
builder record beside them; the character-only sections a build could leave
(abilities, skills, saves, bonuses, items) are not part of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from gmtags.errors import AnswersError, Problem, RulesetError, json_path
from gmtags.ruleset.character_sheet import Sheet
from gmtags.ruleset.memo import per_ruleset
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.party import Party
from gmtags.sheet.party import PartyValues
from gmtags.state.snapshot import CharacterCard, Snapshot

CHARACTER_ONLY = ("abilities", "skills", "saves", "bonuses", "items")
"""Sections of a character card a party sheet does not have (002: fields and lists only)."""


def party_of(ruleset: Ruleset) -> Party:
    """The ruleset's party sheet with a builder; `RulesetError` when it has none."""
    party = ruleset.party
    if party is None:
        raise RulesetError([Problem("party", "this ruleset has no party sheet")])
    if party.builder_model is None:
        raise RulesetError([Problem("party.builder", "this ruleset's party sheet has no builder")])
    return party


@per_ruleset
def party_view(ruleset: Ruleset) -> Ruleset:
    """`ruleset` with the party's sheet as its character sheet (module doc), once per ruleset."""
    party = party_of(ruleset)
    sheet = Sheet.model_construct(
        version=ruleset.sheet.version,
        fields=party.fields,
        lists=party.lists,
        advancement=party.advancement,
        builder=party.builder,
    )
    return ruleset.with_sheet(sheet)


def member_fields(ruleset: Ruleset, members: Mapping[str, Any] | None) -> dict[str, Any]:
    """Each `fromMembers` field's value read from `members` as play reads it (module doc).

    A member card that is not a card is refused with `AnswersError` at `members.<name>…`."""
    party = party_of(ruleset)
    if not party.from_members:
        return {}
    cards: dict[str, CharacterCard] = {}
    problems: list[Problem] = []
    for name, card in (members or {}).items():
        try:
            cards[name] = (
                card if isinstance(card, CharacterCard) else CharacterCard.model_validate(card)
            )
        except ValidationError as error:
            for found in error.errors():
                at = json_path(("members", name, *found["loc"]))
                problems.append(Problem(at, found["msg"]))
    if problems:
        raise AnswersError(problems)
    read = PartyValues(ruleset, party, Snapshot(gameCharacterCards=cards))
    return {member.field: read.field(member.field) for member in party.from_members}


def as_card(sheet: Mapping[str, Any] | None, from_members: Mapping[str, Any]) -> dict[str, Any]:
    """The party sheet as the card a build reads: its own values with the members' fields."""
    card = dict(sheet or {})
    if from_members:
        card["fields"] = {**dict(card.get("fields") or {}), **from_members}
    return card


def as_sheet(card: Mapping[str, Any], from_members: Mapping[str, Any]) -> dict[str, Any]:
    """The party sheet a build's card stands for: no member field, no character section."""
    sheet = {key: value for key, value in card.items() if key not in CHARACTER_ONLY}
    fields = {k: v for k, v in dict(sheet.get("fields") or {}).items() if k not in from_members}
    if fields:
        sheet["fields"] = fields
    else:
        sheet.pop("fields", None)
    return sheet


__all__ = ["as_card", "as_sheet", "member_fields", "party_of", "party_view"]
