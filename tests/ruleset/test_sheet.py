"""The `sheet` section: references, fields, derived values, lists and live state (002, 004)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from gmtags import Ruleset, RulesetError, load_ruleset
from gmtags.ruleset.refs import RulesetValueRef, step_lookup
from gmtags.ruleset.sheet import (
    EnumTableDerived,
    LiveTrack,
    MultiplyDerived,
    NumberColumn,
    StepTableDerived,
    TextField,
)
from tests.conftest import FIXTURES, REFERENCE_RULESETS

BASE: dict[str, Any] = json.loads((FIXTURES / "rulesets" / "sheet-base.json").read_text())

HARM: dict[str, Any] = {
    "id": "harm",
    "label": "Harm",
    "min": 0,
    "max": 4,
    "levels": [
        {"label": "Scuffed", "penalty": 0},
        {"label": "Winded", "penalty": -1},
        {"label": "Bleeding", "penalty": -3},
        {"label": "Down", "penalty": -99},
    ],
    "kinds": [
        {"id": "knock", "label": "K", "severity": 0},
        {"id": "tear", "label": "T", "severity": 1},
    ],
}

STRAIN: dict[str, Any] = {
    "id": "strain",
    "label": "Strain",
    "min": 0,
    "max": {"derived": "strain_boxes"},
    "boxes": {"penalty": {"by": "remaining", "table": [[0, -1], [1, 0]]}},
    "kinds": [{"id": "strain", "label": "S", "severity": 0}],
    "fill": "indexed",
    "onFull": "refuse",
}

STANCE: dict[str, Any] = {
    "id": "stance",
    "label": "Stance",
    "values": ["guarded", "steady", "reckless"],
    "valueLabels": {"guarded": "Guarded", "steady": "Steady", "reckless": "Reckless"},
    "default": "steady",
}


TOUGHNESS: dict[str, Any] = BASE["sheet"]["fields"][0]
"""The base sheet's one field, which its Grit pool reads."""


def base() -> dict[str, Any]:
    return copy.deepcopy(BASE)


def sheet_with(**changes: Any) -> dict[str, Any]:
    data = base()
    data["sheet"].update(changes)
    return data


def live_with(**changes: Any) -> dict[str, Any]:
    data = base()
    data["sheet"]["live"].update(changes)
    return data


def paths(data: dict[str, Any]) -> list[str]:
    with pytest.raises(RulesetError) as caught:
        load_ruleset(data)
    return sorted(problem.path for problem in caught.value.problems)


def derived_sum(identifier: str, *refs: dict[str, Any]) -> dict[str, Any]:
    return {"id": identifier, "label": identifier.title(), "op": "sum", "of": list(refs)}


class TestReferenceRulesets:
    @pytest.mark.parametrize(
        "name", ["gravewatch.json", "ember-roads.json", "ruleset-5e-2014.example.json"]
    )
    def test_sheet_half_round_trips(self, name: str) -> None:
        """A reference ruleset's sheet, rests and party survive a dump and a reload unchanged."""
        ruleset = load_ruleset(REFERENCE_RULESETS / name)
        again = load_ruleset(ruleset.model_dump(mode="json", by_alias=True, exclude_none=True))
        assert again == ruleset

    def test_a_full_dump_reloads(self) -> None:
        """A dump that writes every absent key as null imports again: null reads as absent."""
        ruleset = load_ruleset(REFERENCE_RULESETS / "ember-roads.json")
        assert load_ruleset(ruleset.model_dump(mode="json", by_alias=True)) == ruleset

    def test_gravewatch_wound_track_and_cap(self) -> None:
        """Gravewatch's Harm is a wound track with scars as extra levels; Soothe's cap is live."""
        ruleset = load_ruleset(REFERENCE_RULESETS / "gravewatch.json")
        harm = ruleset.sheet.live.tracks[0]
        assert harm.is_wound and harm.extra is not None and harm.extra.list == "scars"
        soothe = next(skill for skill in ruleset.sheet.skills if skill.id == "soothe")
        assert soothe.cap is not None and soothe.cap.key == "livePool"
        assert ruleset.resolution_common.penalty_from == "harm"

    def test_ember_roads_strain_boxes(self) -> None:
        """Ember Roads' Strain is an indexed box track whose max is a derived value."""
        ruleset = load_ruleset(REFERENCE_RULESETS / "ember-roads.json")
        strain = next(track for track in ruleset.sheet.live.tracks if track.id == "strain")
        assert strain.fill_mode == "indexed" and strain.when_full == "refuse"
        assert isinstance(strain.max, RulesetValueRef) and strain.max.target == "strain_boxes"

    def test_5e_proficiency_reads_derived_declared_first(self) -> None:
        """5e's proficiency bonus reads a step table above the derived value that reads a skill."""
        ruleset = load_ruleset(REFERENCE_RULESETS / "ruleset-5e-2014.example.json")
        bonus = ruleset.sheet.derived[0]
        assert isinstance(bonus, StepTableDerived) and step_lookup(bonus.table, 9) == 4
        assert ruleset.resolution_common.proficiency is not None


