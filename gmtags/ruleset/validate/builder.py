"""004 (BUILDER.md chunk A): what `sheet.builder`, `party.builder` and catalog `grants` name.

The shapes and the rules between the builder's own keys are the models'
(`gmtags.ruleset.builder`); these passes read the parts of `sheet.builder`
(`party.builder`) that parsed (`Sheet.builder_parts`, each at its place in the
file, `BuilderCheck.item`) and check what needs the rest of the file, every
problem at its JSON path (`sheet.builder.steps.3.catalog`):

- `check_builder`: each step and the envelope against the sheet, the
  resolution's tiers, the catalogs and `items`;
- `check_builder_reads`: the values a builder reads where 004 refuses some
  (`gmtags.ruleset.validate.builder_reads`): a step's `when` and a slot count read only what
  earlier steps change; allocate budgets and limits never read what this step
  or a later one changes; pool budgets, offer conditions and limits and profile
  budgets never read a purchased target; a profile's `when` never reads what a
  profile-listed step changes (BUILDER §3.21); a slot count reads no sheet value
  an asset or borrowed catalog picked at or after its step could change;
- `check_builder_grants`: catalog entries' `grants` and `offeredWhen` (read by
  the builder only, so checked here): the names they use, the `choices` step a
  granted catalog needs, rating maps, choice ids and `excludeChoices`, and an
  `offeredWhen` its own pick would change or that reads an allocate target ("Las
  condiciones de las concesiones gratuitas tampoco pueden leer valores de un
  grupo de asignación");
- `check_party_builder`: `party.builder` by the same rules against the party's
  fields and lists (002, "Creación compartida del grupo"), with no abilities,
  skills or saves (BUILDER §3.25) and no `fromMembers` field as a target.

Decisions where the seed and BUILDER.md are silent:
- Reads the builder refuses are values, not live state: every reference a
  builder holds (`when`, `requiredWhen`, `upTo.value`, `countFrom`, budgets,
  limits, `fits`, constraint values) reads no live state, directly or through
  derived values ("valor no vivo"; a character being built has none yet).
- The scores of an abilities step are the ones it lists, else every ability
  whose score is not computed (004: "El creador nunca fija una" computed score);
  listing a computed one is refused. A point-buy table lies within each score's
  min..max.
- A stamp's `fromWithin` needs `within`, and reads the parent step's catalog.
- A quota's `value` fits its filter's type; `quotaBelow` and a pick cost's
  `filter` are number filters; `upTo.filter` is a number filter.
- A grant choice id is unique within its catalog (any entry of it may be the
  pick a step offers); `excludeChoices` names a step of the builder at or before
  the one that offers the choice, and a choice of the same kind that step offers
  in the file (its own `choose`, or the grants of its catalog's inline entries);
  a step whose catalog is an asset or borrowed cannot be verified, so is refused.
- What a step changes, for the read rules: a catalog step, its `field` and what
  any inline entry of its catalog gives (scores, training, fields, ratings, the
  lists its rows and granted entries write); a choices step, the lists its
  catalog feeds; a trained step, the skills or saves its choices may train.
  A profile's `when` is read against every step any profile lists.
- Coins name a unit of `items.currencies`; an item line names an entry of an
  items catalog of this file (asset and borrowed catalogs are checked when read).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, cast

from gmtags.errors import Problem
from gmtags.ruleset.builder import (
    AbilitiesStep,
    AllocateStep,
    Builder,
    CatalogStep,
    ChoicesStep,
    SpendStep,
    TrainedStep,
)
from gmtags.ruleset.builder.checking import filters_of
from gmtags.ruleset.catalogs import Catalog, CatalogEntry, Choice, Grants
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.refs import RulesetValueRef
from gmtags.ruleset.validate.builder_reads import (
    Value,
    describe,
    entry_changes,
    purchased,
    reads,
    step_changes,
    target_value,
)
from gmtags.ruleset.validate.builder_refs import BuilderCheck, check_steps
from gmtags.ruleset.validate.index import SheetIndex

# ---------------------------------------------------------------------------
# check_builder: each step and the envelope


def check_builder(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """004, BUILDER chunk A: what `sheet.builder` names in the rest of the file."""
    builder = ruleset.sheet.builder_parts.builder
    if builder is None:
        return []
    return check_steps(BuilderCheck(ruleset, index, builder, "sheet.builder"))


def check_party_builder(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """002, "Creación compartida del grupo" (A33): `party.builder` by the same rules as
    `sheet.builder`, against the party's own fields and lists; no abilities, trained or
    skill and save targets (BUILDER §3.25)."""
    party = ruleset.party
    builder = party.builder_parts.builder if party is not None else None
    if party is None or builder is None:
        return []
    party_index = SheetIndex.of_party(ruleset, party, index.broken)
    check = BuilderCheck(ruleset, party_index, builder, "party.builder")
    for place, step in enumerate(builder.steps):
        if isinstance(step, AbilitiesStep | TrainedStep):
            check.add(f"{check.at(place)}.kind", "a party sheet has no abilities, skills or saves")
    if builder.rating_tiers:
        check.add("party.builder.ratingTiers", "a party sheet has no skills or saves to map")
    return check_steps(check) + _read_problems(check)


# ---------------------------------------------------------------------------
# check_builder_reads: what a builder value may read


def check_builder_reads(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """004, the reads the builder refuses (module docstring), for `sheet.builder`."""
    builder = ruleset.sheet.builder_parts.builder
    if builder is None:
        return []
    return _read_problems(BuilderCheck(ruleset, index, builder, "sheet.builder"))


def _read_problems(check: BuilderCheck) -> list[Problem]:
    found: list[Problem] = []
    builder, index, catalogs = check.builder, check.index, check.catalogs
    changes = [step_changes(step, index, catalogs) for step in builder.steps]
    later = [set().union(*changes[place:]) for place in range(len(changes))]
    bought: set[Value] = set().union(*(purchased(s, index) for _, s in builder.steps_of(SpendStep)))

    def refuse(
        ref: RulesetValueRef | None, at: str, what: str, why: str, values: set[Value]
    ) -> None:
        met = reads([ref], index) & values if ref is not None else set()
        if met:
            found.append(Problem(at, f"{what} reads {describe(met)}, {why}"))

    later_step = "which this step or a later one changes; it reads only what earlier steps change"
    for place, step in enumerate(builder.steps):
        at = check.at(place)
        refuse(step.when, f"{at}.when", "when", later_step, later[place])
        if isinstance(step, TrainedStep):
            for item, choice in enumerate(step.choose or ()):
                where = f"{at}.choose.{item}.countFrom"
                refuse(choice.count_from, where, "a count", later_step, later[place])
                found += _external_count(check, choice.count_from, where, place)
        if isinstance(step, AllocateStep):
            for group, part in enumerate(step.groups):
                for key in ("base", "min", "max", "budget"):
                    value = getattr(part, key)
                    if isinstance(value, RulesetValueRef):
                        refuse(
                            value,
                            f"{at}.groups.{group}.{key}",
                            f"an allocate {key}",
                            later_step,
                            later[place],
                        )
        if isinstance(step, SpendStep):
            for item, offer in enumerate(step.offers):
                where = f"{at}.offers.{item}"
                for key, ref in (
                    ("when", offer.when),
                    ("minFrom", offer.min_from),
                    ("maxFrom", offer.max_from),
                ):
                    refuse(ref, f"{where}.{key}", key, "a purchased target", bought)
                for spot, override in enumerate(offer.overrides or ()):
                    refuse(
                        override.when,
                        f"{where}.overrides.{spot}.when",
                        "an override",
                        "a purchased target",
                        bought,
                    )
    for place, pool in enumerate(builder.pools):
        refuse(
            pool.budget,
            f"{check.item('pools', place)}.budget",
            "a pool budget",
            "a purchased target",
            bought,
        )
    listed = {name for profile in builder.profiles for name in profile.steps}
    profiled = set().union(
        *(changes[place] for place, step in enumerate(builder.steps) if step.id in listed)
    )
    for place, profile in enumerate(builder.profiles):
        at = check.item("profiles", place)
        for name, budget in (profile.budgets or {}).items():
            refuse(budget, f"{at}.budgets.{name}", "a profile budget", "a purchased target", bought)
        refuse(
            profile.when,
            f"{at}.when",
            "a profile's when",
            "which a step a profile lists changes",
            profiled,
        )
    if not check.index.party:
        found += _grant_counts(check, later)
    return found


def _grant_counts(check: BuilderCheck, later: list[set[Value]]) -> list[Problem]:
    """004: "las nuevas cantidades de posiciones solo pueden leer valores que cambian pasos
    anteriores": a grant choice's `countFrom` against the first step that picks its entry."""
    first: dict[str, int] = {}
    for place, step in check.builder.steps_of(CatalogStep):
        first.setdefault(step.catalog, place)
    found: list[Problem] = []
    for path, catalog, entry in _entries(check.ruleset):
        start = first.get(catalog.id)
        if start is None or entry.grants is None:
            continue
        for where, choice in _grant_choices(entry.grants):
            met = (
                reads([choice.count_from], check.index) & later[start]
                if choice.count_from
                else set()
            )
            if met:
                message = (
                    f"a count reads {describe(met)}, which step "
                    f"'{check.builder.steps[start].id}' or a later one changes"
                )
                found.append(Problem(f"{path}.grants.{where}.countFrom", message))
            at = f"{path}.grants.{where}.countFrom"
            found += _external_count(check, choice.count_from, at, start)
    return found


