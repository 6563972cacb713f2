"""`gmtags.ruleset.validate.builder` (with its `builder_refs` and `builder_reads`): what a
builder names in the rest of the file, the reads 004 refuses, catalog grants and the party
builder (BUILDER.md chunk A), every problem at its path and all of them at once."""

from __future__ import annotations

import json
from typing import Any

from gmtags import load_ruleset
from tests.builder.samples import (
    AT,
    builder,
    catalog,
    entry,
    five_e,
    messages,
    place,
    points,
    refused,
    step,
)
from tests.conftest import FIXTURES, REFERENCE_RULESETS


def steps_at(data: dict[str, Any], step_id: str) -> str:
    return f"{AT}.steps.{place(data, step_id)}"


def computed(data: dict[str, Any]) -> None:
    """Give the 5e sample a computed score (004, 1.156) the builder may never set."""
    data["sheet"]["abilities"].append(
        {"id": "grit", "label": "Grit", "min": 0, "max": 30, "default": 0, "value": [{"const": 1}]}
    )


class TestReferenceRulesets:
    def test_reference_files_import_unchanged(self) -> None:
        """The three reference rulesets have no builder and still import."""
        for path in sorted(REFERENCE_RULESETS.glob("*.json")):
            assert load_ruleset(path).sheet.builder_model is None


class TestTier:
    def test_a5_tier_is_a_tier_above_untrained(self) -> None:
        """A5: `"tier": "proficient"` loads; an unknown or the untrained tier is refused."""
        data = five_e()
        builder(data)["tier"] = "legendary"
        assert refused(data) == [f"{AT}.tier"]
        builder(data)["tier"] = "none"
        assert "untrained" in messages(data)[f"{AT}.tier"]


class TestWhen:
    def test_a6_when_reads_no_live_state(self) -> None:
        """A6: "mientras el valor no vivo de la ficha sea mayor que cero"."""
        data = five_e()
        step(data, "subrace")["when"] = {"livePool": "hp"}
        step(data, "cantrips")["requiredWhen"] = {"liveTrack": "exhaustion"}
        assert refused(data) == [
            f"{steps_at(data, 'subrace')}.when",
            f"{steps_at(data, 'cantrips')}.requiredWhen",
        ]

    def test_a6_when_reads_only_earlier_steps(self) -> None:
        """A6: "solo pueden leer valores que cambian pasos anteriores": a when reading the
        level set by a later step is refused; requiredWhen may read it."""
        data = five_e()
        step(data, "subrace")["when"] = {"derived": "proficiency_bonus"}
        assert refused(data) == [f"{steps_at(data, 'subrace')}.when"]
        del step(data, "subrace")["when"]
        step(data, "subrace")["requiredWhen"] = {"derived": "proficiency_bonus"}
        load_ruleset(data)

    def test_a6_when_reading_its_own_step(self) -> None:
        """A6: a step's when never reads what the step itself changes."""
        data = five_e()
        step(data, "level")["when"] = {"field": "level"}
        assert "this step or a later one" in messages(data)[f"{steps_at(data, 'level')}.when"]

    def test_a6_enum_table_condition(self) -> None:
        """A6: a subrace step required only for one race, through a derived enumTable, loads
        when the race is written by an earlier step."""
        data = five_e()
        data["sheet"]["fields"].append(
            {"id": "ancestry", "label": "Ancestry", "type": "enum", "values": ["elf", "dwarf"]}
        )
        data["sheet"]["derived"].append(
            {
                "id": "needs_subrace",
                "label": "Needs a subrace",
                "op": "enumTable",
                "from": {"field": "ancestry"},
                "table": {"elf": 1},
            }
        )
        builder(data)["steps"].insert(
            0, {"id": "ancestry", "label": "Ancestry", "kind": "fields", "fields": ["ancestry"]}
        )
        step(data, "subrace")["when"] = {"derived": "needs_subrace"}
        load_ruleset(data)
        builder(data)["steps"].append(builder(data)["steps"].pop(0))
        assert refused(data) == [f"{steps_at(data, 'subrace')}.when"]


