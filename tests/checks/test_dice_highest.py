"""dice-highest checks (000, "dice-highest: tirar los dados y leer el más alto")."""

from __future__ import annotations

from tests.checks.conftest import attrs, check, ruleset, snapshot

CROWS = ruleset("sheets/crows.json")
TROPHY = ruleset("checks/trophy.json")
LIGHT = ruleset("checks/trophy-light.json")
VEX = snapshot({"Vex": {"abilities": {"hunt": 2, "study": 1, "skirmish": 0, "finesse": 4}}})


class TestHighest:
    def test_sheet_number_is_the_dice(self) -> None:
        """Hunt 2 throws two dice; the highest is read against the rung: 5 is a partial success."""
        out = attrs(check(CROWS, '[skill_check: ability="Hunt"]', VEX, [2, 5]))
        assert (out["rolls"], out["used"], out["total"], out["modifier"]) == ("2|5", "5", "5", "0")
        assert (out["highest"], out["resolution"], out["outcome"]) == (
            "1",
            "sum",
            "Partial success",
        )

    def test_six_is_full(self) -> None:
        """A six is a full success."""
        out = attrs(check(CROWS, '[skill_check: ability="Hunt"]', VEX, [6, 1]))
        assert (out["outcome"], out["result"]) == ("Full success", "success")

    def test_two_sixes_are_critical(self) -> None:
        """critical.count 2: two sixes land in the critical tier."""
        out = attrs(check(CROWS, '[skill_check: ability="Finesse"]', VEX, [6, 3, 6, 1]))
        assert (out["result"], out["outcome"]) == ("critical_success", "Critical")

    def test_bad_outcome(self) -> None:
        """Highest 1–3 is a bad outcome, a failure."""
        out = attrs(check(CROWS, '[skill_check: ability="Hunt"]', VEX, [3, 1]))
        assert (out["result"], out["outcome"]) == ("failure", "Bad outcome")

    def test_zero_dice_lowest_of_two(self) -> None:
        """No dice: throw two and keep the lower, never a critical (zeroDice lowest-of-two)."""
        out = attrs(check(CROWS, '[skill_check: ability="Skirmish"]', VEX, [6, 6]))
        assert (out["rolls"], out["used"], out["zeroDice"], out["pool"]) == (
            "6|6",
            "6",
            "true",
            "0",
        )
        assert out["result"] == "success" and out["outcome"] == "Full success"

    def test_situational_dice_clamp(self) -> None:
        """bonus= adds dice within situationalDice (−1..+2); the receipt writes what was used."""
        out = attrs(check(CROWS, '[skill_check: ability="Study" bonus="+5"]', VEX, [1, 2, 3]))
        assert (out["bonus"], out["pool"], out["dice"]) == ("+2", "3", "3d6")

    def test_pool_max_clamps(self) -> None:
        """The pool never passes pool.max."""
        many = snapshot({"Vex": {"abilities": {"finesse": 4}}})
        out = attrs(check(CROWS, '[skill_check: ability="Finesse" bonus="+2"]', many, [1] * 6))
        assert out["pool"] == "6"

    def test_dc_clamps_to_keep_times_sides(self) -> None:
        """dc= is 1 to keep × sides."""
        out = attrs(check(CROWS, '[skill_check: ability="Hunt" dc="99"]', VEX, [6, 6]))
        assert out["dc"] == "6"


class TestDarkDice:
    def test_dark_dice_are_read_and_recorded_last(self) -> None:
        """dark="2": two dark dice thrown after the light ones, read with them (outcome all)."""
        state = snapshot({"Ana": {"abilities": {"skill": 1}}})
        out = attrs(check(TROPHY, '[skill_check: ability="Skill" dark="2"]', state, [3, 5, 2]))
        assert (out["rolls"], out["used"], out["dark"], out["dice"]) == ("3|5|2", "5", "2", "3d6")
        assert out["darkHighest"] == "true"

    def test_dark_clamps_to_max(self) -> None:
        """dark= is capped at dark.max (3)."""
        out = attrs(check(TROPHY, '[skill_check: ability="Skill" dark="9"]', None, [1, 1, 1]))
        assert out["dark"] == "3"

    def test_dark_highest_is_strict(self) -> None:
        """A dark die equal to the best light die is not darkHighest."""
        state = snapshot({"Ana": {"abilities": {"skill": 1}}})
        out = attrs(check(TROPHY, '[skill_check: ability="Skill" dark="1"]', state, [5, 5]))
        assert "darkHighest" not in out

    def test_light_outcome_reads_only_light_dice(self) -> None:
        """outcome light: the dark 6 does not decide; darkOutcome="light" is recorded."""
        state = snapshot({"Ana": {"abilities": {"skill": 1}}})
        out = attrs(check(LIGHT, '[skill_check: ability="Skill" dark="1"]', state, [2, 6]))
        assert (out["used"], out["result"], out["darkOutcome"], out["darkHighest"]) == (
            "2",
            "failure",
            "light",
            "true",
        )

    def test_light_zero_dice_fail_still_throws_dark(self) -> None:
        """No light dice under zeroDice fail: the check fails, yet the dark dice are thrown."""
        out = attrs(check(LIGHT, '[skill_check: ability="Skill" dark="2"]', None, [6, 6]))
        assert (out["rolls"], out["result"], out["zeroDice"], out["darkHighest"]) == (
            "6|6",
            "failure",
            "true",
            "true",
        )

    def test_all_outcome_with_only_dark_dice(self) -> None:
        """Outcome all with no light dice but dark ones: the dark dice are the pool."""
        out = attrs(check(TROPHY, '[skill_check: ability="Skill" dark="1"]', None, [6]))
        assert (out["used"], out.get("zeroDice"), out["result"]) == ("6", None, "success")
