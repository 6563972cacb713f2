"""The `catalogs` section: typed catalogs, entries, mechanics and grants (SCHEMA-NOTES §9, 004).

Shapes and the rules between a catalog's own keys are refused by `load_ruleset`
(the models); what a catalog names elsewhere in the file is checked by the
passes of `gmtags.ruleset.validate.catalogs`, called here on a ruleset the
models accept, so each rule is seen on its own.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from gmtags import Ruleset, RulesetError, load_ruleset
from gmtags.errors import Problem
from gmtags.ruleset.catalogs import Catalog, CatalogEntry, Mechanics, parse_catalogs
from gmtags.ruleset.load import strip_comments
from gmtags.ruleset.resolution import MechanicsCheck
from gmtags.ruleset.validate.catalogs import (
    check_catalog_headers,
    check_catalog_mechanics,
    check_catalog_rows,
)
from gmtags.ruleset.validate.index import SheetIndex
from tests.conftest import FIXTURES, REFERENCE_RULESETS, sound_combat

BASE: dict[str, Any] = json.loads((FIXTURES / "rulesets" / "sheet-base.json").read_text())

LISTS: list[dict[str, Any]] = [
    {
        "id": "gear",
        "label": "Gear",
        "columns": [
            {"id": "name", "label": "Name", "type": "text", "required": True, "maxLength": 40},
            {"id": "bulk", "label": "Bulk", "type": "number", "min": 0, "max": 3},
            {"id": "packed", "label": "Packed", "type": "boolean"},
        ],
    },
    {
        "id": "tricks",
        "label": "Tricks",
        "columns": [
            {"id": "name", "label": "Name", "type": "text"},
            {"id": "uses", "label": "Uses", "type": "number", "min": 0, "max": 9},
        ],
    },
]
"""Two lists the base sheet gains for catalogs to feed."""

CatalogPass = Callable[[Ruleset, SheetIndex], list[Problem]]


def entry(entry_id: str = "torch", **keys: Any) -> dict[str, Any]:
    """A rows entry writing one gear row, with `keys` added (None deletes one)."""
    found: dict[str, Any] = {
        "id": entry_id,
        "label": entry_id.replace("-", " ").title(),
        "rows": [{"list": "gear", "values": {"name": entry_id.title()}}],
    }
    found.update(keys)
    return {key: value for key, value in found.items() if value is not None}


def catalog(*entries: dict[str, Any], **keys: Any) -> dict[str, Any]:
    """A rows catalog feeding both lists, with `keys` added (None deletes one)."""
    found: dict[str, Any] = {
        "id": "knacks",
        "label": "Knacks",
        "feeds": ["gear", "tricks"],
        "entries": list(entries) or [entry()],
    }
    found.update(keys)
    return {key: value for key, value in found.items() if value is not None}


def ruleset(*catalogs: dict[str, Any], **top: Any) -> dict[str, Any]:
    """The base ruleset with the two lists, a text field `calling`, a list-sum derived value
    `load`, and these catalogs."""
    data = copy.deepcopy(BASE)
    sheet = data["sheet"]
    sheet["lists"] = copy.deepcopy(LISTS)
    sheet["fields"].append({"id": "calling", "label": "Calling", "type": "text"})
    sheet["derived"] = [
        {
            "id": "load",
            "label": "Load",
            "op": "sum",
            "of": [{"listSum": {"list": "gear", "column": "bulk"}}],
        },
        {"id": "heft", "label": "Heft", "op": "sum", "of": [{"derived": "load"}]},
    ]
    data["catalogs"] = copy.deepcopy(list(catalogs))
    data.update(copy.deepcopy(top))
    return data


def refused(data: dict[str, Any]) -> list[str]:
    """The paths `load_ruleset` refuses `data` at, sorted."""
    with pytest.raises(RulesetError) as caught:
        load_ruleset(data)
    return sorted(problem.path for problem in caught.value.problems)


def shape(*catalogs: dict[str, Any]) -> list[str]:
    """The paths a ruleset holding these catalogs is refused at."""
    return refused(ruleset(*catalogs))


def one(*entries: dict[str, Any]) -> list[str]:
    """The paths a ruleset holding one catalog of these entries is refused at."""
    return shape(catalog(*entries))


def passes(data: dict[str, Any], check: CatalogPass) -> list[str]:
    """The paths one pass reports on `data`, which the models accept."""
    model = Ruleset.model_validate(strip_comments(data))
    return sorted(problem.path for problem in check(model, SheetIndex.of_sheet(model)))


AT = "catalogs.0.entries.0"


class TestCatalogModels:
    def test_reference_rulesets_parse_once(self) -> None:
        """The three reference rulesets import; their catalogs are typed once and kept raw."""
        for name in ("gravewatch.json", "ember-roads.json", "ruleset-5e-2014.example.json"):
            raw = strip_comments(json.loads((REFERENCE_RULESETS / name).read_text()))
            loaded = load_ruleset(REFERENCE_RULESETS / name)
            assert loaded.catalogs == raw["catalogs"]
            assert loaded.catalog_models is loaded.catalog_models
            assert all(isinstance(each, Catalog) for each in loaded.catalog_models)

    def test_typed_entries(self) -> None:
        """An entry reads as its models: rows, mechanics, its charm check and its cost."""
        rules = load_ruleset(REFERENCE_RULESETS / "gravewatch.json")
        charms = rules.catalog_models[0]
        steady = next(each for each in charms.entries or () if each.id == "steady-hand")
        assert isinstance(steady, CatalogEntry) and isinstance(steady.mechanics, Mechanics)
        assert steady.mechanics.check == MechanicsCheck.model_validate(
            {"reroll": {"upTo": 1, "mode": "once"}, "successes": 1}
        )
        assert steady.mechanics.cost_terms == (("resolve", 1),)
        assert steady.kinds == ["rows"]

    def test_no_catalogs(self) -> None:
        """A file without catalogs has none, and keeps the key absent."""
        loaded = load_ruleset(ruleset())
        assert (loaded.catalog_models, load_ruleset(BASE).catalogs) == ((), None)

    def test_items_are_typed_and_kept_as_written(self) -> None:
        """An entry's item is typed (SCHEMA-NOTES §10 keys), every key it holds kept as written."""
        rules = load_ruleset(REFERENCE_RULESETS / "gravewatch.json")
        kit = rules.catalog_models[2]
        assert kit.holds == "items" and kit.entries is not None and rules.catalogs is not None
        item = kit.entries[0].item
        written = rules.catalogs[2]["entries"][0]["item"]
        assert item is not None
        assert item.model_dump(by_alias=True, exclude_unset=True) == written


