"""The allocate step kind (`gmtags.builder.kinds.allocate`, BUILDER chunk C) on the Storyteller
sample `fixtures/rulesets/builder/vtm-builder.json`: one test per rule with 004's own examples
(VtM attributes 7/5/3, a fixed Appearance, rating maps, free rating dots), and the properties
SPEC §10 promises (remaining = budget − active dots, deterministic, a dot added then removed
gives the card back)."""

from __future__ import annotations

import copy
import json
from functools import cache
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gmtags import Ruleset, load_ruleset
from gmtags.builder.build import BuildResult, build_character
from tests.builder.conftest import five_e_builder
from tests.builder.samples import BUILDERS

_VTM: dict[str, Any] = json.loads((BUILDERS / "vtm-builder.json").read_text(encoding="utf-8"))

PHYSICAL = ["strength", "dexterity", "stamina"]
SOCIAL = ["charisma", "manipulation", "appearance"]
MENTAL = ["perception", "intelligence", "wits"]

PRIORITIES = {"physical": 0, "social": 1, "mental": 2}
"""Physical primary (7), social secondary (5), mental tertiary (3)."""

DOTS = {
    "ability/strength": 3,
    "ability/dexterity": 2,
    "ability/stamina": 2,
    "ability/charisma": 2,
    "ability/manipulation": 2,
    "ability/appearance": 1,
    "ability/wits": 3,
}
"""7 physical, 5 social and 3 mental dots."""


def vtm_data() -> dict[str, Any]:
    """A fresh copy of the Storyteller sample."""
    return copy.deepcopy(_VTM)


@cache
def vtm() -> Ruleset:
    return load_ruleset(vtm_data())


def step_json(data: dict[str, Any], step_id: str) -> dict[str, Any]:
    found: dict[str, Any] = next(s for s in data["sheet"]["builder"]["steps"] if s["id"] == step_id)
    return found


def answers(**steps: dict[str, Any]) -> dict[str, Any]:
    return {"v": 1, "seed": 3, "steps": steps}


def attributes(priorities: dict[str, int] | None = None, **dots: int) -> dict[str, Any]:
    """The attributes step's answer: the priorities and `ability/<name>` dots."""
    given_dots = {f"ability/{name}": count for name, count in dots.items()}
    return {"priorities": PRIORITIES if priorities is None else priorities, "dots": given_dots}


def build(
    given_answers: dict[str, Any],
    card: dict[str, Any] | None = None,
    ruleset: Ruleset | None = None,
) -> BuildResult:
    if card is not None and "builder" not in card:  # hand-written, not described (H1)
        given_answers = {"described": False, **given_answers}
    return build_character(ruleset or vtm(), given_answers, card)


def step(result: BuildResult, step_id: str) -> dict[str, Any]:
    return next(s for s in result.steps if s["id"] == step_id)


def reasons(result: BuildResult, step_id: str) -> dict[str, str]:
    """The step's inactive answers, each with its reason."""
    return {item["answer"]: item["reason"] for item in step(result, step_id)["inactive"]}


def scores(result: BuildResult, names: list[str]) -> list[Any]:
    return [result.card.get("abilities", {}).get(name) for name in names]


