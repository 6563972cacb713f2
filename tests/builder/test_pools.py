"""Creation pools and priced picks (004, 1.153 and 1.159; BUILDER D1, D9, D19), and the
ledger's invariants as property tests."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.builder.spending import build, entry, lines, offer, pool, ruleset, spend

ACCOUNTING = offer("accounting", {"field": "accounting_value"}, 5, 99, cost={"flat": 1})
CREDIT = offer("credit", {"field": "credit_rating"}, 0, 99, cost={"flat": 1})
ST = offer("st", {"ability": "st"}, 7, 14, direction="both", baseline=10, cost={"flat": 10})
FLAW = offer("flaw", {"field": "flaw"}, 0, 10, credit=True, cost={"flat": -1}, tags=["flaw"])
TALENT = offer("talent", {"field": "talent"}, 0, 5, cost={"perRank": 5})


def gifts(**more: Any) -> dict[str, Any]:
    step = {"id": "gifts", "label": "Gifts", "kind": "catalog", "catalog": "gifts", "min": 0}
    return step | {"max": 4, "pool": "bonus", "cost": {"filter": "tier"}} | more


class TestPools:
    def test_every_pool_is_listed(self) -> None:
        """D1: `res.pools` holds each declared pool, the one no step pays from too."""
        rules = ruleset([spend(ACCOUNTING)], [pool("points", 10), pool("other", 4)])
        result = build(rules, {})
        assert result.pools == {
            "points": {"budget": 10, "spent": 0, "credit": 0, "remaining": 10},
            "other": {"budget": 4, "spent": 0, "credit": 0, "remaining": 4},
        }

    def test_a_pool_no_shown_step_pays_from_is_there_at_its_budget(self) -> None:
        """004: "Declara hasta 12 reservas de creación en sheet.builder.pools": each pool is
        there from the start at its budget, nothing spent, though the only step paying from
        it is hidden (`when` reads 0) and nothing is answered."""
        hidden = spend(ACCOUNTING) | {"when": {"field": "noble"}}
        rules = ruleset([hidden], [pool("points", 10), pool("other", 4)])
        result = build(rules)
        assert result.pools == {
            "points": {"budget": 10, "spent": 0, "credit": 0, "remaining": 10},
            "other": {"budget": 4, "spent": 0, "credit": 0, "remaining": 4},
        }
        assert entry(result)["shown"] is False and entry(result)["reasons"] == []

    def test_an_unused_pool_reads_its_budget_on_the_sheet(self) -> None:
        """004: "Los presupuestos son referencias de valor no vivas": an unused pool's budget
        is read on the sheet as a used one's is; out of range, "sin configurar" (budget 0)."""
        hidden = spend(ACCOUNTING) | {"when": {"field": "noble"}}
        rules = ruleset([hidden], [pool("points", {"field": "budget"})])
        read = build(rules, card={"fields": {"budget": 12}})
        assert read.pools["points"] == {"budget": 12, "spent": 0, "credit": 0, "remaining": 12}
        beyond = build(rules, card={"fields": {"budget": 150_000}})
        assert beyond.pools["points"] == {"budget": 0, "spent": 0, "credit": 0, "remaining": 0}

    def test_steps_share_a_pool_and_separate_pools_stay_apart(self) -> None:
        """Occupation and personal interest: two steps on one pool add up; another pool's
        points never mix with them."""
        rules = ruleset(
            [
                spend(ACCOUNTING, step="occupation", pool_id="occupation"),
                spend(CREDIT, step="more", pool_id="occupation"),
                spend({**CREDIT, "id": "credit2"}, step="interest", pool_id="interest"),
            ],
            [pool("occupation", 10), pool("interest", 5)],
        )
        answers = {
            "occupation": {"buys": {"accounting": 4}},
            "more": {"buys": {"credit": 3}},
            "interest": {"buys": {"credit2": 2}},
        }
        result = build(rules, **answers)
        assert result.pools["occupation"]["remaining"] == 3
        assert result.pools["interest"]["remaining"] == 3
        assert result.card["fields"]["credit_rating"] == 5

    def test_a_budget_from_the_sheet(self) -> None:
        """A budget is a non-live reference read on the sheet before purchases."""
        rules = ruleset([spend(ACCOUNTING)], [pool("points", {"field": "budget"})])
        result = build(rules, {"accounting": 1}, card={"fields": {"budget": 12}})
        assert result.pools["points"]["budget"] == 12

    def test_a_budget_out_of_range_is_not_configured(self) -> None:
        """A budget past 100,000 (or not whole) leaves the pool not configured: nothing is
        bought and each step of it says so."""
        rules = ruleset([spend(ACCOUNTING)], [pool("points", {"field": "budget"})])
        result = build(rules, {"accounting": 1}, card={"fields": {"budget": 150_000}})
        assert result.pools["points"]["budget"] == 0
        assert lines(result, "accounting")[0]["active"] is False
        assert any("not configured" in reason for reason in entry(result)["reasons"])
        assert result.card.get("fields", {}).get("accounting_value") is None

    def test_unspent_points_are_informative(self) -> None:
        """Points left over never raise a badge."""
        rules = ruleset([spend(ACCOUNTING)], [pool("points", 10)])
        assert entry(build(rules, {"accounting": 1}))["pending"] == 0


