"""`build_character` on input of any JSON type (SPEC §1: it raises only `RulesetError` and
`AnswersError` "on bad input of any JSON type, never `TypeError`, `KeyError` or
`RecursionError`"; SPEC §8: "answers of the wrong shape (`null`, a number, a list where an
object belongs) raise `AnswersError`"), for the answers, the card built on and the members,
on every bundled example builder; and answers naming a step the builder does not have (SPEC
§10: `res.problems` "for answers naming nothing real; never raised")."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gmtags import AnswersError, Ruleset, build_character, load_ruleset
from gmtags.builder.build import BuildResult
from gmtags.errors import Problem, json_path
from gmtags.ruleset.builder import Builder
from tests.conftest import FIXTURES
from tests.json_values import JSON, replaced_somewhere

BUILDERS = FIXTURES / "rulesets" / "builder"
FIVE_E = load_ruleset(BUILDERS / "5e-builder.json")
CREW = load_ruleset(BUILDERS / "crew-builder.json")
POINTS = load_ruleset(BUILDERS / "points-builder.json")
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


def builder_of(ruleset: Ruleset) -> tuple[Builder, bool]:
    """The ruleset's builder: its character builder, else its party sheet's (then a build
    is a party build)."""
    if ruleset.sheet.builder_model is not None:
        return ruleset.sheet.builder_model, False
    assert ruleset.party is not None and ruleset.party.builder_model is not None
    return ruleset.party.builder_model, True


EXAMPLES = {path.stem: load_ruleset(path) for path in sorted(BUILDERS.glob("*.json"))}
"""Every bundled example builder (`fixtures/rulesets/builder/`), by name."""
NO_STEP = "not a step of this builder"


def build_any(ruleset: Ruleset, answers: Any) -> BuildResult:
    """`build_character` with its builder's answers (a party build on no members)."""
    _, party = builder_of(ruleset)
    return build_character(ruleset, answers, party=party, members={} if party else None)


def shaped(ruleset: Ruleset) -> dict[str, Any]:
    """Answers of the right shape holding every answer key the document has, under each of
    the builder's steps: a document whose every part a property test can put anything in."""
    model, _ = builder_of(ruleset)
    answer = {
        "picks": ["x"],
        "fields": {"f": 1, "g": "text", "h": True, "i": 1.5},
        "method": "manual",
        "scores": {"str": 10},
        "kits": ["k"],
        "priorities": {"g": 0},
        "dots": {"ability/str": 1},
        "buys": {"o": 1},
        "rows": [{"name": "Bob"}],
        "visited": True,
        "rolls": {"r": {"faces": [3, 4], "attempt": 0}, "b": {"tries": [{"faces": [1]}]}},
        "set": 1,
    }
    steps = {step.id: copy.deepcopy(answer) for step in model.steps}
    return {"v": 1, "seed": 5, "described": False, "steps": steps, "choices": {"a/b": ["c"]}}


class TestEveryExampleBuilder:
    @pytest.mark.parametrize("name", list(EXAMPLES))
    @PROPERTY
    @given(answers=JSON)
    def test_any_json_value_as_the_answers(self, name: str, answers: Any) -> None:
        """SPEC §8: any JSON value (nested objects and arrays of any scalar) as the answers
        to any bundled builder builds, or raises `AnswersError` with each problem at a path;
        never another exception."""
        try:
            res = build_any(EXAMPLES[name], answers)
        except AnswersError as error:
            assert error.problems and all(p.path and p.message for p in error.problems)
        else:
            assert all(set(p) == {"path", "message"} for p in res.problems)

    @pytest.mark.parametrize("name", list(EXAMPLES))
    @PROPERTY
    @given(data=st.data())
    def test_any_json_anywhere_in_answers_of_the_right_shape(
        self, name: str, data: st.DataObject
    ) -> None:
        """A step's answer of the wrong JSON type at any depth (any JSON value put at any
        place of answers of the right shape) builds, or is refused with `AnswersError` at that
        place or inside it: never another exception, never a problem somewhere else."""
        ruleset = EXAMPLES[name]
        at, answers = data.draw(replaced_somewhere(shaped(ruleset)))
        place = json_path(at)
        try:
            build_any(ruleset, answers)
        except AnswersError as error:
            assert error.problems
            for problem in error.problems:
                assert problem.path == place or problem.path.startswith(place + "."), problem

    @pytest.mark.parametrize("name", list(EXAMPLES))
    def test_the_shaped_answers_build(self, name: str) -> None:
        """The document the property above changes is itself of the right shape (so a
        refusal there is the changed place's) and names only real steps."""
        res = build_any(EXAMPLES[name], shaped(EXAMPLES[name]))
        assert set(res.answers["steps"]) == set(shaped(EXAMPLES[name])["steps"])
        assert [p for p in res.problems if p["message"] == NO_STEP] == []


