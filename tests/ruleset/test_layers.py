"""gmtags/ruleset/layers.py and gmtags/ruleset/validate/layers.py: the `layers` section.

Shapes and the rules inside one layer are refused by the models (SCHEMA-NOTES
§12); what a layer names elsewhere in the file by the passes, called here on
a ruleset the models accept so each rule is seen on its own; the ruleset a
game plays with its layers is `effective_ruleset` (SPEC §4).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import ValidationError

from gmtags import Ruleset, Snapshot, load_ruleset
from gmtags.errors import Problem
from gmtags.ruleset.layers import Layer, parse_layers
from gmtags.ruleset.load import strip_comments
from gmtags.ruleset.model import Ruleset as RulesetModel
from gmtags.ruleset.played import LayerChoiceError, active_layers, chosen_layers, effective_ruleset
from gmtags.ruleset.sheet import EnumField
from gmtags.ruleset.validate.index import SheetIndex
from gmtags.ruleset.validate.layers import (
    check_layer_catalogs,
    check_layer_currencies,
    check_layer_fields,
    check_layer_ladders,
)
from gmtags.state.layers import start_layers
from tests.conftest import FIXTURES, REFERENCE_RULESETS

LAYERED: dict[str, Any] = json.loads((FIXTURES / "rulesets" / "layers.json").read_text())
"""The fixture ruleset whose layers narrow an enum, replace the ladder, hide charms, remove a
coin unit and add guidance."""

LayerPass = Callable[[Ruleset, SheetIndex], list[Problem]]


def layer(layer_id: str = "grim", **keys: Any) -> dict[str, Any]:
    """A layer with `keys` added."""
    return {"id": layer_id, "label": layer_id.title(), **keys}


def layered(*layers: dict[str, Any], **top: Any) -> dict[str, Any]:
    """The fixture ruleset (its comments stripped) with `layers` in place of its own."""
    data = copy.deepcopy(strip_comments(LAYERED))
    data["layers"] = list(layers)
    data.update(top)
    return data


def shape_paths(*layers: dict[str, Any]) -> list[str]:
    """Where `parse_layers` refuses `layers`, as paths below `layers`."""
    with pytest.raises(ValidationError) as caught:
        parse_layers(list(layers))
    return [".".join(map(str, item["loc"])) for item in caught.value.errors()]


def problems(check: LayerPass, data: dict[str, Any]) -> list[tuple[str, str]]:
    """One pass's problems over a ruleset the models accept: (path, message) pairs."""
    ruleset = RulesetModel.model_validate(data)
    return [(p.path, p.message) for p in check(ruleset, SheetIndex.of_sheet(ruleset))]


def paths(check: LayerPass, data: dict[str, Any]) -> list[str]:
    return [path for path, _ in problems(check, data)]


@pytest.fixture(scope="module")
def ruleset() -> Ruleset:
    """The fixture ruleset with layers (long_day, endless_night, hushed)."""
    return load_ruleset(FIXTURES / "rulesets" / "layers.json")


# ---------------------------------------------------------------------------
# Shapes (SCHEMA-NOTES §12)


