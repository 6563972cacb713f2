"""The typed `sheet.builder` (and `party.builder`): 004's guided builder, checked at import.

BUILDER.md chunk A. `parse_builder` reads the builder strictly: its shapes (every
model strict, limits as 004 gives them, BUILDER §3.1: the hard ceilings only,
never the Capability API gates; a list over its ceiling is refused beside the
problems of its items, `at_most`) and every rule between its own keys, each at
its path below the builder (`steps.3.max`). The rules within a step, a rating
map or a constraint are reported as soon as that part's shapes are sound, beside
every other part's problems. Import reads it with `read_builder`, which also
gives the parts that parsed: the rules across the envelope (ids that repeat, the
steps and pools it names) run on those, whatever problem another part has. What
needs the rest of the file (the sheet's fields, lists, abilities, skills and
tiers, the catalogs, live reads, what a later step changes) is checked by
`gmtags.ruleset.validate.builder`, on the same parts: what a step names there by
the step's own `check_refs` (handed a `checking.RefCheck`). `Sheet.builder` and
`Party.builder` stay the JSON the file holds; their `builder_model` is the
builder once it has no problem.

Decisions where the seed and BUILDER.md are silent:
- A builder has at least one step; step, pool, constraint, profile, allocate
  group, offer and kit ids are unique where they live; `reads.before` names a
  step at or before its own ("los pasos anteriores a ese paso": a later one
  would read what this step changes).
- `within.step` names a catalog step declared earlier; `within` with no
  earlier pick offers nothing, never everything.
- Starting kits (`startingGear`, "enumera el equipo inicial del conjunto")
  have no home elsewhere in the file, so the step lists them: `kits` (0–24,
  none when left out, as in 004's own example: the step then shows its empty
  state) `{id, label, summary?, fits?, lines}`; a line is an item of an items catalog
  (`<catalog>/<entry>` with its fixed `count`) or coins (`{coins: <currency
  unit>, count | roll | countFrom, times?}`, 1.157).
- An abilities step declares at least one method; `default` may sit beside
  `methods` or inside it (BUILDER §3.2) and both name the same method. Point-
  buy costs are cumulative `[score, cost]` rows, scores up by one from the
  lowest, costs never negative and never falling. A `rolls` method rolls every
  score of the step in exactly one group.
- Creation dice: 1–100 dice of 2–1000 sides, `add` within ±10,000 and an
  integer `multiplier` of 1–1,000; a roll's `gain` is an integer or creation dice.
- Spend offers: prices are positive per step unless `credit: true`; a `table`
  is cumulative prices at strictly ascending values and names both bounds;
  `baseline` and `allowedRatings` lie within min..max; an `exchange` has no cost.
- A catalog or rows step with a `pool` has a `cost` and the other way round.
- A profile brings steps, budgets or both (004: "sus propios pasos y
  presupuestos"); one bringing neither is refused, 004 being silent on it.
- Constraints: `distinct` and `approved` take no `min`/`max`; `value` and
  `rows` need one of them. `ratingTiers` holds one map per target.
- Rows steps: `required` names columns the step edits (when it names them);
  `max` is at least 1 (a list's `maxItems` clamps it, BUILDER §3.27).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Annotated, Any, Self, cast

from pydantic import (
    Field,
    PrivateAttr,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    model_validator,
)

from gmtags.ruleset.base import RulesetModel, SheetId
from gmtags.ruleset.builder.common import (
    MAX_POOL_BUDGET,
    Checked,
    Found,
    Label,
    NumberOrRef,
    Ruled,
    StepBase,
    StepId,
    Target,
    at_most,
    given,
)
from gmtags.ruleset.builder.priced import InitializeStep, Offer, RollStep, RowsStep, SpendStep
from gmtags.ruleset.builder.steps import (
    STEPS,
    AbilitiesStep,
    AllocateStep,
    AnyStep,
    CatalogStep,
    ChoicesStep,
    FieldsStep,
    StartingGearStep,
    Step,
    TrainedStep,
    target_key,
)
from gmtags.ruleset.catalogs import raise_catalog
from gmtags.ruleset.refs import Number, RulesetValueRef, Scalar
from gmtags.ruleset.resolution.common import Loc, distinct

__all__ = [
    "BUILDER",
    "STEPS",
    "AbilitiesStep",
    "AllocateStep",
    "AnyStep",
    "Builder",
    "BuilderRead",
    "CatalogStep",
    "ChoicesStep",
    "Constraint",
    "FieldsStep",
    "InitializeStep",
    "Offer",
    "Pool",
    "Profile",
    "RatingTiers",
    "RollStep",
    "RowsStep",
    "SpendStep",
    "StartingGearStep",
    "Step",
    "StepBase",
    "TrainedStep",
    "parse_builder",
    "read_builder",
    "target_key",
]

MAX_STEPS = 32
"""004: "Hasta 32 pasos" (more than 16 or 24 only name Capability API versions, BUILDER §3.1)."""

Ref = RulesetValueRef


class RatingTiers(Checked):
    """004, `ratingTiers[]{target, tiers}`: a skill or save target's map, 1–12 tier ids whose
    index is the number ("El índice del array es el valor numérico")."""

    target: Target
    tiers: Annotated[list[SheetId], Field(min_length=1, max_length=12)]

    def rules(self) -> Found:
        """Only skills and saves have maps; a tier is named once."""
        found: Found = []
        if self.target.skill is None and self.target.save is None:
            found.append((("target",), "a rating map is for a skill or a save target"))
        return found + distinct(self.tiers, ("tiers",), "tier")


class Cap(RulesetModel):
    """A pool's `caps[]{filter, maxCredit}`: credits of offers tagged `filter`, at most so many."""

    filter: SheetId
    max_credit: Annotated[int, Field(ge=0, le=MAX_POOL_BUDGET)] = Field(alias="maxCredit")


