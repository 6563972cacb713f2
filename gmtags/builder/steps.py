"""The steps of one build (BUILDER chunk B), walked in order by `gmtags.builder.build`.

`Walk` runs each step on the build's `State` (`gmtags.builder.state`): what the build has
written so far (`Writer`) and what the picks gave that is worked out once every step has
run: the abilities' base scores,
their `add`s and choices, the training grants and choices, and the entry
choices of `choices` steps. Each step leaves a result entry of SPEC §10's
`res.steps` shape. The abilities step and the scores are `gmtags.builder.abilities`.

Decisions where the seed is silent (BUILDER.md §3 where it has one):
- Saved picks past what a step takes: the earliest count (§3.3), except that
  with `max` 1 and in an `exclusive` group the latest counts (004: "con max 1,
  una selección nueva sustituye a la anterior"; "solo cuenta la última").
- `countFrom` without a `max` takes up to 60 (§3.4).
- A catalog step's `field`: a text field gets the labels joined by ", " in
  selection order; an enum field the first active pick whose id, else label,
  is one of its values (§3.8).
- `within`: an entry's filter names a parent pick by its id, or its label
  without regard to case; a list filter when any of its words does (§3.22).
- The same entry picked in two steps writes and grants once (004, B38).
- `sets` writes a field only while it is blank (absent, or "" for text) on the
  player's layer, or the builder's (§3.6); of two picks setting one field the
  later in step and selection order wins (§3.9).
- A step's `when` reads the card as the steps before it left it; the scores
  and the training are worked out once every step has run.
- The default method (`default`, 1.87) is taken only by a character with no
  ability score of its own on the card (004: "un personaje descrito nunca lo
  toma"), nor by a described one (`gmtags.builder.described`).
- Starting kits are taken with `kits`; each item line is written to the card's
  `items` (marked `_kit`); coin lines go to the builder record's purse
  (`gmtags.builder.coins`).
- Entries chosen in a `choices` step write their rows and are added to the
  card's `picks`, without their own grants (004).
- Which picks count under `quotas`, `distinctBy` and `quotaBelow` is
  `gmtags.builder.quotas`; the creation rules are read on the finished card by
  `gmtags.builder.constraints`.
- `requiredWhen` (1.151): "contar las elecciones sin terminar en su insignia solo mientras
  sea mayor que cero", and it "puede leer cualquier valor no vivo válido", so it is read on
  the finished card. While it reads 0 or less the step is not required (`required` false
  in its entry): its badge stops counting what the step still waits for (`State.waits`:
  picks, fields, a method, values to hand out, kits, rows, a Set, dots to place and the
  choice slots shown there), but still counts what it holds that does not hold (over a
  budget, a creation rule unmet, a pool to repair, a total exceeded): 004 tells the two
  apart ("elecciones incompletas o no válidas").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gmtags.builder import abilities, coins, constraints, pools, profiles, quotas, ratings
from gmtags.builder.card import read
from gmtags.builder.controls import Control, Look
from gmtags.builder.kinds import (
    allocate,
    catalog,
    choices,
    fields,
    gear,
    initialize,
    roll,
    rows,
    spend,
    trained,
)
from gmtags.builder.scores import (
    Chosen,
)
from gmtags.builder.state import Entry, Picked, State
from gmtags.builder.training import Slot, SlotResult, Tiers, Training, What
from gmtags.ruleset.builder.priced import InitializeStep, RollStep, RowsStep, SpendStep
from gmtags.ruleset.builder.steps import (
    STEPS,
    AbilitiesStep,
    AllocateStep,
    CatalogStep,
    ChoicesStep,
    FieldsStep,
    FromWithin,
    StartingGearStep,
    StepBase,
    TrainedStep,
)
from gmtags.ruleset.catalogs import Catalog, CatalogEntry
from gmtags.sheet.holds import value_problem
from gmtags.sheet.values import SheetValues

MAX_PICKS = 60
"""004: a catalog step's `min` and `max` "pueden llegar a 60" (and `countFrom` without a
`max` takes up to that many, BUILDER §3.4)."""


def _named(value: object, parent: CatalogEntry) -> bool:
    """Whether a filter's value names `parent` (module doc: id, label, any word of a list)."""
    words = value if isinstance(value, list) else [value]
    label = parent.label.casefold()
    return any(w == parent.id or (isinstance(w, str) and w.casefold() == label) for w in words)


