"""The spend, rows, roll and initialize steps of `sheet.builder` (004, 1.153–1.162): what
a creation pool buys, the player's own rows, creation rolls and starting values written once.
Part of `gmtags.ruleset.builder.steps`, which holds the tagged union of every kind."""

from __future__ import annotations

import builtins
from typing import Annotated, Literal

from pydantic import Field

from gmtags.ruleset.base import RulesetModel, SheetId
from gmtags.ruleset.builder.checking import RefCheck
from gmtags.ruleset.builder.common import (
    Before,
    CellValue,
    Cost,
    Dice,
    Found,
    Label,
    NumberOrRef,
    Ruled,
    StepBase,
    Target,
    given,
)
from gmtags.ruleset.catalogs import (
    Text4000,
    by_json_type,
)
from gmtags.ruleset.refs import Number, RulesetValueRef
from gmtags.ruleset.resolution.common import distinct
from gmtags.ruleset.sheet import NumberColumn, NumberField

Ref = RulesetValueRef

# ---------------------------------------------------------------------------
# spend (D1–D19, A18)


class Override(RulesetModel):
    """An offer's `overrides[]{when, cost}`: the first positive condition's price wins."""

    when: Ref
    cost: Cost


class Exchange(RulesetModel):
    """004, `exchange{from, units, gain?, floor}` (1.164): each buy lowers `from` by `units`
    and raises the target by `gain` (1), never taking `from` below `floor`."""

    from_: Target = Field(alias="from")
    units: Annotated[int, Field(ge=1, le=10_000)]
    gain: Annotated[int, Field(ge=1, le=10_000)] = 1
    floor: Number


class Offer(Ruled):
    """004, a spend offer: `{id, label, target, cost?, min, max, tags?, when?, minFrom?,
    maxFrom?, allowedRatings?, credit?, baseline?, direction?, effect?, exchange?,
    overrides?}`.

    A cost is given unless the offer is an `exchange` (which costs the pool
    nothing, so omits it); prices are positive unless `credit: true`; a table
    covers both of the offer's bounds; up to 12 overrides; min ≤ max and
    `baseline` and `allowedRatings` within them.
    """

    id: SheetId
    label: Label
    target: Target
    cost: Cost | None = None
    min: Number
    max: Number
    tags: Annotated[list[SheetId], Field(min_length=1, max_length=12)] | None = None
    when: Ref | None = None
    min_from: Ref | None = Field(default=None, alias="minFrom")
    max_from: Ref | None = Field(default=None, alias="maxFrom")
    allowed_ratings: Annotated[list[Number], Field(min_length=1, max_length=100)] | None = Field(
        default=None, alias="allowedRatings"
    )
    credit: bool | None = None
    baseline: Number | None = None
    direction: Literal["increase", "decrease", "both"] | None = None
    effect: Literal["ownership"] | None = None
    exchange: Exchange | None = None
    overrides: Annotated[list[Override], Field(min_length=1, max_length=12)] | None = None

    def costs(self) -> list[tuple[tuple[str | int, ...], Cost]]:
        """Every price of the offer with its location: its cost, then each override's."""
        found: list[tuple[tuple[str | int, ...], Cost]] = []
        if self.cost is not None:
            found.append((("cost",), self.cost))
        for place, override in enumerate(self.overrides or ()):
            found.append((("overrides", place, "cost"), override.cost))
        return found

    def rules(self) -> Found:
        """The rules of the class docstring, each at its key."""
        found: Found = []
        if self.exchange is not None and self.cost is not None:
            found.append((("cost",), "an exchange costs the pool nothing, so it has no cost"))
        if self.exchange is None and self.cost is None:
            found.append(((), "an offer has a cost, or is an exchange"))
        if self.min > self.max:
            found.append((("min",), "an offer needs min ≤ max"))
        for key in ("baseline",):
            value = self.baseline
            if value is not None and not self.min <= value <= self.max:
                found.append(((key,), "the baseline lies within min..max"))
        for place, value in enumerate(self.allowed_ratings or ()):
            if not self.min <= value <= self.max:
                found.append((("allowedRatings", place), "an allowed rating lies within min..max"))
        for at, cost in self.costs():
            if cost.unpriced is None and not cost.positive() and not self.credit:
                found.append((at, "a price above 0 per step, unless the offer is a credit"))
            rows = cost.table or []
            values = [value for value, _ in rows]
            if rows and (self.min not in values or self.max not in values):
                found.append(((*at, "table"), "the table includes both the offer's min and max"))
        return found

    def check_refs(self, check: RefCheck, at: str) -> None:
        """The offer's target and bounds within its storage, a table's values, the baseline,
        the exchange and the non-live reads (004, A18: each of a spend step's offers)."""
        limits = check.target(self.target, f"{at}.target")
        if limits is not None:
            for key in ("min", "max"):
                value = getattr(self, key)
                if not limits[0] <= value <= limits[1]:
                    check.add(f"{at}.{key}", f"{key} {value} is outside {limits[0]}..{limits[1]}")
        kind = given(self.target)[0]
        name = getattr(self.target, kind)
        found = check.index.fields.get(name) if kind == "field" else None
        integer = not isinstance(found, NumberField) or found.integer
        for where, cost in self.costs():
            if integer and any(value != int(value) for value, _ in cost.table or ()):
                path = f"{at}.{'.'.join(map(str, where))}.table"
                check.add(path, "fractional values need a number field that is not an integer")
        start = _start(check, self.target)
        if self.baseline is not None and start is not None and self.baseline != start:
            check.add(f"{at}.baseline", f"the baseline is the starting value ({start})")
        if self.exchange is not None:
            check.target(self.exchange.from_, f"{at}.exchange.from")
        check.ref(self.when, f"{at}.when", "an offer's when")
        check.ref(self.min_from, f"{at}.minFrom", "minFrom")
        check.ref(self.max_from, f"{at}.maxFrom", "maxFrom")
        for place, override in enumerate(self.overrides or ()):
            check.ref(override.when, f"{at}.overrides.{place}.when", "an override's when")


