"""Creation rules (004 1.155, `sheet.builder.constraints`; BUILDER G15), read on the card
once every step has run.

004: "Cada una nombra el step cuya insignia la lleva y la label que se muestra ahí mientras
no se cumple, un when: Ref opcional y exactamente uno de estos: value: Ref con min, max o
ambos (cada uno un número o una Ref). rows: { list, filter?, sum? } con min, max o ambos:
el número de filas de la lista, o el total de la columna numérica sum, sobre las filas que
conserva filter ({ column, equals?, below?, above? }). distinct: { list, column }: no hay
dos filas con el mismo valor rellenado (sin distinguir mayúsculas de minúsculas ni
espacios). approved: fieldId: un campo booleano que debe estar activado … Una regla
incumplida nunca bloquea Back, Next ni All fields."

`check` adds 1 to the badge of the step each unmet rule names and its `label` to that
step's reasons; it changes nothing else, so nothing is ever blocked.

Decisions where the seed is silent:
- The rules read the finished card: the player's rows and values with everything the
  build wrote (rows a pick or a rows step wrote, scores, fields), read as play reads it.
- `when` holds the rule only while it reads above 0, like a step's `when`.
- A rule on a step that is hidden (its `when`) shows nothing: a hidden step's badge is 0
  (SPEC §10).
- A rows `filter` keeps a row when every comparison it gives holds: `equals` compares
  numbers by value, a boolean only to itself, and text case- and whitespace-insensitively
  (as `distinct` does); `below`/`above` are strict and keep only number cells. `sum` adds
  the number cells of the kept rows (any other cell adds 0); without `sum` the rule counts
  the kept rows.
- `distinct` ignores case and every space ("Bob Smith" and "bobsmith" are one value);
  blank cells are not values; a number cell is compared as it is written.
- `approved` is met only by the boolean field being `true` on the card.
- `min` and `max` are inclusive.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from gmtags.ruleset.builder import Constraint, ConstraintRows, Distinct, RowsFilter
from gmtags.ruleset.builder.common import NumberOrRef
from gmtags.sheet.values import SheetValues

if TYPE_CHECKING:
    from gmtags.builder.state import Entry, State


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _plain(value: object) -> str:
    """A cell as `distinct` (and text `equals`) compares it: no case, no spaces."""
    return "".join(str(value).split()).casefold()


def _rows(card: Mapping[str, Any], list_id: str) -> list[Mapping[str, Any]]:
    lists = card.get("lists")
    rows = lists.get(list_id) if isinstance(lists, Mapping) else None
    return [r for r in rows if isinstance(r, Mapping)] if isinstance(rows, list) else []


def _equal(cell: object, wanted: object) -> bool:
    """A rows filter's `equals`: numbers by value, text without case or spaces."""
    if isinstance(wanted, bool) or isinstance(cell, bool):
        return cell is wanted
    number = _number(wanted)
    if number is not None:
        return _number(cell) == number
    return isinstance(cell, str | int | float) and _plain(cell) == _plain(wanted)


def _keeps(test: RowsFilter, row: Mapping[str, Any]) -> bool:
    """Whether a rows `filter` keeps `row` (module doc)."""
    cell = row.get(test.column)
    number = _number(cell)
    if test.equals is not None and not _equal(cell, test.equals):
        return False
    if test.below is not None and (number is None or not number < test.below):
        return False
    return test.above is None or (number is not None and number > test.above)


def _total(rule: ConstraintRows, card: Mapping[str, Any]) -> float:
    rows = [r for r in _rows(card, rule.list) if rule.filter is None or _keeps(rule.filter, r)]
    if rule.sum is None:
        return len(rows)
    return sum(_number(r.get(rule.sum)) or 0.0 for r in rows)


def _distinct(rule: Distinct, card: Mapping[str, Any]) -> bool:
    seen: set[str] = set()
    for row in _rows(card, rule.list):
        cell = row.get(rule.column)
        if cell is None or isinstance(cell, bool | dict | list):
            continue
        plain = _plain(cell)
        if not plain:
            continue
        if plain in seen:
            return False
        seen.add(plain)
    return True


def _bound(bound: NumberOrRef, values: SheetValues) -> float:
    return float(bound) if isinstance(bound, int | float) else values.value(bound)


def met(rule: Constraint, card: Mapping[str, Any], values: SheetValues) -> bool:
    """Whether `rule` holds on `card` (read as play reads it through `values`)."""
    if rule.approved is not None:
        fields = card.get("fields")
        return isinstance(fields, Mapping) and fields.get(rule.approved) is True
    if rule.distinct is not None:
        return _distinct(rule.distinct, card)
    if rule.rows is not None:
        have = _total(rule.rows, card)
    elif rule.value is not None:
        have = values.value(rule.value)
    else:
        return True
    if rule.min is not None and have < _bound(rule.min, values):
        return False
    return rule.max is None or have <= _bound(rule.max, values)


def check(state: State, by_id: dict[str, Entry]) -> None:
    """Every unmet rule adds 1 to its step's badge and its label to the step's reasons."""
    rules = state.builder.constraints
    if not rules:
        return
    card = state.writer.base
    values = state.values()
    for rule in rules:
        entry = by_id.get(rule.step)
        if entry is None or not entry["shown"]:
            continue
        if rule.when is not None and not values.value(rule.when) > 0:
            continue
        if not met(rule, card, values):
            entry["pending"] += 1
            entry["reasons"].append(rule.label)


__all__ = ["check", "met"]
