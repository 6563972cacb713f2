"""The `allocate` step kind (004, "Asignación de valores por etapas", 1.152; BUILDER C1–C14).

An allocate step buys one dot per point, group by group, each group with its own
budget and creation caps: `priorities` (004: "una asignación entera no negativa
por grupo"; the answers give each group a position, and the budget is the
allotment at that position) or every group's `budget: Ref`. Dots are answered
per target (`dots: {"ability/strength": 2}`), so they stay attached to their
targets when the priorities change (C11: "Reasignar una prioridad conserva los
incrementos guardados del grupo").

Each target of a stage goes, in order (BUILDER §2.2):
1. its start: the value so far (method scores, grants, training, `sets`, the
   stages before), except that the first `base` naming a blank target replaces
   its default, keeping the method scores and grants (an ability's `add`s stay
   on top), and a later `base` is a floor over the stages before (C4);
2. at its first stage only, the free dots of `grants.ratings` of the active
   picks: the highest `set` as a minimum, then every `add`, stopping at the
   target's storage limit, never charged (C8);
3. the paid dots of the stage, one point each (C1).
A skill or save target's number is the index in its `builder.ratingTiers` map;
the tier id at that index is written to the card (C7).

Nothing blocks (SPEC §10): dots that cannot count are kept in the answers,
inactive with a reason, and counted in the step's badge. A purchase that takes
its target above the group's `max` is inactive for that target; a group whose
dots (with its `rows` dots, C14) exceed its budget is inactive as a whole
(C11); minimums never buy dots (C5: a target left below `min` is a badge).
`res.pools["<step>/<group>"]` is `{budget, spent, credit: 0, remaining}`, where
`spent` is the active dots and the row dots, and `remaining` is budget − spent.

Ownership (SPEC §10, BUILDER §3.7, C13): every write goes through
`state.writer`, so deselection takes it back and the player's value underneath
returns. A numeric target (ability, field, bonus) keeps the player's hand-made
difference (card − builder) on top of the recomputed value; the builder record
keeps the values the stages gave (`allocated`, by path) to measure it against
and the differences kept (`differences`, so one clamped at a storage limit is
not lost), and while an edit stands the record's write of that path stays the
one the edit was made on, so the edit is never listed in `res.dropped` (the
card values are a function of the answers and the player's differences; that
write, like any override's, remembers where the edit was made). A skill or
save tier edited by hand is an override like any other tier (kept until the
builder's value for it changes). `builder.allocations[stepId]` keeps the
positions given, the `bought` increments that count, and `notes` (C12).

Decisions where the seed is silent:
- Every allocate step of a build is worked out in one pass, once every step has
  run (after the scores and the training it builds on), in the builder's step
  order, each stage reading the card as the stages before it left it. Like the
  scores, the stages' values are not yet on the card a later step's `when`
  reads during the walk; reads of the finished card (a catalog's `upTo`, an
  entry's `offeredWhen`, finishers of later steps) see them.
- A priority position given to two groups counts for neither: each is listed
  in `res.problems` and its dots are inactive until the positions are distinct
  (the answers do not say which of the two was meant). A group without a
  position (or with one past the step's allotments) has no budget yet: its
  dots are inactive and the badge asks for it. Positions are never defaulted
  (004: "Las posiciones de prioridad se asignan de forma explícita").
- A `budget`, `base`, `min` or `max` read from the sheet must resolve to a whole
  number (budgets 0–1,200,000; limits 0–10,000 and within every target's
  storage limits, `min` ≤ `max`); otherwise the group is "not configured": it
  changes nothing, its dots are inactive, and the badge counts it (C6).
- Negative dots are inactive (a stage buys dots, it never sells them); dots
  naming a target the step does not have are inactive and a problem.
- The first base applies to a target blank before the allocate stages: no
  method score and no value of the player's for an ability (its grants' raise
  is kept on top), nothing on the card for a field, bonus, skill or save (a
  `sets` grant or a training grant is an existing value the base keeps).
- A card tier missing from the target's map reads as the highest map tier at or
  below it in `proficiencyTiers` order.
- `grants.ratings` are applied to the targets the shown allocate steps name;
  a `set` above the storage limit stops at it.
- The badge counts: each inactive answer, each group without a budget or not
  configured, each group with points left (underspent), each group whose row
  dots alone pass its budget, each target left below its `min`, and each
  target the player edited by hand (004: "Gastar de menos, los mínimos
  imposibles y las sustituciones reciben insignias").
- A target a shown spend step buys after the last allocate stage naming it is
  the spend step's to write last: the stages leave it at their value, and the
  spend step keeps the player's difference (`gmtags.builder.kinds.spend`).
- A value with a kept difference is clamped to the target's storage limits (004:
  "dentro de los límites del esquema"); the difference itself is kept whole.
- `notes` (`annotations: true`, 004: up to 1,000 characters per target, never
  judged) are written by the editor into the card's builder record; they are
  carried to the next record for the step's targets, cut at 1,000 characters.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gmtags.builder import targets
from gmtags.builder.controls import Control, Count, Group, Look, Pick
from gmtags.builder.result import Inactive
from gmtags.builder.targets import Spot
from gmtags.ruleset.builder.priced import SpendStep
from gmtags.ruleset.builder.steps import AllocateGroup, AllocateStep, target_key
from gmtags.ruleset.catalogs import RatingTarget
from gmtags.ruleset.refs import RulesetValueRef
from gmtags.sheet.values import SheetValues

if TYPE_CHECKING:
    from gmtags.builder.state import Entry, State

MAX_BUDGET = 1_200_000
"""004: "Los presupuestos son como máximo de 1.200.000 puntos"."""
MAX_LIMIT = 10_000
"""004: base, min and max "deben resolverse en números enteros de 0 a 10.000"."""
MAX_NOTE = 1_000
"""004: "annotations: true ofrece hasta 1.000 caracteres por objetivo"."""


def run(state: State, step: AllocateStep) -> None:
    """The step's place in the walk; its stages are worked out once every step has run."""
    state.blank_entry(step.id, step.kind)
    state.later("(allocate)", finish)