def _start(check: RefCheck, target: Target) -> float | None:
    """A target's starting value when the file fixes it as a constant (BUILDER §3.17)."""
    kind = given(target)[0]
    name = getattr(target, kind)
    if kind == "ability" and name in check.index.abilities:
        return check.index.abilities[name].default
    found = check.index.fields.get(name) if kind == "field" else None
    if isinstance(found, NumberField):
        return found.default
    return 0 if kind in ("skill", "save", "bonus") else None


class SpendStep(StepBase):
    """004, `spend` (1.153): priced offers (≤120, ids unique) bought from a builder pool."""

    kind: Literal["spend"]
    pool: SheetId
    offers: Annotated[list[Offer], Field(min_length=1, max_length=120)]

    def rules(self) -> Found:
        """Offer ids are unique in the step."""
        return distinct([offer.id for offer in self.offers], ("offers",), "offer id", ("id",))

    def check_refs(self, check: RefCheck, at: str) -> None:
        """004, spend steps (A18): targets, bounds within storage, table on integer fields,
        baselines against a constant start, non-live conditions and limits."""
        for place, offer in enumerate(self.offers):
            offer.check_refs(check, f"{at}.offers.{place}")


# ---------------------------------------------------------------------------
# rows (E1–E8, A19)


class RowCostDerived(RulesetModel):
    """`{prefix, cell}`: the derived value named by `prefix` and the row's own `cell`."""

    prefix: Annotated[str, Field(min_length=1, max_length=39, pattern=r"^[a-z][a-z0-9_]*$")]
    cell: SheetId


class RowCostOverride(RulesetModel):
    """A rows cost override (1.206): `{derived{prefix, cell}, cost}`, or `times` (1.216)."""

    derived: RowCostDerived
    cost: Number | None = None
    times: Number | None = None


class RowCost(Ruled):
    """A rows step's priced cost per row (1.159, 1.206): `{column, times?, add?, overrides?}`
    or `{add}` (a fixed price written as an object)."""

    column: SheetId | None = None
    times: Number | None = None
    add: Number | None = None
    overrides: Annotated[list[RowCostOverride], Field(min_length=1, max_length=4)] | None = None

    def rules(self) -> Found:
        """`times` scales a column; a cost reads a column or adds a fixed price."""
        found: Found = []
        if self.column is None and self.add is None:
            found.append(((), "a row cost reads a column or adds a fixed price"))
        if self.times is not None and self.column is None:
            found.append((("times",), "times scales a column"))
        return found


