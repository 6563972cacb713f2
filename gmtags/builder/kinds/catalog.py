"""The `catalog` step (004, "Pasos de catálogo"), whole: `run` at its turn in the walk (the
picks that count, what each gives: `apply_pick`), the entries the sheet as it is does not
offer (`closed_now`, `unpaid`: read on the finished card by the build's gates), and its
view (its entries to pick, with the pool it pays from). The decisions where the seed is
silent are in `gmtags.builder.steps`' module doc."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from gmtags.builder import quotas
from gmtags.builder.accounts import pick_price
from gmtags.builder.controls import Choose, Control, Look, Option
from gmtags.builder.result import Inactive
from gmtags.builder.scores import Chosen
from gmtags.builder.state import Finished, Picked, State, read_count
from gmtags.builder.training import Slot
from gmtags.ruleset.builder.steps import CatalogStep, FromWithin
from gmtags.ruleset.catalogs import Catalog, CatalogEntry
from gmtags.sheet.values import SheetValues

MAX_PICKS = 60
"""004: a catalog step's `min` and `max` "pueden llegar a 60" (and `countFrom` without a
`max` takes up to that many, BUILDER §3.4)."""


def ask(step: CatalogStep) -> tuple[str, bool, int | None]:
    """What the step asks ("Choose one", "Choose 2 to 4", …), whether it takes one pick,
    and the most it takes (None: as many as the sheet allows)."""
    if step.count_from is not None:
        return "Choose as many as the sheet allows", False, None
    most = step.max or 1
    if most == 1:
        return ("Choose one" if step.min else "Choose one, or none"), True, 1
    span = str(most) if step.min == most else f"{step.min} to {most}"
    return f"Choose {span}", False, most


def view(look: Look, step: CatalogStep) -> list[Control]:
    picks = list(look.answer(step.id).get("picks") or [])
    ids = [
        *look.entry.get("offered", []),
        *(p for p in picks if p not in look.entry.get("offered", [])),
    ]
    reasons = look.reasons()
    label, single, most = ask(step)
    options = tuple(
        Option(
            str(i),
            look.label(str(i), step.catalog),
            look.summary(str(i), step.catalog),
            chosen=i in picks,
            reason=reasons.get(str(i), ""),
        )
        for i in ids
    )
    empty = "Nothing to choose here yet: an earlier step decides what this one offers."
    return [
        *look.pool_line(step.pool),
        Choose(
            label,
            ("steps", step.id, "picks"),
            options,
            single=single,
            clearable=single and not step.min,
            most=most,
            name=f"pick-{step.id}",
            empty=empty,
            about=step.label,
        ),
    ]


def _named(value: object, parent: CatalogEntry) -> bool:
    """Whether a filter's value names `parent` (module doc: id, label, any word of a list)."""
    words = value if isinstance(value, list) else [value]
    label = parent.label.casefold()
    return any(w == parent.id or (isinstance(w, str) and w.casefold() == label) for w in words)


def matches(value: object, wanted: object) -> bool:
    """A step's `filters` value against an entry's: equal, or sharing a word of a list."""
    have = value if isinstance(value, list) else [value]
    want = wanted if isinstance(wanted, list) else [wanted]
    return any(item in want for item in have)


def _offered(state: State, step: CatalogStep, catalog: Catalog) -> list[CatalogEntry]:
    """The entries the step offers before reading the sheet: its filters and `within`."""
    found = list(catalog.entries or ())
    if step.filters:
        found = [
            e
            for e in found
            if all(
                matches((e.filters or {}).get(key), wanted) for key, wanted in step.filters.items()
            )
        ]
    if step.within is not None:
        parents = [p.entry for p in state.picked.get(step.within.step, [])]
        key = step.within.filter
        found = [
            e
            for e in found
            if key in (e.filters or {})
            and any(_named((e.filters or {})[key], parent) for parent in parents)
        ]
    return found


def closed_now(
    state: State,
    step: CatalogStep,
    values: SheetValues,
    without: Callable[[str], SheetValues] | None = None,
) -> dict[str, str]:
    """The entries the sheet as it is does not offer now: `upTo` and `offeredWhen`.

    004 (1.100): "Una entrada con un grupo exclusive se lee en la ficha sin ninguna de
    las selecciones que el paso tiene guardadas en ese grupo": `without(group)` gives the
    sheet built without them.
    """
    catalog = state.catalogs.get(step.catalog)
    closed: dict[str, str] = {}
    apart: dict[str, SheetValues] = {}
    for entry in (catalog.entries or ()) if catalog is not None else ():
        read_on = values
        if entry.exclusive is not None and entry.offered_when is not None and without:
            if entry.exclusive not in apart:
                apart[entry.exclusive] = without(entry.exclusive)
            read_on = apart[entry.exclusive]
        mark = (entry.filters or {}).get(step.up_to.filter) if step.up_to else None
        number = isinstance(mark, int | float) and not isinstance(mark, bool)
        if step.up_to is not None and number and mark > values.value(step.up_to.value):  # type: ignore[operator]
            closed[entry.id] = "above what the sheet reaches now (upTo)"
            continue
        if entry.offered_when is not None and not read_on.value(entry.offered_when) > 0:
            closed[entry.id] = "not offered now (offeredWhen)"
    if catalog is not None and step.pool is not None:
        priced = unpaid(state, step, list(catalog.entries or ()))
        closed.update({k: v for k, v in priced.items() if k not in closed})
    return closed