class TestPriorities:
    def test_vtm_attributes_seven_five_three(self) -> None:
        """004's example: three groups of three attributes, base 1, min 1, max 5; the budget of
        each group is the allotment at the position the player gave it (7/5/3)."""
        result = build(answers(attributes={"priorities": PRIORITIES, "dots": DOTS}))
        assert scores(result, PHYSICAL) == [4, 3, 3]
        assert scores(result, SOCIAL) == [3, 3, 2]
        assert scores(result, MENTAL) == [1, 1, 4]
        assert result.pools["attributes/physical"] == {
            "budget": 7,
            "spent": 7,
            "credit": 0,
            "remaining": 0,
        }
        assert result.pools["attributes/social"]["budget"] == 5
        assert result.pools["attributes/mental"]["budget"] == 3
        assert result.pending["attributes"] == 0
        assert step(result, "attributes")["active"] == list(DOTS)

    def test_base_replaces_a_blank_default(self) -> None:
        """C4: the first base (1) replaces the blank attributes' default (0), with no dots."""
        result = build(answers(attributes=attributes()))
        assert scores(result, PHYSICAL + SOCIAL + MENTAL) == [1] * 9

    def test_positions_are_explicit(self) -> None:
        """004: "Las posiciones de prioridad se asignan de forma explícita": a group without
        one has no budget yet, its dots are inactive and the badge asks for it."""
        result = build(answers(attributes=attributes({"physical": 0}, strength=2, wits=1)))
        assert scores(result, ["strength", "wits"]) == [3, 1]
        assert reasons(result, "attributes") == {"ability/wits": "needs a priority"}
        assert result.pending["attributes"] == 4  # two groups, one inactive answer, 5 dots left

    def test_a_repeated_position_is_a_problem(self) -> None:
        """SPEC §10: "Priority positions are distinct; a repeated position is a problem and
        that group's dots are inactive" (for both groups: the answers do not say which)."""
        given_answers = answers(
            attributes=attributes({"physical": 0, "social": 0, "mental": 2}, strength=2, wits=3)
        )
        result = build(given_answers)
        assert sorted(p["path"] for p in result.problems) == [
            "steps.attributes.priorities.physical",
            "steps.attributes.priorities.social",
        ]
        assert reasons(result, "attributes") == {"ability/strength": "shares priority position 0"}
        assert scores(result, ["strength", "wits"]) == [1, 4]

    def test_reprioritising_keeps_the_increments(self) -> None:
        """C11: "Reasignar una prioridad conserva los incrementos guardados del grupo": the dots
        stay on their targets; a group now overspent is inactive, kept, and swapping back
        gives the same card."""
        first = build(answers(attributes={"priorities": PRIORITIES, "dots": DOTS}))
        swapped = {"physical": 2, "social": 1, "mental": 0}
        second = build(
            answers(attributes={"priorities": swapped, "dots": DOTS}), copy.deepcopy(first.card)
        )
        assert scores(second, PHYSICAL) == [1, 1, 1]
        assert scores(second, MENTAL) == [1, 1, 4]
        assert set(reasons(second, "attributes")) == {
            "ability/strength",
            "ability/dexterity",
            "ability/stamina",
        }
        assert second.pools["attributes/physical"] == {
            "budget": 3,
            "spent": 0,
            "credit": 0,
            "remaining": 3,
        }
        assert second.answers["steps"]["attributes"]["dots"] == DOTS
        back = build(answers(attributes={"priorities": PRIORITIES, "dots": DOTS}), second.card)
        assert json.dumps(back.card) == json.dumps(first.card)

    def test_a_group_the_step_has_not_is_a_problem(self) -> None:
        """SPEC §10: answers naming nothing real are problems, never raised."""
        result = build(answers(attributes=attributes({**PRIORITIES, "arcane": 1})))
        assert [p["path"] for p in result.problems] == ["steps.attributes.priorities.arcane"]

    def test_priorities_for_a_step_of_budgets_are_a_problem(self) -> None:
        """A step whose groups have budgets takes no priorities: the answer is a problem."""
        result = build(answers(virtues={"priorities": {"virtues": 0}}))
        assert [p["path"] for p in result.problems] == ["steps.virtues.priorities"]
        assert result.pools["virtues/virtues"]["budget"] == 7


class TestSpending:
    def test_an_overspent_group_is_inactive_as_a_whole(self) -> None:
        """C11: "Un grupo en el que se ha gastado de más queda inactivo por completo": kept,
        badged, and the other groups count."""
        result = build(answers(attributes=attributes(strength=3, dexterity=3, stamina=2, wits=3)))
        assert scores(result, PHYSICAL) == [1, 1, 1]
        assert scores(result, ["wits"]) == [4]
        assert reasons(result, "attributes") == {
            f"ability/{name}": "overspent (8 dots for 7)" for name in PHYSICAL
        }
        assert result.pools["attributes/physical"]["remaining"] == 7
        assert result.pending["attributes"] >= 3

    def test_a_purchase_above_the_cap_is_inactive_for_that_target(self) -> None:
        """C11: "una compra por encima del tope de su objetivo queda inactiva para ese
        objetivo": strength 1 + 5 passes max 5; dexterity's dots still count."""
        result = build(answers(attributes=attributes(strength=5, dexterity=2)))
        assert scores(result, ["strength", "dexterity"]) == [1, 3]
        assert reasons(result, "attributes") == {"ability/strength": "above the cap (1 + 5 > 5)"}
        assert result.pools["attributes/physical"]["spent"] == 2

    def test_negative_dots_and_other_targets(self) -> None:
        """A stage buys dots, never sells them; dots on a target of no group of the step are
        a problem."""
        given_answers = answers(
            attributes={"priorities": PRIORITIES, "dots": {"ability/strength": -1, "field/xp": 2}}
        )
        result = build(given_answers)
        assert reasons(result, "attributes") == {
            "field/xp": "not a target of this step",
            "ability/strength": "a stage buys dots, never sells",
        }
        assert [p["path"] for p in result.problems] == ["steps.attributes.dots.field/xp"]
        assert scores(result, ["strength"]) == [1]

    def test_underspending_is_a_badge(self) -> None:
        """004: "Gastar de menos … recibe insignias": a group with points left counts."""
        result = build(answers(virtues={"dots": {"field/courage": 2}}))
        assert result.pools["virtues/virtues"]["remaining"] == 5
        assert "Virtues: 5 of 7 dots left" in step(result, "virtues")["reasons"]
        assert result.pending["virtues"] == 1


