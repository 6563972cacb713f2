"""roll-against checks (000, "roll-against: sacar como máximo (o como mínimo)…")."""

from __future__ import annotations

from tests.checks.conftest import attrs, check, ruleset, snapshot

COC = ruleset("checks/coc.json")
GURPS = ruleset("checks/gurps.json")
OLD = ruleset("checks/old-school.json")
INVESTIGATOR = snapshot({"Ada": {"skills": {"spot_hidden": {"tier": "base", "bonus": 60}}}})


class TestTarget:
    def test_skill_bonus_is_the_target(self) -> None:
        """A percentile skill's target is its bonus; a roll at or under it succeeds."""
        out = attrs(check(COC, '[skill_check: skill="Spot Hidden"]', INVESTIGATOR, [45]))
        assert (out["dc"], out["total"], out["against"], out["resolution"]) == (
            "60",
            "45",
            "at-most",
            "against",
        )
        assert out["result"] == "success" and out["modifier"] == "0"

    def test_rung_divides_the_target(self) -> None:
        """difficulty="Hard" halves the target before the roll is read."""
        out = attrs(
            check(COC, '[skill_check: skill="Spot Hidden" difficulty="Hard"]', INVESTIGATOR, [45])
        )
        assert (out["dc"], out["result"], out["difficulty"]) == ("30", "failure", "Hard")

    def test_dc_moves_the_target(self) -> None:
        """dc= moves the target, clamped to −100..100."""
        out = attrs(check(COC, '[skill_check: skill="Spot Hidden" dc="-500"]', INVESTIGATOR, [11]))
        assert out["dc"] == "-40"

    def test_gurps_skill_adds_its_ability(self) -> None:
        """A skill with an ability targets ability + bonus (GURPS); 3d6 are summed."""
        state = snapshot(
            {"Ana": {"abilities": {"dx": 12}, "skills": {"stealth": {"tier": "base", "bonus": 1}}}}
        )
        out = attrs(check(GURPS, '[skill_check: skill="Stealth"]', state, [6, 6, 2]))
        assert (out["dc"], out["total"], out["result"], out["dice"]) == (
            "13",
            "14",
            "failure",
            "3d6",
        )

    def test_at_least(self) -> None:
        """An at-least roll succeeds at or over the target."""
        from gmtags import load_ruleset

        data = COC.model_dump(by_alias=True, exclude_none=True)
        data["resolution"] = {**data["resolution"], "against": "at-least", "outcomes": None}
        del data["resolution"]["outcomes"]
        at_least = load_ruleset(data)
        out = attrs(check(at_least, '[skill_check: skill="Spot Hidden"]', INVESTIGATOR, [71]))
        assert (out["total"], out["result"], out["against"]) == ("71", "success", "at-least")


class TestCriticals:
    def test_one_is_critical(self) -> None:
        """criticalSuccess from 1 to 1: a 01 lands in the Critical tier."""
        out = attrs(check(COC, '[skill_check: skill="Spot Hidden"]', INVESTIGATOR, [1]))
        assert (out["total"], out["result"], out["outcome"]) == (
            "1",
            "critical_success",
            "Critical",
        )

    def test_hundred_fumbles(self) -> None:
        """A 100 is a critical failure, landing in the Fumble tier."""
        out = attrs(check(COC, '[skill_check: skill="Spot Hidden"]', INVESTIGATOR, [100]))
        assert (out["total"], out["result"], out["outcome"]) == (
            "100",
            "critical_failure",
            "Fumble",
        )

    def test_when_target_below(self) -> None:
        """96+ fumbles only when the target is below 50."""
        low = snapshot({"Ada": {"skills": {"spot_hidden": {"tier": "base", "bonus": 40}}}})
        fumble = attrs(check(COC, '[skill_check: skill="Spot Hidden"]', low, [97]))
        plain = attrs(check(COC, '[skill_check: skill="Spot Hidden"]', INVESTIGATOR, [97]))
        assert (fumble["result"], plain["result"]) == ("critical_failure", "failure")

    def test_past_target(self) -> None:
        """A roll 10 or more past the target is a critical failure (GURPS)."""
        state = snapshot({"Ana": {"abilities": {"dx": 5}}})
        out = attrs(check(GURPS, '[skill_check: ability="DX"]', state, [5, 5, 5]))
        assert out["result"] == "critical_failure"

    def test_critical_success_always_succeeds(self) -> None:
        """A 4 on 3d6 is a critical success even against a target of 3."""
        state = snapshot({"Ana": {"abilities": {"dx": 3}}})
        out = attrs(check(GURPS, '[skill_check: ability="DX"]', state, [1, 1, 2]))
        assert out["result"] == "critical_success"

    def test_when_target_at_least(self) -> None:
        """A 5 is critical only with a target of 15 or more."""
        high = snapshot({"Ana": {"abilities": {"dx": 15}}})
        low = snapshot({"Ana": {"abilities": {"dx": 14}}})
        assert (
            attrs(check(GURPS, '[skill_check: ability="DX"]', high, [1, 2, 2]))["result"]
            == "critical_success"
        )
        assert (
            attrs(check(GURPS, '[skill_check: ability="DX"]', low, [1, 2, 2]))["result"]
            == "success"
        )


