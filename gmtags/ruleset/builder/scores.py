"""The abilities and allocate steps of `sheet.builder` (004, B11–B16, C1–C13): the scores
a method sets and the dots staged groups buy. Part of `gmtags.ruleset.builder.steps`, which
holds the tagged union of every kind."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from gmtags.ruleset.base import RulesetModel, SheetId
from gmtags.ruleset.builder.checking import RefCheck
from gmtags.ruleset.builder.common import (
    MAX_BUDGET,
    Dice,
    Found,
    Label,
    ListColumn,
    Ruled,
    StepBase,
    Target,
    given,
)
from gmtags.ruleset.catalogs import by_json_type
from gmtags.ruleset.refs import RulesetValueRef, StepRow
from gmtags.ruleset.resolution.common import distinct
from gmtags.ruleset.sheet import NumberColumn
from gmtags.ruleset.sheet.common import IntOrRef

Ref = RulesetValueRef

# ---------------------------------------------------------------------------
# abilities (B11–B16, A11–A13)


class PointBuy(Ruled):
    """004, `pointBuy{budget, costs}`: the cost of each score from the lowest (where every
    score starts) up one at a time, as `[score, cumulative cost]` rows."""

    budget: Annotated[int, Field(ge=0, le=MAX_BUDGET)]
    costs: Annotated[list[StepRow], Field(min_length=2, max_length=100)]

    def rules(self) -> Found:
        """Scores rise by one from the lowest; costs are whole, never fall, never negative."""
        found: Found = [
            (("costs", place, item), "a score and its cost are whole numbers")
            for place, row in enumerate(self.costs)
            for item, number in enumerate(row)
            if number != int(number)
        ]
        for place in range(1, len(self.costs)):
            (before, paid), (score, cost) = self.costs[place - 1], self.costs[place]
            if score != before + 1:
                found.append((("costs", place, 0), f"the score after {before} is {before + 1}"))
            if cost < paid:
                found.append((("costs", place, 1), "a higher score never costs less"))
        found += [
            (("costs", place, 1), "a cost is never negative")
            for place, (_, cost) in enumerate(self.costs)
            if cost < 0
        ]
        return found

    @property
    def span(self) -> int | float:
        """What buying one score from the lowest to the top costs."""
        return self.costs[-1][1] - self.costs[0][1]


class ManualLimits(Ruled):
    """004, `manual{min, max}` (1.110): typed base scores held within integer limits,
    min at least −100, max at most 1000, min ≤ max."""

    min: Annotated[int, Field(ge=-100, le=1000)]
    max: Annotated[int, Field(ge=-100, le=1000)]

    def rules(self) -> Found:
        """min ≤ max."""
        return [(("min",), "manual needs min ≤ max")] if self.min > self.max else []


Manual = Annotated[
    Literal[True] | ManualLimits,
    by_json_type(("true", bool, Literal[True]), ("an object", dict, ManualLimits)),
]


class RollGroup(RulesetModel):
    """004, `methods.rolls[]{abilities, dice}`: each score rolled with its own group's dice."""

    abilities: Annotated[list[SheetId], Field(min_length=1, max_length=20)]
    dice: Dice


MethodName = Literal["pointBuy", "standardArray", "roll", "rolls", "manual"]


class Methods(Ruled):
    """004, `methods`: `pointBuy`, `standardArray`, `roll`, `rolls` and `manual`; `default`
    may be written here too (BUILDER §3.2)."""

    point_buy: PointBuy | None = Field(default=None, alias="pointBuy")
    standard_array: Annotated[list[int], Field(min_length=1, max_length=20)] | None = Field(
        default=None, alias="standardArray"
    )
    roll: Dice | None = None
    rolls: Annotated[list[RollGroup], Field(min_length=1, max_length=20)] | None = None
    manual: Manual | None = None
    default: MethodName | None = None

    @property
    def declared(self) -> list[str]:
        """The methods given, as the file spells them."""
        return [key for key in given(self) if key != "default"]

    def rules(self) -> Found:
        """At least one method; no score in two roll groups."""
        found: Found = []
        if not self.declared:
            found.append(((), "an abilities step offers at least one method"))
        seen: set[str] = set()
        for group, rolled in enumerate(self.rolls or ()):
            for place, name in enumerate(rolled.abilities):
                if name in seen:
                    at = ("rolls", group, "abilities", place)
                    found.append((at, f"ability '{name}' is rolled by two groups"))
                seen.add(name)
        return found


