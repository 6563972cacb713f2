"""dice-pool: throw a handful, count the dice that reach the target.

000, "dice-pool: tirar los dados y contarlos", "target.from: opcional" and
"Qué puede escribir el Game Master en una prueba de reserva"; the order of
operations is ENGINE-NOTES §3:

1. the pool is the sheet's number (wounds and `adjust` inside it) plus
   `bonus=` within `situationalDice` plus bought dice, clamped to
   `pool.min`..`pool.max`; a pool of 0 fails without rolling;
2. the dice are thrown, then one re-throw rule runs (faces ≤ `upTo`, `once`
   or `until`, at most `Limits.rerolls` re-throws);
3. explosions walk the growing list, chained, at most `pool.max` extra dice;
4. every die (exploded ones too) reaching the target counts 1, or 2 from
   `double`; every die ≤ `cancel.upTo` takes one away, never below 0;
5. bought successes are added after cancelling;
6. a botch reads raw successes: `noSuccesses` is no die succeeding and one
   ≤ `botch.upTo`; `halfOrMore` is half the first-thrown dice low, a
   critical failure only with no success, else `complication="true"`.

Target precedence: a bought threshold, else the character's `target.from`
(which `threshold=` cannot move), else `threshold=`, else the target of the
rung `difficulty=` names, else of the one rung needing exactly `dc=`, else
`target.default`; clamped to `target.min`..`max`, then untrained `harder`
adds 1 without leaving that range (002, "Qué hace una prueba sin
entrenamiento.").

A stance (the one listing the skill, or a row check's own, 004 1.212) counts
dice below or above the target instead, and skips explode, double, cancel and
botch. `exact` counts dice showing exactly the target.

Decisions where the seeds are silent:
- `rolls` lists every die thrown in throw order, re-thrown faces included
  (replaying them through a scripted source gives the same receipt); `dice`
  counts the dice of the final pool (initial, bought and exploded ones);
- without a stance, a die showing exactly the target already succeeds, so
  `exact` only reports it and never counts it twice; with a stance it counts
  one success unless `exact.counts` is false; `exact="N"` is written when
  `exact` is declared and N > 0;
- a rung target does not move a `target.from` target (the number is the
  character's own); only a bought threshold does;
- with neither `dc=` nor a rung, a check needs the easiest rung's successes,
  or 1 without a ladder;
- `rerolled` is the number of dice re-thrown at least once;
- stances skip botch, so a stance check never botches.

004 (contextual, `gmtags.checks.contextual`): the dice `apply=` adds join the
pool with `bonus=` (`effects=`); a contextual `explode`/`double` face lowers
the face in force (or starts one the ruleset lacks); `cancel: false` (1.214)
stops cancelling while the botch still reads the low faces; contextual
successes are added after cancelling, with bought ones (`auto=`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from gmtags.checks.context import CheckInput, named_rung, start_record
from gmtags.checks.contextual import handful
from gmtags.checks.kind import KindParts, ladder_line
from gmtags.checks.outcomes import Critical, decide
from gmtags.checks.receipts import NOT_NUMBERS, Attrs, numbers, unmodified
from gmtags.checks.record import CheckRecord
from gmtags.checks.request import clamp
from gmtags.limits import Limits
from gmtags.ruleset.resolution import DicePool, FaceRule, PoolRung, RerollRule, Stance
from gmtags.sheet.values import whole


@dataclass(frozen=True, slots=True)
class Reroll:
    """The one re-throw a check makes: its rule, and the standing id when it was named."""

    rule: RerollRule
    standing: str | None = None


@dataclass
class Throw:
    """The dice of one pool check as they fell: faces, first-thrown count, re-throws."""

    faces: list[int] = field(default_factory=list)
    first: int = 0
    rerolled: int = 0


def choose_reroll(standing: Reroll | None, bought: RerollRule | None) -> Reroll | None:
    """000, "dice-pool" `reroll`: one re-throw per check; the higher `upTo` wins, ties `until`."""
    if bought is None:
        return standing
    if standing is None:
        return Reroll(bought)

    def reach(rule: RerollRule) -> tuple[int, int]:
        return rule.up_to, 1 if rule.mode == "until" else 0

    return standing if reach(standing.rule) >= reach(bought) else Reroll(bought)


def _standing(rules: DicePool, written: str | None) -> Reroll | None:
    """The standing re-throw `reroll=` names by id, ignoring case; None when it names none."""
    if written is None:
        return None
    wanted = written.strip().casefold()
    found = next((r for r in rules.reroll or [] if r.id.casefold() == wanted), None)
    return None if found is None else Reroll(found, found.id)


def _face(rule: FaceRule | None, asked: int | None, sides: int) -> int | None:
    """The face a double/explode rule fires from: `from`, or one a check moved within `min`."""
    if rule is None:
        return None
    if asked is not None and rule.min is not None:
        return clamp(asked, rule.min, sides)
    return rule.from_


def _lower(face: int | None, contextual: int | None) -> int | None:
    """004, contextual `explode`/`double`: the lower of the face in force and the row's."""
    if contextual is None:
        return face
    return contextual if face is None else min(face, contextual)


