"""What `rebuild` checks in a `[skill_check:]` receipt without rolling (SPEC §3, §6).

A check changes no state, so `rebuild` takes its receipt as it is and only
verifies what the receipt itself says.

Every receipt:
- `rolls` is a `|`-separated list of integers, and `used`, `modifier` and
  `total` are integers;
- with `dice="NdS"`, every face is within 1..S, or one of the values the
  kind's dice show (Fate dice of a dice-sum, `dice.faces`);
- `resolution` is the one the ruleset's kind writes (`sum`, `successes`,
  `against`).

Then the kind's own audit (`Kind.audit`, in the kind's module of
`gmtags.checks`): for dice-sum `total == used + modifier` and `used` the
faces read (advantage: the higher half); for dice-highest `modifier == 0`,
`total == used` and `used` the `keep` highest faces (dark dice and
`zeroDice` as the kind reads them); for roll-against `total == used`, a face
thrown when there is one die; for dice-pool `modifier == 0` and
`total == used`; for symbol-pool `total == used + modifier`.

Not checked (the receipt alone cannot say): whether `result` and `outcome`
follow from `total` and `dc` (criticals, tiers and overrides depend on the
sheet at the time), and whether `modifier`, `pool` or `dc` match the sheet.
"""

from __future__ import annotations

from gmtags.checks.kind import Kind
from gmtags.checks.kinds import kind_of
from gmtags.checks.receipts import DICE, Attrs, is_int
from gmtags.ruleset.model import Ruleset


def _face_problems(kind: Kind, attrs: Attrs, faces: list[int], ruleset: Ruleset) -> list[str]:
    dice = DICE.fullmatch(attrs.get("dice") or "")
    if dice is None:
        return []
    sides = int(dice[2])
    allowed = kind.faces(ruleset.resolution_rules, attrs)
    if allowed is not None:
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
    if not all(is_int(part) for part in parts):
        return [f"rolls {rolls!r} are not whole numbers"]
    faces = [int(part) for part in parts]
    rules = ruleset.resolution_rules
    kind = kind_of(rules)
    written = attrs.get("resolution")
    if written != kind.writes:
        return [f"resolution={written!r}, but a {kind.name} check writes {kind.writes!r}"]
    return _face_problems(kind, attrs, faces, ruleset) + kind.audit(attrs, faces, rules)
