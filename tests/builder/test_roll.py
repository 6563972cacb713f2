"""The `roll` step (`gmtags.builder.kinds.roll`; 004 "Tiradas de creación conservadas con sus
dados", BUILDER F4–F9) on the CoC builder sample: Luck 3d6×5, the EDU improvement with
`gain`, a potential with `floor`, wealth kept as the best of 3; and the properties SPEC §10
promises for creation rolls, rows and starting values (order of answering, byte-identical
cards, never raising on answers of the right shape)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gmtags import Ruleset, Snapshot, load_ruleset
from gmtags.builder.build import BuildResult, build_character
from gmtags.builder.dice import Dice, throw
from tests.builder.samples import BUILDERS, step

COC: dict[str, Any] = json.loads((BUILDERS / "coc-builder.json").read_text(encoding="utf-8"))
THREE_D6_X5 = Dice(3, 6, multiplier=5)
CHARACTERISTICS = {"edu": {"faces": [2, 4]}, "pow": {"faces": [4, 3, 6]}}
"""EDU (2+4+6)×5 = 60 and POW (4+3+6)×5 = 65."""


@pytest.fixture(scope="module")
def coc() -> Ruleset:
    return load_ruleset(COC)


def changed(step_id: str, **changes: Any) -> Ruleset:
    data = copy.deepcopy(COC)
    step(data, step_id).update(changes)
    return load_ruleset(data)


def answers(**steps: dict[str, Any]) -> dict[str, Any]:
    return {"v": 1, "seed": 11, "steps": {"characteristics": {"rolls": CHARACTERISTICS}, **steps}}


def entry(result: BuildResult, step_id: str) -> dict[str, Any]:
    return next(s for s in result.steps if s["id"] == step_id)


def rolled(result: BuildResult, step_id: str) -> dict[str, Any]:
    found: dict[str, Any] = result.answers["steps"][step_id]["rolls"]
    return found


def fields(result: BuildResult) -> dict[str, Any]:
    found: dict[str, Any] = result.card.get("fields", {})
    return found


class TestRolls:
    def test_f4_luck_is_3d6_times_5_written_to_its_field(self, coc: Ruleset) -> None:
        """004: a roll step writes each roll into a numeric field: Luck, 3d6 × 5."""
        result = build_character(coc, answers(luck={"rolls": {"luck": {"faces": [3, 5, 2]}}}))
        assert fields(result)["luck"] == 50
        assert entry(result, "luck")["rolls"]["luck"] == {
            "faces": [3, 5, 2],
            "kept": [3, 5, 2],
            "total": 50,
            "result": 50,
        }

    def test_f9_a_new_roll_comes_from_the_seed_with_its_faces_kept(self, coc: Ruleset) -> None:
        """SPEC §10: a missing roll is made from the seed on its own stream and recorded."""
        result = build_character(coc, answers())
        faces = throw(THREE_D6_X5, 11, "luck", "luck").faces
        assert rolled(result, "luck")["luck"] == {"faces": list(faces), "attempt": 0}
        assert fields(result)["luck"] == sum(faces) * 5

    def test_f9_a_recorded_roll_is_never_redrawn(self, coc: Ruleset) -> None:
        """004: reopening the builder never rolls again, whatever the seed says now."""
        first = build_character(coc, answers())
        again = copy.deepcopy(first.answers)
        again["seed"] = 12
        reopened = build_character(coc, again, first.card)
        assert fields(reopened)["luck"] == fields(first)["luck"]
        assert rolled(reopened, "luck") == rolled(first, "luck")

    def test_f9_retry_raises_the_attempt(self, coc: Ruleset) -> None:
        """004: only a step with `retry: true` offers rolling again: a raised `attempt`
        without faces is thrown on that attempt's own stream."""
        result = build_character(coc, answers(potential={"rolls": {"potential": {"attempt": 1}}}))
        faces = throw(THREE_D6_X5, 11, "potential", "potential", 1).faces
        assert rolled(result, "potential")["potential"] == {"faces": list(faces), "attempt": 1}

    def test_f9_no_retry_without_retry(self, coc: Ruleset) -> None:
        """A raised attempt on a step without `retry` is a problem; the first roll stands."""
        result = build_character(coc, answers(luck={"rolls": {"luck": {"attempt": 2}}}))
        assert [p["path"] for p in result.problems] == ["steps.luck.rolls.luck.attempt"]
        first = throw(THREE_D6_X5, 11, "luck", "luck", 0).faces
        assert rolled(result, "luck")["luck"] == {"faces": list(first), "attempt": 0}

    def test_f9_faces_that_do_not_fit_are_neither_read_nor_redrawn(self, coc: Ruleset) -> None:
        result = build_character(coc, answers(luck={"rolls": {"luck": {"faces": [7, 1, 1]}}}))
        assert [p["path"] for p in result.problems] == ["steps.luck.rolls.luck.faces"]
        assert "luck" not in fields(result)
        assert entry(result, "luck")["pending"] == 1
        assert rolled(result, "luck")["luck"] == {"faces": [7, 1, 1], "attempt": 0}

    def test_f5_best_of_3_keeps_every_tries_faces(self, coc: Ruleset) -> None:
        """004: `best` rolls that many times and keeps the best; every try's faces are kept."""
        tries = [{"faces": [1, 2]}, {"faces": [6, 5]}, {"faces": [3, 3]}]
        result = build_character(coc, answers(wealth={"rolls": {"wealth": {"tries": tries}}}))
        assert fields(result)["wealth"] == 110
        assert rolled(result, "wealth")["wealth"] == {"tries": tries, "attempt": 0}
        assert entry(result, "wealth")["rolls"]["wealth"]["kept"] == [6, 5]

    def test_f5_missing_tries_are_thrown_on_their_own_streams(self, coc: Ruleset) -> None:
        result = build_character(coc, answers())
        dice = Dice(2, 6, multiplier=10)
        tries = [throw(dice, 11, "wealth", "wealth", 0, trial) for trial in range(3)]
        assert rolled(result, "wealth")["wealth"]["tries"] == [
            {"faces": list(t.faces)} for t in tries
        ]
        assert fields(result)["wealth"] == max(t.total for t in tries)
        partial = answers(wealth={"rolls": {"wealth": {"tries": [{"faces": [6, 6]}]}}})
        made = rolled(build_character(coc, partial), "wealth")["wealth"]["tries"]
        assert made == [{"faces": [6, 6]}, *[{"faces": list(t.faces)} for t in tries[1:]]]

    def test_f5_a_best_roll_keeps_tries_not_faces(self, coc: Ruleset) -> None:
        result = build_character(coc, answers(wealth={"rolls": {"wealth": {"faces": [6, 6]}}}))
        assert [p["path"] for p in result.problems] == ["steps.wealth.rolls.wealth.faces"]
        assert "wealth" not in fields(result)

    def test_f6_floor_a_potential_never_below_its_characteristic(self, coc: Ruleset) -> None:
        """004: `floor` (a Ref) is the least result: a potential never below POW (65)."""
        low = build_character(
            coc, answers(potential={"rolls": {"potential": {"faces": [1, 1, 1]}}})
        )
        assert fields(low)["potential"] == 65
        high = answers(potential={"rolls": {"potential": {"faces": [6, 6, 6]}}})
        assert fields(build_character(coc, high))["potential"] == 90

    def test_f6_a_fixed_floor(self) -> None:
        """004: "1 punto de golpe": a fixed `floor`."""
        ruleset = changed(
            "luck", rolls=[{"field": "luck", "dice": {"count": 1, "sides": 6}, "floor": 4}]
        )
        result = build_character(ruleset, answers(luck={"rolls": {"luck": {"faces": [2]}}}))
        assert fields(result)["luck"] == 4

    def test_f7_the_edu_improvement_adds_gain_only_when_it_beats_edu(self, coc: Ruleset) -> None:
        """004: `gain` makes the roll an improvement check against the value that adds gain only
        when the roll beats it (CoC EDU 60: 61 adds 1d10, 60 adds nothing)."""
        beats = {"edu": {"faces": [61]}, "edu/gain": {"faces": [7]}}
        result = build_character(coc, answers(improvement={"rolls": beats}))
        assert result.card["abilities"]["edu"] == 67
        assert entry(result, "improvement")["rolls"]["edu"]["gain"]["result"] == 7
        equal = build_character(coc, answers(improvement={"rolls": {"edu": {"faces": [60]}}}))
        assert equal.card["abilities"]["edu"] == 60
        assert "edu/gain" not in rolled(equal, "improvement")

    def test_f7_the_gain_die_is_thrown_only_when_the_check_succeeds(self, coc: Ruleset) -> None:
        result = build_character(coc, answers(improvement={"rolls": {"edu": {"faces": [99]}}}))
        gain = throw(Dice(1, 10), 11, "improvement", "edu/gain").faces
        assert rolled(result, "improvement")["edu/gain"] == {"faces": list(gain), "attempt": 0}
        assert result.card["abilities"]["edu"] == 60 + gain[0]

    def test_f8_the_gain_is_kept_as_a_raise_over_a_new_score(self, coc: Ruleset) -> None:
        """BUILDER F8: with gain, the raise stays on top when the score is rolled again."""
        beats = {"edu": {"faces": [61]}, "edu/gain": {"faces": [7]}}
        ans = answers(improvement={"rolls": beats})
        ans["steps"]["characteristics"]["rolls"] = {**CHARACTERISTICS, "edu": {"faces": [1, 1]}}
        assert build_character(coc, ans).card["abilities"]["edu"] == 47  # (1+1+6)×5 + 7

    def test_f8_results_are_clamped_to_the_targets_limits(self, coc: Ruleset) -> None:
        """EDU 95 + 10 stops at the ability's max (99); Luck stops at its field's max."""
        ans = answers(improvement={"rolls": {"edu": {"faces": [98]}, "edu/gain": {"faces": [10]}}})
        ans["steps"]["characteristics"]["rolls"] = {**CHARACTERISTICS, "edu": {"faces": [6, 6]}}
        assert build_character(coc, ans).card["abilities"]["edu"] == 99
        big = changed(
            "luck", rolls=[{"field": "luck", "dice": {"count": 1, "sides": 6, "add": 200}}]
        )
        assert fields(build_character(big, answers()))["luck"] == 99

    def test_f8_an_ability_rolled_without_gain_is_its_base_score(self) -> None:
        """An ability roll without gain sets the score the picks' raises build on."""
        ruleset = changed(
            "luck", rolls=[{"ability": "str", "dice": {"count": 3, "sides": 6, "multiplier": 5}}]
        )
        result = build_character(ruleset, answers(luck={"rolls": {"str": {"faces": [6, 6, 6]}}}))
        assert result.card["abilities"]["str"] == 90
        assert entry(result, "luck")["active"] == ["str"]

    def test_f8_a_hand_edit_is_kept_until_the_roll_changes(self, coc: Ruleset) -> None:
        """SPEC §10: a rolled value the player changed by hand is kept until the builder's own
        answer for it changes (here a retry, which the potential step allows)."""
        ans = answers(potential={"rolls": {"potential": {"faces": [6, 6, 6]}}})
        card = copy.deepcopy(build_character(coc, ans).card)
        card["fields"]["potential"] = 70
        assert fields(build_character(coc, ans, card))["potential"] == 70
        retried = answers(potential={"rolls": {"potential": {"attempt": 1}}})
        again = build_character(coc, retried, card)
        assert again.dropped == [{"path": "fields.potential", "value": 70}]
        retry = throw(THREE_D6_X5, 11, "potential", "potential", 1)
        assert fields(again)["potential"] == max(retry.total, 65)

    def test_f9_never_rolled_for_a_described_character(self, coc: Ruleset) -> None:
        result = build_character(coc, {**answers(), "described": True})
        assert "luck" not in fields(result)
        assert "luck" not in result.answers["steps"]

    def test_rolls_keep_their_streams_across_builds_of_other_steps(self, coc: Ruleset) -> None:
        """Answering another step never changes a roll not yet made (SPEC §10)."""
        bare = build_character(coc, answers())
        other = build_character(coc, answers(retainers={"rows": [{"name": "Bob"}]}))
        assert rolled(bare, "luck") == rolled(other, "luck")