class TestRulesetValueRef:
    @pytest.mark.parametrize(
        "ref",
        [
            {"const": 2.5},
            {"field": "toughness"},
            {"abilityMod": "brawn"},
            {"liveTrack": "heat", "read": "remaining"},
            {"listSum": {"list": "gear", "column": "bulk", "onlyWhen": "packed"}},
            {
                "listSum": {
                    "list": "talents",
                    "count": True,
                    "where": {"column": "tier", "equals": 2},
                }
            },
            {"itemStat": {"from": "worn", "pick": "count"}},
        ],
    )
    def test_one_key_shapes(self, ref: dict[str, Any]) -> None:
        """002: a reference is one key; 004 1.205: listSum may count rows and filter them."""
        assert RulesetValueRef.model_validate(ref).key == next(iter(ref))

    @pytest.mark.parametrize(
        "ref",
        [
            {},
            {"const": 1, "field": "toughness"},
            {"field": "toughness", "read": "value"},
            {"const": True},
            {"const": None},
            {"liveState": "stance"},
            {"listSum": {"list": "gear"}},
            {"listSum": {"list": "gear", "column": "bulk", "count": True}},
            {"itemStat": {"from": "worn", "pick": "sum"}},
        ],
    )
    def test_malformed_references_are_refused(self, ref: dict[str, Any]) -> None:
        """One key; read only with liveTrack; listSum sums or counts; itemStat has stat or count."""
        data = sheet_with(derived=[derived_sum("broken", ref)])
        assert paths(data)[0].startswith("sheet.derived.0.of.0")

    def test_step_table_thresholds_ascend(self) -> None:
        """SCHEMA-NOTES §4: thresholds strictly ascend; below the first reads the first value."""
        table = {
            "id": "t",
            "label": "T",
            "op": "stepTable",
            "from": {"const": 1},
            "table": [[3, 1], [3, 2]],
        }
        assert paths(sheet_with(derived=[table])) == ["sheet.derived.0.table"]
        assert step_lookup([(3, 1), (6, 2)], 0) == 1

    def test_field_reference_must_be_a_number_field(self) -> None:
        """002: `field` names a number field."""
        data = sheet_with(
            fields=[
                TOUGHNESS,
                {"id": "calling", "label": "Calling", "type": "text", "maxLength": 60},
            ],
            derived=[derived_sum("calling_value", {"field": "calling"})],
        )
        assert paths(data) == ["sheet.derived.0.of.0.field"]