class TestLayerModel:
    @pytest.mark.parametrize(
        "name", ["ember-roads.json", "gravewatch.json", "ruleset-5e-2014.example.json"]
    )
    def test_reference_layers_are_typed(self, name: str) -> None:
        """The three reference rulesets' layers import unchanged, as typed models (SPEC: must
        import the reference rulesets unchanged)."""
        reference = load_ruleset(REFERENCE_RULESETS / name)
        assert reference.layer_models
        assert all(isinstance(item, Layer) for item in reference.layer_models)
        assert reference.layers is not None and len(reference.layers) == len(reference.layer_models)

    def test_unknown_keys_are_refused(self) -> None:
        """SCHEMA-NOTES §12: "(each strict)": an unknown key in a layer or any part of one."""
        bad = layer(
            mood="grim",
            gm={"tone": "dark"},
            fields=[{"id": "watch", "removeValues": ["night"], "add": ["noon"]}],
            catalogs=[{"id": "charms", "hide": {"filter": "cost", "above": 0, "show": 1}}],
            currencies={"dropAll": True},
        )
        assert sorted(shape_paths(bad)) == [
            "0.catalogs.0.hide.show",
            "0.currencies.dropAll",
            "0.fields.0.add",
            "0.gm.tone",
            "0.mood",
        ]

    def test_ids_and_text(self) -> None:
        """SCHEMA-NOTES §1: ids are sheet ids, labels and summaries prompt-safe (80, 300)."""
        bad = {"id": "Long-Day", "label": "Long [day]", "summary": "s" * 301}
        assert sorted(shape_paths(bad)) == ["0.id", "0.label", "0.summary"]

    def test_guidance_together_at_most_4000(self) -> None:
        """SCHEMA-NOTES §12: `gm {guidance?, worldGuidance?} (together at most 4000)`."""
        parse_layers([layer(gm={"guidance": "g" * 2000, "worldGuidance": "w" * 2000})])
        over = layer(gm={"guidance": "g" * 2000, "worldGuidance": "w" * 2001})
        assert shape_paths(over) == ["0.gm"]
        assert shape_paths(layer(gm={"guidance": "g" * 4001})) == ["0.gm.guidance"]

    def test_guidance_is_prompt_safe(self) -> None:
        """SCHEMA-NOTES §1: every guidance string is prompt-safe (one line, no brackets)."""
        assert shape_paths(layer(gm={"worldGuidance": "two\nlines"})) == ["0.gm.worldGuidance"]

    def test_field_counts(self) -> None:
        """SCHEMA-NOTES §12: `removeValues 1–40`, each value distinct; `fields` at most 24."""
        assert shape_paths(layer(fields=[{"id": "watch", "removeValues": []}])) == [
            "0.fields.0.removeValues"
        ]
        many = [f"v{n}" for n in range(41)]
        assert shape_paths(layer(fields=[{"id": "watch", "removeValues": many}])) == [
            "0.fields.0.removeValues"
        ]
        twice = layer(fields=[{"id": "watch", "removeValues": ["night", "night"]}])
        assert shape_paths(twice) == ["0.fields.0.removeValues"]
        wide = layer(fields=[{"id": f"f{n}", "removeValues": ["x"]} for n in range(25)])
        assert shape_paths(wide) == ["0.fields"]

    def test_default_is_not_a_removed_value(self) -> None:
        """SCHEMA-NOTES §12: the new default is a value left, so never one the entry removes."""
        bad = layer(fields=[{"id": "watch", "removeValues": ["night"], "default": "night"}])
        assert shape_paths(bad) == ["0.fields.0"]

    def test_a_field_once_per_layer(self) -> None:
        """A layer names each field once (two entries on one field would contradict)."""
        bad = layer(
            fields=[
                {"id": "watch", "removeValues": ["night"]},
                {"id": "watch", "removeValues": ["dusk"]},
            ]
        )
        assert shape_paths(bad) == ["0.fields.1.id"]

    @pytest.mark.parametrize(
        "hide",
        [
            {"filter": "cost"},
            {"filter": "cost", "above": 0, "below": 3},
            {"filter": "k", "equals": "a", "notIn": ["b"]},
        ],
    )
    def test_hide_takes_one_comparison(self, hide: dict[str, Any]) -> None:
        """SCHEMA-NOTES §12: `hide {filter, one of above|below … or equals|notIn}`."""
        assert shape_paths(layer(catalogs=[{"id": "charms", "hide": hide}])) == [
            "0.catalogs.0.hide"
        ]

    def test_ladder_counts(self) -> None:
        """A replacing ladder has 1–12 rungs, like the resolution's own (000)."""
        assert shape_paths(layer(difficultyLadder=[])) == ["0.difficultyLadder"]
        rungs = [{"label": f"R{n}", "dc": n} for n in range(13)]
        assert shape_paths(layer(difficultyLadder=rungs)) == ["0.difficultyLadder"]

    def test_no_conflict_with_itself(self) -> None:
        """SCHEMA-NOTES §12: `conflicts? (layer ids, not itself)`."""
        assert shape_paths(layer(conflicts=["grim"])) == ["0.conflicts.0"]


