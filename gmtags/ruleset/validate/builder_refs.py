"""Checks of one builder against the rest of its ruleset: each step and the envelope (004).

`BuilderCheck` holds the file, the sheet index the builder builds on (the
character's or the party's), the builder and where it sits (`sheet.builder`),
and gathers every problem at its JSON path. `check_steps` runs the check of
each step kind (a table keyed by the step's model) and of the envelope; the
passes that call it, and their decisions, are `gmtags.ruleset.validate.builder`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gmtags.errors import Problem
from gmtags.ruleset.builder import (
    AbilitiesStep,
    AllocateStep,
    Builder,
    CatalogStep,
    ChoicesStep,
    Constraint,
    FieldsStep,
    InitializeStep,
    Offer,
    RollStep,
    RowsStep,
    SpendStep,
    StartingGearStep,
    TrainedStep,
    target_key,
)
from gmtags.ruleset.builder.checking import filters_of
from gmtags.ruleset.builder.common import Target, given
from gmtags.ruleset.catalogs import Catalog, TrainingChoice
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.refs import RulesetValueRef
from gmtags.ruleset.sheet import BooleanField, EnumField, NumberColumn, NumberField, TextField
from gmtags.ruleset.validate.index import SheetIndex
from gmtags.ruleset.validate.refs import check_ref, no_live


@dataclass
class BuilderCheck:
    """One builder being checked: the file, the sheet it builds, where it sits, what is found."""

    ruleset: Ruleset
    index: SheetIndex
    builder: Builder
    base: str
    problems: list[Problem] = field(default_factory=list)

    @property
    def catalogs(self) -> dict[str, Catalog]:
        return {catalog.id: catalog for catalog in self.ruleset.catalog_models}

    def add(self, path: str, message: str) -> None:
        self.problems.append(Problem(path, message))

    def ref(self, ref: RulesetValueRef | None, at: str, what: str) -> None:
        """A reference that exists and reads no live state (004: "valor no vivo")."""
        if ref is None:
            return
        found = check_ref(ref, at, self.index)
        self.problems += found or no_live(ref, at, self.index, what)

    def at(self, place: int) -> str:
        """The path of the builder's `place`-th step (its place in the file)."""
        return self.item("steps", place)

    def item(self, key: str, place: int) -> str:
        """The path of the `place`-th item of the builder's list `key` (its place in the file:
        `Builder.place`)."""
        return f"{self.base}.{key}.{self.builder.place(key, place)}"

    # -- tiers ---------------------------------------------------------------

    @property
    def tiers(self) -> list[str]:
        """The resolution's proficiency tiers, in order; the first is the untrained one."""
        return [tier.id for tier in self.ruleset.resolution_common.proficiency_tiers]

    def offered(self, what: str) -> list[str]:
        """The tiers the sheet offers for skills or saves (`skillTiers`/`saveTiers`, else all)."""
        sheet = self.ruleset.sheet
        chosen = sheet.skill_tiers if what == "skill" else sheet.save_tiers
        return list(chosen) if chosen is not None else self.tiers

    def trained_tier(self, tier: str | None, at: str) -> None:
        """A tier something trains at: a proficiency tier above the untrained one (004)."""
        if tier is None:
            return
        if tier not in self.tiers:
            self.add(at, f"names no proficiency tier '{tier}'")
        elif tier == self.tiers[0]:
            self.add(at, f"'{tier}' is the untrained tier; training is a tier above it")

    # -- targets -------------------------------------------------------------

    @property
    def maps(self) -> dict[str, list[str]]:
        """`ratingTiers` by target key (`skill/athletics`); the first, when a map repeats (the
        repeat is its own problem, and the targets read the first)."""
        found: dict[str, list[str]] = {}
        for rated in self.builder.rating_tiers:
            found.setdefault(target_key(rated.target), rated.tiers)
        return found

    def target(self, target: Target, at: str) -> tuple[float, float] | None:
        """004: "exactamente un { ability }, { field } numérico, { skill }, { save } o { bonus }
        existente"; skill and save targets need a rating map. The target's storage limits."""
        kind = given(target)[0]
        name = getattr(target, kind)
        where = f"{at}.{kind}"
        index = self.index
        if index.party and kind != "field":
            self.add(
                where, "a party sheet has only fields to raise (no abilities, skills or saves)"
            )
            return None
        if kind == "ability":
            ability = index.abilities.get(name)
            if ability is None:
                self.add(where, f"names no ability '{name}'")
                return None
            if ability.value is not None:
                self.add(where, f"ability '{name}' is computed; the builder never sets it")
                return None
            return ability.min, ability.max
        if kind == "field":
            found = index.fields.get(name)
            if not isinstance(found, NumberField):
                self.add(where, f"'{name}' is not a number field")
                return None
            if name in self.from_members:
                self.add(where, f"'{name}' is read from the members, never set by the builder")
            return found.min, found.max
        if kind == "bonus":
            if name not in index.skills and name not in index.saves:
                self.add(where, f"names no skill or save '{name}'")
                return None
            bonus = self.ruleset.sheet.bonus_range
            return bonus.min, bonus.max
        known = index.skills if kind == "skill" else index.saves
        if name not in known:
            self.add(where, f"names no {kind} '{name}'")
            return None
        levels = self.maps.get(f"{kind}/{name}")
        if levels is None:
            if self.builder.whole("ratingTiers"):  # else its map may be one with a problem
                self.add(where, f"a {kind} target needs its map in {self.base}.ratingTiers")
            return None
        return 0, len(levels) - 1

    def catalog(self, name: str, at: str) -> Catalog | None:
        """A rows catalog of this file."""
        found = self.catalogs.get(name)
        if found is None:
            self.add(at, f"names no catalog '{name}'")
        elif found.holds != "rows":
            self.add(at, f"catalog '{name}' holds {found.holds}, not rows")
            return None
        return found

    @property
    def from_members(self) -> set[str]:
        """The party fields worked out from the members (never a builder's to set)."""
        if not self.index.party or self.ruleset.party is None:
            return set()
        return {member.field for member in self.ruleset.party.from_members}

    def training_choice(self, at: str, choice: TrainingChoice, tier: str | None) -> None:
        """A training choice: skills or saves that exist, its tier and `held` below it."""
        kind = "skill" if choice.what == "skills" else "save"
        known = self.index.skills if kind == "skill" else self.index.saves
        for key in ("from_", "replacement_from"):
            for place, name in enumerate(getattr(choice, key) or ()):
                spelled = "from" if key == "from_" else "replacementFrom"
                if name not in known:
                    self.add(f"{at}.{spelled}.{place}", f"names no {kind} '{name}'")
        self.trained_tier(choice.tier, f"{at}.tier")
        self.ref(choice.count_from, f"{at}.countFrom", "a choice's countFrom")
        held, tiers = choice.held, self.tiers
        if held is not None:
            trains = choice.tier or tier
            if held not in tiers:
                self.add(f"{at}.held", f"names no proficiency tier '{held}'")
            elif trains in tiers and tiers.index(held) >= tiers.index(trains or ""):
                self.add(f"{at}.held", f"held is below the tier the choice trains ('{trains}')")

    def item_ref(self, ref: str, at: str) -> None:
        """`<catalog>/<entry>`: an entry of an items catalog of this file, never a service."""
        catalog_id, entry_id = ref.split("/", 1)
        catalog = self.catalogs.get(catalog_id)
        if catalog is None:
            self.add(at, f"names no catalog '{catalog_id}'")
        elif catalog.holds != "items":
            self.add(at, f"catalog '{catalog_id}' holds {catalog.holds}, not items")
        elif catalog.entries is not None:
            entry = next((e for e in catalog.entries if e.id == entry_id), None)
            if entry is None:
                self.add(at, f"catalog '{catalog_id}' has no entry '{entry_id}'")
            elif entry.item is not None and entry.item.service is not None:
                self.add(at, f"'{ref}' is a service, not an item")