class TestFields:
    def test_every_field_type_loads(self) -> None:
        """002, "La ficha": number, text, longtext, boolean, enum and dice fields."""
        fields = [
            {"id": "level", "label": "Level", "type": "number", "min": 1, "max": 20, "default": 1},
            {
                "id": "foes",
                "label": "Favoured foes",
                "type": "text",
                "maxLength": 200,
                "suggestions": ["Beasts", "Undead"],
                "pick": {"const": 2},
            },
            {"id": "story", "label": "Story", "type": "longtext", "maxLength": 4000},
            {"id": "brave", "label": "Brave", "type": "boolean", "default": True},
            {
                "id": "watch",
                "label": "Watch",
                "type": "enum",
                "values": ["dusk", "night"],
                "valueLabels": {"dusk": "Dusk"},
                "default": "night",
            },
            {"id": "weapon", "label": "Weapon", "type": "dice", "default": "1d8"},
        ]
        ruleset = load_ruleset(sheet_with(fields=[TOUGHNESS, *fields]))
        assert [field.type for field in ruleset.sheet.fields[1:]] == [
            "number",
            "text",
            "longtext",
            "boolean",
            "enum",
            "dice",
        ]

    def test_text_max_length_defaults_to_the_ceiling(self) -> None:
        """002's crew example writes a text column without maxLength; it reads as 500."""
        text = {"id": "motto", "label": "Motto", "type": "text"}
        field = load_ruleset(sheet_with(fields=[TOUGHNESS, text])).sheet.fields[1]
        assert isinstance(field, TextField) and field.max_length == 500

    @pytest.mark.parametrize(
        ("field", "path"),
        [
            ({"id": "n", "label": "N", "type": "number", "min": 3, "max": 1}, "sheet.fields.1"),
            (
                {"id": "n", "label": "N", "type": "number", "min": 0, "max": 3, "default": 1.5},
                "sheet.fields.1",
            ),
            (
                {"id": "e", "label": "E", "type": "enum", "values": ["a"], "default": "b"},
                "sheet.fields.1",
            ),
            (
                {
                    "id": "e",
                    "label": "E",
                    "type": "enum",
                    "values": ["a"],
                    "valueLabels": {"b": "B"},
                },
                "sheet.fields.1",
            ),
            (
                {"id": "t", "label": "T", "type": "text", "maxLength": 501},
                "sheet.fields.1.maxLength",
            ),
            (
                {"id": "t", "label": "T", "type": "text", "maxLength": 4, "default": "toolong"},
                "sheet.fields.1",
            ),
            (
                {"id": "t", "label": "T", "type": "text", "suggestions": ["w"] * 41},
                "sheet.fields.1.suggestions",
            ),
            ({"id": "x", "label": "X", "type": "colour"}, "sheet.fields.1.type"),
        ],
    )
    def test_field_shapes_are_checked(self, field: dict[str, Any], path: str) -> None:
        """Fields are strict and tagged by type; an error keeps the plain JSON path."""
        assert paths(sheet_with(fields=[TOUGHNESS, field])) == [path]

    def test_hide_when_takes_exactly_one_comparison(self) -> None:
        """002, "hideWhen oculta un campo": exactly one of equals, notEquals or in."""
        field = {
            "id": "oil",
            "label": "Oil",
            "type": "number",
            "min": 0,
            "max": 6,
            "hideWhen": {"field": "toughness", "equals": 0, "notEquals": 1},
        }
        assert paths(sheet_with(fields=[TOUGHNESS, field])) == ["sheet.fields.1.hideWhen"]

    def test_hide_when_values_the_field_can_hold_load(self) -> None:
        """Gravewatch hides lantern oil from every warden not on the night watch."""
        fields = [
            {"id": "watch", "label": "Watch", "type": "enum", "values": ["dusk", "night", "dawn"]},
            {
                "id": "lantern",
                "label": "Lantern oil",
                "type": "number",
                "min": 0,
                "max": 6,
                "hideWhen": {"field": "watch", "notEquals": "night"},
            },
        ]
        ruleset = load_ruleset(sheet_with(fields=[TOUGHNESS, *fields]))
        assert ruleset.sheet.fields[2].hide_when is not None

    def test_240_fields_are_allowed(self) -> None:
        """004, "Más campos": a sheet declares up to 240 fields, never 241."""

        def many(count: int) -> list[dict[str, Any]]:
            booleans = [
                {"id": f"f{n}", "label": f"F{n}", "type": "boolean"} for n in range(count - 1)
            ]
            return [TOUGHNESS, *booleans]

        assert len(load_ruleset(sheet_with(fields=many(240))).sheet.fields) == 240
        assert paths(sheet_with(fields=many(241))) == ["sheet.fields"]


