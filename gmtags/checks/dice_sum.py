"""dice-sum: add the dice to the sheet's number and compare with the difficulty.

000, "dice-sum: sumar los dados". The modifier is the sheet number with the
wound penalty and `adjust` inside it (ENGINE-NOTES §2); `bonus=` means nothing
here (it is dice on the kinds that throw handfuls). Advantage throws two full
sets and keeps the better (or worse) sum; naturals read a single die;
`dice.faces` gives custom face values (Fate); `openEnded` chains one die
(Rolemaster); `unmodified` flags listed faces of the first die.

Decision where the seeds are silent: a check with neither `dc=` nor a rung
`difficulty=` reads against the easiest rung of the ladder, or, with no
ladder, the dice's middle (the average rounded up: 11 on 1d20, 7 on 2d6).

004 (contextual, `gmtags.checks.contextual`): what `apply=` adds is inside
`modifier` and written again as `effects=`; dice cells are thrown after the
check's dice and listed last in `rolls`; `dice` counts the check's own dice.
"""

from __future__ import annotations

import math

from gmtags.checks.context import CheckInput, named_rung, start_record
from gmtags.checks.contextual import throw_effects
from gmtags.checks.dice import face_value, open_ended
from gmtags.checks.kind import KindParts, dc_rung, ladder_line
from gmtags.checks.outcomes import Critical, decide
from gmtags.checks.receipts import NOT_NUMBERS, Attrs, numbers, summed
from gmtags.checks.record import CheckRecord
from gmtags.checks.request import clamp
from gmtags.limits import Limits
from gmtags.ruleset.resolution import DiceSum


def _difficulty(rules: DiceSum, check: CheckInput, record: CheckRecord) -> int:
    rung = named_rung(rules.difficulty_ladder, check.request.difficulty)
    if rung is not None:
        record.difficulty = rung.label
    if check.request.dc is not None:
        return clamp(check.request.dc, *check.limits.dc_range)
    if rung is not None:
        return rung.dc
    if rules.difficulty_ladder:
        return min(r.dc for r in rules.difficulty_ladder)
    values = rules.dice.faces or list(range(1, rules.dice.sides + 1))
    return math.ceil(rules.dice.count * (min(values) + max(values)) / 2)


def _throw_set(rules: DiceSum, check: CheckInput) -> tuple[list[int], int, int]:
    """One set of the check's dice: (what `rolls` records, its sum, its first raw face)."""
    dice, tray = rules.dice, check.tray
    if rules.open_ended is not None:
        chain = open_ended(tray, dice.sides, rules.open_ended.high, rules.open_ended.low)
        return list(chain.faces), chain.total, chain.faces[0]
    faces = tray.throw_many(dice.count, dice.sides)
    values = [face_value(face, dice.faces) for face in faces]
    return values, sum(values), faces[0]


def resolve_dice_sum(rules: DiceSum, check: CheckInput) -> CheckRecord:
    """Roll a dice-sum check and read it (000, "dice-sum"; tiers: "Franjas de resultado")."""
    record = start_record(check)
    record.resolution = "sum"
    record.dc = _difficulty(rules, check, record)
    mode = check.request.mode if check.request.mode in ("advantage", "disadvantage") else None
    if not rules.advantage:
        mode = None
    sets = [_throw_set(rules, check) for _ in range(2 if mode else 1)]
    sums = [total for _, total, _ in sets]
    kept = sets[sums.index(max(sums) if mode == "advantage" else min(sums))]
    record.mode = mode or "normal"
    record.rolls = [value for values, _, _ in sets for value in values]
    record.dice = f"{len(check.tray.thrown)}d{rules.dice.sides}"
    record.used = kept[1]
    # 004, contextual: bonus cells and entry modifiers, and dice cells thrown after the check's.
    effect_faces, record.effects = throw_effects(check.effects, check.tray)
    record.rolls += effect_faces
    record.modifier = math.floor(check.number.number) + record.effects
    record.total = record.used + record.modifier

    first = kept[2]
    single = rules.dice.count == 1
    top, bottom = first == rules.dice.sides, first == 1
    critical: Critical = None
    if single and rules.naturals is not None:
        rule = rules.naturals.save if check.is_save else rules.naturals.check
        if top and rule in ("both", "max-only"):
            critical = "success"
        elif bottom and rule in ("both", "min-only"):
            critical = "failure"
    if single and rules.unmodified and first in rules.unmodified:
        record.unmodified = first
    outcomes = rules.outcomes
    measure = record.total if outcomes and outcomes.by == "total" else record.total - record.dc
    shift = (1 if top else -1 if bottom else 0) if single else 0
    verdict = decide(
        outcomes,
        success=record.total >= record.dc,
        critical=critical,
        measure=measure,
        shift=shift,
    )
    record.result, record.outcome = verdict.result, verdict.outcome
    return record


# ---------------------------------------------------------------- the kind


def tray_limit(rules: DiceSum, limits: Limits) -> int:
    """SPEC §8: at most `limits.dice_per_roll` dice a sum roll."""
    return limits.dice_per_roll


def reminder(rules: DiceSum) -> list[str]:
    """What the GM is taught about a dice-sum check."""
    lines = [
        f"Checks add {rules.dice.count}d{rules.dice.sides} to the sheet's number; "
        "dc is the total to reach."
    ]
    if rules.advantage:
        lines.append('Add mode="advantage" or mode="disadvantage" when the fiction grants it.')
    return lines + ladder_line(rules.difficulty_ladder, dc_rung)


def audit(attrs: Attrs, faces: list[int], rules: DiceSum) -> list[str]:
    """`total == used + modifier`; with no `openEnded` rule, `used` is the sum of the faces
    (mode normal) or of the kept half (the higher for advantage, the lower for disadvantage)."""
    read = numbers(attrs)
    if read is None:
        return [NOT_NUMBERS]
    used, modifier, total = read
    problems = summed(used, modifier, total)
    if rules.open_ended is None and faces:
        mode = attrs.get("mode") or "normal"
        if mode in ("advantage", "disadvantage") and len(faces) % 2 == 0:
            half = len(faces) // 2
            sums = [sum(faces[:half]), sum(faces[half:])]
            kept = max(sums) if mode == "advantage" else min(sums)
        else:
            kept = sum(faces)
        if used != kept:
            problems.append(f"used {used} is not the dice read ({kept})")
    return problems


def faces(rules: DiceSum, attrs: Attrs) -> frozenset[int] | None:
    """Fate dice (`dice.faces`) show only their declared values."""
    return frozenset(rules.dice.faces) if rules.dice.faces else None


KIND = KindParts(DiceSum, resolve_dice_sum, tray_limit, reminder, audit, "sum", faces)
"""000, "dice-sum"."""