class TestCatalogStep:
    def test_a7_catalog_and_field(self) -> None:
        """A7: an unknown catalog, a non-rows catalog and a field that is not text or enum."""
        data = five_e()
        step(data, "race")["catalog"] = "ancestries"
        step(data, "class")["catalog"] = "equipment"
        step(data, "background")["field"] = "level"
        assert refused(data) == [
            f"{steps_at(data, 'race')}.catalog",
            f"{steps_at(data, 'class')}.catalog",
            f"{steps_at(data, 'background')}.field",
        ]

    def test_a7_within_an_earlier_catalog_step(self) -> None:
        """A7: within.step names an earlier catalog step; within.filter a filter of the catalog."""
        data = five_e()
        at = f"{steps_at(data, 'subrace')}.within"
        step(data, "subrace")["within"] = {"step": "class", "filter": "parent"}
        assert refused(data) == [f"{at}.step"]
        step(data, "subrace")["within"] = {"step": "level", "filter": "parent"}
        assert refused(data) == [f"{at}.step"]
        step(data, "subrace")["within"] = {"step": "race", "filter": "ancestor"}
        assert refused(data) == [f"{at}.filter"]

    def test_a7_filters_are_filters(self) -> None:
        """A7: `filters` keys are filters of the catalog, with values of their type."""
        data = five_e()
        at = steps_at(data, "race")
        step(data, "race")["filters"] = {"kind": 3, "size": "small"}
        assert refused(data) == [f"{at}.filters.kind", f"{at}.filters.size"]

    def test_up_to_reads_a_number_filter(self) -> None:
        """1.87: `upTo` filters a number filter by a value read without live state."""
        data = five_e()
        at = f"{steps_at(data, 'cantrips')}.upTo"
        step(data, "cantrips")["upTo"] = {"filter": "level", "value": {"field": "level"}}
        load_ruleset(data)
        step(data, "cantrips")["upTo"] = {
            "filter": "class_ids",
            "value": {"livePool": "hp"},
        }
        assert refused(data) == [f"{at}.filter", f"{at}.value"]

    def test_a9_stamp_columns(self) -> None:
        """A9: "Cada clave debe ser una columna de todas las listas que alimenta el catálogo";
        a value fits its column; fromWithin reads the parent catalog's id, label or filter."""
        data = five_e()
        at = f"{steps_at(data, 'cantrips')}.stamp"
        step(data, "cantrips")["stamp"] = {"class": "wizard", "level": "zero"}
        assert refused(data) == [f"{at}.class", f"{at}.level"]
        step(data, "cantrips")["stamp"] = {"notes": {"fromWithin": "class_ids"}}
        load_ruleset(data)
        step(data, "cantrips")["stamp"] = {"notes": {"fromWithin": "level"}}
        assert refused(data) == [f"{at}.notes.fromWithin"]
        del step(data, "cantrips")["within"]
        step(data, "cantrips")["stamp"] = {"notes": {"fromWithin": "label"}}
        assert refused(data) == [f"{at}.notes.fromWithin"]

    def test_a25_quota_filters(self) -> None:
        """A25: quotas and distinctBy name filters of the catalog; quotaBelow a number one."""
        data = five_e()
        at = steps_at(data, "cantrips")
        step(data, "cantrips").update(
            quotas=[{"filter": "school", "value": 1, "min": 0, "max": 1}],
            distinctBy="school",
            quotaBelow={"filter": "class_ids"},
        )
        assert refused(data) == [
            f"{at}.distinctBy",
            f"{at}.quotaBelow.filter",
            f"{at}.quotas.0.filter",
        ]

    def test_a25_fate_pyramid(self) -> None:
        """A25: the seed's Fate pyramid (10 picks, quotas 4:1, 3:2, 2:3, 1:4) loads."""
        data = points()
        skills = ["athletics", "occult", "brawl", "will", "lore", "notice", "stealth", "drive"]
        data["sheet"]["lists"].append(
            {
                "id": "ratings",
                "label": "Ratings",
                "maxItems": 10,
                "columns": [
                    {"id": "skill", "label": "Skill", "type": "text", "maxLength": 40},
                    {"id": "rating", "label": "Rating", "type": "number", "min": 1, "max": 4},
                ],
            }
        )
        entries = [
            {
                "id": f"{name.replace('_', '-')}-{value}",
                "label": f"{name} +{value}",
                "filters": {"skill": name, "rating": value},
                "rows": [{"list": "ratings", "values": {"skill": name, "rating": value}}],
            }
            for name in skills
            for value in (1, 2, 3, 4)
        ]
        data["catalogs"].append(
            {
                "id": "ratings",
                "label": "Ratings",
                "feeds": ["ratings"],
                "filters": [
                    {"id": "skill", "label": "Skill", "type": "text"},
                    {"id": "rating", "label": "Rating", "type": "number"},
                ],
                "entries": entries,
            }
        )
        quotas = [
            {"filter": "rating", "value": 4, "min": 1, "max": 1},
            {"filter": "rating", "value": 3, "min": 2, "max": 2},
            {"filter": "rating", "value": 2, "min": 3, "max": 3},
            {"filter": "rating", "value": 1, "min": 4, "max": 4},
        ]
        builder(data)["steps"].append(
            {
                "id": "ratings",
                "label": "Skill ratings",
                "kind": "catalog",
                "catalog": "ratings",
                "min": 10,
                "max": 10,
                "distinctBy": "skill",
                "quotas": quotas,
            }
        )
        load_ruleset(data)
        quotas[0]["value"] = "four"
        assert refused(data) == [f"{steps_at(data, 'ratings')}.quotas.0.value"]