def finish(state: State, by_id: dict[str, Entry]) -> None:
    """Every shown allocate step, in step order (module doc), then the kept differences."""
    stages = _Stages(state)
    for step in state.builder.steps:
        if isinstance(step, AllocateStep) and by_id[step.id]["shown"]:
            stages.stage(step, by_id[step.id])
    stages.keep_differences(bought_later(state, by_id))


def bought_later(state: State, by_id: dict[str, Entry]) -> frozenset[str]:
    """The keys of targets a shown spend step after the last shown allocate step naming
    them buys: that spend step is the last to write them, and keeps their difference."""
    last: dict[str, int] = {}
    later: set[str] = set()
    for place, step in enumerate(state.builder.steps):
        if step.id not in by_id or not by_id[step.id]["shown"]:
            continue
        if isinstance(step, AllocateStep):
            for group in step.groups:
                last.update({target_key(t): place for t in group.targets})
        elif isinstance(step, SpendStep):
            later.update(target_key(o.target) for o in step.offers if target_key(o.target) in last)
    return frozenset(later)


# ---------------------------------------------------------------------------
# targets


def spot(state: State, target: RatingTarget) -> Spot | None:
    """Where `target` lives on the card, counted in dots (`targets.Spot.whole`)."""
    found = targets.spot(state, target)
    return None if found is None else found.whole()


def _tier_of(value: Any) -> str | None:
    found = value.get("tier") if isinstance(value, dict) else value
    return found if isinstance(found, str) else None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value if math.isfinite(value) else None


def _numbers(saved: Any) -> dict[str, int]:
    """A record's `{path: whole number}` map, read leniently (the card is the player's)."""
    if not isinstance(saved, dict):
        return {}
    return {k: int(v) for k, v in saved.items() if _number(v) is not None and v == int(v)}


def _clamp(target: Spot, value: int) -> int:
    """`value` within the target's limits (whole: `spot` rounds them inward)."""
    return int(max(target.low, min(target.high, value)))


# ---------------------------------------------------------------------------
# reading limits and budgets


