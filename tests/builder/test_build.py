"""`build_character` (SPEC §10) on the 5e builder of `conftest.py`: one test per rule of
BUILDER chunk B with 004's own example where it gives one, and the properties SPEC §10's
design promises (deselection exact, order of answering irrelevant, deterministic, total)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gmtags import Ruleset, RulesetError, Snapshot, load_ruleset, process
from gmtags.builder.build import BuildResult, build_character
from tests.builder.conftest import five_e_builder
from tests.conftest import REFERENCE_RULESETS

HALF_ELF_WIZARD: dict[str, Any] = {
    "v": 1,
    "seed": 42,
    "steps": {
        "race": {"picks": ["half-elf"]},
        "class": {"picks": ["wizard"]},
        "level": {"fields": {"level": 4, "alignment": "NG"}},
        "features": {"picks": ["spellbook", "arcane-tradition", "asi-4"]},
        "scores": {
            "method": "pointBuy",
            "scores": {"str": 8, "dex": 14, "con": 13, "int": 15, "wis": 12, "cha": 10},
        },
    },
    "choices": {
        "race/half-elf/abilities.0": ["dex", "con"],
        "race/half-elf/trained.0": ["perception", "stealth"],
        "class/wizard/trained.0": ["arcana", "history"],
        "features/asi-4/abilities.0": ["int", "int"],
        "race/half-elf/entries.0": ["elvish"],
    },
}
"""A whole 5e character: every step answered."""


def answers(**steps: dict[str, Any]) -> dict[str, Any]:
    return {"v": 1, "seed": 7, "steps": steps}


def step(result: BuildResult, step_id: str) -> dict[str, Any]:
    return next(s for s in result.steps if s["id"] == step_id)


def card_values(result: BuildResult) -> dict[str, Any]:
    """The card without its builder record."""
    return {k: v for k, v in result.card.items() if k != "builder"}


def rows(result: BuildResult, list_id: str) -> list[str]:
    return [row["name"] for row in result.card.get("lists", {}).get(list_id, [])]


class TestRefusals:
    def test_a_ruleset_without_a_builder(self) -> None:
        """SPEC §10: `RulesetError` for a ruleset without a builder."""
        plain = load_ruleset(REFERENCE_RULESETS / "ruleset-5e-2014.example.json")
        with pytest.raises(RulesetError) as caught:
            build_character(plain, {"v": 1})
        assert [p.path for p in caught.value.problems] == ["sheet.builder"]


class TestWholeCharacter:
    def test_every_step_answered(self, five_e: Any) -> None:
        result = build_character(five_e, HALF_ELF_WIZARD)
        card = result.card
        assert result.pending == dict.fromkeys(
            ["race", "subrace", "class", "level", "features", "scores", "skills", "languages"], 0
        )
        assert card["abilities"] == {
            "str": 8,
            "dex": 15,
            "con": 14,
            "int": 17,
            "wis": 12,
            "cha": 12,
        }
        assert card["fields"]["race"] == "Half-Elf" and card["fields"]["class"] == "Wizard"
        assert card["fields"]["speed"] == 30 and card["fields"]["hit_die"] == "d6"
        assert card["skills"] == dict.fromkeys(
            ["perception", "stealth", "arcana", "history"], "proficient"
        )
        assert card["saves"] == {"int_save": "proficient", "wis_save": "proficient"}
        assert rows(result, "features") == [
            "Fey Ancestry",
            "Arcane Recovery",
            "Spellbook",
            "Arcane Tradition",
        ]
        assert rows(result, "proficiencies") == ["Elvish"]
        assert result.problems == [] and result.dropped == []

    def test_the_card_plays(self, five_e: Any) -> None:
        """A card the builder writes plays: a snapshot with it validates, and a check on a
        builder-trained skill uses the builder's tier (proficient: +2 at level 4)."""
        card = build_character(five_e, HALF_ELF_WIZARD).card
        state = Snapshot.model_validate({"gameCharacterCards": {"Ilse": card}})
        text = '[skill_check: skill="Arcana" dc="10" who="Ilse"]'
        receipt = process(text, five_e, state, seed=1).receipts[0]
        assert receipt.attr("modifier") == "5"  # int 17 → +3, proficient at level 4 → +2


