"""Starting coins in kits, rolled once when a kit is taken (004, "Monedas iniciales tiradas y
leídas de la ficha", 1.157).

004: "Una línea de monedas del equipo inicial puede llevar roll (dados como "2d6") o
countFrom (una Ref que se lee de la ficha del portador) en lugar de count, nunca ambos, y
times (de 1 a 10000) multiplica cualquiera de los dos: { "coins": "gold", "roll": "5d4",
"times": 10 }… La tirada se hace una vez, cuando el grupo o el portador toma el paquete, así
que reabrir el selector no puede volver a tirarla… una cantidad de 0 no añade nada."

A coins roll is a creation roll of the gear step keyed `<kit>/<line>` (kept with its faces
in the answers like every creation roll, never redrawn). Decisions where the sources are
silent: the coins a character starts with are kept in the card's builder record
(`builder.coins`, unit → amount, the lines of every kit taken added up), since a card holds
no purse of its own in this version (SPEC §4), and the GM's sheet block shows them; a
`countFrom` reads the sheet as it stands when the gear step's turn comes, floored, never
below 0.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from gmtags.builder.dice import Dice
from gmtags.ruleset.builder.steps import KitLine
from gmtags.sheet.values import SheetValues

if TYPE_CHECKING:
    from gmtags.builder.state import State


def line_coins(state: State, step_id: str, kit_id: str, place: int, line: KitLine) -> int | None:
    """How many coins one line gives (None when its roll could not be read)."""
    times = line.times or 1
    if line.roll is not None:
        total = state.creation_roll(step_id, f"{kit_id}/{place}", Dice.written(line.roll))
        return None if total is None else max(0, total) * times
    if line.count_from is not None:
        return read_coins(state.values(), line)
    return (line.count or 0) * times


def read_coins(values: SheetValues, line: KitLine) -> int:
    """A `countFrom` line's coins, read on the sheet as `values` holds it (at least 0)."""
    assert line.count_from is not None
    read = values.value(line.count_from)
    return (max(0, math.floor(read)) if math.isfinite(read) else 0) * (line.times or 1)


def take_coins(state: State, step_id: str, kit_id: str, lines: list[KitLine]) -> None:
    """Add the coins of a kit taken to the builder record's purse."""
    for place, line in enumerate(lines):
        if line.coins is None:
            continue
        amount = line_coins(state, step_id, kit_id, place, line)
        if amount:
            purse: dict[str, int] = state.saved.setdefault("coins", {})
            purse[line.coins] = purse.get(line.coins, 0) + amount


__all__ = ["line_coins", "read_coins", "take_coins"]
