"""What `rebuild` checks in a `[skill_check:]` receipt without rolling (SPEC §3, §6).

A check changes no state, so `rebuild` takes its receipt as it is and only
verifies what the receipt itself says. The checks are data: one function per
`resolution=` value (`AUDITS`), plus the dice check every receipt gets.

Every receipt:
- `rolls` is a `|`-separated list of integers and `used`, `modifier`,
  `total` are integers;
- with `dice="NdS"`, every face is within 1..S; when the ruleset's
  dice-sum declares `dice.faces` (Fate dice), every face is one of those
  values instead.

By `resolution`:
- `sum` (dice-sum): `total == used + modifier`; with no `openEnded` rule,
  `used` is the sum of the faces (mode normal) or of the kept half (the higher
  half for `mode="advantage"`, the lower for `disadvantage`);
- `sum` with `highest="1"` (dice-highest): `modifier == 0`,
  `total == used`, and `used` is the `keep` highest faces read (dark dice
  left out when the ruleset reads only the light dice), or with
  `zeroDice="true"` the lower of the first two faces;
- `against` (roll-against): `total == used`, and with one die `used` is one
  of the faces;
- `successes` (dice-pool): `modifier == 0` and `total == used`.

Not checked (the receipt alone cannot say): whether `result` and `outcome`
follow from `total` and `dc` (criticals, tiers and overrides depend on the
sheet at the time), and whether `modifier`, `pool` or `dc` match the sheet.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

import regex

from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.resolution import DiceHighest, DiceSum

Attrs = Mapping[str, str | None]
Audit = Callable[[Attrs, list[int], Ruleset], list[str]]
"""Checks one receipt of a resolution kind: (attributes, faces, ruleset) → problems."""

_DICE = regex.compile(r"([0-9]{1,3})d([0-9]{1,4})")
_INT = regex.compile(r"[+-]?[0-9]{1,12}")


def _int(attrs: Attrs, key: str) -> int | None:
    value = attrs.get(key)
    return int(value) if value is not None and _INT.fullmatch(value.strip()) else None


def _numbers(attrs: Attrs) -> tuple[int, int, int] | None:
    used, modifier, total = (_int(attrs, key) for key in ("used", "modifier", "total"))
    if used is None or modifier is None or total is None:
        return None
    return used, modifier, total


def _audit_sum(attrs: Attrs, faces: list[int], ruleset: Ruleset) -> list[str]:
    if attrs.get("highest") == "1":
        return _audit_highest(attrs, faces, ruleset)
    numbers = _numbers(attrs)
    if numbers is None:
        return ["used, modifier and total must be integers"]
    used, modifier, total = numbers
    problems = []
    if total != used + modifier:
        problems.append(f"total {total} is not used {used} + modifier {modifier}")
    rules = ruleset.resolution_rules
    if isinstance(rules, DiceSum) and rules.open_ended is None and faces:
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


def _audit_highest(attrs: Attrs, faces: list[int], ruleset: Ruleset) -> list[str]:
    numbers = _numbers(attrs)
    if numbers is None:
        return ["used, modifier and total must be integers"]
    used, modifier, total = numbers
    problems = []
    if modifier != 0:
        problems.append(f"a highest-die check has modifier 0, not {modifier}")
    if total != used + modifier:
        problems.append(f"total {total} is not used {used} + modifier {modifier}")
    rules = ruleset.resolution_rules
    if not isinstance(rules, DiceHighest) or not faces:
        return problems
    if attrs.get("zeroDice") == "true" or attrs.get("zerodice") == "true":
        # zeroDice "fail" reads no die (dark dice may still be thrown); lowest-of-two reads one.
        expected = 0 if rules.zero_dice == "fail" else min(faces[:2])
    else:
        dark = _int(attrs, "dark") or 0
        light_only = rules.dark is not None and rules.dark.outcome == "light"
        reading = faces[: len(faces) - dark] if light_only and dark > 0 else faces
        expected = sum(sorted(reading)[-rules.keep :])
    if used != expected:
        problems.append(f"used {used} is not the dice read ({expected})")
    return problems


def _audit_against(attrs: Attrs, faces: list[int], ruleset: Ruleset) -> list[str]:
    numbers = _numbers(attrs)
    if numbers is None:
        return ["used, modifier and total must be integers"]
    used, _, total = numbers
    problems = []
    if total != used:
        problems.append(f"total {total} is not the roll used ({used})")
    dice = _DICE.fullmatch(attrs.get("dice") or "")
    if dice is not None and int(dice[1]) == 1 and faces and used not in faces:
        problems.append(f"used {used} is not one of the faces thrown")
    return problems


def _audit_successes(attrs: Attrs, faces: list[int], ruleset: Ruleset) -> list[str]:
    numbers = _numbers(attrs)
    if numbers is None:
        return ["used, modifier and total must be integers"]
    used, modifier, total = numbers
    problems = []
    if modifier != 0:
        problems.append(f"a pool check has modifier 0, not {modifier}")
    if total != used:
        problems.append(f"total {total} is not the successes used ({used})")
    return problems


AUDITS: Mapping[str, Audit] = MappingProxyType(
    {
        "sum": _audit_sum,
        "against": _audit_against,
        "successes": _audit_successes,
    }
)


def _face_problems(attrs: Attrs, faces: list[int], ruleset: Ruleset) -> list[str]:
    dice = _DICE.fullmatch(attrs.get("dice") or "")
    if dice is None:
        return []
    sides = int(dice[2])
    rules = ruleset.resolution_rules
    if isinstance(rules, DiceSum) and rules.dice.faces and attrs.get("highest") != "1":
        allowed = set(rules.dice.faces)
        bad = [face for face in faces if face not in allowed]
        label = f"the ruleset's faces {sorted(allowed)}"
    else:
        bad = [face for face in faces if not 1 <= face <= sides]
        label = f"a d{sides}"
    return [f"face {face} cannot show on {label}" for face in bad]


def audit_check(attrs: Attrs, ruleset: Ruleset) -> list[str]:
    """Every way a `[skill_check:]` receipt contradicts itself or its dice (module docstring)."""
    if attrs.get("result") == "refused":
        return []
    rolls = attrs.get("rolls")
    if rolls is None:
        return ["a rolled check receipt needs rolls="]
    parts = [part.strip() for part in rolls.split("|")] if rolls.strip() else []
    if not all(_INT.fullmatch(part) for part in parts):
        return [f"rolls {rolls!r} are not whole numbers"]
    faces = [int(part) for part in parts]
    problems = _face_problems(attrs, faces, ruleset)
    audit = AUDITS.get(attrs.get("resolution") or "")
    if audit is not None:
        problems.extend(audit(attrs, faces, ruleset))
    return problems
