"""Snapshots by content hash: each distinct game state is stored once (SPEC §6).

A chat of 10,000 messages has a snapshot before and after every assistant
message and swipe, but most of them repeat (a message without tags leaves the
state as it was; a swipe starts from the same state as its siblings). Every
snapshot is therefore named by the sha256 of its canonical JSON, and history
records hold names, not copies.

Canonical JSON (a decision; the seeds are silent): the snapshot's storage form
(`Snapshot.to_json_dict`, values at their default left out) written with
sorted keys, no spaces and non-ASCII characters as they are, encoded UTF-8 —
except the members of `gameCharacterCards`, which keep their order: the first
card is the player's character (a `who` left out names it), so two snapshots
whose cards come in another order are two games. Cards already in sorted order
are written as plain sorted JSON, so the names such snapshots always had stay.
Two snapshots that are equal as models, card order included, have the same name.
"""

from __future__ import annotations

import hashlib
import json
import json.encoder
from collections.abc import Iterator, Mapping
from typing import Any

from gmtags.state.snapshot import Snapshot

ORDERED = "gameCharacterCards"
"""The one mapping whose members keep their order in canonical JSON (the first is the player's)."""


def canonical_json(data: Mapping[str, Any]) -> str:
    """JSON data as canonical text: sorted keys (`ORDERED`'s members in their order), no
    spaces, UTF-8 kept."""
    cards = data.get(ORDERED)
    if not isinstance(cards, Mapping) or list(cards) == sorted(cards):
        return canonical_value(data)
    rest = {key: value for key, value in data.items() if key != ORDERED}
    if all(key > ORDERED for key in rest):  # it sorts first: the rest follows it
        after = canonical_value(rest)[1:] if rest else "}"
        return f"{{{_string(ORDERED)}:{ordered_members(cards)}{',' if rest else ''}{after}"
    pieces = []
    for key, value in sorted(data.items()):
        text = ordered_members(value) if key == ORDERED else canonical_value(value)
        pieces.append(f"{_string(key)}:{text}")
    return "{" + ",".join(pieces) + "}"


def canonical_value(value: Any) -> str:
    """Any JSON value as canonical text: sorted keys at every depth, no spaces, UTF-8 kept."""
    return _CANONICAL(value)


def ordered_members(members: Mapping[str, Any]) -> str:
    """An object whose members keep their order, each member's value canonical."""
    return "{" + ",".join(f"{_string(k)}:{canonical_value(v)}" for k, v in members.items()) + "}"


_string = json.encoder.encode_basestring
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode
"""One encoder for every canonical value (`json.dumps` with options builds one per call)."""
"""A JSON string with non-ASCII characters as they are (as `ensure_ascii=False` writes one)."""


def snapshot_hash(snapshot: Snapshot) -> str:
    """The snapshot's name: the sha256 (hex) of its canonical JSON."""
    return hash_json(snapshot.to_json_dict())


def hash_json(data: Mapping[str, Any]) -> str:
    """The sha256 (hex) of canonical JSON data."""
    return hashlib.sha256(canonical_json(data).encode("utf-8", "surrogatepass")).hexdigest()


class SnapshotTable(Mapping[str, Snapshot]):
    """Snapshots by name; adding one that is already there stores nothing new."""

    def __init__(self, items: Mapping[str, Snapshot] | None = None) -> None:
        self._items: dict[str, Snapshot] = dict(items or {})
        self._names: dict[int, str] = {}

    def add(self, snapshot: Snapshot) -> str:
        """Store a snapshot (once) and return its name."""
        # The same object is hashed once: a message without tags hands its
        # snapshot on unchanged, so this saves most of the hashing.
        name = self._names.get(id(snapshot))
        if name is not None and self._items.get(name) is snapshot:
            return name
        name = snapshot_hash(snapshot)
        self._items.setdefault(name, snapshot)
        self._names[id(snapshot)] = name
        return name

    def __getitem__(self, name: str) -> Snapshot:
        return self._items[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def only(self, names: set[str]) -> SnapshotTable:
        """A table holding only the named snapshots (what the records still refer to)."""
        return SnapshotTable({name: snap for name, snap in self._items.items() if name in names})