class TestShapes:
    def test_unknown_keys(self) -> None:
        """Every part of a catalog is strict: unknown keys are refused where they are."""
        mechanics = {"kind": "utility", "luck": 1, "amount": {"dice": "1d6", "more": 1}}
        bad = catalog(entry(colour="red", mechanics=mechanics), shade="blue")
        assert shape(bad) == [
            "catalogs.0.entries.0.colour",
            "catalogs.0.entries.0.mechanics.amount.more",
            "catalogs.0.entries.0.mechanics.luck",
            "catalogs.0.shade",
        ]

    def test_ids_and_text(self) -> None:
        """SCHEMA-NOTES §1: sheet-id catalogs, ruleset-style entry ids, prompt-safe labels;
        a summary may hold brackets but no line break."""
        bad = catalog(
            entry("Torch_1"),
            entry("rope", label="Rope [50 ft]", summary="Rope\nof hemp"),
            entry("lamp", summary="A lamp [oil]"),
            id="Knacks",
        )
        assert shape(bad) == [
            "catalogs.0.entries.0.id",
            "catalogs.0.entries.1.label",
            "catalogs.0.entries.1.summary",
            "catalogs.0.id",
        ]

    def test_counts(self) -> None:
        """SCHEMA-NOTES §2 and §9: at most 12 catalogs, 6 rows, 4 cost terms, 8 feeds."""
        row = {"list": "gear", "values": {"name": "x"}}
        cost = [{"pool": "grit", "amount": 1}] * 5
        many = entry(rows=[row] * 7, mechanics={"kind": "utility", "cost": cost})
        assert one(many) == [f"{AT}.mechanics.cost", f"{AT}.rows"]
        assert shape(catalog(feeds=["gear"] * 9)) == ["catalogs.0.feeds"]
        thirteen = [catalog(id=f"c{index}") for index in range(13)]
        assert shape(*thirteen) == ["catalogs"]

    def test_mechanics_limits(self) -> None:
        """SCHEMA-NOTES §9: targetCount 1–20, gives 1–10, range ≥ 0, at most 3 plus, 4 applies."""
        mechanics = {
            "kind": "attack",
            "range": -1,
            "targetCount": 21,
            "gives": [{"budget": "act", "count": 11}],
            "amount": {"flat": 1},
            "plus": [{}] * 4,
            "applies": [{}] * 5,
        }
        base = f"{AT}.mechanics"
        assert one(entry(mechanics=mechanics)) == [
            f"{base}.applies",
            f"{base}.gives.0.count",
            f"{base}.plus",
            f"{base}.range",
            f"{base}.targetCount",
        ]

    def test_dice_strings(self) -> None:
        """SCHEMA-NOTES §1: 1–999 dice of 2–9999 sides, an optional ±1–4 digits."""
        for good in ("2d6", "1d8+3", "999d9999-1000"):
            load_ruleset(
                ruleset(catalog(entry(mechanics={"kind": "attack", "amount": {"dice": good}})))
            )
        for bad in ("0d6", "1d1", "d6", "2d6+12345"):
            mechanics = {"kind": "attack", "amount": {"dice": bad}}
            assert one(entry(mechanics=mechanics)) == [f"{AT}.mechanics.amount.dice"]

    def test_one_problem_per_union_value(self) -> None:
        """A filter value, a row cell and a reaction are refused once, at their own path."""
        filters = [{"id": "road", "label": "Road", "type": "text"}]
        bad = entry(
            filters={"road": {"name": "x"}},
            rows=[{"list": "gear", "values": {"name": None}}],
            mechanics={"kind": "utility", "reaction": "yes"},
        )
        assert shape(catalog(bad, filters=filters)) == [
            f"{AT}.filters.road",
            f"{AT}.mechanics.reaction",
            f"{AT}.rows.0.values.name",
        ]

    def test_reaction(self) -> None:
        """SCHEMA-NOTES §9: `reaction` is false, true or `{on, at, cancels?, against?}`."""
        for reaction in (False, True, {"on": "used", "at": "source", "cancels": True}):
            load_ruleset(
                ruleset(catalog(entry(mechanics={"kind": "utility", "reaction": reaction})))
            )
        bad = entry(mechanics={"kind": "utility", "reaction": {"on": "later"}})
        assert one(bad) == [f"{AT}.mechanics.reaction.at", f"{AT}.mechanics.reaction.on"]