def without_record(res: BuildResult) -> dict[str, Any]:
    """What a build gives besides its answers and problems (the card without its builder
    record, which keeps the answers)."""
    card = {key: value for key, value in res.card.items() if key != "builder"}
    return {
        "card": card,
        "pending": res.pending,
        "steps": res.steps,
        "pools": res.pools,
        "ledger": res.ledger,
        "profile": res.profile,
        "dropped": res.dropped,
    }


class TestAnswersNamingNoStep:
    def test_an_unknown_step_is_a_problem_at_its_path(self) -> None:
        """SPEC §10: `res.problems` lists "answers naming nothing real; never raised": an
        answer to a step the builder does not have is one problem at `steps.<id>`."""
        answers = {**WIZARD, "steps": {**WIZARD["steps"], "spells": {"picks": ["fireball"]}}}
        res = build_character(FIVE_E, answers)
        assert res.problems == [{"path": "steps.spells", "message": NO_STEP}]

    def test_the_answers_to_real_steps_still_apply(self) -> None:
        """004: "Next y Back siguen disponibles incluso con elecciones incompletas o no
        válidas": an answer to no step loses nothing else; the card, badges, pools and
        ledger are the ones the real answers build, and the answer stays in `res.answers`."""
        answers = {**WIZARD, "steps": {"Race": {"picks": ["elf"]}, **WIZARD["steps"]}}
        res = build_character(FIVE_E, answers)
        alone = build_character(FIVE_E, WIZARD)
        assert without_record(res) == without_record(alone)
        assert res.card["fields"]["class"] == "Wizard"
        assert res.answers["steps"]["Race"] == {"picks": ["elf"]}
        assert res.card["builder"]["answers"]["steps"]["Race"] == {"picks": ["elf"]}

    def test_every_unknown_step_in_the_order_written(self) -> None:
        """Each answer naming no step is its own problem, in the answers' order, after the
        problems of the real steps' answers."""
        steps = {"zeta": {}, "level": {"fields": {"level": "four"}}, "alpha": {"visited": True}}
        res = build_character(FIVE_E, {"v": 1, "seed": 1, "steps": steps})
        assert res.problems == [
            {"path": "steps.level.fields.level", "message": "does not fit field 'level'"},
            {"path": "steps.zeta", "message": NO_STEP},
            {"path": "steps.alpha", "message": NO_STEP},
        ]

    def test_a_hidden_step_is_a_real_one(self) -> None:
        """004: a step a profile does not list "solo se muestra mientras el perfil del
        personaje sea uno de los que lo enumeran; sus respuestas se conservan mientras está
        oculto y no conceden nada": an answer to it names a real step, no problem."""
        res = build_character(POINTS, {"v": 1, "seed": 1, "steps": {"aspect_gifts": {}}})
        hidden = next(step for step in res.steps if step["id"] == "aspect_gifts")
        assert not hidden["shown"]
        assert res.problems == []
        assert res.answers["steps"]["aspect_gifts"] == {}

    def test_a_party_build_knows_the_party_builder_s_steps(self) -> None:
        """With `party`, the steps are the party builder's: one of them is real, and an
        answer to no step of it is a problem while the real ones still apply."""
        real = {"crew_type": {"picks": ["shadows"]}}
        steps = {**real, "crew_typo": {"picks": ["shadows"]}}
        res = build_character(CREW, {"v": 1, "seed": 1, "steps": steps}, party=True, members={})
        alone = build_character(CREW, {"v": 1, "seed": 1, "steps": real}, party=True, members={})
        assert res.problems == [{"path": "steps.crew_typo", "message": NO_STEP}]
        assert alone.problems == []
        assert without_record(res) == without_record(alone)

    @pytest.mark.parametrize("name", list(EXAMPLES))
    def test_every_example_builder(self, name: str) -> None:
        """On every bundled builder, an answer to each of its steps is no problem and one to
        a step it lacks is."""
        model, _ = builder_of(EXAMPLES[name])
        steps: dict[str, Any] = {step.id: {} for step in model.steps}
        res = build_any(EXAMPLES[name], {"v": 1, "seed": 1, "steps": {**steps, "nowhere": {}}})
        assert [p for p in res.problems if p["path"].count(".") <= 1] == [
            {"path": "steps.nowhere", "message": NO_STEP}
        ]