# -- properties -------------------------------------------------------------------------

PROPERTY = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

STEP_ANSWERS: dict[str, dict[str, Any]] = {
    "luck": {"rolls": {"luck": {"faces": [2, 2, 5]}}},
    "improvement": {},
    "potential": {"rolls": {"potential": {"attempt": 2}}},
    "wealth": {},
    "retainers": {"rows": [{"name": "Bob"}, {"name": "Bob", "loyalty": 1}]},
    "start": {"set": 1},
}

ORDERS = st.permutations(list(STEP_ANSWERS))


def in_order(order: list[str]) -> dict[str, Any]:
    return {"v": 1, "seed": 3, "steps": {name: STEP_ANSWERS[name] for name in order}}


@PROPERTY
@given(order=ORDERS)
def test_rolls_are_the_same_whatever_order_the_steps_are_answered_in(
    coc: Ruleset, order: list[str]
) -> None:
    """Answering the steps one at a time in any order, each build taking the answers the one
    before made, ends with the rolls (and the card) of answering them all at once."""
    whole = build_character(coc, in_order(list(STEP_ANSWERS)))
    so_far: dict[str, Any] = {"v": 1, "seed": 3, "steps": {}}
    card = None
    for name in order:
        so_far["steps"][name] = {**so_far["steps"].get(name, {}), **STEP_ANSWERS[name]}
        built = build_character(coc, so_far, card)
        so_far, card = copy.deepcopy(built.answers), built.card
    for name in ("characteristics", "luck", "improvement", "potential", "wealth"):
        assert so_far["steps"][name]["rolls"] == whole.answers["steps"][name]["rolls"]
    assert {k: v for k, v in card.items() if k != "builder"} == {
        k: v for k, v in whole.card.items() if k != "builder"
    }