class TestCatalogRules:
    def test_entries_or_asset(self) -> None:
        """SCHEMA-NOTES §9: exactly one of entries or asset; the asset is catalogs/<id>.json."""
        assert shape(catalog(asset="catalogs/knacks.json")) == ["catalogs.0"]
        assert shape(catalog(entries=None)) == ["catalogs.0"]
        assert shape(catalog(entries=None, asset="catalogs/other.json")) == ["catalogs.0.asset"]
        load_ruleset(ruleset(catalog(entries=None, asset="catalogs/knacks.json")))

    def test_borrowed(self) -> None:
        """004: a borrowed catalog may carry entries beside `from`, never an asset."""
        lender = {"ruleset": "5e-2014", "catalog": "creatures", "sheet": {"fields": {"ac": None}}}
        load_ruleset(ruleset(catalog(entries=None, **{"from": lender})))
        load_ruleset(ruleset(catalog(**{"from": lender})))
        both = catalog(entries=None, asset="catalogs/knacks.json", **{"from": lender})
        assert shape(both) == ["catalogs.0.from"]

    def test_rows_need_feeds(self) -> None:
        """SCHEMA-NOTES §9: a rows catalog names its feeds; 004: unless its entries only grant."""
        assert shape(catalog(feeds=None)) == ["catalogs.0.feeds"]
        assert shape(catalog(entries=None, asset="catalogs/knacks.json", feeds=None)) == [
            "catalogs.0.feeds"
        ]
        grants = entry(rows=None, grants={"sets": {"calling": "Scout"}})
        load_ruleset(ruleset(catalog(grants, feeds=None)))

    def test_creatures_and_items_feed_nothing(self) -> None:
        """SCHEMA-NOTES §9: "Creatures and items catalogs may not have `feeds`"."""
        beast = entry("rat", rows=None, creature={"health": 3})
        assert shape(catalog(beast, holds="creatures")) == ["catalogs.0.feeds"]

    def test_entries_match_holds(self) -> None:
        """A rows catalog holds no creature; a creatures catalog holds a creature in each entry."""
        assert one(entry(rows=None, creature={"health": 3})) == [f"{AT}.creature"]
        charm = entry("charm", rows=None, mechanics={"kind": "utility"})
        assert shape(catalog(charm, holds="creatures", feeds=None)) == [AT]

    def test_filter_values(self) -> None:
        """SCHEMA-NOTES §9: "Filter values must match the filter's type" (and name a filter)."""
        filters = [
            {"id": "grit", "label": "Grit", "type": "number"},
            {"id": "road", "label": "Road", "type": "text"},
            {"id": "callings", "label": "Callings", "type": "tags"},
        ]
        good = entry(filters={"grit": 1, "road": "Ash", "callings": ["Scout"]})
        bad = entry("rope", filters={"grit": "1", "road": 2, "callings": "Scout", "nope": 1})
        base = "catalogs.0.entries.1.filters"
        assert shape(catalog(good, bad, filters=filters)) == [
            f"{base}.callings",
            f"{base}.grit",
            f"{base}.nope",
            f"{base}.road",
        ]

    def test_rows_list_in_feeds(self) -> None:
        """SCHEMA-NOTES §9: a row's `list` must be in `feeds`."""
        assert shape(catalog(feeds=["tricks"])) == [f"{AT}.rows.0.list"]

    def test_unique_ids(self) -> None:
        """Entry ids within a catalog, filter ids within a catalog, catalog ids within the file."""
        filters = [{"id": "road", "label": "Road", "type": "text"}] * 2
        assert shape(catalog(entry(), entry(), filters=filters)) == [
            "catalogs.0.entries.1.id",
            "catalogs.0.filters.1.id",
        ]
        assert shape(catalog(), catalog()) == ["catalogs.1.id"]

    def test_exclusive_default(self) -> None:
        """004, `exclusiveDefault`: it needs an exclusive group, and a group has one default."""
        first = entry("a", exclusive="asi-4", exclusiveDefault=True)
        second = entry("b", exclusive="asi-4", exclusiveDefault=True)
        assert shape(catalog(first, second)) == ["catalogs.0.entries.1.exclusiveDefault"]
        assert one(entry(exclusiveDefault=True)) == [f"{AT}.exclusiveDefault"]


