"""Paying inside a check (000, "Gastar para cambiar una tirada", "Un amuleto que cambia una
tirada", "Todo o nada."; ENGINE-NOTES §5)."""

from __future__ import annotations

import json
from typing import Any

from gmtags import Ruleset, Snapshot, load_ruleset, process
from gmtags.checks.spend import read_spend
from tests.checks.conftest import CHECKS, attrs, check, ruleset, snapshot

GRAVEWATCH = ruleset("reference/gravewatch.json")


def bram(pools: dict[str, int] | None = None, picks: list[str] | None = None) -> Snapshot:
    """Bram: Nerve 3 and Ward rating 2 throw five dice; Resolve 5 at most."""
    card = {
        "abilities": {"sinew": 2, "nerve": 3, "warmth": 2},
        "skills": {"ward": "rating_2"},
        "picks": picks or [],
    }
    live = {"bram": {"pools": pools}} if pools is not None else {}
    return snapshot({"Bram": card}, rulesetLive=live)


def gravewatch(**spend: Any) -> Ruleset:
    """Gravewatch with its one spend entry's keys replaced."""
    data = json.loads((CHECKS / "reference" / "gravewatch.json").read_text())
    data["resolution"]["spend"][0].update(spend)
    return load_ruleset(data)


def resolve(state: Snapshot) -> int | None:
    entry = state.ruleset_live.get("bram")
    return None if entry is None else entry.pools.get("resolve")


class TestReadSpend:
    def test_pool_and_amount(self) -> None:
        """spend="pool:N" reads as the pool and N."""
        assert read_spend("resolve:2", 9) == ("resolve", 2)

    def test_an_over_long_amount_reads_as_the_largest(self) -> None:
        """SPEC §8: an amount longer than the digits bound reads as the largest such number."""
        assert read_spend("resolve:99999999999999", 9) == ("resolve", 999_999_999)

    def test_bad_shapes_are_nothing(self) -> None:
        """Anything but pool:N with N ≥ 1 buys nothing."""
        assert [read_spend(t, 9) for t in ("resolve", ":2", "resolve:0", "resolve:x", None)] == [
            None
        ] * 5