class TestEntries:
    def test_untrained_rules(self) -> None:
        """002: normal, {by}, harder on a movable pool target, refuse; a section may carry one."""
        data = sheet_with(
            sections=[{"id": "labour", "label": "Labour", "untrained": {"by": -1}}],
            skills=[
                {
                    "id": "dig",
                    "label": "Dig",
                    "ability": "brawn",
                    "section": "labour",
                    "untrained": "refuse",
                },
                {"id": "listen", "label": "Listen", "ability": "heart", "untrained": "harder"},
            ],
        )
        data["resolution"] = {
            "kind": "dice-pool",
            "die": {"sides": 10},
            "abilityModifier": {"op": "identity"},
            "proficiencyTiers": [{"id": "rating_0", "label": "Untried"}],
            "pool": {"min": 1, "max": 10},
            "target": {"default": 7, "min": 5, "max": 9},
        }
        ruleset = load_ruleset(data)
        assert [skill.untrained for skill in ruleset.sheet.skills] == ["refuse", "harder"]

    def test_untrained_by_is_bounded(self) -> None:
        """002: {by} lies within -20..20."""
        data = sheet_with(sections=[{"id": "s", "label": "S", "untrained": {"by": -21}}])
        assert paths(data) == ["sheet.sections.0.untrained.by"]

    def test_tiers_offered_must_exist(self) -> None:
        """skillTiers and saveTiers name proficiency tiers."""
        assert paths(sheet_with(saveTiers=["untrained", "master"])) == ["sheet.saveTiers.1"]

    def test_computed_ability(self) -> None:
        """004, 1.156: GURPS Perception is IQ plus what was bought, a read-only sum."""
        data = sheet_with(
            abilities=[
                {"id": "iq", "label": "IQ", "min": 1, "max": 20, "default": 10},
                {
                    "id": "per",
                    "label": "Perception",
                    "min": 1,
                    "max": 20,
                    "default": 10,
                    "value": [{"abilityScore": "iq"}, {"field": "perception_bought"}],
                },
            ],
            fields=[
                {
                    "id": "perception_bought",
                    "label": "Bought",
                    "type": "number",
                    "min": 0,
                    "max": 10,
                }
            ],
            skills=[{"id": "search", "label": "Search", "ability": "per"}],
            saves=[],
            live={},
        )
        assert load_ruleset(data).sheet.abilities[1].value is not None

    def test_cap_may_read_live_state(self) -> None:
        """002: Gravewatch caps Soothe at the Resolve a warden has left."""
        data = base()
        data["sheet"]["skills"][0]["cap"] = {"livePool": "grit"}
        assert load_ruleset(data).sheet.skills[0].cap is not None


class TestDerived:
    def test_multiply_takes_two_to_six(self) -> None:
        """002 (1.82) and SPEC §9: multiply's `of` holds 2–6 references."""
        two = {
            "id": "m",
            "label": "M",
            "op": "multiply",
            "of": [{"abilityMod": "brawn"}, {"field": "toughness"}],
        }
        value = load_ruleset(sheet_with(derived=[two])).sheet.derived[0]
        assert isinstance(value, MultiplyDerived)
        seven = {**two, "of": [{"const": 1}] * 7}
        assert paths(sheet_with(derived=[seven])) == ["sheet.derived.0.of"]
        one = {**two, "of": [{"const": 1}]}
        assert paths(sheet_with(derived=[one])) == ["sheet.derived.0.of"]

    def test_enum_table_on_a_live_state(self) -> None:
        """002, "Números que lo siguen.": Ember Roads' Stance on Brawn reads the live stance."""
        data = live_with(states=[STANCE])
        data["sheet"]["derived"] = [
            {
                "id": "stance_brawn",
                "label": "Stance on Brawn",
                "op": "enumTable",
                "from": {"liveState": "stance"},
                "table": {"guarded": -1, "reckless": 2},
            }
        ]
        data["resolution"]["adjust"] = [
            {"value": {"derived": "stance_brawn"}, "abilities": ["brawn"]}
        ]
        value = load_ruleset(data).sheet.derived[0]
        assert isinstance(value, EnumTableDerived) and value.default == 0

    def test_enum_table_names_exactly_one_source(self) -> None:
        """from names exactly one of field or liveState."""
        value = {
            "id": "t",
            "label": "T",
            "op": "enumTable",
            "from": {"field": "a", "liveState": "b"},
            "table": {"a": 1},
        }
        assert paths(sheet_with(derived=[value])) == ["sheet.derived.0.from"]

    def test_800_derived_values_are_allowed(self) -> None:
        """002: a sheet may have up to 800 derived values (1.729), never 801."""

        def many(count: int) -> list[dict[str, Any]]:
            return [derived_sum(f"d{n}", {"const": n}) for n in range(count)]

        assert len(load_ruleset(sheet_with(derived=many(800))).sheet.derived) == 800
        assert paths(sheet_with(derived=many(801))) == ["sheet.derived"]

    def test_adjust_names_abilities(self) -> None:
        """002, "Modificadores fuera de la ficha": adjust entries name abilities that exist."""
        data = base()
        data["resolution"]["adjust"] = [{"value": {"const": -1}, "abilities": ["wits"]}]
        assert paths(data) == ["resolution.adjust.0.abilities.0"]


