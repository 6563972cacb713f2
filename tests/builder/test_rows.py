"""The `rows` step (`gmtags.builder.kinds.rows`; 004 "Filas con nombre", BUILDER E1–E8): one
test per rule with 004's examples, the retainers (min 1, max 4, role "Hireling") and the 5e
hit point rolls (one row per level after the first, `countFrom`)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from gmtags import Ruleset, load_ruleset
from gmtags.builder.build import BuildResult, build_character
from tests.builder.samples import BUILDERS, five_e, points, step

COC: dict[str, Any] = json.loads((BUILDERS / "coc-builder.json").read_text(encoding="utf-8"))


def coc(**changes: Any) -> Ruleset:
    """The CoC builder sample, its retainers step changed by `changes`."""
    data = copy.deepcopy(COC)
    step(data, "retainers").update(changes)
    return load_ruleset(data)


@pytest.fixture(scope="module")
def retainers() -> Ruleset:
    return coc()


@pytest.fixture(scope="module")
def hit_points() -> Ruleset:
    return load_ruleset(five_e())


def answers(**steps: dict[str, Any]) -> dict[str, Any]:
    return {"v": 1, "seed": 11, "steps": steps}


def entry(result: BuildResult, step_id: str) -> dict[str, Any]:
    return next(s for s in result.steps if s["id"] == step_id)


def listed(result: BuildResult, list_id: str) -> list[dict[str, Any]]:
    return list(result.card.get("lists", {}).get(list_id, []))


def hp(level: int, **answer: Any) -> dict[str, Any]:
    """5e answers at `level` with the hit point step's answer."""
    return answers(level={"fields": {"level": level}}, hit_points=answer)