def whole(values: SheetValues, given: int | RulesetValueRef | None, high: int) -> int | None:
    """A written number, or a reference read on the sheet as it is, when it resolves to a
    whole number from 0 to `high` (004: "Una fuente sin resolver o no válida se muestra
    como not configured"); None otherwise."""
    if given is None:
        return None
    number = given if isinstance(given, int) else values.value(given)
    if not math.isfinite(number) or number != math.floor(number) or not 0 <= number <= high:
        return None
    return int(number)


@dataclass
class Limits:
    """A group's resolved `base`, `min`, `max` (None: why it is not configured)."""

    base: int | None
    low: int
    high: int


def limits(values: SheetValues, group: AllocateGroup, targets: list[Spot]) -> Limits | str:
    """The group's limits, or the reason it is not configured (module doc)."""
    found: dict[str, int | None] = {}
    for name in ("base", "min", "max"):
        given = getattr(group, name)
        number = whole(values, given, MAX_LIMIT)
        if given is not None and number is None:
            return f"{name} does not resolve to a whole number from 0 to 10,000"
        for target in targets:
            if number is not None and not target.low <= number <= target.high:
                return f"{name} {number} does not fit {target.key} ({target.low}–{target.high})"
        found[name] = number
    low, high = found["min"], found["max"]
    assert low is not None and high is not None  # min and max are required
    if low > high:
        return f"min {low} is above max {high}"
    return Limits(found["base"], low, high)


def row_dots(state: State, group: AllocateGroup) -> int:
    """C14 (1.216): the dots in the group's `{list, column}` pairs of the card's rows."""
    total = 0
    lists = state.writer.base.get("lists") or {}
    for pair in group.rows or ():
        for row in lists.get(pair.list) or ():
            number = _number(row.get(pair.column)) if isinstance(row, dict) else None
            total += int(number) if number is not None else 0
    return total


def budgets(state: State, step: AllocateStep, values: SheetValues) -> dict[str, int | str]:
    """Each group's budget, or the reason it has none: its priority position's allotment
    (distinct positions, module doc), else its own `budget`."""
    at = f"steps.{step.id}.priorities"
    groups = [g.id for g in step.groups]
    if step.priorities is None:
        if state.answers.step(step.id).priorities:
            state.problem(at, f"the groups of step '{step.id}' have budgets, not priorities")
        found: dict[str, int | str] = {}
        for group in step.groups:
            number = whole(values, group.budget, MAX_BUDGET)
            found[group.id] = (
                number
                if number is not None
                else "budget does not resolve to a whole number from 0 to 1,200,000"
            )
        return found
    allotments = step.priorities
    given = state.answers.step(step.id).priorities or {}
    for name in given:
        if name not in groups:
            state.problem(f"{at}.{name}", f"names no group of step '{step.id}'")
    positions = {g: given[g] for g in groups if g in given}
    found = {}
    for name in groups:
        position = positions.get(name)
        if position is None:
            found[name] = "needs a priority"
        elif position >= len(allotments):
            state.problem(f"{at}.{name}", f"position {position} is not one of {len(allotments)}")
            found[name] = "needs a priority"
        elif list(positions.values()).count(position) > 1:
            others = [g for g, p in positions.items() if p == position and g != name]
            state.problem(f"{at}.{name}", f"position {position} is also given to {others[0]}")
            found[name] = f"shares priority position {position}"
        else:
            found[name] = allotments[position]
    return found


# ---------------------------------------------------------------------------
# the stages


@dataclass
class _Group:
    """What one group of one stage decided."""

    active: list[tuple[str, int]] = field(default_factory=list)
    inactive: list[Inactive] = field(default_factory=list)
    pending: int = 0
    waiting: int = 0
    """Of `pending`, the dots still to place (`State.waits`)."""
    reasons: list[str] = field(default_factory=list)
    pool: dict[str, int] = field(default_factory=dict)


