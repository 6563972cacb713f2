"""The whole `resolution` object: the five kinds, tiers, overrides, spend and charms (000)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from pydantic import ValidationError

from gmtags import RulesetError, load_ruleset
from gmtags.ruleset.resolution import (
    DiceHighest,
    DicePool,
    DiceSum,
    MechanicsCheck,
    RollAgainst,
    SymbolPool,
    parse_resolution,
)
from tests.conftest import FIXTURES, REFERENCE_RULESETS, sound_combat

BASE: dict[str, Any] = json.loads((FIXTURES / "rulesets" / "sheet-base.json").read_text())

SKILLS = ["open_locks", "pick_pockets", "open_doors", "listen", "athletics"]
"""The skills the seed's override example names, added to the base sheet."""

SHEET_EXTRA: dict[str, Any] = {
    "skills": [{"id": skill, "label": skill.replace("_", " ").title()} for skill in SKILLS],
    "fields": [
        {"id": "favored_athletics", "label": "Favored", "type": "number", "min": 0, "max": 1},
        {"id": "number", "label": "Number", "type": "number", "min": 2, "max": 5, "default": 3},
    ],
    "pools": [
        {"id": "resolve", "label": "Resolve", "max": {"const": 3}},
        {"id": "blood", "label": "Blood", "max": {"const": 3}, "start": "empty"},
    ],
}

SHARED: dict[str, Any] = {
    "abilityModifier": {"op": "identity"},
    "proficiencyTiers": [
        {"id": "untrained", "label": "Untrained"},
        {"id": "trained", "label": "Trained", "flat": 1},
    ],
}

# The seed's own example resolutions (000), one per kind.

SUM_2D6: dict[str, Any] = {
    "kind": "dice-sum",
    "dice": {"count": 2, "sides": 6},
    **SHARED,
    "advantage": False,
    "difficultyLadder": [{"label": "Easy", "dc": 6}, {"label": "Hard", "dc": 10}],
}

SUM_D20: dict[str, Any] = {**SUM_2D6, "dice": {"count": 1, "sides": 20}}

POOL: dict[str, Any] = {
    "kind": "dice-pool",
    "die": {"sides": 10},
    "abilityModifier": {"op": "identity"},
    "proficiencyTiers": [
        {"id": "rating_0", "label": "Untried"},
        {"id": "rating_1", "label": "Shown once", "flat": 1},
    ],
    "pool": {"min": 1, "max": 15, "abilityPlusAbility": True},
    "target": {"default": 7, "min": 5, "max": 9},
    "explode": {"from": 10, "min": 8},
    "cancel": {"upTo": 1},
    "botch": {"upTo": 1},
    "exceptional": {"successes": 5},
    "situationalDice": {"min": -3, "max": 3},
    "reroll": [{"id": "careful", "upTo": 6, "mode": "once"}],
    "difficultyLadder": [
        {"label": "Plain work", "successes": 1, "target": 6},
        {"label": "Grim", "successes": 3, "target": 8},
    ],
}

BLADES_TIERS: list[dict[str, Any]] = [
    {"id": "critical", "label": "Critical", "on": "critical-success", "success": True},
    {"id": "full", "label": "Full success", "atLeast": 6, "success": True},
    {
        "id": "partial",
        "label": "Partial success",
        "atLeast": 4,
        "success": True,
        "text": "You do it, with a consequence.",
    },
    {"id": "bad", "label": "Bad outcome"},
]

HIGHEST: dict[str, Any] = {
    "kind": "dice-highest",
    "die": {"sides": 6},
    "abilityModifier": {"op": "identity"},
    "proficiencyTiers": [
        {"id": "rating_0", "label": "0"},
        {"id": "rating_1", "label": "1", "flat": 1},
    ],
    "pool": {"min": 0, "max": 6},
    "zeroDice": "lowest-of-two",
    "critical": {"count": 2},
    "situationalDice": {"min": -1, "max": 2},
    "difficultyLadder": [{"label": "Partial", "dc": 4}, {"label": "Full", "dc": 6}],
    "outcomes": {"by": "total", "tiers": BLADES_TIERS},
}

COC_TIERS: list[dict[str, Any]] = [
    {"id": "critical", "label": "Critical", "on": "critical-success", "success": True},
    {"id": "extreme", "label": "Extreme success", "atLeast": 5, "success": True},
    {"id": "hard", "label": "Hard success", "atLeast": 2, "success": True},
    {"id": "regular", "label": "Regular success", "atLeast": 1, "success": True},
    {"id": "fail", "label": "Failure"},
    {"id": "fumble", "label": "Fumble", "on": "critical-failure"},
]

AGAINST: dict[str, Any] = {
    "kind": "roll-against",
    "dice": {"count": 1, "sides": 100},
    "abilityModifier": {"op": "identity"},
    "proficiencyTiers": [{"id": "base", "label": "Base"}],
    "against": "at-most",
    "criticalSuccess": [{"from": 1, "to": 1}],
    "criticalFailure": [{"from": 100, "to": 100}, {"from": 96, "whenTarget": {"below": 50}}],
    "tens": {"max": 2},
    "difficultyLadder": [
        {"label": "Regular", "dc": 0},
        {"label": "Hard", "dc": 0, "divide": 2},
        {"label": "Extreme", "dc": 0, "divide": 5},
    ],
    "outcomes": {"by": "fraction", "tiers": COC_TIERS},
}

SYMBOLS: dict[str, Any] = {
    "kind": "symbol-pool",
    "abilityModifier": {"op": "identity"},
    "proficiencyTiers": [
        {"id": "untrained", "label": "Untrained", "flat": 0},
        {"id": "rank_one", "label": "Rank 1", "flat": 1},
    ],
    "symbols": [
        {"id": "s", "label": "Success"},
        {"id": "f", "label": "Failure", "cancels": "s"},
        {"id": "a", "label": "Advantage"},
        {"id": "h", "label": "Threat", "cancels": "a"},
        {"id": "t", "label": "Triumph", "counts": "s"},
        {"id": "d", "label": "Despair", "counts": "f"},
    ],
    "dice": [
        {
            "id": "ability",
            "label": "Ability",
            "faces": [[], ["s"], ["s"], ["s", "s"], ["a"], ["a"], ["s", "a"], ["a", "a"]],
        },
        {
            "id": "proficiency",
            "label": "Proficiency",
            "faces": [
                [],
                ["s"],
                ["s"],
                ["s", "s"],
                ["s", "s"],
                ["a"],
                ["s", "a"],
                ["s", "a"],
                ["s", "a"],
                ["a", "a"],
                ["a", "a"],
                ["t"],
            ],
        },
        {
            "id": "difficulty",
            "label": "Difficulty",
            "faces": [[], ["f"], ["f", "f"], ["h"], ["h"], ["h"], ["h", "h"], ["f", "h"]],
        },
        {
            "id": "challenge",
            "label": "Challenge",
            "faces": [
                [],
                ["f"],
                ["f"],
                ["f", "f"],
                ["f", "f"],
                ["h"],
                ["h"],
                ["f", "h"],
                ["f", "h"],
                ["h", "h"],
                ["h", "h"],
                ["d"],
            ],
        },
        {
            "id": "boost",
            "label": "Boost",
            "faces": [[], [], ["s"], ["s", "a"], ["a", "a"], ["a"]],
        },
        {"id": "setback", "label": "Setback", "faces": [[], [], ["f"], ["f"], ["h"], ["h"]]},
    ],
    "success": {"symbol": "s", "needed": 1},
    "pool": {"die": "ability", "upgrade": "proficiency", "max": 6},
    "difficulty": {"die": "difficulty", "upgrade": "challenge", "max": 5},
    "boost": {"die": "boost", "max": 3},
    "setback": {"die": "setback", "max": 3},
    "criticalSuccess": "t",
    "criticalFailure": "d",
    "difficultyLadder": [
        {"label": "Easy", "dc": 1},
        {"label": "Average", "dc": 2},
        {"label": "Hard", "dc": 3},
    ],
}