class TestLists:
    GEAR: dict[str, Any] = {
        "id": "gear",
        "label": "Gear",
        "maxItems": 20,
        "columns": [
            {"id": "name", "label": "Name", "type": "text", "maxLength": 60, "required": True},
            {"id": "bulk", "label": "Bulk", "type": "number", "min": 0, "max": 3, "default": 0},
            {"id": "packed", "label": "Packed", "type": "boolean", "default": True},
        ],
    }

    def test_list_sum_reads_gear(self) -> None:
        """002: Ember Roads' Burden sums packed gear's bulk."""
        data = sheet_with(
            lists=[self.GEAR],
            derived=[
                derived_sum(
                    "burden", {"listSum": {"list": "gear", "column": "bulk", "onlyWhen": "packed"}}
                )
            ],
        )
        assert load_ruleset(data).sheet.lists[0].column("bulk") is not None

    def test_counted_rows_where_a_cell_matches(self) -> None:
        """004, "Filas contadas…": Genesys counts tier-2 talents."""
        talents = {
            "id": "talents",
            "label": "Talents",
            "columns": [
                {"id": "name", "label": "Name", "type": "text"},
                {"id": "tier", "label": "Tier", "type": "number", "min": 1, "max": 5, "default": 1},
            ],
        }
        count: dict[str, Any] = {
            "listSum": {"list": "talents", "count": True, "where": {"column": "tier", "equals": 2}}
        }
        assert load_ruleset(sheet_with(lists=[talents], derived=[derived_sum("tier2", count)]))
        count["listSum"]["where"]["equals"] = 9
        data = sheet_with(lists=[talents], derived=[derived_sum("tier2", count)])
        assert paths(data) == ["sheet.derived.0.of.0.listSum.where.equals"]

    def test_computed_column(self) -> None:
        """004, 1.210: a CoC speciality's value sums base, occupation and interest."""
        columns = [
            {"id": "name", "label": "Name", "type": "text"},
            *(
                {"id": key, "label": key.title(), "type": "number", "min": 0, "max": 99}
                for key in ("base", "occupation", "interest")
            ),
            {
                "id": "value",
                "label": "Value",
                "type": "number",
                "min": 0,
                "max": 99,
                "sum": ["base", "occupation", "interest"],
            },
        ]
        ruleset = load_ruleset(
            sheet_with(lists=[{"id": "skills_list", "label": "Skills", "columns": columns}])
        )
        value = ruleset.sheet.lists[0].column("value")
        assert isinstance(value, NumberColumn) and value.sum == ["base", "occupation", "interest"]

    def test_rolled_column_reads_its_sides(self) -> None:
        """002 (1.85): a number column rolls dice whose sides come from another column."""
        columns: list[dict[str, Any]] = [
            {"id": "die", "label": "Die", "type": "enum", "values": ["d6", "d8"]},
            {
                "id": "hp",
                "label": "HP",
                "type": "number",
                "min": 1,
                "max": 8,
                "roll": {"count": 1, "sides": {"column": "die"}},
            },
        ]
        assert load_ruleset(
            sheet_with(lists=[{"id": "levels", "label": "Levels", "columns": columns}])
        )
        columns[1]["roll"]["sides"] = {"column": "nope"}
        data = sheet_with(lists=[{"id": "levels", "label": "Levels", "columns": columns}])
        assert paths(data) == ["sheet.lists.0.columns.1.roll.sides.column"]

    def test_24_columns_are_allowed(self) -> None:
        """002: a list has up to 24 columns (1.165), never 25."""

        def columns(count: int) -> list[dict[str, Any]]:
            return [{"id": f"c{n}", "label": f"C{n}", "type": "boolean"} for n in range(count)]

        assert load_ruleset(sheet_with(lists=[{"id": "l", "label": "L", "columns": columns(24)}]))
        data = sheet_with(lists=[{"id": "l", "label": "L", "columns": columns(25)}])
        assert paths(data) == ["sheet.lists.0.columns"]

    def test_row_checks(self) -> None:
        """004, "Filas que son pruebas por sí mismas": a row is a check by its name and rating."""
        science: dict[str, Any] = {
            "id": "science",
            "label": "Science",
            "columns": [
                {"id": "name", "label": "Name", "type": "text"},
                {"id": "rating", "label": "Rating", "type": "number", "min": 0, "max": 99},
            ],
            "checks": [{"id": "science", "name": "name", "rating": "rating", "ability": "heart"}],
        }
        assert load_ruleset(sheet_with(lists=[science])).sheet.lists[0].checks
        science["checks"].append({"id": "careful", "name": "name", "rating": "rating"})
        assert paths(sheet_with(lists=[science])) == [
            "sheet.lists.0.checks.0.label",
            "sheet.lists.0.checks.1.label",
        ]

    def test_contextual_rows(self) -> None:
        """004: Fate stunts name a row, a skill column and a bonus column."""
        stunts = {
            "id": "stunts",
            "label": "Stunts",
            "maxItems": 10,
            "columns": [
                {"id": "name", "label": "Name", "type": "text", "maxLength": 80},
                {"id": "skill", "label": "Skill", "type": "text", "maxLength": 40},
                {
                    "id": "bonus",
                    "label": "Bonus",
                    "type": "number",
                    "min": -5,
                    "max": 5,
                    "default": 2,
                },
            ],
            "contextual": {
                "name": "name",
                "skill": "skill",
                "bonus": "bonus",
                "cost": [{"track": "heat", "by": 2}],
            },
        }
        assert load_ruleset(sheet_with(lists=[stunts])).sheet.lists[0].contextual

    def test_contextual_pool_effect_needs_a_dice_pool(self) -> None:
        """004: every contextual check effect but `best` needs a dice pool."""
        stunts: dict[str, Any] = {
            "id": "stunts",
            "label": "Stunts",
            "columns": [
                {"id": "name", "label": "Name", "type": "text"},
            ],
            "contextual": {"name": "name", "check": {"dice": 1}},
        }
        assert paths(sheet_with(lists=[stunts])) == ["sheet.lists.0.contextual.check"]
        stunts["contextual"]["check"] = {"best": True}
        assert load_ruleset(sheet_with(lists=[stunts]))


