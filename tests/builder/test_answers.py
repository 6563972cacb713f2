"""The builder's answers document (SPEC §10): its shape, refused at every path at once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gmtags import AnswersError
from gmtags.builder.answers import Answers, load_answers, read_answers

SPEC_EXAMPLE: dict[str, Any] = {
    "v": 1,
    "seed": 42,
    "described": False,
    "steps": {
        "race": {"picks": ["half-elf"]},
        "level": {"fields": {"level": 1, "background": "Sage"}},
        "scores": {"method": "pointBuy", "scores": {"str": 8, "dex": 14}},
        "gear": {"kits": ["explorer"]},
        "attributes": {
            "priorities": {"physical": 0, "social": 1, "mental": 2},
            "dots": {"ability/str": 2},
        },
        "occupation": {"buys": {"accounting": 3, "st": -2}},
        "retainers": {"rows": [{"name": "Bob"}], "visited": True},
        "luck": {"rolls": {"luck": {"faces": [3, 5, 2], "attempt": 0}}},
        "start": {"set": 1},
    },
    "choices": {
        "race/half-elf/abilities.0": ["dex", "con"],
        "skills/choose.0": ["arcana", "history"],
    },
}
"""SPEC §10's own answers document, word for word."""


def refused(data: Any) -> list[str]:
    """Every path `read_answers` refuses `data` at, sorted, from one call."""
    with pytest.raises(AnswersError) as caught:
        read_answers(data)
    return sorted(problem.path for problem in caught.value.problems)


def answers(**steps: dict[str, Any]) -> dict[str, Any]:
    return {"v": 1, "steps": steps}


class TestShape:
    def test_the_spec_example(self) -> None:
        """SPEC §10's example reads, every part where it was written."""
        read = read_answers(SPEC_EXAMPLE)
        assert read.seed == 42 and read.described is False
        assert read.step("race").picks == ["half-elf"]
        assert read.step("scores").method == "pointBuy"
        assert read.step("occupation").buys == {"accounting": 3, "st": -2}
        luck = read.step("luck").rolls
        assert luck is not None and luck["luck"].faces == [3, 5, 2]
        assert read.choices["skills/choose.0"] == ["arcana", "history"]

    def test_round_trip(self) -> None:
        """What `to_json` writes reads back to the same answers, keys not given left out."""
        read = read_answers(SPEC_EXAMPLE)
        assert json.loads(read.to_json()) == SPEC_EXAMPLE
        assert read_answers(json.loads(read.to_json())) == read

    def test_the_smallest_document(self) -> None:
        """Only `v` is required; a step nobody answered is an empty answer."""
        read = read_answers({"v": 1})
        assert read.steps == {} and read.step("race").picks is None
        assert read.to_json() == '{"v": 1, "steps": {}, "choices": {}}'

    def test_a_best_roll_keeps_its_tries(self) -> None:
        tries = {"tries": [{"faces": [1, 2]}, {"faces": [6, 6]}]}
        read = read_answers(answers(luck={"rolls": {"luck": tries}}))
        roll = (read.step("luck").rolls or {})["luck"]
        assert roll.tries is not None and [t.faces for t in roll.tries] == [[1, 2], [6, 6]]

    def test_an_attempt_alone_asks_for_the_retry(self) -> None:
        read = read_answers(answers(luck={"rolls": {"luck": {"attempt": 1}}}))
        assert (read.step("luck").rolls or {})["luck"].faces is None