class _Stages:
    """The allocate stages of one build: the value each target has reached so far."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.values: dict[str, int] = {}
        """The value each target has reached so far, by path."""
        self.blank: dict[str, bool] = {}
        self.raised: dict[str, int] = {}
        """An ability's grant raise over its default (kept under a first base)."""
        self.based: set[str] = set()
        """Targets a stage's base has reached (a later base is a floor)."""
        self.granted: set[str] = set()
        """Targets whose free rating dots are given (at their first stage, once)."""
        self.numeric: dict[str, Spot] = {}
        """Numeric targets the stages wrote, which keep the player's difference."""
        self.record: dict[str, Any] = {}
        """`builder.allocations`, by step."""

    # -- a target's value ----------------------------------------------------

    def current(self, target: Spot) -> int:
        """The target's value so far (before the first stage: what the card holds)."""
        if target.path in self.values:
            return self.values[target.path]
        writer = self.state.writer
        written = target.path in writer.writes
        value = writer.writes[target.path] if written else writer.own(target.path)
        self.blank[target.path] = not written and value in (None, "")
        if target.key.startswith("ability/"):
            method = (self.state.base_scores or {}).get(target.key.partition("/")[2])
            own_value = writer.own(target.path)
            self.blank[target.path] = method is None and _number(own_value) is None
            number = _number(value)
            if self.blank[target.path] and number is not None:
                self.raised[target.path] = int(number) - _clamp(target, int(target.default))
        number = self._as_number(target, value)
        self.values[target.path] = number
        return number

    def _as_number(self, target: Spot, value: Any) -> int:
        if target.tiers is None:
            number = _number(value)
            return int(number) if number is not None else int(target.default)
        tier = _tier_of(value)
        if tier is None:
            return 0
        if tier in target.tiers:
            return target.tiers.index(tier)
        order = [t.id for t in self.state.ruleset.resolution_common.proficiency_tiers]
        rank = order.index(tier) if tier in order else 0
        below = [i for i, t in enumerate(target.tiers) if t in order and order.index(t) <= rank]
        return below[-1] if below else 0

    def start(self, target: Spot, base: int | None) -> int:
        """C4: the first base replaces a blank target's default; a later one is a floor."""
        value = self.current(target)
        if base is None:
            return value
        if target.path in self.based:
            return max(value, base)
        self.based.add(target.path)
        if self.blank[target.path]:
            return _clamp(target, base + self.raised.get(target.path, 0))
        return value

    def free(self, target: Spot, value: int) -> int:
        """C8: at the target's first stage, the picks' `grants.ratings`: the highest `set`,
        then every `add`, stopping at the storage limit."""
        if target.path in self.granted:
            return value
        self.granted.add(target.path)
        sets: list[int] = []
        adds = 0
        for _, grants in self.state.rating_grants:
            for grant in grants:
                if target_key(grant.target) != target.key:
                    continue
                if grant.set is not None:
                    sets.append(grant.set)
                if grant.add is not None:
                    adds += grant.add
        high = int(target.high)
        if sets:
            value = max(value, min(high, max(sets)))
        return min(high, value + adds) if adds else value

    def write(self, target: Spot, value: int) -> None:
        """The stage's value on the card, through the writer (module doc)."""
        self.values[target.path] = value
        writer = self.state.writer
        if target.tiers is None:
            self.numeric[target.path] = target
            writer.write(target.path, value)
            return
        tier = target.tiers[value]
        now = (
            writer.writes[target.path] if target.path in writer.writes else writer.own(target.path)
        )
        writer.write(target.path, {**now, "tier": tier} if isinstance(now, dict) else tier)

    # -- a stage ---------------------------------------------------------------

    def stage(self, step: AllocateStep, entry: Entry) -> None:
        state = self.state
        values = state.values()
        budget = budgets(state, step, values)
        dots = dict(state.answers.step(step.id).dots or {})
        keys = {target_key(t) for group in step.groups for t in group.targets}
        for key in dots:
            if key not in keys:
                state.problem(f"steps.{step.id}.dots.{key}", f"not a target of step '{step.id}'")
                entry["inactive"].append({"answer": key, "reason": "not a target of this step"})
        entry["offered"] = [target_key(t) for group in step.groups for t in group.targets]
        bought: dict[str, int] = {}
        for group in step.groups:
            done = self.group(step, group, budget[group.id], dots, values)
            state.pools[f"{step.id}/{group.id}"] = done.pool
            bought.update(done.active)
            entry["inactive"] += done.inactive
            entry["reasons"] += [f"{group.label}: {reason}" for reason in done.reasons]
            entry["pending"] += done.pending
            state.waits(entry, done.waiting)
        entry["active"] = [key for key in entry["offered"] if key in bought]
        entry["pending"] += len(entry["inactive"])
        self.record[step.id] = self._saved(step, budget, bought)

    def group(
        self,
        step: AllocateStep,
        group: AllocateGroup,
        budget: int | str,
        dots: dict[str, int],
        values: SheetValues,
    ) -> _Group:
        """One group of a stage (module doc): its limits, budget, dots and writes."""
        done = _Group(pool={"budget": 0, "spent": 0, "credit": 0, "remaining": 0})
        targets = [spot(self.state, t) for t in group.targets]
        asked = {target_key(t): dots[target_key(t)] for t in group.targets if target_key(t) in dots}
        known = [t for t in targets if t is not None]
        found = limits(values, group, known) if len(known) == len(targets) else None
        if not isinstance(found, Limits):
            why = found if isinstance(found, str) else "a target the sheet does not have"
            reason = f"not configured ({why})"
            done.reasons.append(reason)
            done.pending += 1
            done.inactive += [{"answer": k, "reason": reason} for k, n in asked.items() if n]
            return done
        origins = {target.key: self.current(target) for target in known}
        starts = {target.key: self.free(target, self.start(target, found.base)) for target in known}
        counted: dict[str, int] = {}
        for key, count in asked.items():
            if count < 0:
                done.inactive.append({"answer": key, "reason": "a stage buys dots, never sells"})
            elif count and starts[key] + count > found.high:
                reason = f"above the cap ({starts[key]} + {count} > {found.high})"
                done.inactive.append({"answer": key, "reason": reason})
            elif count:
                counted[key] = count
        rows = row_dots(self.state, group)
        if isinstance(budget, str):
            done.reasons.append(budget)
            done.pending += 1
            done.inactive += [{"answer": key, "reason": budget} for key in counted]
            counted = {}
            done.pool = {"budget": 0, "spent": rows, "credit": 0, "remaining": -rows}
        else:
            counted = self._spend(done, budget, counted, rows)
        writes = self.state.writer.writes
        for target in known:
            value = starts[target.key] + counted.get(target.key, 0)
            based = found.base is not None and self.blank[target.path]
            if value != origins[target.key] or target.path in writes or based:
                self.write(target, value)
            else:
                self.values[target.path] = value
            if value < found.low:
                done.pending += 1
                done.reasons.append(f"{target.key} is below its minimum {found.low}")
        done.active = list(counted.items())
        return done

    @staticmethod
    def _spend(done: _Group, budget: int, counted: dict[str, int], rows: int) -> dict[str, int]:
        """C11, C14: the group's dots within its budget, or none when it is overspent."""
        wanted = sum(counted.values()) + rows
        overspent = wanted > budget
        if overspent:
            reason = f"overspent ({wanted} dots for {budget})"
            done.inactive += [{"answer": key, "reason": reason} for key in counted]
            counted = {}
        if rows > budget:
            done.reasons.append(f"{rows} row dots for a budget of {budget}")
            done.pending += 1
        spent = sum(counted.values()) + rows
        done.pool = {"budget": budget, "spent": spent, "credit": 0, "remaining": budget - spent}
        if not overspent and spent < budget:
            done.waiting += 1
            done.reasons.append(f"{budget - spent} of {budget} dots left")
        return counted

    def _saved(
        self, step: AllocateStep, budget: dict[str, int | str], bought: dict[str, int]
    ) -> dict[str, Any]:
        """C12: `builder.allocations[stepId]`: positions, bought increments, notes."""
        saved: dict[str, Any] = {}
        if step.priorities is not None:
            given = self.state.answers.step(step.id).priorities or {}
            positions = {g.id: given[g.id] for g in step.groups if isinstance(budget[g.id], int)}
            saved["priorities"] = positions
        if bought:
            saved["bought"] = bought
        allocations = self.state.previous.get("allocations")
        previous = allocations.get(step.id) if isinstance(allocations, dict) else None
        notes = previous.get("notes") if isinstance(previous, dict) else None
        keys = [target_key(t) for group in step.groups for t in group.targets]
        if isinstance(notes, dict):
            kept = {k: n[:MAX_NOTE] for k, n in notes.items() if k in keys and isinstance(n, str)}
            if kept:
                saved["notes"] = kept
        return saved

    # -- the player's differences ----------------------------------------------

    def keep_differences(self, bought_later: frozenset[str] = frozenset()) -> None:
        """SPEC §10, BUILDER §3.7: a numeric target keeps the player's difference (module
        doc); the record keeps the stages' values and the positions and purchases. A target
        a later spend step buys keeps the stages' value for it to build on."""
        state = self.state
        writer = state.writer
        layer = writer.layer
        before = _numbers(state.previous.get("allocated"))
        kept_before = _numbers(state.previous.get("differences"))
        allocated: dict[str, int] = {}
        differences: dict[str, int] = {}
        for path, target in self.numeric.items():
            if target.key in bought_later:
                continue
            value = self.values[path]
            allocated[path] = value
            if layer is None or path not in layer.writes:
                continue
            on_card = _number(layer.overrides.get(path, layer.writes[path]))
            written = _number(layer.writes[path])
            was = before.get(path, int(written) if written is not None else None)
            kept = kept_before.get(path, 0)
            difference = kept
            if was is not None and on_card is not None and on_card != _clamp(target, was + kept):
                difference = int(on_card) - was  # edited again since the last build
            final = _clamp(target, value + difference)
            if path in layer.overrides:
                writer.write(path, layer.writes[path], shown=final)
            else:
                writer.write(path, final)
            if difference:
                differences[path] = difference
                self._badge(target, difference)
        if allocated:
            state.saved["allocated"] = allocated
        if differences:
            state.saved["differences"] = differences
        if self.record:
            state.saved["allocations"] = self.record

    def _badge(self, target: Spot, difference: int) -> None:
        """004: "las sustituciones reciben insignias": the last shown step naming it."""
        entries = {entry["id"]: entry for entry in self.state.steps}

        def names(step: AllocateStep) -> bool:
            return any(target_key(t) == target.key for g in step.groups for t in g.targets)

        steps = self.state.builder.steps
        shown = [s for s in steps if isinstance(s, AllocateStep) and s.id in self.record]
        naming = [s for s in shown if names(s)]
        if naming:
            entry = entries[naming[-1].id]
            entry["pending"] += 1
            entry["reasons"].append(f"{target.key} edited by hand ({difference:+d})")