class TestPointBuy:
    def test_27_with_the_5e_table(self, five_e: Any) -> None:
        """BUILDER B11: 27 = 15, 15, 15, 8, 8, 8 (9 + 9 + 9)."""
        scores = {"str": 15, "dex": 15, "con": 15, "int": 8, "wis": 8, "cha": 8}
        result = build_character(five_e, answers(scores={"method": "pointBuy", "scores": scores}))
        assert result.pools["scores"] == {"budget": 27, "spent": 27, "credit": 0, "remaining": 0}
        assert step(result, "scores")["pending"] == 0
        assert result.card["abilities"] == scores

    def test_over_budget_says_by_how_much(self, five_e: Any) -> None:
        """004: a budget overspent shows "puntos restantes negativos cuando se ha gastado de
        más"; the badge it raises says why, in points: 15, 15, 15, 10 spends 29 of 27."""
        scores = {"str": 15, "dex": 15, "con": 15, "int": 10}
        result = build_character(five_e, answers(scores={"method": "pointBuy", "scores": scores}))
        assert result.pools["scores"]["remaining"] == -2
        assert step(result, "scores")["pending"] == 1
        assert step(result, "scores")["reasons"] == ["2 points over budget (29 spent of 27)"]
        assert result.card["abilities"]["int"] == 10  # never refused: written as answered

    def test_a_score_off_the_table_says_so(self, five_e: Any) -> None:
        """BUILDER §3.12: a score the table does not price counts in the badge, with its
        reason; one point over budget is "1 point"."""
        scores = {"str": 16, "dex": 15, "con": 15, "int": 15}
        result = build_character(five_e, answers(scores={"method": "pointBuy", "scores": scores}))
        assert step(result, "scores")["pending"] == 1
        assert step(result, "scores")["reasons"] == ["str 16 is not on the point-buy table (8-15)"]
        one = {"str": 15, "dex": 15, "con": 15, "int": 9}
        over = build_character(five_e, answers(scores={"method": "pointBuy", "scores": one}))
        assert step(over, "scores")["reasons"] == ["1 point over budget (28 spent of 27)"]

    def test_the_default_method_for_a_blank_character(self, five_e: Any) -> None:
        """004: default (1.87): a blank character starts with point buy, every score at 8."""
        result = build_character(five_e, answers())
        assert result.card["abilities"] == dict.fromkeys(
            ["str", "dex", "con", "int", "wis", "cha"], 8
        )
        assert result.pools["scores"]["remaining"] == 27

    def test_standard_array_handed_out_once_each(self, five_e: Any) -> None:
        scores = {"str": 15, "dex": 14, "con": 13, "int": 12, "wis": 10, "cha": 15}
        result = build_character(
            five_e, answers(scores={"method": "standardArray", "scores": scores})
        )
        assert "cha" not in result.card["abilities"]  # 15 was taken: Charisma stays blank
        assert step(result, "scores")["pending"] == 1  # the 8 is left
        assert result.problems == [
            {"path": "steps.scores.scores.cha", "message": "15 is not left to assign"}
        ]

    def test_rolls_are_kept_with_their_faces(self, five_e: Any) -> None:
        """004: 4d6 keep 3, one roll per score, recorded in the answers and never redrawn."""
        result = build_character(five_e, answers(scores={"method": "roll"}))
        made = result.answers["steps"]["scores"]["rolls"]
        assert sorted(made) == ["0", "1", "2", "3", "4", "5"]
        again = build_character(five_e, result.answers)
        assert again.answers["steps"]["scores"]["rolls"] == made


class TestGrants:
    def test_the_half_elf(self, five_e: Any) -> None:
        """004: add {cha: 2} and choose {count: 2, amount: 1, except: [cha]}."""
        ans = answers(
            race={"picks": ["half-elf"]}, scores={"method": "manual", "scores": {"cha": 15}}
        )
        ans["choices"] = {"race/half-elf/abilities.0": ["cha", "dex", "con"]}
        result = build_character(five_e, ans)
        scores = result.card["abilities"]
        assert (scores["cha"], scores["dex"], scores["con"]) == (17, 11, 11)
        (choice,) = step(result, "scores")["choices"]
        assert "cha" not in choice["offered"]
        assert choice["inactive"] == [{"answer": "cha", "reason": "not offered by this choice"}]

    def test_sets_never_overwrite_a_hand_written_value(self, five_e: Any) -> None:
        """004 B29: a hand-written speed stays; a blank one is set."""
        ans = answers(race={"picks": ["elf"]})
        assert build_character(five_e, ans).card["fields"]["speed"] == 30
        hand = build_character(five_e, ans, {"fields": {"speed": 40}})
        assert hand.card["fields"]["speed"] == 40

    def test_entry_grants_write_rows_without_their_own_grants(self, five_e: Any) -> None:
        """004: chosen entries write their rows; "No se aplican sus propias concesiones"."""
        data = five_e_builder()
        data["catalogs"][-1]["entries"][0]["grants"] = {"sets": {"speed": 99}}
        ruleset = load_ruleset(data)
        ans = answers(race={"picks": ["half-elf"]})
        ans["choices"] = {"race/half-elf/entries.0": ["elvish"]}
        result = build_character(ruleset, ans)
        assert rows(result, "proficiencies") == ["Elvish"]
        assert result.card["fields"]["speed"] == 30


