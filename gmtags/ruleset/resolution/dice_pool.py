"""000, "dice-pool: tirar los dados y contarlos": the sheet's number is the dice thrown."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, ClassVar, Literal, Self

from pydantic import (
    Field,
    model_validator,
)
from pydantic_core import PydanticCustomError

from gmtags.ruleset.base import PromptSafe80, RulesetModel, SheetId
from gmtags.ruleset.refs import RulesetValueRef
from gmtags.ruleset.resolution.common import (
    Found,
    Loc,
    PromptSafe200,
    Rung,
    distinct,
    raise_found,
)
from gmtags.ruleset.resolution.pools import PoolDie, SituationalDice
from gmtags.ruleset.resolution.rules import (
    RerollRule,
    ResolutionRules,
    Spend,
    StandingReroll,
    spend_rules,
)


class PoolRung(Rung):
    """000, "dice-pool": `successes` needed, and optionally the per-die `target` at that rung.

    A rung `target` is only allowed when the target can move, and within its
    min..max (checked by `DicePool`).
    """

    successes: Annotated[int, Field(ge=1, le=100)]
    target: Annotated[int, Field(ge=2, le=100)] | None = None


PoolFace = Annotated[int, Field(ge=2, le=100)]
"""A face a dice-pool rule names (SCHEMA-NOTES §5: 2–100, and on the die)."""


class PoolLimits(RulesetModel):
    """000, "dice-pool": bounds on the sheet's number before explosions (max ≤ 100).

    `abilityPlusAbility` lets an ability check name a second ability with `with=`.
    """

    min: Annotated[int, Field(ge=0, le=100)]
    max: Annotated[int, Field(ge=1, le=100)]
    ability_plus_ability: bool = Field(default=False, alias="abilityPlusAbility")

    @model_validator(mode="after")
    def _in_order(self) -> Self:
        if self.min > self.max:
            raise_found([(("max",), "pool.max must be at least pool.min")], "PoolLimits")
        return self


class Target(RulesetModel):
    """000, "dice-pool": the face a die must reach, with the range the GM may move it in.

    min ≤ default ≤ max; equal values fix it. `from` ("target.from: opcional",
    1.137) reads each character's target from the sheet, clamped to min..max.
    """

    default: PoolFace
    min: PoolFace
    max: PoolFace
    from_: RulesetValueRef | None = Field(default=None, alias="from")

    @model_validator(mode="after")
    def _in_order(self) -> Self:
        found: Found = []
        if self.min > self.max:
            found.append((("max",), "target.max must be at least target.min"))
        elif not self.min <= self.default <= self.max:
            found.append((("default",), "target.default must lie within target.min..max"))
        raise_found(found, "Target")
        return self

    @property
    def movable(self) -> bool:
        """True when the GM may move the target (min < max)."""
        return self.min < self.max


class FaceRule(RulesetModel):
    """000, "dice-pool": `explode` or `double`, from a face and down to a `min` a check may ask.

    With `min` and no `from` the rule fires only when a check asks for it;
    `from` cannot be below `min`.
    """

    from_: PoolFace | None = Field(default=None, alias="from")
    min: PoolFace | None = None

    @model_validator(mode="after")
    def _from_and_min(self) -> Self:
        if self.from_ is None and self.min is None:
            raise PydanticCustomError("face_rule", "the rule takes from, min or both")
        if self.from_ is not None and self.min is not None and self.from_ < self.min:
            raise_found([(("from",), "from cannot be below min")], "FaceRule")
        return self


class Cancel(RulesetModel):
    """000, "dice-pool": a face ≤ `upTo` takes a success away (never below zero)."""

    up_to: Annotated[int, Field(ge=1, le=99)] = Field(alias="upTo")


class Botch(RulesetModel):
    """000, "dice-pool": no success and a face ≤ `upTo` is a critical failure.

    `halfOrMore` reads it as at least half the first-thrown dice at or below `upTo`.
    """

    up_to: Annotated[int, Field(ge=1, le=99)] = Field(alias="upTo")
    rule: Literal["noSuccesses", "halfOrMore"] = "noSuccesses"


class Exceptional(RulesetModel):
    """000, "dice-pool": this many net successes on a passed check is a critical success."""

    successes: Annotated[int, Field(ge=1, le=100)]


class Stance(RulesetModel):
    """000, "target.from: opcional" (1.137): skills whose dice count below or above the target.

    Lasers & Feelings counts below for Lasers and above for Feelings. A skill
    is in at most one stance. `skills` may be empty: 004's list row checks
    name a stance of their own ("Pruebas de fila en una postura").
    """

    id: SheetId
    label: PromptSafe80
    count: Literal["below", "above"]
    skills: Annotated[list[SheetId], Field(max_length=120)] = []


class Exact(RulesetModel):
    """000, "target.from: opcional" (1.137): a die showing exactly the target.

    It is named by `label` ("LASER FEELINGS"), `text` may say what it does,
    and it counts as a success unless `counts` is false.
    """

    label: PromptSafe80
    text: PromptSafe200 | None = None
    counts: bool = True


class MechanicsCheck(RulesetModel):
    """000, "Un amuleto que cambia una tirada" (SCHEMA-NOTES §9): a catalog entry's check effect.

    `reroll` re-throws faces ≤ upTo, `dice` adds dice before the throw,
    `successes` adds successes after counting, `threshold` sets the per-die
    target, `explode`/`double` move those rules' faces. At least one. Only a
    dice-pool ruleset may apply it; its faces are checked by
    `DicePool.check_effect_rules`.
    """

    reroll: RerollRule | None = None
    dice: Annotated[int, Field(ge=1, le=10)] | None = None
    successes: Annotated[int, Field(ge=1, le=10)] | None = None
    threshold: Annotated[int, Field(ge=2, le=1000)] | None = None
    explode: Annotated[int, Field(ge=2, le=1000)] | None = None
    double: Annotated[int, Field(ge=2, le=1000)] | None = None

    @model_validator(mode="after")
    def _does_something(self) -> Self:
        if all(getattr(self, key) is None for key in type(self).model_fields):
            raise PydanticCustomError(
                "check_effect",
                "mechanics.check must do at least one of reroll, dice, successes, "
                "threshold, explode or double",
            )
        return self


class DicePool(ResolutionRules):
    """000, "dice-pool: tirar los dados y contarlos": the sheet's number is the dice thrown.

    "Las caras de cancel y botch deben estar por debajo del objetivo mínimo,
    y todas las caras nombradas deben existir en el dado": every face a rule
    names is on the die, cancel and botch are below target.min, a reroll's
    `upTo` is below the die's sides, `exceptional` is reachable. A dice pool
    may spend for successes, dice and rerolls.
    """

    rung: ClassVar[type[Rung]] = PoolRung
    buys: ClassVar[frozenset[str]] = frozenset({"successes", "dice", "reroll"})
    charms: ClassVar[bool] = True
    """000, "Un amuleto…": "Solo dice-pool puede aplicarlo"."""

    kind: Literal["dice-pool"]
    die: PoolDie = PoolDie(sides=10)
    pool: PoolLimits = PoolLimits(min=1, max=40)
    target: Target
    double: FaceRule | None = None
    explode: FaceRule | None = None
    cancel: Cancel | None = None
    botch: Botch | None = None
    exceptional: Exceptional | None = None
    situational_dice: SituationalDice | None = Field(default=None, alias="situationalDice")
    reroll: Annotated[list[StandingReroll], Field(min_length=1, max_length=6)] | None = None
    stances: Annotated[list[Stance], Field(max_length=6)] | None = None
    exact: Exact | None = None
    difficulty_ladder: Annotated[list[PoolRung], Field(min_length=1, max_length=12)] | None = Field(
        default=None, alias="difficultyLadder"
    )
    spend: Spend = []

    @property
    def max_successes(self) -> int:
        """SCHEMA-NOTES §5: the most successes a throw can count.

        (pool.max, plus pool.max again with explosions) × 2 when faces count double.
        """
        dice = self.pool.max * (2 if self.explode is not None else 1)
        return dice * (2 if self.double is not None else 1)

    def _face(self, face: int | None, loc: Loc) -> Found:
        sides = self.die.sides
        return [(loc, f"face {face} is not on a d{sides}")] if face and face > sides else []

    def kind_rules(self) -> Found:
        target = self.target
        found: Found = []
        for key in ("default", "min", "max"):
            found += self._face(getattr(target, key), ("target", key))
        if target.from_ is not None and not target.movable:
            found.append(
                (
                    ("target", "from"),
                    "target.from is clamped to target.min..max, which are equal here: "
                    "it could never change the target",
                )
            )
        for name, rule in (("explode", self.explode), ("double", self.double)):
            if rule is not None:
                found += self._face(rule.from_, (name, "from"))
                found += self._face(rule.min, (name, "min"))
        for name, low in (("cancel", self.cancel), ("botch", self.botch)):
            if low is not None and low.up_to >= target.min:
                found.append(
                    (
                        (name, "upTo"),
                        f"{name} faces must be below target.min ({target.min}): "
                        "a face that succeeds could never fire it",
                    )
                )
        if self.exceptional is not None and self.exceptional.successes > self.max_successes:
            found.append(
                (
                    ("exceptional", "successes"),
                    f"no throw can count more than {self.max_successes} successes",
                )
            )
        rerolls = self.reroll or []
        found += distinct([item.id for item in rerolls], ("reroll",), "reroll id", ("id",))
        for position, item in enumerate(rerolls):
            found += self._reroll_below_sides(item, ("reroll", position, "upTo"))
        found += self._stance_rules()
        found += spend_rules(self.spend, self.kind_name, self.buys)
        for position, entry in enumerate(self.spend):
            if entry.reroll is not None:
                found += self._reroll_below_sides(
                    entry.reroll, ("spend", position, "reroll", "upTo")
                )
        return found

    def _reroll_below_sides(self, reroll: RerollRule, loc: Loc) -> Found:
        sides = self.die.sides
        if reroll.up_to < sides:
            return []
        return [(loc, f"upTo must be below the die's {sides} sides, or every face re-throws")]

    def _stance_rules(self) -> Found:
        stances = self.stances or []
        found = distinct([item.id for item in stances], ("stances",), "stance id", ("id",))
        placed: dict[str, str] = {}
        for index, stance in enumerate(stances):
            for position, skill in enumerate(stance.skills):
                other = placed.setdefault(skill, stance.id)
                if other != stance.id or stance.skills.index(skill) != position:
                    found.append(
                        (
                            ("stances", index, "skills", position),
                            f"skill '{skill}' is already in stance '{other}': "
                            "a skill is in at most one stance",
                        )
                    )
        return found

    def ladder_rules(self, rungs: Sequence[Rung]) -> Found:
        """000: a rung `target` only when the target can move, and within min..max."""
        target = self.target
        found: Found = []
        for position, rung in enumerate(rungs):
            if not isinstance(rung, PoolRung) or rung.target is None:
                continue
            if not target.movable:
                found.append(
                    (
                        (position, "target"),
                        "a rung target needs a target the GM can move (target.min < target.max)",
                    )
                )
            elif not target.min <= rung.target <= target.max:
                found.append(
                    (
                        (position, "target"),
                        f"a rung target must lie within target.min..max "
                        f"({target.min}..{target.max})",
                    )
                )
        return found

    def sheet_refs(self) -> list[tuple[Loc, RulesetValueRef]]:
        """000, "target.from: opcional": the target read from the sheet."""
        return [] if self.target.from_ is None else [(("target", "from"), self.target.from_)]

    def skill_refs(self) -> list[tuple[Loc, str]]:
        """000, "target.from: opcional" (1.137): the skills each stance names."""
        return [
            (("stances", position, "skills", item), name)
            for position, stance in enumerate(self.stances or [])
            for item, name in enumerate(stance.skills)
        ]

    def check_effect_rules(self, check: MechanicsCheck) -> Found:
        """SCHEMA-NOTES §9 and 000, "Un amuleto…": a check effect's faces fit this pool.

        `reroll.upTo` is below the die's sides; `threshold` lies within
        target.min..max; `explode`/`double` need the rule to have a `min` and
        lie within min..sides. Locations are below the `check`.
        """
        found: Found = []
        if check.reroll is not None:
            found += self._reroll_below_sides(check.reroll, ("reroll", "upTo"))
        target = self.target
        if check.threshold is not None and not target.min <= check.threshold <= target.max:
            found.append(
                (
                    ("threshold",),
                    f"threshold must lie within target.min..max ({target.min}..{target.max})",
                )
            )
        for name, rule in (("explode", self.explode), ("double", self.double)):
            face = getattr(check, name)
            if face is None:
                continue
            if rule is None or rule.min is None:
                found.append(
                    ((name,), f"{name} moves the resolution's {name}.min, which is not declared")
                )
            elif not rule.min <= face <= self.die.sides:
                found.append(((name,), f"{name} must lie within {rule.min}..{self.die.sides}"))
        return found
