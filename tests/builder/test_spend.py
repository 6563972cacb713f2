"""Spend steps (004, 1.153–1.164; BUILDER D2–D18): offers bought from a creation pool, one
ledger line per step, with the seed's own examples."""

from __future__ import annotations

from typing import Any

from gmtags.builder.kinds.spend import MAX_LINES
from tests.builder.spending import build, entry, lines, offer, pool, ruleset, spend

ACCOUNTING = offer("accounting", {"field": "accounting_value"}, 5, 99, cost={"flat": 1})
GURPS_ST = offer("st", {"ability": "st"}, 7, 14, direction="both", baseline=10, cost={"flat": 10})
SPEED = offer(
    "speed",
    {"field": "basic_speed"},
    5,
    5.5,
    cost={"table": [[5, 0], [5.25, 5], [5.5, 12]]},
)
WIS_TO_INT = offer(
    "wis_to_int",
    {"ability": "int"},
    3,
    18,
    exchange={"from": {"ability": "wis"}, "units": 2, "floor": 9},
)
OSE = {"abilities": {"int": 9, "wis": 13}}


def prices(result: Any, name: str) -> list[int]:
    return [line["price"] for line in lines(result, name)]


class TestCosts:
    def test_flat_accounting_from_its_base(self) -> None:
        """CoC Accounting, flat 1, min 5, max 99: three points raise its free base 5 to 8."""
        rules = ruleset([spend(ACCOUNTING)], [pool("points", 10)])
        result = build(rules, {"accounting": 3})
        assert result.card["fields"]["accounting_value"] == 8
        assert prices(result, "accounting") == [1, 1, 1]
        assert result.pools["points"] == {"budget": 10, "spent": 3, "credit": 0, "remaining": 7}

    def test_starting_values_are_never_charged(self) -> None:
        """D2: a value the player wrote is where buying starts, free."""
        rules = ruleset([spend(ACCOUNTING)], [pool("points", 10)])
        result = build(rules, {"accounting": 2}, card={"fields": {"accounting_value": 40}})
        assert result.card["fields"]["accounting_value"] == 42
        assert result.pools["points"]["spent"] == 2

    def test_per_rank_genesys_talent(self) -> None:
        """perRank 5: the next rank times five, so 2 → 3 costs 15, then 3 → 4 costs 20."""
        talent = offer("talent", {"field": "talent"}, 0, 5, cost={"perRank": 5})
        rules = ruleset([spend(talent)], [pool("points", 100)])
        result = build(rules, {"talent": 2})
        assert prices(result, "talent") == [15, 20]
        assert result.card["fields"]["talent"] == 4

    def test_table_gurps_basic_speed(self) -> None:
        """A table steps to the adjacent value for the difference: 5, then 7."""
        rules = ruleset([spend(SPEED)], [pool("points", 20)])
        result = build(rules, {"speed": 2})
        assert prices(result, "speed") == [5, 7]
        assert [line["delta"] for line in lines(result, "speed")] == [0.25, 0.25]
        assert result.card["fields"]["basic_speed"] == 5.5
        assert entry(result)["inactive"] == []

    def test_table_past_its_end(self) -> None:
        """A buy past the table's last value is inactive, kept in the ledger."""
        rules = ruleset([spend(SPEED)], [pool("points", 20)])
        result = build(rules, {"speed": 3})
        assert [line["active"] for line in lines(result, "speed")] == [True, True, False]
        assert result.card["fields"]["basic_speed"] == 5.5
        assert entry(result)["pending"] == 1

    def test_overrides_first_positive_wins(self) -> None:
        """An override whose condition reads above 0 prices the offer; none, the base price."""
        talent = offer(
            "talent",
            {"field": "talent"},
            0,
            5,
            cost={"perRank": 5},
            overrides=[
                {"when": {"field": "affinity"}, "cost": {"perRank": 2}},
                {"when": {"field": "noble"}, "cost": {"perRank": 1}},
            ],
        )
        rules = ruleset([spend(talent)], [pool("points", 100)])
        assert prices(build(rules, {"talent": 1}), "talent") == [15]
        card = {"fields": {"affinity": 1, "noble": 1}}
        assert prices(build(rules, {"talent": 1}, card=card), "talent") == [6]

    def test_allowed_ratings_jump_at_the_curve_price(self) -> None:
        """A Merit sold at 1, 3 or 5 dots: each buy goes to the next allowed value."""
        merit = offer("merit", {"field": "merit"}, 0, 5, cost={"flat": 2}, allowedRatings=[1, 3, 5])
        rules = ruleset([spend(merit)], [pool("points", 20)])
        result = build(rules, {"merit": 2})
        assert [line["delta"] for line in lines(result, "merit")] == [1, 2]
        assert prices(result, "merit") == [2, 4]
        assert result.card["fields"]["merit"] == 3

    def test_a_skill_target_writes_its_tier(self) -> None:
        """A skill target's number is the index in its rating map."""
        athletics = offer("athletics", {"skill": "athletics"}, 0, 2, cost={"perRank": 5})
        rules = ruleset([spend(athletics)], [pool("points", 20)])
        result = build(rules, {"athletics": 2})
        assert result.card["skills"]["athletics"] == "expert"
        assert prices(result, "athletics") == [5, 10]


