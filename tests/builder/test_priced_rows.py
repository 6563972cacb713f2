"""Row prices per row and rows copied from a catalog (004, 1.206 and 1.159; BUILDER D19, D20)."""

from __future__ import annotations

from typing import Any

from gmtags import build_character, load_ruleset
from gmtags.builder.build import BuildResult
from tests.builder.samples import points, step


def exalted(cost: Any, *, affinity: int = 1) -> Any:
    """The point-based sample whose traits list gains an `ability` column and whose sheet has
    `affinity_melee` (reading `affinity`), priced by `cost`."""
    data = points()
    traits = next(x for x in data["sheet"]["lists"] if x["id"] == "traits")
    traits["columns"].append({"id": "ability", "label": "Ability", "type": "text", "maxLength": 40})
    traits["columns"].append({"id": "tier", "label": "Tier", "type": "number", "min": 0, "max": 5})
    data["sheet"]["derived"].append(
        {
            "id": "affinity_melee",
            "label": "Melee affinity",
            "op": "sum",
            "of": [{"const": affinity}],
        }
    )
    step(data, "traits")["cost"] = cost
    return load_ruleset(data)


def paid(result: BuildResult) -> list[int]:
    return [line["price"] for line in result.ledger if line["step"] == "traits" and line["active"]]


def build(ruleset: Any, rows: list[dict[str, Any]], **steps: Any) -> BuildResult:
    return build_character(
        ruleset, {"v": 1, "seed": 1, "steps": {"traits": {"rows": rows}, **steps}}
    )


class TestRowPrices:
    def test_genesys_five_a_tier(self) -> None:
        """1.206: { "column": "tier", "times": 5 } prices a Genesys talent 5 XP a tier."""
        ruleset = exalted({"column": "tier", "times": 5})
        rows = [{"name": "Grit", "tier": 1}, {"name": "Dedication", "tier": 1}]
        assert paid(build(ruleset, rows)) == [5, 5]  # 10 Bonus Points: a tier 2 costs 10

    def test_exalted_charm_affinity_override(self) -> None:
        """1.206: `{add: 5, overrides: [{derived: {prefix: affinity_, cell: ability}, cost: 4}]}`:
        a Charm costs 4 Bonus Points while affinity_<its Ability> reads above 0, else 5."""
        cost = {
            "add": 5,
            "overrides": [{"derived": {"prefix": "affinity_", "cell": "ability"}, "cost": 4}],
        }
        rows = [
            {"name": "Blade Dance", "ability": "melee"},
            {"name": "Quiet Step", "ability": "stealth"},
        ]
        assert paid(build(exalted(cost), rows)) == [4, 5]
        assert paid(build(exalted(cost, affinity=0), rows)) == [5, 5]

    def test_an_override_times(self) -> None:
        """1.216: an override's `times` replaces the cost's, per unit."""
        cost = {
            "column": "tier",
            "times": 5,
            "overrides": [{"derived": {"prefix": "affinity_", "cell": "ability"}, "times": 3}],
        }
        rows = [
            {"name": "A", "ability": "melee", "tier": 1},
            {"name": "B", "ability": "x", "tier": 1},
        ]
        assert paid(build(exalted(cost), rows)) == [3, 5]  # melee affinity: 3 a tier, else 5

    def test_a_row_without_a_price_is_not_paid(self) -> None:
        ruleset = exalted({"column": "tier", "times": 5})
        result = build(ruleset, [{"name": "Blank"}])
        (inactive,) = next(s for s in result.steps if s["id"] == "traits")["inactive"]
        assert inactive == {"answer": 0, "reason": "pool 'bonus' cannot pay it"}


class TestRepairBadge:
    def test_an_overspent_pool_is_counted_on_the_rows_step(self) -> None:
        """004: "la insignia de cada paso con precio cuenta la reparación": a trait row paid
        first and merits bought after it leave the pool 3 over; the rows step's badge counts
        the repair as its reason says."""
        data = points()
        data["sheet"]["fields"].append(
            {"id": "merit", "label": "Merit", "type": "number", "min": 0, "max": 20, "default": 0}
        )
        offer = {"id": "merit", "label": "Merit", "target": {"field": "merit"}, "min": 0}
        data["sheet"]["builder"]["steps"].append(
            {
                "id": "merits",
                "label": "Merits",
                "kind": "spend",
                "pool": "bonus",
                "offers": [offer | {"cost": {"flat": 1}, "max": 20}],
            }
        )
        ruleset = load_ruleset(data)
        result = build(ruleset, [{"name": "Wealth", "cost": 8}], merits={"buys": {"merit": 5}})
        assert result.pools["bonus"]["remaining"] == -3
        traits = next(s for s in result.steps if s["id"] == "traits")
        assert traits["reasons"] == ["pool 'bonus' is overspent by 3"]
        assert traits["pending"] == 1


class TestCopiesFromACatalog:
    def test_each_copy_is_its_own_row_with_its_price(self) -> None:
        """004: "el jugador añade una copia de la fila de una entrada tantas veces como quiera, y
        cada copia es una fila propia, con su precio y que se quita por separado"."""
        data = points()
        data["catalogs"].append(
            {
                "id": "charm_book",
                "label": "Charm book",
                "feeds": ["traits"],
                "entries": [
                    {
                        "id": "ox-body",
                        "label": "Ox-Body",
                        "rows": [{"list": "traits", "values": {"name": "Ox-Body", "cost": 2}}],
                    },
                ],
            }
        )
        step(data, "traits")["from"] = "charm_book"
        ruleset = load_ruleset(data)
        twice = build_character(
            ruleset, {"v": 1, "seed": 1, "steps": {"traits": {"picks": ["ox-body", "ox-body"]}}}
        )
        rows = twice.card["lists"]["traits"]
        assert [(r["name"], r["_catalog"], r["_row"]) for r in rows] == [
            ("Ox-Body", "charm_book/ox-body", 0),
            ("Ox-Body", "charm_book/ox-body", 1),
        ]
        assert paid(twice) == [2, 2]
        once = build_character(
            ruleset, {"v": 1, "seed": 1, "steps": {"traits": {"picks": ["ox-body"]}}}, twice.card
        )
        assert len(once.card["lists"]["traits"]) == 1 and paid(once) == [2]