class TestCatalogSteps:
    def test_within_after_the_parent_changes(self, five_e: Any) -> None:
        """004: "si se deselecciona la raza, su subraza no cuenta para nada" (kept)."""
        elf = build_character(
            five_e, answers(race={"picks": ["elf"]}, subrace={"picks": ["high-elf"]})
        )
        assert step(elf, "subrace")["active"] == ["high-elf"]
        assert step(elf, "subrace")["offered"] == [
            "high-elf",
            "wood-elf",
        ]  # "Elf" names it by label
        dwarf = build_character(
            five_e, answers(race={"picks": ["dwarf"]}, subrace={"picks": ["high-elf"]})
        )
        assert step(dwarf, "subrace")["active"] == []
        assert step(dwarf, "subrace")["inactive"] == [
            {"answer": "high-elf", "reason": "not offered by this step"}
        ]
        assert dwarf.card["abilities"]["int"] == 8 and dwarf.answers["steps"]["subrace"][
            "picks"
        ] == ["high-elf"]

    def test_max_one_a_new_pick_replaces_the_old(self, five_e: Any) -> None:
        result = build_character(five_e, answers(race={"picks": ["elf", "dwarf"]}))
        assert step(result, "race")["active"] == ["dwarf"]
        assert result.card["fields"]["race"] == "Dwarf"

    def test_up_to_after_the_level_is_lowered_by_hand(self, five_e: Any) -> None:
        """004: "un nivel que se baja ahí retira al instante lo que dio un rasgo por encima"."""
        ans = answers(level={"fields": {"level": 4}}, features={"picks": ["spellbook", "asi-4"]})
        ans["choices"] = {"features/asi-4/abilities.0": ["str", "str"]}
        first = build_character(five_e, ans)
        assert first.card["abilities"]["str"] == 10
        edited = copy.deepcopy(first.card)
        edited["fields"]["level"] = 2
        lowered = build_character(five_e, ans, edited)
        assert lowered.card["fields"]["level"] == 2  # the player's edit is kept
        assert step(lowered, "features")["active"] == ["spellbook"]
        assert lowered.card["abilities"]["str"] == 8

    def test_exclusive_keeps_the_latest_of_a_group(self, five_e: Any) -> None:
        """004: "seleccionar una descarta la otra… solo cuenta la última"."""
        ans = answers(level={"fields": {"level": 4}}, features={"picks": ["asi-4", "tough-4"]})
        result = build_character(five_e, ans)
        assert step(result, "features")["active"] == ["tough-4"]
        assert step(result, "features")["inactive"] == [
            {"answer": "asi-4", "reason": "another pick of group 'asi-4'"}
        ]

    def test_count_from_with_more_saved_picks_than_it_allows(self) -> None:
        """004: countFrom is min and max; "Las selecciones que lo superan se conservan, pero no
        cuentan para nada hasta que vuelva a subir la cuenta"."""
        data = five_e_builder()
        features = data["sheet"]["builder"]["steps"][4]
        del features["upTo"]
        features["countFrom"] = {"field": "level"}
        ruleset = load_ruleset(data)
        picks = ["spellbook", "arcane-tradition", "tough-4"]
        two = build_character(
            ruleset, answers(level={"fields": {"level": 2}}, features={"picks": picks})
        )
        assert step(two, "features")["active"] == ["spellbook", "arcane-tradition"]
        assert step(two, "features")["inactive"] == [
            {"answer": "tough-4", "reason": "the step takes 2"}
        ]
        three = build_character(
            ruleset, answers(level={"fields": {"level": 3}}, features={"picks": picks})
        )
        assert (
            step(three, "features")["active"] == picks and step(three, "features")["pending"] == 0
        )

    def test_offered_when(self) -> None:
        """004 (1.99): an entry offered only while its reference reads above 0 on the sheet."""
        data = five_e_builder()
        data["catalogs"][-3]["entries"][1]["offeredWhen"] = {"field": "xp"}
        data["sheet"]["builder"]["steps"][3]["fields"].append("xp")
        ruleset = load_ruleset(data)
        none = build_character(ruleset, answers(**{"class": {"picks": ["fighter"]}}))
        assert step(none, "class")["active"] == []
        assert step(none, "class")["inactive"] == [
            {"answer": "fighter", "reason": "not offered now (offeredWhen)"}
        ]
        leveled = build_character(
            ruleset, answers(**{"class": {"picks": ["fighter"]}}, level={"fields": {"xp": 300}})
        )
        assert step(leveled, "class")["active"] == ["fighter"]

    def test_stamps(self) -> None:
        """004: a stamp writes column values into every row the pick adds; fromWithin reads the
        first matching parent pick."""
        data = five_e_builder()
        data["sheet"]["builder"]["steps"][1]["stamp"] = {"text": {"fromWithin": "label"}}
        ruleset = load_ruleset(data)
        result = build_character(
            ruleset, answers(race={"picks": ["elf"]}, subrace={"picks": ["wood-elf"]})
        )
        (row,) = [r for r in result.card["lists"]["features"] if r["name"] == "Mask of the Wild"]
        assert row["text"] == "Elf" and row["_catalog"] == "subraces/wood-elf"


