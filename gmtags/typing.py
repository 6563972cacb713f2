"""Where dice come from: the one Protocol every layer that rolls shares."""

from __future__ import annotations

from typing import Protocol


class DiceSource(Protocol):
    """Where dice come from: `randint(1, sides)` like `random.Random`, seeded per response."""

    def randint(self, a: int, b: int) -> int: ...
