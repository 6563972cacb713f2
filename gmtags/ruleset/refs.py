"""Value references and step tables: how every number in a ruleset names where it comes from.

002, "Todo lector de números los nombra con una referencia de valor": a number
reader is an object with exactly one key out of `const`, `field`, `derived`,
`abilityScore`, `abilityMod`, `abilityModFromField`, `skillMod`, `saveMod`,
`listSum`, `livePool`, `liveTrack` (with an optional `read`) and `itemStat`.
004, "Filas contadas y filas que coinciden", adds `listSum.where` and
`listSum.count`.

The shapes are checked here; whether a named id exists, whether a live read
may feed a value worked out before play, and the order of derived values are
cross-reference rules checked by `gmtags.ruleset.validate`.
"""

from __future__ import annotations

import itertools
import math
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    Field,
    PlainSerializer,
    PlainValidator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from gmtags.ruleset.base import RulesetModel, SheetId

# ---------------------------------------------------------------------------
# Numbers and scalars


def _finite_number(value: object) -> int | float:
    """A JSON number that is finite; ints stay ints so a sheet shows `2`, not `2.0`."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PydanticCustomError("number_type", "must be a number")
    if isinstance(value, float) and not math.isfinite(value):
        raise PydanticCustomError("finite_number", "must be a finite number")
    return value


Number = Annotated[int | float, PlainValidator(_finite_number)]
"""A finite JSON number (SCHEMA-NOTES §4 `const`: "a finite number"), never a boolean."""


def number_between(low: float, high: float) -> AfterValidator:
    """An after-validator keeping a `Number` within [low, high]."""

    def check(value: int | float) -> int | float:
        if not low <= value <= high:
            raise PydanticCustomError(
                "number_range", "must be from {low} to {high}", {"low": low, "high": high}
            )
        return value

    return AfterValidator(check)


def _scalar(value: object) -> str | int | float | bool:
    """A cell or field value: a string of at most 80 characters, a finite number or a boolean."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        if len(value) > 80:
            raise PydanticCustomError("scalar_length", "a text value has at most 80 characters")
        return value
    return _finite_number(value)


Scalar = Annotated[str | int | float | bool, PlainValidator(_scalar)]
"""A value a field or a list cell can hold, as `hideWhen` and `where` compare it."""

Rounding = Literal["down", "up", "nearest"]
"""SCHEMA-NOTES §4: how a scaled or multiplied number is rounded (default `down`)."""

TrackRead = Literal["value", "filled", "remaining", "penalty"]
"""002: what `liveTrack` reads; `penalty` only on a wound track."""

# ---------------------------------------------------------------------------
# Step tables


def _step_row(value: object) -> tuple[int | float, int | float]:
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise PydanticCustomError("step_row", "a step is a [threshold, value] pair")
    return _finite_number(value[0]), _finite_number(value[1])


def _step_row_json(row: tuple[int | float, int | float]) -> list[int | float]:
    return [row[0], row[1]]


StepRow = Annotated[
    tuple[int | float, int | float],
    PlainValidator(_step_row),
    PlainSerializer(_step_row_json, when_used="json"),
]
"""A `[threshold, value]` pair, held as a tuple and written back as a JSON array."""


Step = tuple[int | float, int | float]


def ascending_steps(table: list[Step]) -> list[Step]:
    """Refuse a step table whose thresholds do not strictly ascend (SCHEMA-NOTES §4)."""
    for (before, _), (after, _) in itertools.pairwise(table):
        if after <= before:
            raise PydanticCustomError("step_order", "step thresholds must be strictly ascending")
    return table


StepTable = Annotated[
    list[StepRow], Field(min_length=1, max_length=100), AfterValidator(ascending_steps)
]
"""SCHEMA-NOTES §4: 1–100 `[threshold, value]` pairs, thresholds strictly ascending.

The value used is the one at the highest threshold ≤ the input; an input below
the first threshold gets the first value.
"""


def step_lookup(table: list[tuple[int | float, int | float]], number: float) -> int | float:
    """The value a step table gives `number` (SCHEMA-NOTES §4)."""
    chosen = table[0][1]
    for threshold, value in table:
        if threshold <= number:
            chosen = value
        else:
            break
    return chosen


# ---------------------------------------------------------------------------
# The reference itself


class ListSumWhere(RulesetModel):
    """004, "Filas contadas…": read only rows whose `column` cell equals `equals`."""

    column: SheetId
    equals: Scalar


