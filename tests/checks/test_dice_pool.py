"""dice-pool checks (000, "dice-pool: tirar los dados y contarlos", "target.from: opcional",
"Qué puede escribir el Game Master en una prueba de reserva"; ENGINE-NOTES §3)."""

from __future__ import annotations

import copy
import json
from typing import Any

from gmtags import Ruleset, load_ruleset
from gmtags.checks.dice_pool import Reroll, choose_reroll
from gmtags.ruleset.resolution import RerollRule, StandingReroll
from tests.checks.conftest import CHECKS, attrs, check, ruleset, snapshot

EXWOD = ruleset("checks/exwod.json")
LF = ruleset("checks/lasers-feelings.json")
BRAM = snapshot(
    {"Bram": {"abilities": {"sinew": 2, "nerve": 3, "warmth": 2}, "skills": {"ward": "rating_1"}}}
)
WARD = '[skill_check: skill="Ward" dc="{dc}"{extra}]'


def ward(dc: int = 2, extra: str = "") -> str:
    return WARD.format(dc=dc, extra=f" {extra}" if extra else "")


def variant(**changes: Any) -> Ruleset:
    """The exWoD-like ruleset with resolution keys replaced (None deletes one)."""
    data = json.loads((CHECKS / "checks" / "exwod.json").read_text())
    resolution = copy.deepcopy(data["resolution"])
    for key, value in changes.items():
        if value is None:
            resolution.pop(key, None)
        else:
            resolution[key] = value
    data["resolution"] = resolution
    return load_ruleset(data)


class TestPoolSize:
    def test_sheet_number_is_the_pool(self) -> None:
        """Nerve 3 and a rating of 1 throw four dice; each die at 7 or more is a success."""
        out = attrs(check(EXWOD, ward(), BRAM, [8, 3, 7, 2]))
        assert (out["rolls"], out["used"], out["total"], out["modifier"]) == (
            "8|3|7|2",
            "2",
            "2",
            "0",
        )
        assert (out["result"], out["resolution"], out["dice"]) == ("success", "successes", "4d10")
        assert (out["threshold"], out["pool"]) == ("7", "4")

    def test_bonus_clamps_to_situational_dice(self) -> None:
        """bonus= adds dice within situationalDice (−3..+3); the receipt writes what was used."""
        out = attrs(check(EXWOD, ward(extra='bonus="+9"'), BRAM, [2] * 7))
        assert (out["bonus"], out["pool"], out["dice"]) == ("+3", "7", "7d10")

    def test_stranger_throws_pool_min(self) -> None:
        """A stranger reads nothing from a sheet: the pool is pool.min."""
        out = attrs(check(EXWOD, '[skill_check: skill="Ward" who="Nobody"]', BRAM, [8]))
        assert (out["pool"], out["dice"], out["result"]) == ("1", "1d10", "success")

    def test_ability_plus_ability(self) -> None:
        """abilityPlusAbility: an ability check with with= throws both abilities."""
        text = '[skill_check: ability="Nerve" with="Warmth"]'
        out = attrs(check(EXWOD, text, BRAM, [2] * 5))
        assert (out["pool"], out["with"]) == ("5", "Warmth")

    def test_empty_pool_fails_without_rolling(self) -> None:
        """pool.min 0: a pool of no dice fails without rolling, and is no botch."""
        rules = variant(pool={"min": 0, "max": 15})
        out = attrs(check(rules, '[skill_check: skill="Ward" who="Nobody"]', BRAM, []))
        assert (out["rolls"], out["dice"], out["pool"], out["result"]) == (
            "",
            "0d10",
            "0",
            "failure",
        )

    def test_advantage_is_ignored(self) -> None:
        """mode="advantage" means nothing on a pool: one throw, no mode in the receipt."""
        out = attrs(check(EXWOD, ward(extra='mode="advantage"'), BRAM, [8, 3, 7, 2]))
        assert "mode" not in out and out["rolls"] == "8|3|7|2"


