"""`gmtags.ruleset.builder`: the strict shapes of `sheet.builder` and the rules between its keys
(004; BUILDER.md chunk A), each refused at its JSON path below `sheet.builder`."""

from __future__ import annotations

from typing import Any

from gmtags import load_ruleset
from gmtags.ruleset.builder import (
    AbilitiesStep,
    Builder,
    CatalogStep,
    StartingGearStep,
    parse_builder,
)
from tests.builder.samples import AT, builder, five_e, messages, place, points, refused, step


def steps_at(data: dict[str, Any], step_id: str) -> str:
    return f"{AT}.steps.{place(data, step_id)}"


class TestSamples:
    def test_the_5e_sample_loads_typed(self) -> None:
        """004's own 5e builder (race, subrace within it, class, level, scores, skills, gear)
        loads, typed as `builder_model`, and the JSON stays as the file holds it."""
        data = five_e()
        ruleset = load_ruleset(data)
        model = ruleset.sheet.builder_model
        assert isinstance(model, Builder) and model.tier == "proficient"
        scores = model.steps[place(data, "scores")]
        assert isinstance(scores, AbilitiesStep) and scores.methods.point_buy is not None
        assert scores.methods.point_buy.budget == 27
        assert scores.methods.standard_array == [15, 14, 13, 12, 10, 8]
        assert scores.methods.roll is not None and scores.methods.roll.keep == 3
        subrace = model.steps[place(data, "subrace")]
        assert isinstance(subrace, CatalogStep) and subrace.within is not None
        assert subrace.min == 0 and subrace.most == 1
        written = {key: value for key, value in builder(data).items() if key != "$comment"}
        assert ruleset.sheet.builder == written

    def test_the_points_sample_loads(self) -> None:
        """004's allocate, spend, pools, ratingTiers, constraints and profiles examples load."""
        model = load_ruleset(points()).sheet.builder_model
        assert model is not None
        assert {s.kind for s in model.steps} >= {"allocate", "spend", "rows", "roll", "initialize"}
        assert [p.id for p in model.profiles] == ["dragon", "lunar"]

    def test_every_step_kind_is_in_a_sample(self) -> None:
        """Between them the two samples use all eleven step kinds."""
        kinds = {s["kind"] for data in (five_e(), points()) for s in builder(data)["steps"]}
        assert kinds == {
            "catalog",
            "fields",
            "abilities",
            "allocate",
            "trained",
            "startingGear",
            "choices",
            "spend",
            "rows",
            "initialize",
            "roll",
        }

    def test_no_builder_is_none(self) -> None:
        """A sheet without a builder has no typed builder (the reference files import as ever)."""
        assert parse_builder(None) is None


class TestEnvelope:
    def test_a1_builder_is_an_object_with_known_keys(self) -> None:
        """A1: a non-object builder and an unknown top-level key are refused."""
        data = five_e()
        data["sheet"]["builder"] = ["race"]
        assert refused(data) == [AT]
        data = five_e()
        builder(data)["wizard"] = True
        assert refused(data) == [f"{AT}.wizard"]

    def test_a2_at_most_32_steps(self) -> None:
        """A2: "Hasta 32 pasos": 32 load (BUILDER §3.1: no version gate), 33 are refused."""
        data = five_e()
        room = 32 - len(builder(data)["steps"])
        extra = [{"id": f"notes_{n}", "label": "Notes", "kind": "trained"} for n in range(room)]
        builder(data)["steps"] += extra
        assert len(builder(data)["steps"]) == 32
        load_ruleset(data)
        builder(data)["steps"].append({"id": "one_more", "label": "More", "kind": "trained"})
        assert refused(data) == [f"{AT}.steps"]

    def test_a2_step_envelope(self) -> None:
        """A2: a step has an id, a label and a kind; ids are unique."""
        data = five_e()
        builder(data)["steps"].append({"kind": "trained"})
        n = len(builder(data)["steps"]) - 1
        assert refused(data) == [f"{AT}.steps.{n}.id", f"{AT}.steps.{n}.label"]
        data = five_e()
        builder(data)["steps"].append({"id": "race", "label": "Again", "kind": "trained"})
        assert refused(data) == [f"{AT}.steps.{n}.id"]
        data = five_e()
        builder(data)["steps"].append({"id": "x", "label": "X"})
        assert refused(data) == [f"{AT}.steps.{n}.kind"]

    def test_a3_unknown_kind(self) -> None:
        """A3: a kind outside the eleven is refused at `kind`."""
        data = five_e()
        step(data, "skills")["kind"] = "feats"
        assert refused(data) == [f"{steps_at(data, 'skills')}.kind"]

    def test_a4_one_abilities_step(self) -> None:
        """A4: "Como máximo, un paso de atributos": the second is refused at its kind."""
        data = five_e()
        builder(data)["steps"].append(
            {"id": "more", "label": "More", "kind": "abilities", "methods": {"manual": True}}
        )
        assert refused(data) == [f"{AT}.steps.{len(builder(data)['steps']) - 1}.kind"]