class TestParseLayers:
    def test_none_is_empty(self) -> None:
        """A file without layers has none."""
        assert parse_layers(None) == ()

    def test_ids_are_unique(self) -> None:
        """SCHEMA-NOTES §1: "Duplicate ids are refused within each list: … layers"."""
        assert shape_paths(layer("a"), layer("b"), layer("a")) == ["2.id"]

    def test_conflicts_name_layers_of_the_file(self) -> None:
        """SCHEMA-NOTES §12: `conflicts` are layer ids, so each names a layer of the file."""
        assert shape_paths(layer("a", conflicts=["b", "ghost"]), layer("b")) == ["0.conflicts.1"]

    def test_at_most_twelve(self) -> None:
        """SCHEMA-NOTES §2: `layers` holds at most 12 (refused at the section itself)."""
        parse_layers([layer(f"l{n}") for n in range(12)])
        with pytest.raises(ValidationError) as caught:
            parse_layers([layer(f"l{n}") for n in range(13)])
        assert [item["loc"] for item in caught.value.errors()] == [()]

    def test_every_problem_at_once(self) -> None:
        """Shape problems of several layers and the section's own are reported together."""
        found = shape_paths(layer("a", mood=1), layer("a", conflicts=["nobody"]))
        assert sorted(found) == ["0.mood", "1.conflicts.0", "1.id"]

    def test_load_keeps_layers_paths(self) -> None:
        """Through `load_ruleset` the problems keep their `layers.…` paths."""
        from gmtags import RulesetError

        with pytest.raises(RulesetError) as caught:
            load_ruleset(layered(layer("a", conflicts=["a"])))
        assert [p.path for p in caught.value.problems] == ["layers.0.conflicts.0"]


# ---------------------------------------------------------------------------
# What a layer names in the rest of the file (the passes)


