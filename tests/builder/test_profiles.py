"""Creation profiles (004, 1.160; BUILDER G1–G3, §3.21), `reads.before` (G4) and entry-choice
slots counted from the sheet (G10), with a property test over any answers."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gmtags import load_ruleset
from gmtags.builder.build import BuildResult, build_character
from gmtags.ruleset.model import Ruleset
from tests.builder.conftest import five_e_builder
from tests.builder.samples import BUILDERS, points

POINTS = load_ruleset(points())


def build(ruleset: Ruleset, **steps: Any) -> BuildResult:
    return build_character(ruleset, {"v": 1, "seed": 1, "steps": steps})


def shown(result: BuildResult, step_id: str) -> dict[str, Any]:
    return next(s for s in result.steps if s["id"] == step_id)


def typed(kind: dict[str, Any], **more: Any) -> BuildResult:
    """The point-based sample with the type step's fields and both gift steps answered."""
    gifts = {
        "aspect_gifts": {"picks": ["stone-heart"]},
        "moon_gifts": {"picks": ["moon-sight"]},
    }
    return build(POINTS, type={"fields": kind}, **(gifts | more))


class TestProfiles:
    def test_dragon_blooded_has_bonus_15_and_its_aspect_gifts(self) -> None:
        """004: the Dragon-Blooded profile: `aspect_gifts` shown, bonus 15 replacing 10."""
        result = typed({"dragon": 1})
        assert result.profile == "dragon"
        assert result.pools["bonus"]["budget"] == 15
        assert shown(result, "aspect_gifts")["shown"]
        assert shown(result, "aspect_gifts")["active"] == ["stone-heart"]
        moon = shown(result, "moon_gifts")
        assert (moon["shown"], moon["active"], moon["pending"]) == (False, [], 0)
        assert result.pools["bonus"]["spent"] == 3  # the hidden moon gift pays nothing

    def test_lunar_has_bonus_18_and_its_moon_gifts(self) -> None:
        result = typed({"lunar": 1})
        assert result.profile == "lunar"
        assert result.pools["bonus"]["budget"] == 18
        assert not shown(result, "aspect_gifts")["shown"]
        assert shown(result, "moon_gifts")["active"] == ["moon-sight"]
        assert "celestial/moon-sight" not in str(result.card.get("picks", []))

    def test_the_first_profile_whose_when_holds(self) -> None:
        """G1: with both fields set the first listed profile (dragon) is the character's."""
        assert typed({"dragon": 1, "lunar": 1}).profile == "dragon"
        assert typed({"dragon": 0, "lunar": 1}).profile == "lunar"

    def test_no_profile_hides_every_listed_step_and_keeps_the_pools_own_budget(self) -> None:
        result = typed({})
        assert result.profile is None
        assert result.pools["bonus"]["budget"] == 10
        assert not shown(result, "aspect_gifts")["shown"]
        assert not shown(result, "moon_gifts")["shown"]

    def test_hidden_answers_are_kept(self) -> None:
        """G2: a hidden step's answers stay in `res.answers`, to count again on switching back."""
        result = typed({"dragon": 1})
        assert result.answers["steps"]["moon_gifts"] == {"picks": ["moon-sight"]}
        assert typed({"lunar": 1}).answers["steps"]["aspect_gifts"] == {"picks": ["stone-heart"]}

    def test_switching_type_never_keeps_the_other_budget(self) -> None:
        """G3: 17 points of merits fit the Lunar 18 and not the Dragon-Blooded 15: switching
        stops them applying until repaired, and switching back applies them again."""
        merits = {"rows": [{"name": "Ally", "cost": 9}, {"name": "Wealth", "cost": 8}]}
        lunar = build(POINTS, type={"fields": {"lunar": 1}}, traits=merits)
        dragon = build(POINTS, type={"fields": {"dragon": 1}}, traits=merits)
        assert lunar.pools["bonus"] == {"budget": 18, "spent": 17, "credit": 0, "remaining": 1}
        assert dragon.pools["bonus"]["budget"] == 15
        assert dragon.pools["bonus"]["spent"] < 17
        assert dragon.pending["traits"] > lunar.pending["traits"]
        again = build(POINTS, type={"fields": {"lunar": 1}}, traits=merits)
        assert again.pools == lunar.pools and again.card == lunar.card


