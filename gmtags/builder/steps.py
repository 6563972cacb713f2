"""The steps of one build (BUILDER chunk B), walked in order by `gmtags.builder.build`.

`Walk` runs each step on the build's `State` (`gmtags.builder.state`) by its kind's `run`
(`KINDS`, one `register` line per kind at the end; each kind's run and view in its own
module of `gmtags.builder.kinds`): what the build has written so far (`Writer`) and what
the picks gave that is worked out once every step has run: the abilities' base scores,
their `add`s and choices, the training grants and choices, and the entry
choices of `choices` steps. Each step leaves a result entry of SPEC §10's
`res.steps` shape. The abilities step and the scores are `gmtags.builder.kinds.abilities`.

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

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gmtags.builder import constraints, profiles, quotas, ratings
from gmtags.builder.controls import Control, Look
from gmtags.builder.kinds import (
    abilities,
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
from gmtags.builder.kinds.catalog import MAX_PICKS, matches
from gmtags.builder.result import ChoiceEntry, Inactive
from gmtags.builder.state import Entry, Finished, State, read_count
from gmtags.builder.training import Slot, SlotResult, Tiers, Training, What
from gmtags.ruleset.builder.priced import InitializeStep, RollStep, RowsStep, SpendStep
from gmtags.ruleset.builder.steps import (
    STEPS,
    AbilitiesStep,
    AllocateStep,
    CatalogStep,
    ChoicesStep,
    FieldsStep,
    StartingGearStep,
    StepBase,
    TrainedStep,
)
from gmtags.sheet.values import SheetValues


class Walk(State):
    """One build walking its steps in order (module doc): `State` and what each step does."""

    # -- the walk -------------------------------------------------------------

    def run_step(self, step: Any) -> None:
        """One step, in the order the builder declares them."""
        profiles.decide(self, step)
        self.writer.by = step.id
        hidden = profiles.hidden(self, step)
        if hidden or (step.when is not None and not self.values().value(step.when) > 0):
            self.blank_entry(step.id, step.kind, shown=False)
            return
        KINDS[step.kind].run(self, step)

    # -- after every step -------------------------------------------------------

    def finish(self) -> None:
        """What the picks gave once every step has run: scores, training, entry choices."""
        by_id = {entry["id"]: entry for entry in self.steps}
        self.writer.by = "(scores)"
        abilities.finish_scores(self, by_id)
        self.writer.by = "(training)"
        self._finish_training(by_id)
        self.writer.by = "(choices)"
        self._finish_entries(by_id)
        self.writer.by = "(ratings)"
        ratings.free_ratings(self, by_id)
        done = 0
        while done < len(self.finishers):  # a finisher may ask for more work after the others
            self.writer.by, work = self.finishers[done]
            work(self, by_id)
            done += 1
        self.writer.by = "(finish)"
        profiles.decide_late(self)  # a budgets-only profile no pool has read yet
        for step in self.builder.steps:
            if isinstance(step, FieldsStep) and by_id[step.id]["shown"]:
                fields.pending(self, step, by_id[step.id])
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
                count = read_count(self.values(), slot.choice.count_from, slot.choice.max or 0)
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
                    matches((e.filters or {}).get(k), v) for k, v in (choice.filters or {}).items()
                )
                and (e.offered_when is None or values.value(e.offered_when) > 0)
                and e.id not in chosen_anywhere
            ]
            by = {e.id: e for e in offered}
            count = profiles.slot_count(choice, values)
            valid: list[str] = []
            inactive: list[Inactive] = []
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


@dataclass(frozen=True)
class StepKind:
    """One step kind, whole: the model a ruleset's step of this `kind` is read by (its own
    shape rules in its `rules()`, its references to the sheet in its `check_refs`), what
    runs it at its turn in the walk, and, when it has one, the view a player uses it by
    (`gmtags.builder.controls`: the wizard and the page draw a kind with a view from it
    alone). Work that needs every step done first is asked for with `State.later`."""

    name: str
    model: type[StepBase]
    run: Callable[[Walk, Any], None]
    view: Callable[[Look, Any], Sequence[Control]] | None = None
    says_reasons: bool = False
    """Its view says the step's reasons in its own words (else they are listed above it)."""
    holds: Callable[[Look, Any], Mapping[str, str]] | None = None
    """What the character so far shows in place of a part of the sheet the step has not
    made yet (`{"scores": "Not chosen yet: …"}`)."""
    gate: Callable[[Finished, Any], object | None] | None = None
    """What the step reads on the finished sheet (`Finished`), for the build made again
    with it (`State.gates`; `gmtags.builder.build`, BUILDER §3.11); None when it reads
    nothing there now. The step's run reads it back with `state.gates.of`."""


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


register(StepKind("catalog", CatalogStep, catalog.run, catalog.view, gate=catalog.gate))
register(StepKind("fields", FieldsStep, fields.run, fields.view, gate=fields.gate))
register(StepKind("abilities", AbilitiesStep, abilities.run, abilities.view, True, abilities.holds))
register(StepKind("trained", TrainedStep, trained.run, trained.view))
register(StepKind("startingGear", StartingGearStep, gear.run, gear.view, gate=gear.gate))
register(StepKind("choices", ChoicesStep, choices.run, choices.view))
register(StepKind("allocate", AllocateStep, allocate.run, allocate.view))
register(StepKind("spend", SpendStep, spend.run, spend.view))
register(StepKind("rows", RowsStep, rows.run, rows.view, gate=rows.gate))
register(StepKind("roll", RollStep, roll.run, roll.view))
register(StepKind("initialize", InitializeStep, initialize.run, initialize.view))


def _choice_entries(result: SlotResult, count: int) -> list[ChoiceEntry]:
    entries: list[ChoiceEntry] = [
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