class TestWoundTracks:
    def test_seed_harm_track_loads(self) -> None:
        """002's Harm: Scuffed, Winded, Bleeding and Down with knock and tear kinds."""
        data = live_with(tracks=[BASE["sheet"]["live"]["tracks"][0], HARM])
        data["resolution"]["penaltyFrom"] = "harm"
        harm = load_ruleset(data).sheet.live.tracks[1]
        assert harm.is_wound and harm.fill_mode == "sequential" and harm.when_full == "upgrade"
        assert [level.penalty for level in harm.levels or []] == [0, -1, -3, -99]

    def test_seed_strain_boxes_load(self) -> None:
        """002's Strain: boxes as many as a derived value, indexed, refusing when full."""
        data = live_with(tracks=[STRAIN])
        data["sheet"]["derived"] = [
            derived_sum("strain_boxes", {"const": 2}, {"abilityMod": "heart"})
        ]
        strain = load_ruleset(data).sheet.live.tracks[0]
        assert isinstance(strain, LiveTrack) and strain.boxes is not None

    def test_extra_levels_come_from_number_columns(self) -> None:
        """002, "Niveles que añade una lista": countColumn and penaltyColumn are number columns."""
        scars = {
            "id": "scars",
            "label": "Scars",
            "columns": [
                {"id": "name", "label": "Scar", "type": "text"},
                {"id": "levels", "label": "Levels", "type": "number", "min": 1, "max": 2},
                {"id": "penalty", "label": "Penalty", "type": "text"},
            ],
        }
        data = live_with(
            tracks=[
                {
                    **HARM,
                    "extra": {"list": "scars", "countColumn": "levels", "penaltyColumn": "penalty"},
                }
            ]
        )
        data["sheet"]["lists"] = [scars]
        assert paths(data) == ["sheet.live.tracks.0.extra.penaltyColumn"]

    def test_plain_track_max_from_a_reference(self) -> None:
        """002, "El max de un contador simple…": max may read a field; alwaysShow lists it."""
        track = {
            "id": "will",
            "label": "Willpower",
            "min": 0,
            "max": {"field": "toughness"},
            "alwaysShow": True,
        }
        loaded = load_ruleset(live_with(tracks=[track])).sheet.live.tracks[0]
        assert loaded.always_show and isinstance(loaded.max, RulesetValueRef)

    def test_read_penalty_on_a_wound_track(self) -> None:
        """002: `read: "penalty"` reads the penalty in force of a wound track."""
        data = live_with(tracks=[HARM])
        data["sheet"]["derived"] = [derived_sum("hurt", {"liveTrack": "harm", "read": "penalty"})]
        assert load_ruleset(data).sheet.derived[0].id == "hurt"