class AbilitiesStep(StepBase):
    """004, `abilities`: the scores (`abilities`, all if omitted) set by any of `methods`;
    `default` (1.87) is the method a blank character starts with. At most one per builder."""

    kind: Literal["abilities"]
    abilities: Annotated[list[SheetId], Field(min_length=1, max_length=20)] | None = None
    methods: Methods
    default: MethodName | None = None

    @property
    def default_method(self) -> str | None:
        """The method a blank character starts with (step-level, else `methods.default`)."""
        return self.default or self.methods.default

    def rules(self) -> Found:
        """Scores are named once; `default` names a declared method, said once."""
        found = distinct(self.abilities or [], ("abilities",), "ability")
        if self.default and self.methods.default and self.default != self.methods.default:
            found.append((("default",), "default and methods.default name different methods"))
        chosen = self.default_method
        if chosen is not None and chosen not in self.methods.declared:
            at = ("default",) if self.default else ("methods", "default")
            found.append((at, f"default names '{chosen}', a method the step does not declare"))
        return found

    def scores(self, check: RefCheck) -> list[str]:
        """The scores an abilities step sets: those it lists, else every non-computed one."""
        if self.abilities is not None:
            return self.abilities
        return [name for name, ability in check.index.abilities.items() if ability.value is None]

    def check_refs(self, check: RefCheck, at: str) -> None:
        """004, abilities steps (A11–A13): scores, point-buy budget, array length, roll groups."""
        if check.index.party:
            return
        known = check.index.abilities
        for place, name in enumerate(self.abilities or ()):
            if name not in known:
                check.add(f"{at}.abilities.{place}", f"names no ability '{name}'")
            elif known[name].value is not None:
                check.add(f"{at}.abilities.{place}", f"ability '{name}' is computed")
        mine = [name for name in self.scores(check) if name in known]
        if not mine:
            check.add(f"{at}.abilities", "an abilities step sets at least one score")
            return
        methods, where = self.methods, f"{at}.methods"
        buy = methods.point_buy
        if buy is not None:
            top = buy.span * len(mine)
            if buy.budget > top:
                message = f"budget {buy.budget} is more than buying every score to the top ({top})"
                check.add(f"{where}.pointBuy.budget", message)
            low, high = buy.costs[0][0], buy.costs[-1][0]
            outside = [n for n in mine if not known[n].min <= low <= high <= known[n].max]
            if outside:
                message = f"the table's scores {low}..{high} lie outside the limits of {outside[0]}"
                check.add(f"{where}.pointBuy.costs", message)
        array = methods.standard_array
        if array is not None and len(array) != len(mine):
            message = f"the array has one value per score ({len(mine)}), not {len(array)}"
            check.add(f"{where}.standardArray", message)
        rolled: set[str] = set()
        for group, rolls in enumerate(methods.rolls or ()):
            for place, name in enumerate(rolls.abilities):
                path = f"{where}.rolls.{group}.abilities.{place}"
                if name not in known:
                    check.add(path, f"names no ability '{name}'")
                elif known[name].value is not None:
                    check.add(path, f"ability '{name}' is computed; it is never rolled")
                elif name not in mine:
                    check.add(path, f"ability '{name}' is not a score of this step")
                rolled.add(name)
        if methods.rolls is not None:
            missing = [name for name in mine if name not in rolled]
            if missing:
                check.add(f"{where}.rolls", f"every score is rolled by a group; not {missing[0]}")


# ---------------------------------------------------------------------------
# allocate (C1–C13, A14)