def check_steps(check: BuilderCheck) -> list[Problem]:
    builder = check.builder
    check.trained_tier(builder.tier, f"{check.base}.tier")
    for place, step in enumerate(builder.steps):
        at = check.at(place)
        check.ref(step.when, f"{at}.when", "a step's when")
        check.ref(step.required_when, f"{at}.requiredWhen", "a step's requiredWhen")
        own = _STEPS.get(type(step))
        if own is not None:
            own(check, at, step)
        else:  # a kind the builder registered checks its own references
            step.check_refs(check, at)
    _rating_tiers(check)
    _single_offers(check)
    for place, pool in enumerate(builder.pools):
        check.ref(pool.budget, f"{check.item('pools', place)}.budget", "a pool budget")
    for place, rule in enumerate(builder.constraints):
        _constraint(check, check.item("constraints", place), rule)
    for place, profile in enumerate(builder.profiles):
        at = check.item("profiles", place)
        check.ref(profile.when, f"{at}.when", "a profile's when")
        for name, budget in (profile.budgets or {}).items():
            check.ref(budget, f"{at}.budgets.{name}", "a profile budget")
    return check.problems


def _rating_tiers(check: BuilderCheck) -> None:
    """004, `ratingTiers`: "de 1 a 12 IDs de nivel existentes, ofrecidos y crecientes,
    empezando por el nivel sin entrenar del conjunto"."""
    tiers = check.tiers
    for place, rated in enumerate(check.builder.rating_tiers):
        at = check.item("ratingTiers", place)
        kind = "skill" if rated.target.skill is not None else "save"
        name = rated.target.skill or rated.target.save
        if name is None:
            continue
        if name not in (check.index.skills if kind == "skill" else check.index.saves):
            check.add(f"{at}.target.{kind}", f"names no {kind} '{name}'")
        offered = check.offered(kind)
        ranks: list[int] = []
        for item, tier in enumerate(rated.tiers):
            if tier not in tiers:
                check.add(f"{at}.tiers.{item}", f"names no proficiency tier '{tier}'")
            elif tier not in offered:
                check.add(f"{at}.tiers.{item}", f"tier '{tier}' is not offered for {kind}s")
            else:
                if ranks and tiers.index(tier) <= ranks[-1]:
                    check.add(f"{at}.tiers.{item}", "a map's tiers rise in proficiencyTiers order")
                ranks.append(tiers.index(tier))
        if rated.tiers[0] != tiers[0]:
            check.add(f"{at}.tiers.0", f"a map starts at the untrained tier '{tiers[0]}'")