def budgets_only(*ids: str) -> Ruleset:
    """The point-based sample with the profiles `ids` listing no steps: budgets only."""
    data = points()
    for profile in data["sheet"]["builder"]["profiles"]:
        if profile["id"] in ids:
            del profile["steps"]
    return load_ruleset(data)


class TestBudgetsOnlyProfiles:
    """004: profiles let "un tipo de personaje, una carrera o un paquete aporten sus propios
    pasos y presupuestos", and "Los budgets de un perfil sustituyen a los propios de esas
    reservas": a profile may bring budgets and no steps."""

    RULESET = budgets_only("dragon", "lunar")

    def test_the_chosen_profile_s_budget_replaces_the_pool_s_own(self) -> None:
        """Dragon-Blooded: bonus 15 replaces the pool's own 10; Lunar: 18."""
        dragon = build(self.RULESET, type={"fields": {"dragon": 1}})
        assert (dragon.profile, dragon.pools["bonus"]["budget"]) == ("dragon", 15)
        lunar = build(self.RULESET, type={"fields": {"lunar": 1}})
        assert (lunar.profile, lunar.pools["bonus"]["budget"]) == ("lunar", 18)

    def test_with_no_profile_the_pool_keeps_its_own_budget(self) -> None:
        result = build(self.RULESET, type={"fields": {}})
        assert (result.profile, result.pools["bonus"]["budget"]) == (None, 10)
        assert result.pools["occupation"]["budget"] == 20  # pools no profile names: their own

    def test_no_step_is_hidden_by_them(self) -> None:
        """004: "Un paso que enumera algún perfil solo se muestra mientras …": these profiles
        list no step, so every step shows whatever the profile."""
        for kind in ({"dragon": 1}, {"lunar": 1}, {}):
            result = build(self.RULESET, type={"fields": kind})
            assert shown(result, "aspect_gifts")["shown"] and shown(result, "moon_gifts")["shown"]

    def test_switching_type_never_keeps_the_other_budget(self) -> None:
        """004: "cambiar de tipo nunca conserva el presupuesto del otro tipo: las compras que
        ya no cubre dejan de aplicarse hasta que el jugador las repara": 17 points of merits
        fit the Lunar 18, not the Dragon-Blooded 15, and apply again on switching back."""
        merits = {"rows": [{"name": "Ally", "cost": 9}, {"name": "Wealth", "cost": 8}]}
        lunar = build(self.RULESET, type={"fields": {"lunar": 1}}, traits=merits)
        assert lunar.pools["bonus"] == {"budget": 18, "spent": 17, "credit": 0, "remaining": 1}
        dragon = build(self.RULESET, type={"fields": {"dragon": 1}}, traits=merits)
        assert dragon.pools["bonus"]["budget"] == 15 and dragon.pools["bonus"]["spent"] < 17
        assert dragon.pending["traits"] > lunar.pending["traits"]
        again = build(self.RULESET, type={"fields": {"lunar": 1}}, traits=merits)
        assert again.pools == lunar.pools and again.card == lunar.card

    def test_beside_a_profile_with_steps(self) -> None:
        """Dragon-Blooded brings steps and a budget, Lunar a budget only: a Lunar sees the
        aspect gifts hidden and the Lunar 18; the profile is read before the first listed
        step, as with steps."""
        mixed = budgets_only("lunar")
        lunar = build(mixed, type={"fields": {"lunar": 1}})
        assert (lunar.profile, lunar.pools["bonus"]["budget"]) == ("lunar", 18)
        assert not shown(lunar, "aspect_gifts")["shown"] and shown(lunar, "moon_gifts")["shown"]
        dragon = build(mixed, type={"fields": {"dragon": 1}})
        assert (dragon.profile, dragon.pools["bonus"]["budget"]) == ("dragon", 15)
        assert shown(dragon, "aspect_gifts")["shown"]

    def test_named_even_when_no_step_pays_from_its_pool(self) -> None:
        """004: "El primer perfil cuyo when lee más de 0 es el del personaje, y el creador
        indica cuál": read on the finished sheet when no pool is settled (here an INT
        modifier the scores step gives)."""
        data = five_e_builder()
        data["sheet"]["builder"]["pools"] = [
            {"id": "lore", "label": "Lore", "budget": {"const": 1}}
        ]
        data["sheet"]["builder"]["profiles"] = [
            {
                "id": "scholar",
                "label": "Scholar",
                "when": {"abilityMod": "int"},
                "budgets": {"lore": {"const": 3}},
            }
        ]
        ruleset = load_ruleset(data)
        plain = build(ruleset, scores={"method": "pointBuy", "scores": {"int": 8}})
        bright = build(ruleset, scores={"method": "pointBuy", "scores": {"int": 15}})
        assert (plain.profile, bright.profile) == (None, "scholar")