class TestPricedPicks:
    def test_a_pick_is_paid_from_its_pool(self) -> None:
        """A catalog step's `{filter: tier}` price is the entry's own tier."""
        rules = ruleset([gifts()], [pool("bonus", 5)])
        result = build(rules, step="gifts", gifts={"picks": ["river", "ember"]})
        assert result.pools["bonus"]["spent"] == 3
        assert [(line["offer"], line["price"]) for line in result.ledger] == [
            ("river", 2),
            ("ember", 1),
        ]

    def test_a_pick_the_pool_cannot_pay_is_not_offered(self) -> None:
        """1.159: with 2 points left, the tier-3 entry is not offered; a saved pick of it is
        inactive, kept in the answers."""
        rules = ruleset([gifts()], [pool("bonus", 3)])
        result = build(rules, gifts={"picks": ["ember"]})
        assert "stone" not in entry(result, "gifts")["offered"]
        assert "river" in entry(result, "gifts")["offered"]
        saved = build(rules, gifts={"picks": ["ember", "stone"]})
        assert entry(saved, "gifts")["active"] == ["ember"]
        assert entry(saved, "gifts")["inactive"] == [
            {"answer": "stone", "reason": "pool 'bonus' cannot pay it"}
        ]
        assert saved.pools["bonus"]["remaining"] == 2
        assert entry(saved, "gifts")["pending"] == 1
        assert [row["name"] for row in saved.card["lists"]["gifts"]] == ["ember"]

    def test_the_earliest_picks_hold(self) -> None:
        """Picks are paid in selection order: the later one the pool cannot pay is out."""
        rules = ruleset([gifts()], [pool("bonus", 4)])
        result = build(rules, gifts={"picks": ["stone", "river"]})
        assert entry(result, "gifts")["active"] == ["stone"]

    def test_a_credit_pick_funds_traits_within_the_limit(self) -> None:
        """A negative price is credit, within the pool's creditLimit."""
        rules = ruleset([gifts()], [pool("bonus", 1, creditLimit=2)])
        result = build(rules, gifts={"picks": ["river", "taint"]})
        assert entry(result, "gifts")["active"] == ["river", "taint"]
        assert result.pools["bonus"] == {"budget": 1, "spent": 2, "credit": 2, "remaining": 1}
        closed = ruleset([gifts()], [pool("bonus", 1)])
        assert "taint" not in entry(build(closed, gifts={"picks": []}), "gifts")["offered"]

    def test_priced_picks_are_paid_first(self) -> None:
        """A pick leaves the pool overspent: the spend lines wait, the pick holds."""
        rules = ruleset([gifts(), spend(ACCOUNTING, pool_id="bonus")], [pool("bonus", 4)])
        result = build(rules, {"accounting": 2}, gifts={"picks": ["stone"]})
        assert entry(result, "gifts")["active"] == ["stone"]
        assert [line["active"] for line in lines(result, "accounting")] == [True, False]
        assert result.pools["bonus"]["remaining"] == -1
        assert entry(result, "gifts")["pending"] == 1


