"""`gmtags.ruleset.read`: a ruleset with problems in several places reports every one of them
at once, each at its path, and nothing that only follows from another (SPEC §1: "RulesetError
lists every problem found, each with a JSON path").

Each golden test breaks a sample in several places and compares the whole report, in the order
an author reads it (the shapes first, then the rules across the file), with the text below it:
one problem a line, `path: message`. `TestNoFollowOn` adds one shape problem at a time to the
valid rulesets and finds it reported alone.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from gmtags import RulesetError, load_ruleset
from tests.builder.samples import builder, points, step
from tests.conftest import FIXTURES, REFERENCE_RULESETS

_GRAVEWATCH: dict[str, Any] = json.loads(
    (REFERENCE_RULESETS / "gravewatch.json").read_text(encoding="utf-8")
)


VALID = [
    *sorted(REFERENCE_RULESETS.glob("*.json")),
    *sorted((FIXTURES / "rulesets" / "builder").glob("*.json")),
]
"""Valid rulesets between them holding every section, a party and guided builders."""


def gravewatch() -> dict[str, Any]:
    """A fresh copy of the Gravewatch reference ruleset (a dice pool with catalogs and items)."""
    return copy.deepcopy(_GRAVEWATCH)


def report(data: dict[str, Any]) -> str:
    """The problems `load_ruleset` refuses `data` with, one `path: message` a line."""
    with pytest.raises(RulesetError) as caught:
        load_ruleset(data)
    return "\n".join(str(problem) for problem in caught.value.problems)


def golden(text: str) -> str:
    """A golden report written as an indented block."""
    return "\n".join(line.strip() for line in text.strip().splitlines())


class TestListsOverTheirCeiling:
    def test_the_count_and_every_item_are_reported(self) -> None:
        """004: "Hasta 32 pasos", "hasta 12 reservas de creación", "hasta 40 reglas de
        creación", "sheet.builder.profiles (hasta 16)": a list over its ceiling is refused at
        the list, and the problems of its items (their shapes, and the rules across the builder
        and the file) are reported beside it, each at its item's path."""
        data = points()
        found = builder(data)
        found["steps"] += [
            {"id": f"notes_{n}", "label": "Notes", "kind": "fields", "fields": ["occupation"]}
            for n in range(24)
        ]
        found["steps"][12]["kind"] = "feats"
        found["steps"][33]["fields"] = ["nowhere"]
        found["pools"] += [
            {"id": f"spare_{n}", "label": "Spare", "budget": {"const": 1}} for n in range(10)
        ]
        found["pools"][4]["creditLimit"] = -1
        found["pools"][12]["budget"] = {"field": "nowhere"}
        found["constraints"] += [
            {"id": f"rule_{n}", "label": "Rule", "step": "traits", "approved": "approved"}
            for n in range(39)
        ]
        found["constraints"][7]["label"] = "Rule " * 81
        found["constraints"][40]["step"] = "nowhere"
        found["profiles"] += [
            {"id": f"kind_{n}", "label": "Kind", "when": {"field": "dragon"}, "steps": ["traits"]}
            for n in range(15)
        ]
        found["profiles"][16]["steps"] = []
        found["profiles"][5]["budgets"] = {"nowhere": {"const": 1}}
        assert report(data) == golden(
            """
            sheet.builder.steps: a builder has at most 32 steps, not 34
            sheet.builder.steps.12.kind: kind must be one of catalog, fields, abilities, allocate, trained, startingGear, choices, spend, rows, initialize, roll
            sheet.builder.pools: a builder has at most 12 pools, not 13
            sheet.builder.pools.4.creditLimit: Input should be greater than or equal to 0
            sheet.builder.constraints: a builder has at most 40 constraints, not 41
            sheet.builder.constraints.7.label: String should have at most 400 characters
            sheet.builder.profiles: a builder has at most 16 profiles, not 17
            sheet.builder.profiles.16: a profile brings its own steps, budgets or both; this one has neither
            sheet.builder.constraints.40.step: names no step 'nowhere'
            sheet.builder.profiles.5.budgets.nowhere: names no pool 'nowhere'
            sheet.builder.steps.33.fields.0: names no field 'nowhere'
            sheet.builder.pools.12.budget.field: names no field 'nowhere'
            """  # noqa: E501
        )

    def test_at_the_ceiling_nothing_is_refused(self) -> None:
        """004, "Hasta 32 pasos": 32 steps, 12 pools, 40 constraints and 16 profiles load."""
        data = points()
        found = builder(data)
        found["steps"] += [
            {"id": f"notes_{n}", "label": "Notes", "kind": "fields", "fields": ["occupation"]}
            for n in range(32 - len(found["steps"]))
        ]
        found["pools"] += [
            {"id": f"spare_{n}", "label": "Spare", "budget": {"const": 1}}
            for n in range(12 - len(found["pools"]))
        ]
        found["constraints"] += [
            {"id": f"rule_{n}", "label": "Rule", "step": "traits", "approved": "approved"}
            for n in range(40 - len(found["constraints"]))
        ]
        found["profiles"] += [
            {"id": f"kind_{n}", "label": "Kind", "when": {"field": "dragon"}, "steps": ["traits"]}
            for n in range(16 - len(found["profiles"]))
        ]
        model = load_ruleset(data).sheet.builder_model
        assert model is not None
        counts = [len(model.steps), len(model.pools), len(model.constraints), len(model.profiles)]
        assert counts == [32, 12, 40, 16]