def _rung(rules: DicePool, check: CheckInput, record: CheckRecord) -> PoolRung | None:
    """The rung whose target counts: named by `difficulty=`, or the only one needing `dc=`."""
    rung = named_rung(rules.difficulty_ladder, check.request.difficulty)
    if rung is not None:
        record.difficulty = rung.label
        return rung
    if check.request.dc is not None and rules.difficulty_ladder:
        needed = clamp(check.request.dc, 1, rules.max_successes)
        matching = [r for r in rules.difficulty_ladder if r.successes == needed]
        return matching[0] if len(matching) == 1 else None
    return None


def _needed(rules: DicePool, check: CheckInput, rung: PoolRung | None) -> int:
    """`dc` for a pool: successes needed, 1 to the most a throw can count."""
    if check.request.dc is not None:
        return clamp(check.request.dc, 1, rules.max_successes)
    if rung is not None:
        return rung.successes
    if rules.difficulty_ladder:
        return min(r.successes for r in rules.difficulty_ladder)
    return 1


def _target(rules: DicePool, check: CheckInput, rung: PoolRung | None) -> int:
    """The per-die target after the precedence in the module docstring."""
    target = rules.target
    bought = check.bought.threshold
    if bought is not None:
        chosen = bought
    elif target.from_ is not None and check.values is not None:
        chosen = math.floor(check.values.value(target.from_))
    elif check.request.threshold is not None and target.movable:
        chosen = check.request.threshold
    elif rung is not None and rung.target is not None:
        chosen = rung.target
    else:
        chosen = target.default
    chosen = clamp(chosen, target.min, target.max)
    if check.number.untrained == "harder":
        chosen = min(chosen + 1, target.max)
    return chosen


def _stance(rules: DicePool, check: CheckInput) -> Stance | None:
    wanted = check.number.target.stance
    if wanted is None:
        return None
    return next((s for s in rules.stances or [] if s.id == wanted), None)


def throw_pool(
    check: CheckInput,
    sides: int,
    size: int,
    reroll: RerollRule | None,
    explode: int | None,
    cap: int,
) -> Throw:
    """ENGINE-NOTES §3 steps 1–4: throw, re-throw, remember the first dice, explode (≤ cap)."""
    tray = check.tray
    faces = tray.throw_many(size, sides)
    throw = Throw(faces, size)
    if reroll is not None:
        budget = check.limits.rerolls
        for index in range(len(faces)):
            if faces[index] > reroll.up_to or budget <= 0:
                continue
            throw.rerolled += 1
            while budget > 0:
                budget -= 1
                faces[index] = tray.throw(sides)
                if reroll.mode == "once" or faces[index] > reroll.up_to:
                    break
    if explode is not None:
        extra, index = 0, 0
        while index < len(faces) and extra < cap:
            if faces[index] >= explode:
                faces.append(tray.throw(sides))
                extra += 1
            index += 1
    return throw