def _constraint(check: BuilderCheck, at: str, rule: Constraint) -> None:
    """004, `constraints` (1.155): the step, lists, columns and field a rule names."""
    check.ref(rule.when, f"{at}.when", "a constraint's when")
    check.ref(rule.value, f"{at}.value", "a constraint's value")
    for key in ("min", "max"):
        bound = getattr(rule, key)
        if isinstance(bound, RulesetValueRef):
            check.ref(bound, f"{at}.{key}", f"a constraint's {key}")
    index = check.index
    if rule.rows is not None:
        listed = index.lists.get(rule.rows.list)
        if listed is None:
            check.add(f"{at}.rows.list", f"names no list '{rule.rows.list}'")
        else:
            kept = rule.rows.filter
            if kept is not None and listed.column(kept.column) is None:
                check.add(f"{at}.rows.filter.column", f"names no column '{kept.column}'")
            if rule.rows.sum is not None and not isinstance(
                listed.column(rule.rows.sum), NumberColumn
            ):
                check.add(f"{at}.rows.sum", f"'{rule.rows.sum}' is not a number column")
    if rule.distinct is not None:
        listed = index.lists.get(rule.distinct.list)
        if listed is None:
            check.add(f"{at}.distinct.list", f"names no list '{rule.distinct.list}'")
        elif listed.column(rule.distinct.column) is None:
            check.add(f"{at}.distinct.column", f"names no column '{rule.distinct.column}'")
    if rule.approved is not None and not isinstance(index.fields.get(rule.approved), BooleanField):
        check.add(f"{at}.approved", f"'{rule.approved}' is not a boolean field")