class TestCatalogStep:
    def test_a8_bounds(self) -> None:
        """A8: min and max reach 60 (a level-20 wizard's 44 spells load); 61, a negative
        min and min above max are refused."""
        data = five_e()
        step(data, "cantrips")["max"] = 44
        load_ruleset(data)
        step(data, "cantrips").update(min=-1, max=61)
        at = steps_at(data, "cantrips")
        assert refused(data) == [f"{at}.max", f"{at}.min"]
        step(data, "cantrips").update(min=5, max=4)
        assert refused(data) == [f"{at}.min"]

    def test_a8_min_against_default_max(self) -> None:
        """A8: max defaults to 1, so min 2 alone is refused."""
        data = five_e()
        step(data, "class")["min"] = 2
        assert refused(data) == [f"{steps_at(data, 'class')}.min"]

    def test_a9_stamp_keys(self) -> None:
        """A9: 1–4 stamp values, each a string, number, boolean or {fromWithin}."""
        data = five_e()
        at = steps_at(data, "cantrips")
        step(data, "cantrips")["stamp"] = {}
        assert refused(data) == [f"{at}.stamp"]
        step(data, "cantrips")["stamp"] = {k: 1 for k in ("a", "b", "c", "d", "e")}
        assert refused(data) == [f"{at}.stamp"]
        step(data, "cantrips")["stamp"] = {"notes": ["wizard"]}
        assert refused(data) == [f"{at}.stamp.notes"]
        step(data, "cantrips")["stamp"] = {"notes": {"fromWithin": "Label"}}
        assert refused(data) == [f"{at}.stamp.notes.fromWithin"]

    def test_a25_quotas_in_order(self) -> None:
        """A25: "0 <= min <= max <= el máximo del paso"; up to 12 quotas."""
        data = five_e()
        at = steps_at(data, "cantrips")
        step(data, "cantrips")["quotas"] = [
            {"filter": "level", "value": 0, "min": 2, "max": 1},
            {"filter": "level", "value": 0, "min": 0, "max": 5},
        ]
        assert refused(data) == [f"{at}.quotas.0.min", f"{at}.quotas.1.max"]
        step(data, "cantrips")["quotas"] = [
            {"filter": "level", "value": 0, "min": 0, "max": 1}
        ] * 13
        assert refused(data) == [f"{at}.quotas"]

    def test_priced_pick_names_pool_and_cost(self) -> None:
        """1.159: a catalog step with a pool has a cost, and the other way round."""
        data = points()
        del step(data, "aspect_gifts")["cost"]
        assert refused(data) == [steps_at(data, "aspect_gifts")]


class TestFieldsStep:
    def test_a10_names_within_the_step(self) -> None:
        """A10: optional, shownWhen and total name fields of the step."""
        data = five_e()
        at = steps_at(data, "level")
        step(data, "level").update(
            optional=["race"],
            shownWhen={"xp": {"field": "level"}},
            total={"fields": ["level", "xp"], "max": 20},
        )
        assert refused(data) == [f"{at}.optional.0", f"{at}.shownWhen.xp", f"{at}.total.fields.1"]

    def test_a10_total_limits(self) -> None:
        """A10: `total` sums at least two fields to an integer maximum of 1–1000."""
        data = five_e()
        at = steps_at(data, "level")
        step(data, "level")["total"] = {"fields": ["level"], "max": 1001}
        assert refused(data) == [f"{at}.total.fields", f"{at}.total.max"]