RowsCost = Annotated[
    Number | RowCost,
    by_json_type(("a number", (int, float), Number), ("an object", dict, RowCost)),
]


class RowsStep(StepBase):
    """004, `rows` (1.154): the player's own rows of a sheet list. `columns` (all if omitted)
    and `required` name its columns; `min` 0–20, `max` ≥ min (clamped to the list's
    `maxItems`, BUILDER §3.27); `defaults` fit their columns; `countFrom` (1.799);
    a `pool` and `cost` (1.159); `from`, a rows catalog feeding the list."""

    kind: Literal["rows"]
    list: SheetId
    columns: Annotated[builtins.list[SheetId], Field(min_length=1, max_length=40)] | None = None
    required: Annotated[builtins.list[SheetId], Field(min_length=1, max_length=40)] | None = None
    min: Annotated[int, Field(ge=0, le=20)] | None = None
    max: Annotated[int, Field(ge=1, le=1000)] | None = None
    defaults: Annotated[dict[SheetId, CellValue], Field(min_length=1, max_length=40)] | None = None
    count_from: Ref | None = Field(default=None, alias="countFrom")
    pool: SheetId | None = None
    cost: RowsCost | None = None
    from_: SheetId | None = Field(default=None, alias="from")

    def rules(self) -> Found:
        """min ≤ max; required columns are columns the step edits; a price names its pool."""
        found: Found = []
        if self.min is not None and self.max is not None and self.min > self.max:
            found.append((("min",), "a rows step needs min ≤ max"))
        found += distinct(self.columns or [], ("columns",), "column")
        shown = set(self.columns) if self.columns is not None else None
        for place, name in enumerate(self.required or ()):
            if shown is not None and name not in shown:
                message = f"'{name}' is not a column this step edits"
                found.append((("required", place), message))
        if (self.pool is None) != (self.cost is None):
            found.append(((), "a priced step names both its pool and its cost"))
        return found

    def check_refs(self, check: RefCheck, at: str) -> None:
        """004, rows steps (A19): the list, its columns, defaults that fit, `from` a rows catalog
        feeding the list, a cost column that is numeric."""
        check.ref(self.count_from, f"{at}.countFrom", "countFrom")
        listed = check.index.lists.get(self.list)
        if listed is None:
            check.add(f"{at}.list", f"names no list '{self.list}'")
            return
        for key in ("columns", "required"):
            for place, name in enumerate(getattr(self, key) or ()):
                if listed.column(name) is None:
                    check.add(f"{at}.{key}.{place}", f"list '{self.list}' has no column '{name}'")
        for name, value in (self.defaults or {}).items():
            column = listed.column(name)
            if column is None:
                check.add(f"{at}.defaults.{name}", f"list '{self.list}' has no column '{name}'")
            elif (reason := column.holds(value)) is not None:
                check.add(
                    f"{at}.defaults.{name}", f"column '{name}' can never hold {value!r} ({reason})"
                )
        cost = self.cost
        column_id = getattr(cost, "column", None)
        if column_id is not None and not isinstance(listed.column(column_id), NumberColumn):
            check.add(f"{at}.cost.column", f"'{column_id}' is not a number column")
        if self.from_ is not None:
            catalog = check.catalog(self.from_, f"{at}.from")
            if catalog is not None and self.list not in (catalog.feeds or ()):
                check.add(f"{at}.from", f"catalog '{self.from_}' does not feed list '{self.list}'")


# ---------------------------------------------------------------------------
# roll (F1–F9, A20) and initialize (F10–F13, A21)


Gain = Annotated[
    int | Dice,
    by_json_type(("an integer", int, int), ("creation dice", dict, Dice)),
]


class Roll(Ruled):
    """004, a roll step's `rolls[]{field | ability, dice, best?, floor?, gain?}`: `best` (2 or
    3) keeps the best of that many tries, `floor` is the least result, `gain` makes it an
    improvement check that adds `gain` only when the roll beats the value."""

    field: SheetId | None = None
    ability: SheetId | None = None
    dice: Dice
    best: Literal[2, 3] | None = None
    floor: NumberOrRef | None = None
    gain: Gain | None = None

    @property
    def writes(self) -> str:
        """`field/<id>` or `ability/<id>`: what the roll writes."""
        return f"field/{self.field}" if self.field is not None else f"ability/{self.ability}"

    def rules(self) -> Found:
        """Exactly one of field and ability."""
        if (self.field is None) == (self.ability is None):
            return [((), "a roll writes exactly one of field or ability")]
        return []


