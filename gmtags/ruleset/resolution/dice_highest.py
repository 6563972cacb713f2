"""000, "dice-highest": the sheet's number of dice, the highest read."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, ClassVar, Literal, Self

from pydantic import (
    Field,
    model_validator,
)

from gmtags.ruleset.base import PromptSafe80, RulesetModel
from gmtags.ruleset.resolution.common import (
    Found,
    PromptSafe200,
    Rung,
    raise_found,
)
from gmtags.ruleset.resolution.pools import PoolDie, SituationalDice
from gmtags.ruleset.resolution.rules import (
    ResolutionRules,
    Spend,
    spend_rules,
)


class HighestRung(Rung):
    """000, "dice-highest": `dc`, the number the kept dice must reach (1..keep × sides)."""

    dc: Annotated[int, Field(ge=1, le=300)]


class HighestPool(RulesetModel):
    """000, "dice-highest": bounds on the dice thrown, at most 20."""

    min: Annotated[int, Field(ge=0, le=20)]
    max: Annotated[int, Field(ge=1, le=20)]

    @model_validator(mode="after")
    def _in_order(self) -> Self:
        if self.min > self.max:
            raise_found([(("max",), "pool.max must be at least pool.min")], "HighestPool")
        return self


class Critical(RulesetModel):
    """000, "dice-highest": `count` dice showing the top face (or `face` and up) is a critical."""

    count: Annotated[int, Field(ge=1, le=20)]
    face: Annotated[int, Field(ge=2, le=100)] | None = None


class DarkDice(RulesetModel):
    """000, "dice-highest": Trophy Dark's dark dice, 1–10, added with `dark="N"`.

    `outcome: "light"` (1.149) lets only the light dice decide the result.
    """

    label: PromptSafe80
    max: Annotated[int, Field(ge=1, le=10)]
    text: PromptSafe200 | None = None
    outcome: Literal["all", "light"] = "all"


class DiceHighest(ResolutionRules):
    """000, "dice-highest: tirar los dados y leer el más alto" (1.138).

    Sum the `keep` (1–3) highest of at most 20 dice; a ladder `dc` is 1 to
    keep × sides; critical faces are on the die; spend buys only dice. A
    ruleset of this kind has no combat of its own (checked by `validate`).
    """

    rung: ClassVar[type[Rung]] = HighestRung
    buys: ClassVar[frozenset[str]] = frozenset({"dice"})

    kind: Literal["dice-highest"]
    die: PoolDie = PoolDie(sides=6)
    pool: HighestPool = HighestPool(min=0, max=20)
    keep: Annotated[int, Field(ge=1, le=3)] = 1
    zero_dice: Literal["lowest-of-two", "fail"] = Field(default="lowest-of-two", alias="zeroDice")
    critical: Critical | None = None
    dark: DarkDice | None = None
    situational_dice: SituationalDice | None = Field(default=None, alias="situationalDice")
    difficulty_ladder: Annotated[list[HighestRung], Field(min_length=1, max_length=12)] | None = (
        Field(default=None, alias="difficultyLadder")
    )
    spend: Spend = []

    def kind_rules(self) -> Found:
        found: Found = []
        critical, sides = self.critical, self.die.sides
        if critical is not None:
            if critical.face is not None and critical.face > sides:
                found.append((("critical", "face"), f"face {critical.face} is not on a d{sides}"))
            dice = self.pool.max
            if self.dark is not None and self.dark.outcome == "all":
                dice += self.dark.max
            if critical.count > dice:
                found.append(
                    (("critical", "count"), f"a check throws at most {dice} dice that count")
                )
        return found + spend_rules(self.spend, self.kind_name, self.buys)

    def ladder_rules(self, rungs: Sequence[Rung]) -> Found:
        """000: "dc= … de 1 a keep veces las caras del dado"."""
        top = self.keep * self.die.sides
        return [
            ((position, "dc"), f"dc is at most keep × sides ({top})")
            for position, rung in enumerate(rungs)
            if isinstance(rung, HighestRung) and rung.dc > top
        ]