class TestBase:
    def test_the_first_base_keeps_the_grants(self) -> None:
        """C4: the first base replaces a blank target's default, keeping existing grants: a
        clan's +1 Strength stays on top of base 1."""
        data = vtm_data()
        clan = data["catalogs"][0]["entries"][0]
        clan["grants"]["abilities"] = {"add": {"strength": 1}}
        result = build(
            answers(clan={"picks": ["brujah"]}, attributes=attributes(strength=2)),
            ruleset=load_ruleset(data),
        )
        assert scores(result, ["strength", "dexterity"]) == [4, 1]

    def test_method_scores_are_kept(self) -> None:
        """C1, C4: a stage never changes the abilities step's method or answers; it starts
        from the method's scores and the grants on top (a point-bought 8 is not blank; a
        half-elf's +2 Charisma stays over the base of a score the method left blank)."""
        data = five_e_builder()
        boons = {
            "id": "boons",
            "label": "Boons",
            "kind": "allocate",
            "groups": [
                {
                    "id": "boons",
                    "label": "Boons",
                    "targets": [{"ability": "str"}, {"ability": "cha"}],
                    "base": 10,
                    "min": 1,
                    "max": 20,
                    "budget": {"const": 2},
                }
            ],
        }
        data["sheet"]["builder"]["steps"].append(boons)
        ruleset = load_ruleset(data)
        dots = {"dots": {"ability/str": 1, "ability/cha": 1}}
        bought = build(
            answers(
                race={"picks": ["half-elf"]},
                scores={"method": "pointBuy", "scores": {"str": 8, "cha": 10}},
                boons=dots,
            ),
            ruleset=ruleset,
        )
        assert scores(bought, ["str", "cha"]) == [9, 13]
        assert bought.answers["steps"]["scores"]["scores"] == {"str": 8, "cha": 10}
        blank = build(
            answers(race={"picks": ["half-elf"]}, scores={"method": "manual"}, boons=dots),
            ruleset=ruleset,
        )
        assert scores(blank, ["str", "cha"]) == [11, 13]

    def test_a_score_of_the_players_is_not_blank(self) -> None:
        """C4: a value the player wrote is kept; the stage starts from it."""
        result = build(answers(attributes=attributes(strength=1)), {"abilities": {"strength": 3}})
        assert scores(result, ["strength", "dexterity"]) == [4, 1]

    def test_a_later_base_is_a_floor(self) -> None:
        """C4: "una base posterior es un mínimo sobre las etapas anteriores": a freebies base
        of 2 raises a 1 and leaves a 4; its dots go on top."""
        data = vtm_data()
        step_json(data, "freebies")["groups"][0]["base"] = 2
        result = build(
            answers(
                attributes=attributes(strength=3),
                freebies={"dots": {"ability/dexterity": 1}},
            ),
            ruleset=load_ruleset(data),
        )
        assert scores(result, PHYSICAL) == [4, 3, 2]

    def test_a_fixed_score(self) -> None:
        """C5: "base: 0, min: 0, max: 0 expresa una Apariencia fija": a dot on it never
        counts."""
        data = vtm_data()
        social = step_json(data, "attributes")["groups"][1]
        social["targets"] = [t for t in social["targets"] if t != {"ability": "appearance"}]
        fixed = {
            "id": "appearance",
            "label": "Appearance",
            "kind": "allocate",
            "groups": [
                {
                    "id": "fixed",
                    "label": "Fixed Appearance",
                    "targets": [{"ability": "appearance"}],
                    "base": 0,
                    "min": 0,
                    "max": 0,
                    "budget": {"const": 0},
                }
            ],
        }
        data["sheet"]["builder"]["steps"].append(fixed)
        result = build(
            answers(attributes=attributes(), appearance={"dots": {"ability/appearance": 1}}),
            ruleset=load_ruleset(data),
        )
        assert scores(result, ["appearance", "charisma"]) == [0, 1]
        assert reasons(result, "appearance") == {"ability/appearance": "above the cap (0 + 1 > 0)"}


