"""`build_character` on input of any JSON type (SPEC §1: it raises only `RulesetError` and
`AnswersError` "on bad input of any JSON type, never `TypeError`, `KeyError` or
`RecursionError`"; SPEC §8: "answers of the wrong shape (`null`, a number, a list where an
object belongs) raise `AnswersError`"), for the answers, the card built on and the members."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gmtags import AnswersError, build_character, load_ruleset
from gmtags.errors import Problem
from tests.conftest import FIXTURES
from tests.json_values import JSON, replaced_somewhere

FIVE_E = load_ruleset(FIXTURES / "rulesets" / "builder" / "5e-builder.json")
CREW = load_ruleset(FIXTURES / "rulesets" / "builder" / "crew-builder.json")
WIZARD: dict[str, Any] = json.loads(
    (FIXTURES / "answers" / "5e-half-elf-wizard.json").read_text(encoding="utf-8")
)
WIZARD_CARD = build_character(FIVE_E, WIZARD).card
STEPS = [step.id for step in FIVE_E.sheet.builder_model.steps]  # type: ignore[union-attr]
ANSWER_KEYS = ["picks", "fields", "method", "scores", "kits", "priorities", "dots", "buys"]
ANSWER_KEYS += ["rows", "visited", "rolls", "set"]

PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def problems(answers: Any, card: Any = None, **keys: Any) -> list[Problem]:
    """What `build_character` refuses, from the one `AnswersError` it raises."""
    with pytest.raises(AnswersError) as caught:
        build_character(keys.pop("ruleset", FIVE_E), answers, card, **keys)
    return list(caught.value.problems)


class TestAnswersOfAnyType:
    @pytest.mark.parametrize(
        ("answers", "called"),
        [
            (None, "null"),
            (5, "a number"),
            (2.5, "a number"),
            ("answers", "a string"),
            (True, "a boolean"),
            ([], "an array"),
            ([{"v": 1}], "an array"),
        ],
        ids=["null", "int", "float", "string", "bool", "empty list", "list"],
    )
    def test_not_an_object_is_one_problem_at_the_root(self, answers: Any, called: str) -> None:
        """Answers that are no JSON object are one `AnswersError` at `(root)`, never a
        `TypeError` or `ValueError` from reading them as a mapping."""
        message = f"the answers are a JSON object, not {called}"
        assert problems(answers) == [Problem("(root)", message)]

    @pytest.mark.parametrize(
        ("answers", "path"),
        [
            ({"v": 1, "steps": []}, "steps"),
            ({"v": 1, "steps": {"race": 5}}, "steps.race"),
            ({"v": 1, "steps": {"race": {"picks": "elf"}}}, "steps.race.picks"),
            ({"v": 1, "steps": {"race": {"picks": [None]}}}, "steps.race.picks.0"),
            ({"v": 1, "steps": {"level": {"fields": []}}}, "steps.level.fields"),
            ({"v": 1, "choices": []}, "choices"),
            ({"v": 1, "choices": {"race/x": "dex"}}, "choices.race/x"),
            ({"v": 1, "seed": "42"}, "seed"),
        ],
    )
    def test_a_wrong_type_inside_is_refused_at_its_path(self, answers: Any, path: str) -> None:
        """A list where an object belongs (and the like) deep inside is refused where it is."""
        assert [problem.path for problem in problems(answers)] == [path]

    @PROPERTY
    @given(answers=JSON)
    def test_any_json_value(self, answers: Any) -> None:
        """Any JSON value as the answers builds or raises `AnswersError`, nothing else."""
        try:
            build_character(FIVE_E, answers)
        except AnswersError as error:
            assert error.problems

    @PROPERTY
    @given(
        steps=st.dictionaries(
            st.sampled_from(STEPS),
            JSON | st.dictionaries(st.sampled_from(ANSWER_KEYS), JSON, max_size=3),
            max_size=3,
        ),
        choices=JSON,
    )
    def test_any_json_inside_real_steps(self, steps: dict[str, Any], choices: Any) -> None:
        """Any JSON value under the keys a real step reads builds or raises `AnswersError`."""
        try:
            build_character(FIVE_E, {"v": 1, "seed": 3, "steps": steps, "choices": choices})
        except AnswersError as error:
            assert error.problems


class TestCardOfAnyType:
    @pytest.mark.parametrize("card", [5, "card", [WIZARD_CARD], True])
    def test_not_an_object(self, card: Any) -> None:
        """A card that is no JSON object is refused at `card`, never an `AttributeError`."""
        assert problems(WIZARD, card) == [Problem("card", "a card is a JSON object")]

    @pytest.mark.parametrize(
        ("card", "path"),
        [
            ({"fields": 0}, "card.fields"),
            ({"abilities": [1]}, "card.abilities"),
            ({"picks": 5}, "card.picks"),
            ({"lists": "x"}, "card.lists"),
            ({"items": {}}, "card.items"),
        ],
    )
    def test_a_section_of_the_wrong_type(self, card: dict[str, Any], path: str) -> None:
        """A section of the wrong type is refused at its path under `card`."""
        assert [problem.path for problem in problems(WIZARD, card)] == [path]

    def test_a_party_sheet_of_the_wrong_type(self) -> None:
        """With `party`, the party sheet is held to a party sheet's shape."""
        found = problems({"v": 1}, {"fields": []}, ruleset=CREW, party=True, members={})
        assert [problem.path for problem in found] == ["card.fields"]

    @pytest.mark.parametrize("members", [5, "Vex", [{}]])
    def test_members_that_are_no_object(self, members: Any) -> None:
        """Members that are no object of cards are refused at `members`."""
        found = problems({"v": 1}, None, ruleset=CREW, party=True, members=members)
        assert [problem.path for problem in found] == ["members"]

    @pytest.mark.parametrize(
        "record",
        [
            5,
            [],
            {"writes": [{}]},
            {"writes": {"abilities.str": [1], "x.y": 2, "fields": 3}},
            {"under": "x"},
            {"writes": {"picks": 7}},
            {"allocations": [1]},
            {"initialize": 3},
        ],
    )
    def test_a_builder_record_it_did_not_write_reads_as_none(self, record: Any) -> None:
        """The builder record comes back in a card the player may have edited: a part of it
        that is not the shape the builder writes is read as never written."""
        card = {**WIZARD_CARD, "builder": record}
        assert build_character(FIVE_E, WIZARD, card).problems == []

    @PROPERTY
    @given(changed=replaced_somewhere(WIZARD_CARD))
    def test_any_json_anywhere_in_a_built_card(self, changed: tuple[Any, Any]) -> None:
        """A built card with any JSON value put anywhere in it (its builder record included)
        builds on or raises `AnswersError`, nothing else."""
        _, card = changed
        try:
            build_character(FIVE_E, WIZARD, card)
        except AnswersError as error:
            assert all(problem.path.startswith("card") for problem in error.problems)
