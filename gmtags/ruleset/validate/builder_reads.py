"""What a builder value reads and what a step (or a pick) changes, as sheet values (004).

004 refuses reads in a few places: a step's `when` and a slot count read only
"valores que cambian pasos anteriores"; allocate budgets and limits never read
"objetivos que cambie este paso o uno posterior, ni siquiera mediante valores
derivados"; pool budgets, offer conditions and limits never read "un objetivo
comprado"; an entry's `offeredWhen` never reads what its own pick changes. Each
is the same question: do the values a reference reads (through derived values,
computed abilities and skill modifiers) meet the values some steps change?

A value is a `Value`, `(kind, id)` with kind `field`, `ability`, `skill`,
`save`, `list` or `live`. A skill's value is its modifier (its training, its
bonus, its ability); a list's is its rows.
"""

from __future__ import annotations

from collections.abc import Iterable

from gmtags.ruleset.builder import (
    AbilitiesStep,
    AllocateStep,
    AnyStep,
    CatalogStep,
    ChoicesStep,
    FieldsStep,
    InitializeStep,
    RollStep,
    RowsStep,
    SpendStep,
    TrainedStep,
)
from gmtags.ruleset.builder.common import Target, given
from gmtags.ruleset.catalogs import Catalog, CatalogEntry
from gmtags.ruleset.refs import RulesetValueRef
from gmtags.ruleset.sheet import EnumField, EnumTableDerived
from gmtags.ruleset.validate.index import SheetIndex

Value = tuple[str, str]
"""A sheet value a builder reads or changes: (kind, id)."""


def reads(refs: Iterable[RulesetValueRef | None], index: SheetIndex) -> set[Value]:
    """Every sheet value `refs` read, directly or through derived values, computed abilities
    and the skills and saves whose modifiers they read."""
    found: set[Value] = set()
    seen: set[Value] = set()
    stack = [ref for ref in refs if ref is not None]
    while stack:
        ref = stack.pop()
        for value, more in _one(ref, index):
            found.add(value)
            if value not in seen:
                seen.add(value)
                stack.extend(more)
    return {value for value in found if value[0] != "derived"}


def _one(ref: RulesetValueRef, index: SheetIndex) -> list[tuple[Value, list[RulesetValueRef]]]:
    """What one reference reads directly, each with the references that value reads in turn."""
    key, target = ref.key, ref.target or ""
    if key == "field":
        return [(("field", target), [])]
    if key == "derived":
        found = index.derived.get(target)
        if found is None:
            return []
        value = found[1]
        more = [item for _, item in value.refs()]
        extra: list[tuple[Value, list[RulesetValueRef]]] = []
        if isinstance(value, EnumTableDerived) and value.from_.field is not None:
            extra.append((("field", value.from_.field), []))
        if isinstance(value, EnumTableDerived) and value.from_.live_state is not None:
            extra.append((("live", value.from_.live_state), []))
        return [(("derived", target), more), *extra]
    if key in ("abilityScore", "abilityMod"):
        return [_ability(target, index)]
    if key == "abilityModFromField":
        enum = index.fields.get(target)
        names = enum.values if isinstance(enum, EnumField) else []
        return [(("field", target), []), *(_ability(n, index) for n in names)]
    if key in ("skillMod", "saveMod"):
        kind = "skill" if key == "skillMod" else "save"
        entry = (index.skills if kind == "skill" else index.saves).get(target)
        caps: list[RulesetValueRef] = []
        found_more: list[tuple[Value, list[RulesetValueRef]]] = [((kind, target), caps)]
        if entry is not None:
            if entry.cap is not None:
                caps.append(entry.cap)
            if entry.ability is not None:
                found_more.append(_ability(entry.ability, index))
        return found_more
    if key == "listSum" and ref.list_sum is not None:
        return [(("list", ref.list_sum.list), [])]
    if key in ("livePool", "liveTrack", "itemStat"):
        return [(("live", target or key), [])]
    return []


def _ability(name: str, index: SheetIndex) -> tuple[Value, list[RulesetValueRef]]:
    ability = index.abilities.get(name)
    return ("ability", name), list(ability.value or []) if ability is not None else []


