"""Saving a built card or party sheet into a game's snapshot (SPEC §10, §11).

- `save_card`: the card goes into `gameCharacterCards[name]`. The card `name`
  finds as a tag's `who` does (`find_character`: SPEC §4 normalised names) is
  the one replaced, under its stored name, so saving "bram" over "Bram" never
  makes a second Bram; a name two cards share (neither the player's) is
  refused, as a tag naming it is; a new name is added after the others (the
  first card stays the player's character).
- `save_party_sheet`: the party sheet goes into `gamePartySheet`, and
  `gamePartySheetRevision` rises by one. 002, "Creación compartida del grupo":
  "Cada guardado nombra la revisión sobre la que se abrió …: un guardado
  abierto antes de que llegara el de otra persona se rechaza, se muestra la
  ficha más reciente y el borrador del jugador sigue abierto, así que volver a
  guardar es su decisión de sustituirla." A save naming any other revision than
  the snapshot's raises `StaleRevision`, which carries the latest snapshot; the
  caller keeps the draft, and saving again on the latest revision replaces it.

Both validate what they store exactly as a snapshot read from a file is
validated, so a save never leaves a snapshot that would not load; a card or
sheet that is not one is refused with `SnapshotError` naming the place.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from gmtags.errors import GmtagsError, Problem, SnapshotError, json_path
from gmtags.state.characters import find_character
from gmtags.state.names import normalize_name
from gmtags.state.snapshot import Snapshot


class StaleRevision(GmtagsError):
    """A party save opened on a revision that is no longer the snapshot's (module doc)."""

    def __init__(self, opened: int, latest: Snapshot) -> None:
        self.opened = opened
        self.latest = latest
        self.revision = latest.game_party_sheet_revision
        super().__init__(
            f"the party sheet changed since this save was opened (opened on revision {opened}, "
            f"now {self.revision}): look at the latest sheet, then save again to replace it"
        )


def _validated(data: dict[str, Any], where: str, depth: int) -> Snapshot:
    """The snapshot `data` holds; a problem is named under `where` (the saved card or sheet),
    the first `depth` steps of its location (where it sits in the snapshot) left off."""
    try:
        return Snapshot.model_validate(data)
    except ValidationError as error:
        raise SnapshotError(
            Problem(json_path((where, *item["loc"][depth:])), item["msg"])
            for item in error.errors()
        ) from None


def save_card(snapshot: Snapshot, name: str, card: Mapping[str, Any]) -> Snapshot:
    """`snapshot` with `card` as the character `name` (module doc)."""
    if not normalize_name(name) or name.strip() != name:
        raise SnapshotError([Problem("name", f"{name!r} is not a character name")])
    found = find_character(snapshot, name)
    if found == "ambiguous-character":
        raise SnapshotError([Problem("name", f"two characters are named {name!r}: rename one")])
    data = snapshot.to_json_dict()
    cards = dict(data.get("gameCharacterCards") or {})
    cards[name if isinstance(found, str) else found.name] = dict(card)
    data["gameCharacterCards"] = cards
    return _validated(data, "card", 2)


def save_party_sheet(snapshot: Snapshot, sheet: Mapping[str, Any], revision: int) -> Snapshot:
    """`snapshot` with `sheet` as its party sheet, opened on `revision` (module doc)."""
    if revision != snapshot.game_party_sheet_revision:
        raise StaleRevision(revision, snapshot)
    data = snapshot.to_json_dict()
    data["gamePartySheet"] = dict(sheet)
    data["gamePartySheetRevision"] = snapshot.game_party_sheet_revision + 1
    return _validated(data, "sheet", 1)


def apply_save(snapshot: Snapshot, save: Mapping[str, Any]) -> Snapshot:
    """`snapshot` with a save the pages made (`{"name", "card"}` or `{"party": true, "sheet"}`)
    carried onto it, on another reply than the one it was made on (SPEC §11: a save stays in
    play on every branch): a card replaces the character of that name, and a party sheet
    the party sheet whatever revision the snapshot is at (the player saved it last). A save
    that cannot stand in `snapshot` (its name now shared by two cards) raises
    `SnapshotError`."""
    if save.get("party") is True:
        sheet = save.get("sheet")
        if not isinstance(sheet, Mapping):
            raise SnapshotError([Problem("sheet", "not a party sheet")])
        return save_party_sheet(snapshot, sheet, snapshot.game_party_sheet_revision)
    name, card = save.get("name"), save.get("card")
    if not isinstance(name, str) or not isinstance(card, Mapping):
        raise SnapshotError([Problem("card", "not a saved card")])
    return save_card(snapshot, name, card)


def raise_revision(snapshot: Snapshot) -> Snapshot:
    """`snapshot` with its party-sheet revision one higher (an applied `sheet="party"`
    command changes the shared sheet as a save does: SPEC §11)."""
    update = {"game_party_sheet_revision": snapshot.game_party_sheet_revision + 1}
    return snapshot.model_copy(update=update)


__all__ = ["StaleRevision", "apply_save", "raise_revision", "save_card", "save_party_sheet"]