class TestLayerFields:
    def test_reference_and_fixture_pass(self, ruleset: Ruleset) -> None:
        """Every layer shipped in the fixtures fits its file."""
        assert check_layer_fields(ruleset, SheetIndex.of_sheet(ruleset)) == []

    def test_an_enum_field_of_the_sheet(self) -> None:
        """SCHEMA-NOTES §12: `fields[].id` is an enum field."""
        data = layered(
            layer(
                fields=[
                    {"id": "ghost", "removeValues": ["x"]},
                    {"id": "toughness", "removeValues": ["3"]},
                ]
            )
        )
        assert paths(check_layer_fields, data) == ["layers.0.fields.0.id", "layers.0.fields.1.id"]

    def test_removed_values_are_values_of_the_field(self) -> None:
        """SCHEMA-NOTES §12: a layer removes values the field has (it never adds one)."""
        data = layered(layer(fields=[{"id": "watch", "removeValues": ["dusk", "noon"]}]))
        assert paths(check_layer_fields, data) == ["layers.0.fields.0.removeValues.1"]

    def test_one_value_is_left(self) -> None:
        """SCHEMA-NOTES §12: "It must leave at least one value"."""
        every = {"id": "watch", "removeValues": ["night", "dawn", "dusk"]}
        data = layered(layer(fields=[every]))
        data["sheet"]["live"]["pools"][1].pop("hideWhen")
        assert problems(check_layer_fields, data) == [
            (
                "layers.0.fields.0.removeValues",
                "removes every value of field 'watch'; one must be left",
            )
        ]

    def test_removed_default_needs_a_new_one(self) -> None:
        """SCHEMA-NOTES §12: it "must name a new default when it removes the old one"."""
        data = layered(layer(fields=[{"id": "watch", "removeValues": ["night"]}]))
        assert problems(check_layer_fields, data) == [
            ("layers.0.fields.0", "removes the default 'night' of field 'watch', so it names one")
        ]

    def test_old_default_of_a_field_without_one_is_its_first_value(self) -> None:
        """SCHEMA-NOTES §6: an enum without `default` starts at its first value, so removing
        that value needs a new default too."""
        data = layered(layer(fields=[{"id": "watch", "removeValues": ["night"]}]))
        data["sheet"]["fields"][0].pop("default")
        assert paths(check_layer_fields, data) == ["layers.0.fields.0"]
        kept = layered(layer(fields=[{"id": "watch", "removeValues": ["dusk"]}]))
        kept["sheet"]["fields"][0].pop("default")
        assert paths(check_layer_fields, kept) == []

    def test_new_default_is_a_value_of_the_field(self) -> None:
        """SCHEMA-NOTES §12: the new default is one of the values left."""
        data = layered(
            layer(fields=[{"id": "watch", "removeValues": ["night"], "default": "noon"}])
        )
        assert paths(check_layer_fields, data) == ["layers.0.fields.0.default"]

    @pytest.mark.parametrize(
        ("where", "rule"),
        [
            ("fields", {"field": "watch", "equals": "dusk"}),
            ("fields", {"field": "watch", "notEquals": "dusk"}),
            ("fields", {"field": "watch", "in": ["dawn", "dusk"]}),
            ("derived", {"field": "watch", "equals": "dusk"}),
            ("lists", {"field": "watch", "equals": "dusk"}),
            ("pools", {"field": "watch", "equals": "dusk"}),
        ],
    )
    def test_no_value_a_hide_when_compares(self, where: str, rule: dict[str, Any]) -> None:
        """002, hideWhen: "Una capa no puede retirar un valor con el que compare cualquiera de
        ellas" — fields, derived values, lists and pools alike, equals, notEquals and in."""
        data = layered(layer(fields=[{"id": "watch", "removeValues": ["dusk"]}]))
        sheet = data["sheet"]
        target = {
            "fields": sheet["fields"][1],
            "derived": sheet["derived"][0],
            "lists": sheet["lists"][0],
            "pools": sheet["live"]["pools"][0],
        }[where]
        target["hideWhen"] = rule
        found = problems(check_layer_fields, data)
        assert [path for path, _ in found] == ["layers.0.fields.0.removeValues.0"]
        assert "hideWhen" in found[0][1] and "cannot remove" in found[0][1]

    def test_a_value_another_field_compares_may_go(self) -> None:
        """Only a hideWhen on the same field holds its values (a rule on `rank` does not)."""
        data = layered(layer(fields=[{"id": "watch", "removeValues": ["dusk"]}]))
        data["sheet"]["fields"].append(
            {"id": "rank", "label": "Rank", "type": "enum", "values": ["dusk", "dawn"]}
        )
        data["sheet"]["fields"][1]["hideWhen"] = {"field": "rank", "equals": "dusk"}
        assert paths(check_layer_fields, data) == []

    def test_a_value_an_enum_table_reads_may_go(self) -> None:
        """002, enumTable: "Una capa puede retirar un valor de un campo para el que una tabla
        tiene una fila" (watch_bonus has a row for dusk)."""
        data = layered(layer(fields=[{"id": "watch", "removeValues": ["dusk"]}]))
        assert paths(check_layer_fields, data) == []