class TestRulesAcrossTheBuilder:
    def test_they_run_on_the_parts_that_parsed(self) -> None:
        """004 (BUILDER chunk A): a step, pool or rating map with a problem of its own hides no
        rule across the others: "solo pueden leer valores que cambian pasos anteriores",
        `within.step` an earlier catalog step, a constraint's step, a catalog and a row's
        defaults are all checked on the parts that parsed, each at its place in the file. What
        names the broken parts (a profile listing the broken step, a budget for the broken
        pool, an offer on the skill whose map is broken) is not reported again."""
        data = points()
        found = builder(data)
        step(data, "attributes")["priorities"] = "high"
        found["ratingTiers"][0]["tiers"] = []
        found["pools"][1]["caps"] = [{"filter": "flaw"}]
        step(data, "type")["when"] = {"field": "luck"}
        step(data, "moon_gifts")["catalog"] = "moons"
        step(data, "moon_gifts")["within"] = {"step": "traits", "filter": "aspect"}
        step(data, "retainers")["defaults"] = {"role": 7}
        found["constraints"][0]["step"] = "flaws"
        found["profiles"][0]["steps"] = ["aspect_gifts", "attributes"]
        found["profiles"][1]["budgets"] = {"interest": {"const": 3}}
        assert report(data) == golden(
            """
            sheet.builder.steps.1.priorities: Input should be a valid list
            sheet.builder.pools.1.caps.0.maxCredit: Field required
            sheet.builder.ratingTiers.0.tiers: List should have at least 1 item after validation, not 0
            sheet.builder.steps.5.within.step: 'traits' is not a step declared before this one
            sheet.builder.constraints.0.step: names no step 'flaws'
            sheet.builder.steps.5.catalog: names no catalog 'moons'
            sheet.builder.steps.7.defaults.role: column 'role' can never hold 7 (not text)
            sheet.builder.steps.0.when: when reads field 'luck', which this step or a later one changes; it reads only what earlier steps change
            """  # noqa: E501
        )

    def test_a_step_without_a_readable_id_leaves_step_names_unchecked(self) -> None:
        """A broken step whose id cannot be read may be any step: what names a step is not
        refused as naming none, while the rest is still checked."""
        data = points()
        del step(data, "traits")["id"]
        builder(data)["constraints"][1]["step"] = "anything"
        step(data, "moon_gifts")["catalog"] = "moons"
        assert report(data) == golden(
            """
            sheet.builder.steps.6.id: Field required
            sheet.builder.steps.5.catalog: names no catalog 'moons'
            """
        )