class TestBounds:
    def test_above_max_is_inactive(self) -> None:
        """A buy past max is kept, inactive, and the badge counts it."""
        rules = ruleset([spend(ACCOUNTING)], [pool("points", 200)])
        result = build(rules, {"accounting": 95})
        assert sum(line["active"] for line in lines(result, "accounting")) == 94
        assert result.card["fields"]["accounting_value"] == 99
        assert entry(result)["inactive"][0]["answer"] == "accounting"

    def test_min_from_bought_up_in_one_purchase(self) -> None:
        """Credit Rating's least value from the occupation: one line from 0 to 10 (§3.15)."""
        credit = offer(
            "credit",
            {"field": "credit_rating"},
            0,
            99,
            cost={"flat": 1},
            minFrom={"field": "credit_floor"},
        )
        rules = ruleset([spend(credit)], [pool("points", 30)])
        unbought = build(rules, {})
        assert entry(unbought)["pending"] == 1
        result = build(rules, {"credit": 2})
        assert [(line["delta"], line["price"]) for line in lines(result, "credit")] == [
            (10, 10),
            (1, 1),
        ]
        assert result.card["fields"]["credit_rating"] == 11
        assert entry(result)["pending"] == 0

    def test_max_from_stops_the_buys(self) -> None:
        """Dodge stops at DEX: maxFrom within max."""
        dodge = offer(
            "guns", {"field": "guns"}, 0, 20, cost={"flat": 1}, maxFrom={"abilityScore": "dx"}
        )
        rules = ruleset([spend(dodge)], [pool("points", 30)])
        result = build(rules, {"guns": 12})
        assert result.card["fields"]["guns"] == 10
        assert [line["active"] for line in lines(result, "guns")].count(False) == 2

    def test_when_closed_keeps_saved_buys_inactive(self) -> None:
        """1.155: an offer whose when reads 0 is not offered; saved buys stay, inactive."""
        guns = offer("guns", {"field": "guns"}, 0, 20, cost={"flat": 1}, when={"field": "noble"})
        rules = ruleset([spend(guns)], [pool("points", 30)])
        result = build(rules, {"guns": 2})
        assert "guns" not in entry(result)["offered"]
        assert [line["active"] for line in lines(result, "guns")] == [False, False]
        assert result.pools["points"]["remaining"] == 30
        assert "guns" not in result.card.get("fields", {})
        opened = build(rules, {"guns": 2}, card={"fields": {"noble": 1}})
        assert opened.card["fields"]["guns"] == 2

    def test_a_line_cap(self) -> None:
        """D14: at most 1,000 lines an offer."""
        assert MAX_LINES == 1000