class Pool(RulesetModel):
    """004, `pools[]{id, label, budget, creditLimit?, caps?}` (1.153): a creation pool whose
    budget is a non-live reference; credit 0 by default; up to 12 caps."""

    id: SheetId
    label: Label
    budget: Ref
    credit_limit: Annotated[int, Field(ge=0, le=MAX_POOL_BUDGET)] | None = Field(
        default=None, alias="creditLimit"
    )
    caps: Annotated[list[Cap], Field(min_length=1, max_length=12)] | None = None


class RowsFilter(Ruled):
    """A constraint's rows `filter{column, equals?, below?, above?}`: the rows it keeps."""

    column: SheetId
    equals: Scalar | None = None
    below: Number | None = None
    above: Number | None = None

    def rules(self) -> Found:
        """A filter compares with something."""
        if len(given(self)) == 1:
            return [((), "a rows filter takes equals, below or above")]
        return []


class ConstraintRows(RulesetModel):
    """`rows{list, filter?, sum?}`: how many rows a list holds, or the total of column `sum`."""

    list: SheetId
    filter: RowsFilter | None = None
    sum: SheetId | None = None


class Distinct(RulesetModel):
    """`distinct{list, column}`: no two rows share a filled value."""

    list: SheetId
    column: SheetId


_CONSTRAINT_KINDS = ("value", "rows", "distinct", "approved")


class Constraint(Checked):
    """004, `constraints[]{id, label, step, when?}` with exactly one of `value` (a reference)
    or `rows` (each with `min`, `max` or both: a number or a reference), `distinct` or
    `approved` (a boolean field that must be on) (1.155)."""

    id: SheetId
    label: Annotated[str, Field(max_length=400)]
    step: StepId
    when: Ref | None = None
    value: Ref | None = None
    rows: ConstraintRows | None = None
    distinct: Distinct | None = None
    approved: SheetId | None = None
    min: NumberOrRef | None = None
    max: NumberOrRef | None = None

    @property
    def kind(self) -> str | None:
        """Which rule it is (`value`, `rows`, `distinct`, `approved`), None when not one."""
        kinds = [key for key in _CONSTRAINT_KINDS if getattr(self, key) is not None]
        return kinds[0] if len(kinds) == 1 else None

    def rules(self) -> Found:
        """Exactly one kind; value and rows take min or max, the others neither."""
        kinds = [key for key in _CONSTRAINT_KINDS if getattr(self, key) is not None]
        if len(kinds) != 1:
            return [((), "a constraint is exactly one of value, rows, distinct or approved")]
        bounded = self.min is not None or self.max is not None
        if kinds[0] in ("value", "rows") and not bounded:
            return [((), f"a {kinds[0]} constraint has a min, a max or both")]
        if kinds[0] not in ("value", "rows") and bounded:
            key = "min" if self.min is not None else "max"
            return [((key,), f"a {kinds[0]} constraint takes no min or max")]
        return []