def _catalog_step(check: BuilderCheck, at: str, step: CatalogStep) -> None:
    """004, catalog steps (A7, A9, A25): the catalog, field, filters, within, upTo, stamp,
    quotas, distinctBy, quotaBelow and a pick's cost."""
    catalog = check.catalog(step.catalog, f"{at}.catalog")
    if step.field is not None:
        found = check.index.fields.get(step.field)
        if not isinstance(found, TextField | EnumField):
            check.add(f"{at}.field", f"'{step.field}' is not a text or enum field")
    check.ref(step.count_from, f"{at}.countFrom", "countFrom")
    if step.up_to is not None:
        check.ref(step.up_to.value, f"{at}.upTo.value", "upTo")
    if catalog is None:
        return
    filters = filters_of(catalog)

    def named(name: str | None, where: str, number: bool = False) -> None:
        if name is None:
            return
        found = filters.get(name)
        if found is None:
            check.add(where, f"catalog '{catalog.id}' declares no filter '{name}'")
        elif number and found.type != "number":
            check.add(where, f"filter '{name}' is not a number filter")

    for key, value in (step.filters or {}).items():
        named(key, f"{at}.filters.{key}")
        if key in filters and not filters[key].holds(value):
            check.add(f"{at}.filters.{key}", f"filter '{key}' takes {filters[key].takes}")
    if step.within is not None:
        named(step.within.filter, f"{at}.within.filter")
    named(step.up_to.filter if step.up_to else None, f"{at}.upTo.filter", number=True)
    named(step.distinct_by, f"{at}.distinctBy")
    named(step.quota_below.filter if step.quota_below else None, f"{at}.quotaBelow.filter", True)
    for place, quota in enumerate(step.quotas or ()):
        named(quota.filter, f"{at}.quotas.{place}.filter")
        chosen = filters.get(quota.filter)
        if chosen is not None and chosen.type != "tags" and not chosen.holds(quota.value):
            check.add(f"{at}.quotas.{place}.value", f"filter '{quota.filter}' takes {chosen.takes}")
    cost = step.cost
    if cost is not None and not isinstance(cost, int | float):
        named(cost.filter, f"{at}.cost.filter", number=True)
    _stamp(check, at, step, catalog)


def _stamp(check: BuilderCheck, at: str, step: CatalogStep, catalog: Catalog) -> None:
    """004, `stamp` (1.108, 1.130): each key a column of every list the catalog feeds, each
    value one that column can hold; `fromWithin` reads the parent catalog's id, label or one
    of its filters."""
    lists = [check.index.lists.get(name) for name in catalog.feeds or ()]
    parent = _parent_catalog(check, step)
    for key, value in (step.stamp or {}).items():
        where = f"{at}.stamp.{key}"
        for listed in lists:
            column = listed.column(key) if listed is not None else None
            if listed is not None and column is None:
                check.add(where, f"list '{listed.id}' the catalog feeds has no column '{key}'")
            elif column is not None and not hasattr(value, "from_within"):
                reason = column.holds(value)
                if reason is not None:
                    check.add(where, f"column '{key}' can never hold {value!r} ({reason})")
        source = getattr(value, "from_within", None)
        if source is None:
            continue
        if step.within is None:
            check.add(f"{where}.fromWithin", "fromWithin reads the parent pick, so needs within")
        elif parent is not None and source not in ("id", "label", *filters_of(parent)):
            message = f"fromWithin is id, label or a filter of catalog '{parent.id}'"
            check.add(f"{where}.fromWithin", message)


def _parent_catalog(check: BuilderCheck, step: CatalogStep) -> Catalog | None:
    if step.within is None:
        return None
    place = check.builder.step_ids.get(step.within.step)
    parent = check.builder.steps[place] if place is not None else None
    return check.catalogs.get(parent.catalog) if isinstance(parent, CatalogStep) else None


def _fields_step(check: BuilderCheck, at: str, step: FieldsStep) -> None:
    """004, fields steps (A10): named fields exist; `total` sums number fields."""
    members = check.from_members
    for place, name in enumerate(step.fields):
        if name not in check.index.fields:
            check.add(f"{at}.fields.{place}", f"names no field '{name}'")
        elif name in members:
            check.add(f"{at}.fields.{place}", f"'{name}' is read from the members")
    for name, ref in (step.shown_when or {}).items():
        check.ref(ref, f"{at}.shownWhen.{name}", "shownWhen")
    for place, name in enumerate(step.total.fields if step.total else ()):
        if name in check.index.fields and not isinstance(check.index.fields[name], NumberField):
            check.add(f"{at}.total.fields.{place}", f"'{name}' is not a number field")


def scores(check: BuilderCheck, step: AbilitiesStep) -> list[str]:
    """The scores an abilities step sets: those it lists, else every non-computed one."""
    if step.abilities is not None:
        return step.abilities
    return [name for name, ability in check.index.abilities.items() if ability.value is None]