class TestEntryRules:
    def test_one_of_rows_creature_or_item(self) -> None:
        """SCHEMA-NOTES §9: an entry has one of rows, creature or item, never two."""
        assert one(entry(item={"category": "gear"})) == [AT, f"{AT}.item"]

    def test_something_to_give(self) -> None:
        """An entry with none of rows, creature or item gives grants or mechanics."""
        assert one(entry(rows=None)) == [AT]
        load_ruleset(ruleset(catalog(entry(rows=None, mechanics={"kind": "utility"}))))

    def test_no_mechanics_with_a_creature_or_an_item(self) -> None:
        """SCHEMA-NOTES §9: "Mechanics are not allowed with a creature or an item"."""
        beast = entry("rat", rows=None, creature={"health": 3}, mechanics={"kind": "attack"})
        gift = entry("rat", rows=None, creature={"health": 3}, grants={"sets": {"calling": "x"}})
        bestiary = catalog(beast, holds="creatures", feeds=None)
        assert shape(bestiary) == [f"{AT}.mechanics"]
        assert shape(catalog(gift, holds="creatures", feeds=None)) == [f"{AT}.grants"]

    def test_scaled_rows(self) -> None:
        """SCHEMA-NOTES §9: a scaled column is also in `values`, on the entry's only row there."""
        scaled = {"uses": {"from": {"abilityScore": "heart"}}}
        rows = [
            {"list": "tricks", "values": {"name": "Ember"}, "scaled": scaled},
            {"list": "tricks", "values": {"name": "Ember too"}},
        ]
        assert one(entry(rows=rows)) == [f"{AT}.rows.0.scaled", f"{AT}.rows.0.scaled.uses"]


