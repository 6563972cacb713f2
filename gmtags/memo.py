"""Results kept by the identity of the frozen objects they were computed from (issue 16).

The hot path reads the same objects again and again: a reply's snapshot is the
next reply's start, an unchanged card is the same object in every snapshot
after it, and a tag text seen before parses to the same `ParsedTag` (the parse
cache). What is computed from such objects alone (the request a tag makes, a
card's sheet numbers) is kept here by the objects' identity, so the second
check against an unchanged card costs a lookup.

Only frozen objects may be keys (pydantic models with `frozen=True`, frozen
dataclasses, strings): a key that could change would return a stale result.
Each entry holds its key objects, so no id is reused while it is kept: the
same ids are the very objects it was computed from. When a
memo is full it forgets everything and starts again: simple, bounded, and a
miss costs only the work the memo saves.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class IdentityMemo(Generic[V]):
    """At most `size` results, each kept by the identity of its objects and a hashable extra."""

    __slots__ = ("_items", "_size")

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: dict[tuple[Hashable, ...], tuple[tuple[object, ...], V]] = {}

    def get(self, objects: tuple[object, ...], extra: Hashable, make: Callable[[], V]) -> V:
        """The result for these very `objects` and `extra`, made by `make()` the first time."""
        key = (*map(id, objects), extra)
        found = self._items.get(key)
        if found is not None:
            # The entry holds its objects, so their ids stay theirs while it is kept:
            # the same ids are the same objects.
            return found[1]
        value = make()
        if len(self._items) >= self._size:
            self._items.clear()
        self._items[key] = (objects, value)
        return value

    def __len__(self) -> int:
        return len(self._items)