class TestTraining:
    def test_a_choice_never_offers_what_picks_train(self, five_e: Any) -> None:
        """004 (1.104): the elf trains Perception, so the half-elf's… (here: the class choice
        of a skill the race already trains counts for nothing and asks for another)."""
        ans = answers(race={"picks": ["elf"]}, **{"class": {"picks": ["fighter"]}})
        ans["choices"] = {"class/fighter/trained.0": ["insight", "athletics"]}
        result = build_character(five_e, ans)
        assert result.card["skills"] == dict.fromkeys(
            ["perception", "insight", "athletics"], "proficient"
        )

    def test_replacement_choices(self) -> None:
        """004: with onDuplicate "replace", a skill the elf already trains (Perception) is
        kept as the answer and opens `<key>/replacement` among the untrained skills."""
        data = five_e_builder()
        fighter = data["catalogs"][-3]["entries"][1]["grants"]["trained"]["choose"][0]
        fighter["onDuplicate"] = "replace"
        fighter["from"].append("perception")
        ruleset = load_ruleset(data)
        ans = answers(race={"picks": ["elf"]}, **{"class": {"picks": ["fighter"]}})
        ans["choices"] = {
            "class/fighter/trained.0": ["perception", "athletics"],
            "class/fighter/trained.0/replacement": ["stealth"],
        }
        result = build_character(ruleset, ans)
        original, replacement = step(result, "skills")["choices"]
        assert original["key"] == "class/fighter/trained.0"
        assert original["active"] == ["athletics", "perception"]
        assert replacement["key"] == "class/fighter/trained.0/replacement"
        assert replacement["active"] == ["stealth"] and replacement["pending"] == 0
        assert result.card["skills"] == dict.fromkeys(
            ["perception", "athletics", "stealth"], "proficient"
        )


class TestOwnership:
    def test_a_hand_edit_is_kept_until_the_builders_answer_changes(self, five_e: Any) -> None:
        """SPEC §10: kept while the builder's value is what it was, then dropped and listed."""
        first = build_character(five_e, answers(race={"picks": ["elf"]}))
        edited = copy.deepcopy(first.card)
        edited["fields"]["race"] = "Sea Elf"
        kept = build_character(five_e, answers(race={"picks": ["elf"]}), edited)
        assert kept.card["fields"]["race"] == "Sea Elf" and kept.dropped == []
        changed = build_character(five_e, answers(race={"picks": ["dwarf"]}), kept.card)
        assert changed.card["fields"]["race"] == "Dwarf"
        assert changed.dropped == [{"path": "fields.race", "value": "Sea Elf"}]

    def test_the_players_rows_stay(self, five_e: Any) -> None:
        card = {"lists": {"features": [{"name": "Lucky", "text": "mine"}]}}
        given = {**answers(race={"picks": ["elf"]}), "described": False}  # not described (H1)
        result = build_character(five_e, given, card)
        assert rows(result, "features") == ["Lucky", "Darkvision"]
        back = build_character(five_e, answers(), result.card)
        assert rows(back, "features") == ["Lucky"]