class TestLayerCatalogs:
    def test_a_catalog_of_the_file(self) -> None:
        """SCHEMA-NOTES §12: `catalogs[].id` names a catalog."""
        data = layered(layer(catalogs=[{"id": "spells", "hide": {"filter": "cost", "above": 0}}]))
        assert paths(check_layer_catalogs, data) == ["layers.0.catalogs.0.id"]

    def test_one_of_its_filters(self) -> None:
        """SCHEMA-NOTES §12: `hide.filter` is one of the catalog's filters."""
        data = layered(layer(catalogs=[{"id": "charms", "hide": {"filter": "price", "above": 0}}]))
        assert paths(check_layer_catalogs, data) == ["layers.0.catalogs.0.hide.filter"]

    def test_above_and_below_on_number_filters(self) -> None:
        """SCHEMA-NOTES §12: "above|below (number filters)"."""
        data = layered(layer(catalogs=[{"id": "charms", "hide": {"filter": "kind", "below": 1}}]))
        assert paths(check_layer_catalogs, data) == ["layers.0.catalogs.0.hide.below"]

    def test_equals_and_not_in_on_text_and_tags_filters(self) -> None:
        """SCHEMA-NOTES §12: "equals|notIn (text/tag filters)"."""
        data = layered(
            layer(
                catalogs=[
                    {"id": "charms", "hide": {"filter": "cost", "equals": "1"}},
                    {"id": "charms", "hide": {"filter": "kind", "notIn": ["ward"]}},
                ]
            )
        )
        data["catalogs"][0]["filters"].append({"id": "tags", "label": "Tags", "type": "tags"})
        data["layers"][0]["catalogs"].append(
            {"id": "charms", "hide": {"filter": "tags", "equals": "x"}}
        )
        assert paths(check_layer_catalogs, data) == ["layers.0.catalogs.0.hide.equals"]


class TestLayerCurrencies:
    def test_names_units_and_families(self) -> None:
        """SCHEMA-NOTES §12 `currencies? {removeUnits?, removeFamilies?}`: ids of
        `items.currencies` (§10), read from the raw items JSON."""
        removed = {"removeUnits": ["mark", "crown"], "removeFamilies": ["coin", "salt"]}
        data = layered(layer(currencies=removed))
        assert paths(check_layer_currencies, data) == [
            "layers.0.currencies.removeFamilies.1",
            "layers.0.currencies.removeUnits.1",
        ]

    def test_the_unit_worth_one_goes_with_its_family(self) -> None:
        """SCHEMA-NOTES §10: "each family needs a unit worth 1": removing it alone is refused;
        with its family it may go."""
        data = layered(layer(currencies={"removeUnits": ["bit"]}))
        assert paths(check_layer_currencies, data) == ["layers.0.currencies.removeUnits.0"]
        whole = layered(layer(currencies={"removeUnits": ["bit"], "removeFamilies": ["coin"]}))
        assert paths(check_layer_currencies, whole) == []

    def test_nothing_to_remove_without_currencies(self) -> None:
        """A file that declares no currencies has none for a layer to remove."""
        data = layered(layer(currencies={"removeUnits": ["mark"]}))
        data.pop("items")
        assert paths(check_layer_currencies, data) == ["layers.0.currencies"]


class TestLayerLadders:
    def test_in_the_base_kind_shape(self) -> None:
        """SCHEMA-NOTES §12: the ladder "must be in the base kind's shape" (a dice-sum rung
        has a dc, not successes)."""
        data = layered(layer(difficultyLadder=[{"label": "Grim", "successes": 3}]))
        assert sorted(paths(check_layer_ladders, data)) == [
            "layers.0.difficultyLadder.0.dc",
            "layers.0.difficultyLadder.0.successes",
        ]


# ---------------------------------------------------------------------------
# The ruleset a game plays (SPEC §4)


