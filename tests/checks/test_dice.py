"""Dice primitives (000, "dice-sum" and "roll-against"), by fixed seed and by distribution."""

from __future__ import annotations

import random
from collections import Counter

import icepool
import pytest

from gmtags.checks.dice import Tray, TrayFull, face_value, keep_highest, open_ended, percentile

TRIALS = 40_000


def exact_probabilities(die: icepool.Die[int]) -> dict[int, float]:
    """Outcome → exact probability, from icepool."""
    return {
        int(outcome): float(p)
        for outcome, p in zip(die.outcomes(), die.probabilities(), strict=True)
    }


def within(observed: Counter[int], exact: dict[int, float], trials: int) -> None:
    """Each outcome's frequency is within 5 standard errors of its exact probability.

    At 40,000 trials a 5-sigma band fails by chance about once in 1.7 million
    outcomes, yet catches any bias of a percent or more on common outcomes.
    """
    for outcome, probability in exact.items():
        sigma = (probability * (1 - probability) / trials) ** 0.5
        assert abs(observed[outcome] / trials - probability) <= 5 * sigma + 1e-9, outcome
    assert set(observed) <= set(exact)


class TestTray:
    def test_records_every_die_in_order(self) -> None:
        """A tray records each face it throws, in order, from the seeded source."""
        tray = Tray(random.Random(7), limit=20)
        faces = tray.throw_many(3, 6)
        assert tray.thrown == faces
        assert Tray(random.Random(7), limit=20).throw_many(3, 6) == faces

    def test_limit(self) -> None:
        """A tray never throws past its limit (20 dice a roll)."""
        tray = Tray(random.Random(1), limit=2)
        tray.throw_many(2, 6)
        with pytest.raises(TrayFull):
            tray.throw(6)

    def test_faces_within_sides(self) -> None:
        """Every face lies in 1..sides."""
        tray = Tray(random.Random(3), limit=1000)
        assert set(tray.throw_many(1000, 6)) == {1, 2, 3, 4, 5, 6}


class TestFaceValue:
    def test_plain_and_custom_faces(self) -> None:
        """A face is worth itself unless dice.faces gives its value (Fate: -1, 0, 1)."""
        assert face_value(5, None) == 5
        assert [face_value(f, [-1, 0, 1]) for f in (1, 2, 3)] == [-1, 0, 1]

    def test_four_fudge_dice_have_fates_odds(self) -> None:
        """4dF totals follow Fate's exact distribution."""
        source = random.Random(11)
        totals = Counter(
            sum(face_value(source.randint(1, 3), [-1, 0, 1]) for _ in range(4))
            for _ in range(TRIALS)
        )
        within(totals, exact_probabilities(4 @ icepool.Die([-1, 0, 1])), TRIALS)


class TestOpenEnded:
    def test_high_chains_and_adds(self) -> None:
        """A face at or above high rolls again and adds, while the new die is high."""
        faces = iter([97, 99, 40])
        tray = Tray(_Scripted(faces), limit=20)
        result = open_ended(tray, 100, 96, 5)
        assert result.faces == (97, 99, 40) and result.total == 236

    def test_low_subtracts_and_chains_with_high(self) -> None:
        """A first face at or below low rolls again and subtracts; that roll chains with high."""
        tray = Tray(_Scripted(iter([3, 98, 50])), limit=20)
        result = open_ended(tray, 100, 96, 5)
        assert result.faces == (3, 98, 50) and result.total == 3 - 98 - 50

    def test_low_only_on_the_first_die(self) -> None:
        """A later low face does not subtract: only the first die opens low."""
        tray = Tray(_Scripted(iter([96, 2])), limit=20)
        assert open_ended(tray, 100, 96, 5).total == 98

    def test_at_most_twenty_dice(self) -> None:
        """A chain of high faces stops at the tray's limit."""
        tray = Tray(_Scripted(iter([100] * 30)), limit=20)
        result = open_ended(tray, 100, 96, 5)
        assert len(result.faces) == 20 and result.total == 2000

    def test_rolemaster_distribution(self) -> None:
        """An open-ended d100 (high 96, low 5) matches the exact distribution of its first steps."""
        source = random.Random(5)
        totals = Counter(
            open_ended(Tray(source, limit=20), 100, 96, 5).total for _ in range(TRIALS)
        )
        # Buckets: plain 6..95, high-opened totals (>100), low-opened totals (< 6, incl. negatives).
        buckets = Counter(
            "plain" if 6 <= t <= 95 else "high" if t > 100 else "low" for t in totals.elements()
        )
        exact = {"plain": 0.90, "high": 0.05, "low": 0.05}
        for name, p in exact.items():
            sigma = (p * (1 - p) / TRIALS) ** 0.5
            assert abs(buckets[name] / TRIALS - p) <= 5 * sigma


class TestPercentile:
    @pytest.mark.parametrize(
        ("units", "tens", "value"), [(3, 2, 23), (10, 2, 20), (3, 10, 3), (10, 10, 100), (9, 9, 99)]
    )
    def test_reading(self, units: int, tens: int, value: int) -> None:
        """A units and a tens die read 1–100; 00 with 0 is 100."""
        assert percentile(units, tens) == value

    def test_uniform(self) -> None:
        """Two d10 read as a percentile are a fair d100."""
        source = random.Random(9)
        counts = Counter(
            percentile(source.randint(1, 10), source.randint(1, 10)) for _ in range(TRIALS)
        )
        within(counts, {v: 0.01 for v in range(1, 101)}, TRIALS)


class TestKeepHighest:
    def test_keep(self) -> None:
        """The keep highest faces, highest first."""
        assert keep_highest([2, 6, 4, 6], 2) == [6, 6]
        assert keep_highest([3], 1) == [3]


class _Scripted:
    """A dice source that answers from a script, to test the chain rules exactly."""

    def __init__(self, faces: object) -> None:
        self._faces = faces

    def randint(self, a: int, b: int) -> int:
        return next(self._faces)  # type: ignore[call-overload, no-any-return]