class TestStandingSpend:
    def test_one_point_buys_one_success(self) -> None:
        """spend="resolve:1": one automatic success, added after counting; the pool is paid."""
        text = '[skill_check: skill="Ward" dc="3" spend="resolve:1"]'
        result = process(text, GRAVEWATCH, bram(), seed=1)
        out = dict(result.receipts[0].outputs)
        assert (out["spend"], out["auto"]) == ("resolve:1", "1")
        assert resolve(result.snapshot) == 4

    def test_bought_successes_survive_cancels(self) -> None:
        """Misread 10: bought successes are added after cancelling, so ones cannot take them."""
        text = '[skill_check: skill="Ward" dc="1" spend="resolve:1"]'
        out = attrs(check(GRAVEWATCH, text, bram(), [7, 1, 1, 2, 3]))
        assert (out["used"], out["auto"], out["result"]) == ("1", "1", "success")

    def test_pool_named_by_label(self) -> None:
        """The pool is matched by id or label, ignoring case."""
        text = '[skill_check: skill="Ward" dc="3" spend="RESOLVE:1"]'
        assert attrs(check(GRAVEWATCH, text, bram(), [2] * 5))["spend"] == "resolve:1"

    def test_per_check_clamps(self) -> None:
        """Asking for more than perCheck is clamped, not refused: only two points are paid."""
        text = '[skill_check: skill="Ward" dc="3" spend="resolve:5"]'
        result = process(text, GRAVEWATCH, bram(), seed=1)
        out = dict(result.receipts[0].outputs)
        assert (out["spend"], out["auto"], resolve(result.snapshot)) == ("resolve:2", "2", 3)

    def test_unaffordable_buys_nothing(self) -> None:
        """Todo o nada: a pool that cannot cover the cost buys nothing and is charged nothing."""
        text = '[skill_check: skill="Ward" dc="3" spend="resolve:2"]'
        state = bram({"resolve": 1})
        result = process(text, GRAVEWATCH, state, seed=1)
        out = dict(result.receipts[0].outputs)
        assert "spend" not in out and "auto" not in out
        assert result.snapshot == state

    def test_partial_purchase_buys_nothing(self) -> None:
        """Points that are not a whole number of purchases buy nothing."""
        rules = gravewatch(amount=2)
        text = '[skill_check: skill="Ward" dc="3" spend="resolve:3"]'
        result = process(text, rules, bram(), seed=1)
        assert "spend" not in dict(result.receipts[0].outputs)
        assert resolve(result.snapshot) is None

    def test_per_check_pool_is_the_sheet_number(self) -> None:
        """perCheck "pool": as many purchases as the sheet's number (five dice here)."""
        rules = gravewatch(perCheck="pool")
        text = '[skill_check: skill="Ward" dc="3" spend="resolve:9"]'
        assert attrs(check(rules, text, bram(), [2] * 5))["auto"] == "5"

    def test_per_check_sheet_value(self) -> None:
        """perCheck as a sheet value is read for the roller (Nerve 3)."""
        rules = gravewatch(perCheck={"abilityScore": "nerve"})
        text = '[skill_check: skill="Ward" dc="3" spend="resolve:9"]'
        assert attrs(check(rules, text, bram(), [2] * 5))["auto"] == "3"

    def test_dice_are_thrown_with_the_pool(self) -> None:
        """A spend buying dice throws them with the pool."""
        rules = gravewatch(successes=None, dice=1)
        text = '[skill_check: skill="Ward" dc="3" spend="resolve:2"]'
        out = attrs(check(rules, text, bram(), [2] * 7))
        assert (out["pool"], out["dice"], out.get("auto")) == ("7", "7d10", None)

    def test_reroll_is_bought_once(self) -> None:
        """A bought reroll is made once however many purchases are made."""
        rules = gravewatch(successes=None, reroll={"upTo": 1, "mode": "once"})
        text = '[skill_check: skill="Ward" dc="3" spend="resolve:2"]'
        out = attrs(check(rules, text, bram(), [1, 8, 3, 2, 4, 9]))
        assert (out["rolls"], out["rerolled"], out["used"]) == ("1|8|3|2|4|9", "1", "2")
        assert "reroll" not in out

    def test_stranger_buys_nothing(self) -> None:
        """A stranger has no pools: nothing is bought."""
        text = '[skill_check: skill="Ward" dc="3" who="Nobody" spend="resolve:1"]'
        assert "spend" not in attrs(check(GRAVEWATCH, text, bram(), [2]))

    def test_unknown_pool_buys_nothing(self) -> None:
        """A pool no spend entry names buys nothing."""
        text = '[skill_check: skill="Ward" dc="3" spend="blood:1"]'
        assert "spend" not in attrs(check(GRAVEWATCH, text, bram(), [2] * 5))

    def test_two_checks_spend_in_order(self) -> None:
        """Two checks in one reply spend from a running live state: the second finds it empty."""
        text = (
            '[skill_check: skill="Ward" dc="3" spend="resolve:1"] '
            '[skill_check: skill="Ward" dc="3" spend="resolve:1"]'
        )
        result = process(text, GRAVEWATCH, bram({"resolve": 1}), seed=1)
        first, second = (dict(r.outputs) for r in result.receipts)
        assert first["spend"] == "resolve:1" and "spend" not in second
        assert resolve(result.snapshot) == 0