class TestLimitsFromTheSheet:
    def test_a_cap_read_from_the_sheet(self) -> None:
        """C5: min and max may be non-live references read on the sheet: the virtue cap (4 by
        default, 3 once answered) holds courage's purchase."""
        dots = {"virtues": {"dots": {"field/courage": 3, "field/conscience": 2}}}
        by_default = build(answers(**dots))
        assert by_default.card["fields"]["courage"] == 4
        capped = build(answers(limits={"fields": {"virtue_cap": 3}}, **dots))
        assert capped.card["fields"]["courage"] == 1
        assert capped.card["fields"]["conscience"] == 3
        assert reasons(capped, "virtues") == {"field/courage": "above the cap (1 + 3 > 3)"}

    def test_minimums_never_buy_dots(self) -> None:
        """C5: "Los mínimos no compran círculos automáticamente": below the floor is a badge."""
        result = build(answers(limits={"fields": {"virtue_floor": 2}}))
        assert result.card["fields"]["courage"] == 1
        assert "Virtues: field/courage is below its minimum 2" in step(result, "virtues")["reasons"]

    def test_a_limit_that_does_not_fit_is_not_configured(self) -> None:
        """C6: a cap of 6 does not fit a virtue (0–5): the group changes nothing."""
        result = build(
            answers(limits={"fields": {"virtue_cap": 6}}, virtues={"dots": {"field/courage": 1}})
        )
        assert "courage" not in result.card.get("fields", {})
        why = "not configured (max 6 does not fit field/conscience (0–5))"
        assert reasons(result, "virtues") == {"field/courage": why}
        assert result.pools["virtues/virtues"]["budget"] == 0

    def test_a_budget_read_from_the_sheet(self) -> None:
        """C3: every group's `budget: Ref` is read on the sheet as the steps before left it."""
        data = vtm_data()
        step_json(data, "virtues")["groups"][0]["budget"] = {"field": "virtue_cap"}
        ruleset = load_ruleset(data)
        result = build(answers(limits={"fields": {"virtue_cap": 5}}), ruleset=ruleset)
        assert result.pools["virtues/virtues"]["budget"] == 5


class TestRatingTiers:
    def test_a_skill_dot_writes_the_tier_at_its_index(self) -> None:
        """C7: "El índice del array es el valor numérico": 1 on [none, trained, expert] writes
        trained; a save on its own map."""
        result = build(answers(talents={"dots": {"skill/brawl": 1, "save/will": 1}}))
        assert result.card["skills"] == {"brawl": "trained"}
        assert result.card["saves"] == {"will": "trained"}
        assert result.pools["talents/talents"]["spent"] == 2

    def test_a_tier_trained_by_hand_is_the_start(self) -> None:
        """A skill already at expert (index 2) is past the talents' cap of 1: a dot on it is
        inactive, and the player's tier stays."""
        result = build(
            answers(talents={"dots": {"skill/occult": 1}}), {"skills": {"occult": "expert"}}
        )
        assert result.card["skills"] == {"occult": "expert"}
        assert reasons(result, "talents") == {"skill/occult": "above the cap (2 + 1 > 1)"}