class TestEffectiveRuleset:
    def test_no_layers_is_the_ruleset_itself(self, ruleset: Ruleset) -> None:
        """With no layer active, a game plays the file's ruleset: the same object."""
        assert effective_ruleset(ruleset, ()) is ruleset
        assert effective_ruleset(ruleset, ["ghost"]) is ruleset
        assert ruleset.layers_played == () and ruleset.base_ruleset is ruleset

    def test_built_once_per_set_of_ids(self, ruleset: Ruleset) -> None:
        """The same layers, in any order or repeated, give the same derived object."""
        once = effective_ruleset(ruleset, ["long_day", "hushed"])
        assert effective_ruleset(ruleset, ("hushed", "long_day", "hushed")) is once
        assert effective_ruleset(ruleset, ["hushed", "long_day", "ghost"]) is once
        assert effective_ruleset(once, ["long_day", "hushed"]) is once
        assert once.base_ruleset is ruleset

    def test_equality_is_the_files(self, ruleset: Ruleset) -> None:
        """Deriving a game's ruleset changes nothing of the file's: it still equals a fresh
        load, and the derived one equals neither."""
        played = effective_ruleset(ruleset, ["long_day"])
        fresh = load_ruleset(FIXTURES / "rulesets" / "layers.json")
        assert fresh == ruleset and played != ruleset
        assert effective_ruleset(fresh, ["long_day"]) != played  # another file's derivation

    def test_a_copy_derives_its_own(self, ruleset: Ruleset) -> None:
        """A copy of a ruleset (sharing its private cache) plays layers over its own fields."""
        copy_ = ruleset.model_copy(update={"name": "Copied watch"})
        played = effective_ruleset(copy_, ["long_day"])
        assert played.base_ruleset is copy_ and played.name == "Copied watch"
        assert effective_ruleset(ruleset, ["long_day"]).name == "Layered watch"

    def test_ladder_replaced(self, ruleset: Ruleset) -> None:
        """SCHEMA-NOTES §12: the layer's `difficultyLadder` REPLACES the base ladder."""
        played = effective_ruleset(ruleset, ["long_day"])
        rungs = [(r.label, r.dc) for r in played.resolution_rules.difficulty_ladder or ()]
        assert rungs == [("Easy", 7), ("Risky", 10)]
        base = [(r.label, r.dc) for r in ruleset.resolution_rules.difficulty_ladder or ()]
        assert base == [("Easy", 6), ("Risky", 8)]

    def test_enum_values_removed_and_default_set(self, ruleset: Ruleset) -> None:
        """SCHEMA-NOTES §12: a layer removes values and names the new default; labels of the
        removed values go with them; the file's field is untouched."""
        played = effective_ruleset(ruleset, ["long_day"])
        watch = next(f for f in played.sheet.fields if f.id == "watch")
        assert isinstance(watch, EnumField)
        assert (watch.values, watch.default) == (["dawn", "dusk"], "dawn")
        assert watch.value_labels == {"dawn": "Dawn watch", "dusk": "Dusk watch"}
        original = next(f for f in ruleset.sheet.fields if f.id == "watch")
        assert isinstance(original, EnumField) and original.values == ["night", "dawn", "dusk"]

    def test_hidden_entries_not_offered(self, ruleset: Ruleset) -> None:
        """SPEC §4: the entries a layer hides are not offered; they stay readable for what a
        pick of one gave (004: "sigue contando por lo que dio")."""
        played = effective_ruleset(ruleset, ["long_day"])
        offered = [e.id for c in played.catalog_models for e in c.entries or ()]
        assert offered == ["quick-hands"]
        assert list(played.hidden_entries) == ["charms/ember-ward"]
        assert [e.id for c in ruleset.catalog_models for e in c.entries or ()] == [
            "quick-hands",
            "ember-ward",
        ]

    @pytest.mark.parametrize(
        ("hide", "hidden"),
        [
            ({"filter": "cost", "above": 0}, ["ember-ward"]),
            ({"filter": "cost", "below": 1}, ["quick-hands"]),
            ({"filter": "kind", "equals": "ward"}, ["ember-ward"]),
            ({"filter": "kind", "notIn": ["ward"]}, ["quick-hands"]),
            ({"filter": "tags", "equals": "hand"}, ["quick-hands"]),
            ({"filter": "tags", "notIn": ["hand"]}, ["ember-ward"]),
        ],
    )
    def test_hide_comparisons(self, hide: dict[str, Any], hidden: list[str]) -> None:
        """A hide rule compares the entry's filter value (module doc: above/below greater or
        less than; equals one of a tags list; notIn none of them)."""
        data = layered(layer(catalogs=[{"id": "charms", "hide": hide}]))
        data["catalogs"][0]["filters"].append({"id": "tags", "label": "Tags", "type": "tags"})
        entries = data["catalogs"][0]["entries"]
        entries[0]["filters"]["tags"] = ["hand", "quick"]
        entries[1]["filters"]["tags"] = ["fire"]
        played = effective_ruleset(load_ruleset(data), ["grim"])
        assert [ref.split("/")[1] for ref in played.hidden_entries] == hidden

    def test_an_entry_without_the_filter_is_not_hidden(self) -> None:
        """An entry with no value for the filter is never hidden (nothing to compare)."""
        data = layered(
            layer(catalogs=[{"id": "charms", "hide": {"filter": "kind", "notIn": ["x"]}}])
        )
        data["catalogs"][0]["entries"][1]["filters"].pop("kind")
        played = effective_ruleset(load_ruleset(data), ["grim"])
        assert list(played.hidden_entries) == ["charms/quick-hands"]

    def test_guidance_follows_in_declaration_order(self, ruleset: Ruleset) -> None:
        """SCHEMA-NOTES §12: "Layer guidance is added after the base text"; layers apply in
        the file's order whatever order the game names them in."""
        played = effective_ruleset(ruleset, ["hushed", "long_day"])
        assert played.layer_guidance == (
            "The long day is on. Use the harsher ladder; nobody keeps the night watch.",
            "Hushed is on. Speak softly.",
        )
        assert played.gm == ruleset.gm and ruleset.layer_guidance == ()

    def test_currencies_removed_in_the_items_json(self, ruleset: Ruleset) -> None:
        """The removed currency units leave the effective `items` JSON (items are not
        executed yet), and so do the families it removes."""
        played = effective_ruleset(ruleset, ["long_day"])
        assert played.items is not None
        assert played.items["currencies"][0]["units"] == [
            {"id": "bit", "label": "bits", "value": 1}
        ]
        gone = layered(layer(currencies={"removeFamilies": ["coin"]}))
        assert "currencies" not in (effective_ruleset(load_ruleset(gone), ["grim"]).items or {})

    def test_later_of_a_conflicting_pair_goes(self, ruleset: Ruleset) -> None:
        """Of two active layers in conflict the later declared is not applied (the 5e
        reference file's note on High magic; naming one side of the pair is enough)."""
        played = effective_ruleset(ruleset, ["endless_night", "long_day"])
        assert [item.id for item in played.layers_played] == ["long_day"]
        reference = load_ruleset(REFERENCE_RULESETS / "ruleset-5e-2014.example.json")
        both = active_layers(reference, ["high_magic", "low_magic"])
        assert [item.id for item in both] == ["low_magic"]

    def test_a_layer_that_does_not_fit_is_not_applied(self) -> None:
        """Two layers on one field apply in order; a later one that would leave no value, or
        whose default is already gone, is not applied at all (its ladder neither)."""
        first = layer(
            "first", fields=[{"id": "watch", "removeValues": ["night"], "default": "dawn"}]
        )
        second = layer(
            "second",
            fields=[{"id": "watch", "removeValues": ["dawn", "dusk"], "default": "night"}],
            difficultyLadder=[{"label": "Easy", "dc": 3}],
        )
        third = layer("third", fields=[{"id": "watch", "removeValues": ["dawn"]}])
        data = layered(first, second, third)
        data["sheet"]["live"]["pools"][1].pop("hideWhen")
        loaded = load_ruleset(data)
        assert [item.id for item in active_layers(loaded, ["first", "second"])] == ["first"]
        assert [item.id for item in active_layers(loaded, ["first", "third"])] == ["first"]
        assert [item.id for item in active_layers(loaded, ["third"])] == ["third"]
        played = effective_ruleset(loaded, ["first", "second"])
        assert (
            played.resolution_rules.difficulty_ladder == loaded.resolution_rules.difficulty_ladder
        )

    def test_two_layers_narrow_one_field_in_turn(self) -> None:
        """Two layers that fit both apply: the values left by both, the later default."""
        first = layer(
            "first", fields=[{"id": "watch", "removeValues": ["night"], "default": "dawn"}]
        )
        second = layer(
            "second", fields=[{"id": "watch", "removeValues": ["dawn"], "default": "dusk"}]
        )
        data = layered(first, second)
        data["sheet"]["live"]["pools"][1].pop("hideWhen")
        played = effective_ruleset(load_ruleset(data), ["first", "second"])
        watch = next(f for f in played.sheet.fields if f.id == "watch")
        assert isinstance(watch, EnumField) and (watch.values, watch.default) == (["dusk"], "dusk")

    def test_later_ladder_wins(self, ruleset: Ruleset) -> None:
        """Each active ladder replaces the one before it, in declaration order."""
        data = layered(
            layer("a", difficultyLadder=[{"label": "A", "dc": 4}]),
            layer("b", difficultyLadder=[{"label": "B", "dc": 5}]),
        )
        played = effective_ruleset(load_ruleset(data), ["b", "a"])
        assert [r.label for r in played.resolution_rules.difficulty_ladder or ()] == ["B"]