class TestRowsStep:
    def test_e1_answered_rows_are_written_to_the_list(self, retainers: Ruleset) -> None:
        """004: a rows step adds the player's own rows to one of the sheet's lists."""
        result = build_character(retainers, answers(retainers={"rows": [{"name": "Bob"}]}))
        assert listed(result, "retainers") == [
            {"name": "Bob", "role": "Hireling", "loyalty": 5, "_pick": "retainers", "_row": 0}
        ]
        assert entry(result, "retainers")["active"] == [0]

    def test_e2_a_row_counts_once_its_required_columns_are_filled(self, retainers: Ruleset) -> None:
        """004: `required` names the columns a row must fill to count; a blank one does not."""
        rows = [{"role": "Guard"}, {"name": "  "}, {"name": "Ann"}]
        result = build_character(retainers, answers(retainers={"rows": rows}))
        assert entry(result, "retainers")["active"] == [2]
        assert entry(result, "retainers")["pending"] == 2  # each half-written row counts
        assert len(listed(result, "retainers")) == 3  # …and stays on the card, unresolved

    def test_e3_the_badge_counts_rows_missing_below_min(self, retainers: Ruleset) -> None:
        """004: the badge counts the complete rows still missing below `min`, shown N of M."""
        result = build_character(retainers, answers())
        assert (entry(result, "retainers")["pending"], entry(result, "retainers")["reasons"]) == (
            1,
            ["0 of 1"],
        )
        two = build_character(coc(min=2), answers(retainers={"rows": [{"name": "Bob"}]}))
        assert entry(two, "retainers")["pending"] == 1
        assert entry(two, "retainers")["reasons"] == ["1 of 2"]

    def test_e4_max_stops_add_a_row(self, retainers: Ruleset) -> None:
        """004: `max` stops Add a row: a fifth retainer is kept in the answers, inactive."""
        rows = [{"name": f"R{n}"} for n in range(5)]
        result = build_character(retainers, answers(retainers={"rows": rows}))
        assert [r["name"] for r in listed(result, "retainers")] == ["R0", "R1", "R2", "R3"]
        assert entry(result, "retainers")["inactive"] == [
            {"answer": 4, "reason": "the step takes at most 4 rows"}
        ]
        assert len(result.answers["steps"]["retainers"]["rows"]) == 5

    def test_e4_max_never_above_the_lists_max_items(self) -> None:
        """BUILDER §3.27: a `max` above the list's `maxItems` (6) is clamped to it."""
        rows = [{"name": f"R{n}"} for n in range(9)]
        result = build_character(coc(max=20), answers(retainers={"rows": rows}))
        assert len(listed(result, "retainers")) == 6

    def test_e5_a_new_row_takes_the_column_defaults_then_the_steps(
        self, retainers: Ruleset
    ) -> None:
        """004: a new row starts from the columns' defaults (loyalty 5), then `defaults`
        ("Hireling"); what the player writes replaces them."""
        rows = [{"name": "Bob"}, {"name": "Ann", "role": "Guide", "loyalty": 9}]
        result = build_character(retainers, answers(retainers={"rows": rows}))
        cells = [(r["role"], r["loyalty"]) for r in listed(result, "retainers")]
        assert cells == [("Hireling", 5), ("Guide", 9)]

    def test_e6_rows_are_identified_by_position(self, retainers: Ruleset) -> None:
        """004: two retainers named Bob are two rows, and removing one keeps the other."""
        rows = [{"name": "Bob", "loyalty": 2}, {"name": "Bob", "loyalty": 8}]
        both = build_character(retainers, answers(retainers={"rows": rows}))
        assert [r["loyalty"] for r in listed(both, "retainers")] == [2, 8]
        one = build_character(retainers, answers(retainers={"rows": rows[1:]}), both.card)
        assert [(r["name"], r["loyalty"]) for r in listed(one, "retainers")] == [("Bob", 8)]

    def test_e6_rebuilt_never_doubled_and_the_players_own_rows_stay(
        self, retainers: Ruleset
    ) -> None:
        """The step's rows are rebuilt from the answers on the card passed back; a row the
        player wrote in All fields (no `_pick`) stays untouched."""
        ans = answers(retainers={"rows": [{"name": "Bob"}]})
        first = build_character(retainers, ans)
        card = copy.deepcopy(first.card)
        card["lists"]["retainers"].append({"name": "Hand-written", "role": "Cook"})
        again = build_character(retainers, ans, card)
        names = [r["name"] for r in listed(again, "retainers")]
        assert sorted(names) == ["Bob", "Hand-written"]

    def test_a_hidden_step_keeps_its_rows_in_the_answers_and_writes_none(self) -> None:
        """004 (1.151): a hidden step keeps its answers and gives nothing."""
        ruleset = coc(when={"const": 0})
        result = build_character(ruleset, answers(retainers={"rows": [{"name": "Bob"}]}))
        assert listed(result, "retainers") == []
        assert result.answers["steps"]["retainers"]["rows"] == [{"name": "Bob"}]
        assert entry(result, "retainers")["pending"] == 0

    def test_a_cell_that_cannot_be_written_is_a_problem(self, retainers: Ruleset) -> None:
        """A cell of no edited column, or one that does not fit it, is reported and left out."""
        rows = [{"name": "Bob", "loyalty": 40, "mood": "grim"}, {"name": True}]
        result = build_character(retainers, answers(retainers={"rows": rows}))
        assert sorted(p["path"] for p in result.problems) == [
            "steps.retainers.rows.0.loyalty",
            "steps.retainers.rows.0.mood",
            "steps.retainers.rows.1.name",
        ]
        assert listed(result, "retainers")[0]["loyalty"] == 5
        assert entry(result, "retainers")["active"] == [0]

    def test_columns_limit_what_the_step_edits(self) -> None:
        """004: `columns` is the subset of the list's columns the step edits."""
        ruleset = coc(columns=["name", "role"], defaults={"role": "Hireling"})
        rows = [{"name": "Bob", "loyalty": 7}]
        result = build_character(ruleset, answers(retainers={"rows": rows}))
        assert [p["path"] for p in result.problems] == ["steps.retainers.rows.0.loyalty"]
        assert "loyalty" not in listed(result, "retainers")[0]

    def test_e9_priced_rows_are_paid_from_their_pool(self) -> None:
        """004 (1.159): a rows step's cost `{column: cost}` is read from each row and paid from
        the pool; a negative price is credit within the pool's creditLimit (a flaw funds
        merits). Bonus points: a budget of 10, credit up to 6."""
        rows = [{"name": "Iron Will", "cost": 3}, {"name": "Nightmares", "cost": -2}]
        result = build_character(
            load_ruleset(points()), {"v": 1, "seed": 1, "steps": {"traits": {"rows": rows}}}
        )
        assert [r["name"] for r in listed(result, "traits")] == ["Iron Will", "Nightmares"]
        assert result.pools["bonus"]["spent"] - result.pools["bonus"]["credit"] == 1
        lines = [line for line in result.ledger if line["step"] == "traits"]
        assert [(line["offer"], line["price"], line["active"]) for line in lines] == [
            ("0", 3, True),
            ("1", -2, True),
        ]

    def test_e9_a_row_the_pool_cannot_pay_is_not_written(self) -> None:
        """004: "No se ofrece una selección que la reserva no pueda pagar": the row stays in the
        answers, inactive, and counts in the badge."""
        rows = [{"name": "Wealth", "cost": 8}, {"name": "Luck", "cost": 5}]
        result = build_character(
            load_ruleset(points()), {"v": 1, "seed": 1, "steps": {"traits": {"rows": rows}}}
        )
        assert [r["name"] for r in listed(result, "traits")] == ["Wealth"]
        assert entry(result, "traits")["inactive"] == [
            {"answer": 1, "reason": "pool 'bonus' cannot pay it"}
        ]
        assert entry(result, "traits")["pending"] >= 1
        assert result.answers["steps"]["traits"]["rows"] == rows

    def test_e9_removing_a_row_gives_its_price_back(self) -> None:
        ruleset = load_ruleset(points())
        one = [{"name": "Iron Will", "cost": 3}]
        first = build_character(ruleset, {"v": 1, "seed": 1, "steps": {"traits": {"rows": one}}})
        after = build_character(ruleset, {"v": 1, "seed": 1}, first.card)
        assert after.pools["bonus"]["remaining"] == first.pools["bonus"]["remaining"] + 3
        assert listed(after, "traits") == []


