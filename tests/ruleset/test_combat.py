"""The `combat` and `battle` sections (SCHEMA-NOTES §11): models, and what they name elsewhere.

The models are tested through `parse_combat` and `parse_battle`, which raise
every problem at its path below the section. The passes of
`gmtags.ruleset.validate.combat` are called on a ruleset the models accept
(`Ruleset.model_validate`, as `test_catalogs` does), so each rule is seen on its
own, whichever passes `load_ruleset` runs.
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
from gmtags.ruleset.combat import Battle, Combat, parse_battle, parse_combat
from gmtags.ruleset.load import strip_comments
from gmtags.ruleset.validate.combat import (
    check_battle_refs,
    check_combat_health,
    check_combat_refs,
    check_resolution_combat,
)
from gmtags.ruleset.validate.index import SheetIndex
from tests.conftest import FIXTURES, REFERENCE_RULESETS, sound_combat

BASE: dict[str, Any] = json.loads((FIXTURES / "rulesets" / "sheet-base.json").read_text())

HARM = {
    "id": "harm",
    "label": "Harm",
    "min": 0,
    "max": 2,
    "levels": [{"label": "Hurt", "penalty": -1}, {"label": "Down", "penalty": -2}],
    "kinds": [{"id": "knock", "label": "Knock", "severity": 1}],
}
"""A wound track the base sheet gains, for combat to mark."""

Pass = Callable[[Ruleset, SheetIndex], list[Problem]]


combat = sound_combat


def pool_combat(**keys: Any) -> dict[str, Any]:
    """The smallest valid dice-pool combat, with `keys` added (None deletes one)."""
    return sound_combat(**{"kind": "dice-pool", **keys})


def battle(**keys: Any) -> dict[str, Any]:
    """The smallest valid battle block, with `keys` added (None deletes one)."""
    found: dict[str, Any] = {"health": {"pool": "grit"}}
    found.update(keys)
    return {key: value for key, value in found.items() if value is not None}


def refused(raw: Mapping[str, Any], parse: Callable[[Any], object] = parse_combat) -> list[str]:
    """Every path `parse` refuses `raw` at, sorted, from one call."""
    with pytest.raises(ValidationError) as caught:
        parse(raw)
    return sorted(json_path(error["loc"]) for error in caught.value.errors())


def ruleset(**top: Any) -> Ruleset:
    """The base ruleset, with the wound track `harm`, and these top-level sections."""
    data = copy.deepcopy(BASE)
    data["sheet"]["live"]["tracks"].append(copy.deepcopy(HARM))
    data.update(copy.deepcopy(top))
    return Ruleset.model_validate(strip_comments(data))


def passes(check: Pass, **top: Any) -> list[str]:
    """The paths one pass reports on the base ruleset with these sections, sorted."""
    model = ruleset(**top)
    return sorted(problem.path for problem in check(model, SheetIndex.of_sheet(model)))


class TestCombatShapes:
    def test_smallest_sections(self) -> None:
        """Each kind's smallest combat parses; a file without one has none."""
        assert isinstance(parse_combat(combat()), Combat)
        assert isinstance(parse_combat(pool_combat()), Combat)
        assert parse_combat(None) is None

    def test_symbol_pool_kind(self) -> None:
        """000: a symbol-pool ruleset's combat is of kind symbol-pool; the notes give it neither
        an attackRoll nor a pool rule."""
        parsed = parse_combat(combat(kind="symbol-pool", attackRoll=None))
        assert parsed is not None and parsed.kind == "symbol-pool"
        assert refused(combat(kind="melee")) == ["kind"]

    def test_required_keys(self) -> None:
        """§11: kind, health, defense, initiative and economy are required, all reported."""
        assert refused({}) == ["defense", "economy", "health", "initiative", "kind"]

    def test_unknown_keys(self) -> None:
        """Every modelled part of combat is strict: unknown keys are refused where they are."""
        raw = combat(
            health={"pool": "grit", "max": 3},
            initiative={"dice": {"count": 1, "sides": 20}, "ties": "players"},
            economy={"budgets": [{}], "reactions": 1},
            morale=True,
        )
        assert refused(raw) == ["economy.reactions", "health.max", "initiative.ties", "morale"]

    def test_counts(self) -> None:
        """§11: 1–8 budgets, at most 80 conditions, standard actions from the six."""
        assert refused(combat(economy={"budgets": []})) == ["economy.budgets"]
        assert refused(combat(economy={"budgets": [{}] * 9})) == ["economy.budgets"]
        assert refused(combat(conditions=[{}] * 81)) == ["conditions"]
        assert refused(combat(standard=["dash", "fly"])) == ["standard.1"]

    def test_value_references(self) -> None:
        """§11 `defense: ValueRef`, and health's pool and track are sheet ids."""
        raw = combat(defense={"const": 1, "field": "ac"}, health={"pool": "Grit"})
        assert refused(raw) == ["defense", "health.pool"]

    def test_raw_keys_are_kept(self) -> None:
        """Keys the notes name without a shape are kept as written (effects are not checked:
        the closed list of 19 is in neither the notes nor the seeds)."""
        conditions = [{"condition": "dazed", "effects": ["no-such-effect"], "any": 1}]
        threat = {"tiers": [{"id": "minor"}]}
        parsed = parse_combat(combat(conditions=conditions, threat=threat, damageTypes=["cut"]))
        assert parsed is not None
        assert (parsed.conditions, parsed.threat, parsed.damage_types) == (
            conditions,
            threat,
            ["cut"],
        )