class TestCounting:
    def test_ones_cancel(self) -> None:
        """A face ≤ cancel.upTo takes one success away."""
        out = attrs(check(EXWOD, ward(), BRAM, [8, 1, 7, 2]))
        assert (out["used"], out["result"]) == ("1", "failure")

    def test_cancel_never_below_zero(self) -> None:
        """Cancelling never takes the count below zero."""
        out = attrs(check(EXWOD, ward(), BRAM, [8, 1, 1, 1]))
        assert out["total"] == "0"

    def test_tens_explode_in_a_chain(self) -> None:
        """A face ≥ explode.from throws another die, which may explode again; all are counted."""
        out = attrs(check(EXWOD, ward(), BRAM, [10, 3, 2, 5, 10, 4]))
        assert (out["rolls"], out["dice"], out["used"]) == ("10|3|2|5|10|4", "6d10", "2")

    def test_exploded_ones_cancel(self) -> None:
        """Misread 1: a 1 on an exploded die cancels too."""
        out = attrs(check(EXWOD, ward(dc=1), BRAM, [10, 3, 2, 5, 1]))
        assert (out["used"], out["result"]) == ("0", "failure")

    def test_explosions_stop_at_pool_max(self) -> None:
        """Misread 3: extra dice stop at pool.max, so a check throws at most twice pool.max."""
        rules = variant(pool={"min": 1, "max": 2}, exceptional=None)
        out = attrs(check(rules, ward(), BRAM, [10, 10, 10, 10]))
        assert (out["dice"], out["used"], out["pool"]) == ("4d10", "4", "2")

    def test_double_counts_twice(self) -> None:
        """double: a face ≥ double.from counts two successes."""
        rules = variant(double={"from": 10}, explode=None)
        out = attrs(check(rules, ward(dc=2), BRAM, [10, 7, 2, 3]))
        assert (out["used"], out["result"], out["dice"]) == ("3", "success", "4d10")

    def test_min_without_from_fires_only_when_asked(self) -> None:
        """A rule with `min` and no `from` fires only when a check asks for it."""
        rules = variant(explode={"min": 9})
        assert attrs(check(rules, ward(), BRAM, [10, 3, 2, 5]))["dice"] == "4d10"
        out = attrs(check(rules, ward(extra='explode="9"'), BRAM, [10, 3, 2, 5, 4]))
        assert (out["dice"], out["explode"]) == ("5d10", "9")


class TestTarget:
    def test_threshold_moves_the_target(self) -> None:
        """threshold= moves the per-die target; the receipt writes the target used."""
        out = attrs(check(EXWOD, ward(extra='threshold="9"'), BRAM, [8, 9, 3, 2]))
        assert (out["threshold"], out["used"]) == ("9", "1")

    def test_threshold_clamps(self) -> None:
        """An out-of-range threshold= clamps to target.min..max."""
        out = attrs(check(EXWOD, ward(extra='threshold="3"'), BRAM, [5, 4, 3, 2]))
        assert (out["threshold"], out["used"]) == ("5", "1")

    def test_grim_rung_sets_successes_and_target(self) -> None:
        """difficulty="Grim": three successes needed, each die at 8."""
        text = '[skill_check: skill="Ward" difficulty="Grim"]'
        out = attrs(check(EXWOD, text, BRAM, [8, 8, 9, 7]))
        assert (out["dc"], out["threshold"], out["difficulty"], out["result"]) == (
            "3",
            "8",
            "Grim",
            "success",
        )

    def test_dc_matching_one_rung_takes_its_target(self) -> None:
        """Misread 5: dc= needing exactly one rung's successes counts at that rung's target."""
        out = attrs(check(EXWOD, ward(dc=1), BRAM, [6, 2, 3, 4]))
        assert (out["threshold"], out["result"]) == ("6", "success")
        assert "difficulty" not in out

    def test_threshold_beats_rung(self) -> None:
        """threshold= written beside difficulty= wins for the target."""
        text = '[skill_check: skill="Ward" difficulty="Grim" threshold="7"]'
        assert attrs(check(EXWOD, text, BRAM, [2, 2, 2, 2]))["threshold"] == "7"

    def test_dc_clamps_to_most_countable(self) -> None:
        """dc= is 1 to pool.max, doubled with explosions (30 here)."""
        assert attrs(check(EXWOD, ward(dc=99), BRAM, [2] * 4))["dc"] == "30"
        assert attrs(check(EXWOD, ward(dc=0), BRAM, [2] * 4))["dc"] == "1"

    def test_untrained_harder_raises_target(self) -> None:
        """002: an untrained "harder" check needs one more on each die, within target.max."""
        out = attrs(check(EXWOD, '[skill_check: skill="Listen" dc="2"]', BRAM, [7, 8, 2]))
        assert (out["threshold"], out["result"]) == ("8", "failure")