class TestAbilitiesStep:
    def test_a11_point_buy_table(self) -> None:
        """A11: costs go up one score at a time from the lowest, and never fall."""
        data = five_e()
        at = f"{steps_at(data, 'scores')}.methods.pointBuy.costs"
        step(data, "scores")["methods"]["pointBuy"]["costs"] = [[8, 0], [10, 2], [11, 1]]
        assert refused(data) == [f"{at}.1.0", f"{at}.2.1"]

    def test_a11_manual_limits(self) -> None:
        """A11: manual min at least −100, max at most 1000, min ≤ max."""
        data = five_e()
        at = f"{steps_at(data, 'scores')}.methods.manual"
        step(data, "scores")["methods"]["manual"] = {"min": -101, "max": 1001}
        assert refused(data) == [f"{at}.max", f"{at}.min"]
        step(data, "scores")["methods"]["manual"] = {"min": 18, "max": 3}
        assert refused(data) == [f"{at}.min"]
        step(data, "scores")["methods"]["manual"] = {"min": 3, "max": 18}
        load_ruleset(data)

    def test_a11_default_names_a_declared_method(self) -> None:
        """A11, BUILDER §3.2: `default` (beside or inside methods) is a method the step has."""
        data = five_e()
        at = steps_at(data, "scores")
        del step(data, "scores")["methods"]["roll"]
        step(data, "scores")["default"] = "roll"
        assert refused(data) == [f"{at}.default"]
        del step(data, "scores")["default"]
        step(data, "scores")["methods"]["default"] = "roll"
        assert refused(data) == [f"{at}.methods.default"]
        step(data, "scores")["methods"]["default"] = "pointBuy"
        load_ruleset(data)

    def test_a12_creation_dice(self) -> None:
        """A12: CoC's (2d6+6)×5 is creation dice; keep above count is refused."""
        data = five_e()
        at = f"{steps_at(data, 'scores')}.methods.roll"
        step(data, "scores")["methods"]["roll"] = {
            "count": 2,
            "sides": 6,
            "add": 6,
            "multiplier": 5,
        }
        load_ruleset(data)
        step(data, "scores")["methods"]["roll"] = {"count": 3, "sides": 6, "keep": 4}
        assert refused(data) == [f"{at}.keep"]
        step(data, "scores")["methods"]["roll"] = {"count": 0, "sides": 1}
        assert refused(data) == [f"{at}.count", f"{at}.sides"]

    def test_a13_a_score_in_one_roll_group(self) -> None:
        """A13: CoC's two groups load; an ability in two groups is refused."""
        data = five_e()
        at = f"{steps_at(data, 'scores')}.methods.rolls"
        step(data, "scores")["methods"]["rolls"] = [
            {"abilities": ["str", "con", "dex", "wis"], "dice": {"count": 3, "sides": 6}},
            {"abilities": ["int", "cha"], "dice": {"count": 2, "sides": 6, "add": 6}},
        ]
        load_ruleset(data)
        step(data, "scores")["methods"]["rolls"][1]["abilities"].append("str")
        assert refused(data) == [f"{at}.1.abilities.2"]

    def test_at_least_one_method(self) -> None:
        """An abilities step offers at least one method (decision)."""
        data = five_e()
        step(data, "scores")["methods"] = {}
        step(data, "scores").pop("default")
        assert refused(data) == [f"{steps_at(data, 'scores')}.methods"]