class TestFieldsAndAbilities:
    def test_a10_fields_exist_and_totals_are_numbers(self) -> None:
        """A10: unknown fields; a total over a text field."""
        data = five_e()
        at = steps_at(data, "level")
        step(data, "level").update(
            fields=["level", "alignment", "luck"],
            total={"fields": ["level", "alignment"], "max": 20},
        )
        assert refused(data) == [f"{at}.fields.2", f"{at}.total.fields.1"]

    def test_a11_budget_within_buying_everything(self) -> None:
        """A11: 27 loads; a budget above buying all six scores to 15 (6 × 9 = 54) is refused."""
        data = five_e()
        at = f"{steps_at(data, 'scores')}.methods.pointBuy.budget"
        step(data, "scores")["methods"]["pointBuy"]["budget"] = 54
        load_ruleset(data)
        step(data, "scores")["methods"]["pointBuy"]["budget"] = 55
        assert refused(data) == [at]

    def test_a11_array_has_one_value_per_score(self) -> None:
        """A11: the standard array has as many values as the step has scores."""
        data = five_e()
        at = f"{steps_at(data, 'scores')}.methods.standardArray"
        step(data, "scores")["methods"]["standardArray"] = [15, 14, 13, 12, 10]
        assert refused(data) == [at]
        step(data, "scores")["abilities"] = ["str", "dex", "con", "int", "wis"]
        load_ruleset(data)

    def test_scores_are_abilities_that_are_not_computed(self) -> None:
        """004: "El creador nunca fija una" computed score: listing one is refused; left out,
        it is not one of the step's scores."""
        data = five_e()
        computed(data)
        load_ruleset(data)
        step(data, "scores")["abilities"] = ["str", "dex", "con", "int", "wis", "grit", "luck"]
        at = f"{steps_at(data, 'scores')}.abilities"
        assert refused(data) == [f"{at}.5", f"{at}.6"]

    def test_a13_roll_groups(self) -> None:
        """A13: an unknown or computed ability in a group is refused; every score is rolled."""
        data = five_e()
        computed(data)
        at = f"{steps_at(data, 'scores')}.methods.rolls"
        step(data, "scores")["methods"]["rolls"] = [
            {"abilities": ["str", "con", "dex", "luck"], "dice": {"count": 3, "sides": 6}},
            {"abilities": ["int", "wis", "grit"], "dice": {"count": 2, "sides": 6, "add": 6}},
        ]
        assert refused(data) == [at, f"{at}.0.abilities.3", f"{at}.1.abilities.2"]


class TestAllocate:
    def test_a14_targets_exist(self) -> None:
        """A14: a target is an existing ability, number field, skill, save or bonus; a skill
        or save target needs its map; a computed ability is never a target."""
        data = points()
        data["sheet"]["abilities"].append(
            {
                "id": "essence",
                "label": "Essence",
                "min": 0,
                "max": 5,
                "default": 1,
                "value": [{"const": 1}],
            }
        )
        at = f"{steps_at(data, 'attributes')}.groups.0.targets"
        step(data, "attributes")["groups"][0]["targets"] += [
            {"ability": "essence"},
            {"field": "occupation"},
            {"skill": "brawl"},
            {"bonus": "athletics"},
            {"save": "courage"},
        ]
        assert refused(data) == [
            f"{at}.3.ability",
            f"{at}.4.field",
            f"{at}.5.skill",
            f"{at}.7.save",
        ]

    def test_a14_limits_are_not_live(self) -> None:
        """A14: base, min, max and budgets are integers or non-live references."""
        data = points()
        at = f"{steps_at(data, 'attributes')}.groups.0"
        step(data, "attributes")["groups"][0]["max"] = {"livePool": "willpower"}
        assert refused(data) == [f"{at}.max"]

    def test_a14_limits_fit_the_targets(self) -> None:
        """A14: values "caber en los límites de almacenamiento": max 6 on 0–5 scores is refused."""
        data = points()
        step(data, "attributes")["groups"][0]["max"] = 6
        assert refused(data) == [f"{steps_at(data, 'attributes')}.groups.0.max"]

    def test_a14_limits_read_no_target_of_this_or_a_later_step(self) -> None:
        """A14: "no pueden leer objetivos que cambie este paso o uno posterior, ni siquiera
        mediante valores derivados"."""
        data = points()
        at = f"{steps_at(data, 'attributes')}.groups.2"
        step(data, "attributes")["groups"][2]["max"] = {"derived": "occupation_points"}
        assert refused(data) == [f"{at}.max"]
        step(data, "attributes")["groups"][2]["max"] = {"field": "luck"}
        assert refused(data) == [f"{at}.max"]
        step(data, "attributes")["groups"][2]["max"] = {"field": "dragon"}
        load_ruleset(data)

    def test_a14_row_columns(self) -> None:
        """1.216: a group's rows name a list and one of its number columns."""
        data = points()
        at = f"{steps_at(data, 'attributes')}.groups.0.rows"
        step(data, "attributes")["groups"][0]["rows"] = [
            {"list": "traits", "column": "name"},
            {"list": "crafts", "column": "dots"},
        ]
        assert refused(data) == [f"{at}.0.column", f"{at}.1.list"]