def _matches(value: object, wanted: object) -> bool:
    """A step's `filters` value against an entry's: equal, or sharing a word of a list."""
    have = value if isinstance(value, list) else [value]
    want = wanted if isinstance(wanted, list) else [wanted]
    return any(item in want for item in have)


class Walk(State):
    """One build walking its steps in order (module doc): `State` and what each step does."""

    # -- the walk -------------------------------------------------------------

    def run_step(self, step: Any) -> None:
        """One step, in the order the builder declares them."""
        profiles.decide(self, step)
        hidden = profiles.hidden(self, step)
        if hidden or (step.when is not None and not self.values().value(step.when) > 0):
            self.blank_entry(step.id, step.kind, shown=False)
            return
        KINDS[step.kind].run(self, step)

    # -- catalog steps ----------------------------------------------------------

    def _offered(self, step: CatalogStep, catalog: Catalog) -> list[CatalogEntry]:
        """The entries the step offers before reading the sheet: its filters and `within`."""
        found = list(catalog.entries or ())
        if step.filters:
            found = [
                e
                for e in found
                if all(
                    _matches((e.filters or {}).get(key), wanted)
                    for key, wanted in step.filters.items()
                )
            ]
        if step.within is not None:
            parents = [p.entry for p in self.picked.get(step.within.step, [])]
            key = step.within.filter
            found = [
                e
                for e in found
                if key in (e.filters or {})
                and any(_named((e.filters or {})[key], parent) for parent in parents)
            ]
        return found

    def closed_now(
        self,
        step: CatalogStep,
        values: SheetValues,
        without: Callable[[str], SheetValues] | None = None,
    ) -> dict[str, str]:
        """The entries the sheet as it is does not offer now: `upTo` and `offeredWhen`.

        004 (1.100): "Una entrada con un grupo exclusive se lee en la ficha sin ninguna de
        las selecciones que el paso tiene guardadas en ese grupo": `without(group)` gives the
        sheet built without them.
        """
        catalog = self.catalogs.get(step.catalog)
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
            priced = pools.unpaid(self, step, list(catalog.entries or ()))
            closed.update({k: v for k, v in priced.items() if k not in closed})
        return closed

    def _catalog(self, step: CatalogStep) -> None:
        entry_out = self.blank_entry(step.id, step.kind)
        catalog = self.catalogs.get(step.catalog)
        if catalog is None:
            entry_out["reasons"].append(f"catalog '{step.catalog}' is not loaded")
            return
        offered = self._offered(step, catalog)
        if step.pool is not None:
            self.register_settle()
        closed = self.gates.closed.get(step.id, {})
        open_ids = [e.id for e in offered if e.id not in closed]
        by_id = {e.id: e for e in offered}
        counted = self.gates.counts.get(step.id) if step.count_from is not None else None
        most = counted if counted is not None else (step.max if step.max is not None else 1)
        if step.count_from is not None and counted is None:
            most = step.max if step.max is not None else MAX_PICKS
        asked = counted if counted is not None else min(step.min, most)
        picks = list(self.answers.step(step.id).picks or [])
        valid: list[str] = []
        inactive: list[Entry] = []
        for pick in picks:
            if pick in valid:
                inactive.append({"answer": pick, "reason": "already picked"})
            elif pick not in by_id:
                inactive.append({"answer": pick, "reason": "not offered by this step"})
            elif pick in closed:
                inactive.append({"answer": pick, "reason": closed[pick]})
            else:
                valid.append(pick)
        valid = self._last_of_groups(valid, by_id, inactive)
        replaces = step.max in (None, 1) and step.count_from is None
        if replaces and len(valid) > 1:
            inactive += [{"answer": p, "reason": "replaced by a later pick"} for p in valid[:-1]]
            valid = valid[-1:]
        tally = quotas.count(step, [by_id[p] for p in valid], most)
        inactive += tally.inactive
        active = tally.active
        active += self._group_defaults([e for e in offered if e.id in open_ids], active, asked)
        for pick in active:
            self._apply_pick(step, catalog, by_id[pick])
        self._catalog_field(step, [by_id[p] for p in active])
        entry_out.update(offered=open_ids, active=active, inactive=inactive)
        self.waits(entry_out, max(0, asked - len(active), tally.short))
        entry_out["reasons"] += tally.reasons

    def _group_defaults(
        self, offered: Sequence[CatalogEntry], active: Sequence[str], asked: int
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
        self, picks: list[str], by_id: dict[str, CatalogEntry], inactive: list[Entry]
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

    def _catalog_field(self, step: CatalogStep, entries: Sequence[CatalogEntry]) -> None:
        """004: `field` receives the picked labels (module doc)."""
        if step.field is None or not entries:
            return
        shape = next((f for f in self.ruleset.sheet.fields if f.id == step.field), None)
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
                self.writer.write(f"fields.{step.field}", chosen)
            return
        self.writer.write(f"fields.{step.field}", ", ".join(e.label for e in entries))

    def _stamp(self, step: CatalogStep, entry: CatalogEntry, value: object) -> object | None:
        """A stamp's value: as written, or read from the first parent pick the entry names, in
        selection order (1.130); None leaves the column unstamped (no parent, or its filter
        missing or a list). It goes into a row the pick adds; a row the card already holds for
        the pick keeps its cells (`Writer.picked_row`)."""
        if not isinstance(value, FromWithin):
            return value
        if step.within is None:
            return None
        named = (entry.filters or {}).get(step.within.filter)
        for parent in self.picked.get(step.within.step, []):
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

    def _apply_pick(self, step: Any, catalog: Catalog, entry: CatalogEntry) -> None:
        """What an active pick gives (004, "Lo que da una selección"), once per entry."""
        picked = Picked(step.id, catalog, entry)
        self.picked.setdefault(step.id, []).append(picked)
        if picked.ref in self.applied:
            return
        self.applied.add(picked.ref)
        self.writer.pick(picked.ref)
        for row in entry.rows or ():
            values: dict[str, Any] = dict(row.values)
            stamps = step.stamp if isinstance(step, CatalogStep) and step.stamp else {}
            for column, stamp in stamps.items():
                stamped = self._stamp(step, entry, stamp)
                if stamped is not None:
                    values[column] = stamped
            self.writer.picked_row(row.list, {**values, "_catalog": picked.ref, "_pick": step.id})
        grants = entry.grants
        if grants is None:
            return
        for name, value in (grants.sets or {}).items():
            path = f"fields.{name}"
            own = self.writer.own(path)
            if own is None or own == "":
                self.writer.write(path, value)
        source = f"{step.id}/{entry.id}"
        if grants.abilities is not None:
            self.adds.append((source, dict(grants.abilities.add or {})))
            for n, choice in enumerate(grants.abilities.choose or ()):
                key = f"{step.id}/{choice.id}" if choice.id else f"{source}/abilities.{n}"
                self.ability_slots.append(
                    (step.id, Chosen(key, choice, self.answers.choices.get(key, [])))
                )
        if grants.trained is not None:
            trained = grants.trained
            self.trained_grants.append(("skills", list(trained.skills or ()), trained.tier))
            self.trained_grants.append(("saves", list(trained.saves or ()), trained.tier))
            for n, training in enumerate(trained.choose or ()):
                key = f"{step.id}/{training.id}" if training.id else f"{source}/trained.{n}"
                self.training_slots.append((step.id, self.slot(key, training, trained.tier)))
        if grants.ratings:
            self.rating_grants.append((source, list(grants.ratings)))
        if grants.entries is not None:
            for n, chosen in enumerate(grants.entries.choose):
                key = f"{step.id}/{chosen.id}" if chosen.id else f"{source}/entries.{n}"
                self.entry_slots.append((step.id, key, chosen))
        self.available.extend(grants.item_access or ())

    def slot(self, key: str, choice: Any, tier: str | None) -> Slot:
        return Slot(
            key,
            choice,
            tier,
            self.answers.choices.get(key, []),
            self.answers.choices.get(f"{key}/replacement", []),
        )

    # -- fields steps -----------------------------------------------------------

    def _fields(self, step: FieldsStep) -> None:
        entry = self.blank_entry(step.id, step.kind)
        shapes = {f.id: f for f in self.ruleset.sheet.fields}
        given = self.answers.step(step.id).fields or {}
        for name, value in given.items():
            shape = shapes.get(name)
            if name not in step.fields or shape is None:
                self.problem(f"steps.{step.id}.fields.{name}", "not a field of this step")
            elif value_problem(shape, value) is not None:  # what a save refuses (SPEC §11)
                self.problem(f"steps.{step.id}.fields.{name}", f"does not fit field '{name}'")
            else:
                self.writer.write(f"fields.{name}", value)
        entry["offered"] = list(step.fields)

    def _fields_pending(self, step: FieldsStep, entry: Entry) -> None:
        """004: the badge counts the empty fields not in `optional`, shown (`shownWhen`), plus
        one while a `total` is exceeded."""
        hidden = self.gates.hidden_fields.get(step.id, frozenset())
        optional = set(step.optional or ())
        empty = [
            name
            for name in step.fields
            if name not in optional
            and name not in hidden
            and read(self.writer.base, f"fields.{name}") in (None, "")
        ]
        entry["active"] = [
            n
            for n in step.fields
            if n not in hidden and read(self.writer.base, f"fields.{n}") not in (None, "")
        ]
        self.waits(entry, len(empty))
        if step.total is not None:
            numbers = [read(self.writer.base, f"fields.{n}") for n in step.total.fields]
            total = sum(
                n for n in numbers if isinstance(n, int | float) and not isinstance(n, bool)
            )
            if total > step.total.max:
                entry["pending"] += 1
                entry["reasons"].append(f"together at most {step.total.max} (now {total})")

    # -- trained and gear steps -------------------------------------------------

    def _trained(self, step: TrainedStep) -> None:
        self.blank_entry(step.id, step.kind)
        for n, choice in enumerate(step.choose or ()):
            key = f"{step.id}/{choice.id}" if choice.id else f"{step.id}/choose.{n}"
            self.training_slots.append((step.id, self.slot(key, choice, None)))

    def _gear(self, step: StartingGearStep) -> None:
        entry = self.blank_entry(step.id, step.kind)
        unfit = self.gates.unfit_kits.get(step.id, frozenset())
        kits = {kit.id: kit for kit in step.kits}
        entry["offered"] = [k for k in kits if k not in unfit]
        taken: list[str] = []
        for kit_id in self.answers.step(step.id).kits or []:
            if kit_id not in kits:
                entry["inactive"].append({"answer": kit_id, "reason": "not a kit of this step"})
            elif kit_id in unfit:
                entry["inactive"].append({"answer": kit_id, "reason": "does not fit the sheet"})
            elif kit_id in taken:
                entry["inactive"].append({"answer": kit_id, "reason": "already taken"})
            else:
                taken.append(kit_id)
        for kit_id in taken:
            for line in kits[kit_id].lines:
                if line.item is not None:
                    self.writer.item({"ref": line.item, "count": line.count or 1, "_kit": kit_id})
            coins.take_coins(self, step.id, kit_id, list(kits[kit_id].lines))
        if taken:
            self.kits[step.id] = taken
        entry["active"] = taken
        self.waits(entry, int(not taken and bool(entry["offered"])))

    # -- after every step -------------------------------------------------------

    def finish(self) -> None:
        """What the picks gave once every step has run: scores, training, entry choices."""
        by_id = {entry["id"]: entry for entry in self.steps}
        abilities.finish_scores(self, by_id)
        self._finish_training(by_id)
        self._finish_entries(by_id)
        ratings.free_ratings(self, by_id)
        for later in self.finishers:
            later(self, by_id)
        profiles.decide_late(self)  # a budgets-only profile no pool has read yet
        for step in self.builder.steps:
            if isinstance(step, FieldsStep) and by_id[step.id]["shown"]:
                self._fields_pending(step, by_id[step.id])
        constraints.check(self, by_id)
        values: SheetValues | None = None  # read once, and only for a `requiredWhen`
        for step in self.builder.steps:
            entry = by_id[step.id]
            if not entry["shown"]:
                entry["pending"] = 0
                continue
            self.waits(entry, sum(choice["pending"] for choice in entry["choices"]))
            if step.required_when is None:
                continue
            if values is None:
                values = self.values()
            if not values.value(step.required_when) > 0:
                entry["required"] = False
                entry["pending"] -= self.waiting.get(step.id, 0)

    def _finish_training(self, by_id: dict[str, Entry]) -> None:
        sheet = self.ruleset.sheet
        resolution = self.ruleset.resolution_rules
        order = tuple(t.id for t in getattr(resolution, "proficiency_tiers", ()) or ())
        if not order:
            return
        tiers = Tiers(
            order,
            tuple(sheet.skill_tiers) if sheet.skill_tiers else None,
            tuple(sheet.save_tiers) if sheet.save_tiers else None,
            self.builder.tier,
        )
        ids: dict[What, list[str]] = {
            "skills": [s.id for s in sheet.skills],
            "saves": [s.id for s in sheet.saves],
        }
        manual: dict[What, dict[str, str]] = {"skills": {}, "saves": {}}
        kinds: tuple[What, What] = ("skills", "saves")
        for what in kinds:
            for name in ids[what]:
                own = self.writer.own(f"{what}.{name}")
                tier = own.get("tier") if isinstance(own, dict) else own
                if isinstance(tier, str):
                    manual[what][name] = tier
        training = Training(tiers, ids, manual)
        for what, names, tier in self.trained_grants:
            training.grant(what, names, tier)
        grant_slots = [(s, slot) for s, slot in self.training_slots if not self._is_trained_step(s)]
        own_slots = [(s, slot) for s, slot in self.training_slots if self._is_trained_step(s)]
        taken: dict[str, set[str]] = {}
        for source, slot in grant_slots + own_slots:
            refs = slot.choice.exclude_choices or ()
            out = frozenset().union(*(taken.get(ref, set()) for ref in refs))
            count = None
            if slot.choice.count_from is not None:
                counted = self.values().value(slot.choice.count_from)
                whole = math.floor(counted) if math.isfinite(counted) else 0
                count = max(0, min(whole, slot.choice.max or 0))
            result = training.choose(
                Slot(slot.key, slot.choice, slot.tier, slot.answers, slot.replacements, count, out)
            )
            taken[slot.key] = set(result.active)
            if result.replacement is not None:
                taken[slot.key] |= set(result.replacement.active)
            shown = self.shown_at(TrainedStep, source, by_id)
            shown["choices"] += _choice_entries(result, slot.count or slot.choice.count or 0)
        for what in kinds:
            for name, tier in training.granted[what].items():
                if tiers.rank(tier) > tiers.rank(manual[what].get(name)):
                    own = self.writer.own(f"{what}.{name}")
                    value: Any = {**own, "tier": tier} if isinstance(own, dict) else tier
                    self.writer.write(f"{what}.{name}", value)

    def _is_trained_step(self, step_id: str) -> bool:
        return any(s.id == step_id and isinstance(s, TrainedStep) for s in self.builder.steps)

    def _finish_entries(self, by_id: dict[str, Entry]) -> None:
        """`grants.entries` (1.91): entries of another rows catalog, chosen in its `choices`
        step; their rows go to the sheet, their own grants do not apply."""
        chosen_anywhere: set[str] = set()
        values = self.values()
        for source, key, choice in self.entry_slots:
            catalog = self.catalogs.get(choice.catalog)
            step = next(
                (
                    s
                    for s in self.builder.steps
                    if isinstance(s, ChoicesStep) and s.catalog == choice.catalog
                ),
                None,
            )
            shown = by_id[step.id] if step is not None else by_id[source]
            entries = catalog.entries or [] if catalog is not None else []
            offered = [
                e
                for e in entries
                if e.rows
                and (choice.ids is None or e.id in choice.ids)
                and all(
                    _matches((e.filters or {}).get(k), v) for k, v in (choice.filters or {}).items()
                )
                and (e.offered_when is None or values.value(e.offered_when) > 0)
                and e.id not in chosen_anywhere
            ]
            by = {e.id: e for e in offered}
            count = profiles.slot_count(choice, values)
            valid: list[str] = []
            inactive: list[Entry] = []
            for answer in self.answers.choices.get(key, []):
                if answer not in by or answer in valid:
                    inactive.append({"answer": answer, "reason": "not offered by this choice"})
                else:
                    valid.append(answer)
            tally = quotas.count(choice, [by[a] for a in valid], count, "choice")
            inactive += tally.inactive
            active = tally.active
            shown["reasons"] += tally.reasons
            for answer in active:
                chosen_anywhere.add(answer)
                entry = by[answer]
                ref = f"{choice.catalog}/{entry.id}"
                self.writer.pick(ref)
                for row in entry.rows or ():
                    mark = {"_catalog": ref, "_pick": shown["id"]}
                    self.writer.picked_row(row.list, {**row.values, **mark})
            shown["choices"].append(
                {
                    "key": key,
                    "count": count,
                    "offered": list(by),
                    "active": active,
                    "inactive": inactive,
                    "pending": max(0, min(count, len(by)) - len(active), tally.short),
                }
            )


def _choices(walk: Walk, step: ChoicesStep) -> None:
    """A `choices` step shows the entry choices the picks grant (worked out in `finish`)."""
    walk.blank_entry(step.id, step.kind)


@dataclass(frozen=True)
class StepKind:
    """One step kind, whole: the model a ruleset's step of this `kind` is read by (its own
    shape rules in its `rules()`, its references to the sheet in its `check_refs`), what
    runs it at its turn in the walk, and, when it has one, the view a player uses it by
    (`gmtags.builder.controls`: the wizard and the page draw a kind with a view from it
    alone). Work that needs every step done first goes in `State.finishers`."""

    name: str
    model: type[StepBase]
    run: Callable[[Walk, Any], None]
    view: Callable[[Look, Any], Sequence[Control]] | None = None
    says_reasons: bool = False
    """Its view says the step's reasons in its own words (else they are listed above it)."""
    holds: Callable[[Look, Any], Mapping[str, str]] | None = None
    """What the character so far shows in place of a part of the sheet the step has not
    made yet (`{"scores": "Not chosen yet: …"}`)."""


KINDS: dict[str, StepKind] = {}
"""Every step kind, by its `kind` (`register`)."""


def register(kind: StepKind) -> None:
    """Make `kind` a step kind: the ruleset model reads it and the builder runs and shows it
    (one line per kind, below; a new kind is its own file and one such line)."""
    KINDS[kind.name] = kind
    STEPS[kind.name] = kind.model


def unregister(name: str) -> None:
    """Take back a kind `register` added (a test's own kind)."""
    KINDS.pop(name, None)
    STEPS.pop(name, None)


register(StepKind("catalog", CatalogStep, Walk._catalog, catalog.view))
register(StepKind("fields", FieldsStep, Walk._fields, fields.view))
register(
    StepKind(
        "abilities", AbilitiesStep, abilities.abilities_step, abilities.view, True, abilities.holds
    )
)
register(StepKind("trained", TrainedStep, Walk._trained, trained.view))
register(StepKind("startingGear", StartingGearStep, Walk._gear, gear.view))
register(StepKind("choices", ChoicesStep, _choices, choices.view))
register(StepKind("allocate", AllocateStep, allocate.run, allocate.view))
register(StepKind("spend", SpendStep, spend.run, spend.view))
register(StepKind("rows", RowsStep, rows.run, rows.view))
register(StepKind("roll", RollStep, roll.run, roll.view))
register(StepKind("initialize", InitializeStep, initialize.run, initialize.view))


def _choice_entries(result: SlotResult, count: int) -> list[Entry]:
    entries = [
        {
            "key": result.key,
            "count": count,
            "offered": list(result.offered),
            "active": list(result.active),
            "inactive": [{"answer": a, "reason": r} for a, r in result.inactive],
            "pending": result.pending,
        }
    ]
    if result.replacement is not None:
        spare = result.replacement
        entries += _choice_entries(spare, len(spare.active) + spare.pending)
    return entries


__all__ = [
    "KINDS",
    "MAX_PICKS",
    "AbilitiesStep",
    "CatalogStep",
    "ChoicesStep",
    "FieldsStep",
    "StartingGearStep",
    "StepKind",
    "TrainedStep",
    "Walk",
    "register",
    "unregister",
]
