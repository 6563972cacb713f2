"""Creation rolls (004, "Tiradas de creación conservadas con sus dados"; SPEC §10).

Rolls come from one stream per (seed, step, roll, attempt, try), so they are
checked with fixed seeds, for independence from the order they are made in,
and by distribution against icepool's exact probabilities (5-sigma bands, as
`tests/checks/test_distributions.py`).
"""

from __future__ import annotations

from collections import Counter

import icepool
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gmtags.builder.dice import Dice, Roll, best_of, faces_problem, read_roll, throw
from gmtags.seeds import derive_creation_seed

COC_SIZ = Dice(count=2, sides=6, add=6, multiplier=5)
"""004's example: CoC's (2d6+6) x 5 is {count: 2, sides: 6, add: 6, multiplier: 5}."""

FOUR_D6_KEEP_3 = Dice(count=4, sides=6, keep=3)
"""5e's 4d6 keep the highest 3 (BUILDER B13)."""

TRIALS = 20_000


class TestTotals:
    def test_coc_two_d6_plus_six_times_five(self) -> None:
        """004: (2d6+6) x 5: faces 3 and 4 make (7 + 6) x 5 = 65."""
        assert read_roll(COC_SIZ, [3, 4]) == Roll((3, 4), (3, 4), 65)

    def test_keep_the_highest(self) -> None:
        """004: "las keep caras más altas": 1, 6, 3, 5 keeps 6, 5, 3 for 14; every face kept."""
        assert read_roll(FOUR_D6_KEEP_3, [1, 6, 3, 5]) == Roll((1, 6, 3, 5), (6, 5, 3), 14)

    def test_coc_three_d6_times_five(self) -> None:
        """004: str, con, dex, app and pow roll 3d6 x 5."""
        assert read_roll(Dice(count=3, sides=6, multiplier=5), [6, 6, 6]).total == 90


class TestRecordedFaces:
    def test_fitting_faces(self) -> None:
        assert faces_problem(COC_SIZ, [1, 6]) is None

    @pytest.mark.parametrize(
        ("faces", "reason"),
        [
            ([1], "2 dice are thrown, not 1"),
            ([1, 2, 3], "2 dice are thrown, not 3"),
            ([0, 6], "a face of a d6 is a whole number from 1 to 6"),
            ([7, 1], "a face of a d6 is a whole number from 1 to 6"),
            ([True, 1], "a face of a d6 is a whole number from 1 to 6"),
            ([2.5, 1], "a face of a d6 is a whole number from 1 to 6"),
        ],
    )
    def test_faces_that_cannot_be_the_throw(self, faces: list[object], reason: str) -> None:
        """Recorded faces that the dice could not have thrown are named, never read."""
        assert faces_problem(COC_SIZ, faces) == reason


class TestStreams:
    def test_fixed_seed_fixed_faces(self) -> None:
        """The same seed, step, roll and attempt always throw the same faces."""
        first = throw(FOUR_D6_KEEP_3, 42, "scores", "str")
        assert first == throw(FOUR_D6_KEEP_3, 42, "scores", "str")
        assert len(first.faces) == 4 and all(1 <= face <= 6 for face in first.faces)
        assert first.total == sum(sorted(first.faces)[1:])

    def test_the_order_of_rolls_changes_nothing(self) -> None:
        """SPEC §10: each roll from its own stream, so rolling con before str changes no face."""
        keys = ["str", "dex", "con", "int", "wis", "cha"]
        forwards = {key: throw(FOUR_D6_KEEP_3, 7, "scores", key) for key in keys}
        backwards = {key: throw(FOUR_D6_KEEP_3, 7, "scores", key) for key in reversed(keys)}
        assert forwards == backwards

    def test_every_part_of_the_key_is_its_own_stream(self) -> None:
        """Seed, step, roll, attempt and try each give another stream."""
        base = derive_creation_seed(1, "luck", "luck", 0, 0)
        others = {
            derive_creation_seed(2, "luck", "luck", 0, 0),
            derive_creation_seed(1, "luck2", "luck", 0, 0),
            derive_creation_seed(1, "luck", "luck2", 0, 0),
            derive_creation_seed(1, "luck", "luck", 1, 0),
            derive_creation_seed(1, "luck", "luck", 0, 1),
        }
        assert base not in others and len(others) == 5

    def test_no_concatenation_collides(self) -> None:
        """Parts are kept apart: step "a/b" roll "c" is not step "a" roll "b/c"."""
        assert derive_creation_seed(1, "a/b", "c", 0) != derive_creation_seed(1, "a", "b/c", 0)

    @given(
        seed=st.integers(0, 2**63 - 1),
        step=st.text(max_size=20),
        key=st.text(max_size=20),
        attempt=st.integers(0, 99),
    )
    def test_seeds_fit_a_signed_64_bit_integer(
        self, seed: int, step: str, key: str, attempt: int
    ) -> None:
        """A creation seed fits an SQLite INTEGER, like every seed gmtags derives."""
        assert 0 <= derive_creation_seed(seed, step, key, attempt) < 2**63


class TestBest:
    def test_the_best_total_is_kept(self) -> None:
        """004: best "tira esa cantidad de veces y conserva la mejor"."""
        tries = [read_roll(COC_SIZ, [1, 1]), read_roll(COC_SIZ, [6, 5]), read_roll(COC_SIZ, [2, 2])]
        assert best_of(tries) == tries[1]

    def test_of_equal_totals_the_first(self) -> None:
        tries = [read_roll(COC_SIZ, [2, 5]), read_roll(COC_SIZ, [5, 2])]
        assert best_of(tries) is tries[0]


def assert_matches(observed: Counter[int], die: icepool.Die[int]) -> None:
    """Every total within 5 standard errors of its exact probability."""
    exact = {o: float(p) for o, p in zip(die.outcomes(), die.probabilities(), strict=True)}
    assert set(observed) <= set(exact), set(observed) - set(exact)
    for outcome, p in exact.items():
        sigma = (p * (1 - p) / TRIALS) ** 0.5
        assert abs(observed[outcome] / TRIALS - p) <= 5 * sigma + 1e-12, (outcome, observed)


class TestDistribution:
    def test_four_d6_keep_three(self) -> None:
        """Rolls over many attempts follow 4d6-keep-3 exactly (one stream per attempt)."""
        observed = Counter(
            throw(FOUR_D6_KEEP_3, 2026, "scores", "str", attempt).total for attempt in range(TRIALS)
        )
        assert_matches(observed, icepool.d6.highest(4, 3))

    def test_coc_size(self) -> None:
        """(2d6+6) x 5 over many seeds."""
        observed = Counter(
            throw(COC_SIZ, seed, "characteristics", "siz").total for seed in range(TRIALS)
        )
        assert_matches(observed, (2 @ icepool.d6 + 6) * 5)
