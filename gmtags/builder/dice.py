"""Creation rolls kept with their dice (004, "Tiradas de creación conservadas con sus dados").

004: creation dice are `{count, sides, keep?, add?, multiplier?}`: "las keep
caras más altas, más add, por multiplier, así que el (2d6+6) x 5 de CoC es
{ "count": 2, "sides": 6, "add": 6, "multiplier": 5 }". "Cada tirada se
conserva con sus caras y se muestra con ellas. Una tirada ya hecha se
mantiene; reabrir el creador nunca vuelve a tirar."

SPEC §10: a roll already in the answers is reused, never redrawn; a missing
one is made from the answers' `seed`, "each roll from its own stream (seed,
step, roll, attempt), so the order of answering never changes a roll"
(`gmtags.seeds.derive_creation_seed`). A `best` roll (2 or 3 tries)
keeps every try's faces and reads the best total.

Decisions where the sources are silent:
- `keep` keeps the highest faces; the kept faces are listed highest first, the
  thrown ones in the order thrown (as a check's `rolls=`).
- Recorded faces that do not fit the dice (another count, a face off the die)
  are not read and not redrawn: `faces_problem` says why, and the builder
  reports it (a corrupted answer must not become a free re-roll).
- Of a `best` roll's tries the first with the highest total is the one kept.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gmtags.checks.dice import keep_highest
from gmtags.seeds import derive_creation_seed

MAX_CREATION_DICE = 100
"""The most dice one creation roll throws (a bound of ours: 004 names none; 5e's 4d6 and
CoC's 3d6 are far below it, and it keeps a roll's recorded faces small)."""

_WRITTEN = re.compile(r"(\d+)d(\d+)([+-]\d+)?")

MAX_SIDES = 1000
"""The most faces a creation die has (as a sheet's rolled column, 002)."""


@dataclass(frozen=True, slots=True)
class Dice:
    """Creation dice: `count` dice of `sides`, the `keep` highest, plus `add`, times
    `multiplier` (004)."""

    count: int
    sides: int
    keep: int | None = None
    add: int = 0
    multiplier: int = 1

    @classmethod
    def of(cls, model: Any) -> Dice:
        """The dice a ruleset writes as `{count, sides, keep?, add?, multiplier?}` (004)."""
        return cls(model.count, model.sides, model.keep, model.add or 0, model.multiplier or 1)

    @classmethod
    def written(cls, text: str) -> Dice:
        """Dice written as text (`"5d4"`, `"2d6+3"`: a kit's coins roll, 004 1.157); the model
        checked the shape (SCHEMA-NOTES §1 dice)."""
        found = _WRITTEN.fullmatch(text)
        if found is None:
            raise ValueError(f"not dice: {text!r}")
        return cls(int(found[1]), int(found[2]), add=int(found[3] or 0))

    def total(self, faces: Sequence[int]) -> int:
        """The result the faces give: the kept faces' sum, plus `add`, times `multiplier`."""
        return (sum(self.kept(faces)) + self.add) * self.multiplier

    def kept(self, faces: Sequence[int]) -> list[int]:
        """The faces that count: the `keep` highest (highest first), else all as thrown."""
        return list(faces) if self.keep is None else keep_highest(faces, self.keep)


@dataclass(frozen=True, slots=True)
class Roll:
    """One creation roll as the card keeps it: every face thrown, those kept, and the total."""

    faces: tuple[int, ...]
    kept: tuple[int, ...]
    total: int


def faces_problem(dice: Dice, faces: Sequence[object]) -> str | None:
    """Why recorded `faces` cannot be the throw of `dice` (None when they can)."""
    if len(faces) != dice.count:
        return f"{dice.count} dice are thrown, not {len(faces)}"
    for face in faces:
        if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= dice.sides:
            return f"a face of a d{dice.sides} is a whole number from 1 to {dice.sides}"
    return None


def read_roll(dice: Dice, faces: Sequence[int]) -> Roll:
    """The roll recorded `faces` make (checked first with `faces_problem`)."""
    return Roll(tuple(faces), tuple(dice.kept(faces)), dice.total(faces))


def throw(dice: Dice, seed: int, step: str, key: str, attempt: int = 0, trial: int = 0) -> Roll:
    """A new roll of `dice` from its own stream (module doc): the same arguments always give
    the same faces, whatever else was rolled before."""
    source = random.Random(derive_creation_seed(seed, step, key, attempt, trial))
    faces = [source.randint(1, dice.sides) for _ in range(dice.count)]
    return read_roll(dice, faces)


def best_of(tries: Sequence[Roll]) -> Roll:
    """The try a `best` roll keeps: the highest total, the first of equals."""
    return max(tries, key=lambda roll: roll.total)


__all__ = [
    "MAX_CREATION_DICE",
    "MAX_SIDES",
    "Dice",
    "Roll",
    "best_of",
    "faces_problem",
    "read_roll",
    "throw",
]
