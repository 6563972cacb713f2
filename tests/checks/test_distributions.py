"""Whole checks against exact probabilities from icepool (fixed seeds, 5-sigma bands).

Each test rolls the real resolver many times from one seeded source and checks
every outcome's frequency within 5 standard errors of its exact probability:
a band that fails by chance about once in 1.7 million outcomes, yet catches a
wrong rule (an off-by-one face, the wrong die kept) at these sample sizes.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

import icepool

from gmtags import Snapshot
from gmtags.checks.dice import percentile
from gmtags.engine.context import Context
from gmtags.engine.skill_check import apply_skill_check
from gmtags.limits import DEFAULT_LIMITS
from gmtags.tags.parse import parse_span
from gmtags.tags.receipt import ENGINE_ATTRS
from gmtags.tags.scan import find_spans
from tests.checks.conftest import ruleset, snapshot

TRIALS = 20_000


def sample(
    rules_name: str, text: str, state: Snapshot, read: Callable[[dict[str, str | None]], object]
) -> Counter[object]:
    rules = ruleset(rules_name)
    (span,) = list(find_spans(text, DEFAULT_LIMITS))
    tag = parse_span(text, span, ENGINE_ATTRS["skill_check"])
    context = Context(rules, random.Random(2026), DEFAULT_LIMITS)
    return Counter(
        read(dict(apply_skill_check(tag, state, context).receipt.outputs)) for _ in range(TRIALS)
    )


def assert_matches(observed: Counter[object], die: icepool.Die[object]) -> None:
    exact = {o: float(p) for o, p in zip(die.outcomes(), die.probabilities(), strict=True)}
    assert set(observed) <= set(exact), set(observed) - set(exact)
    for outcome, p in exact.items():
        sigma = (p * (1 - p) / TRIALS) ** 0.5
        assert abs(observed[outcome] / TRIALS - p) <= 5 * sigma + 1e-12, (
            outcome,
            observed[outcome],
        )


def blades(*faces: int) -> str:
    sixes = sum(1 for f in faces if f == 6)
    top = max(faces)
    return (
        "Critical"
        if sixes >= 2
        else "Full success"
        if top == 6
        else ("Partial success" if top >= 4 else "Bad outcome")
    )


class TestBlades:
    def test_one_to_four_dice(self) -> None:
        """Blades outcomes for 1–4 dice match the exact law of the highest d6 (and two sixes)."""
        for dots in range(1, 5):
            state = snapshot({"Vex": {"abilities": {"finesse": dots}}})
            observed = sample(
                "sheets/crows.json",
                '[skill_check: ability="Finesse"]',
                state,
                lambda out: out["outcome"],
            )
            assert_matches(observed, icepool.map(blades, *([icepool.d6] * dots)))

    def test_zero_dice(self) -> None:
        """Zero dice: the lower of two d6, never a critical."""
        state = snapshot({"Vex": {"abilities": {"finesse": 0}}})
        observed = sample(
            "sheets/crows.json",
            '[skill_check: ability="Finesse"]',
            state,
            lambda out: out["outcome"],
        )
        assert_matches(
            observed, icepool.map(lambda a, b: blades(min(a, b)), icepool.d6, icepool.d6)
        )


class TestPercentileDice:
    INVESTIGATOR = Snapshot.model_validate(
        {"gameCharacterCards": {"Ada": {"skills": {"spot_hidden": {"tier": "base", "bonus": 50}}}}}
    )

    def test_one_bonus_die(self) -> None:
        """CoC with one bonus die keeps the lower of two readings sharing a units die."""
        observed = sample(
            "checks/coc.json",
            '[skill_check: skill="Spot Hidden" bonus="+1"]',
            self.INVESTIGATOR,
            lambda out: int(out["used"] or 0),
        )
        d10 = icepool.d10
        law = icepool.map(lambda u, a, b: min(percentile(u, a), percentile(u, b)), d10, d10, d10)
        assert_matches(observed, law)

    def test_one_penalty_die(self) -> None:
        """CoC with one penalty die keeps the higher reading."""
        observed = sample(
            "checks/coc.json",
            '[skill_check: skill="Spot Hidden" bonus="-1"]',
            self.INVESTIGATOR,
            lambda out: int(out["used"] or 0),
        )
        d10 = icepool.d10
        law = icepool.map(lambda u, a, b: max(percentile(u, a), percentile(u, b)), d10, d10, d10)
        assert_matches(observed, law)


class TestFudge:
    def test_four_fudge_dice_through_the_resolver(self) -> None:
        """A Fate check's dice total follows 4dF exactly."""
        observed = sample(
            "checks/fate.json",
            '[skill_check: skill="Notice" dc="0"]',
            Snapshot(),
            lambda out: int(out["used"] or 0),
        )
        assert_matches(observed, 4 @ icepool.Die([-1, 0, 1]))


class TestOpenEnded:
    def test_rolemaster_first_steps(self) -> None:
        """Open-ended d100: how often a roll opens high or low, and chains past a second die.

        Read from the dice thrown: one die (6–95), two dice opening high (96+ then
        under 96) or low (5 or less, then under 96), and chains of three or more.
        """

        def bucket(out: dict[str, str | None]) -> str:
            faces = [int(f) for f in (out["rolls"] or "").split("|")]
            if len(faces) == 1:
                return "plain"
            side = "high" if faces[0] >= 96 else "low"
            return side if len(faces) == 2 else f"{side}-chain"

        observed = sample(
            "checks/rolemaster.json", '[skill_check: skill="Climb" dc="0"]', Snapshot(), bucket
        )
        # In ten-thousandths: 90% plain; 5% open each way, of which 5% chain on.
        law = {"plain": 9000, "high": 475, "high-chain": 25, "low": 475, "low-chain": 25}
        assert_matches(observed, icepool.Die(law))


def _exwod_die(depth: int) -> icepool.Die[icepool.Vector[int]]:
    """One d10 of the exWoD-like pool as (successes, ones): 7+ succeeds, a 10 throws again."""

    def face(f: int) -> icepool.Vector[int] | icepool.Die[icepool.Vector[int]]:
        if f == 1:
            return icepool.Vector((0, 1))
        if f == 10 and depth > 0:
            return icepool.Vector((1, 0)) + _exwod_die(depth - 1)
        return icepool.Vector((1, 0) if f >= 7 else (0, 0))

    return icepool.d10.map(face)


class TestDicePool:
    def test_exploding_tens_and_cancelling_ones(self) -> None:
        """N d10 at 7, tens exploding and ones (exploded ones too) cancelling: exact net law."""
        for dice in (1, 3, 5):
            state = snapshot({"Bram": {"abilities": {"sinew": dice}}})
            observed = sample(
                "checks/exwod.json",
                '[skill_check: ability="Sinew" dc="2"]',
                state,
                lambda out: int(out["total"] or 0),
            )
            one = _exwod_die(6)
            pool = sum((one for _ in range(dice - 1)), one)
            net = pool.map(lambda v: max(0, v[0] - v[1]))
            assert_matches(observed, net)
