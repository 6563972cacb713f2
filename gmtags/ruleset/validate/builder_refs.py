"""Checks of one builder against the rest of its ruleset: each step and the envelope (004).

`BuilderCheck` holds the file, the sheet index the builder builds on (the
character's or the party's), the builder and where it sits (`sheet.builder`),
and gathers every problem at its JSON path. `check_steps` runs each step's own
check (its model's `check_refs`, handed this `BuilderCheck` as a
`gmtags.ruleset.builder.checking.RefCheck`) and the envelope's; the passes that
call it, and their decisions, are `gmtags.ruleset.validate.builder`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gmtags.errors import Problem
from gmtags.ruleset.builder import (
    Builder,
    Constraint,
    Offer,
    SpendStep,
    target_key,
)
from gmtags.ruleset.builder.common import Target, given
from gmtags.ruleset.catalogs import Catalog, TrainingChoice
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.refs import RulesetValueRef
from gmtags.ruleset.sheet import BooleanField, NumberColumn, NumberField
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