class ListSum(RulesetModel):
    """002 `listSum`: add up a number column of a list, or count its rows (004, 1.205).

    `onlyWhen` names a boolean column (only rows where it is on count); `where`
    keeps rows whose cell equals a value; `count: true` counts rows instead of
    summing `column`, so exactly one of `column` and `count` is given.
    """

    list: SheetId
    column: SheetId | None = None
    only_when: SheetId | None = Field(default=None, alias="onlyWhen")
    where: ListSumWhere | None = None
    count: bool | None = None

    @model_validator(mode="after")
    def _column_or_count(self) -> ListSum:
        counting = self.count is True
        if counting == (self.column is not None):
            raise PydanticCustomError(
                "list_sum_shape", "listSum takes exactly one of column or count: true"
            )
        return self


ItemSource = Literal["worn", "carried", "all"]
ItemPick = Literal["sum", "max", "min", "count"]


class ItemStat(RulesetModel):
    """SCHEMA-NOTES §4 `itemStat`: read the items a character has; a live read (002).

    `stat` is required unless `pick` is `count`.
    """

    stat: SheetId | None = None
    from_: ItemSource = Field(alias="from")
    pick: ItemPick
    slot: SheetId | None = None
    category: SheetId | None = None
    tag: SheetId | None = None
    default: Number | None = None

    @model_validator(mode="after")
    def _stat_unless_count(self) -> ItemStat:
        if self.stat is None and self.pick != "count":
            raise PydanticCustomError("item_stat", "itemStat needs stat unless pick is count")
        return self


RefKey = Literal[
    "const",
    "field",
    "derived",
    "abilityScore",
    "abilityMod",
    "abilityModFromField",
    "skillMod",
    "saveMod",
    "listSum",
    "livePool",
    "liveTrack",
    "itemStat",
]

_ID_KEYS: frozenset[str] = frozenset(
    {
        "field",
        "derived",
        "abilityScore",
        "abilityMod",
        "abilityModFromField",
        "skillMod",
        "saveMod",
        "livePool",
        "liveTrack",
    }
)


class RulesetValueRef(RulesetModel):
    """A value reference: exactly one key naming where a number comes from.

    002, "Todo lector de números…": `{ "derived": "grit_max" }`. `read` is only
    allowed beside `liveTrack` and does not count as the reference's key.
    """

    const: Number | None = None
    field: SheetId | None = None
    derived: SheetId | None = None
    ability_score: SheetId | None = Field(default=None, alias="abilityScore")
    ability_mod: SheetId | None = Field(default=None, alias="abilityMod")
    ability_mod_from_field: SheetId | None = Field(default=None, alias="abilityModFromField")
    skill_mod: SheetId | None = Field(default=None, alias="skillMod")
    save_mod: SheetId | None = Field(default=None, alias="saveMod")
    list_sum: ListSum | None = Field(default=None, alias="listSum")
    live_pool: SheetId | None = Field(default=None, alias="livePool")
    live_track: SheetId | None = Field(default=None, alias="liveTrack")
    read: TrackRead | None = None
    item_stat: ItemStat | None = Field(default=None, alias="itemStat")

    @model_validator(mode="after")
    def _exactly_one_key(self) -> RulesetValueRef:
        if len(self._given()) != 1:
            raise PydanticCustomError(
                "value_ref_keys",
                "a value reference has exactly one key out of const, field, derived, "
                "abilityScore, abilityMod, abilityModFromField, skillMod, saveMod, listSum, "
                "livePool, liveTrack and itemStat",
            )
        if self.read is not None and self.live_track is None:
            raise PydanticCustomError("value_ref_read", "read is only allowed beside liveTrack")
        return self

    def _given(self) -> list[str]:
        """The attribute names of the keys given (a null counts as absent, as everywhere)."""
        return [name for name in _KEY_OF if getattr(self, name) is not None]

    @property
    def key(self) -> RefKey:
        """The reference's one key, as the file spells it (`abilityMod`, `listSum`, …)."""
        return _KEY_OF[self._given()[0]]

    @property
    def target(self) -> str | None:
        """The id the reference names, for every key that names a single id."""
        name = self._given()[0]
        value = getattr(self, name)
        return value if _KEY_OF[name] in _ID_KEYS and isinstance(value, str) else None

    @property
    def track_read(self) -> TrackRead:
        """What a `liveTrack` read reads: `value` when `read` is omitted."""
        return self.read or "value"


_KEY_OF: dict[str, RefKey] = {
    "const": "const",
    "field": "field",
    "derived": "derived",
    "ability_score": "abilityScore",
    "ability_mod": "abilityMod",
    "ability_mod_from_field": "abilityModFromField",
    "skill_mod": "skillMod",
    "save_mod": "saveMod",
    "list_sum": "listSum",
    "live_pool": "livePool",
    "live_track": "liveTrack",
    "item_stat": "itemStat",
}