def resolve_dice_pool(rules: DicePool, check: CheckInput) -> CheckRecord:
    """Throw the pool and count it (000, "dice-pool"; tiers: "Franjas de resultado")."""
    record = start_record(check)
    record.resolution, record.modifier = "successes", 0
    bought = check.bought
    sides = rules.die.sides
    rung = _rung(rules, check, record)
    record.dc = _needed(rules, check, rung)
    target = _target(rules, check, rung)
    record.threshold = target
    situational = rules.situational_dice
    if situational is not None and check.request.bonus:
        record.bonus = clamp(check.request.bonus, situational.min, situational.max)
    effects = check.effects
    record.effects = handful(effects)
    size = clamp(
        whole(check.number.number) + record.bonus + bought.dice + record.effects,
        rules.pool.min,
        rules.pool.max,
    )
    record.pool = size
    stance = _stance(rules, check)
    explode = double = None
    if stance is None:
        explode = _lower(
            _face(rules.explode, bought.explode or check.request.explode, sides), effects.explode
        )
        double = _lower(
            _face(rules.double, bought.double or check.request.double, sides), effects.double
        )
        if explode != (rules.explode.from_ if rules.explode is not None else None):
            record.explode = explode
        if double != (rules.double.from_ if rules.double is not None else None):
            record.double = double
    reroll = choose_reroll(_standing(rules, check.request.reroll), bought.reroll)
    thrown = throw_pool(
        check, sides, size, reroll.rule if reroll else None, explode, min(rules.pool.max, 100)
    )
    faces = thrown.faces
    record.rolls = list(check.tray.thrown)
    record.dice = f"{len(faces)}d{sides}"
    record.rerolled = thrown.rerolled
    if reroll is not None and reroll.standing is not None and thrown.rerolled:
        record.reroll = reroll.standing
    exact = sum(1 for f in faces if f == target)
    if rules.exact is not None and exact:
        record.exact = exact

    if stance is not None:
        below = stance.count == "below"
        raw = sum(1 for f in faces if (f < target if below else f > target))
        if rules.exact is not None and rules.exact.counts:
            raw += exact
        cancels = 0
    else:
        raw = sum(2 if double is not None and f >= double else 1 for f in faces if f >= target)
        cancels = 0
        if rules.cancel is not None and effects.cancel:
            cancels = sum(1 for f in faces if f <= rules.cancel.up_to)
    added = bought.successes + effects.successes
    net = max(0, raw - cancels) + added
    record.auto = added
    record.used = record.total = net

    critical: Critical = None
    botch = rules.botch if stance is None else None
    if botch is not None and size > 0:
        if botch.rule == "noSuccesses":
            if raw == 0 and any(f <= botch.up_to for f in faces):
                critical = "failure"
        elif sum(1 for f in faces[: thrown.first] if f <= botch.up_to) >= math.ceil(
            thrown.first / 2
        ):
            if raw == 0:
                critical = "failure"
            else:
                record.complication = True
    success = size > 0 and critical is None and net >= record.dc
    outcomes = rules.outcomes
    exceptional = rules.exceptional
    if outcomes is None and success and exceptional is not None and net >= exceptional.successes:
        critical = "success"
    measure = net if outcomes and outcomes.by == "total" else net - record.dc
    verdict = decide(outcomes, success=success, critical=critical, measure=measure)
    if size == 0 and outcomes is not None and verdict.success:
        # pool.min 0: an empty pool fails without rolling, whatever tier 0 would read.
        verdict = decide(outcomes, success=False, critical=None, measure=-(10**6))
    record.result, record.outcome = verdict.result, verdict.outcome
    record.unrolled = size == 0
    return record


# ---------------------------------------------------------------- the kind


def tray_limit(rules: DicePool, limits: Limits) -> int:
    """SPEC §8: `2 × pool.max` dice with explosions, plus the re-throws a reroll may make."""
    return 2 * rules.pool.max + limits.rerolls


def _rung_text(rung: PoolRung) -> str:
    target = f", each die {rung.target}+" if rung.target is not None else ""
    unit = "success" if rung.successes == 1 else "successes"
    return f"{rung.label} ({rung.successes} {unit}{target})"


def reminder(rules: DicePool) -> list[str]:
    """What the GM is taught about a dice-pool check: only the options the ruleset declares."""
    lines = [
        f"Checks throw the sheet's number in d{rules.die.sides}; each die at or over the "
        "target succeeds; dc is how many successes are needed."
    ]
    if rules.target.min < rules.target.max and rules.target.from_ is None:
        lines.append(
            f'threshold="N" moves the per-die target ({rules.target.min} to '
            f"{rules.target.max}, default {rules.target.default})."
        )
    if rules.situational_dice is not None:
        sd = rules.situational_dice
        lines.append(f'bonus="N" adds or takes dice ({sd.min} to {sd.max}).')
    for name, rule in (("explode", rules.explode), ("double", rules.double)):
        if rule is not None and rule.min is not None:
            lines.append(f'{name}="N" moves the {name} face for one check (down to {rule.min}).')
    if rules.reroll:
        ids = ", ".join(r.id for r in rules.reroll)
        lines.append(f'reroll="<id>" uses a standing re-throw: {ids}.')
    for entry in rules.spend:
        lines.append(f'spend="{entry.pool}:{entry.amount}" pays for a purchase on the check.')
    return lines + ladder_line(rules.difficulty_ladder, _rung_text)


def audit(attrs: Attrs, faces: list[int], rules: DicePool) -> list[str]:
    """`modifier == 0` and `total == used` (the net successes)."""
    read = numbers(attrs)
    if read is None:
        return [NOT_NUMBERS]
    used, modifier, total = read
    problems = unmodified(modifier, "a pool check")
    if total != used:
        problems.append(f"total {total} is not the successes used ({used})")
    return problems


KIND = KindParts(DicePool, resolve_dice_pool, tray_limit, reminder, audit, "successes")
"""000, "dice-pool"."""