PICKS = {
    "race": ["half-elf", "elf", "dwarf"],
    "subrace": ["high-elf", "wood-elf", "hill-dwarf"],
    "class": ["wizard", "fighter"],
    "features": ["spellbook", "arcane-tradition", "asi-4", "tough-4"],
}
ANSWERS = st.fixed_dictionaries(
    {
        "v": st.just(1),
        "seed": st.integers(0, 2**32),
        "steps": st.fixed_dictionaries(
            {},
            optional={
                **{
                    name: st.builds(
                        lambda p: {"picks": p}, st.lists(st.sampled_from(ids), max_size=3)
                    )
                    for name, ids in PICKS.items()
                },
                "level": st.builds(lambda n: {"fields": {"level": n}}, st.integers(1, 20)),
                "scores": st.builds(
                    lambda m, s: {"method": m, "scores": s},
                    st.sampled_from(["pointBuy", "standardArray", "roll", "manual"]),
                    st.dictionaries(
                        st.sampled_from(["str", "dex", "con", "int", "wis", "cha"]),
                        st.integers(1, 30),
                    ),
                ),
            },
        ),
        "choices": st.fixed_dictionaries(
            {},
            optional={
                "race/half-elf/abilities.0": st.lists(
                    st.sampled_from(["str", "dex", "cha"]), max_size=3
                ),
                "class/wizard/trained.0": st.lists(
                    st.sampled_from(["arcana", "history", "nature"]), max_size=3
                ),
                "features/asi-4/abilities.0": st.lists(st.sampled_from(["str", "int"]), max_size=3),
                "race/half-elf/entries.0": st.lists(st.sampled_from(["elvish", "orc"]), max_size=2),
            },
        ),
    }
)
PROPERTY = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@PROPERTY
@given(ans=ANSWERS)
def test_the_same_answers_give_the_same_card(five_e: Any, ans: dict[str, Any]) -> None:
    """Deterministic byte for byte, never raising on answers of the right shape."""
    first = build_character(five_e, ans)
    assert json.dumps(build_character(five_e, ans).card) == json.dumps(first.card)


@PROPERTY
@given(ans=ANSWERS)
def test_step_by_step_equals_all_at_once(five_e: Any, ans: dict[str, Any]) -> None:
    """Answering one step at a time, the card passed back each time, gives the card the whole
    answers give on a blank sheet."""
    whole = build_character(five_e, ans)
    card: dict[str, Any] | None = None
    so_far: dict[str, Any] = {"v": 1, "seed": ans["seed"], "steps": {}, "choices": ans["choices"]}
    for name, given_answer in ans["steps"].items():
        so_far["steps"][name] = given_answer
        card = build_character(five_e, so_far, card).card
    if card is None:
        card = build_character(five_e, so_far).card
    assert {k: v for k, v in card.items() if k != "builder"} == card_values(whole)


@PROPERTY
@given(ans=ANSWERS, entry=st.sampled_from([(s, e) for s, ids in PICKS.items() for e in ids]))
def test_picking_then_unpicking_returns_the_card(
    five_e: Any, ans: dict[str, Any], entry: tuple[str, str]
) -> None:
    """Picking any entry and unpicking it again gives back exactly the card it started from."""
    name, pick = entry
    start = build_character(five_e, ans)
    with_pick = copy.deepcopy(ans)
    picks = with_pick["steps"].setdefault(name, {}).setdefault("picks", [])
    if pick in picks:
        return
    picks.append(pick)
    picked = build_character(five_e, with_pick, start.card)
    back = build_character(five_e, ans, picked.card)
    assert card_values(back) == card_values(start)