class TestRatingGrants:
    def test_a_set_then_an_add(self) -> None:
        """C8: every `set` is a minimum, then every `add` accumulates: Brujah's brawl set 1
        and add 1 reach rank 2 (expert) for no points."""
        result = build(answers(clan={"picks": ["brujah"]}))
        assert result.card["skills"] == {"brawl": "expert"}
        assert result.pools["talents/talents"]["spent"] == 0

    def test_two_adds_reach_rank_two(self) -> None:
        """004: "dos sumas gratuitas de rango llegan al rango dos sin cargar el presupuesto"."""
        result = build(answers(clan={"picks": ["gangrel"]}))
        assert result.card["skills"] == {"athletics": "expert"}

    def test_the_highest_set_wins_and_adds_stop_at_the_limit(self) -> None:
        """C8: Tremere's occult set 1 and Scholar's set 2 give 2; will set 1 plus Iron Will's
        add 1 stops at its map's top (trained)."""
        result = build(
            answers(clan={"picks": ["tremere"]}, merits={"picks": ["scholar", "iron-will"]})
        )
        assert result.card["skills"] == {"occult": "expert"}
        assert result.card["saves"] == {"will": "trained"}

    def test_free_dots_come_before_the_paid_ones(self) -> None:
        """C8: free dots first, then the stage's dots, held by its cap: brawl at 2 for free
        leaves no room under max 1 for a paid dot."""
        result = build(answers(clan={"picks": ["brujah"]}, talents={"dots": {"skill/brawl": 1}}))
        assert result.card["skills"] == {"brawl": "expert"}
        assert reasons(result, "talents") == {"skill/brawl": "above the cap (2 + 1 > 1)"}

    def test_unpicking_takes_the_free_dots_back(self) -> None:
        """SPEC §10: a pick's gains exist only while it is active."""
        picked = build(answers(clan={"picks": ["gangrel"]}))
        unpicked = build(answers(), picked.card)
        assert "skills" not in unpicked.card
        assert unpicked.dropped == []


class TestRows:
    def test_row_dots_count_against_the_budget(self) -> None:
        """C14 (1.216): the dots in the crafts list count against the talents' 3 with their
        targets."""
        card = {"lists": {"crafts": [{"name": "Smithing", "dots": 2}]}}
        result = build(answers(talents={"dots": {"skill/brawl": 1}}), card)
        assert result.pools["talents/talents"] == {
            "budget": 3,
            "spent": 3,
            "credit": 0,
            "remaining": 0,
        }
        assert result.card["skills"] == {"brawl": "trained"}

    def test_more_row_dots_than_budget_is_pending(self) -> None:
        """C14: "un grupo con más círculos de fila que su presupuesto queda pendiente"."""
        card = {
            "lists": {"crafts": [{"name": "Smithing", "dots": 2}, {"name": "Glass", "dots": 2}]}
        }
        result = build(answers(talents={"dots": {"skill/brawl": 1}}), card)
        assert "skills" not in result.card
        assert "Talents: 4 row dots for a budget of 3" in step(result, "talents")["reasons"]
        assert reasons(result, "talents") == {"skill/brawl": "overspent (5 dots for 3)"}