class TestRatingTiers:
    def test_a15_maps(self) -> None:
        """A15: maps start at the untrained tier and rise through existing, offered tiers."""
        data = points()
        maps = builder(data)["ratingTiers"]
        maps[0]["tiers"] = ["trained", "none", "expert"]
        maps[1]["tiers"] = ["none", "trained", "mythic"]
        maps[2]["target"] = {"save": "courage"}
        assert refused(data) == [
            f"{AT}.ratingTiers.0.tiers.0",
            f"{AT}.ratingTiers.0.tiers.1",
            f"{AT}.ratingTiers.1.tiers.2",
            f"{AT}.ratingTiers.2.target.save",
            f"{steps_at(data, 'interest_skills')}.offers.1.target.save",
        ]

    def test_a15_offered_tiers(self) -> None:
        """A15: with saveTiers, a save's map holds only the tiers offered for saves."""
        data = points()
        data["sheet"]["saveTiers"] = ["none", "trained"]
        builder(data)["ratingTiers"][2]["tiers"] = ["none", "trained", "expert"]
        assert refused(data) == [f"{AT}.ratingTiers.2.tiers.2"]

    def test_a16_rating_grants_need_maps(self) -> None:
        """A15/A16: a grant's skill rating needs the skill's map; a field rating is a number."""
        data = points()
        gifts = data["catalogs"][0]["entries"]
        gifts[0]["grants"] = {
            "ratings": [
                {"target": {"skill": "brawl"}, "add": 1},
                {"target": {"field": "luck"}, "set": 1},
            ]
        }
        assert refused(data) == ["catalogs.0.entries.0.grants.ratings.0.target.skill"]


class TestPoolsAndSpend:
    def test_a17_budgets(self) -> None:
        """A17: a budget is a non-live reference that reads no purchased target."""
        data = points()
        pools = builder(data)["pools"]
        pools[0]["budget"] = {"livePool": "willpower"}
        pools[1]["budget"] = {"field": "accounting_value"}
        assert refused(data) == [f"{AT}.pools.0.budget", f"{AT}.pools.1.budget"]

    def test_a18_targets(self) -> None:
        """A18: targets as allocate's; bounds within the target's storage."""
        data = points()
        at = f"{steps_at(data, 'occupation_skills')}.offers"
        offers = step(data, "occupation_skills")["offers"]
        offers[0]["target"] = {"field": "occupation"}
        offers[1]["max"] = 100
        offers[2]["max"] = 3
        assert refused(data) == [f"{at}.0.target.field", f"{at}.1.max", f"{at}.2.max"]

    def test_a18_fractional_table_needs_a_fractional_field(self) -> None:
        """A18: "Los valores fraccionarios requieren un campo numérico no entero"."""
        data = points()
        data["sheet"]["fields"].append(
            {
                "id": "speed",
                "label": "Basic Speed",
                "type": "number",
                "min": 5,
                "max": 7,
                "default": 5,
            }
        )
        offer = {
            "id": "speed",
            "label": "Basic Speed",
            "target": {"field": "speed"},
            "cost": {"table": [[5, 0], [5.25, 5], [5.5, 12]]},
            "min": 5,
            "max": 5.5,
        }
        step(data, "occupation_skills")["offers"].append(offer)
        assert refused(data) == [f"{steps_at(data, 'occupation_skills')}.offers.3.cost.table"]
        data["sheet"]["fields"][-1]["integer"] = False
        load_ruleset(data)

    def test_a18_credited_target_has_one_offer(self) -> None:
        """A18: "Un objetivo con crédito solo tiene una oferta en todo el creador"; the same
        for direction both."""
        data = points()
        credit = step(data, "occupation_skills")["offers"][1]
        credit.update(credit=True, baseline=0, cost={"flat": 1})
        again = {**credit, "id": "credit_again", "credit": False}
        del again["baseline"]
        step(data, "interest_skills")["offers"].append(again)
        assert refused(data) == [f"{steps_at(data, 'interest_skills')}.offers.2.target"]

    def test_a18_baseline_is_the_starting_value(self) -> None:
        """A18, BUILDER §3.17: a baseline that is not the target's constant default is refused."""
        data = points()
        offer = step(data, "occupation_skills")["offers"][0]
        offer.update(direction="both", baseline=10)
        assert refused(data) == [f"{steps_at(data, 'occupation_skills')}.offers.0.baseline"]
        offer["baseline"] = 5
        load_ruleset(data)

    def test_a18_conditions_read_no_purchased_target(self) -> None:
        """A18: when, minFrom, maxFrom and overrides never read a purchased target."""
        data = points()
        at = f"{steps_at(data, 'occupation_skills')}.offers"
        offers = step(data, "occupation_skills")["offers"]
        offers[0]["when"] = {"skillMod": "athletics"}
        offers[1]["minFrom"] = {"field": "accounting_value"}
        offers[2]["overrides"] = [{"when": {"saveMod": "will"}, "cost": {"perRank": 2}}]
        assert refused(data) == [f"{at}.0.when", f"{at}.1.minFrom", f"{at}.2.overrides.0.when"]

    def test_a18_exchange(self) -> None:
        """1.164: OSE's requirement exchange loads; its `from` is a target too."""
        data = points()
        offer = {
            "id": "wits_to_int",
            "label": "Lower Wits to raise Intelligence",
            "target": {"ability": "intelligence"},
            "exchange": {"from": {"ability": "wits"}, "units": 2, "floor": 1},
            "min": 1,
            "max": 5,
        }
        step(data, "occupation_skills")["offers"].append(offer)
        # occupation points read Intelligence, raised here; interest points Wits, lowered here
        assert refused(data) == [f"{AT}.pools.0.budget", f"{AT}.pools.1.budget"]
        builder(data)["pools"][0]["budget"] = {"const": 100}
        builder(data)["pools"][1]["budget"] = {"const": 50}
        load_ruleset(data)
        offer["exchange"]["from"] = {"ability": "luck"}
        at = f"{steps_at(data, 'occupation_skills')}.offers.3.exchange.from.ability"
        assert refused(data) == [at]


