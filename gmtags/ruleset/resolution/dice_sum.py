"""000, "dice-sum": dice added to the sheet's number, read against a dc."""

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
    NoSpend,
    Rung,
    distinct,
    raise_found,
)
from gmtags.ruleset.resolution.rules import (
    ResolutionRules,
)


class SumRung(Rung):
    """000, "dice-sum": `dc` is the number the total must reach (SCHEMA-NOTES §5: −100..1000)."""

    dc: Annotated[int, Field(ge=-100, le=1000)]


NaturalRule = Literal["none", "both", "max-only", "min-only"]


class SumDice(RulesetModel):
    """000, "dice-sum": `count` dice of `sides` (SCHEMA-NOTES §5: 1–10 of 2–1000).

    `faces` (1.136) gives what each face is worth, from the lowest: Fate's
    four dice are `{count: 4, sides: 3, faces: [-1, 0, 1]}`. One value per face.
    """

    count: Annotated[int, Field(ge=1, le=10)]
    sides: Annotated[int, Field(ge=2, le=1000)]
    faces: list[Annotated[int, Field(ge=-1000, le=1000)]] | None = None

    @model_validator(mode="after")
    def _one_value_per_face(self) -> Self:
        if self.faces is not None and len(self.faces) != self.sides:
            raise_found(
                [
                    (
                        ("faces",),
                        f"faces gives one value per face: {self.sides} values, "
                        f"not {len(self.faces)}",
                    )
                ],
                "SumDice",
            )
        return self


class Naturals(RulesetModel):
    """000, "dice-sum": what a single die's top and bottom faces do on checks and saves."""

    check: NaturalRule = "none"
    save: NaturalRule = "none"


class OpenEnded(RulesetModel):
    """000, "dice-sum" (1.136): a single die that keeps rolling.

    A face ≥ `high` rolls again and adds, a face ≤ `low` rolls again and
    subtracts; Rolemaster is `{high: 96, low: 5}` on a d100. At least one is
    given; both must be faces of the die that do not cover every face
    (`high` ≥ 2, `low` below the top face), and `low` < `high`.
    """

    high: Annotated[int, Field(ge=2, le=1000)] | None = None
    low: Annotated[int, Field(ge=1, le=999)] | None = None

    @model_validator(mode="after")
    def _one_end(self) -> Self:
        if self.high is None and self.low is None:
            raise PydanticCustomError("open_ended", "openEnded takes high, low or both")
        if self.high is not None and self.low is not None and self.low >= self.high:
            raise_found([(("low",), "low must be below high")], "OpenEnded")
        return self


class DiceSum(ResolutionRules):
    """000, "dice-sum: sumar los dados": dice plus the sheet's number against a DC.

    `naturals` other than none, `openEnded` and `unmodified` need a single
    die; the faces they name must be on it. A dice-sum ruleset cannot spend.
    """

    rung: ClassVar[type[Rung]] = SumRung

    kind: Literal["dice-sum"]
    dice: SumDice = SumDice(count=1, sides=20)
    advantage: bool = False
    naturals: Naturals | None = None
    open_ended: OpenEnded | None = Field(default=None, alias="openEnded")
    unmodified: (
        Annotated[list[Annotated[int, Field(ge=1)]], Field(min_length=1, max_length=20)] | None
    ) = None
    difficulty_ladder: Annotated[list[SumRung], Field(min_length=1, max_length=12)] | None = Field(
        default=None, alias="difficultyLadder"
    )
    spend: NoSpend = None

    def kind_rules(self) -> Found:
        found: Found = []
        sides, single = self.dice.sides, self.dice.count == 1
        if self.naturals is not None:
            for key in ("check", "save"):
                if getattr(self.naturals, key) != "none" and not single:
                    found.append(
                        (
                            ("naturals", key),
                            "naturals need a single die: a roll of several dice uses none",
                        )
                    )
        if self.open_ended is not None:
            if not single:
                found.append((("openEnded",), "openEnded needs a single die"))
            high, low = self.open_ended.high, self.open_ended.low
            if high is not None and high > sides:
                found.append((("openEnded", "high"), f"face {high} is not on a d{sides}"))
            if low is not None and low >= sides:
                found.append(
                    (("openEnded", "low"), f"low must be below the top face of a d{sides}")
                )
        if self.unmodified is not None:
            if not single:
                found.append((("unmodified",), "unmodified faces are those of a single die"))
            found += distinct([str(face) for face in self.unmodified], ("unmodified",), "face")
            for position, face in enumerate(self.unmodified):
                if face > sides:
                    found.append((("unmodified", position), f"face {face} is not on a d{sides}"))
        return found

    def shift_problem(self) -> str | None:
        if self.dice.count != 1:
            return 'naturals: "shift" needs a single die'
        if self.naturals is not None and (self.naturals.check, self.naturals.save) != (
            "none",
            "none",
        ):
            return 'naturals: "shift" replaces resolution.naturals: set its check and save to none'
        return None