# ---------------------------------------------------------------------------
# What changes


def target_value(target: Target, index: SheetIndex) -> Value:
    """The sheet value a rating target changes (a bonus changes its skill's or save's)."""
    kind = given(target)[0]
    name = getattr(target, kind)
    if kind == "bonus":
        return ("save" if name in index.saves and name not in index.skills else "skill", name)
    return (kind, name)


def entry_changes(
    entry: CatalogEntry, index: SheetIndex, catalogs: dict[str, Catalog]
) -> set[Value]:
    """004, "Deseleccionar retira lo que dio una selección": what picking `entry` changes —
    the scores it raises, the skills and saves it trains, the fields it sets, the ratings it
    gives and the lists its rows (and the entries its choices grant) are written to."""
    found: set[Value] = {("list", row.list) for row in entry.rows or ()}
    grants = entry.grants
    if grants is None:
        return found
    if grants.abilities is not None:
        found |= {("ability", name) for name in grants.abilities.add or {}}
        for choice in grants.abilities.choose or ():
            names = choice.from_ or list(index.abilities)
            found |= {("ability", n) for n in names if n not in (choice.except_ or ())}
    if grants.trained is not None:
        found |= {("skill", name) for name in grants.trained.skills or ()}
        found |= {("save", name) for name in grants.trained.saves or ()}
        for training in grants.trained.choose or ():
            found |= _training(training.what, training.from_, index)
    found |= {("field", name) for name in grants.sets or {}}
    found |= {target_value(rating.target, index) for rating in grants.ratings or ()}
    for picked in grants.entries.choose if grants.entries is not None else ():
        fed = catalogs.get(picked.catalog)
        found |= {("list", name) for name in (fed.feeds or () if fed is not None else ())}
    return found


def _training(what: str, names: list[str] | None, index: SheetIndex) -> set[Value]:
    kind = "skill" if what == "skills" else "save"
    known = index.skills if kind == "skill" else index.saves
    return {(kind, name) for name in (names if names is not None else list(known))}


def step_changes(step: AnyStep, index: SheetIndex, catalogs: dict[str, Catalog]) -> set[Value]:
    """What a step (any of its picks, answers or writes) can change on the sheet."""
    if isinstance(step, CatalogStep):
        found: set[Value] = {("field", step.field)} if step.field is not None else set()
        catalog = catalogs.get(step.catalog)
        for entry in catalog.entries or () if catalog is not None else ():
            found |= entry_changes(entry, index, catalogs)
        return found
    if isinstance(step, FieldsStep):
        return {("field", name) for name in step.fields}
    if isinstance(step, AbilitiesStep):
        return {("ability", name) for name in step.abilities or index.abilities}
    if isinstance(step, AllocateStep):
        return {target_value(t, index) for group in step.groups for t in group.targets}
    if isinstance(step, SpendStep):
        return purchased(step, index)
    if isinstance(step, TrainedStep):
        found = set()
        for choice in step.choose or ():
            found |= _training(choice.what, choice.from_, index)
        return found
    if isinstance(step, ChoicesStep):
        catalog = catalogs.get(step.catalog)
        return {("list", name) for name in (catalog.feeds or () if catalog else ())}
    if isinstance(step, RowsStep):
        return {("list", step.list)}
    if isinstance(step, RollStep):
        return {
            ("field", roll.field) if roll.field is not None else ("ability", roll.ability or "")
            for roll in step.rolls
        }
    if isinstance(step, InitializeStep):
        return {("field", write.field) for write in step.writes}
    return set()


def purchased(step: SpendStep, index: SheetIndex) -> set[Value]:
    """The targets a spend step buys (and those its exchanges lower)."""
    found = {target_value(offer.target, index) for offer in step.offers}
    return found | {
        target_value(offer.exchange.from_, index) for offer in step.offers if offer.exchange
    }


def describe(values: Iterable[Value]) -> str:
    """`ability 'str', field 'level'`, sorted."""
    return ", ".join(f"{kind} '{name}'" for kind, name in sorted(values))