class TestCredit:
    def test_gurps_st_lowered_returns_credit(self) -> None:
        """direction both: ST 10 → 8 returns 20 points of credit within the credit limit."""
        rules = ruleset([spend(GURPS_ST)], [pool("points", 30, creditLimit=40)])
        result = build(rules, {"st": -2})
        assert result.card["abilities"]["st"] == 8
        assert [(line["delta"], line["price"]) for line in lines(result, "st")] == [
            (-1, -10),
            (-1, -10),
        ]
        assert result.pools["points"] == {"budget": 30, "spent": 0, "credit": 20, "remaining": 50}

    def test_gurps_st_raised_costs_the_curve(self) -> None:
        """direction both: ST 10 → 12 costs 20."""
        rules = ruleset([spend(GURPS_ST)], [pool("points", 30, creditLimit=40)])
        result = build(rules, {"st": 2})
        assert result.card["abilities"]["st"] == 12
        assert result.pools["points"]["remaining"] == 10

    def test_raising_a_lowered_value_returns_its_credit(self) -> None:
        """ST lowered by two, then raised by one: the last credit line goes, exactly."""
        rules = ruleset([spend(GURPS_ST)], [pool("points", 30, creditLimit=40)])
        lowered = build(rules, {"st": -2})
        raised = build(rules, {"st": -1}, card=lowered.card)
        assert lines(raised, "st") == lines(lowered, "st")[:1]
        assert raised.pools["points"]["credit"] == 10
        assert raised.card["abilities"]["st"] == 9

    def test_buying_then_lowering_never_makes_credit(self) -> None:
        """ST raised by one, then lowered by one: the purchase goes, no credit is made."""
        rules = ruleset([spend(GURPS_ST)], [pool("points", 30, creditLimit=40)])
        bought = build(rules, {"st": 1})
        back = build(rules, {"st": 0}, card=bought.card)
        assert back.ledger == []
        assert back.pools["points"] == {"budget": 30, "spent": 0, "credit": 0, "remaining": 30}

    def test_gurps_st_not_below_its_min(self) -> None:
        """min 7: the fourth step down is inactive."""
        rules = ruleset([spend(GURPS_ST)], [pool("points", 30, creditLimit=40)])
        result = build(rules, {"st": -4})
        assert [line["active"] for line in lines(result, "st")] == [True, True, True, False]
        assert result.card["abilities"]["st"] == 7

    def test_lowering_without_credit_limit(self) -> None:
        """creditLimit defaults to 0: lowering gives nothing and is inactive."""
        rules = ruleset([spend(GURPS_ST)], [pool("points", 30)])
        result = build(rules, {"st": -1})
        assert [line["active"] for line in lines(result, "st")] == [False]
        assert "abilities" not in result.card or result.card["abilities"].get("st") in (None, 10)

    def test_baseline_must_be_the_start(self) -> None:
        """§3.17: a start other than the baseline leaves the offer not configured."""
        rules = ruleset([spend(GURPS_ST)], [pool("points", 30, creditLimit=40)])
        result = build(rules, {"st": 1}, card={"abilities": {"st": 11}})
        assert lines(result, "st")[0]["active"] is False
        assert "not configured" in entry(result)["inactive"][0]["reason"]

    def test_a_reduction(self) -> None:
        """credit, baseline 10, min 6, max 10, flat 1: 10 → 9 records one point of credit."""
        reduction = offer(
            "weak", {"ability": "dx"}, 6, 10, credit=True, baseline=10, cost={"flat": 1}
        )
        rules = ruleset([spend(reduction)], [pool("points", 5, creditLimit=4)])
        result = build(rules, {"weak": -1})
        assert result.card["abilities"]["dx"] == 9
        assert lines(result, "weak") == [
            {"step": "buy", "offer": "weak", "delta": -1, "price": -1, "active": True}
        ]
        raised = build(rules, {"weak": 1})
        assert lines(raised, "weak")[0]["active"] is False

    def test_a_flaw_credit_past_its_cap(self) -> None:
        """A flaw whose value rises gives credit; the cap counts gross credit: the third
        point past `maxCredit` 2 is inactive, whatever is spent elsewhere."""
        flaw = offer(
            "flaw", {"field": "flaw"}, 0, 10, credit=True, cost={"flat": -1}, tags=["flaw"]
        )
        rules = ruleset(
            [spend(flaw, ACCOUNTING)],
            [pool("points", 5, creditLimit=6, caps=[{"filter": "flaw", "maxCredit": 2}])],
        )
        result = build(rules, {"accounting": 5, "flaw": 3})
        assert [line["active"] for line in lines(result, "flaw")] == [True, True, False]
        assert result.card["fields"]["flaw"] == 2
        assert result.pools["points"] == {"budget": 5, "spent": 5, "credit": 2, "remaining": 2}
        assert "cap" in lines(result, "flaw")[2]["reason"]

    def test_credit_funds_an_earlier_purchase(self) -> None:
        """Credit offers are counted before the paid ones, whatever their order."""
        flaw = offer("flaw", {"field": "flaw"}, 0, 10, credit=True, cost={"flat": -1})
        rules = ruleset([spend(ACCOUNTING, flaw)], [pool("points", 2, creditLimit=3)])
        result = build(rules, {"accounting": 5, "flaw": 3})
        assert all(line["active"] for line in result.ledger)
        assert [line["offer"] for line in result.ledger][:5] == ["accounting"] * 5
        assert result.pools["points"]["remaining"] == 0