class TestCharm:
    def test_scales_with_per_cost_step(self) -> None:
        """Steady Hand with spend="resolve:2": two successes, the ones thrown again once."""
        text = '[skill_check: skill="Ward" dc="3" use="Steady Hand" spend="resolve:2"]'
        state = bram(picks=["charms/steady-hand"])
        out = attrs(check(GRAVEWATCH, text, state, [1, 8, 3, 2, 4, 9]))
        assert (out["use"], out["spend"], out["auto"], out["rerolled"], out["used"]) == (
            "Steady Hand",
            "resolve:2",
            "2",
            "1",
            "4",
        )

    def test_charm_pays_from_the_pool(self) -> None:
        """The charm's price is paid from the live pool."""
        text = '[skill_check: skill="Ward" dc="3" use="Steady Hand" spend="resolve:2"]'
        result = process(text, GRAVEWATCH, bram(picks=["charms/steady-hand"]), seed=1)
        assert resolve(result.snapshot) == 3

    def test_without_per_cost_step_applies_once(self) -> None:
        """Misread 11: without perCostStep the entry applies once and costs its price once."""
        text = '[skill_check: skill="Ward" dc="3" use="Grave Sight" spend="resolve:3" explode="9"]'
        state = bram(picks=["charms/grave-sight"])
        result = process(text, GRAVEWATCH, state, seed=1)
        out = dict(result.receipts[0].outputs)
        assert (out["spend"], out["explode"]) == ("resolve:1", "8")
        assert resolve(result.snapshot) == 4

    def test_charm_explode_beats_the_tag(self) -> None:
        """A used entry's explode wins over the GM's explode=: eights roll again."""
        text = '[skill_check: skill="Ward" dc="3" use="Grave Sight" explode="9"]'
        state = bram(picks=["charms/grave-sight"])
        out = attrs(check(GRAVEWATCH, text, state, [8, 2, 2, 2, 2, 3]))
        assert (out["dice"], out["explode"]) == ("6d10", "8")

    def test_not_picked_does_nothing(self) -> None:
        """A charm the character did not pick does nothing and costs nothing."""
        text = '[skill_check: skill="Ward" dc="3" use="Steady Hand" spend="resolve:2"]'
        result = process(text, GRAVEWATCH, bram(), seed=1)
        out = dict(result.receipts[0].outputs)
        assert "use" not in out and "spend" not in out
        assert resolve(result.snapshot) is None

    def test_use_replaces_the_standing_spend(self) -> None:
        """With use= the standing spend is not bought: only the charm's effect applies."""
        text = '[skill_check: skill="Ward" dc="3" use="Grave Sight" spend="resolve:1"]'
        out = attrs(check(GRAVEWATCH, text, bram(picks=["charms/grave-sight"]), [2] * 5))
        assert "auto" not in out and out["use"] == "Grave Sight"

    def test_unaffordable_charm_does_nothing(self) -> None:
        """Todo o nada: a charm whose price the pool cannot pay does nothing."""
        text = '[skill_check: skill="Ward" dc="3" use="Steady Hand" spend="resolve:2"]'
        state = bram({"resolve": 1}, picks=["charms/steady-hand"])
        result = process(text, GRAVEWATCH, state, seed=1)
        assert "use" not in dict(result.receipts[0].outputs)
        assert result.snapshot == state


class TestHighestSpend:
    def test_dice_highest_buys_dice(self) -> None:
        """000: a dice-highest spend buys dice only, thrown with the pool."""
        data = json.loads((CHECKS / "sheets" / "crows.json").read_text())
        data["sheet"]["live"]["pools"] = [{"id": "grit", "label": "Grit", "max": {"const": 2}}]
        data["resolution"]["spend"] = [{"pool": "grit", "amount": 1, "dice": 1, "perCheck": 1}]
        rules = load_ruleset(data)
        state = snapshot({"Vex": {"abilities": {"hunt": 2}}})
        text = '[skill_check: ability="Hunt" spend="grit:1"]'
        result = process(text, rules, state, seed=1)
        out = dict(result.receipts[0].outputs)
        assert (out["pool"], out["spend"]) == ("3", "grit:1")
        assert result.snapshot.ruleset_live["vex"].pools == {"grit": 1}