class TestRowsRollInitialize:
    def test_a19_list_and_columns(self) -> None:
        """A19: the list, its columns, required and defaults that fit."""
        data = points()
        at = steps_at(data, "retainers")
        step(data, "retainers").update(
            columns=["name", "role", "wage"],
            defaults={"role": "Hireling", "loyalty": 11},
        )
        assert refused(data) == [f"{at}.columns.2", f"{at}.defaults.loyalty"]
        step(data, "retainers")["list"] = "hirelings"
        assert refused(data) == [f"{at}.list"]

    def test_a19_from_feeds_the_list(self) -> None:
        """A19: `from` names a rows catalog feeding the list; a cost column is a number."""
        data = points()
        at = steps_at(data, "traits")
        step(data, "traits").update(**{"from": "gifts", "cost": {"column": "name"}})
        assert refused(data) == [f"{at}.cost.column", f"{at}.from"]

    def test_a20_roll_targets(self) -> None:
        """A20: a non-numeric field or a computed ability is refused."""
        data = five_e()
        computed(data)
        at = f"{steps_at(data, 'wealth')}.rolls"
        step(data, "wealth")["rolls"] += [
            {"field": "class", "dice": {"count": 1, "sides": 6}},
            {"ability": "grit", "dice": {"count": 1, "sides": 6}},
            {
                "ability": "str",
                "dice": {"count": 1, "sides": 6},
                "floor": {"livePool": "hp"},
            },
        ]
        assert refused(data) == [f"{at}.1.field", f"{at}.2.ability", f"{at}.3.floor"]

    def test_a21_writes(self) -> None:
        """A21: a reference only for a number field; a fixed value that fits; a known field."""
        data = five_e()
        at = f"{steps_at(data, 'start')}.writes"
        step(data, "start")["writes"] += [
            {"field": "race", "value": {"field": "level"}},
            {"field": "level", "value": 99},
            {"field": "luck", "value": 1},
        ]
        assert refused(data) == [f"{at}.2.value", f"{at}.3.value", f"{at}.4.field"]

    def test_a21_seed_example(self) -> None:
        """A21: `{field: san_start, value: {abilityScore: pow}}` and `{field: xp, remaining:
        creation}` load (here Luck and a bonus pool); remaining goes to a number field."""
        data = points()
        load_ruleset(data)
        step(data, "start")["writes"].append({"field": "occupation", "remaining": "bonus"})
        assert refused(data) == [f"{steps_at(data, 'start')}.writes.2.remaining"]


