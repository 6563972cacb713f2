"""What the builder's steps share: value readers, creation dice, targets, prices (004).

Every model is strict (`RulesetModel`); the rules between keys are `rules()`
of `gmtags.ruleset.catalogs._Ruled` parts, so `Builder` reports them all at
once, each at its path, once the shapes are sound (as a catalog does).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Self

from pydantic import (
    Field,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from gmtags.ruleset.base import PromptSafe80, RulesetModel, SheetId
from gmtags.ruleset.builder.checking import RefCheck
from gmtags.ruleset.catalogs import (
    CellValue,
    RatingTarget,
    _given,
    _Ruled,
    by_json_type,
    every_rule,
    raise_catalog,
)
from gmtags.ruleset.refs import Number, RulesetValueRef, StepRow
from gmtags.ruleset.resolution.common import Found

__all__ = [
    "MAX_BUDGET",
    "MAX_PICKS",
    "MAX_POOL_BUDGET",
    "Before",
    "CellValue",
    "Checked",
    "Cost",
    "Dice",
    "Found",
    "Label",
    "NumberOrRef",
    "RatingTarget",
    "Ruled",
    "StepBase",
    "StepId",
    "at_most",
    "given",
]

Ruled = _Ruled
"""A part with rules between its keys (`rules()`), reported by `Builder` all at once."""
given = _given
"""The keys a model was given, as the file spells them."""


class Checked(Ruled):
    """A part whose rules (and those of every part below it) are reported as soon as its own
    shapes are sound, beside the shape problems of its siblings: a broken step never hides
    the rules another step breaks."""

    @model_validator(mode="after")
    def _rules_hold(self) -> Self:
        raise_catalog(every_rule(self), type(self).__name__)
        return self


def at_most(limit: int, what: str) -> WrapValidator:
    """004's ceiling on a list of the builder ("Hasta 32 pasos"), checked beside its items.

    A longer list is refused at the list ("a builder has at most 32 steps, not 38") and
    every item is still read, so the problems inside each are reported with it, each at
    its path (pydantic's `max_length` would report the count alone). Its JSON Schema is
    the list's with `maxItems` (`gmtags.ruleset.schema`).
    """

    def validate(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        found: list[InitErrorDetails] = []
        try:
            result = handler(value)
        except ValidationError as error:
            found = [
                InitErrorDetails(
                    type=PydanticCustomError(item["type"], item["msg"]),
                    loc=item["loc"],
                    input=item["input"],
                )
                for item in error.errors()
            ]
        if isinstance(value, list) and len(value) > limit:
            message = f"a builder has at most {limit} {what}, not {len(value)}"
            count = PydanticCustomError("too_many", message)
            found.insert(0, InitErrorDetails(type=count, loc=(), input=value))
        if found:
            raise ValidationError.from_exception_data("list", found)
        return result

    return WrapValidator(validate)


StepId = SheetId
"""004: a step's `id`, "estable": named by `within.step`, `reads.before`, ledger keys, …"""
Label = PromptSafe80

MAX_PICKS = 60
"""004, catalog `min`/`max`: "Ambos pueden llegar a 60" (BUILDER §3.1: ceilings only)."""
MAX_BUDGET = 1_200_000
"""004, allocate: "Los presupuestos son como máximo de 1.200.000 puntos"."""
MAX_POOL_BUDGET = 100_000
"""004, pools: a budget resolves to a finite number "entre 0 y 100.000"."""

NumberOrRef = Annotated[
    Number | RulesetValueRef,
    by_json_type(("a number", (int, float), Number), ("a value reference", dict, RulesetValueRef)),
]
"""A number written in the file, or a value reference read from the sheet (`floor`, `min`)."""


class Before(RulesetModel):
    """004, `reads{before}` (1.160): read the sheet as the steps before `before` leave it."""

    before: StepId


class Dice(Ruled):
    """004, "Los dados de creación son { count, sides, keep?, add?, multiplier? }" (1.162):
    the `keep` highest faces, plus `add`, times `multiplier`; CoC's (2d6+6)×5 is
    `{count: 2, sides: 6, add: 6, multiplier: 5}`.

    Limits the seed does not give: 1–100 dice of 2–1000 sides (a rolled column's
    sides, 002), `add` within ±10,000, `multiplier` 1–1,000.
    """

    count: Annotated[int, Field(ge=1, le=100)]
    sides: Annotated[int, Field(ge=2, le=1000)]
    keep: Annotated[int, Field(ge=1, le=100)] | None = None
    add: Annotated[int, Field(ge=-10_000, le=10_000)] | None = None
    multiplier: Annotated[int, Field(ge=1, le=1000)] | None = None

    def rules(self) -> Found:
        """`keep` keeps some of the dice thrown: never more than `count`."""
        if self.keep is not None and self.keep > self.count:
            return [(("keep",), f"keep ({self.keep}) is at most count ({self.count})")]
        return []


class Cost(Ruled):
    """004, spend offers: "Un coste es exactamente uno de estos": `{flat}`, `{perRank}`,
    `{table: [[value, cumulative price], …]}` (values strictly ascending) or
    `{unpriced: true}` (1.207)."""

    flat: Number | None = None
    per_rank: Number | None = Field(default=None, alias="perRank")
    table: Annotated[list[StepRow], Field(min_length=2, max_length=100)] | None = None
    unpriced: Literal[True] | None = None

    def rules(self) -> Found:
        """Exactly one kind of price; a table's values strictly ascend."""
        if len(given(self)) != 1:
            return [((), "a cost is exactly one of flat, perRank, table or unpriced")]
        rows = self.table or []
        return [
            (("table", place + 1, 0), "table values strictly ascend")
            for place in range(len(rows) - 1)
            if rows[place + 1][0] <= rows[place][0]
        ]

    def positive(self) -> bool:
        """004: "Los precios tienen márgenes positivos": every step up costs more than 0."""
        if self.flat is not None:
            return self.flat > 0
        if self.per_rank is not None:
            return self.per_rank > 0
        rows = self.table or []
        return all(rows[i + 1][1] > rows[i][1] for i in range(len(rows) - 1))


class ListColumn(RulesetModel):
    """A numeric column of a sheet list: `{list, column}` (allocate `rows`, 1.216)."""

    list: SheetId
    column: SheetId


Target = RatingTarget
"""004: "exactamente un { ability }, { field } numérico, { skill }, { save } o { bonus }"."""


class StepBase(Checked):
    """004: "Hasta 32 pasos, cada uno { id, label, kind, ... }"; any step may carry
    `when` (shown and applied only while its non-live value is above 0) and
    `requiredWhen` (its badge counts only while above 0) (1.151)."""

    id: StepId
    label: Label
    when: RulesetValueRef | None = None
    required_when: RulesetValueRef | None = Field(default=None, alias="requiredWhen")

    def check_refs(self, check: RefCheck, at: str) -> None:
        """The kind's references to the rest of the ruleset, each problem added to `check`
        (`gmtags.ruleset.validate.builder_refs.BuilderCheck`, a `RefCheck`) at its path below
        the step's path `at`. Every kind brings its own (a kind registered by the builder
        too); a kind that names nothing outside itself keeps this one, which finds nothing."""
