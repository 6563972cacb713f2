"""roll-against: roll at most (or at least) the sheet's number.

000, "roll-against: sacar como máximo (o como mínimo) el número de la ficha".
The sheet's number is the target. A ladder rung divides it (`divide`) and then
moves it by its `dc`; a `dc=` in the tag moves it instead, within −100..100.
The receipt's `dc` is the number the roll was read against. Critical rules
name faces or, for a failure, a distance past the target, optionally only for
some targets; a critical success always succeeds and a critical failure
always fails. `tens` adds bonus or penalty tens dice on a single d100.

Decisions where the seeds are silent: `rolls` of a tens roll lists each d100
reading (the units die read with each tens die), `used` the one kept; when a
face rule for success and one for failure both match, the one agreeing with
the plain reading wins.

004 (contextual, `gmtags.checks.contextual`): what `apply=` adds (bonus cells,
entry modifiers, dice cells thrown after the check's dice and listed last in
`rolls`) is added to the sheet's number before a rung divides it, and written
as `effects=`.
"""

from __future__ import annotations

from gmtags.checks.context import CheckInput, named_rung, start_record
from gmtags.checks.contextual import throw_effects
from gmtags.checks.dice import percentile
from gmtags.checks.kind import KindParts, ladder_line
from gmtags.checks.outcomes import Critical, decide, fraction_rank
from gmtags.checks.receipts import NOT_NUMBERS, Attrs, dice_count, numbers
from gmtags.checks.record import CheckRecord
from gmtags.checks.request import clamp
from gmtags.limits import Limits
from gmtags.ruleset.resolution import AgainstRung, CriticalRule, RollAgainst
from gmtags.sheet.values import whole


def _target(rules: RollAgainst, check: CheckInput, record: CheckRecord, added: int) -> int:
    """The sheet's number plus what `apply=` added (004), divided by a rung, then moved."""
    target = whole(check.number.number) + added
    rung = named_rung(rules.difficulty_ladder, check.request.difficulty)
    if rung is not None:
        record.difficulty = rung.label
        if rung.divide:
            target //= rung.divide
    if check.request.dc is not None:
        return target + clamp(check.request.dc, *check.limits.shift_range)
    return target + (rung.dc if rung is not None else 0)


def _roll(rules: RollAgainst, check: CheckInput, record: CheckRecord) -> int:
    dice, tray = rules.dice, check.tray
    tens = rules.tens
    extra = check.request.bonus or 0
    if tens is not None and dice.count == 1 and dice.sides == 100 and extra:
        extra = clamp(extra, -tens.max, tens.max)
        units = tray.throw(10)
        readings = [percentile(units, tray.throw(10)) for _ in range(1 + abs(extra))]
        at_most = rules.against == "at-most"
        better = min(readings) if at_most else max(readings)
        worse = max(readings) if at_most else min(readings)
        record.rolls, record.bonus = readings, extra
        return better if extra > 0 else worse
    faces = tray.throw_many(dice.count, dice.sides)
    record.rolls = faces
    return sum(faces)


def _matches(rule: CriticalRule, roll: int, target: int, at_most: bool) -> bool:
    when = rule.when_target
    if when is not None:
        if when.at_least is not None and target < when.at_least:
            return False
        if when.below is not None and target >= when.below:
            return False
    if rule.past_target is not None:
        distance = roll - target if at_most else target - roll
        return distance >= rule.past_target
    low = rule.from_ if rule.from_ is not None else roll
    high = rule.to if rule.to is not None else roll
    return low <= roll <= high


def resolve_roll_against(rules: RollAgainst, check: CheckInput) -> CheckRecord:
    """Roll against the sheet's number and read it (000, "roll-against")."""
    record = start_record(check)
    record.resolution = "against"
    record.against = rules.against
    roll = _roll(rules, check, record)
    single = rules.dice.count == 1 and len(record.rolls) == 1
    # 004, contextual: dice cells are thrown after the check's dice; all it adds moves the target.
    effect_faces, record.effects = throw_effects(check.effects, check.tray)
    record.rolls += effect_faces
    target = _target(rules, check, record, record.effects)
    at_most = rules.against == "at-most"
    success = roll <= target if at_most else roll >= target
    hits_success = any(_matches(r, roll, target, at_most) for r in rules.critical_success or [])
    hits_failure = any(_matches(r, roll, target, at_most) for r in rules.critical_failure or [])
    critical: Critical = None
    if hits_success and (not hits_failure or success):
        critical = "success"
    elif hits_failure:
        critical = "failure"
    record.dc = target
    record.used = record.total = roll
    record.modifier = 0
    record.dice = f"{rules.dice.count}d{rules.dice.sides}"
    outcomes = rules.outcomes
    if outcomes is not None and outcomes.by == "fraction":
        measure = fraction_rank(outcomes, roll, target)
    elif outcomes is not None and outcomes.by == "total":
        measure = roll
    else:
        measure = target - roll if at_most else roll - target
    top, bottom = roll == rules.dice.sides, roll == 1
    # A natural shift moves toward success: the best face for the roller.
    shift = 0
    if single:
        best, worst = (bottom, top) if at_most else (top, bottom)
        shift = 1 if best else -1 if worst else 0
    verdict = decide(outcomes, success=success, critical=critical, measure=measure, shift=shift)
    record.result, record.outcome = verdict.result, verdict.outcome
    return record


# ---------------------------------------------------------------- the kind


def tray_limit(rules: RollAgainst, limits: Limits) -> int:
    """A guard above the validated maxima (11 d10 for tens dice)."""
    return 2 * limits.dice_per_roll


def _rung_text(rung: AgainstRung) -> str:
    if rung.divide:
        return f"{rung.label} (target divided by {rung.divide})"
    return f"{rung.label} ({rung.dc})"


def reminder(rules: RollAgainst) -> list[str]:
    """What the GM is taught about a roll-against check."""
    side = "at or under" if rules.against == "at-most" else "at or over"
    lines = [
        f"Checks roll {rules.dice.count}d{rules.dice.sides} {side} the sheet's number; "
        "dc moves that target (−100 to 100)."
    ]
    if rules.tens is not None:
        lines.append(
            f'bonus="+N" / bonus="-N" adds bonus or penalty tens dice (up to {rules.tens.max}).'
        )
    return lines + ladder_line(rules.difficulty_ladder, _rung_text)


def audit(attrs: Attrs, faces: list[int], rules: RollAgainst) -> list[str]:
    """`total == used`, and with one die `used` is one of the faces."""
    read = numbers(attrs)
    if read is None:
        return [NOT_NUMBERS]
    used, _, total = read
    problems = []
    if total != used:
        problems.append(f"total {total} is not the roll used ({used})")
    if dice_count(attrs) == 1 and faces and used not in faces:
        problems.append(f"used {used} is not one of the faces thrown")
    return problems


KIND = KindParts(RollAgainst, resolve_roll_against, tray_limit, reminder, audit, "against")
"""000, "roll-against"."""