class AllocateGroup(Ruled):
    """004, allocate `groups[]{id, label, targets (1–120), base?, min, max, budget?, rows?}`:
    `base`, `min` and `max` are integers or non-live references resolving to 0–10,000;
    `rows` (1.216) count up to four `{list, column}` pairs against the budget."""

    id: SheetId
    label: Label
    targets: Annotated[list[Target], Field(min_length=1, max_length=120)]
    base: IntOrRef | None = None
    min: IntOrRef
    max: IntOrRef
    budget: Ref | None = None
    rows: Annotated[list[ListColumn], Field(min_length=1, max_length=4)] | None = None

    def rules(self) -> Found:
        """Written limits are 0–10,000, with base ≤ max and min ≤ max."""
        found: Found = []
        written = {key: getattr(self, key) for key in ("base", "min", "max")}
        for key, value in written.items():
            if isinstance(value, int) and not 0 <= value <= 10_000:
                found.append(((key,), f"{key} is from 0 to 10,000"))
        low, high = written["min"], written["max"]
        if isinstance(low, int) and isinstance(high, int) and low > high:
            found.append((("min",), "a group needs min ≤ max"))
        base = written["base"]
        if isinstance(base, int) and isinstance(high, int) and base > high:
            found.append((("base",), "a group's base is at most its max"))
        return found


class AllocateStep(StepBase):
    """004, `allocate` (1.152): staged dots bought with priorities or per-group budgets.

    1–12 groups with distinct ids; targets distinct across the step; exactly one
    budget mode: `priorities` (one non-negative integer, ≤1,200,000, per group) or
    every group's `budget`.
    """

    kind: Literal["allocate"]
    priorities: (
        Annotated[list[Annotated[int, Field(ge=0, le=MAX_BUDGET)]], Field(max_length=12)] | None
    ) = None
    groups: Annotated[list[AllocateGroup], Field(min_length=1, max_length=12)]
    annotations: bool | None = None

    def rules(self) -> Found:
        """Distinct groups and targets, one budget mode."""
        found = distinct([group.id for group in self.groups], ("groups",), "group id", ("id",))
        seen: set[str] = set()
        for group, item in enumerate(self.groups):
            for place, target in enumerate(item.targets):
                if not given(target):
                    continue  # no key: refused by the target's own rule
                key = target_key(target)
                if key in seen:
                    at = ("groups", group, "targets", place)
                    found.append((at, f"target {key} is in this step twice"))
                seen.add(key)
        budgets = [group.budget is not None for group in self.groups]
        if self.priorities is not None:
            if any(budgets):
                found.append((("priorities",), "groups use priorities or budgets, not both"))
            elif len(self.priorities) != len(self.groups):
                message = f"priorities has one allotment per group ({len(self.groups)})"
                found.append((("priorities",), message))
        elif not all(budgets):
            found += [
                (("groups", place, "budget"), "without priorities, every group has a budget")
                for place, has in enumerate(budgets)
                if not has
            ]
        return found

    def check_refs(self, check: RefCheck, at: str) -> None:
        """004, allocate steps (A14): targets, non-live limits and budgets, row columns."""
        for group, item in enumerate(self.groups):
            where = f"{at}.groups.{group}"
            limits = [check.target(t, f"{where}.targets.{p}") for p, t in enumerate(item.targets)]
            for key in ("base", "min", "max"):
                value = getattr(item, key)
                if isinstance(value, RulesetValueRef):
                    check.ref(value, f"{where}.{key}", f"an allocate {key}")
                elif isinstance(value, int) and any(
                    low is not None and not low[0] <= value <= low[1] for low in limits
                ):
                    check.add(f"{where}.{key}", f"{key} {value} does not fit every target's limits")
            check.ref(item.budget, f"{where}.budget", "an allocate budget")
            for place, row in enumerate(item.rows or ()):
                listed = check.index.lists.get(row.list)
                if listed is None:
                    check.add(f"{where}.rows.{place}.list", f"names no list '{row.list}'")
                elif not isinstance(listed.column(row.column), NumberColumn):
                    check.add(
                        f"{where}.rows.{place}.column", f"'{row.column}' is not a number column"
                    )


def target_key(target: Target) -> str:
    """A target's stable key, `kind/id` (`ability/strength`), as answers and ledgers name it.

    A target naming no key (refused by its own rule, while the rules of the parts around it
    still run) has the key `none/`, which no answer can name and no rule counts twice."""
    kinds = given(target)
    if not kinds:
        return "none/"
    return f"{kinds[0]}/{getattr(target, kinds[0])}"