class RollStep(StepBase):
    """004, `roll` (1.162): up to 12 creation rolls, each value rolled at most once a step;
    `retry: true` offers rolling again."""

    kind: Literal["roll"]
    rolls: Annotated[builtins.list[Roll], Field(min_length=1, max_length=12)]
    retry: bool | None = None

    def rules(self) -> Found:
        """Each ability (and each field) is rolled at most once in the step."""
        keys = [roll.writes for roll in self.rolls]
        return distinct(keys, ("rolls",), "the roll of")

    def check_refs(self, check: RefCheck, at: str) -> None:
        """004, roll steps (A20): a number field or a non-computed ability; a non-live floor."""
        members = check.from_members
        for place, roll in enumerate(self.rolls):
            where = f"{at}.rolls.{place}"
            if roll.field is not None:
                if not isinstance(check.index.fields.get(roll.field), NumberField):
                    check.add(f"{where}.field", f"'{roll.field}' is not a number field")
                elif roll.field in members:
                    check.add(f"{where}.field", f"'{roll.field}' is read from the members")
            if roll.ability is not None:
                ability = check.index.abilities.get(roll.ability)
                if check.index.party:
                    check.add(f"{where}.ability", "a party sheet has no abilities")
                elif ability is None:
                    check.add(f"{where}.ability", f"names no ability '{roll.ability}'")
                elif ability.value is not None:
                    check.add(f"{where}.ability", f"ability '{roll.ability}' is computed")
            if isinstance(roll.floor, RulesetValueRef):
                check.ref(roll.floor, f"{where}.floor", "a roll's floor")


InitialValue = Annotated[
    Number | Text4000 | bool | RulesetValueRef,
    by_json_type(
        ("a number", (int, float), Number),
        ("text", str, Text4000),
        ("a boolean", bool, bool),
        ("a value reference", dict, RulesetValueRef),
    ),
]


class Write(Ruled):
    """004, an initialize step's `writes[]{field, value? | remaining?}`: a fixed value or a
    reference (for a number field), or what a builder pool has left unspent."""

    field: SheetId
    value: InitialValue | None = None
    remaining: SheetId | None = None

    def rules(self) -> Found:
        """Exactly one of value and remaining."""
        if (self.value is None) == (self.remaining is None):
            return [((), "a write takes exactly one of value or remaining")]
        return []


class InitializeStep(StepBase):
    """004, `initialize` (1.158): starting values written when the player confirms them."""

    kind: Literal["initialize"]
    writes: Annotated[builtins.list[Write], Field(min_length=1, max_length=40)]
    reads: Before | None = None

    def rules(self) -> Found:
        """A field is written once."""
        return distinct([w.field for w in self.writes], ("writes",), "field", ("field",))

    def check_refs(self, check: RefCheck, at: str) -> None:
        """004, initialize steps (A21): a field of the sheet; a reference only for a number
        field; a fixed value the field can hold; `remaining` into a number field."""
        members = check.from_members
        for place, write in enumerate(self.writes):
            where = f"{at}.writes.{place}"
            found = check.index.fields.get(write.field)
            if found is None:
                check.add(f"{where}.field", f"names no field '{write.field}'")
                continue
            if write.field in members:
                check.add(f"{where}.field", f"'{write.field}' is read from the members")
            number = isinstance(found, NumberField)
            if isinstance(write.value, RulesetValueRef):
                if not number:
                    check.add(f"{where}.value", "a reference writes only a number field")
                else:
                    check.ref(write.value, f"{where}.value", "an initial value")
            elif write.value is not None and (reason := found.holds(write.value)) is not None:
                check.add(
                    f"{where}.value",
                    f"field '{write.field}' can never hold {write.value!r} ({reason})",
                )
            if write.remaining is not None and not number:
                check.add(f"{where}.remaining", "what a pool leaves is written to a number field")