def _external_count(
    check: BuilderCheck, count: RulesetValueRef | None, at: str, place: int
) -> list[Problem]:
    """004: "Una cantidad de posiciones no puede leer valores de la ficha cuando un archivo de
    catálogo externo posterior podría cambiarlos": a count reading the sheet, with a step at
    or after its own picking from an asset or borrowed catalog (whose grants this file does
    not hold)."""
    if count is None or not reads([count], check.index):
        return []
    for step in check.builder.steps[place:]:
        name = getattr(step, "catalog", None)
        found = check.catalogs.get(name) if isinstance(name, str) else None
        if found is not None and (found.entries is None or found.from_ is not None):
            message = (
                f"a count reads the sheet, which step '{step.id}' (catalog '{name}', kept "
                "outside this file) could change; move the count's step before it or keep "
                "that catalog in the file"
            )
            return [Problem(at, message)]
    return []


# ---------------------------------------------------------------------------
# check_builder_grants: catalog entries' grants and offeredWhen


def _entries(ruleset: Ruleset) -> Iterable[tuple[str, Catalog, CatalogEntry]]:
    for position, catalog in enumerate(ruleset.catalog_models):
        for item, entry in enumerate(catalog.entries or ()):
            yield f"catalogs.{position}.entries.{item}", catalog, entry


