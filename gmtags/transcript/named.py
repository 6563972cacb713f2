"""A chat's snapshots by name, each kept with the JSON data it was named from (SPEC §6).

A snapshot's name is the sha256 of its storage form (`gmtags.history.snapshots`),
and the chat file stores that same storage form under the name
(`chat_metadata.gmtags.snapshots`). Issue 16: the table keeps the data it hashed,
so writing the chat serialises each snapshot once, not once to name it and again
to store it.

The data is shared with what is written from it and must not be changed.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from gmtags.history.forms import snapshot_form
from gmtags.history.records import History
from gmtags.state.snapshot import Snapshot


class NamedSnapshots(Mapping[str, Snapshot]):
    """Snapshots by name with their storage form; adding one already there stores nothing new."""

    def __init__(self) -> None:
        self._items: dict[str, tuple[Snapshot, dict[str, Any]]] = {}
        # By object: a message without tags hands its snapshot on unchanged, and a
        # swipe's "before" is the state already named, so most adds hash nothing.
        # Every object named is kept alive, so no other object can take its id.
        self._names: dict[int, str] = {}
        self._alive: list[Snapshot] = []

    def add(self, snapshot: Snapshot) -> str:
        """Store a snapshot (once) and return its name."""
        name = self._names.get(id(snapshot))
        if name is not None:
            return name
        form = snapshot_form(snapshot)
        name = form.name
        self._items.setdefault(name, (snapshot, form.data))
        self._names[id(snapshot)] = name
        self._alive.append(snapshot)
        return name

    def data(self, name: str) -> dict[str, Any]:
        """The storage form of the snapshot `name` (`Snapshot.to_json_dict`)."""
        return self._items[name][1]

    def only(self, names: set[str]) -> NamedSnapshots:
        """A table holding only the named snapshots (what the records still refer to)."""
        kept = NamedSnapshots()
        kept._items = {name: item for name, item in self._items.items() if name in names}
        return kept

    def __getitem__(self, name: str) -> Snapshot:
        return self._items[name][0]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)


def storage_form(history: History, name: str) -> dict[str, Any]:
    """The storage form of `history`'s snapshot `name`, from its table when that kept one;
    `HistoryError` when it is not stored."""
    snapshots = history.snapshots
    if isinstance(snapshots, NamedSnapshots) and name in snapshots:
        return snapshots.data(name)
    return history.snapshot(name).to_json_dict()