class TestAllocateStep:
    def test_a14_vtm_attributes(self) -> None:
        """A14: the VtM example (priorities 7/5/3, three groups of three) loads."""
        model = load_ruleset(points()).sheet.builder_model
        assert model is not None
        attributes = model.steps[1]
        assert attributes.kind == "allocate" and attributes.priorities == [7, 5, 3]

    def test_a14_distinct_targets_and_groups(self) -> None:
        """A14: targets are distinct across the step, group ids too; a target names one key."""
        data = points()
        at = steps_at(data, "attributes")
        groups = step(data, "attributes")["groups"]
        groups[1]["targets"][0] = {"ability": "strength"}
        groups[2]["id"] = "physical"
        groups[2]["targets"][0] = {"field": "xp", "skill": "occult"}
        assert refused(data) == [
            f"{at}.groups.1.targets.0",
            f"{at}.groups.2.id",
            f"{at}.groups.2.targets.0",
        ]

    def test_a14_one_budget_mode(self) -> None:
        """A14: priorities (one per group, non-negative, ≤ 1,200,000) or every group's budget."""
        data = points()
        at = steps_at(data, "attributes")
        step(data, "attributes")["priorities"] = [7, 5]
        assert refused(data) == [f"{at}.priorities"]
        step(data, "attributes")["priorities"] = [7, -5, 1_200_001]
        assert refused(data) == [f"{at}.priorities.1", f"{at}.priorities.2"]
        del step(data, "attributes")["priorities"]
        step(data, "attributes")["groups"][0]["budget"] = {"const": 7}
        assert refused(data) == [f"{at}.groups.1.budget", f"{at}.groups.2.budget"]
        step(data, "attributes")["priorities"] = [7, 5, 3]
        assert refused(data) == [f"{at}.priorities"]

    def test_a14_limits(self) -> None:
        """A14: min and max are required; written limits are 0–10,000 with min ≤ max."""
        data = points()
        at = f"{steps_at(data, 'attributes')}.groups"
        groups = step(data, "attributes")["groups"]
        del groups[0]["min"]
        assert refused(data) == [f"{at}.0.min"]
        groups[0]["min"] = 1
        groups[1].update(min=4, max=2)
        groups[2]["base"] = -1
        assert refused(data) == [f"{at}.1.min", f"{at}.2.base"]

    def test_a14_a_target_naming_nothing(self) -> None:
        """A14: a target naming no key (`{}` or one whose key is null) is refused at its place,
        once, never an `IndexError` while the other targets are checked for repeats."""
        data = points()
        at = steps_at(data, "attributes")
        groups = step(data, "attributes")["groups"]
        groups[1]["targets"][0] = {}
        groups[2]["targets"][1] = {"ability": None}
        groups[2]["targets"][2] = {}
        assert refused(data) == [
            f"{at}.groups.1.targets.0",
            f"{at}.groups.2.targets.1",
            f"{at}.groups.2.targets.2",
        ]

    def test_a14_group_counts(self) -> None:
        """A14: 1–12 groups, 1–120 targets each."""
        data = points()
        at = steps_at(data, "attributes")
        step(data, "attributes")["groups"][0]["targets"] = []
        assert refused(data) == [f"{at}.groups.0.targets"]


class TestRatings:
    def test_a15_map_targets_are_skills_or_saves(self) -> None:
        """A15: one map per skill or save target."""
        data = points()
        builder(data)["ratingTiers"].append({"target": {"ability": "wits"}, "tiers": ["none"]})
        assert refused(data) == [f"{AT}.ratingTiers.3.target"]
        builder(data)["ratingTiers"][3] = {"target": {"skill": "athletics"}, "tiers": ["none"]}
        assert refused(data) == [f"{AT}.ratingTiers.3.target"]

    def test_a16_rating_grants(self) -> None:
        """A16: a rating grant has a positive add or a non-negative set, never both."""
        data = points()
        gifts = data["catalogs"][0]["entries"]
        gifts[0]["grants"] = {"ratings": [{"target": {"skill": "athletics"}, "add": 0}]}
        gifts[2]["grants"] = {"ratings": [{"target": {"save": "will"}, "set": -1}]}
        assert refused(data) == [
            "catalogs.0.entries.0.grants.ratings.0.add",
            "catalogs.0.entries.2.grants.ratings.0.set",
        ]
        del gifts[0]["grants"], gifts[2]["grants"]
        gifts[1]["grants"] = {"ratings": [{"target": {"save": "will"}, "set": 1, "add": 1}]}
        assert refused(data) == ["catalogs.0.entries.1.grants.ratings.0"]
        gifts[1]["grants"] = {"ratings": [{"target": {"save": "will"}, "set": 1}]}
        load_ruleset(data)