@dataclass(frozen=True)
class CatalogGate:
    """What the finished sheet decides for a catalog step: the picks it does not offer now,
    with why (`closed_now`), and how many picks it takes (`countFrom`)."""

    closed: Mapping[str, str]
    count: int | None = None


def gate(done: Finished, step: CatalogStep) -> CatalogGate | None:
    """Read `upTo`, `offeredWhen`, what a pool can pay and `countFrom` on the finished sheet
    (or the sheet before the step the step's `reads.before` names)."""
    if step.reads is None:
        closed = closed_now(done.state, step, done.values, partial(done.without, step.id))
    else:
        closed = closed_now(done.state, step, done.before(step.reads.before))
    count = None
    if step.count_from is not None:
        most = step.max if step.max is not None else MAX_PICKS
        count = read_count(done.values, step.count_from, most)
    return CatalogGate(closed, count) if closed or count is not None else None


def run(state: State, step: CatalogStep) -> None:
    """A catalog step: its picks that count, what each gives, and its badge (004)."""
    entry_out = state.blank_entry(step.id, step.kind)
    catalog = state.catalogs.get(step.catalog)
    if catalog is None:
        entry_out["reasons"].append(f"catalog '{step.catalog}' is not loaded")
        return
    offered = _offered(state, step, catalog)
    if step.pool is not None:
        state.register_settle()
    gated = state.gates.of(step.id, CatalogGate)
    closed = gated.closed if gated is not None else {}
    open_ids = [e.id for e in offered if e.id not in closed]
    by_id = {e.id: e for e in offered}
    counted = gated.count if gated is not None and step.count_from is not None else None
    if step.count_from is None:
        most = step.max if step.max is not None else 1
    elif counted is not None:
        most = counted
    else:  # the first build, before the finished sheet is read
        most = step.max if step.max is not None else MAX_PICKS
    asked = counted if counted is not None else min(step.min, most)
    picks = list(state.answers.step(step.id).picks or [])
    valid: list[str] = []
    inactive: list[Inactive] = []
    for pick in picks:
        if pick in valid:
            inactive.append({"answer": pick, "reason": "already picked"})
        elif pick not in by_id:
            inactive.append({"answer": pick, "reason": "not offered by this step"})
        elif pick in closed:
            inactive.append({"answer": pick, "reason": closed[pick]})
        else:
            valid.append(pick)
    valid = _last_of_groups(state, valid, by_id, inactive)
    replaces = step.max in (None, 1) and step.count_from is None
    if replaces and len(valid) > 1:
        inactive += [{"answer": p, "reason": "replaced by a later pick"} for p in valid[:-1]]
        valid = valid[-1:]
    tally = quotas.count(step, [by_id[p] for p in valid], most)
    inactive += tally.inactive
    active = tally.active
    active += _group_defaults(state, [e for e in offered if e.id in open_ids], active, asked)
    for pick in active:
        apply_pick(state, step, catalog, by_id[pick])
    _catalog_field(state, step, [by_id[p] for p in active])
    entry_out["offered"], entry_out["active"] = list(open_ids), active
    entry_out["inactive"] = inactive
    state.waits(entry_out, max(0, asked - len(active), tally.short))
    entry_out["reasons"] += tally.reasons


def _group_defaults(
    state: State, offered: Sequence[CatalogEntry], active: Sequence[str], asked: int
) -> list[str]:
    """004 `exclusiveDefault` (1.772): "hace que una entrada sea la que un paso que toma
    todo lo que ofrece toma de su grupo hasta que el jugador selecciona otra". A step takes
    everything it offers when it asks for at least as many picks as it offers choices (a
    group is one choice, BUILDER §3.23); each group with no pick then takes its default,
    which is active without being an answer."""
    groups = {e.exclusive for e in offered if e.exclusive is not None}
    choices = len(groups) + sum(1 for e in offered if e.exclusive is None)
    if not groups or asked < choices:
        return []
    picked = {e.exclusive for e in offered if e.id in active}
    return [
        e.id
        for e in offered
        if e.exclusive_default and e.exclusive in groups - picked and e.id not in active
    ]


def _last_of_groups(
    state: State, picks: list[str], by_id: dict[str, CatalogEntry], inactive: list[Inactive]
) -> list[str]:
    """004 `exclusive`: one pick of each group, the latest."""
    last: dict[str, str] = {}
    for pick in picks:
        group = by_id[pick].exclusive
        if group is not None:
            last[group] = pick
    kept = []
    for pick in picks:
        group = by_id[pick].exclusive
        if group is not None and last[group] != pick:
            inactive.append({"answer": pick, "reason": f"another pick of group '{group}'"})
        else:
            kept.append(pick)
    return kept