class TestMoreSteps:
    def test_a_trained_steps_own_choose(self) -> None:
        """004: the trained step's own choose: [{what: skills, count: 2, from: [...]}]."""
        data = five_e_builder()
        data["sheet"]["builder"]["steps"][6]["choose"] = [
            {"what": "skills", "count": 2, "from": ["nature", "religion", "survival"]}
        ]
        ruleset = load_ruleset(data)
        ans = answers()
        ans["choices"] = {"skills/choose.0": ["nature", "survival", "religion"]}
        result = build_character(ruleset, ans)
        (choice,) = step(result, "skills")["choices"]
        assert choice["active"] == ["nature", "survival"]
        assert choice["inactive"] == [{"answer": "religion", "reason": "the choice takes 2"}]
        assert result.card["skills"] == {"nature": "proficient", "survival": "proficient"}

    def test_the_same_entry_in_two_steps_grants_once(self) -> None:
        """004 (B38): an entry picked in two steps on one catalog grants once."""
        data = five_e_builder()
        steps = data["sheet"]["builder"]["steps"]
        steps.insert(1, {**steps[0], "id": "race_again", "label": "Race again", "field": None})
        del steps[1]["field"]
        ruleset = load_ruleset(data)
        result = build_character(
            ruleset, answers(race={"picks": ["dwarf"]}, race_again={"picks": ["dwarf"]})
        )
        assert result.card["abilities"]["con"] == 10  # 8 + 2, once
        assert rows(result, "features") == ["Stonecunning"]
        assert result.card["picks"] == ["races/dwarf"]

    def test_fields_badge_shown_when_and_total(self) -> None:
        """004: the badge counts empty fields not optional; shownWhen hides (keeping values);
        total adds one while the fields together pass their max."""
        data = five_e_builder()
        level = data["sheet"]["builder"]["steps"][3]
        level["fields"] = ["level", "xp", "ac", "alignment"]
        level["optional"] = ["alignment"]
        level["shownWhen"] = {"ac": {"field": "xp"}}
        level["total"] = {"fields": ["level", "xp"], "max": 10}
        ruleset = load_ruleset(data)
        bare = build_character(ruleset, answers(level={"fields": {"level": 3}}))
        assert step(bare, "level")["pending"] == 1  # xp is empty; ac is hidden while xp reads 0
        over = build_character(ruleset, answers(level={"fields": {"level": 3, "xp": 300}}))
        assert step(over, "level")["pending"] == 2  # ac shown and empty, and the total passed
        assert step(over, "level")["reasons"] == ["together at most 10 (now 303)"]
        kept = build_character(ruleset, answers(level={"fields": {"level": 3, "ac": 12}}))
        assert kept.card["fields"]["ac"] == 12  # a hidden field keeps its value

    def test_a_field_answer_that_does_not_fit(self, five_e: Any) -> None:
        result = build_character(five_e, answers(level={"fields": {"level": "four"}}))
        assert result.problems == [
            {"path": "steps.level.fields.level", "message": "does not fit field 'level'"}
        ]

    def test_manual_scores_within_the_ability_limits(self, five_e: Any) -> None:
        """004: manual: true keeps the ability limits (5e: 1–30)."""
        scores = {"str": 40, "dex": 0, "con": 12}
        result = build_character(five_e, answers(scores={"method": "manual", "scores": scores}))
        assert {k: result.card["abilities"][k] for k in scores} == {"str": 30, "dex": 1, "con": 12}

    def test_manual_min_and_max(self) -> None:
        """004 (1.110): manual {min, max} clamps the base scores written before the grants."""
        data = five_e_builder()
        data["sheet"]["builder"]["steps"][5]["methods"]["manual"] = {"min": 3, "max": 18}
        ruleset = load_ruleset(data)
        scores = {"str": 20, "dex": 2, "con": 18}
        ans = answers(race={"picks": ["dwarf"]}, scores={"method": "manual", "scores": scores})
        result = build_character(ruleset, ans)
        assert {k: result.card["abilities"][k] for k in scores} == {"str": 18, "dex": 3, "con": 20}