class TestShapeProblemsHideNoRules:
    def test_a_broken_sheet_key_hides_only_what_reads_it(self) -> None:
        """A shape problem in one key of the sheet (its `fields`) hides no rule of another
        section (the resolution, `rests`, the catalogs and their items, `clocks`) nor of the
        other keys of the sheet (skills, derived values, live pools); only what looks a field
        up is not checked: `advancement` naming a field, a derived value reading one, and the
        enum table keyed on the broken `watch` field report nothing."""
        data = gravewatch()
        sheet = data["sheet"]
        sheet["fields"][1]["colour"] = "grey"
        sheet["skills"][0]["ability"] = "heart"
        sheet["advancement"] = {"fields": ["nowhere"]}
        sheet["derived"][1]["of"] += [{"field": "nowhere"}, {"derived": "light_nerve"}]
        data["clocks"] = {"sizes": [4, 4]}
        data["resolution"]["penaltyFrom"] = "resolve"
        data["rests"][0]["restore"][0]["pool"] = "grit"
        data["catalogs"][0]["feeds"] = ["charms", "trinkets"]
        data["catalogs"][0]["entries"][0]["rows"][0]["values"]["notez"] = "Steady"
        data["catalogs"][2]["entries"][0]["item"]["cost"]["unit"] = "florin"
        assert report(data) == golden(
            """
            sheet.fields.1.colour: Extra inputs are not permitted
            clocks.sizes: Value error, clock sizes must be distinct
            sheet.skills.0.ability: names no ability 'heart'
            sheet.derived.1.of.4: reads derived 'light_nerve', declared at or below it; a derived value reads only derived values declared above it
            sheet.live.pools.0.max: a pool's max cannot read live state; it does through derived 'resolve_max' → derived 'light_nerve' → liveState 'light'
            resolution.penaltyFrom: names no live track 'resolve'
            rests.0.restore.0.pool: names no live pool 'grit'
            catalogs.0.feeds.1: names no list 'trinkets'
            catalogs.0.entries.0.rows.0.values.notez: list 'charms' has no column 'notez'
            catalogs.2.entries.0.item.cost.unit: names no currency unit 'florin'
            """  # noqa: E501
        )

    def test_a_broken_resolution_hides_only_what_reads_it(self) -> None:
        """A shape problem in `resolution` hides no rule of the sheet or the catalogs; what
        looks something up in the resolution is not checked: a `saveTiers` tier, and the
        charms' `mechanics.check` ("Solo dice-pool puede aplicarlo"), which the stand-in
        resolution put in its place would refuse."""
        data = gravewatch()
        data["resolution"]["target"]["max"] = "ten"
        data["sheet"]["saveTiers"] = ["warded"]
        data["sheet"]["fields"][0]["hideWhen"] = {"field": "nowhere", "equals": "x"}
        data["sheet"]["derived"][1]["of"].append({"derived": "harm_left"})
        data["catalogs"][0]["feeds"] = ["charms", "trinkets"]
        data["catalogs"][2]["entries"][0]["item"]["cost"]["unit"] = "florin"
        assert report(data) == golden(
            """
            resolution.target.max: Input should be a valid integer
            sheet.fields.0.hideWhen.field: names no field 'nowhere'
            sheet.derived.1.of.3: reads derived 'harm_left', declared at or below it; a derived value reads only derived values declared above it
            sheet.live.pools.0.max: a pool's max cannot read live state; it does through derived 'resolve_max' → derived 'harm_left' → liveTrack 'harm'
            catalogs.0.feeds.1: names no list 'trinkets'
            catalogs.2.entries.0.item.cost.unit: names no currency unit 'florin'
            """  # noqa: E501
        )

    def test_a_broken_builder_step_hides_no_rule_of_the_sheet(self) -> None:
        """A shape problem in a step of `sheet.builder` is the builder's own (004): the sheet's
        rules and the catalogs' are still checked."""
        data = points()
        step(data, "attributes")["priorities"] = "high"
        data["sheet"]["derived"][0]["hideWhen"] = {"field": "nowhere", "equals": 1}
        data["catalogs"][0]["entries"][0]["rows"][0]["values"]["notez"] = "x"
        assert report(data) == golden(
            """
            sheet.builder.steps.1.priorities: Input should be a valid list
            sheet.derived.0.hideWhen.field: names no field 'nowhere'
            catalogs.0.entries.0.rows.0.values.notez: list 'gifts' has no column 'notez'
            """
        )


def _places(data: dict[str, Any]) -> list[tuple[str | int, ...]]:
    """The parts a shape problem is put in: each top-level section, each key of the sheets
    (the character's and the party's), and each item of their lists and their builders'."""
    found: list[tuple[str | int, ...]] = [(key,) for key in data if not key.startswith("$")]
    for owner in ("sheet", "party"):
        for key, value in data.get(owner, {}).items():
            if key.startswith("$"):
                continue
            found.append((owner, key))
            lists = value if key in ("live", "builder") else {key: value}
            for name, items in lists.items() if isinstance(lists, dict) else ():
                at = (owner, name) if key == name else (owner, key, name)
                if isinstance(items, list):
                    found += [(*at, place) for place in range(len(items))]
    return found


def _broken(value: Any) -> Any:
    """`value` with a shape problem of its own: an unknown key, or a wrong type."""
    if isinstance(value, dict):
        return {**value, "unknown_key": 1}
    if isinstance(value, list):
        return "a list"
    return {"a": "scalar"}


class TestNoFollowOn:
    @pytest.mark.parametrize("path", VALID, ids=lambda path: path.name)
    def test_a_shape_problem_reports_only_itself(self, path: Any) -> None:
        """A valid ruleset with a shape problem added to one part (an unknown key or a wrong
        type, or an item without its id) is refused at that part and nowhere else: no rule
        reports a name missing, or a value wrong, only because that part was left out."""
        base = json.loads(path.read_text(encoding="utf-8"))
        load_ruleset(base)
        for where in _places(base):
            for mode in ("broken", "no id"):
                data = copy.deepcopy(base)
                *above, last = where
                parent = data
                for key in above:
                    parent = parent[key]
                if mode == "broken":
                    parent[last] = _broken(parent[last])
                elif isinstance(parent[last], dict) and "id" in parent[last]:
                    del parent[last]["id"]
                else:
                    continue
                at = ".".join(map(str, where))
                with pytest.raises(RulesetError) as caught:
                    load_ruleset(data)
                elsewhere = [
                    str(problem)
                    for problem in caught.value.problems
                    if problem.path != at and not problem.path.startswith(f"{at}.")
                ]
                assert elsewhere == [], f"{mode} at {at}"