def _catalog_field(state: State, step: CatalogStep, entries: Sequence[CatalogEntry]) -> None:
    """004: `field` receives the picked labels (module doc)."""
    if step.field is None or not entries:
        return
    shape = next((f for f in state.ruleset.sheet.fields if f.id == step.field), None)
    values = getattr(shape, "values", None)
    if values is not None:
        chosen = next(
            (
                e.id if e.id in values else e.label
                for e in entries
                if e.id in values or e.label in values
            ),
            None,
        )
        if chosen is not None:
            state.writer.write(f"fields.{step.field}", chosen)
        return
    state.writer.write(f"fields.{step.field}", ", ".join(e.label for e in entries))


def _stamp(state: State, step: CatalogStep, entry: CatalogEntry, value: object) -> object | None:
    """A stamp's value: as written, or read from the first parent pick the entry names, in
    selection order (1.130); None leaves the column unstamped (no parent, or its filter
    missing or a list). It goes into a row the pick adds; a row the card already holds for
    the pick keeps its cells (`Writer.picked_row`)."""
    if not isinstance(value, FromWithin):
        return value
    if step.within is None:
        return None
    named = (entry.filters or {}).get(step.within.filter)
    for parent in state.picked.get(step.within.step, []):
        if named is None or not _named(named, parent.entry):
            continue
        key = value.from_within
        if key == "id":
            return parent.entry.id
        if key == "label":
            return parent.entry.label
        found = (parent.entry.filters or {}).get(key)
        return None if isinstance(found, list) else found
    return None


def apply_pick(state: State, step: Any, catalog: Catalog, entry: CatalogEntry) -> None:
    """What an active pick gives (004, "Lo que da una selección"), once per entry."""
    picked = Picked(step.id, catalog, entry)
    state.picked.setdefault(step.id, []).append(picked)
    if picked.ref in state.applied:
        return
    state.applied.add(picked.ref)
    state.writer.pick(picked.ref)
    for row in entry.rows or ():
        values: dict[str, Any] = dict(row.values)
        stamps = step.stamp if isinstance(step, CatalogStep) and step.stamp else {}
        for column, stamp in stamps.items():
            stamped = _stamp(state, step, entry, stamp)
            if stamped is not None:
                values[column] = stamped
        state.writer.picked_row(row.list, {**values, "_catalog": picked.ref, "_pick": step.id})
    grants = entry.grants
    if grants is None:
        return
    for name, value in (grants.sets or {}).items():
        path = f"fields.{name}"
        own = state.writer.own(path)
        if own is None or own == "":
            state.writer.write(path, value)
    source = f"{step.id}/{entry.id}"
    if grants.abilities is not None:
        state.adds.append((source, dict(grants.abilities.add or {})))
        for n, choice in enumerate(grants.abilities.choose or ()):
            key = f"{step.id}/{choice.id}" if choice.id else f"{source}/abilities.{n}"
            state.ability_slots.append(
                (step.id, Chosen(key, choice, state.answers.choices.get(key, [])))
            )
    if grants.trained is not None:
        trained = grants.trained
        state.trained_grants.append(("skills", list(trained.skills or ()), trained.tier))
        state.trained_grants.append(("saves", list(trained.saves or ()), trained.tier))
        for n, training in enumerate(trained.choose or ()):
            key = f"{step.id}/{training.id}" if training.id else f"{source}/trained.{n}"
            state.training_slots.append((step.id, slot(state, key, training, trained.tier)))
    if grants.ratings:
        state.rating_grants.append((source, list(grants.ratings)))
    if grants.entries is not None:
        for n, chosen in enumerate(grants.entries.choose):
            key = f"{step.id}/{chosen.id}" if chosen.id else f"{source}/entries.{n}"
            state.entry_slots.append((step.id, key, chosen))
    state.available.extend(grants.item_access or ())


def slot(state: State, key: str, choice: Any, tier: str | None) -> Slot:
    return Slot(
        key,
        choice,
        tier,
        state.answers.choices.get(key, []),
        state.answers.choices.get(f"{key}/replacement", []),
    )


def unpaid(state: State, step: CatalogStep, entries: list[CatalogEntry]) -> dict[str, str]:
    """The entries of a priced step its pool did not pay on this build, and those it could
    not pay now, with the reason (`gmtags.builder.pools`); read by the catalog step's gate."""
    if step.pool is None or step.pool not in state.accounts:
        return {}
    account = state.accounts[step.pool]
    closed: dict[str, str] = {}
    for entry in entries:
        kept = state.unpaid.get((step.id, entry.id))
        if kept is not None:
            closed[entry.id] = kept
            continue
        if any(p.entry.id == entry.id for p in state.picked.get(step.id, [])):
            continue
        refused = account.refuses(pick_price(step, entry))
        if refused is not None:
            closed[entry.id] = refused
    return closed