class TestMechanicsRules:
    def test_rider_and_kind_go_together(self) -> None:
        """SCHEMA-NOTES §9: "`rider` and `kind:"rider"` must appear together"."""
        assert one(entry(mechanics={"kind": "attack", "rider": {"on": "hit"}})) == [
            f"{AT}.mechanics.kind"
        ]
        assert one(entry(mechanics={"kind": "rider"})) == [f"{AT}.mechanics.rider"]

    def test_rider_carries_nothing_taken(self) -> None:
        """SCHEMA-NOTES §9: a rider entry may not carry the taken keys (range, cost, amount, …)."""
        mechanics = {
            "kind": "rider",
            "rider": {"on": "hit"},
            "range": 3,
            "cost": [],
            "amount": {"flat": 1},
            "scales": {"from": {"const": 1}, "table": [[1, 0]]},
        }
        base = f"{AT}.mechanics"
        assert one(entry(mechanics=mechanics)) == [
            f"{base}.amount",
            f"{base}.cost",
            f"{base}.range",
        ]

    def test_plus(self) -> None:
        """SCHEMA-NOTES §9: "`plus` needs `amount` and may not be used with `heal`"."""
        assert one(entry(mechanics={"kind": "attack", "plus": [{}]})) == [f"{AT}.mechanics.plus"]
        heal = {"kind": "heal", "amount": {"flat": 2}, "plus": [{}]}
        assert one(entry(mechanics=heal)) == [f"{AT}.mechanics.plus"]

    def test_free_or_budget(self) -> None:
        """SCHEMA-NOTES §9: "`free` and `budget` are exclusive"."""
        mechanics = {"kind": "utility", "free": True, "budget": "bonus"}
        assert one(entry(mechanics=mechanics)) == [f"{AT}.mechanics.free"]

    def test_standard_action_once(self) -> None:
        """A standard action is offered once."""
        mechanics = {"kind": "utility", "standard": {"actions": ["dash", "dash"], "budget": "b"}}
        assert one(entry(mechanics=mechanics)) == [f"{AT}.mechanics.standard.actions"]


class TestGrants:
    HALF_ELF: dict[str, Any] = {
        "abilities": {
            "add": {"heart": 2},
            "choose": [{"count": 2, "amount": 1, "except": ["heart"]}],
        },
        "trained": {"skills": [], "saves": [], "choose": [{"what": "skills", "count": 2}]},
        "sets": {"toughness": 3},
    }

    def grant(self, **grants: Any) -> list[str]:
        """The paths an entry giving only these grants is refused at."""
        return one(entry(rows=None, grants=grants))

    def test_seed_half_elf(self) -> None:
        """004's half-elf grants load, typed for the builder."""
        loaded = load_ruleset(
            ruleset(catalog(entry("half-elf", rows=None, grants=self.HALF_ELF), feeds=None))
        )
        grants = (loaded.catalog_models[0].entries or [])[0].grants
        assert grants is not None and grants.abilities is not None and grants.trained is not None
        assert grants.abilities.add == {"heart": 2}
        assert grants.trained.choose is not None and grants.trained.choose[0].what == "skills"

    def test_counted_choices(self) -> None:
        """004: a choice has a count or a countFrom with its max (at most 6 for abilities)."""
        choose = [{"amount": 1}, {"amount": 1, "countFrom": {"derived": "load"}}]
        base = f"{AT}.grants.abilities.choose"
        assert self.grant(abilities={"choose": choose}) == [f"{base}.0", f"{base}.1.max"]
        seven = [{"count": 1, "amount": 1, "max": 7}]
        assert self.grant(abilities={"choose": seven}) == [f"{base}.0.max"]

    def test_replacement_needs_replace(self) -> None:
        """004: `replacementFrom` goes with `onDuplicate: "replace"`."""
        choose = [{"what": "skills", "count": 1, "replacementFrom": ["scrap"]}]
        assert self.grant(trained={"choose": choose}) == [
            f"{AT}.grants.trained.choose.0.replacementFrom"
        ]

    def test_entry_choices(self) -> None:
        """004: at most six entry choices; a quota keeps min ≤ max ≤ the choice's count."""
        wrong = {"filter": "tier", "value": 1, "min": 2, "max": 1}
        over = {"filter": "tier", "value": 2, "min": 0, "max": 3}
        choose = [
            {"catalog": "tools", "count": 2, "quotas": [wrong]},
            {"catalog": "tools", "count": 2, "quotas": [over]},
        ]
        base = f"{AT}.grants.entries.choose"
        assert self.grant(entries={"choose": choose}) == [
            f"{base}.0.quotas.0.min",
            f"{base}.1.quotas.0.max",
        ]
        assert self.grant(entries={"choose": [{"catalog": "tools", "count": 1}] * 7}) == [base]

    def test_ratings(self) -> None:
        """004: "Cada concesión tiene un add positivo o un set no negativo, nunca ambos"."""
        ratings = [
            {"target": {"skill": "scrap"}, "add": 1, "set": 1},
            {"target": {"skill": "scrap"}},
            {"target": {"skill": "scrap", "save": "steel"}, "add": 1},
            {"target": {"save": "steel"}, "set": 0},
        ]
        base = f"{AT}.grants.ratings"
        assert self.grant(ratings=ratings) == [f"{base}.0", f"{base}.1", f"{base}.2.target"]

    def test_item_access(self) -> None:
        """004, 1.215: at most 48 `<catalog>/<entry>` items."""
        assert self.grant(itemAccess=["kit/rope"] * 49) == [f"{AT}.grants.itemAccess"]
        assert self.grant(itemAccess=["rope"]) == [f"{AT}.grants.itemAccess.0"]


