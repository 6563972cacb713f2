"""The `items` section (SCHEMA-NOTES §10): its models, and what it names in the rest of the file.

The models are tested through `parse_items` (and `parse_item` for an items
catalog entry's `item`), which raise every problem at its path below the
section. The passes of `gmtags.ruleset.validate.items` are called on a ruleset
the models accept (`Ruleset.model_validate`, as `test_catalogs` does), so each
rule is seen on its own, whichever passes `load_ruleset` runs.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from pydantic import ValidationError

from gmtags import Ruleset, load_ruleset
from gmtags.errors import Problem, json_path
from gmtags.ruleset.items import CatalogItem, Items, NumberStat, parse_item, parse_items
from gmtags.ruleset.load import strip_comments
from gmtags.ruleset.validate.index import SheetIndex
from gmtags.ruleset.validate.items import check_item_entries, check_items_values
from tests.conftest import FIXTURES, REFERENCE_RULESETS

BASE: dict[str, Any] = json.loads((FIXTURES / "rulesets" / "sheet-base.json").read_text())

Pass = Callable[[Ruleset, SheetIndex], list[Problem]]


def unit(unit_id: str, value: int) -> dict[str, Any]:
    return {"id": unit_id, "label": unit_id.title(), "value": value}


def items(**keys: Any) -> dict[str, Any]:
    """The smallest valid section (one category), with `keys` added (None deletes one)."""
    found: dict[str, Any] = {"categories": [{"id": "gear", "label": "Gear"}]}
    found.update(keys)
    return {key: value for key, value in found.items() if value is not None}


BULK = {"id": "bulk", "label": "Bulk", "type": "number", "min": 0, "max": 10, "default": 0}
COIN = {"id": "coin", "label": "Coin", "units": [unit("bit", 1), unit("mark", 10)]}


def refused(raw: Mapping[str, Any], parse: Callable[[Any], object] = parse_items) -> list[str]:
    """Every path `parse` refuses `raw` at, sorted, from one call."""
    with pytest.raises(ValidationError) as caught:
        parse(raw)
    return sorted(json_path(error["loc"]) for error in caught.value.errors())


def ruleset(**top: Any) -> Ruleset:
    """The base ruleset with these top-level sections, read by the models only."""
    data = copy.deepcopy(BASE)
    data.update(copy.deepcopy(top))
    return Ruleset.model_validate(strip_comments(data))


def passes(check: Pass, **top: Any) -> list[str]:
    """The paths one pass reports on the base ruleset with these sections, sorted."""
    model = ruleset(**top)
    return sorted(problem.path for problem in check(model, SheetIndex.of_sheet(model)))


class TestItemsShapes:
    def test_smallest_section(self) -> None:
        """One category is a whole section; propose, native and freeform take their defaults."""
        parsed = parse_items(items())
        assert isinstance(parsed, Items)
        assert (parsed.propose, parsed.native, parsed.freeform) == (True, True, "plain")
        assert parse_items(None) is None

    def test_unknown_keys(self) -> None:
        """Every part of the section is strict: unknown keys are refused where they are."""
        raw = items(
            categories=[{"id": "gear", "label": "Gear", "colour": "red"}],
            stats=[{**BULK, "section": "kit"}],
            slots=[{"id": "body", "label": "Body", "count": 1, "size": 2}],
            binding={"label": "Bound", "max": {"const": 3}, "kind": "soul"},
            carry={"stat": "bulk", "encumberedAbove": {"const": 5}, "over": 1},
            currencies=[{**COIN, "units": [{**unit("bit", 1), "metal": "tin"}], "mint": 1}],
            weight=3,
        )
        assert refused(raw) == [
            "binding.kind",
            "carry.over",
            "categories.0.colour",
            "currencies.0.mint",
            "currencies.0.units.0.metal",
            "slots.0.size",
            "stats.0.section",
            "weight",
        ]

    def test_counts(self) -> None:
        """§10: 1–24 categories, ≤12 rarities, ≤48 tags, ≤24 stats, ≤12 slots, ≤6 families of
        1–10 units, ≤24 loot tables."""
        raw = items(
            rarities=[{}] * 13,
            tags=[{}] * 49,
            stats=[BULK] * 25,
            slots=[{"id": "body", "label": "Body", "count": 1}] * 13,
            currencies=[COIN] * 7,
            lootTables=[{}] * 25,
        )
        assert refused(raw) == [
            "currencies",
            "lootTables",
            "rarities",
            "slots",
            "stats",
            "tags",
        ]
        assert refused(items(categories=[])) == ["categories"]
        assert refused(items(categories=[{"id": "gear", "label": "Gear"}] * 25)) == ["categories"]
        too_many = [unit(f"u{n}", n + 1) for n in range(11)]
        assert refused(items(currencies=[{**COIN, "units": too_many}])) == ["currencies.0.units"]
        assert refused(items(currencies=[{**COIN, "units": []}])) == ["currencies.0.units"]
        assert refused({}) == ["categories"]

    def test_ids_and_labels(self) -> None:
        """SCHEMA-NOTES §1: sheet ids and prompt-safe labels of 1–80 characters."""
        raw = items(
            categories=[{"id": "Gear", "label": "Gear [heavy]"}],
            slots=[{"id": "off-hand", "label": "Off hand", "count": 1}],
            currencies=[{**COIN, "units": [{"id": "bit", "label": "", "value": 1}]}],
        )
        assert refused(raw) == [
            "categories.0.id",
            "categories.0.label",
            "currencies.0.units.0.label",
            "slots.0.id",
        ]

    def test_limits(self) -> None:
        """§10: a slot holds 1–20, a unit is worth 1–1,000,000; perWeight is above 0, freeform
        is plain or refuse, and booleans are booleans."""
        raw = items(
            slots=[
                {"id": "body", "label": "Body", "count": 0},
                {"id": "hands", "label": "Hands", "count": 21},
            ],
            carry={"stat": "bulk", "encumberedAbove": {"const": 5}},
            stats=[BULK],
            currencies=[
                {**COIN, "perWeight": 0, "units": [unit("bit", 1), unit("hoard", 1_000_001)]},
                {"id": "salt", "label": "Salt", "units": [unit("pinch", 0), unit("cake", 1)]},
            ],
            freeform="loose",
            propose="yes",
        )
        assert refused(raw) == [
            "currencies.0.perWeight",
            "currencies.0.units.1.value",
            "currencies.1.units.0.value",
            "freeform",
            "propose",
            "slots.0.count",
            "slots.1.count",
        ]

    def test_stats_are_field_shapes(self) -> None:
        """§10: a stat is field-like (its type's keys and rules, plus promptVisible), never a
        longtext."""
        raw = items(
            stats=[
                {"id": "notes", "label": "Notes", "type": "longtext"},
                {"id": "guard", "label": "Guard", "type": "number", "min": 3, "max": 1},
                {
                    "id": "reach",
                    "label": "Reach",
                    "type": "enum",
                    "values": ["near"],
                    "default": "x",
                },
                {"id": "hidden", "label": "Hidden", "type": "boolean", "promptVisible": 0},
            ]
        )
        assert refused(raw) == ["stats.0.type", "stats.1", "stats.2", "stats.3.promptVisible"]
        parsed = parse_items(items(stats=[BULK, {**BULK, "id": "seen", "promptVisible": False}]))
        assert parsed is not None and parsed.stats is not None
        assert [stat.prompt_visible for stat in parsed.stats] == [True, False]
        assert isinstance(parsed.stats[0], NumberStat)

    def test_value_references(self) -> None:
        """§10: binding.max and the carry values are value references (§4)."""
        raw = items(
            binding={"label": "Bound", "max": 3},
            stats=[BULK],
            carry={"stat": "bulk", "encumberedAbove": {"const": 1, "field": "toughness"}},
        )
        assert refused(raw) == ["binding.max", "carry.encumberedAbove"]

    def test_raw_keys_are_kept(self) -> None:
        """Keys the notes name without a shape are kept exactly as written."""
        kept = {
            "rarities": [{"id": "common", "label": "Common", "colour": "grey"}],
            "tags": [{"id": "thrown", "label": "Thrown"}],
            "rarityCaps": [{"rarity": "common", "stats": {"guard": 1}, "bonus": 1}],
            "lootTables": [{"anything": True}],
            "market": {"open": "always"},
        }
        parsed = parse_items(items(**kept))
        assert parsed is not None
        held = (parsed.rarities, parsed.tags, parsed.rarity_caps, parsed.loot_tables)
        assert (*held, parsed.market) == tuple(kept.values())


class TestItemsRules:
    def test_ids_do_not_repeat(self) -> None:
        """Ids repeat in no list of the section: categories, stats, slots, currency families."""
        slot = {"id": "body", "label": "Body", "count": 1}
        gear = {"id": "gear", "label": "Gear"}
        raw = items(categories=[gear, gear], stats=[BULK, BULK], slots=[slot, slot])
        raw["currencies"] = [COIN, {**COIN, "units": [unit("pinch", 1)]}]
        assert refused(raw) == [
            "categories.1.id",
            "currencies.1.id",
            "slots.1.id",
            "stats.1.id",
        ]

    def test_unit_ids_are_unique_across_families(self) -> None:
        """§10: "unit ids are unique across all families"."""
        salt = {"id": "salt", "label": "Salt", "units": [unit("pinch", 1), unit("mark", 20)]}
        assert refused(items(currencies=[COIN, salt])) == ["currencies.1.units.1.id"]

    def test_each_family_has_a_unit_worth_one(self) -> None:
        """§10: "each family needs a unit worth 1"."""
        raw = items(currencies=[{**COIN, "units": [unit("mark", 10), unit("crown", 60)]}])
        assert refused(raw) == ["currencies.0.units"]

    def test_no_two_units_share_a_value(self) -> None:
        """§10: "no two units in a family may have the same value"."""
        raw = items(currencies=[{**COIN, "units": [unit("bit", 1), unit("chip", 1)]}])
        assert refused(raw) == ["currencies.0.units.1.value"]

    def test_per_weight_needs_carry(self) -> None:
        """§10: "`perWeight` needs `carry`"."""
        assert refused(items(currencies=[{**COIN, "perWeight": 100}])) == ["currencies.0.perWeight"]
        carried = items(
            stats=[BULK],
            carry={"stat": "bulk", "encumberedAbove": {"const": 5}},
            currencies=[{**COIN, "perWeight": 100}],
        )
        assert parse_items(carried) is not None

    def test_carry_stat_is_a_number_stat_from_zero(self) -> None:
        """§10: carry's `stat` is a number stat of `stats` whose min is at least 0."""
        carry = {"stat": "bulk", "encumberedAbove": {"const": 5}}
        assert refused(items(carry=carry)) == ["carry.stat"]
        dice = {"id": "bulk", "label": "Bulk", "type": "dice"}
        assert refused(items(carry=carry, stats=[dice])) == ["carry.stat"]
        assert refused(items(carry=carry, stats=[{**BULK, "min": -1}])) == ["carry.stat"]

    def test_every_rule_at_once(self) -> None:
        """All the section's rules' problems come together from one parse, each at its path."""
        raw = items(
            categories=[{"id": "gear", "label": "Gear"}, {"id": "gear", "label": "Gear"}],
            carry={"stat": "weight", "encumberedAbove": {"const": 5}},
            currencies=[COIN, {**COIN, "perWeight": 10, "units": [unit("bit", 1)]}],
        )
        assert refused(raw) == [
            "carry.stat",
            "categories.1.id",
            "currencies.1.id",
            "currencies.1.units.0.id",
        ]

    def test_family_rules_beside_shape_errors(self) -> None:
        """A family's own rules are reported in the same round as a shape error elsewhere."""
        raw = items(weight=1, currencies=[{**COIN, "units": [unit("mark", 10)]}])
        assert refused(raw) == ["currencies.0.units", "weight"]


class TestCatalogItem:
    def test_keys(self) -> None:
        """§10: an entry's item is strict on its keys and needs its category."""
        assert refused({"rarity": "common", "glow": True}, parse_item) == ["category", "glow"]
        parsed = parse_item({"category": "gear", "use": {"kind": "heal"}, "stack": 6})
        assert isinstance(parsed, CatalogItem) and parsed.use == {"kind": "heal"}

    def test_cost(self) -> None:
        """§10 `cost{amount, unit}`: both given, the amount at least 0, the unit an id."""
        bad = {"category": "gear", "cost": {"amount": -1, "unit": "Mark", "per": 1}}
        assert refused(bad, parse_item) == ["cost.amount", "cost.per", "cost.unit"]
        assert refused({"category": "gear", "cost": {"amount": 1}}, parse_item) == ["cost.unit"]


def kit(*entry_items: dict[str, Any]) -> dict[str, Any]:
    """An items catalog whose entries hold these items."""
    entries = [
        {"id": f"thing-{n}", "label": f"Thing {n}", "item": item}
        for n, item in enumerate(entry_items)
    ]
    return {"id": "kit", "label": "Kit", "holds": "items", "entries": entries}


FULL = items(
    rarities=[{"id": "common", "label": "Common"}],
    tags=[{"id": "thrown", "label": "Thrown"}],
    stats=[BULK, {"id": "damage", "label": "Damage", "type": "dice"}],
    slots=[{"id": "hands", "label": "Hands", "count": 2}],
    currencies=[COIN],
)
"""A section declaring one of everything an item entry can name."""


def entries(*entry_items: dict[str, Any]) -> list[str]:
    """The paths `check_item_entries` reports for an items catalog of these items."""
    return passes(check_item_entries, items=FULL, catalogs=[kit(*entry_items)])


AT = "catalogs.0.entries.0.item"


class TestCheckItemEntries:
    def test_a_sound_entry(self) -> None:
        """An entry naming only what `items` declares passes."""
        sound = {
            "category": "gear",
            "rarity": "common",
            "tags": ["thrown"],
            "stats": {"bulk": 1, "damage": "1d6"},
            "slots": {"hands": 1},
            "cost": {"amount": 4, "unit": "mark"},
        }
        assert entries(sound) == []

    def test_category(self) -> None:
        """§10: an entry's category is one of `items.categories`."""
        assert entries({"category": "spoon"}) == [f"{AT}.category"]

    def test_rarity_and_tags(self) -> None:
        """An entry's rarity and tags are ones `items` lists."""
        assert entries({"category": "gear", "rarity": "mythic", "tags": ["thrown", "x"]}) == [
            f"{AT}.rarity",
            f"{AT}.tags.1",
        ]

    def test_stats(self) -> None:
        """Each stat an entry sets is an item stat, holding a value that stat can hold."""
        stats = {"bulk": 11, "damage": 3, "weight": 1}
        assert entries({"category": "gear", "stats": stats}) == [
            f"{AT}.stats.bulk",
            f"{AT}.stats.damage",
            f"{AT}.stats.weight",
        ]

    def test_slots(self) -> None:
        """Each slot an entry takes is an item slot."""
        assert entries({"category": "gear", "slots": {"hands": 1, "feet": 2}}) == [
            f"{AT}.slots.feet"
        ]

    def test_cost_unit(self) -> None:
        """§10 `cost{amount, unit}`: the unit is a currency unit of `items.currencies`."""
        assert entries({"category": "gear", "cost": {"amount": 1, "unit": "yen"}}) == [
            f"{AT}.cost.unit"
        ]

    def test_every_problem_at_once(self) -> None:
        """Every entry's problems come together, each at its own path."""
        first = {"category": "spoon", "cost": {"amount": 1, "unit": "yen"}}
        second = {"category": "gear", "tags": ["x"]}
        assert entries(first, second) == [
            f"{AT}.category",
            f"{AT}.cost.unit",
            "catalogs.0.entries.1.item.tags.0",
        ]


class TestCheckItemsValues:
    def test_references_exist(self) -> None:
        """§4: binding.max and the carry values name what the sheet declares."""
        section = items(
            binding={"label": "Bound", "max": {"derived": "nerve"}},
            stats=[BULK],
            carry={
                "stat": "bulk",
                "encumberedAbove": {"field": "toughness"},
                "limit": {"abilityScore": "grace"},
            },
        )
        assert passes(check_items_values, items=section) == [
            "items.binding.max.derived",
            "items.carry.limit.abilityScore",
        ]

    def test_no_live_reads(self) -> None:
        """§4: live reads are refused in items.binding.max and the items.carry values."""
        section = items(
            binding={"label": "Bound", "max": {"livePool": "grit"}},
            stats=[BULK],
            carry={"stat": "bulk", "encumberedAbove": {"liveTrack": "heat"}},
        )
        assert passes(check_items_values, items=section) == [
            "items.binding.max",
            "items.carry.encumberedAbove",
        ]

    def test_sound_values(self) -> None:
        """Values read from the sheet pass, and a ruleset without items has nothing to check."""
        section = items(
            binding={"label": "Bound", "max": {"abilityScore": "heart"}},
            stats=[BULK],
            carry={"stat": "bulk", "encumberedAbove": {"field": "toughness"}},
        )
        assert passes(check_items_values, items=section) == []
        assert passes(check_items_values) == []
        assert load_ruleset({**copy.deepcopy(BASE), "items": section}).items == section


REFERENCE_ITEMS = ("ember-roads.json", "gravewatch.json")


class TestReferenceRulesets:
    @pytest.mark.parametrize("name", REFERENCE_ITEMS)
    def test_items_parse_and_pass(self, name: str) -> None:
        """The reference rulesets' items, and every item entry of their catalogs, parse and
        pass."""
        loaded = load_ruleset(REFERENCE_RULESETS / name)
        assert isinstance(parse_items(loaded.items), Items)
        index = SheetIndex.of_sheet(loaded)
        assert check_items_values(loaded, index) == []
        assert check_item_entries(loaded, index) == []
        found = [
            parse_item(entry.item)
            for catalog in loaded.catalog_models
            for entry in catalog.entries or ()
            if entry.item is not None
        ]
        assert found and all(isinstance(item, CatalogItem) for item in found)

    def test_5e_has_no_items(self) -> None:
        """The 5e example declares no items block, and its passes find nothing to check."""
        loaded = load_ruleset(REFERENCE_RULESETS / "ruleset-5e-2014.example.json")
        assert parse_items(loaded.items) is None
        assert check_items_values(loaded, SheetIndex.of_sheet(loaded)) == []