@settings(max_examples=40, deadline=None)
@given(
    dragon=st.one_of(st.none(), st.integers(0, 1)),
    lunar=st.one_of(st.none(), st.integers(0, 1)),
    aspect=st.lists(st.sampled_from(["ember-skin", "river-grace", "stone-heart", "x"])),
    moon=st.lists(st.sampled_from(["silver-shape", "moon-sight", "ember-skin"])),
)
def test_any_answers_never_raise_and_the_profile_is_the_first_that_holds(
    dragon: int | None, lunar: int | None, aspect: list[str], moon: list[str]
) -> None:
    kind = {k: v for k, v in {"dragon": dragon, "lunar": lunar}.items() if v is not None}
    result = build(
        POINTS,
        type={"fields": kind},
        aspect_gifts={"picks": aspect},
        moon_gifts={"picks": moon},
    )
    expected = "dragon" if (dragon or 0) > 0 else "lunar" if (lunar or 0) > 0 else None
    assert result.profile == expected
    assert result.pools["bonus"]["budget"] == {"dragon": 15, "lunar": 18, None: 10}[expected]
    assert shown(result, "aspect_gifts")["shown"] == (expected == "dragon")
    assert shown(result, "moon_gifts")["shown"] == (expected == "lunar")


def multiclass(reads: bool) -> Ruleset:
    """The 5e sample with the features step (Ability Score Improvement at 4) after the scores
    and a multiclass step after it whose Fighter is offered from Strength 13."""
    data = five_e_builder()
    steps = data["sheet"]["builder"]["steps"]
    features = next(s for s in steps if s["id"] == "features")
    steps.remove(features)
    steps.insert(next(i for i, s in enumerate(steps) if s["id"] == "scores") + 1, features)
    late = {"id": "multiclass", "label": "Multiclass", "kind": "catalog", "catalog": "classes"}
    steps.append(late | {"min": 0} | ({"reads": {"before": "features"}} if reads else {}))
    data["sheet"]["derived"].append(
        {
            "id": "str_13",
            "label": "Strength 13",
            "op": "stepTable",
            "from": {"abilityScore": "str"},
            "table": [[1, 0], [13, 1]],
        }
    )
    fighter = next(e for e in data["catalogs"][-3]["entries"] if e["id"] == "fighter")
    fighter["offeredWhen"] = {"derived": "str_13"}
    return load_ruleset(data)