# ---------------------------------------------------------------------------
# properties

RULES = ruleset(
    [spend(ACCOUNTING, ST, FLAW, TALENT)],
    [pool("points", 40, creditLimit=25, caps=[{"filter": "flaw", "maxCredit": 3}])],
)
OFFERS = ("accounting", "st", "flaw", "talent")
moves = st.lists(st.tuples(st.sampled_from(OFFERS), st.sampled_from((1, -1))), max_size=14)


def net(sequence: list[tuple[str, int]]) -> dict[str, int]:
    """The answers' net steps after a sequence of buys (+1) and refunds (−1)."""
    buys: dict[str, int] = {}
    for name, step in sequence:
        buys[name] = buys.get(name, 0) + step
    return {name: steps for name, steps in buys.items() if steps}


class TestProperties:
    @settings(max_examples=40, deadline=None)
    @given(moves)
    def test_remaining_is_budget_less_the_lines_plus_credit(
        self, sequence: list[tuple[str, int]]
    ) -> None:
        """remaining = budget − Σ price of the lines that hold (or wait on the pool); with
        nothing overspent, exactly the active lines."""
        card: dict[str, Any] | None = None
        for end in range(len(sequence) + 1):
            result = build(RULES, net(sequence[:end]), card=card)
            card = result.card
            account = result.pools["points"]
            counted = [
                line
                for line in result.ledger
                if line["active"] or line.get("reason") == "pool 'points' cannot pay it"
            ]
            assert account["remaining"] == 40 - sum(line["price"] for line in counted)
            assert account["remaining"] == account["budget"] - account["spent"] + account["credit"]
            assert account["credit"] <= 25
            if account["remaining"] >= 0:
                active = [line for line in result.ledger if line["active"]]
                assert account["remaining"] == 40 - sum(line["price"] for line in active)

    @settings(max_examples=40, deadline=None)
    @given(moves, st.sampled_from(OFFERS), st.sampled_from((1, -1)))
    def test_refund_after_buy_returns_the_exact_card(
        self, sequence: list[tuple[str, int]], name: str, step: int
    ) -> None:
        """One more step and its refund give back the card byte for byte."""
        before = build(RULES, net(sequence))
        after = build(RULES, net([*sequence, (name, step)]), card=before.card)
        back = build(RULES, net(sequence), card=after.card)
        assert json.dumps(back.card) == json.dumps(before.card)
        assert back.ledger == before.ledger

    @settings(max_examples=25, deadline=None)
    @given(moves)
    def test_the_same_answers_give_the_same_card(self, sequence: list[tuple[str, int]]) -> None:
        """Byte for byte, and again from the card it wrote."""
        one = build(RULES, net(sequence))
        two = build(RULES, net(sequence))
        assert json.dumps(one.card) == json.dumps(two.card)
        again = build(RULES, net(sequence), card=one.card)
        assert json.dumps(again.card) == json.dumps(one.card)


class TestTheSample:
    def test_budgets_read_after_the_allocate_stages(self) -> None:
        """D7: the point-based sample's occupation pool is Intelligence × 20, read once the
        attribute dots are in, and its Credit Rating is bought up to its occupation's floor
        in one purchase."""
        from gmtags import build_character, load_ruleset
        from tests.builder.samples import points

        rules = load_ruleset(points())
        attributes = {
            "priorities": {"physical": 0, "social": 1, "mental": 2},
            "dots": {"ability/intelligence": 2},
        }
        answers = {
            "v": 1,
            "seed": 3,
            "steps": {
                "attributes": attributes,
                "occupation_skills": {"buys": {"accounting": 3, "credit": 1}},
            },
        }
        result = build_character(rules, answers)
        assert result.pools["occupation"] == {
            "budget": 60,
            "spent": 13,
            "credit": 0,
            "remaining": 47,
        }
        assert result.card["fields"]["credit_rating"] == 10
        assert result.card["fields"]["accounting_value"] == 8
