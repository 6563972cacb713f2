"""A symbol-pool ruleset's dice rolled by name, outside any check.

000, "symbol-pool: tirar dados narrativos y leer los símbolos": "Fuera de una
prueba, una partida con este conjunto puede tirar sus dados por nombre: … leen
`2 ability 1 proficiency vs 2 difficulty` (el id o la label de cada dado, sin
distinguir mayúsculas de minúsculas) y cuentan y cancelan símbolos como en una
prueba, sin la ficha, mejoras ni una escala de dificultad. No hay ninguna clave
que lo active."

The expression is one or two sides joined by `vs`, each side one or more
groups of a count and a die named by id or label. The symbols are counted and
cancelled exactly as `gmtags.checks.symbol_pool.read_symbols` does for a check,
and the critical marks are read the same way. An expression that does not read
is a value (`BadRoll`, with a message for a person), never an exception: the
text comes from a person or the model.

Decisions where the seed is silent:
- A count is a whole number from 1; the whole roll throws at most twice the
  per-roll dice limit (40 by default), the same bound as a check's tray.
- `vs` only separates the sides for reading; the sides are thrown in order
  and their symbols all cancel together, as a check's do. Each side written
  needs at least one group; a die name is every word up to the next count or
  `vs`, compared without case and with runs of space folded.
- The roll reports success as a check would (`success.needed` of the success
  symbol left) beside the net symbols.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gmtags.checks.dice import Tray
from gmtags.checks.symbol_pool import (
    SymbolReading,
    ThrownDie,
    dice_expression,
    net_labels,
    net_symbols,
    read_symbols,
    symbol_details,
    throw_die,
)
from gmtags.limits import DEFAULT_LIMITS, Limits
from gmtags.ruleset.resolution import SymbolDie, SymbolPool
from gmtags.typing import DiceSource

_COUNT = re.compile(r"[0-9]+")
_VS = "vs"


@dataclass(frozen=True, slots=True)
class BadRoll:
    """An expression that does not read, and why, in words for a person."""

    message: str


@dataclass(frozen=True, slots=True)
class NamedDice:
    """A read expression: each side's groups of (count, die), in the order written."""

    sides: tuple[tuple[tuple[int, SymbolDie], ...], ...]

    @property
    def count(self) -> int:
        """How many dice the expression throws."""
        return sum(count for side in self.sides for count, _ in side)

    @property
    def text(self) -> str:
        """The expression as the receipt's `dice` writes it: `2 ability vs 2 difficulty`."""
        return dice_expression([[(n, die.id) for n, die in side] for side in self.sides])


@dataclass(frozen=True, slots=True)
class NamedRoll:
    """A named-dice roll: the dice, their faces and the symbols read from them."""

    dice: NamedDice
    thrown: tuple[ThrownDie, ...]
    reading: SymbolReading
    symbols: str
    labels: str
    details: str
    success: bool

    @property
    def rolls(self) -> str:
        """The faces thrown, counting from 1, joined by `|` as a receipt's `rolls`."""
        return "|".join(str(die.face) for die in self.thrown)

    @property
    def thrown_ids(self) -> str:
        """The dice thrown by id, joined by `|` as a receipt's `thrown`."""
        return "|".join(die.die.id for die in self.thrown)


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()


def read_named_dice(
    rules: SymbolPool, expression: str, limits: Limits = DEFAULT_LIMITS
) -> NamedDice | BadRoll:
    """Read `2 ability 1 proficiency vs 2 difficulty` against the ruleset's dice (000)."""
    names: dict[str, SymbolDie] = {}
    for each in rules.dice:
        names.setdefault(_fold(each.label), each)
    for each in rules.dice:
        names[_fold(each.id)] = each
    words = expression.split()
    if not words:
        return BadRoll("the roll is empty: write counts and dice, like 2 ability vs 1 difficulty")
    sides: list[list[tuple[int, SymbolDie]]] = [[]]
    position = 0
    while position < len(words):
        word = words[position]
        if word.casefold() == _VS:
            if len(sides) == 2:
                return BadRoll("a roll has at most one 'vs'")
            if not sides[-1]:
                return BadRoll("'vs' needs dice on both sides")
            sides.append([])
            position += 1
            continue
        if not _COUNT.fullmatch(word) or len(word) > limits.integer_digits:
            return BadRoll(f"expected a count of dice before '{word}'")
        count = int(word)
        if count < 1:
            return BadRoll(f"a count of dice is 1 or more, not {word}")
        end = position + 1
        while end < len(words) and not (
            _COUNT.fullmatch(words[end]) or words[end].casefold() == _VS
        ):
            end += 1
        name = " ".join(words[position + 1 : end])
        if not name:
            return BadRoll(f"the count {word} names no die")
        die = names.get(_fold(name))
        if die is None:
            known = ", ".join(d.id for d in rules.dice)
            return BadRoll(f"no die is named '{name}' (dice: {known})")
        sides[-1].append((count, die))
        position = end
    if not sides[-1]:
        return BadRoll("'vs' needs dice on both sides")
    dice = NamedDice(tuple(tuple(side) for side in sides))
    most = 2 * limits.dice_per_roll
    if dice.count > most:
        return BadRoll(f"a roll throws at most {most} dice, not {dice.count}")
    return dice


def roll_named(
    rules: SymbolPool, expression: str, source: DiceSource, limits: Limits = DEFAULT_LIMITS
) -> NamedRoll | BadRoll:
    """Roll a symbol-pool ruleset's dice by name and read them like a check's (000).

    No sheet, upgrades or ladder: the dice written are the dice thrown, in order.
    """
    dice = read_named_dice(rules, expression, limits)
    if isinstance(dice, BadRoll):
        return dice
    tray = Tray(source, dice.count)
    thrown = tuple(
        throw_die(tray, die) for side in dice.sides for count, die in side for _ in range(count)
    )
    reading = read_symbols(rules, thrown)
    return NamedRoll(
        dice=dice,
        thrown=thrown,
        reading=reading,
        symbols=net_symbols(rules, reading),
        labels=net_labels(rules, reading),
        details=symbol_details(thrown, reading),
        success=reading.left(rules.success.symbol) >= rules.success.needed,
    )