def _grant_choices(grants: Grants) -> list[tuple[str, Choice]]:
    """Every choice slot of an entry's grants, with its path below `grants` and its kind."""
    found: list[tuple[str, Choice]] = []
    for key in ("abilities", "trained", "entries"):
        part = getattr(grants, key)
        for place, choice in enumerate(part.choose or () if part is not None else ()):
            found.append((f"{key}.choose.{place}", choice))
    return found


_EMPTY: dict[str, Any] = {"steps": [], "rating_tiers": [], "pools": [], "tier": None}
_NO_BUILDER = cast(Builder, Builder.model_construct(**_EMPTY))
"""Grants are checked without a builder too: no steps, no rating maps."""


def check_builder_grants(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """004, "Lo que da una selección son las grants de su entrada": what inline entries'
    grants name (abilities, skills, saves, tiers, fields and the values they set, rating
    targets and their maps, granted catalogs and their `choices` step, item access), choice
    ids unique within the catalog, `excludeChoices`, and `offeredWhen` (A26–A29). A catalog
    only the party's builder picks from is read against the party sheet and its builder
    (`SheetIndex.party_catalogs`)."""
    builder = ruleset.sheet.builder_parts.builder or _NO_BUILDER
    check = _GrantsCheck.of(BuilderCheck(ruleset, index, builder, "sheet.builder"))
    party = ruleset.party
    party_builder = party.builder_parts.builder if party is not None else None
    shared = check
    if party is not None and party_builder is not None and index.party_catalogs:
        party_index = SheetIndex.of_party(ruleset, party, index.broken)
        shared = _GrantsCheck.of(BuilderCheck(ruleset, party_index, party_builder, "party.builder"))
    seen: dict[str, set[str]] = {}
    for path, catalog, entry in _entries(ruleset):
        here = shared if catalog.id in index.party_catalogs else check
        _entry_grants(here, path, catalog, entry, seen.setdefault(catalog.id, set()))
    trained = check.check
    for place, step in builder.steps_of(TrainedStep):
        ids_here: set[str] = set()
        for item, choice in enumerate(step.choose or ()):
            at = f"{trained.at(place)}.choose.{item}"
            if choice.id is not None and choice.id in ids_here:
                trained.add(f"{at}.id", f"choice id '{choice.id}' repeats in this step")
            ids_here.add(choice.id or "")
            for spot, ref in enumerate(choice.exclude_choices or ()):
                _exclude(trained, f"{at}.excludeChoices.{spot}", ref, "trained", place)
    extra = shared.check.problems if shared is not check else []
    return check.check.problems + extra


@dataclass
class _GrantsCheck:
    """A builder whose catalogs' grants are checked, with what its steps choose and allocate."""

    check: BuilderCheck
    chosen: set[str]
    allocated: set[Value]

    @classmethod
    def of(cls, check: BuilderCheck) -> _GrantsCheck:
        builder, index = check.builder, check.index
        chosen = {step.catalog for _, step in builder.steps_of(ChoicesStep)}
        allocated = {
            target_value(target, index)
            for _, step in builder.steps_of(AllocateStep)
            for group in step.groups
            for target in group.targets
        }
        return cls(check, chosen, allocated)


def _entry_grants(
    here: _GrantsCheck, path: str, catalog: Catalog, entry: CatalogEntry, ids: set[str]
) -> None:
    """One inline entry's `offeredWhen` and grants (`check_builder_grants`)."""
    check, index = here.check, here.check.index
    if entry.offered_when is not None:
        at = f"{path}.offeredWhen"
        check.ref(entry.offered_when, at, "offeredWhen")
        read = reads([entry.offered_when], index)
        met = read & entry_changes(entry, index, check.catalogs)
        if met:
            check.add(at, f"offeredWhen reads {describe(met)}, which its own pick changes")
        elif read & here.allocated:
            message = (
                f"offeredWhen reads {describe(read & here.allocated)}, which an allocate step "
                "changes; a free grant's condition never reads an allocation group"
            )
            check.add(at, message)
    grants = entry.grants
    if grants is None:
        return
    _grants(check, f"{path}.grants", grants, here.chosen)
    for where, choice in _grant_choices(grants):
        if choice.id is not None and choice.id in ids:
            check.add(
                f"{path}.grants.{where}.id",
                f"choice id '{choice.id}' repeats in catalog '{catalog.id}'",
            )
        if choice.id is not None:
            ids.add(choice.id)
        kind = where.split(".")[0]
        for item, ref in enumerate(choice.exclude_choices or ()):
            _exclude(
                check,
                f"{path}.grants.{where}.excludeChoices.{item}",
                ref,
                kind,
                _first_step(check.builder, catalog.id),
            )


def _first_step(builder: Builder, catalog: str) -> int | None:
    return next((p for p, s in builder.steps_of(CatalogStep) if s.catalog == catalog), None)


def _exclude(check: BuilderCheck, at: str, ref: str, kind: str, place: int | None) -> None:
    """004, `excludeChoices`: "IDs de elecciones anteriores del mismo tipo", verifiable in the
    definition or the same catalog file."""
    source, choice_id = ref.split("/", 1)
    steps = check.builder.step_ids
    where = steps.get(source)
    if where is None:
        if not check.builder.may_hold("steps", source):
            check.add(at, f"names no step '{source}'")
        return
    if place is not None and where > place:
        check.add(at, f"step '{source}' comes after the choice that excludes it")
        return
    step = check.builder.steps[where]
    offered: set[str] = set()
    if isinstance(step, TrainedStep):
        offered = (
            {c.id for c in step.choose or () if c.id is not None} if kind == "trained" else set()
        )
    elif isinstance(step, CatalogStep):
        catalog = check.catalogs.get(step.catalog)
        if catalog is None or catalog.entries is None:
            check.add(at, f"step '{source}' picks from a catalog outside this file: not verifiable")
            return
        for entry in catalog.entries:
            for path, choice in _grant_choices(entry.grants) if entry.grants else ():
                if path.startswith(kind) and choice.id is not None:
                    offered.add(choice.id)
    if choice_id not in offered:
        check.add(at, f"step '{source}' offers no {kind} choice '{choice_id}'")


def _grants(check: BuilderCheck, at: str, grants: Grants, chosen: set[str]) -> None:
    index = check.index
    known = index.abilities
    if grants.abilities is not None:
        for name in grants.abilities.add or {}:
            if name not in known:
                check.add(f"{at}.abilities.add.{name}", f"names no ability '{name}'")
            elif known[name].value is not None:
                check.add(f"{at}.abilities.add.{name}", f"ability '{name}' is computed")
        for place, choice in enumerate(grants.abilities.choose or ()):
            where = f"{at}.abilities.choose.{place}"
            check.ref(choice.count_from, f"{where}.countFrom", "a choice's countFrom")
            for key, names in (("from", choice.from_), ("except", choice.except_)):
                for item, name in enumerate(names or ()):
                    if name not in known:
                        check.add(f"{where}.{key}.{item}", f"names no ability '{name}'")
    trained = grants.trained
    if trained is not None:
        check.trained_tier(trained.tier, f"{at}.trained.tier")
        for key, names, found in (
            ("skills", trained.skills, index.skills),
            ("saves", trained.saves, index.saves),
        ):
            for item, name in enumerate(names or ()):
                if name not in found:
                    check.add(f"{at}.trained.{key}.{item}", f"names no {key[:-1]} '{name}'")
        for place, training in enumerate(trained.choose or ()):
            check.training_choice(
                f"{at}.trained.choose.{place}", training, trained.tier or check.builder.tier
            )
    for name, value in (grants.sets or {}).items():
        found_field = index.fields.get(name)
        if found_field is None:
            check.add(f"{at}.sets.{name}", f"names no field '{name}'")
        elif (reason := found_field.holds(value)) is not None:
            check.add(f"{at}.sets.{name}", f"field '{name}' can never hold {value!r} ({reason})")
    for place, rating in enumerate(grants.ratings or ()):
        check.target(rating.target, f"{at}.ratings.{place}.target")
    for place, picked in enumerate(grants.entries.choose if grants.entries else ()):
        where = f"{at}.entries.choose.{place}"
        catalog = check.catalog(picked.catalog, f"{where}.catalog")
        if catalog is None:
            continue
        if picked.catalog not in chosen and check.builder.whole("steps"):
            check.add(
                f"{where}.catalog", f"no choices step of the builder is for '{picked.catalog}'"
            )
        check.ref(picked.count_from, f"{where}.countFrom", "a choice's countFrom")
        filters = filters_of(catalog)
        for key in picked.filters or {}:
            if key not in filters:
                check.add(
                    f"{where}.filters.{key}", f"catalog '{catalog.id}' declares no filter '{key}'"
                )
        for item, quota in enumerate(picked.quotas or ()):
            if quota.filter not in filters:
                check.add(
                    f"{where}.quotas.{item}.filter",
                    f"catalog '{catalog.id}' declares no filter '{quota.filter}'",
                )
        if picked.distinct_by is not None and picked.distinct_by not in filters:
            check.add(
                f"{where}.distinctBy",
                f"catalog '{catalog.id}' declares no filter '{picked.distinct_by}'",
            )
        if catalog.entries is not None:
            entry_ids = {entry.id for entry in catalog.entries}
            for item, name in enumerate(picked.ids or ()):
                if name not in entry_ids:
                    check.add(
                        f"{where}.ids.{item}", f"catalog '{catalog.id}' has no entry '{name}'"
                    )
    for place, ref in enumerate(grants.item_access or ()):
        check.item_ref(ref, f"{at}.itemAccess.{place}")