class TestPoolsAndSpend:
    def test_a17_at_most_12_pools(self) -> None:
        """A17: 12 pools load, 13 are refused; ids are unique."""
        data = points()
        builder(data)["pools"] += [
            {"id": f"extra_{n}", "label": "Extra", "budget": {"const": 1}} for n in range(9)
        ]
        load_ruleset(data)
        builder(data)["pools"].append({"id": "one_more", "label": "More", "budget": {"const": 1}})
        assert refused(data) == [f"{AT}.pools"]
        builder(data)["pools"][-1] = {"id": "bonus", "label": "Again", "budget": {"const": 1}}
        builder(data)["pools"].pop(3)
        assert refused(data) == [f"{AT}.pools.11.id"]

    def test_a18_unknown_pool(self) -> None:
        """A18: a spend step names a declared pool."""
        data = points()
        step(data, "occupation_skills")["pool"] = "career"
        assert refused(data) == [f"{steps_at(data, 'occupation_skills')}.pool"]

    def test_a18_one_kind_of_cost(self) -> None:
        """A18: a cost is exactly one of flat, perRank, table or unpriced; an exchange has
        none, any other offer one."""
        data = points()
        at = f"{steps_at(data, 'occupation_skills')}.offers"
        offers = step(data, "occupation_skills")["offers"]
        offers[0]["cost"] = {"flat": 1, "perRank": 2}
        del offers[1]["cost"]
        offers[2]["exchange"] = {"from": {"ability": "wits"}, "units": 2, "floor": 1}
        assert refused(data) == [f"{at}.0.cost", f"{at}.1", f"{at}.2.cost"]

    def test_a18_positive_prices_unless_credit(self) -> None:
        """A18: "Los precios tienen márgenes positivos, salvo los créditos": flat −1 needs
        credit: true; an unpriced offer (1.207) is no refusal."""
        data = points()
        at = f"{steps_at(data, 'occupation_skills')}.offers"
        offers = step(data, "occupation_skills")["offers"]
        offers[0]["cost"] = {"flat": -1}
        offers[1]["cost"] = {"table": [[0, 0], [1, 0], [99, 5]]}
        assert refused(data) == [f"{at}.0.cost", f"{at}.1.cost"]
        offers[0]["credit"] = True
        offers[1]["cost"] = {"unpriced": True}
        load_ruleset(data)

    def test_a18_table_covers_both_bounds(self) -> None:
        """A18: "las tablas incluyen ambos límites de la oferta"; values strictly ascend."""
        data = points()
        at = f"{steps_at(data, 'interest_skills')}.offers.0.cost.table"
        step(data, "interest_skills")["offers"][0]["cost"]["table"] = [[0, 0], [1, 10]]
        assert refused(data) == [at]
        step(data, "interest_skills")["offers"][0]["cost"]["table"] = [[0, 0], [2, 25], [1, 30]]
        assert refused(data) == [f"{at}.2.0"]

    def test_a18_at_most_12_overrides(self) -> None:
        """A18: overrides hold at most 12 entries."""
        data = points()
        override = {"when": {"field": "dragon"}, "cost": {"perRank": 2}}
        step(data, "occupation_skills")["offers"][2]["overrides"] = [override] * 12
        load_ruleset(data)
        step(data, "occupation_skills")["offers"][2]["overrides"].append(override)
        assert refused(data) == [f"{steps_at(data, 'occupation_skills')}.offers.2.overrides"]

    def test_a18_offer_bounds(self) -> None:
        """min ≤ max, and a baseline within them (decision)."""
        data = points()
        at = f"{steps_at(data, 'occupation_skills')}.offers.0"
        step(data, "occupation_skills")["offers"][0].update(min=50, max=40, baseline=60)
        assert refused(data) == [f"{at}.baseline", f"{at}.min"]