class TestOwnership:
    def test_a_hand_edit_keeps_its_difference(self) -> None:
        """SPEC §10, BUILDER §3.7: a numeric allocate target keeps the manual difference (card
        − builder) on top of the recomputed value, and is never listed as dropped."""
        first = build(answers(attributes=attributes(strength=3)))
        edited = copy.deepcopy(first.card)
        edited["abilities"]["strength"] = 5
        kept = build(answers(attributes=attributes(strength=3)), edited)
        assert scores(kept, ["strength"]) == [5]
        assert kept.dropped == []
        assert any("edited by hand (+1)" in r for r in step(kept, "freebies")["reasons"])
        fewer = build(answers(attributes=attributes(strength=2)), kept.card)
        assert scores(fewer, ["strength"]) == [4]
        assert fewer.dropped == []
        again = build(answers(attributes=attributes(strength=2)), fewer.card)
        assert scores(again, ["strength"]) == [4]

    def test_a_difference_at_the_top_is_kept_whole(self) -> None:
        """A difference the storage limit holds back (5 + 1 shows 5) is not lost: the dot
        taken away again gives the edited value back."""
        first = build(answers(attributes=attributes(strength=3)))
        edited = copy.deepcopy(first.card)
        edited["abilities"]["strength"] = 5
        kept = build(answers(attributes=attributes(strength=3)), edited)
        more = build(answers(attributes=attributes(strength=4)), kept.card)
        assert scores(more, ["strength"]) == [5]
        back = build(answers(attributes=attributes(strength=3)), more.card)
        assert scores(back, ["strength"]) == [5]
        assert back.card["builder"]["differences"] == {"abilities.strength": 1}

    def test_a_target_bought_later_keeps_one_difference(self) -> None:
        """A target a later spend step buys is the spend step's to write last: the player's
        difference is kept once, on top of the stages and the purchases together."""
        data = vtm_data()
        data["sheet"]["builder"]["pools"] = [{"id": "xp", "label": "XP", "budget": {"const": 5}}]
        offer = {"id": "willpower", "label": "Willpower", "target": {"field": "willpower"}}
        offer |= {"cost": {"flat": 1}, "min": 0, "max": 10}
        training = {"id": "training", "label": "Training", "kind": "spend", "pool": "xp"}
        data["sheet"]["builder"]["steps"].append(training | {"offers": [offer]})
        ruleset = load_ruleset(data)

        def given_answers(dots: int) -> dict[str, Any]:
            freebies = {"dots": {"field/willpower": dots}}
            return answers(freebies=freebies, training={"buys": {"willpower": 2}})

        first = build(given_answers(1), ruleset=ruleset)
        assert first.card["fields"]["willpower"] == 3
        edited = copy.deepcopy(first.card)
        edited["fields"]["willpower"] = 5
        kept = build(given_answers(1), edited, ruleset=ruleset)
        fewer = build(given_answers(0), kept.card, ruleset=ruleset)
        assert [kept.card["fields"]["willpower"], fewer.card["fields"]["willpower"]] == [5, 4]
        assert kept.dropped == fewer.dropped == []

    def test_clearing_the_dots_gives_the_base_back(self) -> None:
        """Deselection is exact: with the dots cleared the card is the one no dots build."""
        first = build(answers(attributes=attributes(strength=3)))
        cleared = build(answers(attributes=attributes()), first.card)
        assert scores(cleared, ["strength"]) == [1]
        fresh = build(answers(attributes=attributes()))
        assert json.dumps(cleared.card) == json.dumps(fresh.card)

    def test_a_tier_edited_by_hand_is_an_override(self) -> None:
        """BUILDER §3.7: a tier edited by hand is kept while the builder's value is unchanged,
        and dropped (reported) once it changes."""
        first = build(answers(talents={"dots": {"skill/brawl": 1}}))
        edited = copy.deepcopy(first.card)
        edited["skills"]["brawl"] = "expert"
        kept = build(answers(talents={"dots": {"skill/brawl": 1}}), edited)
        assert kept.card["skills"] == {"brawl": "expert"}
        changed = build(answers(talents={"dots": {"skill/occult": 1}}), kept.card)
        assert "brawl" not in changed.card["skills"]
        assert changed.dropped == [{"path": "skills.brawl", "value": "expert"}]


class TestRecord:
    def test_the_allocations_record(self) -> None:
        """C12: `builder.allocations[stepId]` holds the positions, the bought increments and
        the notes (kept, never judged)."""
        first = build(answers(attributes=attributes(strength=3, wits=7)))
        record = first.card["builder"]["allocations"]["attributes"]
        assert record == {"priorities": PRIORITIES, "bought": {"ability/strength": 3}}
        card = copy.deepcopy(first.card)
        card["builder"]["allocations"]["attributes"]["notes"] = {
            "ability/strength": "Raised on a farm. " * 100,
            "ability/unknown": "dropped",
        }
        again = build(answers(attributes=attributes(strength=3, wits=7)), card)
        notes = again.card["builder"]["allocations"]["attributes"]["notes"]
        assert list(notes) == ["ability/strength"]
        assert len(notes["ability/strength"]) == 1000


DOT_KEYS = [f"ability/{name}" for name in PHYSICAL + SOCIAL + MENTAL]

ANY_KEYS = [*DOT_KEYS, "skill/brawl", "skill/occult", "save/will", "field/courage"]
ANY_KEYS += ["field/willpower", "bonus/brawl", "field/xp"]
"""Target keys of every stage of the sample, and one of none."""

dot_answers = st.dictionaries(st.sampled_from(DOT_KEYS), st.integers(-1, 6), max_size=9)
orders = st.permutations(["physical", "social", "mental"])


def allocation(order: list[str], dots: dict[str, int]) -> dict[str, Any]:
    return answers(attributes={"priorities": {g: p for p, g in enumerate(order)}, "dots": dots})