class TestChosenLayers:
    def test_ids_in_order_without_repeats(self, ruleset: Ruleset) -> None:
        """`--layers a,b`: comma-separated ids, spaces and repeats dropped."""
        assert chosen_layers(ruleset, " hushed, long_day,hushed,") == ("hushed", "long_day")
        assert chosen_layers(ruleset, "") == ()

    def test_unknown_id_is_refused(self, ruleset: Ruleset) -> None:
        """A new game starts on the rules the player chose or not at all: an unknown id is
        refused, named, with the layers the ruleset has."""
        with pytest.raises(LayerChoiceError) as caught:
            chosen_layers(ruleset, "long_day,ghost")
        assert str(caught.value) == (
            "--layers: ruleset 'layers' has no layer 'ghost' "
            "(its layers: long_day, endless_night, hushed)"
        )

    def test_conflicting_layers_are_refused(self, ruleset: Ruleset) -> None:
        """Two layers in conflict cannot both start a game (SCHEMA-NOTES §12 `conflicts`)."""
        with pytest.raises(LayerChoiceError, match="'long_day' and 'endless_night' conflict"):
            chosen_layers(ruleset, "long_day,endless_night")


class TestStartLayers:
    def test_fills_a_start_without_layers(self) -> None:
        """`--layers` sets `rulesetLayers` of a start that names none (SPEC §4)."""
        start = Snapshot.model_validate({"gameCharacterCards": {"Mara": {}}})
        filled = start_layers(start, ("long_day",))
        assert filled.ruleset_layers == ("long_day",)
        assert filled.game_character_cards == start.game_character_cards
        assert start_layers(start, ()) is start

    def test_same_layers_are_kept(self) -> None:
        """A start that already plays the same layers (in any order) is kept as it is."""
        start = Snapshot.model_validate({"rulesetLayers": ["hushed", "long_day"]})
        assert start_layers(start, ("long_day", "hushed")) is start

    def test_other_layers_are_refused(self) -> None:
        """A start that plays other layers is a game already created: its layers stand and
        `--layers` is refused rather than change the rules under it."""
        start = Snapshot.model_validate({"rulesetLayers": ["hushed"]})
        with pytest.raises(LayerChoiceError, match="already plays the layers hushed"):
            start_layers(start, ("long_day",))