class TestCountFrom:
    def test_e8_a_visit_adds_one_row_per_level_after_the_first(self, hit_points: Ruleset) -> None:
        """004: 5e hit point rolls, one per level after the 1st: a visit adds rows as Add a
        row makes them (the columns' defaults) until the player's own rows reach the count."""
        result = build_character(hit_points, hp(5, rows=[{"roll": 7}], visited=True))
        rows = listed(result, "hp_rolls")
        assert [(r["roll"], r["_row"]) for r in rows] == [(7, 0), (1, 1), (1, 2), (1, 3)]
        assert entry(result, "hit_points")["reasons"] == ["4 of 4"]
        assert entry(result, "hit_points")["pending"] == 0
        assert result.answers["steps"]["hit_points"] == {
            "rows": [{"roll": 7}, *[{"level": 2, "roll": 1}] * 3]
        }

    def test_e8_only_when_the_step_is_visited(self, hit_points: Ruleset) -> None:
        """BUILDER §3.14: no rows before the step is shown; the badge still expects them."""
        result = build_character(hit_points, hp(5))
        assert listed(result, "hp_rolls") == []
        assert entry(result, "hit_points")["pending"] == 4
        assert entry(result, "hit_points")["reasons"] == ["0 of 4"]

    def test_e8_never_removes_a_row(self, hit_points: Ruleset) -> None:
        """004: "nunca retira una fila": lowering the level keeps every row."""
        rows = [{"roll": n} for n in range(1, 6)]
        result = build_character(hit_points, hp(2, rows=rows, visited=True))
        assert [r["roll"] for r in listed(result, "hp_rolls")] == [1, 2, 3, 4, 5]
        assert entry(result, "hit_points")["pending"] == 0

    def test_e8_a_deleted_row_stays_deleted_until_the_step_is_shown_again(
        self, hit_points: Ruleset
    ) -> None:
        """004: the visit is used up in the answers, so a row removed after it stays removed;
        the next visit adds it back."""
        first = build_character(hit_points, hp(4, visited=True))
        kept = copy.deepcopy(first.answers)
        assert "visited" not in kept["steps"]["hit_points"]
        kept["steps"]["hit_points"]["rows"].pop()
        removed = build_character(hit_points, kept, first.card)
        assert len(listed(removed, "hp_rolls")) == 2
        assert entry(removed, "hit_points")["pending"] == 1
        kept["steps"]["hit_points"]["visited"] = True
        shown_again = build_character(hit_points, kept, removed.card)
        assert len(listed(shown_again, "hp_rolls")) == 3

    def test_e8_never_beyond_max(self) -> None:
        data = five_e()
        step(data, "hit_points")["max"] = 2
        result = build_character(load_ruleset(data), hp(10, visited=True))
        assert len(listed(result, "hp_rolls")) == 2
        assert entry(result, "hit_points")["reasons"] == ["2 of 2"]

    def test_e8_the_larger_of_min_and_count(self) -> None:
        data = five_e()
        step(data, "hit_points")["min"] = 3
        result = build_character(load_ruleset(data), hp(2, visited=True))
        assert len(listed(result, "hp_rolls")) == 1  # countFrom adds 1…
        assert entry(result, "hit_points")["reasons"] == ["1 of 3"]  # …min asks for 3

    def test_e8_no_rows_for_a_described_character(self, hit_points: Ruleset) -> None:
        """004: "Un personaje que se está describiendo no recibe filas por mirar el paso"."""
        result = build_character(hit_points, {**hp(5, visited=True), "described": True})
        assert listed(result, "hp_rolls") == []

    def test_added_rows_follow_the_steps_own(self, hit_points: Ruleset) -> None:
        """Rows a visit adds take the positions after the step's own rows."""
        result = build_character(hit_points, hp(3, rows=[{"roll": 4}], visited=True))
        assert [r["_row"] for r in listed(result, "hp_rolls")] == [0, 1]