@PROPERTY
@given(order=ORDERS, seed=st.integers(0, 2**63 - 1))
def test_the_same_answers_and_seed_give_the_same_card_byte_for_byte(
    coc: Ruleset, order: list[str], seed: int
) -> None:
    ans = {**in_order(order), "seed": seed}
    first = json.dumps(build_character(coc, ans).card)
    assert json.dumps(build_character(coc, copy.deepcopy(ans)).card) == first


FACES = st.lists(st.integers(-2, 120), min_size=1, max_size=4)
ROLL = st.one_of(
    st.fixed_dictionaries({"faces": FACES}, optional={"attempt": st.integers(0, 99)}),
    st.fixed_dictionaries(
        {"tries": st.lists(st.fixed_dictionaries({"faces": FACES}), min_size=1, max_size=3)},
        optional={"attempt": st.integers(0, 99)},
    ),
    st.fixed_dictionaries({}, optional={"attempt": st.integers(0, 99)}),
)
CELL = st.one_of(
    st.booleans(), st.integers(-5, 50), st.floats(-5, 50), st.text(max_size=90), st.none()
)
ROW = st.dictionaries(
    st.sampled_from(["name", "role", "loyalty", "roll", "level", "other"]),
    CELL.filter(lambda v: v is not None),
    max_size=4,
)
ANSWER = st.fixed_dictionaries(
    {},
    optional={
        "rolls": st.dictionaries(
            st.sampled_from(["luck", "edu", "edu/gain", "potential", "wealth", "str", "x"]),
            ROLL,
            max_size=3,
        ),
        "rows": st.lists(ROW, max_size=7),
        "visited": st.booleans(),
        "set": st.integers(0, 3),
    },
)
ANY_ANSWERS = st.fixed_dictionaries(
    {
        "v": st.just(1),
        "seed": st.integers(0, 2**63 - 1),
        "steps": st.dictionaries(
            st.sampled_from([*STEP_ANSWERS, "characteristics", "nothing"]), ANSWER, max_size=5
        ),
    },
    optional={"described": st.booleans()},
)


@PROPERTY
@given(ans=ANY_ANSWERS, record=st.sampled_from([None, {"start": 1}, {"start": {"set": 1}}]))
def test_building_never_raises_on_answers_of_the_right_shape(
    coc: Ruleset, ans: dict[str, Any], record: Any
) -> None:
    """Odd rolls, rows, visits and confirmations (and an odd record on the card) build:
    every problem is a value, and the card plays."""
    card = None if record is None else {"builder": {"initialize": record}}
    result = build_character(coc, ans, card)
    Snapshot.model_validate({"gameCharacterCards": {"X": result.card}})
    build_character(coc, result.answers, result.card)