class Profile(Checked):
    """004, `profiles[]{id, label, when, steps?, budgets?}` (1.160): a kind of character's own
    steps and pool budgets; the first whose `when` reads above 0 is the character's.

    004: profiles let "un tipo de personaje, una carrera o un paquete aporten sus propios
    pasos y presupuestos", and "Los budgets de un perfil sustituyen a los propios de esas
    reservas": a profile may bring steps, budgets or both, so either may be left out. 004
    says nothing of a profile bringing neither; it is refused (it would bring nothing)."""

    id: SheetId
    label: Label
    when: Ref
    steps: Annotated[list[StepId], Field(max_length=MAX_STEPS)] = []
    budgets: Annotated[dict[SheetId, Ref], Field(max_length=12)] | None = None

    def rules(self) -> Found:
        """Steps, budgets or both."""
        if not self.steps and not self.budgets:
            return [((), "a profile brings its own steps, budgets or both; this one has neither")]
        return []


class Builder(Ruled):
    """004, `sheet.builder{tier?, steps, pools?, ratingTiers?, constraints?, profiles?}` (1.86).

    Up to 32 steps (ids unique, at most one abilities step), 12 pools, 40
    constraints and 16 profiles; every name of a step or pool within the
    builder names one it declares.

    A builder `read_builder` gives may hold only the items that parsed: `place` says where
    each sits in the file, and `may_hold` which names may be those of items left out.
    """

    tier: SheetId | None = None
    steps: Annotated[list[Step], Field(min_length=1), at_most(MAX_STEPS, "steps")]
    pools: Annotated[list[Pool], at_most(12, "pools")] = []
    rating_tiers: Annotated[list[RatingTiers], at_most(160, "rating maps")] = Field(
        default=[], alias="ratingTiers"
    )
    constraints: Annotated[list[Constraint], at_most(40, "constraints")] = []
    profiles: Annotated[list[Profile], at_most(16, "profiles")] = []

    _places: dict[str, tuple[int, ...]] = PrivateAttr(default_factory=dict)
    _unparsed: dict[str, frozenset[str] | None] = PrivateAttr(default_factory=dict)

    @model_validator(mode="after")
    def _envelope_rules(self, info: ValidationInfo) -> Self:
        if not (info.context or {}).get(_PARTS_ONLY):
            raise_catalog(self.rules(), "Builder")
        return self

    def place(self, key: str, index: int) -> int:
        """Where the `index`-th item of the list `key` (`steps`, `pools`, `ratingTiers`,
        `constraints`, `profiles`) sits in the file: the same index unless items before it
        were left out (`read_builder`)."""
        places = self._places.get(key)
        return places[index] if places is not None else index

    def whole(self, key: str) -> bool:
        """True when every item of the list `key` in the file is here."""
        return self._unparsed.get(key, frozenset()) == frozenset()

    def may_hold(self, key: str, name: str) -> bool:
        """True when `name` may be the id of an item of the list `key` that was left out for
        a problem of its own: a rule cannot tell that nothing has that id."""
        if key not in self._unparsed:
            return False
        unparsed = self._unparsed[key]
        return unparsed is None or name in unparsed

    def _in_file(self, loc: Loc) -> Loc:
        """`loc` (below the builder) with an item's index turned into its place in the file."""
        if len(loc) > 1 and loc[0] in _ITEMS and isinstance(loc[1], int):
            return (loc[0], self.place(str(loc[0]), loc[1]), *loc[2:])
        return loc

    @property
    def step_ids(self) -> dict[str, int]:
        """Each step id with its position (the first, when one repeats)."""
        found: dict[str, int] = {}
        for place, step in enumerate(self.steps):
            found.setdefault(step.id, place)
        return found

    def rules(self) -> Found:
        """Unique ids, one abilities step, and every step and pool named within the builder,
        each at its place in the file; a name that may be an item left out is not checked."""
        return [(self._in_file(loc), text) for loc, text in self._rules()]

    def _rules(self) -> Found:
        found = distinct([s.id for s in self.steps], ("steps",), "step id", ("id",))
        found += distinct([p.id for p in self.pools], ("pools",), "pool id", ("id",))
        found += distinct(
            [c.id for c in self.constraints], ("constraints",), "constraint id", ("id",)
        )
        found += distinct([p.id for p in self.profiles], ("profiles",), "profile id", ("id",))
        keys = [target_key(m.target) for m in self.rating_tiers]
        found += distinct(keys, ("ratingTiers",), "the map of", ("target",))
        abilities = [p for p, s in enumerate(self.steps) if isinstance(s, AbilitiesStep)]
        found += [
            (("steps", place, "kind"), "a builder has at most one abilities step")
            for place in abilities[1:]
        ]
        for place, step in enumerate(self.steps):
            found += [(("steps", place, *loc), text) for loc, text in self._step_names(place, step)]
        steps, pools = self.step_ids, {pool.id for pool in self.pools}
        for place, rule in enumerate(self.constraints):
            if self._missing("steps", rule.step, steps):
                found.append((("constraints", place, "step"), f"names no step '{rule.step}'"))
        for place, profile in enumerate(self.profiles):
            for item, name in enumerate(profile.steps):
                if self._missing("steps", name, steps):
                    found.append((("profiles", place, "steps", item), f"names no step '{name}'"))
            for name in profile.budgets or {}:
                if self._missing("pools", name, pools):
                    found.append((("profiles", place, "budgets", name), f"names no pool '{name}'"))
        return found

    def _missing(self, key: str, name: str, known: Mapping[str, int] | set[str]) -> bool:
        """True when no item of the list `key` has the id `name`, here or left out."""
        return name not in known and not self.may_hold(key, name)

    def _step_names(self, place: int, step: AnyStep) -> Found:
        """What one step names within the builder: earlier steps and declared pools."""
        found: Found = []
        steps, pools = self.step_ids, {pool.id for pool in self.pools}
        reads = getattr(step, "reads", None)
        if reads is not None and not self.may_hold("steps", reads.before):
            before = steps.get(reads.before)
            if before is None:
                found.append((("reads", "before"), f"names no step '{reads.before}'"))
            elif before > place:
                found.append((("reads", "before"), f"step '{reads.before}' comes after this one"))
        within = step.within if isinstance(step, CatalogStep) else None
        if within is not None and not self.may_hold("steps", within.step):
            parent = steps.get(within.step)
            if parent is None or parent >= place:
                message = f"'{within.step}' is not a step declared before this one"
                found.append((("within", "step"), message))
            elif not isinstance(self.steps[parent], CatalogStep):
                message = f"step '{within.step}' is not a catalog step"
                found.append((("within", "step"), message))
        pool = getattr(step, "pool", None)
        if pool is not None and self._missing("pools", pool, pools):
            found.append((("pool",), f"names no builder pool '{pool}'"))
        for item, write in enumerate(step.writes if isinstance(step, InitializeStep) else ()):
            if write.remaining is not None and self._missing("pools", write.remaining, pools):
                message = f"names no builder pool '{write.remaining}'"
                found.append((("writes", item, "remaining"), message))
        return found

    def steps_of(self, kind: type[StepBase]) -> list[tuple[int, Any]]:
        """Every step of one kind, with its position."""
        return [(place, step) for place, step in enumerate(self.steps) if isinstance(step, kind)]