class TestBotch:
    def test_no_success_and_a_one_is_a_botch(self) -> None:
        """noSuccesses: no die succeeded and one shows ≤ botch.upTo: critical failure."""
        out = attrs(check(EXWOD, ward(), BRAM, [1, 2, 3, 4]))
        assert out["result"] == "critical_failure"

    def test_cancelled_success_is_not_a_botch(self) -> None:
        """Misread 2: a pool whose only success was cancelled fails, but does not botch."""
        out = attrs(check(EXWOD, ward(dc=1), BRAM, [7, 1, 2, 3]))
        assert (out["used"], out["result"]) == ("0", "failure")

    def test_half_or_more_with_a_success_is_a_complication(self) -> None:
        """halfOrMore with a success: the result stands and complication="true" is written."""
        rules = variant(botch={"upTo": 1, "rule": "halfOrMore"}, cancel=None)
        out = attrs(check(rules, ward(dc=1), BRAM, [1, 1, 7, 3]))
        assert (out["result"], out["complication"]) == ("success", "true")

    def test_half_or_more_without_success_botches(self) -> None:
        """halfOrMore with no success is a critical failure."""
        rules = variant(botch={"upTo": 1, "rule": "halfOrMore"})
        out = attrs(check(rules, ward(), BRAM, [1, 1, 2, 3]))
        assert out["result"] == "critical_failure"

    def test_half_or_more_reads_first_thrown_dice(self) -> None:
        """halfOrMore counts the first-thrown dice only; an exploded 1 does not make half."""
        rules = variant(botch={"upTo": 1, "rule": "halfOrMore"}, cancel=None)
        out = attrs(check(rules, ward(dc=1), BRAM, [1, 10, 4, 3, 1]))
        assert "complication" not in out and out["result"] == "success"

    def test_botch_lands_in_worst_tier(self) -> None:
        """With tiers, a botch lands in the worst tier and stays critical."""
        tiers = {
            "by": "margin",
            "tiers": [
                {"id": "win", "label": "Win", "atLeast": 0, "success": True},
                {"id": "loss", "label": "Loss"},
            ],
        }
        out = attrs(check(variant(outcomes=tiers), ward(), BRAM, [1, 2, 3, 4]))
        assert (out["result"], out["outcome"]) == ("critical_failure", "Loss")


class TestExceptional:
    def test_five_net_successes_are_critical(self) -> None:
        """exceptional: five net successes on a passed check are a critical success."""
        out = attrs(check(EXWOD, ward(dc=1), BRAM, [8, 9, 10, 7, 8]))
        assert (out["used"], out["result"]) == ("5", "critical_success")

    def test_tiers_omit_exceptional(self) -> None:
        """A pool with tiers omits exceptional: the tier decides."""
        tiers = {
            "by": "total",
            "tiers": [
                {"id": "win", "label": "Win", "atLeast": 1, "success": True},
                {"id": "loss", "label": "Loss"},
            ],
        }
        out = attrs(check(variant(outcomes=tiers), ward(dc=1), BRAM, [8, 9, 10, 7, 8]))
        assert (out["result"], out["outcome"]) == ("success", "Win")


