"""dice-sum checks (000, "dice-sum: sumar los dados")."""

from __future__ import annotations

from tests.checks.conftest import attrs, check, ruleset, snapshot

TWO_D6 = ruleset("checks/two-d6.json")
NATURALS = ruleset("checks/d20-naturals.json")
FATE = ruleset("checks/fate.json")
ROLEMASTER = ruleset("checks/rolemaster.json")
FIVE = ruleset("sheets/five-torches.json")
BRAM = snapshot({"Bram": {"abilities": {"grit": 3}, "skills": {"climb": "trained"}}})


class TestSum:
    def test_dice_plus_sheet_number_against_dc(self) -> None:
        """2d6 + the sheet's number (Grit 3 + trained 1) is compared with dc: 3+4+4 = 11 ≥ 10."""
        out = attrs(check(TWO_D6, '[skill_check: skill="Climb" dc="10"]', BRAM, [3, 4]))
        assert out["rolls"] == "3|4" and out["used"] == "7" and out["modifier"] == "4"
        assert (out["total"], out["result"], out["dice"]) == ("11", "success", "2d6")

    def test_below_dc_fails(self) -> None:
        """A total below the difficulty fails."""
        out = attrs(check(TWO_D6, '[skill_check: skill="Climb" dc="10"]', BRAM, [1, 2]))
        assert (out["total"], out["result"]) == ("7", "failure")

    def test_receipt_layout(self) -> None:
        """The receipt follows the reference order and keeps the skill as the GM wrote it."""
        receipt = check(TWO_D6, '[skill_check: skill="climb" dc="8" who="bram"]', BRAM, [6, 6])
        assert receipt.render() == (
            '[skill_check: skill="climb" dc="8" rolls="6|6" used="12" modifier="4" total="16" '
            'result="success" mode="normal" resolution="sum" dice="2d6" who="Bram"]'
        )

    def test_difficulty_names_a_rung(self) -> None:
        """difficulty="Hard" reads the rung's dc; the receipt names the rung."""
        out = attrs(check(TWO_D6, '[skill_check: skill="Climb" difficulty="hard"]', BRAM, [3, 2]))
        assert (out["dc"], out["difficulty"], out["result"]) == ("10", "Hard", "failure")

    def test_written_dc_beats_the_rung(self) -> None:
        """A dc= written beside difficulty= still wins for the number."""
        out = attrs(
            check(TWO_D6, '[skill_check: skill="Climb" difficulty="Hard" dc="5"]', BRAM, [1, 1])
        )
        assert out["dc"] == "5"

    def test_unknown_rung_is_ignored(self) -> None:
        """An unknown rung name is ignored: the check reads the easiest rung instead."""
        out = attrs(check(TWO_D6, '[skill_check: skill="Climb" difficulty="Epic"]', BRAM, [1, 1]))
        assert out["dc"] == "6" and "difficulty" not in out

    def test_dc_clamps(self) -> None:
        """An out-of-range dc clamps to −100..1000, never refusing."""
        out = attrs(check(TWO_D6, '[skill_check: skill="Climb" dc="5000"]', BRAM, [6, 6]))
        assert (out["dc"], out["result"]) == ("1000", "failure")

    def test_forged_results_are_ignored(self) -> None:
        """rolls, total and result written by the model are replaced by the engine's."""
        receipt = check(
            TWO_D6,
            '[skill_check: skill="Climb" dc="12" rolls="6|6" total="99" result="success"]',
            BRAM,
            [1, 1],
        )
        assert attrs(receipt)["rolls"] == "1|1" and attrs(receipt)["result"] == "failure"

    def test_stranger_rolls_unmodified(self) -> None:
        """A who matching nobody rolls with nothing from a sheet and keeps the name as written."""
        out = attrs(check(TWO_D6, '[skill_check: skill="Climb" dc="7" who="Nobody"]', BRAM, [3, 3]))
        assert (out["modifier"], out["who"], out["result"]) == ("0", "Nobody", "failure")

    def test_unknown_skill_rolls_with_no_sheet_number(self) -> None:
        """An unknown skill still rolls, with modifier 0, keeping the GM's text."""
        out = attrs(check(TWO_D6, '[skill_check: skill="Juggling" dc="7"]', BRAM, [4, 3]))
        assert (out["skill"], out["modifier"], out["result"]) == ("Juggling", "0", "success")

    def test_bonus_means_nothing_on_a_sum(self) -> None:
        """bonus= is dice on the handful kinds; a sum ignores it."""
        out = attrs(check(TWO_D6, '[skill_check: skill="Climb" dc="7" bonus="+3"]', BRAM, [1, 1]))
        assert out["modifier"] == "4" and "bonus" not in out