class TestCombatRules:
    def test_attack_vs_defense_needs_attack_roll(self) -> None:
        """§11: attackRoll is required for attack-vs-defense, and pool refused."""
        assert refused(combat(attackRoll=None)) == ["attackRoll"]
        assert refused(combat(pool={"advantage": True})) == ["pool"]

    def test_dice_pool_needs_pool(self) -> None:
        """§11: a dice-pool combat refuses attackRoll and needs pool."""
        assert refused(pool_combat(pool=None)) == ["pool"]
        assert refused(pool_combat(attackRoll={"dice": {"count": 1, "sides": 20}})) == [
            "attackRoll"
        ]

    def test_health_is_a_pool_or_a_track(self) -> None:
        """§11 `health {pool}|{track}`: exactly one of the two."""
        assert refused(combat(health={})) == ["health"]
        assert refused(combat(health={"pool": "grit", "track": "harm"})) == ["health"]

    def test_initiative_rolls_dice_or_a_pool(self) -> None:
        """§11 `initiative {dice|pool, …}`: exactly one of the two."""
        assert refused(combat(initiative={"modifier": {"const": 1}})) == ["initiative"]
        both = {"dice": {"count": 1, "sides": 20}, "pool": {"count": 2}}
        assert refused(combat(initiative=both)) == ["initiative"]

    def test_standard_actions_are_named_once(self) -> None:
        """A standard action is offered once."""
        assert refused(combat(standard=["dash", "dodge", "dash"])) == ["standard.2"]

    def test_every_rule_at_once(self) -> None:
        """The section's rules come together from one parse, each at its own path."""
        raw = pool_combat(pool=None, attackRoll={}, standard=["help", "help"])
        assert refused(raw) == ["attackRoll", "pool", "standard.1"]

    def test_health_and_initiative_beside_shape_errors(self) -> None:
        """Health's and initiative's rules are reported in the same round as a shape error."""
        raw = combat(health={}, initiative={}, economy={"budgets": []})
        assert refused(raw) == ["economy.budgets", "health", "initiative"]


class TestBattle:
    def test_smallest_section(self) -> None:
        """A battle block needs only its health; a file without one has none."""
        assert isinstance(parse_battle(battle()), Battle)
        assert parse_battle(None) is None

    def test_shapes(self) -> None:
        """§11: strict, health required, at most 12 slots of levels 1–9."""
        assert refused({"spells": []}, parse_battle) == ["health", "spells"]
        slots = [{"pool": "slots_1", "level": 0}, {"pool": "slots_2", "level": 10, "x": 1}]
        assert refused(battle(slots=slots), parse_battle) == [
            "slots.0.level",
            "slots.1.level",
            "slots.1.x",
        ]
        assert refused(battle(slots=[{"pool": "s", "level": 1}] * 13), parse_battle) == ["slots"]

    def test_health_is_a_pool_or_a_track(self) -> None:
        """§11 `health {pool}|{track}`: exactly one of the two."""
        both = battle(health={"pool": "grit", "track": "harm"})
        assert refused(both, parse_battle) == ["health"]

    def test_raw_keys_are_kept(self) -> None:
        """`energy` and `skills` have no shape in the notes and are kept as written."""
        skills = [{"list": "spells", "onlyWhen": "prepared"}]
        parsed = parse_battle(battle(energy={"pool": "luck"}, skills=skills))
        assert parsed is not None and (parsed.energy, parsed.skills) == ({"pool": "luck"}, skills)


