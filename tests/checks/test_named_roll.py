"""Named symbol dice rolled outside a check (000, "symbol-pool": `2 ability 1 proficiency vs …`)."""

from __future__ import annotations

import random

import pytest

from gmtags.checks.named_roll import BadRoll, NamedDice, NamedRoll, read_named_dice, roll_named
from gmtags.limits import Limits
from gmtags.ruleset.resolution import SymbolPool
from tests.checks.conftest import Scripted, ruleset

RULES = ruleset("checks/genesys.json").resolution_rules
assert isinstance(RULES, SymbolPool)
GENESYS: SymbolPool = RULES


def rolled(expression: str, faces: list[int]) -> NamedRoll:
    """A roll that must read, with scripted faces."""
    result = roll_named(GENESYS, expression, Scripted(faces))
    assert isinstance(result, NamedRoll), result
    return result


class TestReadNamedDice:
    def test_ids_and_sides(self) -> None:
        """Counts and die ids on two sides joined by vs."""
        dice = read_named_dice(GENESYS, "2 ability 1 proficiency vs 2 difficulty")
        assert isinstance(dice, NamedDice)
        assert [[(n, d.id) for n, d in side] for side in dice.sides] == [
            [(2, "ability"), (1, "proficiency")],
            [(2, "difficulty")],
        ]
        assert dice.count == 5

    def test_labels_ignore_case(self) -> None:
        """A die is named by id or label without regard to case, vs too."""
        dice = read_named_dice(GENESYS, "1 ABILITY 1 Proficiency VS 1 Challenge")
        assert isinstance(dice, NamedDice)
        assert dice.text == "1 ability 1 proficiency vs 1 challenge"

    def test_one_side(self) -> None:
        """A roll without vs throws one side."""
        dice = read_named_dice(GENESYS, "3 boost")
        assert isinstance(dice, NamedDice) and dice.count == 3

    @pytest.mark.parametrize(
        ("expression", "words"),
        [
            ("", "empty"),
            ("ability", "count"),
            ("2 abilty", "no die is named 'abilty'"),
            ("0 ability", "1 or more"),
            ("2", "names no die"),
            ("2 ability vs", "both sides"),
            ("vs 2 difficulty", "both sides"),
            ("1 ability vs 1 difficulty vs 1 setback", "at most one"),
            ("41 ability", "at most 40"),
            ("9999999999 ability", "count"),
        ],
    )
    def test_bad_expressions_are_values(self, expression: str, words: str) -> None:
        """An expression that does not read is a BadRoll with a message, never an exception."""
        result = read_named_dice(GENESYS, expression)
        assert isinstance(result, BadRoll) and words in result.message

    def test_dice_limit_follows_limits(self) -> None:
        """The dice bound is twice the per-roll limit passed in."""
        result = read_named_dice(GENESYS, "5 ability", Limits(dice_per_roll=2))
        assert isinstance(result, BadRoll)


class TestRollNamed:
    def test_counts_and_cancels_like_a_check(self) -> None:
        """The seed's roll: symbols count before cancelling and cancel in pairs."""
        result = rolled("2 ability 1 proficiency vs 2 difficulty", [7, 6, 12, 1, 4])
        assert (result.symbols, result.rolls, result.success) == ("2s 1a 1t", "7|6|12|1|4", True)
        assert result.thrown_ids == "ability|ability|proficiency|difficulty|difficulty"
        assert result.labels == "2 Success, 1 Advantage, 1 Triumph"

    def test_critical_marks(self) -> None:
        """Both critical marks are read on any appearance, whatever cancels."""
        result = rolled("1 proficiency vs 1 challenge", [12, 12])
        assert result.symbols == "1t 1d" and not result.success
        assert result.details == (
            "critSuccess: yes; critFailure: yes; Proficiency: t; Challenge: d"
        )

    def test_empty(self) -> None:
        """A roll that cancels out names no symbols."""
        result = rolled("1 ability vs 1 difficulty", [2, 2])
        assert (result.symbols, result.labels) == ("", "no symbols")

    def test_seeded(self) -> None:
        """The same seed throws the same faces."""
        first = roll_named(GENESYS, "3 ability vs 2 difficulty", random.Random(5))
        second = roll_named(GENESYS, "3 ability vs 2 difficulty", random.Random(5))
        assert isinstance(first, NamedRoll) and isinstance(second, NamedRoll)
        assert first.rolls == second.rolls

    def test_bad_roll_throws_nothing(self) -> None:
        """A bad expression throws no die."""
        assert isinstance(roll_named(GENESYS, "2 nothing", Scripted([])), BadRoll)