class TestStartingGear:
    RULESET = "builder/5e-builder.json"

    def test_a_kit_writes_its_item_lines(self) -> None:
        """Issue 12: kits a player takes write their item lines (marked, so untaking removes
        exactly them)."""
        from tests.conftest import FIXTURES

        ruleset = load_ruleset(FIXTURES / "rulesets" / self.RULESET)
        taken = build_character(ruleset, answers(gear={"kits": ["fighter-kit"]}))
        refs = [line["ref"] for line in taken.card["items"]]
        assert refs[:2] == ["equipment/chain-mail", "equipment/longsword"]
        assert all(line["_kit"] == "fighter-kit" for line in taken.card["items"])
        assert taken.card["builder"]["kits"] == {"gear": ["fighter-kit"]}
        mine = {**taken.card, "items": [*taken.card["items"], {"ref": "equipment/dagger"}]}
        untaken = build_character(ruleset, answers(), mine)
        assert untaken.card["items"] == [{"ref": "equipment/dagger"}]

    @staticmethod
    def strict(plain_fits: dict[str, Any] | None = None) -> Ruleset:
        """The 5e build with a strict gear step: a scholar's kit that fits INT 13 and up, and
        a plain kit that fits everyone, or `plain_fits`."""
        plain: dict[str, Any] = {
            "id": "plain",
            "label": "Plain kit",
            "lines": [{"coins": "gp", "count": 5}],
        }
        if plain_fits is not None:
            plain["fits"] = plain_fits
        data = five_e_builder()
        data["sheet"]["builder"]["steps"].append(
            {
                "id": "gear",
                "label": "Gear",
                "kind": "startingGear",
                "strict": True,
                "kits": [
                    {
                        "id": "scholar",
                        "label": "Scholar's kit",
                        "fits": {"value": {"abilityScore": "int"}, "atLeast": 13},
                        "lines": [{"coins": "gp", "count": 10}],
                    },
                    plain,
                ],
            }
        )
        data["items"] = {
            "categories": [{"id": "gear", "label": "Gear"}],
            "currencies": [
                {"id": "coin", "label": "Coin", "units": [{"id": "gp", "label": "gp", "value": 1}]}
            ],
        }
        return load_ruleset(data)

    def test_strict_offers_only_kits_that_fit(self) -> None:
        """004 (1.109): strict offers the kits whose fits holds on the sheet, and clears a
        pick that stops fitting, with its reason."""
        ruleset = self.strict()
        dull = build_character(ruleset, answers(gear={"kits": ["scholar"]}))
        assert step(dull, "gear")["offered"] == ["plain"]
        assert step(dull, "gear")["inactive"] == [
            {"answer": "scholar", "reason": "does not fit the sheet"}
        ]
        scores = {"int": 15}
        bright = build_character(
            ruleset,
            answers(gear={"kits": ["scholar"]}, scores={"method": "pointBuy", "scores": scores}),
        )
        assert step(bright, "gear")["active"] == ["scholar"]
        assert bright.card["builder"]["coins"] == {"gp": 10}

    def test_strict_with_no_kit_fitting_shows_its_empty_state(self) -> None:
        """004: "Sin equipo que encaje, el paso muestra su estado vacío y Next sigue
        disponible": no kit fits, so the step offers none and its badge is 0; a kit taken
        before is kept, not counted, with its reason. Once one fits, the step asks again."""
        ruleset = self.strict({"value": {"field": "level"}, "atLeast": 5})
        none_fit = build_character(ruleset, answers())
        gear = step(none_fit, "gear")
        assert (gear["shown"], gear["offered"], gear["pending"]) == (True, [], 0)
        kept = step(build_character(ruleset, answers(gear={"kits": ["plain"]})), "gear")
        assert (kept["active"], kept["pending"]) == ([], 0)
        assert kept["inactive"] == [{"answer": "plain", "reason": "does not fit the sheet"}]
        levelled = build_character(ruleset, answers(level={"fields": {"level": 5}}))
        assert (step(levelled, "gear")["offered"], step(levelled, "gear")["pending"]) == (
            ["plain"],
            1,
        )


ANY_ANSWERS = st.fixed_dictionaries(
    {
        "v": st.just(1),
        "seed": st.integers(0, 2**63 - 1),
        "described": st.booleans(),
        "steps": st.dictionaries(
            st.text(min_size=1, max_size=10),
            st.fixed_dictionaries(
                {},
                optional={
                    "picks": st.lists(st.text(min_size=1, max_size=12), max_size=4),
                    "fields": st.dictionaries(
                        st.text(min_size=1, max_size=8),
                        st.integers(-(10**6), 10**6) | st.text(max_size=5) | st.booleans(),
                        max_size=3,
                    ),
                    "method": st.sampled_from(
                        ["pointBuy", "standardArray", "roll", "rolls", "manual"]
                    ),
                    "scores": st.dictionaries(
                        st.sampled_from(["str", "dex", "x"]), st.integers(-1000, 1000)
                    ),
                    "kits": st.lists(st.text(min_size=1, max_size=8), max_size=2),
                    "rolls": st.dictionaries(
                        st.sampled_from(["0", "1", "str"]),
                        st.builds(
                            lambda f, a: {"faces": f, "attempt": a},
                            st.lists(st.integers(-5, 10), min_size=1, max_size=5),
                            st.integers(0, 99),
                        ),
                    ),
                },
            ),
            max_size=4,
        ),
        "choices": st.dictionaries(
            st.text(min_size=1, max_size=30),
            st.lists(st.text(min_size=1, max_size=8), max_size=3),
            max_size=3,
        ),
    }
)