class TestFractionTiers:
    def test_extreme_hard_regular(self) -> None:
        """by fraction: ≤ target/5 extreme, ≤ target/2 hard, ≤ target regular (target 60)."""
        for faces, label in (
            ([12], "Extreme success"),
            ([30], "Hard success"),
            ([55], "Regular success"),
        ):
            out = attrs(check(COC, '[skill_check: skill="Spot Hidden"]', INVESTIGATOR, faces))
            assert out["outcome"] == label, faces

    def test_failure_tier(self) -> None:
        """Over the target lands in Failure."""
        out = attrs(check(COC, '[skill_check: skill="Spot Hidden"]', INVESTIGATOR, [81]))
        assert (out["outcome"], out["result"]) == ("Failure", "failure")


class TestTens:
    def test_bonus_die_keeps_the_better(self) -> None:
        """bonus="+1" throws one more tens die and keeps the lower reading (at-most)."""
        out = attrs(
            check(COC, '[skill_check: skill="Spot Hidden" bonus="+1"]', INVESTIGATOR, [3, 7, 2])
        )
        assert (out["rolls"], out["used"], out["bonus"]) == ("73|23", "23", "+1")

    def test_penalty_die_keeps_the_worse(self) -> None:
        """bonus="-1" keeps the higher reading."""
        out = attrs(
            check(COC, '[skill_check: skill="Spot Hidden" bonus="-1"]', INVESTIGATOR, [3, 7, 2])
        )
        assert (out["used"], out["bonus"], out["result"]) == ("73", "-1", "failure")

    def test_tens_clamp_to_max(self) -> None:
        """bonus="+5" clamps to tens.max (2)."""
        out = attrs(
            check(COC, '[skill_check: skill="Spot Hidden" bonus="+5"]', INVESTIGATOR, [3, 7, 2, 9])
        )
        assert out["bonus"] == "+2" and len((out["rolls"] or "").split("|")) == 3


class TestOverrides:
    def test_thief_skills_roll_a_d100(self) -> None:
        """An override naming the skill swaps its dice for 1d100."""
        out = attrs(check(OLD, '[skill_check: skill="Open Locks"]', None, [42]))
        assert out["dice"] == "1d100"

    def test_x_in_6(self) -> None:
        """Open Doors rolls a d6 under its bonus (X-in-6)."""
        state = snapshot({"Ana": {"skills": {"open_doors": {"tier": "base", "bonus": 2}}}})
        out = attrs(check(OLD, '[skill_check: skill="Open Doors"]', state, [2]))
        assert (out["dice"], out["dc"], out["result"]) == ("1d6", "2", "success")

    def test_other_checks_keep_the_ruleset_dice(self) -> None:
        """A check no override names rolls the ruleset's own d20."""
        out = attrs(check(OLD, '[skill_check: ability="Strength"]', None, [12]))
        assert out["dice"] == "1d20"

    def test_when_reads_the_rollers_sheet(self) -> None:
        """An override with when applies only when that sheet value is not 0."""
        elf = snapshot({"Eli": {"fields": {"elf": 1}}})
        human = snapshot({"Hal": {"fields": {"elf": 0}}})
        assert attrs(check(OLD, '[skill_check: skill="Search"]', elf, [3]))["dice"] == "1d6"
        assert attrs(check(OLD, '[skill_check: skill="Search"]', human, [3]))["dice"] == "1d20"