class TestConstraintsAndProfiles:
    def test_a22_names(self) -> None:
        """A22: lists, columns, a numeric sum and a boolean approval field."""
        data = points()
        rules = builder(data)["constraints"]
        rules[0]["rows"] = {
            "list": "traits",
            "filter": {"column": "kind", "below": 0},
            "sum": "name",
        }
        rules[1]["approved"] = "xp"
        rules.append(
            {
                "id": "d",
                "label": "D",
                "step": "traits",
                "distinct": {"list": "crafts", "column": "name"},
            }
        )
        assert refused(data) == [
            f"{AT}.constraints.0.rows.filter.column",
            f"{AT}.constraints.0.rows.sum",
            f"{AT}.constraints.1.approved",
            f"{AT}.constraints.2.distinct.list",
        ]

    def test_a23_profile_reads(self) -> None:
        """A23, BUILDER §3.21: a profile's when reads no live state nor what a profile-listed
        step changes; its budgets read no purchased target."""
        data = points()
        profiles = builder(data)["profiles"]
        profiles[0]["when"] = {"livePool": "willpower"}
        profiles[1]["budgets"] = {"bonus": {"field": "credit_rating"}}
        assert refused(data) == [f"{AT}.profiles.0.when", f"{AT}.profiles.1.budgets.bonus"]
        data = points()
        builder(data)["profiles"][0]["steps"] = ["type", "aspect_gifts"]
        assert refused(data) == [f"{AT}.profiles.0.when", f"{AT}.profiles.1.when"]


