"""Snapshots stored as shared parts: a manifest naming each card, the party sheet, the clocks…

A long chat's snapshots differ from each other by little: a reply ticks a
clock or moves one character's stress, and every card it does not touch is
the same as before. A stored snapshot is therefore split into parts, each
stored once by the sha256 of its canonical JSON and shared by every snapshot
holding it, and the snapshot itself becomes a small manifest of its parts
(issue 16: a 10,000-reply history in a tenth of 10,000 full snapshots).

The split (decisions; nothing here changes a snapshot's name, which stays the
sha256 of its whole canonical JSON, `gmtags.history.snapshots`):
- Each member of `gameCharacterCards` and of `rulesetLive` (one character's
  card, one character's or the party's live values) is a slot of its own;
  every other top-level key (`gamePartySheet`, `rulesetClocks`,
  `gamePartySheetRevision`, `rulesetLayers`, keys gmtags does not own) is one
  slot.
- A slot whose canonical JSON is shorter than `INLINE_BELOW` characters
  (`gmtags.history.forms`) is written in the manifest itself: a part costs a
  row and a hash, more than a short value repeated (a stress track, a revision
  number).
- The manifest is canonical JSON over the snapshot's own top-level keys: a
  part as its integer id in the store, a value written inline as a list of one
  (`[3]`), and the members of `gameCharacterCards` and `rulesetLive` as an
  object of such slots. Ids are the store's own (short, so a manifest is a few
  hundred bytes); parts are found and shared by their hash.

Reading a manifest back gives exactly the JSON data of the snapshot's
canonical text, keys in the same (sorted) order, so the snapshot read is the
one a full body gave.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gmtags.history.forms import Form, Group, Piece, form_of
from gmtags.history.snapshots import canonical_json

Slot = str | list[Any]
"""A slot before the store has ids: a part's hash, or an inline value as a list of one."""


@dataclass(frozen=True, slots=True)
class Split:
    """A snapshot's JSON data cut into slots: what the store writes for it."""

    name: str
    """The snapshot's name: the sha256 of its whole canonical JSON."""
    slots: dict[str, Slot | dict[str, Slot]]
    """Each top-level key (sorted) to its slot, or (`forms.MEMBERWISE`) to its members' slots."""
    parts: dict[str, str]
    """Each part's hash to its canonical JSON text."""


def split(snapshot: Form | Mapping[str, Any]) -> Split:
    """Cut a snapshot's form (`gmtags.history.forms.snapshot_form`), or its JSON data
    (`Snapshot.to_json_dict`), into slots and parts.

    The pieces a form was put together from are the slots: each is serialised
    once for both the snapshot's name and its parts.
    """
    form = snapshot if isinstance(snapshot, Form) else form_of(dict(snapshot))
    parts: dict[str, str] = {}

    def slot(piece: Piece) -> Slot:
        if piece.digest is None:
            return [piece.data]
        parts[piece.digest] = piece.text
        return piece.digest

    slots: dict[str, Slot | dict[str, Slot]] = {}
    for key, value in form.slots.items():
        if isinstance(value, Group):
            slots[key] = {member: slot(piece) for member, piece in value.members.items()}
        else:
            slots[key] = slot(value)
    return Split(form.name, slots, parts)


def manifest(cut: Split, ids: Mapping[str, int]) -> str:
    """The manifest text of a split snapshot, its parts named by their ids in the store."""

    def slot(value: Slot) -> int | list[Any]:
        return value if isinstance(value, list) else ids[value]

    written: dict[str, Any] = {}
    for key, value in cut.slots.items():
        if isinstance(value, dict):
            written[key] = {member: slot(inner) for member, inner in value.items()}
        else:
            written[key] = slot(value)
    return canonical_json(written)


def read_manifest(text: str) -> dict[str, Any]:
    """A stored manifest's slots (ids and inline values), keys in their stored order."""
    slots = json.loads(text)
    if not isinstance(slots, dict):
        raise ValueError("a snapshot manifest is a JSON object")
    return slots


def part_ids(slots: Mapping[str, Any]) -> set[int]:
    """The ids of every part a manifest names."""
    found: set[int] = set()
    for value in slots.values():
        for inner in value.values() if isinstance(value, dict) else (value,):
            if isinstance(inner, int):
                found.add(inner)
    return found


def assemble(slots: Mapping[str, Any], parts: Mapping[int, Any]) -> dict[str, Any]:
    """The snapshot's JSON data from its manifest's slots and its parts' data by id: equal,
    key order included, to the JSON of its canonical text."""

    def value(inner: Any) -> Any:
        return parts[inner] if isinstance(inner, int) else inner[0]

    data: dict[str, Any] = {}
    for key, slot in slots.items():
        if isinstance(slot, dict):
            data[key] = {member: value(inner) for member, inner in slot.items()}
        else:
            data[key] = value(slot)
    return data