def raised(strength: int) -> dict[str, Any]:
    """A wizard of level 4 with `strength`, raising it by 2 with the improvement."""
    scores = {"method": "manual", "scores": {"str": strength}}
    steps = {
        "class": {"picks": ["wizard"]},
        "level": {"fields": {"level": 4}},
        "scores": scores,
        "features": {"picks": ["asi-4"]},
        "multiclass": {"picks": ["fighter"]},
    }
    return {
        "v": 1,
        "seed": 7,
        "steps": steps,
        "choices": {"features/asi-4/abilities.0": ["str", "str"]},
    }


class TestReadsBefore:
    def test_a_multiclass_requirement_reads_the_scores_before_this_levels_raise(self) -> None:
        """004 (1.160): Strength 12 raised to 14 by this level's improvement does not open the
        Fighter to a multiclass step that reads before the improvement; 13 does."""
        before = build_character(multiclass(reads=True), raised(12))
        assert before.card["abilities"]["str"] == 14
        assert "fighter" not in shown(before, "multiclass")["offered"]
        assert shown(before, "multiclass")["active"] == []
        assert shown(before, "multiclass")["inactive"] == [
            {"answer": "fighter", "reason": "not offered now (offeredWhen)"}
        ]
        strong = build_character(multiclass(reads=True), raised(13))
        assert shown(strong, "multiclass")["active"] == ["fighter"]

    def test_without_reads_the_raise_opens_it(self) -> None:
        finished = build_character(multiclass(reads=False), raised(12))
        assert shown(finished, "multiclass")["active"] == ["fighter"]

    def test_an_initialize_value_read_before_the_improvement(self) -> None:
        """G4 on initialize: a starting value from EDU read before the EDU improvement roll."""
        data = json.loads((BUILDERS / "coc-builder.json").read_text(encoding="utf-8"))
        start = next(s for s in data["sheet"]["builder"]["steps"] if s["id"] == "start")
        start["writes"][0]["value"] = {"abilityScore": "edu"}
        ans = {"v": 1, "seed": 3, "steps": {"start": {"set": 1}}}
        after = build_character(load_ruleset(data), ans)
        start["reads"] = {"before": "improvement"}
        before = build_character(load_ruleset(data), ans)
        assert after.card["abilities"] == before.card["abilities"]  # the roll still applies
        edu = after.card["abilities"]["edu"]
        assert after.card["fields"]["san_start"] == edu
        assert before.card["fields"]["san_start"] < edu  # the improvement's gain is not read
        assert shown(before, "start")["reasons"] == []


class TestCountedSlots:
    def counted(self, xp: float, picks: list[str]) -> dict[str, Any]:
        """A half-elf whose language slot is counted from the card's own `xp`, max 3 (a value
        no step writes: import refuses a count reading what its step or a later one changes)."""
        data = five_e_builder()
        half_elf = data["catalogs"][-5]["entries"][0]
        half_elf["grants"]["entries"]["choose"] = [
            {"catalog": "languages", "countFrom": {"field": "xp"}, "max": 3}
        ]
        ans = {
            "v": 1,
            "seed": 7,
            "steps": {"race": {"picks": ["half-elf"]}},
            "choices": {"race/half-elf/entries.0": picks},
        }
        result = build_character(load_ruleset(data), ans, {"fields": {"xp": xp}})
        return next(c for c in shown(result, "languages")["choices"] if c["key"].startswith("race"))

    def test_an_entry_choice_slot_counted_from_the_sheet(self) -> None:
        """G10: `countFrom` with `max`, floored and held to 0..max, like the ability slots."""
        slot = self.counted(2.7, ["elvish", "orc", "sylvan"])  # floored to 2
        assert (slot["count"], slot["active"]) == (2, ["elvish", "orc"])
        assert slot["inactive"][0]["answer"] == "sylvan"
        assert self.counted(7, [])["count"] == 3  # held to max 3
        assert self.counted(7, [])["pending"] == 3
        low = self.counted(-1, ["elvish"])  # held to 0
        assert (low["count"], low["active"], low["pending"]) == (0, [], 0)
