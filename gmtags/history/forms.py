"""A snapshot's storage form, name and canonical pieces, kept by the identity of its parts.

Issue 16: a chat's snapshots differ from each other by little. A reply ticks a
clock, and every card, live entry and party sheet of the new snapshot is the
very object the snapshot before it held (`model_copy` shares what it does not
update). Naming a snapshot (`gmtags.history.snapshots`) and cutting it into
parts (`gmtags.history.parts`) both serialise every one of them again; here each
frozen part is serialised once, its JSON data and canonical text kept by its
identity (`gmtags.memo`), and a snapshot's form is put together from them.

`snapshot_form(s).data` equals `s.to_json_dict()` (key order included) and
`snapshot_form(s).name` equals `snapshot_hash(s)`: a snapshot holding keys
gmtags does not own is worked out the plain way. The data is shared between the
forms of snapshots that share parts, so it must never be changed.
"""

from __future__ import annotations

import hashlib
import json
import json.encoder
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from gmtags.history.snapshots import ORDERED, canonical_value
from gmtags.memo import IdentityMemo
from gmtags.state.snapshot import Snapshot

INLINE_BELOW = 32
"""Canonical JSON characters under which a piece is stored inline, not as a part of its own
(`gmtags.history.parts`)."""


class Piece:
    """One value of a snapshot: its JSON data (shared: never changed), its canonical text and,
    when it is stored as a part of its own, that text's sha256 (worked out when first asked:
    only the store needs it)."""

    __slots__ = ("_digest", "data", "text")

    def __init__(self, data: Any, text: str) -> None:
        self.data = data
        self.text = text
        self._digest: str | None = None

    @property
    def digest(self) -> str | None:
        """The sha256 of the text, or None when the piece is short enough to go inline."""
        if self._digest is None and len(self.text) >= INLINE_BELOW:
            self._digest = hashlib.sha256(self.text.encode("utf-8", "surrogatepass")).hexdigest()
        return self._digest


def piece_of(value: Any) -> Piece:
    """A JSON value as a piece (not kept: for data that is not a snapshot's own part)."""
    return Piece(value, canonical_value(value))


@dataclass(frozen=True, slots=True)
class Group:
    """The members of `gameCharacterCards` or `rulesetLive`: each member's piece in canonical
    order (the cards in their own, the live entries sorted), the members' JSON data in their
    own order (shared: never changed), and the canonical text of the whole object."""

    members: dict[str, Piece]
    data: dict[str, Any]
    text: str


Slots = dict[str, Piece | Group]
"""A snapshot's top-level keys, sorted, each to its piece or (`MEMBERWISE`) its group."""

MEMBERWISE = frozenset({"gameCharacterCards", "rulesetLive"})
"""Top-level keys whose members are pieces of their own (one per character)."""


@dataclass(frozen=True, slots=True)
class Form:
    """A snapshot as it is stored: its data, its pieces and its name."""

    data: dict[str, Any]
    """`Snapshot.to_json_dict()`: storage names, model order, defaults left out."""
    slots: Slots
    name: str
    """The sha256 of the snapshot's canonical JSON (`gmtags.history.snapshots.snapshot_hash`)."""


_PIECES: IdentityMemo[Piece] = IdentityMemo(2048)
_GROUPS: IdentityMemo[Group] = IdentityMemo(512)


def _model(model: BaseModel) -> Piece:
    def make() -> Piece:
        return piece_of(model.model_dump(mode="json", by_alias=True, exclude_defaults=True))

    return _PIECES.get((model,), None, make)


def _clocks(clocks: tuple[BaseModel, ...]) -> Piece:
    def make() -> Piece:
        return piece_of([_model(clock).data for clock in clocks])

    return _PIECES.get((clocks,), None, make)


def group_of(members: dict[str, Piece], ordered: bool) -> Group:
    """The group of these members' pieces (in their order), sorted unless `ordered`."""
    data = {member: piece.data for member, piece in members.items()}
    if not ordered:
        members = {member: members[member] for member in sorted(members)}
    text = ",".join(f"{_string(member)}:{piece.text}" for member, piece in members.items())
    return Group(members, data, f"{{{text}}}")


def _group(models: dict[str, Any], ordered: bool) -> Group:
    def make() -> Group:
        return group_of({member: _model(model) for member, model in models.items()}, ordered)

    return _GROUPS.get((models,), None, make)


def snapshot_form(snapshot: Snapshot) -> Form:
    """The snapshot's storage form, from the pieces of its frozen parts."""
    if snapshot.__pydantic_extra__:
        return form_of(snapshot.to_json_dict())
    cards, live = snapshot.game_character_cards, snapshot.ruleset_live
    party, revision = snapshot.game_party_sheet, snapshot.game_party_sheet_revision
    clocks, layers = snapshot.ruleset_clocks, snapshot.ruleset_layers
    slots: Slots = {}  # in sorted key order
    data: dict[str, Any] = {}  # in model order, as `to_json_dict` writes it
    if cards:
        slots[ORDERED] = group = _group(cards, ordered=True)
        data[ORDERED] = group.data
    if party is not None:
        slots["gamePartySheet"] = piece = _model(party)
        data["gamePartySheet"] = piece.data
    if revision != 0:
        slots["gamePartySheetRevision"] = Piece(revision, str(revision))
        data["gamePartySheetRevision"] = revision
    if live:
        group = _group(live, ordered=False)
        data["rulesetLive"] = group.data
    if clocks:
        slots["rulesetClocks"] = piece = _clocks(clocks)
        data["rulesetClocks"] = piece.data
    if layers:
        slots["rulesetLayers"] = piece = piece_of(list(layers))
        data["rulesetLayers"] = piece.data
    if live:
        slots["rulesetLive"] = group
    return Form(data, slots, _name(slots))


def form_of(data: dict[str, Any]) -> Form:
    """The form of a snapshot's JSON data (`Snapshot.to_json_dict`), worked out in full."""
    slots: Slots = {}
    for key in sorted(data):
        value = data[key]
        if key in MEMBERWISE and isinstance(value, dict):
            pieces = {member: piece_of(inner) for member, inner in value.items()}
            slots[key] = group_of(pieces, ordered=key == ORDERED)
        else:
            slots[key] = piece_of(value)
    return Form(data, slots, _name(slots))


def _name(slots: Slots) -> str:
    """The sha256 of the canonical text the slots put together."""
    whole = ",".join(f"{_string(key)}:{slot.text}" for key, slot in slots.items())
    return hashlib.sha256(f"{{{whole}}}".encode("utf-8", "surrogatepass")).hexdigest()


_string = json.encoder.encode_basestring
"""A JSON string with non-ASCII characters as they are (as the canonical text writes keys)."""