BUILDER: TypeAdapter[Builder | None] = TypeAdapter(Builder | None)
"""`sheet.builder` (or `party.builder`), as `parse_builder` validates it."""

_PARTS_ONLY = "builder_parts_only"
"""The validation context key with which `Builder` leaves its envelope rules to the caller."""

_ITEMS: Mapping[str, tuple[str, TypeAdapter[Any]]] = MappingProxyType(
    {
        "steps": ("steps", TypeAdapter(Step)),
        "pools": ("pools", TypeAdapter(Pool)),
        "ratingTiers": ("rating_tiers", TypeAdapter(RatingTiers)),
        "constraints": ("constraints", TypeAdapter(Constraint)),
        "profiles": ("profiles", TypeAdapter(Profile)),
    }
)
"""The builder's lists, by the file's key: the attribute each is, and how one item is read."""


def parse_builder(raw: Mapping[str, Any] | None) -> Builder | None:
    """Validate a builder strictly; None when the sheet has none.

    Raises `ValidationError` listing problems at their paths below the builder
    (`steps.3.max`): the shapes, the rules within each step, rating map and
    constraint whose shapes are sound, and (once every shape is sound) the rules
    across the envelope (ids, the steps and pools it names). `read_builder` gives
    every problem at once.
    """
    return BUILDER.validate_python(dict(raw) if raw is not None else None)