class TestAllAtOnce:
    def test_every_catalog_problem_is_reported(self) -> None:
        """Every catalog's problems (shapes, or every rule of it and its parts) come back together,
        with a repeated catalog id."""
        first = catalog(entry(colour="red"), feeds=["tricks"])
        second = catalog(entry(mechanics={"kind": "rider"}), entry(), feeds=None)
        third = catalog(id="spare", entries=None, asset="catalogs/other.json")
        assert shape(first, second, third) == [
            "catalogs.0.entries.0.colour",
            "catalogs.1.entries.0.mechanics.rider",
            "catalogs.1.entries.1.id",
            "catalogs.1.feeds",
            "catalogs.1.id",
            "catalogs.2.asset",
        ]

    def test_parse_catalogs_paths(self) -> None:
        """`parse_catalogs` reports below the section (`0.entries.3.mechanics.cost.1.amount`)."""
        cost = [{"pool": "grit", "amount": 1}, {"pool": "grit", "amount": 0}]
        entries = [entry(f"e{index}") for index in range(3)]
        entries.append(entry("e3", mechanics={"kind": "utility", "cost": cost}))
        with pytest.raises(ValidationError) as caught:
            parse_catalogs([catalog(*entries)])
        assert "0.entries.3.mechanics.cost.1.amount" in str(caught.value)


class TestHeaderPass:
    def test_creatures_need_combat_and_items_need_items(self) -> None:
        """SCHEMA-NOTES §9: "`creatures` requires a `combat` block; `items` requires `items`"."""
        beasts = catalog(
            entry("rat", rows=None, creature={}), id="beasts", holds="creatures", feeds=None
        )
        rope = entry("rope", rows=None, item={"category": "gear"})
        kit = catalog(rope, id="kit", holds="items", feeds=None)
        assert passes(ruleset(beasts, kit), check_catalog_headers) == [
            "catalogs.0.holds",
            "catalogs.1.holds",
        ]
        items = {"categories": [{"id": "gear", "label": "Gear"}]}
        fine = ruleset(beasts, kit, combat=sound_combat(), items=items)
        assert passes(fine, check_catalog_headers) == []

    def test_feeds_and_start_from(self) -> None:
        """`feeds` names sheet lists; a filter's `startFrom.field` names a field."""
        filters = [
            {"id": "calling", "label": "Calling", "type": "text", "startFrom": {"field": "job"}}
        ]
        data = ruleset(catalog(feeds=["gear", "spells"], filters=filters))
        assert passes(data, check_catalog_headers) == [
            "catalogs.0.feeds.1",
            "catalogs.0.filters.0.startFrom.field",
        ]

    def test_no_borrowing_from_its_own_set(self) -> None:
        """004: "Un catálogo no puede tomar prestado de su propio conjunto"."""
        own = catalog(entries=None, **{"from": {"ruleset": "sheet-base", "catalog": "knacks"}})
        other = catalog(
            entries=None, id="beasts", **{"from": {"ruleset": "5e-2014", "catalog": "creatures"}}
        )
        assert passes(ruleset(own, other), check_catalog_headers) == ["catalogs.0.from.ruleset"]