class TestChoices:
    def test_a26_ids_unique_across_alternative_entries(self) -> None:
        """A26: "Los IDs de elección de las entradas alternativas de un mismo paso también deben
        ser únicos": two classes' skill choices with one id are refused."""
        data = five_e()
        path, fighter = entry(data, "classes", "fighter")
        fighter["grants"]["trained"]["choose"][0]["id"] = "cleric_skills"
        assert refused(data) == [f"{path}.grants.trained.choose.0.id"]

    def test_a26_exclude_choices(self) -> None:
        """A26: `background/restricted`-style references name an earlier step's choice of the
        same kind, verifiable in the file."""
        data = five_e()
        path, wizard = entry(data, "classes", "wizard")
        choice = wizard["grants"]["trained"]["choose"][0]
        choice["excludeChoices"] = ["race/free_pick"]
        assert refused(data) == [f"{path}.grants.trained.choose.0.excludeChoices.0"]
        _, half_elf = entry(data, "races", "half-elf")
        half_elf["grants"]["trained"]["choose"][0]["id"] = "free_pick"
        load_ruleset(data)
        choice["excludeChoices"] = ["cantrips/free_pick", "wealth/free_pick", "gear/x"]
        at = f"{path}.grants.trained.choose.0.excludeChoices"
        assert refused(data) == [f"{at}.0", f"{at}.1", f"{at}.2"]

    def test_a26_slot_counts_read_earlier_steps(self) -> None:
        """A26/A6: a step's own choice count reads only what earlier steps change."""
        data = five_e()
        step(data, "skills")["choose"] = [
            {"what": "skills", "countFrom": {"derived": "proficiency_bonus"}, "max": 6}
        ]
        load_ruleset(data)
        builder(data)["steps"].insert(0, builder(data)["steps"].pop(place(data, "skills")))
        assert refused(data) == [f"{AT}.steps.0.choose.0.countFrom"]

    def test_a26_counts_and_external_catalogs(self) -> None:
        """A26: "Una cantidad de posiciones no puede leer valores de la ficha cuando un archivo
        de catálogo externo posterior podría cambiarlos": a class skill count reading the
        sheet, with backgrounds kept in an asset file picked later, is refused."""
        data = five_e()
        path, fighter = entry(data, "classes", "fighter")
        choice = fighter["grants"]["trained"]["choose"][0]
        del choice["count"]
        choice.update(countFrom={"field": "initiative_misc"}, max=4)
        load_ruleset(data)
        at, _ = catalog(data, "backgrounds")
        data["catalogs"][at] = {
            "id": "backgrounds",
            "label": "Backgrounds",
            "feeds": ["features"],
            "asset": "catalogs/backgrounds.json",
        }
        assert refused(data) == [f"{path}.grants.trained.choose.0.countFrom"]
        builder(data)["steps"].insert(0, builder(data)["steps"].pop(place(data, "background")))
        load_ruleset(data)

    def test_a27_granted_catalog_needs_a_choices_step(self) -> None:
        """A27: "se rechaza una concesión que nombre un catálogo sin ese paso"; ids exist."""
        data = five_e()
        path, human = entry(data, "races", "human")
        human["grants"]["entries"]["choose"][0]["ids"] = ["elvish", "klingon"]
        assert refused(data) == [f"{path}.grants.entries.choose.0.ids.1"]
        builder(data)["steps"].pop(place(data, "languages"))
        paths = refused(data)
        assert f"{path}.grants.entries.choose.0.catalog" in paths

    def test_a27_tools_example(self) -> None:
        """A27: the seed's tools choice (ids from the tools catalog) loads with its step."""
        data = five_e()
        tools = {
            "id": "tools",
            "label": "Tools",
            "feeds": ["proficiencies"],
            "entries": [
                {
                    "id": name,
                    "label": name,
                    "rows": [{"list": "proficiencies", "values": {"name": name}}],
                }
                for name in ("smiths-tools", "brewers-supplies", "masons-tools")
            ],
        }
        data["catalogs"].append(tools)
        _, dwarf = entry(data, "races", "dwarf")
        dwarf["grants"]["entries"] = {
            "choose": [
                {
                    "catalog": "tools",
                    "count": 1,
                    "ids": ["smiths-tools", "brewers-supplies", "masons-tools"],
                }
            ]
        }
        builder(data)["steps"].append(
            {"id": "tools", "label": "Tools", "kind": "choices", "catalog": "tools"}
        )
        load_ruleset(data)

    def test_a28_offered_when_never_reads_its_own_pick(self) -> None:
        """A28: an entry whose own pick changes what its offeredWhen reads (a score it raises,
        a skill it trains, through a derived value) is refused; another's read loads."""
        data = five_e()
        path, elf = entry(data, "races", "elf")
        elf["offeredWhen"] = {"derived": "passive_perception"}
        assert refused(data) == [f"{path}.offeredWhen"]
        elf["offeredWhen"] = {"abilityScore": "str"}
        load_ruleset(data)

    def test_a14_grant_conditions_read_no_allocation(self) -> None:
        """A14: "Las condiciones de las concesiones gratuitas tampoco pueden leer valores de un
        grupo de asignación que puedan cambiar": a gift offered by Wits is refused."""
        data = points()
        data["catalogs"][0]["entries"][0]["offeredWhen"] = {"abilityMod": "wits"}
        assert refused(data) == ["catalogs.0.entries.0.offeredWhen"]
        data["catalogs"][0]["entries"][0]["offeredWhen"] = {"field": "dragon"}
        load_ruleset(data)

    def test_a29_item_access(self) -> None:
        """A29: itemAccess names items of an items catalog, never a rows entry."""
        data = five_e()
        path, fighter = entry(data, "classes", "fighter")
        fighter["grants"]["itemAccess"] = [
            "equipment/longsword",
            "equipment/lightsaber",
            "races/elf",
        ]
        at = f"{path}.grants.itemAccess"
        assert refused(data) == [f"{at}.1", f"{at}.2"]

    def test_grant_names(self) -> None:
        """Grants name abilities, skills, saves, tiers and fields of the sheet, with values
        the fields can hold."""
        data = five_e()
        path, dwarf = entry(data, "races", "dwarf")
        dwarf["grants"] = {
            "abilities": {
                "add": {"brawn": 2},
                "choose": [{"count": 1, "amount": 1, "from": ["heart"]}],
            },
            "trained": {"skills": ["scrap"], "saves": ["steel"], "tier": "mythic"},
            "sets": {"speed": "fast", "toughness": 2},
        }
        at = f"{path}.grants"
        assert refused(data) == [
            f"{at}.abilities.add.brawn",
            f"{at}.abilities.choose.0.from.0",
            f"{at}.sets.speed",
            f"{at}.sets.toughness",
            f"{at}.trained.saves.0",
            f"{at}.trained.skills.0",
            f"{at}.trained.tier",
        ]

    def test_held_is_below_the_tier(self) -> None:
        """004: "held está por debajo del nivel al que entrena la elección"."""
        data = five_e()
        path, rogue = entry(data, "classes", "rogue")
        rogue["grants"]["trained"]["choose"][1]["held"] = "expertise"
        assert refused(data) == [f"{path}.grants.trained.choose.1.held"]


class TestStartingGear:
    def test_kit_names(self) -> None:
        """A30 and kits: coins name a currency unit, items an items catalog entry; fits and
        countFrom read no live state."""
        data = five_e()
        at = f"{steps_at(data, 'gear')}.kits"
        kits = step(data, "gear")["kits"]
        kits[0]["lines"].append({"item": "equipment/lightsaber"})
        kits[1]["lines"].append({"item": "languages/elvish"})
        kits[2]["fits"] = {"value": {"livePool": "hp"}, "atLeast": 1}
        kits[3]["lines"].append({"coins": "pp", "countFrom": {"livePool": "hp"}})
        assert refused(data) == [
            f"{at}.0.lines.7.item",
            f"{at}.1.lines.6.item",
            f"{at}.2.fits.value",
            f"{at}.3.lines.5.coins",
            f"{at}.3.lines.5.countFrom",
        ]