__all__ = ["Limits", "Spot", "budgets", "finish", "limits", "row_dots", "run", "spot", "whole"]


def view(look: Look, step: AllocateStep) -> list[Control]:
    """Each group: its priority (with priorities), its pool, and a count of dots for each
    target beside what the target holds (pips while the group's max is a number)."""
    answer = look.answer(step.id)
    dots = answer.get("dots") or {}
    positions = answer.get("priorities") or {}
    controls: list[Control] = []
    for group in step.groups:
        inside: list[Control] = []
        if step.priorities is not None:
            choices = tuple(
                (n, f"Priority {n + 1} ({points} points)")
                for n, points in enumerate(step.priorities)
            )
            path = ("steps", step.id, "priorities", group.id)
            name = f"priority-{step.id}-{group.id}"
            inside.append(Pick("Priority", path, choices, positions.get(group.id), name))
        inside += look.pool_line(f"{step.id}/{group.id}")
        most = group.max if isinstance(group.max, int) else None
        for target in group.targets:
            key = target_key(target)
            count = dots.get(key, 0)
            value = look.target_value(key)
            number = float(value) if _is_number(value) else None
            pips = ""
            if most is not None and number is not None:
                filled = max(0, min(most, int(number)))
                pips = "●" * filled + "○" * max(0, most - filled) + " "
            higher = most is None or number is None or number < most
            label = look.label(key.partition("/")[2])
            path = ("steps", step.id, "dots", key)
            inside.append(Count(label, path, count, count > 0, higher, pips + value, f"dots-{key}"))
        controls.append(Group(group.label, tuple(inside)))
    return controls


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
