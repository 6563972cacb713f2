"""`gmtags roll` (000, "symbol-pool": the dice rolled by name outside a check)."""

from __future__ import annotations

from click.testing import CliRunner

from gmtags.commands.roll import roll_command
from tests.checks.conftest import CHECKS

GENESYS = str(CHECKS / "checks/genesys.json")


class TestRollCommand:
    def test_rolls_and_prints(self) -> None:
        """A good roll prints the dice, faces and net symbols, and exits 0."""
        args = ["--ruleset", GENESYS, "--seed", "4", "2 ability 1 proficiency vs 2 difficulty"]
        result = CliRunner().invoke(roll_command, args)
        assert result.exit_code == 0, result.output
        lines = result.output.splitlines()
        assert lines[0] == "dice: 2 ability 1 proficiency vs 2 difficulty"
        assert lines[1] == "thrown: ability|ability|proficiency|difficulty|difficulty"
        assert [line.split(":")[0] for line in lines[2:]] == [
            "rolls",
            "details",
            "symbols",
            "result",
        ]

    def test_same_seed_same_roll(self) -> None:
        """--seed makes the roll repeatable."""
        args = ["--ruleset", GENESYS, "--seed", "9", "3 ability vs 3 difficulty"]
        assert CliRunner().invoke(roll_command, args).output == (
            CliRunner().invoke(roll_command, args).output
        )

    def test_bad_expression(self) -> None:
        """An expression that does not read exits 1 with the reason."""
        result = CliRunner().invoke(roll_command, ["--ruleset", GENESYS, "2 abilty"])
        assert result.exit_code == 1
        assert "no die is named 'abilty'" in result.output

    def test_not_symbol_pool(self) -> None:
        """A ruleset of another kind exits 1 and says so."""
        other = str(CHECKS / "checks/trophy.json")
        result = CliRunner().invoke(roll_command, ["--ruleset", other, "2 ability"])
        assert result.exit_code == 1 and "not symbol-pool" in result.output

    def test_missing_ruleset(self) -> None:
        """A missing ruleset file exits 1 with one line."""
        result = CliRunner().invoke(roll_command, ["--ruleset", "/nonexistent.json", "1 ability"])
        assert result.exit_code == 1 and "not found" in result.output
