"""The abilities step and the scores of a build (004, "abilities"; BUILDER B11–B22).

An abilities step sets the base scores by its method: `pointBuy` (every score
from the table's lowest, priced cumulatively, a hand-written score starting at
the nearest table score), `standardArray` and `roll` (a set of values the
player hands out, each once: 004 "repartidos después como un conjunto"),
`rolls` (each score its group's dice) and `manual` (the answers, within
`manual{min, max}` and the ability limits). Creation rolls are the ones in the
answers, else new ones from the seed, one stream per roll (SPEC §10), kept
with their faces. Once every step has run, `finish_scores` puts the picks'
`add`s and choices on top (`gmtags.builder.scores`) and writes the scores.
A described character (`gmtags.builder.described`) takes no default method and
is never rolled for (BUILDER H2). Functions over the build's `State` (`gmtags.builder.steps`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from gmtags.builder import dice as rolls
from gmtags.builder.controls import Control, Fact, Look, Note, Number, Pick, Table
from gmtags.builder.result import Inactive
from gmtags.builder.scores import (
    Chosen,
    PointBuy,
    grant_scores,
    nearest_table_score,
    offered_scores,
    point_buy,
)
from gmtags.ruleset.builder.steps import AbilitiesStep, ManualLimits
from gmtags.ruleset.model import Ruleset

if TYPE_CHECKING:
    from gmtags.builder.state import Entry, State


def step_abilities(ruleset: Ruleset, step: AbilitiesStep) -> list[str]:
    """The scores the step sets: those it lists, else every ability of the sheet, less the
    computed ones."""
    computed = {a.id for a in ruleset.sheet.abilities if a.value is not None}
    names = step.abilities or [a.id for a in ruleset.sheet.abilities]
    return [a for a in names if a not in computed]


def run(state: State, step: AbilitiesStep) -> None:
    entry = state.blank_entry(step.id, step.kind)
    answer = state.answers.step(step.id)
    methods = step.methods
    names = step_abilities(state.ruleset, step)
    own = {a: state.writer.own(f"abilities.{a}") for a in names}
    method = answer.method
    own_scores = any(v is not None for v in own.values())
    if method is None and not own_scores and state.answers.described is not True:
        method = step.default or methods.default
    entry["offered"] = methods.declared
    if method is None:
        state.waits(entry, 1)
        entry["reasons"].append("choose a method")
        return
    entry["active"] = [method]
    if method not in methods.declared:
        entry["inactive"].append({"answer": method, "reason": "not a method of this step"})
        entry["pending"] = 1
        return
    if method in ("roll", "rolls") and state.answers.described is True:
        entry["reasons"].append("a described character is not rolled for")  # H2
        return
    scores = dict(answer.scores or {})
    base = _method_scores(state, step, method, names, scores, own, entry)
    state.base_scores = {**(state.base_scores or {}), **base}


def _method_scores(
    state: State,
    step: AbilitiesStep,
    method: str,
    names: list[str],
    scores: dict[str, int],
    own: dict[str, Any],
    entry: Entry,
) -> dict[str, int]:
    """The base scores a method gives; what is left to do with them goes in the badge."""
    methods = step.methods
    if method == "pointBuy" and methods.point_buy is not None:
        table = [(int(s), int(c)) for s, c in methods.point_buy.costs]
        start: dict[str, int] = {}
        for a in names:
            if a in scores:
                start[a] = scores[a]
            elif isinstance(own[a], int | float):
                start[a] = nearest_table_score(table, int(own[a]))
            else:
                start[a] = table[0][0]
        bought = point_buy(table, methods.point_buy.budget, start, names)
        state.pools[step.id] = {
            "budget": bought.budget,
            "spent": bought.spent,
            "credit": 0,
            "remaining": bought.remaining,
        }
        entry["pending"] += bought.pending
        entry["reasons"] += point_buy_reasons(bought, table, start)
        return start
    if method == "standardArray" and methods.standard_array is not None:
        return _assigned(state, step.id, list(methods.standard_array), names, scores, entry)
    if method == "roll" and methods.roll is not None:
        thrown = [
            state.creation_roll(step.id, str(n), rolls.Dice.of(methods.roll))
            for n in range(len(names))
        ]
        made = [t for t in thrown if t is not None]
        return _assigned(state, step.id, made, names, scores, entry)
    if method == "rolls" and methods.rolls is not None:
        base: dict[str, int] = {}
        for group in methods.rolls:
            for name in group.abilities:
                total = state.creation_roll(step.id, name, rolls.Dice.of(group.dice))
                if total is not None:
                    base[name] = total
        entry["pending"] += len([n for n in names if n not in base])  # faces refused
        return base
    if method == "manual":
        limits = methods.manual
        low = getattr(limits, "min", None)
        high = getattr(limits, "max", None)
        base = {}
        for name, value in scores.items():
            if name in names:
                value = value if low is None else max(low, value)
                base[name] = value if high is None else min(high, value)
        return base
    entry["pending"] += 1
    return {}


def point_buy_reasons(
    bought: PointBuy, table: list[tuple[int, int]], scores: dict[str, int]
) -> list[str]:
    """Why a point buy counts in the badge, as the player reads it: the points spent past
    the budget (004: a pool "muestra ... puntos restantes negativos cuando se ha gastado de
    más"), and each score the table does not price (BUILDER §3.12)."""
    reasons = []
    if bought.remaining < 0:
        over = -bought.remaining
        points = "point" if over == 1 else "points"
        reasons.append(f"{over} {points} over budget ({bought.spent} spent of {bought.budget})")
    low, high = table[0][0], table[-1][0]
    reasons += [
        f"{name} {scores[name]} is not on the point-buy table ({low}-{high})"
        for name in bought.off_table
    ]
    return reasons


def _assigned(
    state: State,
    step_id: str,
    values: list[int],
    names: list[str],
    scores: dict[str, int],
    entry: Entry,
) -> dict[str, int]:
    """A set of values the player hands out (standard array, rolled set: 004 "repartidos
    después como un conjunto"): each used once; what is left is still to do (the badge)."""
    left = list(values)
    base: dict[str, int] = {}
    for name in names:
        if name in scores and scores[name] in left:
            left.remove(scores[name])
            base[name] = scores[name]
        elif name in scores:
            state.problem(f"steps.scores.scores.{name}", f"{scores[name]} is not left to assign")
    state.waits(entry, len(left))
    return base


def finish_scores(state: State, by_id: dict[str, Entry]) -> None:
    sheet = state.ruleset.sheet
    computed = frozenset(a.id for a in sheet.abilities if a.value is not None)
    highs = {a.id: a.max for a in sheet.abilities}
    lows = {a.id: a.min for a in sheet.abilities}
    own = {a.id: state.writer.own(f"abilities.{a.id}") for a in sheet.abilities}
    base = {
        a.id: int(own[a.id]) if isinstance(own[a.id], int | float) else a.default
        for a in sheet.abilities
    }
    base.update(state.base_scores or {})
    base = {a: max(lows[a], min(highs[a], v)) for a, v in base.items()}
    chosen = _excluding([slot for _, slot in state.ability_slots])
    granted = grant_scores(base, highs, state.adds, chosen, computed)
    for ability in sheet.abilities:
        name = ability.id
        if name in computed:
            continue
        if (state.base_scores and name in state.base_scores) or granted.added(name):
            state.writer.write(f"abilities.{name}", granted.scores[name])
    for source, slot in state.ability_slots:
        shown = state.shown_at(AbilitiesStep, source, by_id)
        active = [r.ability for r in granted.raises if r.source == slot.key]
        inactive: list[Inactive] = [
            {"answer": i.answer, "reason": i.reason}
            for i in granted.inactive
            if i.source == slot.key
        ]
        count = slot.count if slot.count is not None else slot.choice.count or 0
        shown["choices"].append(
            {
                "key": slot.key,
                "count": count,
                "offered": offered_scores(slot.choice, highs, computed),
                "active": active,
                "inactive": inactive,
                "pending": max(0, count - len(active)),
            }
        )


def _excluding(slots: list[Chosen]) -> list[Chosen]:
    """Each slot with the answers of the slots its `excludeChoices` names kept out."""
    answers = {slot.key: set(slot.answers) for slot in slots}
    done = []
    for slot in slots:
        refs = slot.choice.exclude_choices or ()
        out = frozenset().union(*(answers.get(ref, set()) for ref in refs))
        done.append(Chosen(slot.key, slot.choice, slot.answers, slot.count, frozenset(out)))
    return done


METHODS = {
    "pointBuy": "Point buy",
    "standardArray": "Standard array",
    "roll": "Roll a set",
    "rolls": "Roll each score",
    "manual": "Manual entry",
}
"""The methods as the player knows them."""

_KEEPS_SCORES = {"pointBuy", "manual"}
"""Methods between which a switch keeps the typed scores (both read them as written)."""


def holds(look: Look, step: AbilitiesStep) -> dict[str, str]:
    """What the character panel shows in place of the scores while the step, shown, has no
    method in force and the card no score of the player's own (a described card's scores
    stand as written): no half sheet of the scores one pick raised."""
    if look.answers.get("described") is True or not look.entry.get("shown"):
        return {}
    if look.entry.get("active"):
        return {}
    held = look.card.get("abilities") or {}
    record = look.card.get("builder") or {}
    writes = record.get("writes") or {} if isinstance(record, dict) else {}
    names = step_abilities(look.ruleset, step)
    if any(a in held and writes.get(f"abilities.{a}") != held[a] for a in names):
        return {}
    return {
        "scores": f"Not chosen yet: the {step.label} step waits for a method."
        " What picks add goes on top then."
    }


def lone_method(look: Look, step: AbilitiesStep) -> str | None:
    """The step's only method while none is in force: its controls show at once and the
    player's first change chooses it; until then a blank character has no method (004: only
    `default` starts one), and a described one keeps its scores as written."""
    offered = look.entry.get("offered") or []
    if not look.entry.get("shown") or len(offered) != 1 or look.entry.get("active"):
        return None
    if look.answer(step.id).get("method") or look.answers.get("described") is True:
        return None
    return str(offered[0])


def view(look: Look, step: AbilitiesStep) -> list[Control]:
    """The method to choose, what it hands out or costs, and a table of the scores: each
    ability's base (the method's), bonus (what picks add), total, modifier, and the control
    that sets it."""
    answer = look.answer(step.id)
    methods = step.methods
    lone = lone_method(look, step)
    active = look.entry.get("active") or []
    method = str(active[0]) if active else answer.get("method") or lone
    path = ("steps", step.id)
    offered = [str(m) for m in look.entry.get("offered") or []]
    then = tuple(
        (
            m,
            tuple(
                [((*path, "scores"), None)] * (not {m, method} <= _KEEPS_SCORES)
                + [((*path, "rolls"), None)] * (m not in ("roll", "rolls"))
            ),
        )
        for m in offered
    )
    choices = tuple((m, METHODS.get(m, m)) for m in offered)
    shown = None if lone else method
    controls: list[Control] = [
        Note(str(reason), "reason") for reason in look.entry.get("reasons") or () if not lone
    ]  # a lone method not chosen yet says so in its own words, below
    controls.append(
        Pick("Method", (*path, "method"), choices, shown, "method", radios=True, then=then)
    )
    if lone:
        controls.append(
            Note(
                f"{METHODS.get(lone, lone)} is this step's only method: your first change to a"
                " score chooses it (or tick it above)."
            )
        )
    chose = (((*path, "method"), method),) if method else ()
    made = answer.get("rolls") or {}
    table = methods.point_buy.costs if methods.point_buy is not None else None
    lowest = int(table[0][0]) if table else 0
    highest = int(table[-1][0]) if table else 0
    pool = look.pools.get(step.id)
    if method == "pointBuy" and pool is not None:
        tone: Literal["points", "over"] = "over" if pool["remaining"] < 0 else "points"
        text = f"Points left: {pool['remaining']} of {pool['budget']}"
        controls.append(Note(text, tone, pool=step.id))
    elif method == "pointBuy" and lone and methods.point_buy is not None:
        budget = methods.point_buy.budget
        controls.append(Note(f"Budget: {budget} points; every score starts at {lowest}.", "points"))
    if method == "pointBuy":
        controls.append(Note(f"Type a score from {lowest} to {highest}, or use − and +."))
    names = step_abilities(look.ruleset, step)
    scores = answer.get("scores") or {}
    handed: list[int] | None = None
    faces_of: list[str] = []
    if method == "standardArray" and methods.standard_array is not None:
        handed = list(methods.standard_array)
    elif method == "roll" and methods.roll is not None:
        dice = rolls.Dice.of(methods.roll)
        keys = sorted((k for k in made if k.isdigit()), key=int)
        thrown = [made[k]["faces"] for k in keys if made[k].get("faces")]
        handed = [dice.total(faces) for faces in thrown]
        faces_of = [" ".join(map(str, faces)) for faces in thrown]
    if handed is not None:
        left = list(handed)
        for a in names:
            if a in scores and scores[a] in left:
                left.remove(scores[a])
        rolled = ""
        if method == "roll":
            each = (f"{total} ({faces})" for total, faces in zip(handed, faces_of, strict=True))
            rolled = f"Rolled: {', '.join(each)}. "
        rest = (
            f"Left to assign: {', '.join(map(str, left))}" if left else "Every value is assigned."
        )
        controls.append(Note(rolled + rest))
    values = None if lone else look.values()
    modded = look.ruleset.resolution_common.ability_modifier.op != "identity"
    rows: list[tuple[Control, ...]] = []
    for a in names:
        label = look.label(a)
        base: int | None = scores.get(a)
        editor: Control | None = None
        key = (*path, "scores", a)
        if method == "pointBuy":
            base = base if base is not None else lowest
            editor = Number(
                label, key, base, lowest, highest, f"score-{a}", buttons=True,
                also=(((*path, "method"), "pointBuy"),),
            )  # fmt: skip
        elif method in ("standardArray", "roll"):
            offer = tuple((v, str(v)) for v in dict.fromkeys(handed or []))
            editor = Pick(label, key, offer, base, f"assign-{a}", also=chose)
        elif method == "rolls":
            group = next((g for g in methods.rolls or () if a in g.abilities), None)
            roll = made.get(a) or {}
            if group is not None and roll.get("faces"):
                base = rolls.Dice.of(group.dice).total(roll["faces"])
                faces = " ".join(map(str, roll["faces"]))
                editor = Fact("Set", f"rolled {faces}")
        elif method == "manual":
            limits = methods.manual  # `true`, or `{min, max}` (1.110)
            low, high = (
                (limits.min, limits.max) if isinstance(limits, ManualLimits) else (None, None)
            )
            editor = Number(label, key, base, low, high, f"manual-{a}", also=chose)
        total = values.ability_score(a) if values is not None else None
        cells: list[Control] = [
            Fact("Ability", label),
            Fact("Base", "—" if base is None else str(base), f"base:{a}"),
            Fact("Bonus", "—" if base is None or total is None else f"{int(total) - base:+}"),
            Fact("Total", "—" if total is None else str(int(total)), f"total:{a}"),
        ]
        if modded:
            mod = "—" if values is None else f"{int(values.ability_mod(a)):+}"
            cells.append(Fact("Mod", mod))
        rows.append((*cells, editor if editor is not None else Fact("Set", "")))
    heads = ("Ability", "Base", "Bonus", "Total", *(("Mod",) if modded else ()), "Set")
    controls.append(Table("Scores", heads, tuple(rows)))
    return controls