class TestPartyBuilder:
    CREW: dict[str, Any] = {
        "label": "The Crew",
        "fields": [
            {"id": "tier", "label": "Tier", "type": "number", "min": 0, "max": 4, "default": 0},
            {
                "id": "size",
                "label": "Crew size",
                "type": "number",
                "min": 0,
                "max": 12,
                "default": 0,
            },
            {"id": "lair", "label": "Lair", "type": "text", "maxLength": 80},
        ],
        "lists": [
            {
                "id": "upgrades",
                "label": "Upgrades",
                "columns": [{"id": "name", "label": "Name", "type": "text"}],
            }
        ],
        "builder": {
            "steps": [{"id": "upgrades", "label": "Upgrades", "kind": "rows", "list": "upgrades"}]
        },
        "fromMembers": [{"field": "size", "count": True}],
    }

    def crew(self) -> dict[str, Any]:
        data = points()
        data["party"] = json.loads(json.dumps(self.CREW))
        return data

    def test_a33_crew_loads(self) -> None:
        """A33: 002's Crew builder, a rows step on the party's upgrades list, loads."""
        party = load_ruleset(self.crew()).party
        assert party is not None and party.builder_model is not None

    def test_a33_party_rules(self) -> None:
        """A33, BUILDER §3.25: party fields and lists only; no abilities or trained steps; a
        fromMembers field is no builder target; a character field is not the party's."""
        data = self.crew()
        at = "party.builder.steps"
        data["party"]["builder"]["steps"] += [
            {"id": "scores", "label": "Scores", "kind": "abilities", "methods": {"manual": True}},
            {"id": "crew", "label": "Crew", "kind": "fields", "fields": ["lair", "size", "luck"]},
            {
                "id": "start",
                "label": "Start",
                "kind": "initialize",
                "writes": [{"field": "tier", "value": {"abilityScore": "wits"}}],
            },
            {"id": "extra", "label": "Extra", "kind": "rows", "list": "retainers"},
        ]
        assert refused(data) == [
            f"{at}.1.kind",
            f"{at}.2.fields.1",
            f"{at}.2.fields.2",
            f"{at}.3.writes.0.value.abilityScore",
            f"{at}.4.list",
        ]

    def test_a33_party_shapes(self) -> None:
        """A33: the party builder has the sheet builder's shapes."""
        data = self.crew()
        data["party"]["builder"]["steps"][0]["kind"] = "crew"
        assert refused(data) == ["party.builder.steps.0.kind"]


class TestEveryProblemAtOnce:
    def test_builder_problems_beside_the_rest(self) -> None:
        """Builder cross-reference problems, read-order problems and grant problems are
        reported in one round with the rest of the ruleset's (here gm.sheetSummary's)."""
        data = five_e()
        step(data, "race")["catalog"] = "ancestries"
        step(data, "subrace")["when"] = {"field": "level"}
        step(data, "scores")["methods"]["standardArray"] = [15]
        path, elf = entry(data, "races", "elf")
        elf["grants"]["trained"]["skills"] = ["sneaking"]
        data["gm"].setdefault("sheetSummary", {})["fields"] = ["charm"]
        assert refused(data) == sorted(
            [
                f"{path}.grants.trained.skills.0",
                "gm.sheetSummary.fields.0",
                f"{steps_at(data, 'race')}.catalog",
                f"{steps_at(data, 'scores')}.methods.standardArray",
                f"{steps_at(data, 'subrace')}.when",
            ]
        )

    def test_shape_problems_of_every_step_at_once(self) -> None:
        """Shape problems and the rules of every sound step are reported together, with the
        shape problems of other sections (here rests)."""
        data = five_e()
        step(data, "race")["max"] = 61
        step(data, "class")["min"] = 3
        step(data, "gear")["kits"][0]["lines"][0]["roll"] = "1d4"
        data["rests"][0]["id"] = 7
        paths = refused(data)
        assert f"{steps_at(data, 'race')}.max" in paths
        assert f"{steps_at(data, 'class')}.min" in paths
        assert f"{steps_at(data, 'gear')}.kits.0.lines.0.roll" in paths
        assert "rests.0.id" in paths


def test_catalog_helper_finds_catalogs() -> None:
    """The samples hold the catalogs the builder picks from."""
    assert catalog(five_e(), "races")[1]["feeds"] == ["features"]
    assert (FIXTURES / "rulesets" / "builder" / "5e-builder.json").exists()