class TestRowsPass:
    def rows(self, *rows: dict[str, Any]) -> list[str]:
        return passes(ruleset(catalog(entry(rows=list(rows)))), check_catalog_rows)

    def test_values_like_a_list_row(self) -> None:
        """SCHEMA-NOTES §9: unknown column, wrong type, out of range and missing required."""
        base = f"{AT}.rows"
        assert self.rows(
            {"list": "gear", "values": {"name": "Rope", "colour": "red", "packed": "yes"}},
            {"list": "gear", "values": {"name": "x" * 41, "bulk": 9}},
            {"list": "gear", "values": {"bulk": 1}},
            {"list": "tricks", "values": {"uses": 2.5, "name": ""}},
        ) == [
            f"{base}.0.values.colour",
            f"{base}.0.values.packed",
            f"{base}.1.values.bulk",
            f"{base}.1.values.name",
            f"{base}.2.values.name",
            f"{base}.3.values.uses",
        ]

    def test_scaled_number_column(self) -> None:
        """SCHEMA-NOTES §9: "Each scaled column must be a number column"."""
        scaled = {"name": {"from": {"const": 1}}}
        row = {"list": "tricks", "values": {"name": "Ember"}, "scaled": scaled}
        assert self.rows(row) == [f"{AT}.rows.0.scaled.name"]

    @pytest.mark.parametrize(
        ("ref", "below"),
        [
            pytest.param({"livePool": "grit"}, "", id="live"),
            pytest.param({"listSum": {"list": "gear", "column": "bulk"}}, "", id="list-sum"),
            pytest.param({"derived": "heft"}, "", id="list-sum-through-derived"),
            pytest.param({"abilityScore": "nerve"}, ".abilityScore", id="unknown-ability"),
        ],
    )
    def test_scaled_from(self, ref: dict[str, Any], below: str) -> None:
        """SCHEMA-NOTES §4: a scaled column reads no live state and (002) no list sum."""
        row = {
            "list": "tricks",
            "values": {"name": "Ember", "uses": 1},
            "scaled": {"uses": {"from": ref}},
        }
        assert self.rows(row) == [f"{AT}.rows.0.scaled.uses.from{below}"]

    def test_scaled_reads_the_sheet(self) -> None:
        """A scaled column may read a score, as Ember Roads' Last Ember reads Heart."""
        scaled = {"uses": {"from": {"abilityScore": "heart"}, "table": [[0, 1], [2, 2]]}}
        row = {"list": "tricks", "values": {"name": "Ember", "uses": 1}, "scaled": scaled}
        assert self.rows(row) == []


class TestMechanicsPass:
    def test_cost_pool_or_group(self) -> None:
        """SCHEMA-NOTES §9: a cost's `pool` is "a pool id or pool group"."""
        data = ruleset(catalog(*(entry(f"e{index}") for index in range(3))))
        cost = [
            {"pool": "grit", "amount": 1},
            {"pool": "mana", "amount": 1},
            {"pool": "spirit", "amount": 1},
        ]
        data["catalogs"][0]["entries"].append(
            entry("e3", mechanics={"kind": "utility", "cost": cost})
        )
        data["sheet"]["live"]["pools"].append(
            {"id": "faith", "label": "Faith", "max": {"const": 2}, "group": "spirit"}
        )
        assert passes(data, check_catalog_mechanics) == [
            "catalogs.0.entries.3.mechanics.cost.1.pool"
        ]

    def test_save_scales_and_reaction(self) -> None:
        """The save a target rolls is a sheet save; `scales` reads no live state;
        `reaction.against` names catalogs of the file."""
        mechanics = {
            "kind": "debuff",
            "save": {"save": "grace", "onSuccess": "negates"},
            "scales": {"from": {"liveTrack": "heat"}, "table": [[0, 1]]},
            "reaction": {
                "on": "used",
                "at": "source",
                "against": {"catalogs": ["knacks", "spells"]},
            },
        }
        base = f"{AT}.mechanics"
        assert passes(ruleset(catalog(entry(mechanics=mechanics))), check_catalog_mechanics) == [
            f"{base}.reaction.against.catalogs.1",
            f"{base}.save.save",
            f"{base}.scales.from",
        ]


class TestFixtureRulesets:
    @pytest.mark.parametrize(
        "path",
        sorted(
            path
            for path in (FIXTURES / "rulesets").rglob("*.json")
            if "invalid" not in path.parts and "catalogs" in path.read_text()
        ),
        ids=lambda path: path.name,
    )
    def test_catalog_passes_find_nothing(self, path: Path) -> None:
        """Every fixture ruleset with catalogs imports, and the catalog passes find nothing."""
        model = load_ruleset(path)
        index = SheetIndex.of_sheet(model)
        checks: list[CatalogPass] = [
            check_catalog_headers,
            check_catalog_rows,
            check_catalog_mechanics,
        ]
        assert [problem for check in checks for problem in check(model, index)] == []