@PROPERTY
@given(ans=ANY_ANSWERS, named=st.sampled_from([*PICKS, "scores", "level", "languages"]))
def test_never_raises_on_answers_of_the_right_shape(
    five_e: Any, ans: dict[str, Any], named: str
) -> None:
    """Answers naming nothing real, or real steps with odd answers, build: problems are values."""
    if ans["steps"]:
        first = next(iter(ans["steps"]))
        ans["steps"][named] = ans["steps"].pop(first)
    result = build_character(five_e, ans)
    Snapshot.model_validate({"gameCharacterCards": {"X": result.card}})


class TestExclusiveDefault:
    def ruleset(self) -> Any:
        data = five_e_builder()
        data["catalogs"][-2]["entries"][2]["exclusiveDefault"] = True  # asi-4
        data["sheet"]["builder"]["steps"][4]["min"] = 3  # spellbook, tradition, the asi-4 group
        return load_ruleset(data)

    def test_a_step_taking_everything_takes_the_groups_default(self) -> None:
        """004 (1.772): the default is what a take-all step takes from its group until the
        player selects another; it is active without being an answer."""
        ans = answers(
            level={"fields": {"level": 4}}, features={"picks": ["spellbook", "arcane-tradition"]}
        )
        result = build_character(self.ruleset(), ans)
        assert step(result, "features")["active"] == ["spellbook", "arcane-tradition", "asi-4"]
        assert step(result, "features")["pending"] == 0
        assert result.answers["steps"]["features"]["picks"] == ["spellbook", "arcane-tradition"]

    def test_until_the_player_selects_another(self) -> None:
        picks = ["spellbook", "arcane-tradition", "tough-4"]
        result = build_character(
            self.ruleset(), answers(level={"fields": {"level": 4}}, features={"picks": picks})
        )
        assert step(result, "features")["active"] == picks
        assert rows(result, "features")[-1] == "Tough"

    def test_not_in_a_step_that_does_not_take_everything(self, five_e: Any) -> None:
        data = five_e_builder()
        data["catalogs"][-2]["entries"][2]["exclusiveDefault"] = True
        ruleset = load_ruleset(data)  # min 0: the step does not take all it offers
        result = build_character(
            ruleset, answers(level={"fields": {"level": 4}}, features={"picks": ["spellbook"]})
        )
        assert step(result, "features")["active"] == ["spellbook"]


class TestOfferedWhenInAGroup:
    def test_read_without_the_steps_picks_of_its_group(self) -> None:
        """004 (1.100): "una dote tomada en lugar de una mejora de puntuación de atributo y
        condicionada a Fuerza 13 no se ofrece con la Fuerza que dio esa mejora"."""
        data = five_e_builder()
        tough = data["catalogs"][-2]["entries"][3]
        data["sheet"]["derived"].append(
            {
                "id": "str_13",
                "label": "Strength 13",
                "op": "stepTable",
                "from": {"abilityScore": "str"},
                "table": [[1, 0], [13, 1]],
            }
        )
        tough["offeredWhen"] = {"derived": "str_13"}
        ruleset = load_ruleset(data)
        scores = {"method": "manual", "scores": {"str": 12}}
        ans = answers(level={"fields": {"level": 4}}, scores=scores, features={"picks": ["asi-4"]})
        ans["choices"] = {"features/asi-4/abilities.0": ["str", "str"]}
        result = build_character(ruleset, ans)
        assert result.card["abilities"]["str"] == 14  # the improvement gave Strength 14…
        assert "tough-4" not in step(result, "features")["offered"]  # …which Tough never reads
        strong = copy.deepcopy(ans)
        strong["steps"]["scores"]["scores"]["str"] = 13
        assert "tough-4" in step(build_character(ruleset, strong), "features")["offered"]
