"""Described characters (BUILDER H1–H2, §3.20, §3.24; 004 "Un personaje creado sin el
creador"): a filled card with no builder record opens described, its picks record what it is
and change nothing until Done; afterwards unpicking takes back what the described pick gave."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gmtags import Ruleset, load_ruleset
from gmtags.builder.build import BuildResult, build_character
from tests.builder import samples
from tests.builder.test_allocate import DOTS, PRIORITIES
from tests.builder.test_initialize import COC, POW_65
from tests.conftest import FIXTURES

SCORES = {"str": 8, "dex": 16, "con": 12, "int": 10, "wis": 13, "cha": 11}
ELF_CARD: dict[str, Any] = {"abilities": SCORES, "fields": {"race": "Elf", "class": "Wizard"}}


def answers(**steps: dict[str, Any]) -> dict[str, Any]:
    return {"v": 1, "seed": 7, "steps": steps}


def without_record(card: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in card.items() if k != "builder"}


def same_values(result: BuildResult, card: dict[str, Any]) -> bool:
    """The card came back byte for byte, the builder record aside."""
    return json.dumps(without_record(result.card)) == json.dumps(card)


def step(result: BuildResult, step_id: str) -> dict[str, Any]:
    return next(s for s in result.steps if s["id"] == step_id)


class TestOpening:
    def test_h1_a_filled_card_opens_described_and_nothing_changes(self, five_e: Ruleset) -> None:
        """004: "las selecciones registran lo que el personaje ya es … y no cambian nada"."""
        card = copy.deepcopy(ELF_CARD)
        result = build_character(five_e, answers(race={"picks": ["elf"]}), card)
        assert same_values(result, ELF_CARD)
        assert result.card["builder"] == {"answers": result.answers}
        assert result.answers["described"] is True
        assert step(result, "race")["active"] == ["elf"]  # the pick is recorded
        assert card == ELF_CARD  # the card given is not touched

    def test_h1_described_true_keeps_it(self, five_e: Ruleset) -> None:
        first = build_character(five_e, answers(race={"picks": ["elf"]}), ELF_CARD)
        again = build_character(five_e, {**first.answers, "steps": {}}, first.card)
        assert same_values(again, ELF_CARD) and again.answers["described"] is True
        kept = build_character(five_e, {**answers(race={"picks": ["dwarf"]}), "described": True})
        assert "abilities" not in without_record(kept.card) or kept.card["abilities"] == {}

    def test_h1_absent_on_a_described_record_stays_described(self, five_e: Ruleset) -> None:
        first = build_character(five_e, answers(race={"picks": ["elf"]}), ELF_CARD)
        again = build_character(five_e, answers(race={"picks": ["dwarf"]}), first.card)
        assert same_values(again, ELF_CARD) and again.answers["described"] is True

    def test_h1_a_blank_card_never_opens_described(self, five_e: Ruleset) -> None:
        for card in (None, {}, {"abilities": dict.fromkeys(SCORES, 8)}):
            result = build_character(five_e, answers(race={"picks": ["elf"]}), card)
            assert "described" not in result.answers
            assert result.card["abilities"]["dex"] == 10  # the elf's +2 on point buy's 8

    def test_h1_a_builder_card_is_not_described(self, five_e: Ruleset) -> None:
        built = build_character(five_e, answers(race={"picks": ["elf"]}))
        again = build_character(five_e, answers(race={"picks": ["dwarf"]}), built.card)
        assert "described" not in again.answers and again.card["abilities"]["con"] == 10


class TestDone:
    def test_h1_done_then_unpicking_the_race_removes_its_gain(self, five_e: Ruleset) -> None:
        """004: "A partir de entonces, cambiar una selección retira lo que dio la descrita"."""
        described = build_character(five_e, answers(race={"picks": ["elf"]}), ELF_CARD)
        done = build_character(five_e, {**described.answers, "described": False}, described.card)
        assert done.card["abilities"] == SCORES  # the +2 was already in the 16
        unpicked = build_character(five_e, {**done.answers, "steps": {}}, done.card)
        assert unpicked.card["abilities"] == {**SCORES, "dex": 14}

    def test_h1_done_swapping_the_race_moves_the_gain(self, five_e: Ruleset) -> None:
        described = build_character(five_e, answers(race={"picks": ["elf"]}), ELF_CARD)
        done = build_character(five_e, {**described.answers, "described": False}, described.card)
        swapped = build_character(
            five_e, {**done.answers, "steps": {"race": {"picks": ["dwarf"]}}}, done.card
        )
        assert swapped.card["abilities"] == {**SCORES, "dex": 14, "con": 14}

    def test_3_24_the_base_is_clamped_at_the_ability_min(self, five_e: Ruleset) -> None:
        low = {"abilities": {**SCORES, "dex": 2}}
        described = build_character(five_e, answers(race={"picks": ["elf"]}), low)
        done = build_character(five_e, {**described.answers, "described": False}, described.card)
        assert done.card["builder"]["under"]["abilities.dex"] == 1  # 2 - 2 held at min 1
        assert done.card["abilities"]["dex"] == 3  # so the clamped base reads min + gain
        unpicked = build_character(five_e, {**done.answers, "steps": {}}, done.card)
        assert unpicked.card["abilities"]["dex"] == 1


class TestWhileDescribed:
    def test_h2_no_default_method(self, five_e: Ruleset) -> None:
        card = {"fields": {"race": "Elf"}}
        result = build_character(five_e, answers(), card)
        assert result.answers["described"] is True and same_values(result, card)
        assert step(result, "scores")["active"] == []
        assert "abilities" not in result.card

    def test_h2_no_rolls(self, five_e: Ruleset) -> None:
        result = build_character(five_e, answers(scores={"method": "roll"}), ELF_CARD)
        assert same_values(result, ELF_CARD)
        assert "rolls" not in result.answers["steps"]["scores"]

    def test_h2_no_rows_from_count_from(self) -> None:
        ruleset = load_ruleset(samples.five_e())
        card = {"fields": {"level": 5, "race": "Elf"}}
        result = build_character(ruleset, answers(hit_points={"visited": True}), card)
        assert result.answers["described"] is True and same_values(result, card)
        assert "rows" not in result.answers["steps"]["hit_points"]

    def test_h2_no_initialize_writes(self) -> None:
        ruleset = load_ruleset(COC)
        card = {"fields": {"name": "Harvey"}}
        rolls = {"pow": {"faces": POW_65}}
        given = answers(characteristics={"rolls": rolls}, start={"set": 1})
        result = build_character(ruleset, given, card)
        assert result.answers["described"] is True and same_values(result, card)


PICKS = st.fixed_dictionaries(
    {},
    optional={
        "race": st.sampled_from(["elf", "dwarf", "half-elf"]).map(lambda p: {"picks": [p]}),
        "class": st.sampled_from(["wizard", "fighter"]).map(lambda p: {"picks": [p]}),
        "scores": st.sampled_from(["pointBuy", "standardArray", "roll", "manual"]).map(
            lambda m: {"method": m}
        ),
        "skills": st.just({"visited": True}),
    },
)


class TestProperties:
    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(steps=PICKS, keep=st.booleans())
    def test_while_described_any_answers_leave_the_values(
        self, five_e: Ruleset, steps: dict[str, Any], keep: bool
    ) -> None:
        given_answers = answers(**steps)
        if keep:
            given_answers["described"] = True
        result = build_character(five_e, given_answers, ELF_CARD)
        assert same_values(result, ELF_CARD)
        assert result.answers["described"] is True


def _hand_written(card: dict[str, Any]) -> dict[str, Any]:
    """A card as a player writes it by hand: no builder record, no marks on rows or lines."""
    plain = copy.deepcopy(without_record(card))
    plain.pop("picks", None)
    for rows in [*plain.get("lists", {}).values(), plain.get("items", [])]:
        for row in rows:
            for key in [key for key in row if key.startswith("_")]:
                del row[key]
    return plain


@pytest.fixture(scope="module")
def sample() -> Ruleset:
    """The bundled 5e builder sample (fixtures/rulesets/builder/5e-builder.json)."""
    return load_ruleset(samples.BUILDERS / "5e-builder.json")


class TestDoneTakesBackEverything:
    """§3.24: after Done, what a described pick gave is the builder's, so unpicking takes back
    its training, the fields it set and its rows, not only its ability raises."""

    ANSWERS = json.loads((FIXTURES / "answers" / "5e-half-elf-wizard.json").read_text("utf-8"))

    def done(self, ruleset: Ruleset) -> BuildResult:
        card = _hand_written(build_character(ruleset, self.ANSWERS).card)
        described = build_character(ruleset, self.ANSWERS, card)
        assert described.answers["described"] is True
        return build_character(ruleset, {**self.ANSWERS, "described": False}, described.card)

    def test_done_changes_nothing_and_writes_no_row_twice(self, sample: Ruleset) -> None:
        built = build_character(sample, self.ANSWERS).card
        done = self.done(sample).card
        for section in ("abilities", "skills", "saves", "fields"):
            assert done.get(section) == built.get(section)
        assert _hand_written(done)["lists"] == _hand_written(built)["lists"]
        assert _hand_written(done).get("items") == _hand_written(built).get("items")

    def test_unpicking_after_done_is_building_without_the_pick(self, sample: Ruleset) -> None:
        done = self.done(sample)
        steps = {**done.answers["steps"], "race": {"picks": []}}
        unpicked = build_character(sample, {**done.answers, "steps": steps}, done.card)
        fresh = build_character(sample, {**self.ANSWERS, "steps": steps}).card
        for section in ("abilities", "skills", "saves"):
            assert unpicked.card.get(section) == fresh.get(section), section
        # Initialize writes keep the values of their last "Set" (SPEC §10), so hit points
        # set with the half-elf's Constitution stay until Set again.
        kept = {"hp_max"}
        assert {k: v for k, v in unpicked.card["fields"].items() if k not in kept} == {
            k: v for k, v in fresh["fields"].items() if k not in kept
        }
        assert _hand_written(unpicked.card)["lists"] == _hand_written(fresh)["lists"]

    def test_a_value_the_card_holds_otherwise_stays_the_players(self, sample: Ruleset) -> None:
        """A speed written by hand as 35 is not what the half-elf sets: it stays, unpicked."""
        card = _hand_written(build_character(sample, self.ANSWERS).card)
        card["fields"]["speed"] = 35
        described = build_character(sample, self.ANSWERS, card)
        done = build_character(sample, {**self.ANSWERS, "described": False}, described.card)
        steps = {**done.answers["steps"], "race": {"picks": []}}
        unpicked = build_character(sample, {**done.answers, "steps": steps}, done.card)
        assert done.card["fields"]["speed"] == unpicked.card["fields"]["speed"] == 35


class TestDoneAllocate:
    """H2: an allocate step "records without rewriting (also at Done)": at Done the card keeps
    its values, and a dot moved afterwards moves the value it goes to by one."""

    def test_done_keeps_the_card_and_a_moved_dot_moves_one(self) -> None:
        ruleset = load_ruleset(samples.BUILDERS / "vtm-builder.json")
        given = {"v": 1, "seed": 3, "steps": {"attributes": {"priorities": PRIORITIES}}}
        given["steps"]["attributes"]["dots"] = dict(DOTS)
        scores = dict(build_character(ruleset, given).card["abilities"])
        scores["strength"] += 1  # the described character is stronger than its dots say
        card = {"abilities": scores}
        described = build_character(ruleset, given, card)
        assert described.answers["described"] is True
        done = build_character(ruleset, {**described.answers, "described": False}, described.card)
        assert done.card["abilities"] == scores
        moved = copy.deepcopy(done.answers)
        moved["steps"]["attributes"]["dots"].update({"ability/dexterity": 3, "ability/stamina": 1})
        after = build_character(ruleset, moved, done.card).card["abilities"]
        assert after == {
            **scores,
            "dexterity": scores["dexterity"] + 1,
            "stamina": scores["stamina"] - 1,
        }