@dataclass(frozen=True)
class BuilderRead:
    """A builder as import reads it (`read_builder`): the parts that parsed, and every problem
    of it, each at its location below the builder (`("steps", 12, "kind")`)."""

    builder: Builder | None
    problems: tuple[tuple[Loc, str], ...]


def read_builder(raw: Mapping[str, Any] | None) -> BuilderRead:
    """Every problem of a builder at once, and the parts of it that parsed.

    The shapes and the rules within each part come first, as `parse_builder` gives them
    (a list over its ceiling is reported beside the problems of its items). A step, pool,
    rating map, constraint or profile with a problem of its own is then left out, and the
    rules across the builder (`Builder.rules`) run on the items that parsed, each problem at
    the item's place in the file; a name that may be an item left out is taken as named
    (`Builder.may_hold`), so that a broken step never also reads as a step missing. The
    passes of `gmtags.ruleset.validate.builder` read the same parts (`builder`: None when
    the builder is not even an object, or there is none).
    """
    if raw is None:
        return BuilderRead(None, ())
    try:
        builder = BUILDER.validate_python(dict(raw), context={_PARTS_ONLY: True})
    except ValidationError as error:
        found = [(tuple(item["loc"]), item["msg"]) for item in error.errors()]
        builder = _parsed_parts(raw, found)
    else:
        found = []
    if builder is not None:
        found += builder.rules()
    return BuilderRead(builder, tuple(found))


def _parsed_parts(raw: Mapping[str, Any], found: Found) -> Builder | None:
    """The builder made of the items `found` names no problem in (`read_builder`)."""
    if any(not loc for loc, _ in found):
        return None
    broken: dict[str, set[int]] = {key: set() for key in _ITEMS}
    keys: set[str | int] = set()
    for loc, _ in found:
        if loc[0] in _ITEMS and len(loc) > 1 and isinstance(loc[1], int):
            broken[str(loc[0])].add(loc[1])
        keys.add(loc[0])
    values: dict[str, Any] = {"tier": None if "tier" in keys else raw.get("tier")}
    places: dict[str, tuple[int, ...]] = {}
    unparsed: dict[str, frozenset[str] | None] = {}
    for key, (name, adapter) in _ITEMS.items():
        items = raw.get(key, [])
        if not isinstance(items, list):
            values[name], places[key], unparsed[key] = [], (), None
            continue
        places[key] = tuple(place for place in range(len(items)) if place not in broken[key])
        values[name] = [adapter.validate_python(items[place]) for place in places[key]]
        ids = {_id(items[place]) for place in broken[key]}
        unparsed[key] = None if None in ids else frozenset(i for i in ids if i is not None)
    builder = cast(Builder, Builder.model_construct(**values))
    builder._places, builder._unparsed = places, unparsed
    return builder


def _id(item: Any) -> str | None:
    """The `id` an item of the builder's JSON gives itself, whatever else is wrong with it."""
    found = item.get("id") if isinstance(item, dict) else None
    return found if isinstance(found, str) else None
