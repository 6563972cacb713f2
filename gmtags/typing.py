"""Type aliases and Protocols for the pluggable parts of gmtags."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from gmtags.engine.context import Applied, Context
    from gmtags.state.snapshot import Snapshot
    from gmtags.tags.parse import ParsedTag


class TagHandler(Protocol):
    """Applies one parsed tag to a snapshot: `(tag, snapshot, context) → Applied`.

    A handler never raises on bad model input: it returns a refused receipt
    and the snapshot it was given, unchanged.
    """

    def __call__(self, tag: ParsedTag, snapshot: Snapshot, context: Context) -> Applied: ...


class DiceSource(Protocol):
    """Where dice come from: `randint(1, sides)` like `random.Random`, seeded per response."""

    def randint(self, a: int, b: int) -> int: ...
