"""Dice: every die thrown for one check, from the response's seeded source.

000, "dice-sum": "Una tirada lanza como máximo 20 dados" — a tray refuses to
throw past its limit, so no tag can make the engine throw dice in proportion
to a number it wrote (SPEC §8). Every die is recorded in the order thrown,
because the receipt's `rolls=` lists them all.

The source is the `random.Random` seeded once per response (SPEC §1: the
same seed gives the same rolls in every mode); nothing here touches the
global random state.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from gmtags.typing import DiceSource


class TrayFull(Exception):
    """Raised inside a resolver when a roll would pass its dice limit (a bug guard)."""


@dataclass
class Tray:
    """The dice of one check: throws faces 1..sides and records each one."""

    source: DiceSource
    limit: int
    thrown: list[int] = field(default_factory=list)

    @property
    def room(self) -> int:
        """How many more dice this tray may throw."""
        return self.limit - len(self.thrown)

    def throw(self, sides: int) -> int:
        """One die of `sides` faces, recorded."""
        if self.room <= 0:
            raise TrayFull(f"a check throws at most {self.limit} dice")
        face = self.source.randint(1, sides)
        self.thrown.append(face)
        return face

    def throw_many(self, count: int, sides: int) -> list[int]:
        """`count` dice of `sides` faces, recorded in order."""
        return [self.throw(sides) for _ in range(count)]


def face_value(face: int, faces: Sequence[int] | None) -> int:
    """What a face is worth: itself, or its entry in `dice.faces` (000, 1.136).

    `faces` lists the value of each face from the lowest: Fate's dice are
    `[-1, 0, 1]` on three faces.
    """
    return face if faces is None else faces[face - 1]


@dataclass(frozen=True, slots=True)
class OpenEnded:
    """An open-ended roll: the faces thrown and the signed total (000, `openEnded`)."""

    faces: tuple[int, ...]
    total: int


def open_ended(tray: Tray, sides: int, high: int | None, low: int | None) -> OpenEnded:
    """000, "dice-sum" `openEnded`: one die that keeps rolling.

    A face at or above `high` is rolled again and added, again while the new
    die shows `high` or more; a first face at or below `low` is rolled again
    and subtracted, and that roll chains with `high` the same way (each further
    die also subtracted). The chain stops when the tray is full (at most 20
    dice a roll).
    """
    first = tray.throw(sides)
    faces = [first]
    total = first
    sign = 1
    last = first
    if low is not None and first <= low:
        sign = -1
        if tray.room <= 0:
            return OpenEnded(tuple(faces), total)
        last = tray.throw(sides)
        faces.append(last)
        total -= last
    while high is not None and last >= high and tray.room > 0:
        last = tray.throw(sides)
        faces.append(last)
        total += sign * last
    return OpenEnded(tuple(faces), total)


def percentile(units: int, tens: int) -> int:
    """A d100 read from a units die (1–10, 10 reads 0) and a tens die (1–10, 10 reads 00).

    00 with 0 is 100, as Call of Cthulhu reads its dice (000, `tens`).
    """
    value = (tens % 10) * 10 + (units % 10)
    return 100 if value == 0 else value


def keep_highest(faces: Sequence[int], keep: int) -> list[int]:
    """The `keep` highest faces, highest first (000, "dice-highest")."""
    return sorted(faces, reverse=True)[:keep]
