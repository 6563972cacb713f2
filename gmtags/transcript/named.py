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

from pydantic import ValidationError

from gmtags.history.forms import snapshot_form
from gmtags.history.records import History
from gmtags.history.snapshots import hash_json
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

    def holds(self, name: str) -> bool:
        """True when the snapshot `name` is stored (`name in self`, without reading it where
        that can be told without)."""
        return name in self

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


class StoredSnapshots(NamedSnapshots):
    """The snapshots a chat file stores, each read when it is first asked for (issue 16: the
    state after one message of a long chat reads one snapshot, not thousands).

    An entry is read as `Snapshot.model_validate` reads it and kept only when its
    content still has its name: a damaged entry, or one edited by hand, is not
    stored, as if it were absent (the records naming it report it when used).
    Iterating reads every entry.
    """

    def __init__(self, raw: Mapping[str, Any]) -> None:
        super().__init__()
        self._raw = raw
        self._refused: set[str] = set()
        self._unread: set[str] = set()
        """Entries not read whose data was found to hash to their names."""

    def _read(self, name: str) -> bool:
        """True when the entry `name` is stored and sound (read now if it was not yet)."""
        if name in self._items:
            return True
        if name in self._refused or name not in self._raw:
            return False
        try:
            snapshot = Snapshot.model_validate(self._raw[name])
        except ValidationError:
            snapshot = None
        if snapshot is None or self.add(snapshot) != name:
            self._refused.add(name)
            return False
        return True

    def _read_all(self) -> None:
        for name in self._raw:
            self._read(name)

    def __getitem__(self, name: str) -> Snapshot:
        if not isinstance(name, str) or not self._read(name):
            raise KeyError(name)
        return super().__getitem__(name)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._read(name)

    def _written(self, name: str) -> bool:
        """True when the entry `name` is not read and its data still hashes to its name: it is
        what gmtags wrote under that name, and can be written again as it is, unread."""
        if name in self._unread:
            return True
        if name in self._items or name in self._refused:
            return False
        raw = self._raw.get(name)
        if isinstance(raw, dict) and hash_json(raw) == name:
            self._unread.add(name)
            return True
        return False

    def holds(self, name: str) -> bool:
        return self._written(name) or self._read(name)

    def data(self, name: str) -> dict[str, Any]:
        """The entry's storage form; an entry gmtags wrote is given as it was written, unread
        (writing a chat's metadata again reads no snapshot it does not use)."""
        if self._written(name):
            return dict(self._raw[name])
        if not self._read(name):
            raise KeyError(name)
        return super().data(name)

    def only(self, names: set[str]) -> NamedSnapshots:
        """A table holding only the named entries, the unread ones still unread."""
        kept = StoredSnapshots({name: self._raw[name] for name in names if name in self._raw})
        kept._items = {name: item for name, item in self._items.items() if name in names}
        kept._refused = self._refused & names
        kept._unread = self._unread & names
        return kept

    def __iter__(self) -> Iterator[str]:
        self._read_all()
        return super().__iter__()

    def __len__(self) -> int:
        self._read_all()
        return super().__len__()


def storage_form(history: History, name: str) -> dict[str, Any]:
    """The storage form of `history`'s snapshot `name`, from its table when that kept one;
    `HistoryError` when it is not stored."""
    snapshots = history.snapshots
    if isinstance(snapshots, NamedSnapshots):
        try:
            return snapshots.data(name)
        except KeyError:
            pass
    return history.snapshot(name).to_json_dict()
