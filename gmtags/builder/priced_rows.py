"""Priced rows and rows copied from a catalog (004, "Selecciones y filas con precio", 1.159,
and "Precios de fila calculados por fila", 1.206; BUILDER D19, D20), for `rows` steps.

004: "El coste de un paso de filas es un número o { "column": "cost" }, que se lee de cada
fila; un precio negativo es un crédito, limitado al creditLimit de la reserva… Un paso de
filas también puede nombrar from, un catálogo de filas que alimenta su lista: el jugador añade
una copia de la fila de una entrada tantas veces como quiera, y cada copia es una fila propia,
con su precio y que se quita por separado… No se ofrece una selección que la reserva no pueda
pagar. Las selecciones y las filas con precio se pagan primero y nunca se venden".
1.206: `{ "column": "tier", "times": 5 }` prices a Genesys talent 5 XP a tier; `add` alone is
a fixed price; `overrides` (up to 4) give the price instead "cuando un valor derivado nombrado
por un prefijo y la propia celda de la fila lee más de 0": `{ "add": 5, "overrides": [{
"derived": { "prefix": "affinity_", "cell": "ability" }, "cost": 4 }] }`.

Rows are paid with the priced picks (`gmtags.builder.pools`: credit first, then in step and
row order); a row its pool cannot pay is not written and stays in the answers, inactive, with
the reason, and the step's badge counts it (the fixpoint build of `gmtags.builder.build`
reads what the pool paid on the build before, as for priced picks).

Decisions where the sources are silent:
- A copy from the catalog is answered as a pick of the entry in the step's `picks` (an entry
  picked twice is two copies); copies follow the step's own rows, by position, and carry the
  entry (`_catalog`) as a pick's rows do.
- A row whose price column is blank or not a number has no price: its pool cannot pay it.
- An override's `times` (1.216) replaces the cost's `times`; its `cost` replaces the price.
  The first override that reads above 0 wins.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gmtags.builder.accounts import Charge, whole
from gmtags.ruleset.builder.priced import RowCost, RowsStep

if TYPE_CHECKING:
    from gmtags.builder.state import State
    from gmtags.sheet.values import SheetValues

Row = dict[str, Any]


def copies(state: State, step: RowsStep) -> list[tuple[str, Row]]:
    """The rows copied from the step's `from` catalog: `(entry ref, row values)` per pick."""
    if step.from_ is None:
        return []
    catalog = state.catalogs.get(step.from_)
    entries = {e.id: e for e in (catalog.entries or ())} if catalog is not None else {}
    found: list[tuple[str, Row]] = []
    for place, pick in enumerate(state.answers.step(step.id).picks or []):
        entry = entries.get(pick)
        row = next((r for r in (entry.rows or ()) if r.list == step.list), None) if entry else None
        if row is None:
            state.problem(f"steps.{step.id}.picks.{place}", f"no row of '{step.from_}' to copy")
            continue
        found.append((f"{step.from_}/{pick}", dict(row.values)))
    return found


def row_price(step: RowsStep, row: Row, values: SheetValues) -> int | None:
    """A row's price (module doc); None when it has none."""
    cost = step.cost
    if cost is None:
        return None
    if not isinstance(cost, RowCost):
        return whole(cost)
    times = cost.times
    for override in cost.overrides or ():
        cell = row.get(override.derived.cell)
        name = f"{override.derived.prefix}{cell}"
        known = any(d.id == name for d in values.sheet.derived)
        if isinstance(cell, str | int) and known and values.derived(name) > 0:
            if override.cost is not None:
                return whole(override.cost)
            times = override.times if override.times is not None else times
            break
    price: float = cost.add or 0
    if cost.column is not None:
        cell = row.get(cost.column)
        if isinstance(cell, bool) or not isinstance(cell, int | float):
            return None
        price += cell * (times if times is not None else 1)
    return whole(price)


def charge(state: State, step: RowsStep, rows: list[Row]) -> Mapping[int, str]:
    """Charge the rows the pool paid on the build before (module doc); those it does not pay,
    which are not written, by position, with why."""
    if step.pool is None or step.cost is None:
        return {}
    state.register_settle()
    gated = state.gates.of(step.id, UnpaidRows)
    closed = gated.rows if gated is not None else {}
    values = state.values()
    state.row_prices[step.id] = [row_price(step, row, values) for row in rows]
    for n, price in enumerate(state.row_prices[step.id]):
        if n not in closed:
            state.charges.append(Charge(step.pool, step.id, str(n), price))
    return closed


@dataclass(frozen=True)
class UnpaidRows:
    """A priced rows step's gate: the rows its pool did not pay, with why (`unpaid_rows`)."""

    rows: Mapping[int, str]


def unpaid_rows(state: State, step: RowsStep) -> dict[int, str]:
    """The rows of a priced step its pool did not pay on this build, and those left out that
    it could not pay now, with the reason; read by the next build (module doc)."""
    if step.pool is None or step.pool not in state.accounts:
        return {}
    account = state.accounts[step.pool]
    charged = {c.item for c in state.charges if c.step == step.id}
    closed: dict[int, str] = {}
    for n, price in enumerate(state.row_prices.get(step.id, [])):
        kept = state.unpaid.get((step.id, str(n)))
        if kept is not None:
            closed[n] = kept
        elif str(n) not in charged:
            refused = account.refuses(price)
            if refused is not None:
                closed[n] = refused
    return closed


__all__ = ["UnpaidRows", "charge", "copies", "row_price", "unpaid_rows"]