class TestRowsRollInitialize:
    def test_a19_rows_min_and_max(self) -> None:
        """A19: min is 0–20; min ≤ max; required names columns the step edits."""
        data = points()
        at = steps_at(data, "retainers")
        step(data, "retainers").update(min=21)
        assert refused(data) == [f"{at}.min"]
        step(data, "retainers").update(min=3, max=2, required=["name", "secret"])
        assert refused(data) == [f"{at}.min", f"{at}.required.1"]

    def test_a20_one_of_field_or_ability(self) -> None:
        """A20: a roll writes exactly one of a field or an ability; best is 2 or 3; up to 12."""
        data = points()
        at = f"{steps_at(data, 'luck_roll')}.rolls"
        rolls = step(data, "luck_roll")["rolls"]
        rolls.append({"field": "xp", "ability": "wits", "dice": {"count": 1, "sides": 6}})
        rolls.append({"dice": {"count": 1, "sides": 6}})
        assert refused(data) == [f"{at}.1", f"{at}.2"]
        rolls.append({"field": "credit_rating", "dice": {"count": 1, "sides": 6}, "best": 4})
        assert refused(data) == [f"{at}.3.best"]

    def test_a20_each_value_rolled_once(self) -> None:
        """A20: "cada atributo se tira como máximo una vez por paso" (a field too, decision)."""
        data = points()
        rolls = step(data, "luck_roll")["rolls"]
        rolls.append({"ability": "wits", "dice": {"count": 1, "sides": 6}})
        rolls.append({"ability": "wits", "dice": {"count": 1, "sides": 6}})
        assert refused(data) == [f"{steps_at(data, 'luck_roll')}.rolls.2"]

    def test_a21_value_or_remaining(self) -> None:
        """A21: a write takes exactly one of value or remaining; remaining names a pool."""
        data = points()
        at = f"{steps_at(data, 'start')}.writes"
        writes = step(data, "start")["writes"]
        writes[0]["remaining"] = "bonus"
        assert refused(data) == [f"{at}.0"]
        del writes[0]["remaining"]
        writes[1]["remaining"] = "creation"
        assert refused(data) == [f"{at}.1.remaining"]


class TestConstraintsProfilesReads:
    def test_a22_at_most_40(self) -> None:
        """A22: 40 constraints load, 41 are refused."""
        data = points()
        rule = {"id": "r", "label": "R", "step": "traits", "approved": "approved"}
        builder(data)["constraints"] = [{**rule, "id": f"r{n}"} for n in range(40)]
        load_ruleset(data)
        builder(data)["constraints"].append({**rule, "id": "r40"})
        assert refused(data) == [f"{AT}.constraints"]

    def test_a22_exactly_one_kind(self) -> None:
        """A22: exactly one kind; value and rows need min or max; the step exists."""
        data = points()
        at = f"{AT}.constraints"
        rules = builder(data)["constraints"]
        rules[0]["distinct"] = {"list": "traits", "column": "name"}
        rules.append({"id": "v", "label": "V", "step": "type", "value": {"field": "xp"}})
        rules.append({"id": "d", "label": "D", "step": "type", "approved": "approved", "min": 1})
        assert refused(data) == [f"{at}.0", f"{at}.2", f"{at}.3.min"]
        del rules[2:]
        del rules[0]["distinct"]
        rules[1].update(step="nowhere")
        assert refused(data) == [f"{at}.1.step"]

    def test_a23_profiles(self) -> None:
        """A23: up to 16 profiles; their steps and budget pools exist."""
        data = points()
        at = f"{AT}.profiles"
        profiles = builder(data)["profiles"]
        profiles[0]["steps"] = ["aspect_gifts", "wings"]
        profiles[1]["budgets"] = {"essence": {"const": 3}}
        assert refused(data) == [f"{at}.0.steps.1", f"{at}.1.budgets.essence"]
        profiles[:] = [
            {"id": f"p{n}", "label": "P", "when": {"field": "dragon"}, "steps": ["aspect_gifts"]}
            for n in range(17)
        ]
        assert refused(data) == [at]

    def test_a24_reads_before(self) -> None:
        """A24: reads.before only on catalog and initialize steps, naming a step at or before."""
        data = five_e()
        step(data, "level")["reads"] = {"before": "race"}
        step(data, "class")["reads"] = {"before": "gear"}
        step(data, "start")["reads"] = {"before": "scores"}
        assert refused(data) == [
            f"{steps_at(data, 'class')}.reads.before",
            f"{steps_at(data, 'level')}.reads",
        ]
        del step(data, "level")["reads"]
        assert refused(data) == [f"{steps_at(data, 'class')}.reads.before"]
        step(data, "class")["reads"] = {"before": "nope"}
        assert refused(data) == [f"{steps_at(data, 'class')}.reads.before"]

    def test_a6_when_is_a_reference(self) -> None:
        """A6: `when` and `requiredWhen` are value references."""
        data = five_e()
        step(data, "subrace")["when"] = "race"
        step(data, "subrace")["requiredWhen"] = {"field": "level", "derived": "x"}
        at = steps_at(data, "subrace")
        assert refused(data) == [f"{at}.requiredWhen", f"{at}.when"]


