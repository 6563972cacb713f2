"""Outcome tiers (000, "Franjas de resultado: más que éxito o fracaso")."""

from __future__ import annotations

from gmtags.checks.outcomes import decide, fraction_rank, plain
from gmtags.ruleset.resolution import Outcomes
from tests.checks.conftest import attrs, check, ruleset

SHIFT = ruleset("checks/d20-shift.json")
PF: Outcomes = SHIFT.resolution_rules.outcomes  # type: ignore[assignment]
NO_ON_TIERS = Outcomes.model_validate(
    {
        "by": "total",
        "tiers": [
            {"id": "great", "label": "Great", "atLeast": 3, "success": True},
            {"id": "ok", "label": "OK", "atLeast": 1, "success": True},
            {"id": "miss", "label": "Miss"},
        ],
    }
)


class TestPlain:
    def test_critical_success_always_succeeds(self) -> None:
        """Without tiers, a critical success succeeds and a critical failure fails."""
        assert plain(False, "success").result == "critical_success"
        assert plain(True, "failure").result == "critical_failure"
        assert plain(True, None).result == "success"


class TestDecide:
    def test_first_tier_reached_best_first(self) -> None:
        """The number lands in the first tier whose atLeast it reaches (margin 10 → critical)."""
        assert decide(PF, success=True, critical=None, measure=10).result == "critical_success"
        assert decide(PF, success=True, critical=None, measure=9).outcome == "Success"
        assert decide(PF, success=False, critical=None, measure=-1).outcome == "Failure"

    def test_last_tier_catches_the_rest(self) -> None:
        """Below every atLeast, the last tier (a critical failure here) catches it."""
        verdict = decide(PF, success=False, critical=None, measure=-10)
        assert (verdict.outcome, verdict.result) == ("Critical failure", "critical_failure")

    def test_tier_decides_not_the_comparison(self) -> None:
        """A tier marked success succeeds even when the plain comparison failed."""
        assert decide(NO_ON_TIERS, success=False, critical=None, measure=1).result == "success"

    def test_critical_without_an_on_tier_lands_at_the_ends_and_stays_critical(self) -> None:
        """A natural critical with no `on` tier lands in the best/worst tier and stays critical."""
        best = decide(NO_ON_TIERS, success=False, critical="success", measure=0)
        worst = decide(NO_ON_TIERS, success=True, critical="failure", measure=5)
        assert (best.outcome, best.result) == ("Great", "critical_success")
        assert (worst.outcome, worst.result) == ("Miss", "critical_failure")

    def test_shift_moves_one_tier_and_stops_at_the_ends(self) -> None:
        """naturals shift: top face one tier up, bottom face one down, never past the ends."""
        assert (
            decide(PF, success=True, critical=None, measure=0, shift=1).outcome
            == "Critical success"
        )
        assert (
            decide(PF, success=True, critical=None, measure=15, shift=1).outcome
            == "Critical success"
        )
        assert decide(PF, success=True, critical=None, measure=0, shift=-1).outcome == "Failure"
        assert (
            decide(PF, success=False, critical=None, measure=-20, shift=-1).outcome
            == "Critical failure"
        )

    def test_fraction_rank(self) -> None:
        """by fraction: the largest atLeast whose share of the target the roll is within."""
        coc: Outcomes = ruleset("checks/coc.json").resolution_rules.outcomes  # type: ignore[assignment]
        assert [fraction_rank(coc, roll, 60) for roll in (12, 13, 30, 31, 60, 61)] == [
            5,
            2,
            2,
            1,
            1,
            0,
        ]


class TestShiftInAReceipt:
    def test_natural_twenty_shifts_up(self) -> None:
        """A natural 20 with margin 0 lands one tier up: Critical success."""
        out = attrs(check(SHIFT, '[skill_check: ability="Skill" dc="20"]', None, [20]))
        assert (out["outcome"], out["result"]) == ("Critical success", "critical_success")

    def test_natural_one_shifts_down(self) -> None:
        """A natural 1 that met the dc lands one tier down: Failure."""
        out = attrs(check(SHIFT, '[skill_check: ability="Skill" dc="1"]', None, [1]))
        assert (out["outcome"], out["result"]) == ("Failure", "failure")