class TestLedger:
    def test_lowering_a_bought_value_removes_its_last_line(self) -> None:
        """Lowering by one after buying three leaves exactly the first two lines."""
        rules = ruleset([spend(ACCOUNTING)], [pool("points", 10)])
        three = build(rules, {"accounting": 3})
        two = build(rules, {"accounting": 2}, card=three.card)
        assert lines(two, "accounting") == lines(three, "accounting")[:2]
        assert two.card["fields"]["accounting_value"] == 7

    def test_an_overspent_pool_keeps_its_lines(self) -> None:
        """The budget falls: the pool shows its spend and negative remaining, the lines it
        cannot cover are inactive and kept, and the badge asks for the repair."""
        rules = ruleset([spend(ACCOUNTING)], [pool("points", {"field": "budget"})])
        bought = build(rules, {"accounting": 20})
        assert bought.pools["points"]["remaining"] == 10
        card = {**bought.card, "fields": {**bought.card["fields"], "budget": 15}}
        fallen = build(rules, {"accounting": 20}, card=card)
        assert fallen.pools["points"] == {"budget": 15, "spent": 20, "credit": 0, "remaining": -5}
        active = [line["active"] for line in lines(fallen, "accounting")]
        assert active == [True] * 15 + [False] * 5
        assert fallen.card["fields"]["accounting_value"] == 20
        assert entry(fallen)["pending"] >= 2
        assert len(lines(fallen, "accounting")) == 20

    def test_saved_prices_hold_and_the_new_one_is_proposed(self) -> None:
        """D15: a price that changed since keeps the line at what was paid; Reprice (taking
        the saved purchases out of the card) prices it anew."""
        talent = offer(
            "talent",
            {"field": "talent"},
            0,
            5,
            cost={"perRank": 5},
            overrides=[{"when": {"field": "affinity"}, "cost": {"perRank": 2}}],
        )
        rules = ruleset([spend(talent)], [pool("points", 100)])
        first = build(rules, {"talent": 1})
        card = {**first.card, "fields": {**first.card["fields"], "affinity": 1}}
        again = build(rules, {"talent": 2}, card=card)
        assert prices(again, "talent") == [15, 8]
        assert lines(again, "talent")[0]["proposed"] == 6
        repriced = {**card, "builder": {**card["builder"], "purchases": {}}}
        assert prices(build(rules, {"talent": 2}, card=repriced), "talent") == [6, 8]

    def test_unknown_offer_is_a_problem(self) -> None:
        rules = ruleset([spend(ACCOUNTING)], [pool("points", 10)])
        result = build(rules, {"nothing": 1})
        assert result.problems == [
            {"path": "steps.buy.buys.nothing", "message": "names no offer of step 'buy'"}
        ]
        assert entry(result)["inactive"] == [
            {"answer": "nothing", "reason": "not an offer of this step"}
        ]

    def test_unpriced_offer(self) -> None:
        """1.207: shown with a note, never bought; the pool does not move; the badge asks."""
        guns = offer("guns", {"field": "guns"}, 0, 20, cost={"unpriced": True})
        rules = ruleset([spend(guns)], [pool("points", 10)])
        result = build(rules, {"guns": 2})
        assert [line["active"] for line in lines(result, "guns")] == [False, False]
        assert result.pools["points"]["remaining"] == 10
        assert any("unpriced" in reason for reason in entry(result)["reasons"])
        assert entry(build(rules, {}))["pending"] == 1

    def test_hand_edit_keeps_its_difference(self) -> None:
        """A numeric spend target keeps the player's difference (BUILDER §3.7)."""
        rules = ruleset([spend(ACCOUNTING)], [pool("points", 10)])
        three = build(rules, {"accounting": 3})
        card = {**three.card, "fields": {**three.card["fields"], "accounting_value": 10}}
        four = build(rules, {"accounting": 4}, card=card)
        assert four.card["fields"]["accounting_value"] == 11
        assert four.dropped == []
        back = build(rules, {"accounting": 3}, card=four.card)
        assert back.card["fields"]["accounting_value"] == 10