class TestChoiceSlots:
    def test_a26_count_from_needs_max(self) -> None:
        """A26: countFrom needs an explicit max (1–20; at most 6 for abilities)."""
        data = five_e()
        at = f"{steps_at(data, 'skills')}.choose"
        step(data, "skills")["choose"] = [{"what": "skills", "countFrom": {"field": "level"}}]
        assert refused(data) == [f"{at}.0.max"]
        step(data, "skills")["choose"][0]["max"] = 21
        assert refused(data) == [f"{at}.0.max"]
        step(data, "skills")["choose"][0]["max"] = 20
        load_ruleset(data)


class TestStartingGear:
    def test_a30_coins_lines(self) -> None:
        """A30: `{"coins": "gp", "roll": "5d4", "times": 10}` loads; roll with count, and
        times above 10,000, are refused."""
        data = five_e()
        at = f"{steps_at(data, 'gear')}.kits"
        kits = step(data, "gear")["kits"]
        seed_line = {"coins": "gp", "roll": "5d4", "times": 10}
        kits.append({"id": "wealth", "label": "Starting wealth", "lines": [seed_line]})
        load_ruleset(data)
        kits[-1]["lines"].append({"coins": "gp", "roll": "2d6", "count": 3})
        kits[-1]["lines"].append({"coins": "gp"})
        n = len(kits) - 1
        assert refused(data) == [f"{at}.{n}.lines.1", f"{at}.{n}.lines.2"]
        kits[-1]["lines"][1:] = [{"coins": "gp", "count": 3, "times": 10_001}]
        assert refused(data) == [f"{at}.{n}.lines.1.times"]

    def test_item_lines_keep_a_fixed_count(self) -> None:
        """1.157: "Las líneas de objetos conservan su count fijo"; kit ids are unique."""
        data = five_e()
        at = f"{steps_at(data, 'gear')}.kits"
        kits = step(data, "gear")["kits"]
        kits[0]["lines"][0]["roll"] = "1d4"
        kits[1]["id"] = kits[0]["id"]
        assert refused(data) == [f"{at}.0.lines.0.roll", f"{at}.1.id"]

    def test_a_step_may_list_no_kits(self) -> None:
        """004's own example gear step is `{"id": "gear", "label": "Equipment", "kind":
        "startingGear"}`, and "Sin equipo que encaje, el paso muestra su estado vacío y Next
        sigue disponible": `kits` left out (or empty) loads as no kits; 24 is still the most."""
        data = five_e()
        kits = step(data, "gear").pop("kits")
        model = load_ruleset(data).sheet.builder_model
        assert model is not None
        gear = model.steps[place(data, "gear")]
        assert isinstance(gear, StartingGearStep) and gear.kits == []
        step(data, "gear")["kits"] = []
        load_ruleset(data)
        step(data, "gear")["kits"] = [{**kits[0], "id": f"kit-{n}"} for n in range(25)]
        assert refused(data) == [f"{steps_at(data, 'gear')}.kits"]


class TestProfiles:
    def test_a_profile_may_bring_budgets_only(self) -> None:
        """004: profiles let "un tipo de personaje, una carrera o un paquete aporten sus
        propios pasos y presupuestos"; a profile with `budgets` and no `steps` loads."""
        data = points()
        for profile in builder(data)["profiles"]:
            del profile["steps"]
        model = load_ruleset(data).sheet.builder_model
        assert model is not None
        assert [(p.steps, list(p.budgets or {})) for p in model.profiles] == [
            ([], ["bonus"]),
            ([], ["bonus"]),
        ]

    def test_a_profile_may_bring_steps_only(self) -> None:
        data = points()
        del builder(data)["profiles"][1]["budgets"]
        load_ruleset(data)

    def test_a_profile_with_neither_steps_nor_budgets_is_refused(self) -> None:
        """004 is silent on a profile that brings neither; it is refused at its path, saying
        why, whether the keys are left out or empty."""
        data = points()
        at = f"{AT}.profiles"
        profiles = builder(data)["profiles"]
        del profiles[0]["steps"], profiles[0]["budgets"]
        profiles[1].update(steps=[], budgets={})
        problems = messages(data)
        assert sorted(problems) == [f"{at}.0", f"{at}.1"]
        assert problems[f"{at}.0"] == (
            "a profile brings its own steps, budgets or both; this one has neither"
        )
