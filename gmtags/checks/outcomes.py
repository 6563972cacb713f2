"""Outcome tiers: the tier decides success and criticals (000, "Franjas de resultado").

Without `resolution.outcomes` a check is read by its plain comparison and its
critical flags. With them, the tier it lands in decides:
- a critical the engine found (a natural, a critical rule, a highest-die
  critical, a botch) lands in the tier `on` that critical, or, when there is
  none, in the best (or worst) tier, and stays a critical;
- anything else is read from the number (`by`: margin, total or fraction)
  among the tiers read from the number, best first: the first whose `atLeast`
  the number reaches, else the last (which has no `atLeast`);
- `naturals: "shift"` moves a single die's top face one tier up and its
  lowest face one tier down, never past either end, and never into a tier `on`
  a critical ("nada más cae nunca en ella").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from gmtags.ruleset.resolution import Outcomes, OutcomeTier

Critical = Literal["success", "failure"] | None


@dataclass(frozen=True, slots=True)
class Verdict:
    """How a check came out: success, whether critical, and the tier when there are tiers."""

    success: bool
    critical: bool = False
    tier: OutcomeTier | None = None

    @property
    def result(self) -> str:
        """The receipt's `result=`: success, failure, critical_success or critical_failure."""
        if self.critical:
            return "critical_success" if self.success else "critical_failure"
        return "success" if self.success else "failure"

    @property
    def outcome(self) -> str | None:
        """The tier's label for `outcome=`, when the ruleset declares tiers."""
        return None if self.tier is None else self.tier.label


def plain(success: bool, critical: Critical) -> Verdict:
    """The verdict without tiers: a critical success always succeeds, a critical failure fails."""
    if critical == "success":
        return Verdict(True, True)
    if critical == "failure":
        return Verdict(False, True)
    return Verdict(success)


def decide(
    outcomes: Outcomes | None,
    *,
    success: bool,
    critical: Critical,
    measure: int,
    shift: int = 0,
) -> Verdict:
    """The verdict of a check: its plain reading, or the tier it lands in.

    `measure` is the number the tiers read (already margin, total or the
    fraction rank, per `outcomes.by`); `shift` is +1 or -1 for a natural top or
    bottom face under `naturals: "shift"`.
    """
    if outcomes is None:
        return plain(success, critical)
    tiers = outcomes.tiers
    if critical is not None:
        on = "critical-success" if critical == "success" else "critical-failure"
        landing = next((t for t in tiers if t.on == on), None)
        if landing is None:
            numbered = _numbered(tiers)
            landing = numbered[0] if critical == "success" else numbered[-1]
        return Verdict(critical == "success", True, landing)
    numbered = _numbered(tiers)
    index = next(
        (i for i, t in enumerate(numbered) if t.at_least is not None and measure >= t.at_least),
        len(numbered) - 1,
    )
    if outcomes.naturals == "shift" and shift:
        index = min(max(index - shift, 0), len(numbered) - 1)
    tier = numbered[index]
    return Verdict(tier.success, tier.critical, tier)


def fraction_rank(outcomes: Outcomes, roll: int, target: int) -> int:
    """000, roll-against `by: "fraction"`: the largest `atLeast` whose share of the target holds.

    A tier's `atLeast` divides the target; a roll at or below that share lands
    in the tier. The rank returned is that tier's `atLeast` (0 when none holds,
    which falls to the last tier).
    """
    best = 0
    for tier in _numbered(outcomes.tiers):
        if tier.at_least is not None and tier.at_least > 0 and roll <= target // tier.at_least:
            best = max(best, tier.at_least)
    return best


def _numbered(tiers: list[OutcomeTier]) -> list[OutcomeTier]:
    """The tiers read from the number, best first."""
    return [t for t in tiers if t.on is None]
