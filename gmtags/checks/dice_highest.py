"""dice-highest: throw a handful and read the highest (Blades, Trophy Dark).

000, "dice-highest: tirar los dados y leer el más alto". The sheet's number is
how many dice are thrown (wounds, `adjust` and `bonus=` within
`situationalDice` add or take dice), clamped by `pool` (at most 20). The
`keep` highest are added up. With no dice, `zeroDice` either throws two and
keeps the lower (never a critical) or fails without rolling. `critical.count`
dice showing the top face (or `critical.face` and above) are a critical
success. Dice bought with `spend=` (000, "Gastar…") join the pool before
the clamp. Dark dice (`dark="N"`, up to `dark.max`) are always thrown and
recorded last; with `outcome: "light"` only the light dice decide, and the
light side applies `zeroDice` when it has none. `darkHighest` means a dark die
beat every light die strictly (fallback light dice included; with no light
die thrown, any dark die wins).

Decisions where the seeds are silent: with `outcome: "all"`, `zeroDice`
applies only when no die at all (light or dark) is thrown; a check with
neither `dc=` nor a rung reads against the easiest rung, or with no ladder the
die's top face.

004 (contextual, `gmtags.checks.contextual`): bonus cells, entry modifiers and
dice cells that `apply=` adds are dice joining the pool before the clamp
(`effects=`); a contextual `best` (1.217) has already chosen the number.
"""

from __future__ import annotations

from gmtags.checks.context import CheckInput, named_rung, start_record
from gmtags.checks.contextual import handful
from gmtags.checks.dice import keep_highest
from gmtags.checks.kind import KindParts, dc_rung, ladder_line
from gmtags.checks.outcomes import Critical, decide
from gmtags.checks.receipts import NOT_NUMBERS, Attrs, int_attr, numbers, summed, unmodified
from gmtags.checks.record import CheckRecord
from gmtags.checks.request import clamp
from gmtags.limits import Limits
from gmtags.ruleset.resolution import DiceHighest
from gmtags.sheet.values import whole


def _difficulty(rules: DiceHighest, check: CheckInput, record: CheckRecord) -> int:
    top = rules.keep * rules.die.sides
    rung = named_rung(rules.difficulty_ladder, check.request.difficulty)
    if rung is not None:
        record.difficulty = rung.label
    if check.request.dc is not None:
        return clamp(check.request.dc, 1, top)
    if rung is not None:
        return rung.dc
    if rules.difficulty_ladder:
        return min(r.dc for r in rules.difficulty_ladder)
    return rules.die.sides