class TestLivePoolsAndStates:
    def test_start_from(self) -> None:
        """004, "Una reserva viva puede declarar startFrom": SAN starts at a sheet value."""
        data = live_with(
            pools=[
                {
                    "id": "san",
                    "label": "Sanity",
                    "max": {"const": 99},
                    "startFrom": {"field": "toughness"},
                }
            ],
            tracks=[
                {
                    "id": "luck",
                    "label": "Luck",
                    "min": 0,
                    "max": 99,
                    "startFrom": {"abilityScore": "heart"},
                }
            ],
        )
        ruleset = load_ruleset(data)
        assert ruleset.sheet.live.pools[0].start_from is not None
        assert not ruleset.sheet.live.pools[0].starts_empty

    def test_seed_stance_state(self) -> None:
        """002, "Estados vivos": the stance starts steady and shows its labels."""
        state = load_ruleset(live_with(states=[STANCE])).sheet.live.states[0]
        assert state.start == "steady" and state.value_labels is not None

    def test_state_default_is_first_value(self) -> None:
        """002: a state without default starts at its first value."""
        state = load_ruleset(live_with(states=[{**STANCE, "default": None}]))
        assert state.sheet.live.states[0].start == "guarded"

    def test_forty_values_are_allowed(self) -> None:
        """002: a state has two to forty values."""
        values = [f"shape {n}" for n in range(40)]
        data = live_with(states=[{"id": "shape", "label": "Shape", "values": values}])
        assert len(load_ruleset(data).sheet.live.states[0].values) == 40
        data = live_with(states=[{"id": "shape", "label": "Shape", "values": ["one"]}])
        assert paths(data) == ["sheet.live.states.0.values"]


class TestBuilderAndAdvancement:
    def test_builder_is_kept_as_written(self) -> None:
        """004: sheet.builder is creation-time: kept as written (typed as builder_model)."""
        builder = {"steps": [{"id": "notes", "label": "Notes", "kind": "trained"}]}
        ruleset = load_ruleset(sheet_with(builder=builder))
        assert ruleset.sheet.builder == builder
        assert ruleset.sheet.builder_model is not None
        dumped = ruleset.model_dump(by_alias=True, exclude_none=True)
        assert dumped["sheet"]["builder"] == builder

    def test_builder_is_validated_strictly(self) -> None:
        """004: a builder of unknown shapes is refused at its paths (tests/builder has the rest)."""
        builder = {"tier": 2, "steps": [{"id": "s", "kind": "anything", "whatever": [1, 2]}]}
        assert paths(sheet_with(builder=builder)) == [
            "sheet.builder.steps.0.kind",
            "sheet.builder.tier",
        ]

    def test_advancement_up_to_64_fields(self) -> None:
        """004, "Listas de avance más largas": up to 64 advanceable fields, never 65."""
        fields = [
            TOUGHNESS,
            *(
                {"id": f"f{n}", "label": f"F{n}", "type": "number", "min": 0, "max": 9}
                for n in range(65)
            ),
        ]
        data = sheet_with(
            fields=fields,
            advancement={
                "fields": [f"f{n}" for n in range(64)],
                "text": "Raise a field after a session.",
            },
        )
        advancement = load_ruleset(data).sheet.advancement
        assert advancement is not None and len(advancement.fields) == 64
        data["sheet"]["advancement"]["fields"].append("f64")
        assert paths(data) == ["sheet.advancement.fields"]


class TestResolutionCommon:
    def test_shared_keys_are_exposed_and_resolution_stays_raw(self) -> None:
        """The shared keys are a model; `resolution` stays the JSON object, kind and all."""
        ruleset: Ruleset = load_ruleset(base())
        assert ruleset.resolution["kind"] == "dice-sum" and ruleset.resolution_kind == "dice-sum"
        assert ruleset.resolution_common.ability_modifier.op == "identity"
        assert ruleset.resolution_common.proficiency_tiers[1].flat == 1

    def test_shared_keys_are_validated_at_their_paths(self) -> None:
        """abilityModifier's table goes with stepTable only; tiers are 1–12; flat is ±50."""
        data = base()
        data["resolution"]["abilityModifier"] = {"op": "stepTable"}
        data["resolution"]["proficiencyTiers"][1]["flat"] = 51
        assert paths(data) == ["resolution.abilityModifier", "resolution.proficiencyTiers.1.flat"]
