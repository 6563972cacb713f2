"""002, "La ficha" and "Números que lo siguen.": derived values."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    Field,
    model_validator,
)
from pydantic_core import PydanticCustomError

from gmtags.ruleset.base import RulesetModel, SheetId
from gmtags.ruleset.refs import (
    Number,
    Rounding,
    RulesetValueRef,
    StepTable,
)
from gmtags.ruleset.sheet.common import tagged
from gmtags.ruleset.sheet.entries import Placed

# ---------------------------------------------------------------------------
# Derived values (002, "La ficha" and "Números que lo siguen.")


class _Derived(Placed):
    def refs(self) -> list[tuple[str, RulesetValueRef]]:
        """Every value reference this value reads, each with its JSON path below the value."""
        return []


class _OfMany(_Derived):
    of: list[RulesetValueRef]

    def refs(self) -> list[tuple[str, RulesetValueRef]]:
        """Every value reference this value reads, each with its JSON path below the value."""
        return [(f"of.{index}", ref) for index, ref in enumerate(self.of)]


class SumDerived(_OfMany):
    """`sum`: 1–12 references added up."""

    op: Literal["sum"]
    of: Annotated[list[RulesetValueRef], Field(min_length=1, max_length=12)]


class MinDerived(_OfMany):
    """`min`: the least of 2–12 references."""

    op: Literal["min"]
    of: Annotated[list[RulesetValueRef], Field(min_length=2, max_length=12)]


class MaxDerived(_OfMany):
    """`max`: the greatest of 2–12 references."""

    op: Literal["max"]
    of: Annotated[list[RulesetValueRef], Field(min_length=2, max_length=12)]


class MultiplyDerived(_OfMany):
    """`multiply` (002, 1.82): two to six references multiplied together (SPEC §9: `of`)."""

    op: Literal["multiply"]
    of: Annotated[list[RulesetValueRef], Field(min_length=2, max_length=6)]


class ScaleDerived(_Derived):
    """`scale`: one reference times a fixed number, rounded (default down)."""

    op: Literal["scale"]
    of: RulesetValueRef
    multiplier: Number
    round: Rounding = "down"

    def refs(self) -> list[tuple[str, RulesetValueRef]]:
        """Every value reference this value reads, each with its JSON path below the value."""
        return [("of", self.of)]


class StepTableDerived(_Derived):
    """`stepTable`: look a reference up in thresholds (a level giving a proficiency bonus)."""

    op: Literal["stepTable"]
    from_: RulesetValueRef = Field(alias="from")
    table: StepTable

    def refs(self) -> list[tuple[str, RulesetValueRef]]:
        """Every value reference this value reads, each with its JSON path below the value."""
        return [("from", self.from_)]


class EnumTableFrom(RulesetModel):
    """002, "Números que lo siguen.": exactly one of `field` (an enum field) or `liveState`.

    The key is `liveState`, not `state`, so that a live read is visible as one:
    nothing worked out before play may read a table keyed on a live state.
    """

    field: SheetId | None = None
    live_state: SheetId | None = Field(default=None, alias="liveState")

    @model_validator(mode="after")
    def _one_source(self) -> EnumTableFrom:
        if (self.field is None) == (self.live_state is None):
            raise PydanticCustomError(
                "enum_table_from", "from names exactly one of field or liveState"
            )
        return self


class EnumTableDerived(_Derived):
    """`enumTable`: a number for each value of an enum field or live state (002).

    A value the table omits, and a state the sheet hides, read `default` (0).
    """

    op: Literal["enumTable"]
    from_: EnumTableFrom = Field(alias="from")
    table: Annotated[dict[str, Number], Field(min_length=1, max_length=40)]
    default: Number = 0


Derived = Annotated[
    SumDerived
    | MinDerived
    | MaxDerived
    | MultiplyDerived
    | ScaleDerived
    | StepTableDerived
    | EnumTableDerived,
    tagged(
        "op",
        {
            "sum": SumDerived,
            "min": MinDerived,
            "max": MaxDerived,
            "multiply": MultiplyDerived,
            "scale": ScaleDerived,
            "stepTable": StepTableDerived,
            "enumTable": EnumTableDerived,
        },
    ),
]
"""A derived value, tagged by `op`; it is worked out from others and never typed in."""

DerivedValue = (
    SumDerived
    | MinDerived
    | MaxDerived
    | MultiplyDerived
    | ScaleDerived
    | StepTableDerived
    | EnumTableDerived
)