class TestRefused:
    def test_version(self) -> None:
        assert refused({}) == ["v"]
        assert refused({"v": 2}) == ["v"]
        assert refused({"v": "1"}) == ["v"]

    def test_not_an_object(self) -> None:
        assert refused([]) == ["(root)"]

    def test_unknown_keys_at_their_paths(self) -> None:
        """A misspelt key is refused, not silently ignored."""
        data = {"v": 1, "seeds": 1, "steps": {"race": {"pick": ["elf"]}}}
        assert refused(data) == ["seeds", "steps.race.pick"]

    def test_an_empty_key_is_named(self) -> None:
        """An unknown key named "" is refused at a path that names it (`""`), not at an
        empty path that names no place, and a step named "" at `steps.""`."""
        assert refused({"v": 1, "": 1}) == ['""']
        assert refused({"v": 1, "steps": {"race": {"": []}}}) == ['steps.race.""']
        assert refused({"v": 1, "steps": {"": {}}}) == ['steps."".[key]']

    def test_wrong_types(self) -> None:
        data = answers(
            race={"picks": "elf"},
            scores={"method": "luck", "scores": {"str": "8"}},
            retainers={"visited": "yes"},
        )
        assert refused(data) == [
            "steps.race.picks",
            "steps.retainers.visited",
            "steps.scores.method",
            "steps.scores.scores.str",
        ]

    def test_a_boolean_is_not_a_number(self) -> None:
        assert refused({"v": 1, "seed": True}) == ["seed"]
        assert refused(answers(scores={"scores": {"str": True}})) == ["steps.scores.scores.str"]

    def test_bounds(self) -> None:
        data = {
            "v": 1,
            "seed": 2**63,
            "steps": {
                "attributes": {"priorities": {"physical": -1}},
                "occupation": {"buys": {"accounting": 1_000_001}},
                "start": {"set": -1},
                "luck": {"rolls": {"luck": {"faces": [1], "attempt": 100}}},
            },
        }
        assert refused(data) == [
            "seed",
            "steps.attributes.priorities.physical",
            "steps.luck.rolls.luck.attempt",
            "steps.occupation.buys.accounting",
            "steps.start.set",
        ]

    def test_target_keys(self) -> None:
        """`dots` are keyed ability/…, skill/…, save/…, field/… or bonus/…."""
        data = answers(attributes={"dots": {"ability/str": 1, "str": 2, "trait/x": 1}})
        paths = refused(data)
        assert len(paths) == 2 and all(p.startswith("steps.attributes.dots.") for p in paths)

    def test_faces_or_tries(self) -> None:
        roll = {"faces": [1], "tries": [{"faces": [2]}]}
        assert refused(answers(luck={"rolls": {"luck": roll}})) == ["steps.luck.rolls.luck"]

    def test_counts(self) -> None:
        """No answers document can make the builder work without end."""
        data = {
            "v": 1,
            "steps": {f"s{n}": {} for n in range(33)},
            "choices": {"skills/choose.0": ["x"] * 61},
        }
        assert refused(data) == ["choices.skills/choose.0", "steps"]

    def test_non_finite_and_deep_objects(self) -> None:
        """An object handed over is held to a file's rules (strict JSON), at its path."""
        assert refused(answers(level={"fields": {"level": float("nan")}})) == [
            "steps.level.fields.level"
        ]
        deep: Any = []
        for _ in range(500):
            deep = [deep]
        assert refused({"v": 1, "steps": {"x": {"rows": deep}}})[0].startswith("steps.x.rows.0")


class TestFiles:
    def test_a_file_reads(self, tmp_path: Path) -> None:
        file = tmp_path / "answers.json"
        file.write_text(json.dumps(SPEC_EXAMPLE), encoding="utf-8")
        assert load_answers(file) == read_answers(SPEC_EXAMPLE)

    @pytest.mark.parametrize(
        ("text", "message"),
        [
            ('{"v": 1, "seed": NaN}', "NaN is not allowed"),
            ('{"v": 1, "seed": ' + "9" * 40 + "}", "an integer of 40 digits"),
            ("[" * 5000 + "]" * 5000, "nested deeper than 100"),
            ('{"v": 1,', "line 1"),
        ],
    )
    def test_hostile_files_are_one_problem_at_the_file(
        self, tmp_path: Path, text: str, message: str
    ) -> None:
        file = tmp_path / "answers.json"
        file.write_text(text, encoding="utf-8")
        with pytest.raises(AnswersError) as caught:
            load_answers(file)
        (problem,) = caught.value.problems
        assert problem.path == "(file)" and message in problem.message

    def test_not_utf8(self, tmp_path: Path) -> None:
        file = tmp_path / "answers.json"
        file.write_bytes(b'{"v": 1, "x": "\xff"}')
        with pytest.raises(AnswersError) as caught:
            load_answers(file)
        assert [str(p) for p in caught.value.problems] == ["(file): not UTF-8 text at byte 15"]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
KEYS = st.sampled_from(["picks", "fields", "method", "scores", "kits", "dots", "rows", "set"])


@settings(max_examples=300, deadline=None)
@given(
    data=st.fixed_dictionaries(
        {"v": st.sampled_from([1, 1, 2])},
        optional={
            "seed": JSON,
            "steps": st.dictionaries(st.text(max_size=6), st.dictionaries(KEYS, JSON), max_size=3),
            "choices": JSON,
        },
    )
)
def test_any_document_reads_or_is_refused_with_paths(data: dict[str, Any]) -> None:
    """No JSON value raises anything but `AnswersError`, and one that reads round-trips."""
    try:
        read = read_answers(data)
    except AnswersError as error:
        assert error.problems and all(problem.path for problem in error.problems)
        return
    assert isinstance(read, Answers)
    assert read_answers(json.loads(read.to_json())) == read