class TestProperties:
    @settings(max_examples=40, deadline=None)
    @given(order=orders, dots=dot_answers)
    def test_remaining_is_budget_minus_active_dots(
        self, order: list[str], dots: dict[str, int]
    ) -> None:
        """For any dots, each group's remaining is its budget minus its active dots."""
        result = build(allocation(order, dots))
        active = set(step(result, "attributes")["active"])
        groups = {"physical": PHYSICAL, "social": SOCIAL, "mental": MENTAL}
        for group, names in groups.items():
            pool = result.pools[f"attributes/{group}"]
            counted = sum(dots[f"ability/{n}"] for n in names if f"ability/{n}" in active)
            assert pool["budget"] == [7, 5, 3][order.index(group)]
            assert pool["remaining"] == pool["budget"] - counted
            assert pool["remaining"] >= 0

    @settings(max_examples=25, deadline=None)
    @given(order=orders, dots=dot_answers)
    def test_the_same_answers_give_the_same_card(
        self, order: list[str], dots: dict[str, int]
    ) -> None:
        """Deterministic: byte for byte, also when the card is passed back in."""
        first = build(allocation(order, dots))
        second = build(allocation(order, dots))
        assert json.dumps(first.card) == json.dumps(second.card)
        again = build(allocation(order, dots), copy.deepcopy(first.card))
        assert json.dumps(again.card) == json.dumps(first.card)

    @settings(max_examples=25, deadline=None)
    @given(order=orders, dots=dot_answers, key=st.sampled_from(DOT_KEYS))
    def test_a_dot_added_then_removed_gives_the_card_back(
        self, order: list[str], dots: dict[str, int], key: str
    ) -> None:
        """Derive, never patch: one more dot on a target, then the answers as they were,
        give the card byte for byte."""
        first = build(allocation(order, dots))
        more = dict(dots)
        more[key] = more.get(key, 0) + 1
        added = build(allocation(order, more), copy.deepcopy(first.card))
        removed = build(allocation(order, dots), added.card)
        assert json.dumps(removed.card) == json.dumps(first.card)

    @settings(max_examples=60, deadline=None)
    @given(
        dots=dot_answers,
        key=st.sampled_from(DOT_KEYS),
        edited=st.sampled_from(DOT_KEYS),
        difference=st.integers(-2, 2),
    )
    def test_a_hand_edit_survives_a_dot_added_and_removed(
        self, dots: dict[str, int], key: str, edited: str, difference: int
    ) -> None:
        """SPEC §10: a hand-edited score keeps its difference through any change of the dots,
        is never listed as dropped, and the dots as they were give its value back."""
        order = ["physical", "social", "mental"]
        first = build(allocation(order, dots))
        card = copy.deepcopy(first.card)
        name = edited.partition("/")[2]
        card["abilities"][name] = max(0, min(5, card["abilities"][name] + difference))
        kept = build(allocation(order, dots), card)
        more = dict(dots)
        more[key] = more.get(key, 0) + 1
        added = build(allocation(order, more), kept.card)
        removed = build(allocation(order, dots), added.card)
        assert kept.dropped == added.dropped == removed.dropped == []
        assert removed.card["abilities"] == kept.card["abilities"] == card["abilities"]

    @settings(max_examples=40, deadline=None)
    @given(
        priorities=st.dictionaries(
            st.sampled_from(["physical", "social", "mental", "other"]), st.integers(0, 4)
        ),
        steps=st.dictionaries(
            st.sampled_from(["attributes", "talents", "virtues", "freebies"]),
            st.dictionaries(
                st.sampled_from(ANY_KEYS),
                st.integers(-2, 8),
                max_size=6,
            ),
        ),
        clan=st.lists(st.sampled_from(["brujah", "gangrel", "tremere", "ventrue"]), max_size=2),
    )
    def test_any_answers_build(
        self, priorities: dict[str, int], steps: dict[str, dict[str, int]], clan: list[str]
    ) -> None:
        """Total: answers of the right shape always build, every group's remaining is its
        budget minus what it spent, and every dot is active or inactive with a reason."""
        given_steps: dict[str, Any] = {s: {"dots": dots} for s, dots in steps.items()}
        given_steps.setdefault("attributes", {})["priorities"] = priorities
        given_steps["clan"] = {"picks": clan}
        result = build({"v": 1, "seed": 1, "steps": given_steps})
        for pool in result.pools.values():
            assert pool["remaining"] == pool["budget"] - pool["spent"]
        for step_id, dots in steps.items():
            entry = step(result, step_id)
            inactive = {item["answer"] for item in entry["inactive"]}
            for key, count in dots.items():
                if count:
                    assert (key in entry["active"]) != (key in inactive)