class TestCheckCombatRefs:
    def test_health_names_a_pool_or_track(self) -> None:
        """§11: combat.health is a live pool or a live track of the sheet."""
        assert passes(check_combat_refs, combat=combat(health={"pool": "hp"})) == [
            "combat.health.pool"
        ]
        assert passes(check_combat_refs, combat=combat(health={"track": "wounds"})) == [
            "combat.health.track"
        ]

    def test_defense_exists(self) -> None:
        """§11 `defense: ValueRef`: the value it reads exists (§4)."""
        assert passes(check_combat_refs, combat=combat(defense={"derived": "ac"})) == [
            "combat.defense.derived"
        ]

    def test_all_at_once(self) -> None:
        """Both problems come together; a sound combat and no combat pass."""
        bad = combat(health={"pool": "hp"}, defense={"abilityMod": "grace"})
        assert passes(check_combat_refs, combat=bad) == [
            "combat.defense.abilityMod",
            "combat.health.pool",
        ]
        sound = combat(health={"track": "harm"}, defense={"field": "toughness"})
        assert passes(check_combat_refs, combat=sound) == []
        assert passes(check_combat_refs) == []


class TestCheckCombatHealth:
    def test_damage_kinds_on_a_pool(self) -> None:
        """002, "¿Qué forma necesita tu sistema?": damageKinds is refused beside a pool."""
        kinds = {"default": "knock", "marks": "per-point"}
        assert passes(check_combat_health, combat=combat(damageKinds=kinds)) == [
            "combat.damageKinds"
        ]

    def test_damage_kinds_on_a_wound_track(self) -> None:
        """§11: damageKinds is required exactly when health is a wound track."""
        marked = combat(health={"track": "harm"})
        assert passes(check_combat_health, combat=marked) == ["combat.damageKinds"]
        kinds = {"default": "knock", "marks": "per-point"}
        assert passes(check_combat_health, combat={**marked, "damageKinds": kinds}) == []


class TestCheckResolutionCombat:
    def test_dice_pool_combat_needs_dice_pool(self) -> None:
        """§11: a dice-pool combat requires resolution kind dice-pool."""
        assert passes(check_resolution_combat, combat=pool_combat()) == ["combat.kind"]
        assert passes(check_resolution_combat, combat=combat()) == []


class TestCheckBattleRefs:
    def test_health(self) -> None:
        """§11: battle.health is a live pool or a live track of the sheet."""
        assert passes(check_battle_refs, battle=battle(health={"pool": "hp"})) == [
            "battle.health.pool"
        ]
        assert passes(check_battle_refs, battle=battle(health={"track": "harm"})) == []

    def test_energy_and_slots_name_pools(self) -> None:
        """§11: `energy` (where it names a pool) and each slot's pool are live pools."""
        slots = [{"pool": "grit", "level": 1}, {"pool": "slots_2", "level": 2}]
        section = battle(energy={"pool": "luck"}, slots=slots)
        assert passes(check_battle_refs, battle=section) == [
            "battle.energy.pool",
            "battle.slots.1.pool",
        ]

    def test_skills_name_lists(self) -> None:
        """Where a `skills` entry names a list, it is a list of the sheet."""
        section = battle(skills=[{"list": "spells"}, "anything"])
        assert passes(check_battle_refs, battle=section) == ["battle.skills.0.list"]

    def test_all_at_once(self) -> None:
        """Every problem of the block comes together; no battle has nothing to check."""
        section = battle(
            health={"track": "wounds"},
            energy={"pool": "luck"},
            slots=[{"pool": "slots_1", "level": 1}],
            skills=[{"list": "spells"}],
        )
        assert passes(check_battle_refs, battle=section) == [
            "battle.energy.pool",
            "battle.health.track",
            "battle.skills.0.list",
            "battle.slots.0.pool",
        ]
        assert passes(check_battle_refs) == []


REFERENCES = ("ruleset-5e-2014.example.json", "ember-roads.json", "gravewatch.json")


class TestReferenceRulesets:
    @pytest.mark.parametrize("name", REFERENCES)
    def test_combat_parses_and_passes(self, name: str) -> None:
        """The three reference rulesets' combat blocks parse and pass every combat pass."""
        loaded = load_ruleset(REFERENCE_RULESETS / name)
        assert isinstance(parse_combat(loaded.combat), Combat)
        index = SheetIndex.of_sheet(loaded)
        for check in (check_combat_refs, check_combat_health, check_resolution_combat):
            assert check(loaded, index) == []

    @pytest.mark.parametrize("name", REFERENCES)
    def test_battle_parses_and_passes(self, name: str) -> None:
        """The 5e and Ember Roads battle blocks parse and pass; Gravewatch has none."""
        loaded = load_ruleset(REFERENCE_RULESETS / name)
        parsed = parse_battle(loaded.battle)
        assert isinstance(parsed, Battle) == (name != "gravewatch.json")
        assert check_battle_refs(loaded, SheetIndex.of_sheet(loaded)) == []