OLD_SCHOOL: dict[str, Any] = {
    **AGAINST,
    "dice": {"count": 1, "sides": 20},
    "criticalSuccess": None,
    "criticalFailure": None,
    "tens": None,
    "outcomes": None,
    "overrides": [
        {
            "id": "thief",
            "label": "Thief skills",
            "skills": ["open_locks", "pick_pockets"],
            "set": {"dice": {"count": 1, "sides": 100}},
        },
        {
            "id": "x_in_6",
            "label": "X-in-6",
            "skills": ["open_doors", "listen"],
            "set": {"dice": {"count": 1, "sides": 6}},
        },
    ],
}
"""000, "Pruebas que tiran a su manera": a d20 roll-under game with a thief's d100 and a d6."""

FAVORED: dict[str, Any] = {
    "id": "favored",
    "label": "Favored",
    "skills": ["athletics"],
    "when": {"field": "favored_athletics"},
    "set": {"cancel": None},
}

RESOLVE_SPEND: list[dict[str, Any]] = [
    {"pool": "resolve", "amount": 1, "successes": 1, "perCheck": 2}
]


def resolution(base: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """`base` with top-level keys replaced; a None value deletes the key."""
    data = copy.deepcopy(base)
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = copy.deepcopy(value)
    return {key: value for key, value in data.items() if value is not None}


def ruleset(resolved: dict[str, Any], **top: Any) -> dict[str, Any]:
    """The base ruleset with the seed's skills, fields and pools, and this resolution."""
    data = copy.deepcopy(BASE)
    sheet = data["sheet"]
    sheet["skills"] += copy.deepcopy(SHEET_EXTRA["skills"])
    sheet["fields"] += copy.deepcopy(SHEET_EXTRA["fields"])
    sheet["live"]["pools"] += copy.deepcopy(SHEET_EXTRA["pools"])
    data["resolution"] = copy.deepcopy(resolved)
    data.update(copy.deepcopy(top))
    return data


def paths(data: dict[str, Any]) -> list[str]:
    with pytest.raises(RulesetError) as caught:
        load_ruleset(data)
    return sorted(problem.path for problem in caught.value.problems)


def refused(base: dict[str, Any], **changes: Any) -> list[str]:
    """The paths a resolution changed from `base` is refused at."""
    return paths(ruleset(resolution(base, **changes)))


def tiers(*rows: dict[str, Any], by: str = "margin", **extra: Any) -> dict[str, Any]:
    return {"by": by, "tiers": list(rows), **extra}


def tier(identifier: str, **keys: Any) -> dict[str, Any]:
    return {"id": identifier, "label": identifier.title(), **keys}


WIN = tier("win", atLeast=1, success=True)
LOSE = tier("lose")


class TestSeedExamples:
    def test_dice_sum_2d6(self) -> None:
        """000, "dice-sum": the seed's 2d6 resolution with its ladder loads as a DiceSum."""
        rules = load_ruleset(ruleset(SUM_2D6)).resolution_rules
        assert isinstance(rules, DiceSum)
        assert (rules.dice.count, rules.dice.sides) == (2, 6)
        assert [rung.dc for rung in rules.difficulty_ladder or []] == [6, 10]

    def test_dice_pool_exwod(self) -> None:
        """000, "dice-pool": the careful reroll, the Grim rung and an exploding d10 load."""
        rules = load_ruleset(ruleset(POOL)).resolution_rules
        assert isinstance(rules, DicePool)
        assert rules.reroll is not None and rules.reroll[0].id == "careful"
        assert rules.difficulty_ladder is not None and rules.difficulty_ladder[1].target == 8
        assert rules.max_successes == 30

    def test_dice_highest_blades(self) -> None:
        """000, "dice-highest": Blades with a critical tier above the full-success tier loads."""
        rules = load_ruleset(ruleset(HIGHEST)).resolution_rules
        assert isinstance(rules, DiceHighest)
        assert rules.keep == 1 and rules.critical is not None and rules.critical.count == 2
        assert rules.outcomes is not None and rules.outcomes.tiers[0].on == "critical-success"

    def test_roll_against_call_of_cthulhu(self) -> None:
        """000, "roll-against": CoC's d100 with tens dice, divided rungs and fraction tiers."""
        rules = load_ruleset(ruleset(AGAINST)).resolution_rules
        assert isinstance(rules, RollAgainst)
        assert rules.outcomes is not None and rules.outcomes.by == "fraction"
        assert rules.critical_failure is not None
        assert rules.critical_failure[1].when_target is not None

    def test_symbol_pool_genesys(self) -> None:
        """000, "symbol-pool": Genesys's six symbols and six dice load."""
        rules = load_ruleset(ruleset(SYMBOLS)).resolution_rules
        assert isinstance(rules, SymbolPool)
        assert len(rules.dice) == 6 and rules.success.symbol == "s"

    def test_overrides_thief_and_x_in_6(self) -> None:
        """000, "Pruebas que tiran a su manera": the thief's d100 and the X-in-6 d6 load."""
        rules = load_ruleset(ruleset(OLD_SCHOOL)).resolution_rules
        thief = rules.overridden(rules.overrides[0])
        assert isinstance(thief, RollAgainst) and thief.dice.sides == 100
        assert isinstance(rules, RollAgainst) and rules.dice.sides == 20

    def test_override_favored_deletes_cancel(self) -> None:
        """000: `"cancel": null` on a favored ability is an override that applies when set."""
        rules = load_ruleset(ruleset(resolution(POOL, overrides=[FAVORED]))).resolution_rules
        favored = rules.overridden(rules.overrides[0])
        assert isinstance(rules, DicePool) and rules.cancel is not None
        assert isinstance(favored, DicePool) and favored.cancel is None

    def test_spend_resolve(self) -> None:
        """000, "Gastar para cambiar una tirada": a point of resolve buys a success, twice."""
        rules = load_ruleset(ruleset(resolution(POOL, spend=RESOLVE_SPEND))).resolution_rules
        assert isinstance(rules, DicePool)
        assert rules.spend[0].buys() == ["successes"] and rules.spend[0].per_check == 2

    def test_outcomes_with_shift(self) -> None:
        """000, "Franjas de resultado": the margin tiers with naturals shift on a lone d20."""
        outcomes = tiers(
            tier("critical_success", atLeast=10, success=True, critical=True),
            tier("success", atLeast=0, success=True),
            tier("failure", atLeast=-9),
            tier("critical_failure", critical=True),
            naturals="shift",
        )
        rules = load_ruleset(ruleset(resolution(SUM_D20, outcomes=outcomes))).resolution_rules
        assert rules.outcomes is not None and rules.outcomes.naturals == "shift"

    def test_fate_fudge_dice(self) -> None:
        """000, "dice-sum": Fate's four dice are three faces worth -1, 0 and +1."""
        dice = {"count": 4, "sides": 3, "faces": [-1, 0, 1]}
        rules = load_ruleset(ruleset(resolution(SUM_2D6, dice=dice))).resolution_rules
        assert isinstance(rules, DiceSum) and rules.dice.faces == [-1, 0, 1]

    def test_rolemaster_open_ended_and_unmodified(self) -> None:
        """000, "dice-sum": an open-ended d100 that flags an unmodified 66 and 100."""
        data = resolution(
            SUM_2D6,
            dice={"count": 1, "sides": 100},
            openEnded={"high": 96, "low": 5},
            unmodified=[66, 100],
            difficultyLadder=[{"label": "Medium", "dc": 100}],
        )
        rules = load_ruleset(ruleset(data)).resolution_rules
        assert isinstance(rules, DiceSum) and rules.unmodified == [66, 100]

    def test_lasers_and_feelings(self) -> None:
        """000, "target.from": each character's Number, two stances and LASER FEELINGS."""
        data = resolution(
            POOL,
            die={"sides": 6},
            pool={"min": 1, "max": 3},
            target={"default": 4, "min": 2, "max": 5, "from": {"field": "number"}},
            stances=[
                {"id": "lasers", "label": "Lasers", "count": "below", "skills": ["open_locks"]},
                {"id": "feelings", "label": "Feelings", "count": "above", "skills": ["listen"]},
            ],
            exact={"label": "LASER FEELINGS", "text": "Ask the GM a question."},
            explode=None,
            cancel=None,
            botch=None,
            exceptional=None,
            reroll=None,
            difficultyLadder=None,
            outcomes=tiers(
                tier("critical", atLeast=3, success=True, critical=True),
                tier("success", atLeast=2, success=True),
                tier("barely", atLeast=1, success=True),
                tier("fail"),
                by="total",
            ),
        )
        rules = load_ruleset(ruleset(data)).resolution_rules
        assert isinstance(rules, DicePool) and rules.exact is not None and rules.exact.counts

    def test_gurps_critical_rules(self) -> None:
        """000, "roll-against": GURPS's 3d6 with criticals by target and pastTarget."""
        data = resolution(
            AGAINST,
            dice={"count": 3, "sides": 6},
            criticalSuccess=[
                {"to": 4},
                {"from": 5, "to": 5, "whenTarget": {"atLeast": 15}},
                {"from": 6, "to": 6, "whenTarget": {"atLeast": 16}},
            ],
            criticalFailure=[{"from": 18}, {"pastTarget": 10}],
            tens=None,
            outcomes=None,
        )
        assert isinstance(load_ruleset(ruleset(data)).resolution_rules, RollAgainst)

    def test_reference_rulesets_resolve(self) -> None:
        """The reference rulesets' resolutions, catalog checks and layer ladders import."""
        for name, model in (
            ("gravewatch.json", DicePool),
            ("ember-roads.json", DiceSum),
            ("ruleset-5e-2014.example.json", DiceSum),
        ):
            assert isinstance(load_ruleset(REFERENCE_RULESETS / name).resolution_rules, model)

    @pytest.mark.parametrize("name", ["ashfall.json", "crows.json", "five-torches.json"])
    def test_sheet_fixtures_resolve(self, name: str) -> None:
        """Our sheet fixtures' resolutions import under the strict models."""
        assert load_ruleset(FIXTURES / "rulesets" / "sheets" / name).resolution_rules


class TestTypedModel:
    @pytest.mark.parametrize(
        "example",
        [SUM_2D6, POOL, HIGHEST, AGAINST, SYMBOLS, OLD_SCHOOL],
        ids=["sum", "pool", "highest", "against", "symbols", "overrides"],
    )
    def test_round_trips(self, example: dict[str, Any]) -> None:
        """A typed resolution dumps to JSON that validates to the same model."""
        rules = parse_resolution(resolution(example))
        dumped = rules.model_dump(mode="json", by_alias=True, exclude_none=True)
        assert parse_resolution(dumped) == rules

    def test_resolution_rules_is_the_kind_model(self) -> None:
        """Ruleset.resolution stays the raw object; resolution_rules is the typed model."""
        loaded = load_ruleset(ruleset(resolution(POOL, spend=RESOLVE_SPEND)))
        assert loaded.resolution["kind"] == "dice-pool"
        assert isinstance(loaded.resolution_rules, DicePool)
        assert loaded.resolution_rules is loaded.resolution_rules

    def test_overridden_keeps_locked_keys(self) -> None:
        """The resolution an override creates keeps the ruleset's ladder and spend."""
        data = resolution(POOL, spend=RESOLVE_SPEND, overrides=[FAVORED])
        rules = load_ruleset(ruleset(data)).resolution_rules
        favored = rules.overridden(rules.overrides[0])
        assert isinstance(favored, DicePool) and favored.spend == rules.spend
        assert favored.difficulty_ladder == rules.difficulty_ladder and not favored.overrides


class TestKinds:
    def test_unknown_kind(self) -> None:
        """An unknown kind is refused at resolution.kind, with nothing else reported."""
        assert refused(SUM_2D6, kind="d6-tower") == ["resolution.kind"]

    def test_keys_of_another_kind(self) -> None:
        """Each kind is strict: a dice pool's keys on a dice-sum are refused where they are."""
        assert refused(SUM_2D6, target={"default": 7, "min": 7, "max": 7}) == ["resolution.target"]

    def test_every_broken_rule_is_reported(self) -> None:
        """Every broken rule between keys is listed at once, never only the first."""
        assert refused(POOL, cancel={"upTo": 5}, botch={"upTo": 6}) == [
            "resolution.botch.upTo",
            "resolution.cancel.upTo",
        ]

    def test_shapes_come_before_rules(self) -> None:
        """A key of the wrong shape is reported alone: the rules between keys read valid keys."""
        assert refused(POOL, cancel={"upTo": 5}, die={"sides": 101}, keep=1) == [
            "resolution.die.sides",
            "resolution.keep",
        ]

    def test_parse_resolution_paths_are_plain(self) -> None:
        """A problem inside a kind is at its key, not under the kind's name."""
        with pytest.raises(ValidationError) as caught:
            parse_resolution(resolution(POOL, cancel={"upTo": 0}))
        assert "cancel.upTo" in str(caught.value) and "dice-pool" not in str(caught.value)


class TestOutcomes:
    @pytest.mark.parametrize(
        ("outcomes", "expected"),
        [
            pytest.param(tiers(WIN), ["resolution.outcomes.tiers"], id="one-tier"),
            pytest.param(
                tiers(*(tier(f"t{i}", atLeast=10 - i, success=True) for i in range(8)), LOSE),
                ["resolution.outcomes.tiers"],
                id="nine-tiers",
            ),
            pytest.param(
                tiers(tier("a", atLeast=0, success=True), tier("b", atLeast=0), LOSE),
                ["resolution.outcomes.tiers.1.atLeast"],
                id="at-least-not-descending",
            ),
            pytest.param(
                tiers(WIN, tier("lose", atLeast=-5)),
                ["resolution.outcomes.tiers.1.atLeast"],
                id="last-has-at-least",
            ),
            pytest.param(
                tiers(WIN, tier("mid"), LOSE),
                ["resolution.outcomes.tiers.1.atLeast"],
                id="middle-without-at-least",
            ),
            pytest.param(
                tiers(tier("crit", on="critical-success", success=True, atLeast=5), WIN, LOSE),
                ["resolution.outcomes.tiers.0.atLeast"],
                id="on-tier-with-at-least",
            ),
            pytest.param(
                tiers(
                    tier("crit", on="critical-success", success=True),
                    tier("crit2", on="critical-success", success=True),
                    WIN,
                    LOSE,
                ),
                ["resolution.outcomes.tiers.1.on"],
                id="two-critical-success-tiers",
            ),
            pytest.param(
                tiers(tier("crit", on="critical-success"), WIN, LOSE),
                ["resolution.outcomes.tiers.0.success"],
                id="critical-success-tier-fails",
            ),
            pytest.param(
                tiers(WIN, LOSE, tier("fumble", on="critical-failure", success=True)),
                ["resolution.outcomes.tiers.2.success"],
                id="critical-failure-tier-succeeds",
            ),
            pytest.param(
                tiers(WIN, tier("crit", on="critical-success", success=True), LOSE),
                ["resolution.outcomes.tiers.1.on"],
                id="critical-success-not-on-top",
            ),
            pytest.param(
                tiers(WIN, tier("fumble", on="critical-failure"), LOSE),
                ["resolution.outcomes.tiers.1.on"],
                id="critical-failure-not-at-bottom",
            ),
            pytest.param(
                tiers(tier("crit", on="critical-success", success=True), tier("all", success=True)),
                ["resolution.outcomes.tiers"],
                id="no-failure-tier",
            ),
            pytest.param(
                tiers(tier("meh", atLeast=0), LOSE),
                ["resolution.outcomes.tiers"],
                id="no-success-tier",
            ),
            pytest.param(
                tiers(tier("crit", on="critical-success", success=True), LOSE),
                [],
                id="a-critical-tier-may-be-the-only-success",
            ),
            pytest.param(
                tiers(
                    tier("crit", on="critical-success", success=True),
                    tier("fumble", on="critical-failure"),
                ),
                ["resolution.outcomes.tiers"],
                id="no-tier-read-from-the-number",
            ),
            pytest.param(
                tiers({**WIN, "text": "x" * 201}, LOSE),
                ["resolution.outcomes.tiers.0.text"],
                id="text-over-200",
            ),
            pytest.param(
                tiers({**WIN, "text": "two\nlines"}, LOSE),
                ["resolution.outcomes.tiers.0.text"],
                id="text-not-prompt-safe",
            ),
            pytest.param(
                tiers(WIN, tier("win")), ["resolution.outcomes.tiers.1.id"], id="repeated-id"
            ),
            pytest.param(tiers(WIN, LOSE, by="odds"), ["resolution.outcomes.by"], id="unknown-by"),
            pytest.param(
                tiers(WIN, LOSE, by="fraction"), ["resolution.outcomes.by"], id="fraction-on-sum"
            ),
            pytest.param(
                tiers(WIN, LOSE, naturals="shift"),
                ["resolution.outcomes.naturals"],
                id="shift-on-2d6",
            ),
        ],
    )
    def test_tier_rules(self, outcomes: dict[str, Any], expected: list[str]) -> None:
        """000, "Franjas de resultado": each tier rule is refused at its path."""
        data = ruleset(resolution(SUM_2D6, outcomes=outcomes))
        if expected:
            assert paths(data) == expected
        else:
            assert load_ruleset(data).resolution_rules.outcomes is not None

    def test_shift_needs_naturals_none(self) -> None:
        """000: naturals shift replaces resolution.naturals, so those must be none."""
        outcomes = tiers(WIN, LOSE, naturals="shift")
        naturals = {"check": "both", "save": "none"}
        assert refused(SUM_D20, outcomes=outcomes, naturals=naturals) == [
            "resolution.outcomes.naturals"
        ]
        assert load_ruleset(ruleset(resolution(SUM_D20, outcomes=outcomes)))

    @pytest.mark.parametrize("base", [POOL, HIGHEST, SYMBOLS], ids=["pool", "highest", "symbols"])
    def test_shift_needs_a_single_die(self, base: dict[str, Any]) -> None:
        """000: shift needs one die, so the kinds that throw several refuse it."""
        outcomes = tiers(WIN, LOSE, naturals="shift")
        assert refused(base, outcomes=outcomes) == ["resolution.outcomes.naturals"]

    def test_fraction_only_at_most(self) -> None:
        """000, "roll-against": by fraction reads an at-most roll only."""
        assert refused(AGAINST, against="at-least") == ["resolution.outcomes.by"]
        assert refused(POOL, outcomes=tiers(WIN, LOSE, by="fraction")) == ["resolution.outcomes.by"]

    def test_fraction_tiers_divide(self) -> None:
        """With by fraction, every atLeast divides the target: 1 or more."""
        outcomes = tiers(tier("win", atLeast=0, success=True), LOSE, by="fraction")
        assert refused(AGAINST, outcomes=outcomes) == ["resolution.outcomes.tiers.0.atLeast"]


class TestOverrides:
    @pytest.mark.parametrize(
        ("key", "value"),
        [
            ("kind", "dice-sum"),
            ("abilityModifier", {"op": "identity"}),
            ("proficiency", {"bonus": {"const": 2}}),
            ("proficiencyTiers", [{"id": "x", "label": "X"}]),
            ("penaltyFrom", "heat"),
            ("spend", RESOLVE_SPEND),
            ("adjust", []),
            ("difficultyLadder", [{"label": "Easy", "successes": 1}]),
            ("overrides", []),
        ],
    )
    def test_locked_keys(self, key: str, value: Any) -> None:
        """000: an override cannot change the kind, the sheet's sums or the ladder."""
        override = {**FAVORED, "set": {key: value}}
        assert refused(POOL, overrides=[override]) == [f"resolution.overrides.0.set.{key}"]

    @pytest.mark.parametrize("key", ["symbols", "dice"])
    def test_symbol_pool_locks_symbols_and_dice(self, key: str) -> None:
        """000: a symbol pool also locks its symbols and dice."""
        override = {**FAVORED, "set": {key: SYMBOLS[key]}}
        assert refused(SYMBOLS, overrides=[override]) == [f"resolution.overrides.0.set.{key}"]

    def test_created_resolution_is_checked(self) -> None:
        """000: the resolution an override creates is checked like the ruleset's own."""
        bad_cancel = {**FAVORED, "set": {"cancel": {"upTo": 5}}}
        assert refused(POOL, overrides=[bad_cancel]) == ["resolution.overrides.0.set.cancel.upTo"]

    def test_face_it_names_must_be_on_its_dice(self) -> None:
        """000: a smaller die leaves the target faces off it, reported at the override's set."""
        smaller = {**FAVORED, "set": {"die": {"sides": 6}}}
        assert set(refused(POOL, overrides=[smaller])) == {"resolution.overrides.0.set"}

    def test_deleting_a_required_key(self) -> None:
        """A null that deletes a key the kind needs is refused at that key of set."""
        no_target = {**FAVORED, "set": {"target": None}}
        assert refused(POOL, overrides=[no_target]) == ["resolution.overrides.0.set.target"]

    def test_unknown_key_in_set(self) -> None:
        """set holds only keys of the ruleset's own kind."""
        other_kind = {**FAVORED, "set": {"keep": 2}}
        assert refused(POOL, overrides=[other_kind]) == ["resolution.overrides.0.set.keep"]

    def test_set_is_not_empty(self) -> None:
        """An override whose set changes nothing is refused."""
        assert refused(POOL, overrides=[{**FAVORED, "set": {}}]) == ["resolution.overrides.0.set"]

    def test_base_problems_are_reported_once(self) -> None:
        """A problem of the ruleset's own resolution is not repeated for each override."""
        assert refused(POOL, cancel={"upTo": 5}, overrides=[FAVORED]) == ["resolution.cancel.upTo"]

    def test_names_checks(self) -> None:
        """000: an override names skills, saves or abilities."""
        nothing = {key: value for key, value in FAVORED.items() if key != "skills"}
        assert refused(POOL, overrides=[nothing]) == ["resolution.overrides.0"]

    def test_names_existing_checks(self) -> None:
        """Every skill, save and ability an override names exists on the sheet."""
        override = {
            **FAVORED,
            "skills": ["athletics", "flying"],
            "saves": ["steel", "luck"],
            "abilities": ["brawn", "charm"],
        }
        assert refused(POOL, overrides=[override]) == [
            "resolution.overrides.0.abilities.1",
            "resolution.overrides.0.saves.1",
            "resolution.overrides.0.skills.1",
        ]

    def test_when_is_a_value_reference(self) -> None:
        """000: when is a value of the roller's sheet."""
        override = {**FAVORED, "when": {"field": "nothing"}}
        assert refused(POOL, overrides=[override]) == ["resolution.overrides.0.when.field"]
        shaped = {**FAVORED, "when": "favored_athletics"}
        assert refused(POOL, overrides=[shaped]) == ["resolution.overrides.0.when"]

    def test_one_unconditional_override_per_check(self) -> None:
        """000: a check is in at most one override without when; with when it may repeat."""
        first = {"id": "a", "label": "A", "skills": ["athletics"], "set": {"cancel": None}}
        second = {**first, "id": "b", "skills": ["listen", "athletics"]}
        assert refused(POOL, overrides=[first, second]) == ["resolution.overrides.1.skills.1"]
        assert load_ruleset(ruleset(resolution(POOL, overrides=[first, FAVORED])))

    def test_ids_are_distinct(self) -> None:
        """Two overrides cannot share an id."""
        other = {**FAVORED, "skills": ["listen"]}
        assert refused(POOL, overrides=[FAVORED, other]) == ["resolution.overrides.1.id"]

    def test_label_and_text(self) -> None:
        """An override has a prompt-safe label and optional text of at most 200."""
        assert refused(POOL, overrides=[{**FAVORED, "label": ""}]) == [
            "resolution.overrides.0.label"
        ]
        assert refused(POOL, overrides=[{**FAVORED, "text": "y" * 201}]) == [
            "resolution.overrides.0.text"
        ]


class TestSpend:
    @pytest.mark.parametrize("base", [SUM_2D6, AGAINST], ids=["dice-sum", "roll-against"])
    def test_kinds_that_cannot_spend(self, base: dict[str, Any]) -> None:
        """000: "Los demás tipos no pueden declarar spend"."""
        assert refused(base, spend=RESOLVE_SPEND) == ["resolution.spend"]

    @pytest.mark.parametrize(
        ("base", "key", "value"),
        [
            (HIGHEST, "successes", 1),
            (HIGHEST, "reroll", {"upTo": 2, "mode": "once"}),
            (SYMBOLS, "successes", 1),
            (SYMBOLS, "reroll", {"upTo": 2, "mode": "once"}),
        ],
    )
    def test_only_dice(self, base: dict[str, Any], key: str, value: Any) -> None:
        """000: dice-highest and symbol-pool spends buy only dice."""
        spend = [{"pool": "resolve", "amount": 1, key: value, "perCheck": 1}]
        assert refused(base, spend=spend) == [f"resolution.spend.0.{key}"]
        dice = [{"pool": "resolve", "amount": 1, "dice": 1, "perCheck": "pool"}]
        assert load_ruleset(ruleset(resolution(base, spend=dice)))

    def test_dice_pool_buys_everything(self) -> None:
        """000: a dice pool buys successes, dice and a reroll."""
        spend = [
            {
                "pool": "resolve",
                "amount": 2,
                "successes": 1,
                "dice": 2,
                "reroll": {"upTo": 6, "mode": "until"},
                "perCheck": {"abilityScore": "heart"},
            }
        ]
        assert load_ruleset(ruleset(resolution(POOL, spend=spend)))

    @pytest.mark.parametrize(
        ("spend", "expected"),
        [
            pytest.param(RESOLVE_SPEND * 5, ["resolution.spend"], id="five-entries"),
            pytest.param(
                [*RESOLVE_SPEND, {**RESOLVE_SPEND[0], "dice": 1}],
                ["resolution.spend.1.pool"],
                id="same-pool-twice",
            ),
            pytest.param(
                [{**RESOLVE_SPEND[0], "pool": "nerve"}],
                ["resolution.spend.0.pool"],
                id="unknown-pool",
            ),
            pytest.param(
                [{**RESOLVE_SPEND[0], "pool": "blood"}],
                ["resolution.spend.0.pool"],
                id="pool-starts-empty",
            ),
            pytest.param(
                [{"pool": "resolve", "amount": 1, "perCheck": 2}],
                ["resolution.spend.0"],
                id="buys-nothing",
            ),
            pytest.param(
                [{**RESOLVE_SPEND[0], "amount": 0}], ["resolution.spend.0.amount"], id="amount-0"
            ),
            pytest.param(
                [{**RESOLVE_SPEND[0], "successes": 11}],
                ["resolution.spend.0.successes"],
                id="successes-11",
            ),
            pytest.param(
                [{**RESOLVE_SPEND[0], "perCheck": 11}],
                ["resolution.spend.0.perCheck"],
                id="per-check-11",
            ),
            pytest.param(
                [{**RESOLVE_SPEND[0], "perCheck": "all"}],
                ["resolution.spend.0.perCheck"],
                id="per-check-word",
            ),
            pytest.param(
                [{**RESOLVE_SPEND[0], "perCheck": {"derived": "focus"}}],
                ["resolution.spend.0.perCheck.derived"],
                id="per-check-unknown-ref",
            ),
            pytest.param(
                [{key: value for key, value in RESOLVE_SPEND[0].items() if key != "perCheck"}],
                ["resolution.spend.0.perCheck"],
                id="per-check-missing",
            ),
            pytest.param(
                [{**RESOLVE_SPEND[0], "reroll": {"upTo": 10, "mode": "once"}}],
                ["resolution.spend.0.reroll.upTo"],
                id="reroll-every-face",
            ),
        ],
    )
    def test_spend_rules(self, spend: list[dict[str, Any]], expected: list[str]) -> None:
        """000, "Gastar para cambiar una tirada": each spend rule is refused at its path."""
        assert refused(POOL, spend=spend) == expected


class TestDiceSum:
    @pytest.mark.parametrize(
        ("changes", "expected"),
        [
            ({"dice": {"count": 11, "sides": 6}}, ["resolution.dice.count"]),
            ({"dice": {"count": 1, "sides": 1}}, ["resolution.dice.sides"]),
            ({"dice": {"count": 4, "sides": 3, "faces": [-1, 1]}}, ["resolution.dice.faces"]),
            ({"naturals": {"check": "both"}}, ["resolution.naturals.check"]),
            ({"naturals": {"save": "always"}}, ["resolution.naturals.save"]),
            ({"openEnded": {"high": 6}}, ["resolution.openEnded"]),
            ({"advantage": "yes"}, ["resolution.advantage"]),
            ({"unmodified": [6]}, ["resolution.unmodified"]),
            (
                {"difficultyLadder": [{"label": "Hard", "dc": 1001}]},
                ["resolution.difficultyLadder.0.dc"],
            ),
            (
                {"difficultyLadder": [{"label": "Easy", "dc": 6}] * 13},
                ["resolution.difficultyLadder"],
            ),
            (
                {"difficultyLadder": [{"label": "Easy", "successes": 1}]},
                [
                    "resolution.difficultyLadder.0.dc",
                    "resolution.difficultyLadder.0.successes",
                ],
            ),
        ],
    )
    def test_2d6_rules(self, changes: dict[str, Any], expected: list[str]) -> None:
        """000, "dice-sum": naturals, openEnded and unmodified need one die; limits hold."""
        assert refused(SUM_2D6, **changes) == expected

    @pytest.mark.parametrize(
        ("changes", "expected"),
        [
            ({"openEnded": {}}, ["resolution.openEnded"]),
            ({"openEnded": {"high": 21}}, ["resolution.openEnded.high"]),
            ({"openEnded": {"high": 1}}, ["resolution.openEnded.high"]),
            ({"openEnded": {"low": 20}}, ["resolution.openEnded.low"]),
            ({"openEnded": {"high": 10, "low": 10}}, ["resolution.openEnded.low"]),
            ({"unmodified": [20, 21]}, ["resolution.unmodified.1"]),
            ({"unmodified": [20, 20]}, ["resolution.unmodified.1"]),
        ],
    )
    def test_single_die_faces(self, changes: dict[str, Any], expected: list[str]) -> None:
        """000: the faces openEnded and unmodified name are on the die and fire sometimes."""
        assert refused(SUM_D20, **changes) == expected

    def test_defaults(self) -> None:
        """SCHEMA-NOTES §5: without dice a sum rolls 1d20, no advantage, naturals none."""
        rules = parse_resolution({"kind": "dice-sum", **SHARED})
        assert isinstance(rules, DiceSum)
        assert (rules.dice.count, rules.dice.sides, rules.advantage) == (1, 20, False)


class TestDicePool:
    @pytest.mark.parametrize(
        ("changes", "expected"),
        [
            pytest.param(
                {"cancel": {"upTo": 5}}, ["resolution.cancel.upTo"], id="cancel-at-target"
            ),
            pytest.param({"botch": {"upTo": 5}}, ["resolution.botch.upTo"], id="botch-at-target"),
            pytest.param(
                {"botch": {"upTo": 1, "rule": "always"}}, ["resolution.botch.rule"], id="botch-rule"
            ),
            pytest.param(
                {"target": {"default": 7, "min": 5, "max": 11}},
                ["resolution.target.max"],
                id="target-off-the-die",
            ),
            pytest.param(
                {"target": {"default": 4, "min": 5, "max": 9}},
                ["resolution.target.default"],
                id="default-below-min",
            ),
            pytest.param(
                {"target": {"default": 7, "min": 9, "max": 5}},
                ["resolution.target.max"],
                id="min-above-max",
            ),
            pytest.param({"target": None}, ["resolution.target"], id="no-target"),
            pytest.param(
                {"explode": {"from": 11, "min": 8}}, ["resolution.explode.from"], id="explode-off"
            ),
            pytest.param(
                {"explode": {"from": 8, "min": 9}}, ["resolution.explode.from"], id="from-below-min"
            ),
            pytest.param({"explode": {}}, ["resolution.explode"], id="explode-empty"),
            pytest.param({"double": {"min": 12}}, ["resolution.double.min"], id="double-off"),
            pytest.param(
                {"reroll": [{"id": "careful", "upTo": 10, "mode": "once"}]},
                ["resolution.reroll.0.upTo"],
                id="reroll-every-face",
            ),
            pytest.param(
                {"reroll": [{"id": "careful", "upTo": 6, "mode": "once"}] * 2},
                ["resolution.reroll.1.id"],
                id="reroll-ids-repeat",
            ),
            pytest.param(
                {"reroll": [{"id": f"r{i}", "upTo": 2, "mode": "once"} for i in range(7)]},
                ["resolution.reroll"],
                id="seven-rerolls",
            ),
            pytest.param(
                {"reroll": [{"id": "careful", "upTo": 6, "mode": "twice"}]},
                ["resolution.reroll.0.mode"],
                id="reroll-mode",
            ),
            pytest.param(
                {"exceptional": {"successes": 31}},
                ["resolution.exceptional.successes"],
                id="exceptional-unreachable",
            ),
            pytest.param(
                {"difficultyLadder": [{"label": "Grim", "successes": 3, "target": 10}]},
                ["resolution.difficultyLadder.0.target"],
                id="rung-target-outside",
            ),
            pytest.param(
                {
                    "target": {"default": 7, "min": 7, "max": 7},
                    "difficultyLadder": [{"label": "Grim", "successes": 3, "target": 7}],
                },
                ["resolution.difficultyLadder.0.target"],
                id="rung-target-on-fixed-target",
            ),
            pytest.param(
                {"difficultyLadder": [{"label": "Grim", "successes": 0}]},
                ["resolution.difficultyLadder.0.successes"],
                id="rung-successes-0",
            ),
            pytest.param({"pool": {"min": 5, "max": 4}}, ["resolution.pool.max"], id="pool-order"),
            pytest.param({"pool": {"min": 1, "max": 101}}, ["resolution.pool.max"], id="pool-101"),
            pytest.param({"die": {"sides": 101}}, ["resolution.die.sides"], id="die-101"),
            pytest.param(
                {"situationalDice": {"min": 1, "max": 3}},
                ["resolution.situationalDice.min"],
                id="situational-min",
            ),
            pytest.param(
                {"dice": {"count": 1, "sides": 10}}, ["resolution.dice"], id="dice-sum-key"
            ),
        ],
    )
    def test_import_rules(self, changes: dict[str, Any], expected: list[str]) -> None:
        """000, "Las caras de cancel y botch…": rules that could never fire are refused."""
        assert refused(POOL, **changes) == expected

    def test_double_and_explode_raise_the_ceiling(self) -> None:
        """SCHEMA-NOTES §5: exceptional may reach (max + max) × 2 with explode and double."""
        data = resolution(POOL, double={"from": 10}, exceptional={"successes": 60})
        rules = load_ruleset(ruleset(data)).resolution_rules
        assert isinstance(rules, DicePool) and rules.max_successes == 60
        assert refused(POOL, double={"from": 10}, exceptional={"successes": 61}) == [
            "resolution.exceptional.successes"
        ]

    def test_explode_min_without_from(self) -> None:
        """000: `"explode": {"min": 10}` fires only on request, and loads."""
        assert load_ruleset(ruleset(resolution(POOL, explode={"min": 10})))

    def test_target_from(self) -> None:
        """000, "target.from": a value reference, only where min..max lets it move the target."""
        moving = {"default": 4, "min": 2, "max": 5, "from": {"field": "number"}}
        free = {"cancel": None, "botch": None, "difficultyLadder": None}
        assert load_ruleset(ruleset(resolution(POOL, target=moving, **free)))
        unknown = {**moving, "from": {"field": "numbr"}}
        assert refused(POOL, target=unknown, **free) == ["resolution.target.from.field"]
        fixed = {"default": 7, "min": 7, "max": 7, "from": {"field": "number"}}
        assert refused(POOL, target=fixed, difficultyLadder=None) == ["resolution.target.from"]
        assert refused(POOL, target={**moving, "from": "number"}, **free) == [
            "resolution.target.from"
        ]

    @pytest.mark.parametrize(
        ("stances", "expected"),
        [
            pytest.param(
                [{"id": f"s{i}", "label": "S", "count": "below"} for i in range(7)],
                ["resolution.stances"],
                id="seven-stances",
            ),
            pytest.param(
                [
                    {"id": "a", "label": "A", "count": "below", "skills": ["listen"]},
                    {"id": "b", "label": "B", "count": "above", "skills": ["listen"]},
                ],
                ["resolution.stances.1.skills.0"],
                id="skill-in-two-stances",
            ),
            pytest.param(
                [{"id": "a", "label": "A", "count": "below", "skills": ["lasers"]}],
                ["resolution.stances.0.skills.0"],
                id="unknown-skill",
            ),
            pytest.param(
                [{"id": "a", "label": "A", "count": "middle"}],
                ["resolution.stances.0.count"],
                id="count-middle",
            ),
            pytest.param(
                [{"id": "a", "label": "A", "count": "below"}] * 2,
                ["resolution.stances.1.id"],
                id="repeated-id",
            ),
        ],
    )
    def test_stances(self, stances: list[dict[str, Any]], expected: list[str]) -> None:
        """000, "target.from": up to six stances; a skill is in at most one."""
        assert refused(POOL, stances=stances) == expected

    def test_exact(self) -> None:
        """000: exact has a label, optional text, and counts true or false."""
        assert refused(POOL, exact={"counts": False}) == ["resolution.exact.label"]
        assert refused(POOL, exact={"label": "Hit", "counts": "yes"}) == ["resolution.exact.counts"]
        assert load_ruleset(ruleset(resolution(POOL, exact={"label": "Hit", "counts": False})))


class TestDiceHighest:
    @pytest.mark.parametrize(
        ("changes", "expected"),
        [
            ({"pool": {"min": 0, "max": 21}}, ["resolution.pool.max"]),
            ({"pool": {"min": 3, "max": 2}}, ["resolution.pool.max"]),
            ({"keep": 4}, ["resolution.keep"]),
            ({"keep": 0}, ["resolution.keep"]),
            ({"zeroDice": "reroll"}, ["resolution.zeroDice"]),
            ({"critical": {"count": 2, "face": 7}}, ["resolution.critical.face"]),
            ({"critical": {"count": 7}}, ["resolution.critical.count"]),
            ({"dark": {"label": "Dark", "max": 11}}, ["resolution.dark.max"]),
            ({"dark": {"max": 2}}, ["resolution.dark.label"]),
            ({"dark": {"label": "Dark", "max": 2, "outcome": "dark"}}, ["resolution.dark.outcome"]),
            (
                {"difficultyLadder": [{"label": "Full", "dc": 7}]},
                ["resolution.difficultyLadder.0.dc"],
            ),
            ({"situationalDice": {"min": -21, "max": 2}}, ["resolution.situationalDice.min"]),
            ({"outcomes": tiers(WIN, LOSE, by="fraction")}, ["resolution.outcomes.by"]),
        ],
    )
    def test_import_rules(self, changes: dict[str, Any], expected: list[str]) -> None:
        """000, "dice-highest": limits, faces on the die and dc up to keep × sides."""
        assert refused(HIGHEST, **changes) == expected

    def test_keep_raises_the_dc_ceiling(self) -> None:
        """000: with keep 2 a rung may ask up to 12 on d6."""
        ladder = [{"label": "Fight", "dc": 12}]
        assert load_ruleset(ruleset(resolution(HIGHEST, keep=2, difficultyLadder=ladder)))

    def test_dark_dice_count_towards_a_critical(self) -> None:
        """000: dark dice read with the rest (outcome all) can make up a critical's count."""
        dark = {"label": "Dark", "max": 2, "text": "Ruin follows.", "outcome": "all"}
        data = resolution(HIGHEST, dark=dark, critical={"count": 8})
        assert load_ruleset(ruleset(data))
        light = {**dark, "outcome": "light"}
        assert refused(HIGHEST, dark=light, critical={"count": 8}) == ["resolution.critical.count"]

    def test_combat_is_refused_beside_it(self) -> None:
        """000: "se rechaza combat junto a él"."""
        assert paths(ruleset(HIGHEST, combat=sound_combat())) == ["combat"]


NO_CRITICALS: dict[str, Any] = {"criticalSuccess": None, "criticalFailure": None, "outcomes": None}


class TestRollAgainst:
    @pytest.mark.parametrize(
        ("changes", "expected"),
        [
            ({"against": "under"}, ["resolution.against"]),
            (
                {"difficultyLadder": [{"label": "Hard", "dc": 0, "divide": 11}]},
                ["resolution.difficultyLadder.0.divide"],
            ),
            (
                {"difficultyLadder": [{"label": "Hard", "dc": 0, "divide": 1}]},
                ["resolution.difficultyLadder.0.divide"],
            ),
            (
                {"difficultyLadder": [{"label": "Hard", "dc": 101}]},
                ["resolution.difficultyLadder.0.dc"],
            ),
            ({"criticalSuccess": [{"from": 1}] * 7}, ["resolution.criticalSuccess"]),
            (
                {"criticalSuccess": [{"pastTarget": 10}]},
                ["resolution.criticalSuccess.0.pastTarget"],
            ),
            (
                {"criticalFailure": [{"from": 96, "pastTarget": 10}]},
                ["resolution.criticalFailure.0"],
            ),
            (
                {"criticalFailure": [{"whenTarget": {"below": 50}}]},
                ["resolution.criticalFailure.0"],
            ),
            ({"criticalFailure": [{"from": 101}]}, ["resolution.criticalFailure.0.from"]),
            ({"criticalFailure": [{"from": 0}]}, ["resolution.criticalFailure.0.from"]),
            ({"criticalFailure": [{"from": 99, "to": 98}]}, ["resolution.criticalFailure.0.to"]),
            (
                {"criticalFailure": [{"from": 96, "whenTarget": {}}]},
                ["resolution.criticalFailure.0.whenTarget"],
            ),
            (
                {"criticalFailure": [{"from": 96, "whenTarget": {"atLeast": 50, "below": 50}}]},
                ["resolution.criticalFailure.0.whenTarget.below"],
            ),
            ({"dice": {"count": 3, "sides": 6}, **NO_CRITICALS}, ["resolution.tens"]),
            ({"tens": {"max": 0}}, ["resolution.tens.max"]),
            ({"dice": {"count": 1, "sides": 100, "faces": [1]}}, ["resolution.dice.faces"]),
        ],
    )
    def test_import_rules(self, changes: dict[str, Any], expected: list[str]) -> None:
        """000, "roll-against": rungs divide 2–10, critical rules fit the dice, tens on a d100."""
        assert refused(AGAINST, **changes) == expected

    def test_shift_needs_one_die(self) -> None:
        """000: naturals shift needs a single die, so GURPS's 3d6 refuses it."""
        outcomes = tiers(WIN, LOSE, naturals="shift")
        changes = {"dice": {"count": 3, "sides": 6}, "tens": None, **NO_CRITICALS}
        changes["outcomes"] = outcomes
        assert refused(AGAINST, **changes) == ["resolution.outcomes.naturals"]
        assert load_ruleset(ruleset(resolution(AGAINST, outcomes=outcomes)))


class TestSymbolPool:
    @staticmethod
    def symbols(*extra: dict[str, Any], **changes: Any) -> list[dict[str, Any]]:
        rows = [{**row, **changes.get(row["id"], {})} for row in SYMBOLS["symbols"]]
        return [row for row in rows if row] + list(extra)

    @pytest.mark.parametrize(
        ("changes", "expected"),
        [
            pytest.param(
                {"symbols": [{"id": "s", "label": "S"}]}, ["resolution.symbols"], id="one-symbol"
            ),
            pytest.param(
                {"symbols": SYMBOLS["symbols"] + [{"id": f"x{i}", "label": "X"} for i in range(5)]},
                ["resolution.symbols"],
                id="eleven-symbols",
            ),
            pytest.param(
                {"symbols": SYMBOLS["symbols"] + [{"id": "x", "label": "X", "counts": "t"}]},
                ["resolution.symbols.6.counts"],
                id="counts-chain",
            ),
            pytest.param(
                {"symbols": SYMBOLS["symbols"] + [{"id": "x", "label": "X", "counts": "x"}]},
                ["resolution.symbols.6.counts"],
                id="counts-itself",
            ),
            pytest.param(
                {"symbols": SYMBOLS["symbols"] + [{"id": "x", "label": "X", "counts": "q"}]},
                ["resolution.symbols.6.counts"],
                id="counts-unknown",
            ),
            pytest.param(
                {"symbols": SYMBOLS["symbols"] + [{"id": "x", "label": "X", "cancels": "s"}]},
                ["resolution.symbols.6.cancels"],
                id="two-pairs",
            ),
            pytest.param(
                {"symbols": SYMBOLS["symbols"] + [{"id": "x", "label": "X", "cancels": "x"}]},
                ["resolution.symbols.6.cancels"],
                id="cancels-itself",
            ),
            pytest.param(
                {"symbols": SYMBOLS["symbols"] + [{"id": "s", "label": "S"}]},
                ["resolution.symbols.6.id"],
                id="repeated-symbol",
            ),
            pytest.param({"dice": SYMBOLS["dice"][:1]}, ["resolution.dice"], id="one-die"),
            pytest.param({"dice": SYMBOLS["dice"] * 2}, ["resolution.dice"], id="twelve-dice"),
            pytest.param(
                {"dice": [{**SYMBOLS["dice"][0], "faces": [["s"]]}, *SYMBOLS["dice"][1:]]},
                ["resolution.dice.0.faces"],
                id="one-face",
            ),
            pytest.param(
                {"dice": [{**SYMBOLS["dice"][0], "faces": [[], ["s"] * 4]}, *SYMBOLS["dice"][1:]]},
                ["resolution.dice.0.faces.1"],
                id="four-symbols-on-a-face",
            ),
            pytest.param(
                {"dice": [{**SYMBOLS["dice"][0], "faces": [[], ["q"]]}, *SYMBOLS["dice"][1:]]},
                ["resolution.dice.0.faces.1.0"],
                id="unknown-symbol-on-a-face",
            ),
            pytest.param(
                {"dice": [*SYMBOLS["dice"], SYMBOLS["dice"][0]]},
                ["resolution.dice.6.id"],
                id="repeated-die",
            ),
            pytest.param(
                {"success": {"symbol": "q"}}, ["resolution.success.symbol"], id="success-unknown"
            ),
            pytest.param(
                {"success": {"symbol": "s", "needed": 0}},
                ["resolution.success.needed"],
                id="needed-0",
            ),
            pytest.param({"pool": {"die": "wild"}}, ["resolution.pool.die"], id="pool-die-unknown"),
            pytest.param(
                {"pool": {"die": "ability", "max": 13}}, ["resolution.pool.max"], id="pool-max-13"
            ),
            pytest.param(
                {"pool": {"die": "ability", "build": "product"}},
                ["resolution.pool.build"],
                id="pool-build",
            ),
            pytest.param(
                {"pool": {"die": "ability", "upgrade": "ability"}},
                ["resolution.pool.upgrade"],
                id="upgrade-to-itself",
            ),
            pytest.param(
                {"difficulty": {"die": "difficulty", "max": 13}},
                ["resolution.difficulty.max"],
                id="difficulty-max-13",
            ),
            pytest.param(
                {"difficulty": {"die": "difficulty", "upgrade": "doom"}},
                ["resolution.difficulty.upgrade"],
                id="difficulty-upgrade-unknown",
            ),
            pytest.param(
                {"boost": {"die": "boost", "max": 7}}, ["resolution.boost.max"], id="boost-max-7"
            ),
            pytest.param(
                {"setback": {"die": "gloom"}}, ["resolution.setback.die"], id="setback-unknown"
            ),
            pytest.param(
                {"criticalSuccess": "q"}, ["resolution.criticalSuccess"], id="critical-unknown"
            ),
            pytest.param(
                {"criticalFailure": "a"},
                [],
                id="critical-on-a-face",
            ),
            pytest.param(
                {"pool": {"die": "ability"}, "allowOwnUpgrade": True},
                ["resolution.allowOwnUpgrade"],
                id="own-upgrade-without-upgrade",
            ),
            pytest.param(
                {"difficultyLadder": [{"label": "Daunting", "dc": 6}]},
                ["resolution.difficultyLadder.0.dc"],
                id="rung-above-difficulty-max",
            ),
            pytest.param(
                {"difficulty": None},
                ["resolution.difficultyLadder"],
                id="rungs-without-difficulty",
            ),
            pytest.param({"success": None}, ["resolution.success"], id="no-success"),
        ],
    )
    def test_import_rules(self, changes: dict[str, Any], expected: list[str]) -> None:
        """000, "symbol-pool": symbols, dice and every reference between them."""
        if expected:
            assert refused(SYMBOLS, **changes) == expected
        else:
            assert load_ruleset(ruleset(resolution(SYMBOLS, **changes)))

    def test_symbols_that_no_face_shows(self) -> None:
        """A success or critical symbol that no face shows could never count, and is refused."""
        symbols = [*SYMBOLS["symbols"], {"id": "z", "label": "Zeal"}]
        assert refused(SYMBOLS, symbols=symbols, criticalSuccess="z") == [
            "resolution.criticalSuccess"
        ]
        assert refused(SYMBOLS, symbols=symbols, success={"symbol": "z"}) == [
            "resolution.success.symbol"
        ]

    def test_inverse_cancel_is_optional(self) -> None:
        """000: a pair may be declared on both symbols."""
        symbols = [
            {**row, "cancels": "f"} if row["id"] == "s" else row for row in SYMBOLS["symbols"]
        ]
        assert load_ruleset(ruleset(resolution(SYMBOLS, symbols=symbols)))

    def test_combat_of_another_kind(self) -> None:
        """000: any combat but a symbol-pool one is refused beside it."""
        assert paths(ruleset(SYMBOLS, combat=sound_combat())) == ["combat.kind"]


class TestCatalogCheck:
    @staticmethod
    def with_check(base: dict[str, Any], check: Any) -> dict[str, Any]:
        entry = {
            "id": "potence",
            "label": "Potence",
            "mechanics": {"kind": "utility", "cost": [{"pool": "resolve", "amount": 1}]},
        }
        entry["mechanics"]["check"] = check
        catalog = {"id": "charms", "label": "Charms", "entries": [entry]}
        return ruleset(base, catalogs=[catalog])

    AT = "catalogs.0.entries.0.mechanics.check"

    def test_seed_charm_loads(self) -> None:
        """000, "Un amuleto…": a reroll of ones and a success on a dice pool load."""
        check = {"reroll": {"upTo": 1, "mode": "once"}, "successes": 1}
        assert load_ruleset(self.with_check(POOL, check))
        assert MechanicsCheck.model_validate(check).successes == 1

    @pytest.mark.parametrize("base", [SUM_2D6, HIGHEST, AGAINST, SYMBOLS])
    def test_only_on_a_dice_pool(self, base: dict[str, Any]) -> None:
        """000: "Solo dice-pool puede aplicarlo"."""
        assert paths(self.with_check(base, {"successes": 1})) == [self.AT]

    @pytest.mark.parametrize(
        ("check", "below"),
        [
            pytest.param({}, "", id="does-nothing"),
            pytest.param({"successes": 1, "luck": 2}, ".luck", id="unknown-key"),
            pytest.param({"dice": 11}, ".dice", id="dice-11"),
            pytest.param({"reroll": {"upTo": 10, "mode": "once"}}, ".reroll.upTo", id="reroll"),
            pytest.param({"threshold": 4}, ".threshold", id="threshold-below-min"),
            pytest.param({"threshold": 10}, ".threshold", id="threshold-above-max"),
            pytest.param({"explode": 7}, ".explode", id="explode-below-min"),
            pytest.param({"explode": 11}, ".explode", id="explode-off-the-die"),
            pytest.param({"double": 9}, ".double", id="double-without-min"),
        ],
    )
    def test_check_rules(self, check: dict[str, Any], below: str) -> None:
        """SCHEMA-NOTES §9: the check does something and its faces fit the pool."""
        assert paths(self.with_check(POOL, check)) == [self.AT + below]


class TestLayerLadders:
    def test_layer_ladder_in_the_kind_shape(self) -> None:
        """SCHEMA-NOTES §12: a layer's ladder takes the base kind's rung shape."""
        layer = {"id": "hard", "label": "Hard", "difficultyLadder": [{"label": "Hard", "dc": 9}]}
        assert paths(ruleset(POOL, layers=[layer])) == [
            "layers.0.difficultyLadder.0.dc",
            "layers.0.difficultyLadder.0.successes",
        ]
        assert load_ruleset(ruleset(SUM_2D6, layers=[layer]))

    def test_layer_rung_rules(self) -> None:
        """A layer's rung is checked like the resolution's own: a pool target within range."""
        rung = {"label": "Grim", "successes": 3, "target": 10}
        layer = {"id": "hard", "label": "Hard", "difficultyLadder": [rung]}
        assert paths(ruleset(POOL, layers=[layer])) == ["layers.0.difficultyLadder.0.target"]


class TestCombat:
    def test_dice_pool_combat_needs_a_dice_pool(self) -> None:
        """SCHEMA-NOTES §11: a dice-pool combat requires a dice-pool resolution."""
        assert paths(ruleset(SUM_2D6, combat=sound_combat(kind="dice-pool"))) == ["combat.kind"]
