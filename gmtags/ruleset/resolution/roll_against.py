"""000, "roll-against": a roll at most (or at least) the sheet's number."""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal, Self

from pydantic import (
    Field,
    model_validator,
)
from pydantic_core import PydanticCustomError

from gmtags.ruleset.base import RulesetModel
from gmtags.ruleset.resolution.common import (
    Found,
    Loc,
    NoSpend,
    Rung,
    raise_found,
)
from gmtags.ruleset.resolution.rules import (
    ResolutionRules,
)


class AgainstRung(Rung):
    """000, "roll-against": `dc` moves the target; `divide` (2–10) divides the sheet number first.

    The tag's `dc=` moves the number from −100 to 100; a rung's `dc` keeps
    to the same range.
    """

    dc: Annotated[int, Field(ge=-100, le=100)]
    divide: Annotated[int, Field(ge=2, le=10)] | None = None


class AgainstDice(RulesetModel):
    """000, "roll-against": what is thrown and added up (1d100 by default)."""

    count: Annotated[int, Field(ge=1, le=10)]
    sides: Annotated[int, Field(ge=2, le=1000)]


class WhenTarget(RulesetModel):
    """000, "roll-against": limit a critical rule to targets ≥ `atLeast` and/or < `below`."""

    at_least: int | None = Field(default=None, alias="atLeast")
    below: int | None = None

    @model_validator(mode="after")
    def _a_bound(self) -> Self:
        if self.at_least is None and self.below is None:
            raise PydanticCustomError("when_target", "whenTarget takes atLeast, below or both")
        if self.at_least is not None and self.below is not None and self.at_least >= self.below:
            raise_found([(("below",), "below must be above atLeast")], "WhenTarget")
        return self


class CriticalRule(RulesetModel):
    """000, "roll-against": a critical by faces (`from`, `to`, either open) or by `pastTarget`.

    `pastTarget` (a failure only) is a roll that far or farther on the
    failing side of the target.
    """

    from_: int | None = Field(default=None, alias="from")
    to: int | None = None
    past_target: Annotated[int, Field(ge=1, le=10000)] | None = Field(
        default=None, alias="pastTarget"
    )
    when_target: WhenTarget | None = Field(default=None, alias="whenTarget")

    @model_validator(mode="after")
    def _one_form(self) -> Self:
        faces = self.from_ is not None or self.to is not None
        if faces == (self.past_target is not None):
            raise PydanticCustomError(
                "critical_rule", "a critical rule names faces (from, to) or pastTarget, not both"
            )
        if self.from_ is not None and self.to is not None and self.from_ > self.to:
            raise_found([(("to",), "to cannot be below from")], "CriticalRule")
        return self


class Tens(RulesetModel):
    """000, "roll-against": extra tens dice on a single d100, kept best or worst, up to `max`."""

    max: Annotated[int, Field(ge=1, le=10)]


CriticalRules = Annotated[list[CriticalRule], Field(min_length=1, max_length=6)]


class RollAgainst(ResolutionRules):
    """000, "roll-against: sacar como máximo (o como mínimo) el número de la ficha" (1.139).

    The sheet's number is the target; the roll succeeds at or below it
    (`at-most`) or at or above it (`at-least`). Critical rules (up to six
    each) name faces the dice can show; `pastTarget` is only for failures;
    `tens` only on a single d100; `outcomes.by: "fraction"` only at-most. A
    roll-against ruleset cannot spend.
    """

    rung: ClassVar[type[Rung]] = AgainstRung

    kind: Literal["roll-against"]
    dice: AgainstDice = AgainstDice(count=1, sides=100)
    against: Literal["at-most", "at-least"] = "at-most"
    critical_success: CriticalRules | None = Field(default=None, alias="criticalSuccess")
    critical_failure: CriticalRules | None = Field(default=None, alias="criticalFailure")
    tens: Tens | None = None
    difficulty_ladder: Annotated[list[AgainstRung], Field(min_length=1, max_length=12)] | None = (
        Field(default=None, alias="difficultyLadder")
    )
    spend: NoSpend = None

    def kind_rules(self) -> Found:
        found: Found = []
        low, high = self.dice.count, self.dice.count * self.dice.sides
        for key, rules in (
            ("criticalSuccess", self.critical_success),
            ("criticalFailure", self.critical_failure),
        ):
            for position, rule in enumerate(rules or []):
                at: Loc = (key, position)
                if key == "criticalSuccess" and rule.past_target is not None:
                    found.append(((*at, "pastTarget"), "pastTarget is only for a failure"))
                for name, face in (("from", rule.from_), ("to", rule.to)):
                    if face is not None and not low <= face <= high:
                        found.append(((*at, name), f"the dice roll {low}..{high}, never {face}"))
        if self.tens is not None and (self.dice.count, self.dice.sides) != (1, 100):
            found.append((("tens",), "tens dice go only on a single d100"))
        return found

    def fraction_problem(self) -> str | None:
        return None if self.against == "at-most" else "by: fraction is only for an at-most roll"

    def shift_problem(self) -> str | None:
        return None if self.dice.count == 1 else 'naturals: "shift" needs a single die'