def _abilities_step(check: BuilderCheck, at: str, step: AbilitiesStep) -> None:
    """004, abilities steps (A11–A13): scores, point-buy budget, array length, roll groups."""
    if check.index.party:
        return
    known = check.index.abilities
    for place, name in enumerate(step.abilities or ()):
        if name not in known:
            check.add(f"{at}.abilities.{place}", f"names no ability '{name}'")
        elif known[name].value is not None:
            check.add(f"{at}.abilities.{place}", f"ability '{name}' is computed")
    mine = [name for name in scores(check, step) if name in known]
    if not mine:
        check.add(f"{at}.abilities", "an abilities step sets at least one score")
        return
    methods, where = step.methods, f"{at}.methods"
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


def _allocate_step(check: BuilderCheck, at: str, step: AllocateStep) -> None:
    """004, allocate steps (A14): targets, non-live limits and budgets, row columns."""
    for group, item in enumerate(step.groups):
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
                check.add(f"{where}.rows.{place}.column", f"'{row.column}' is not a number column")


def _trained_step(check: BuilderCheck, at: str, step: TrainedStep) -> None:
    """004, trained steps: the step's own choices (names, tiers, counts)."""
    if check.index.party:
        return
    for place, choice in enumerate(step.choose or ()):
        check.training_choice(f"{at}.choose.{place}", choice, check.builder.tier)


def _gear_step(check: BuilderCheck, at: str, step: StartingGearStep) -> None:
    """004, startingGear kits: `fits` reads no live state; item lines name items of this
    file; coins name a currency unit; `countFrom` reads the carrier's sheet (1.157)."""
    items = check.ruleset.items
    units = {
        unit.get("id")
        for family in (items or {}).get("currencies", [])
        if isinstance(family, dict)
        for unit in family.get("units", [])
        if isinstance(unit, dict)
    }
    for kit, item in enumerate(step.kits):
        where = f"{at}.kits.{kit}"
        if item.fits is not None:
            check.ref(item.fits.value, f"{where}.fits.value", "fits")
        for place, line in enumerate(item.lines):
            path = f"{where}.lines.{place}"
            if line.coins is not None and line.coins not in units:
                check.add(f"{path}.coins", f"names no currency unit '{line.coins}' of items")
            check.ref(line.count_from, f"{path}.countFrom", "a coins countFrom")
            if line.item is not None:
                check.item_ref(line.item, f"{path}.item")


def _choices_step(check: BuilderCheck, at: str, step: ChoicesStep) -> None:
    """004, choices steps: a rows catalog."""
    check.catalog(step.catalog, f"{at}.catalog")


def _spend_step(check: BuilderCheck, at: str, step: SpendStep) -> None:
    """004, spend steps (A18): targets, bounds within storage, table on integer fields,
    baselines against a constant start, non-live conditions and limits."""
    for place, offer in enumerate(step.offers):
        _offer(check, f"{at}.offers.{place}", offer)


def _offer(check: BuilderCheck, at: str, offer: Offer) -> None:
    limits = check.target(offer.target, f"{at}.target")
    if limits is not None:
        for key in ("min", "max"):
            value = getattr(offer, key)
            if not limits[0] <= value <= limits[1]:
                check.add(f"{at}.{key}", f"{key} {value} is outside {limits[0]}..{limits[1]}")
    kind = given(offer.target)[0]
    name = getattr(offer.target, kind)
    found = check.index.fields.get(name) if kind == "field" else None
    integer = not isinstance(found, NumberField) or found.integer
    for where, cost in offer.costs():
        if integer and any(value != int(value) for value, _ in cost.table or ()):
            path = f"{at}.{'.'.join(map(str, where))}.table"
            check.add(path, "fractional values need a number field that is not an integer")
    start = _start(check, offer.target)
    if offer.baseline is not None and start is not None and offer.baseline != start:
        check.add(f"{at}.baseline", f"the baseline is the starting value ({start})")
    if offer.exchange is not None:
        check.target(offer.exchange.from_, f"{at}.exchange.from")
    check.ref(offer.when, f"{at}.when", "an offer's when")
    check.ref(offer.min_from, f"{at}.minFrom", "minFrom")
    check.ref(offer.max_from, f"{at}.maxFrom", "maxFrom")
    for place, override in enumerate(offer.overrides or ()):
        check.ref(override.when, f"{at}.overrides.{place}.when", "an override's when")