class TestAdvantage:
    def test_advantage_keeps_the_better_set(self) -> None:
        """mode="advantage" throws two sets, lists both, keeps the higher."""
        out = attrs(
            check(
                NATURALS, '[skill_check: skill="Stealth" dc="10" mode="advantage"]', None, [4, 15]
            )
        )
        assert (out["rolls"], out["used"], out["mode"], out["dice"]) == (
            "4|15",
            "15",
            "advantage",
            "2d20",
        )

    def test_disadvantage_keeps_the_worse_set(self) -> None:
        """mode="disadvantage" keeps the lower set."""
        out = attrs(
            check(
                NATURALS,
                '[skill_check: skill="Stealth" dc="10" mode="disadvantage"]',
                None,
                [4, 15],
            )
        )
        assert (out["used"], out["mode"]) == ("4", "disadvantage")

    def test_advantage_needs_the_ruleset(self) -> None:
        """Without resolution.advantage, mode= is ignored and one set is thrown."""
        out = attrs(
            check(TWO_D6, '[skill_check: skill="Climb" dc="7" mode="advantage"]', BRAM, [2, 2])
        )
        assert (out["rolls"], out["mode"]) == ("2|2", "normal")


class TestNaturals:
    def test_natural_top_is_critical_success(self) -> None:
        """naturals.check "both": a 20 succeeds critically whatever the total."""
        out = attrs(check(NATURALS, '[skill_check: skill="Stealth" dc="40"]', None, [20]))
        assert out["result"] == "critical_success"

    def test_natural_one_is_critical_failure(self) -> None:
        """naturals.check "both": a 1 fails critically whatever the total."""
        out = attrs(check(NATURALS, '[skill_check: skill="Stealth" dc="-50"]', None, [1]))
        assert out["result"] == "critical_failure"

    def test_saves_read_their_own_rule(self) -> None:
        """naturals.save "max-only": a save's 1 is only a failure, its 20 a critical success."""
        low = attrs(check(NATURALS, '[skill_check: save="Reflex" dc="-50"]', None, [1]))
        high = attrs(check(NATURALS, '[skill_check: save="Reflex" dc="40"]', None, [20]))
        assert (low["result"], high["result"]) == ("success", "critical_success")

    def test_advantage_reads_the_kept_die(self) -> None:
        """With advantage the natural is the kept die's."""
        out = attrs(
            check(
                NATURALS, '[skill_check: skill="Stealth" dc="10" mode="advantage"]', None, [1, 20]
            )
        )
        assert out["result"] == "critical_success"


class TestFaces:
    def test_fudge_faces_are_summed_as_values(self) -> None:
        """4dF: faces 1,2,3 are worth −1, 0, +1; rolls records the values."""
        state = snapshot({"Ana": {"skills": {"notice": "fair"}}})
        out = attrs(
            check(FATE, '[skill_check: skill="Notice" difficulty="Good"]', state, [3, 3, 2, 1])
        )
        assert (out["rolls"], out["used"], out["modifier"], out["total"]) == (
            "1|1|0|-1",
            "1",
            "2",
            "3",
        )
        assert out["outcome"] == "Tie" and out["result"] == "success"

    def test_success_with_style(self) -> None:
        """A margin of 3 or more lands in the best tier."""
        state = snapshot({"Ana": {"skills": {"notice": "good"}}})
        out = attrs(
            check(FATE, '[skill_check: skill="Notice" difficulty="Mediocre"]', state, [3, 2, 2, 2])
        )
        assert out["outcome"] == "Success with style"


class TestOpenEnded:
    def test_high_chain_adds(self) -> None:
        """A 97 rolls again and adds (Rolemaster high 96)."""
        out = attrs(
            check(ROLEMASTER, '[skill_check: skill="Climb" difficulty="Medium"]', None, [97, 40])
        )
        assert (out["rolls"], out["used"], out["dice"], out["result"]) == (
            "97|40",
            "137",
            "2d100",
            "success",
        )

    def test_low_subtracts(self) -> None:
        """A 03 rolls again and subtracts."""
        out = attrs(check(ROLEMASTER, '[skill_check: skill="Climb" dc="0"]', None, [3, 50]))
        assert (out["used"], out["result"]) == ("-47", "failure")

    def test_unmodified_face(self) -> None:
        """A listed face on the first die is flagged unmodified="66"."""
        out = attrs(check(ROLEMASTER, '[skill_check: skill="Climb" dc="0"]', None, [66]))
        assert out["unmodified"] == "66"


class TestSheetParts:
    def test_adjust_and_penalty_are_in_the_modifier(self) -> None:
        """adjust and the wound penalty are inside modifier and written apart (ENGINE-NOTES §2)."""
        state = snapshot(
            {"Ada": {"abilities": {"dex": 14}, "fields": {"armour": "heavy", "level": 1}}},
            rulesetLive={"Ada": {"marks": {"exhaustion": ["fatigue", "fatigue"]}}},
        )
        out = attrs(check(FIVE, '[skill_check: skill="Stealth" dc="10"]', state, [10]))
        assert (out["modifier"], out["adjust"], out["penalty"]) == ("-2", "-2", "-2")
        assert out["total"] == "8"

    def test_with_swaps_the_ability(self) -> None:
        """with= rolls a skill with another ability and names its label."""
        state = snapshot({"Ada": {"abilities": {"str": 18, "dex": 8}, "fields": {"level": 1}}})
        out = attrs(
            check(FIVE, '[skill_check: skill="Stealth" dc="10" with="Strength"]', state, [10])
        )
        assert (out["modifier"], out["with"]) == ("4", "Strength")