class TestReroll:
    def test_careful_rethrows_low_faces_once(self) -> None:
        """reroll="careful": faces ≤ 6 are thrown again once and the new face stays."""
        out = attrs(check(EXWOD, ward(extra='reroll="careful"'), BRAM, [8, 3, 7, 9, 5]))
        assert (out["rolls"], out["used"], out["rerolled"], out["reroll"]) == (
            "8|3|7|9|5",
            "3",
            "1",
            "careful",
        )

    def test_unknown_reroll_is_ignored(self) -> None:
        """A reroll= no entry answers to is ignored."""
        out = attrs(check(EXWOD, ward(extra='reroll="lucky"'), BRAM, [8, 3, 7, 9]))
        assert "reroll" not in out and "rerolled" not in out

    def test_reroll_named_only_when_it_rethrew(self) -> None:
        """The receipt names reroll= only when the standing one re-threw something."""
        out = attrs(check(EXWOD, ward(extra='reroll="CAREFUL"'), BRAM, [8, 7, 9, 10, 8]))
        assert "reroll" not in out

    def test_until_keeps_throwing(self) -> None:
        """until: a re-thrown face ≤ upTo is thrown again until it comes up higher."""
        rules = variant(reroll=[{"id": "grind", "upTo": 6, "mode": "until"}])
        out = attrs(check(rules, ward(extra='reroll="grind"'), BRAM, [8, 3, 7, 9, 2, 4, 9]))
        assert (out["used"], out["rerolled"]) == ("4", "1")

    def test_higher_up_to_wins(self) -> None:
        """Misread 4: against a bought re-throw, the higher upTo wins; a tie goes to until."""
        careful = Reroll(StandingReroll(id="careful", upTo=6, mode="once"), "careful")
        assert choose_reroll(careful, RerollRule(upTo=1, mode="once")) is careful
        bought = RerollRule(upTo=6, mode="until")
        assert choose_reroll(careful, bought) == Reroll(bought)


class TestStances:
    RIO = snapshot(
        {
            "Rio": {
                "skills": {"lasers": "expert"},
                "fields": {"number": 4},
                "lists": {"tricks": [{"name": "Bluff", "rating": 1}]},
            }
        }
    )

    def test_lasers_counts_below(self) -> None:
        """Lasers counts dice below the character's Number; exactly it is LASER FEELINGS."""
        out = attrs(check(LF, '[skill_check: skill="Lasers"]', self.RIO, [2, 4]))
        assert (out["threshold"], out["used"], out["exact"], out["outcome"]) == (
            "4",
            "2",
            "1",
            "Success",
        )

    def test_feelings_counts_above(self) -> None:
        """Feelings counts dice above the Number."""
        out = attrs(check(LF, '[skill_check: skill="Feelings"]', self.RIO, [3]))
        assert (out["used"], out["result"], out["outcome"]) == ("0", "failure", "Failure")

    def test_threshold_cannot_move_target_from(self) -> None:
        """Misread 6: threshold= cannot move a target read from the sheet."""
        out = attrs(check(LF, '[skill_check: skill="Feelings" threshold="2"]', self.RIO, [5]))
        assert (out["threshold"], out["outcome"]) == ("4", "Success at a cost")

    def test_row_check_in_a_stance(self) -> None:
        """004, 1.212: a list row check counts in its own stance."""
        text = '[skill_check: skill="Bluff" bonus="1"]'
        out = attrs(check(LF, text, self.RIO, [5, 6, 4]))
        assert (out["pool"], out["used"], out["result"], out["outcome"]) == (
            "3",
            "3",
            "critical_success",
            "Critical success",
        )

    def test_stances_skip_cancel_and_botch(self) -> None:
        """Stances skip cancel and botch: a 1 under Lasers is a success, never a botch."""
        data = json.loads((CHECKS / "checks" / "exwod.json").read_text())
        data["resolution"]["stances"] = [
            {"id": "low", "label": "Low", "count": "below", "skills": ["ward"]}
        ]
        out = attrs(check(load_ruleset(data), ward(dc=1), BRAM, [1, 9, 8, 10]))
        assert (out["used"], out["result"], out["dice"]) == ("1", "success", "4d10")