def _start(check: BuilderCheck, target: Target) -> float | None:
    """A target's starting value when the file fixes it as a constant (BUILDER §3.17)."""
    kind = given(target)[0]
    name = getattr(target, kind)
    if kind == "ability" and name in check.index.abilities:
        return check.index.abilities[name].default
    found = check.index.fields.get(name) if kind == "field" else None
    if isinstance(found, NumberField):
        return found.default
    return 0 if kind in ("skill", "save", "bonus") else None


def _rows_step(check: BuilderCheck, at: str, step: RowsStep) -> None:
    """004, rows steps (A19): the list, its columns, defaults that fit, `from` a rows catalog
    feeding the list, a cost column that is numeric."""
    check.ref(step.count_from, f"{at}.countFrom", "countFrom")
    listed = check.index.lists.get(step.list)
    if listed is None:
        check.add(f"{at}.list", f"names no list '{step.list}'")
        return
    for key in ("columns", "required"):
        for place, name in enumerate(getattr(step, key) or ()):
            if listed.column(name) is None:
                check.add(f"{at}.{key}.{place}", f"list '{step.list}' has no column '{name}'")
    for name, value in (step.defaults or {}).items():
        column = listed.column(name)
        if column is None:
            check.add(f"{at}.defaults.{name}", f"list '{step.list}' has no column '{name}'")
        elif (reason := column.holds(value)) is not None:
            check.add(
                f"{at}.defaults.{name}", f"column '{name}' can never hold {value!r} ({reason})"
            )
    cost = step.cost
    column_id = getattr(cost, "column", None)
    if column_id is not None and not isinstance(listed.column(column_id), NumberColumn):
        check.add(f"{at}.cost.column", f"'{column_id}' is not a number column")
    if step.from_ is not None:
        catalog = check.catalog(step.from_, f"{at}.from")
        if catalog is not None and step.list not in (catalog.feeds or ()):
            check.add(f"{at}.from", f"catalog '{step.from_}' does not feed list '{step.list}'")


def _roll_step(check: BuilderCheck, at: str, step: RollStep) -> None:
    """004, roll steps (A20): a number field or a non-computed ability; a non-live floor."""
    members = check.from_members
    for place, roll in enumerate(step.rolls):
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


def _initialize_step(check: BuilderCheck, at: str, step: InitializeStep) -> None:
    """004, initialize steps (A21): a field of the sheet; a reference only for a number
    field; a fixed value the field can hold; `remaining` into a number field."""
    members = check.from_members
    for place, write in enumerate(step.writes):
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
                f"{where}.value", f"field '{write.field}' can never hold {write.value!r} ({reason})"
            )
        if write.remaining is not None and not number:
            check.add(f"{where}.remaining", "what a pool leaves is written to a number field")


_STEPS: dict[type, Callable[[BuilderCheck, str, Any], None]] = {
    CatalogStep: _catalog_step,
    FieldsStep: _fields_step,
    AbilitiesStep: _abilities_step,
    AllocateStep: _allocate_step,
    TrainedStep: _trained_step,
    StartingGearStep: _gear_step,
    ChoicesStep: _choices_step,
    SpendStep: _spend_step,
    RowsStep: _rows_step,
    RollStep: _roll_step,
    InitializeStep: _initialize_step,
}
"""The cross-reference check of each step kind."""


def _single_offers(check: BuilderCheck) -> None:
    """004: "Un objetivo con crédito solo tiene una oferta en todo el creador", and one with
    `direction: "both"` too: every further offer on such a target is refused."""
    offers: dict[str, list[tuple[str, Offer]]] = {}
    for place, step in check.builder.steps_of(SpendStep):
        for item, offer in enumerate(step.offers):
            offers.setdefault(target_key(offer.target), []).append(
                (f"{check.at(place)}.offers.{item}", offer)
            )
    for key, found in offers.items():
        if any(offer.credit or offer.direction == "both" for _, offer in found):
            for at, _ in found[1:]:
                check.add(f"{at}.target", f"{key} is credited or bought both ways: one offer only")