def resolve_dice_highest(rules: DiceHighest, check: CheckInput) -> CheckRecord:
    """Throw the pool, keep the highest, read it (000, "dice-highest")."""
    record = start_record(check)
    record.resolution, record.modifier, record.highest = "sum", 0, True
    record.dc = _difficulty(rules, check, record)
    sides, tray = rules.die.sides, check.tray
    situational = rules.situational_dice
    if situational is not None and check.request.bonus:
        record.bonus = clamp(check.request.bonus, situational.min, situational.max)
    # 000, "Gastar…": a dice-highest spend buys only dice, thrown within the pool limits.
    # 004, contextual: what `apply=` adds is dice too.
    record.effects = handful(check.effects)
    dice = whole(check.number.number) + record.bonus + check.bought.dice + record.effects
    size = clamp(dice, rules.pool.min, rules.pool.max)
    record.pool = size
    dark = rules.dark
    dark_count = 0
    if dark is not None and check.request.dark is not None and check.request.dark > 0:
        dark_count = min(check.request.dark, dark.max)
    light_only = dark is not None and dark.outcome == "light"

    light = tray.throw_many(size, sides)
    fallback: list[int] = []
    failed = False
    needs_zero = size == 0 and (light_only or dark_count == 0)
    if needs_zero:
        if rules.zero_dice == "lowest-of-two":
            fallback = tray.throw_many(2, sides)
        else:
            failed = True
    dark_faces = tray.throw_many(dark_count, sides)

    if fallback:
        reading = [min(fallback)]
        kept = reading
    elif failed:
        reading, kept = [], []
    else:
        reading = light if light_only else light + dark_faces
        kept = keep_highest(reading, rules.keep)
    record.rolls = light + fallback + dark_faces
    record.dice = f"{len(record.rolls)}d{sides}"
    record.used = record.total = sum(kept)
    record.zero_dice = needs_zero
    record.dark = dark_count
    if light_only and dark is not None:
        record.dark_outcome = "light"
    light_thrown = light + fallback
    record.dark_highest = bool(dark_faces) and (
        not light_thrown or max(dark_faces) > max(light_thrown)
    )

    critical: Critical = None
    if rules.critical is not None and not needs_zero:
        face = rules.critical.face or sides
        if sum(1 for f in reading if f >= face) >= rules.critical.count:
            critical = "success"
    outcomes = rules.outcomes
    measure = record.total if outcomes and outcomes.by == "total" else record.total - record.dc
    verdict = decide(
        outcomes,
        success=not failed and record.total >= record.dc,
        critical=critical,
        measure=measure,
    )
    if failed and outcomes is not None and verdict.success:
        # zeroDice "fail": the check fails without rolling, whatever tier a 0 would read.
        verdict = decide(outcomes, success=False, critical=None, measure=-(10**6))
    record.result, record.outcome = verdict.result, verdict.outcome
    record.unrolled = failed and not record.rolls
    return record


# ---------------------------------------------------------------- the kind


def tray_limit(rules: DiceHighest, limits: Limits) -> int:
    """A guard above the validated maxima (a pool of 20, 10 dark dice, two fallback dice)."""
    return 2 * limits.dice_per_roll


def reminder(rules: DiceHighest) -> list[str]:
    """What the GM is taught about a dice-highest check."""
    lines = [
        f"Checks throw the sheet's number in d{rules.die.sides} and read the highest; "
        "dc is the face to reach."
    ]
    if rules.situational_dice is not None:
        sd = rules.situational_dice
        lines.append(f'bonus="N" adds or takes dice ({sd.min} to {sd.max}).')
    if rules.dark is not None:
        text = f" {rules.dark.text}" if rules.dark.text else ""
        lines.append(f'dark="N" adds up to {rules.dark.max} {rules.dark.label} dice.{text}')
    return lines + ladder_line(rules.difficulty_ladder, dc_rung)


def audit(attrs: Attrs, faces: list[int], rules: DiceHighest) -> list[str]:
    """`modifier == 0`, `total == used`, and `used` is the `keep` highest faces read (dark dice
    left out when only the light dice are read), or with `zeroDice` the lower of the first two
    faces (none for a zero-dice `fail`)."""
    read = numbers(attrs)
    if read is None:
        return [NOT_NUMBERS]
    used, modifier, total = read
    problems = unmodified(modifier, "a highest-die check") + summed(used, modifier, total)
    if not faces:
        return problems
    if attrs.get("zeroDice") == "true" or attrs.get("zerodice") == "true":
        # zeroDice "fail" reads no die (dark dice may still be thrown); lowest-of-two reads one.
        expected = 0 if rules.zero_dice == "fail" else min(faces[:2])
    else:
        dark = int_attr(attrs, "dark") or 0
        light_only = rules.dark is not None and rules.dark.outcome == "light"
        reading = faces[: len(faces) - dark] if light_only and dark > 0 else faces
        expected = sum(sorted(reading)[-rules.keep :])
    if used != expected:
        problems.append(f"used {used} is not the dice read ({expected})")
    return problems


KIND = KindParts(DiceHighest, resolve_dice_highest, tray_limit, reminder, audit, "sum")
"""000, "dice-highest"."""