class TestOwnershipAndExchange:
    def test_ownership_keeps_the_higher(self) -> None:
        """A GURPS familiarity: paid and listed though the sheet's value is better; the sheet
        keeps max(own value, bought level); refunding costs the sheet nothing."""
        guns = offer("guns", {"field": "guns"}, 0, 20, cost={"flat": 1}, effect="ownership")
        rules = ruleset([spend(guns)], [pool("points", 10)])
        better = build(rules, {"guns": 2}, card={"fields": {"guns": 12}})
        assert better.card["fields"]["guns"] == 12
        assert better.pools["points"]["spent"] == 2
        assert "guns" in entry(better)["active"]
        lower = build(rules, {"guns": 4}, card={"fields": {"guns": 3}})
        assert lower.card["fields"]["guns"] == 4
        refunded = build(rules, {}, card=lower.card)
        assert refunded.card["fields"]["guns"] == 3

    def test_ose_exchange(self) -> None:
        """wis_to_int: each buy lowers WIS by 2 and raises INT by 1, free, never below 9."""
        rules = ruleset([spend(WIS_TO_INT)], [pool("points", 0)])
        result = build(rules, {"wis_to_int": 2}, card=OSE)
        assert result.card["abilities"] == {"int": 11, "wis": 9}
        assert result.pools["points"]["spent"] == 0
        past = build(rules, {"wis_to_int": 3}, card=OSE)
        assert [line["active"] for line in lines(past, "wis_to_int")] == [True, True, False]
        refund = build(rules, {}, card=result.card)
        assert refund.card["abilities"] == {"int": 9, "wis": 13}

    def test_exchanged_points_are_never_exchanged_again(self) -> None:
        """Once an exchange raised INT, no other exchange lowers it."""
        int_to_st = offer(
            "int_to_st",
            {"ability": "st"},
            3,
            18,
            exchange={"from": {"ability": "int"}, "units": 2, "floor": 9},
        )
        rules = ruleset([spend(WIS_TO_INT, int_to_st)], [pool("points", 0)])
        result = build(rules, {"wis_to_int": 1, "int_to_st": 1}, card=OSE)
        assert lines(result, "int_to_st")[0]["active"] is False
        assert result.card["abilities"]["int"] == 10


class TestSharedTargets:
    def test_a_target_bought_from_two_pools(self) -> None:
        """D15: when the occupation pool's Accounting buys no longer hold, the interest
        pool's buys of it, made on top, wait for the repair."""
        interest = {**ACCOUNTING, "id": "accounting_too"}
        rules = ruleset(
            [
                spend(ACCOUNTING, step="occupation", pool_id="occupation"),
                spend(interest, step="interest", pool_id="interest"),
            ],
            [pool("occupation", {"field": "budget"}), pool("interest", 5)],
        )
        answers = {
            "occupation": {"buys": {"accounting": 3}},
            "interest": {"buys": {"accounting_too": 2}},
        }
        both = build(rules, **answers)
        assert both.card["fields"]["accounting_value"] == 10
        fallen = build(rules, card={"fields": {"budget": 2}}, **answers)
        assert [line["active"] for line in lines(fallen, "accounting_too")] == [False, False]
        assert fallen.card["fields"]["accounting_value"] == 7
        assert "waits for pool 'occupation'" in entry(fallen, "interest")["inactive"][0]["reason"]
