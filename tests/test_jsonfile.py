"""gmtags/jsonfile.py: the strict JSON every file gmtags reads must be, and how it writes it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gmtags import RulesetError, load_ruleset
from gmtags.builder.answers import load_answers, read_answers
from gmtags.cli import main
from gmtags.errors import AnswersError
from gmtags.jsonfile import (
    DEPTH,
    LONE_SURROGATE,
    JsonTextError,
    data_problem,
    dumps,
    loads,
    lone_surrogate,
)
from gmtags.state.snapshot import load_snapshot
from tests.conftest import FIXTURES, invoke


def nested(depth: int) -> str:
    """An array nested `depth` levels."""
    return "[" * depth + "]" * depth


def refused(text: str, **keys: bool) -> JsonTextError:
    """The error `loads` raises on `text`."""
    with pytest.raises(JsonTextError) as caught:
        loads(text, **keys)
    return caught.value


TEXT = st.text(st.characters(codec="utf-8") | st.sampled_from(["\ud83d", "\ude00", "\\"]))
"""Text with the halves of 😀 (a pair when side by side, else lone) and backslashes."""
CLOCKS = (FIXTURES / "rulesets" / "clocks-default.json").read_text(encoding="utf-8")


class TestLoads:
    def test_depth_100_reads_101_is_refused(self) -> None:
        """Nesting of exactly `DEPTH` levels reads; one more is refused at the bracket."""
        assert loads(nested(DEPTH)) is not None
        with pytest.raises(JsonTextError) as caught:
            loads(nested(DEPTH + 1))
        assert (caught.value.line, caught.value.column) == (1, DEPTH + 1)

    def test_brackets_inside_strings_do_not_count(self) -> None:
        """A string full of brackets (escaped quotes included) is text, not nesting."""
        text = json.dumps({"a": "[{" * 500 + '\\"]' * 10, "b": ["[" * 300]})
        assert loads(text) == json.loads(text)

    def test_place_on_a_later_line(self) -> None:
        """The line and column are where the refused token stands, past strings that look alike."""
        with pytest.raises(JsonTextError) as caught:
            loads('{"NaN": "Infinity",\n "x": [1,\n  -Infinity]}')
        assert (caught.value.line, caught.value.column) == (3, 3)

    def test_unclosed_quotes_are_read_once(self) -> None:
        """Many unclosed quotes after deep brackets cost one pass, not one pass per quote (a
        million quotes read once each; one pass per quote would never end)."""
        text = "[" * (DEPTH + 1) + '"\\"' * 1_000_000
        with pytest.raises(JsonTextError):
            loads(text)

    def test_ordinary_numbers_read_as_json_reads_them(self) -> None:
        """`1e3`, `-0`, `0.5` and a 21-digit integer read exactly as `json` reads them."""
        text = "[1e3, -0, 0.5, 123456789012345678901, -1.5e-300]"
        assert loads(text) == json.loads(text)


class TestRepeatedKeys:
    def test_at_the_top_level(self) -> None:
        """SPEC §8: a key twice in one object is refused, naming the key, at its second time."""
        error = refused('{"id": "a", "name": "x", "id": "b"}')
        assert error.message == 'the key "id" is repeated in one object'
        assert (error.line, error.column) == (1, 26)
        assert str(error) == 'the key "id" is repeated in one object at line 1, column 26'

    def test_nested_on_a_later_line(self) -> None:
        """A repeat deep inside is refused at its own line and column."""
        text = '{"sheet": {\n  "fields": [\n    {"id": "mood",\n     "id": "mood"}]}}'
        error = refused(text)
        assert error.message == 'the key "id" is repeated in one object'
        assert (error.line, error.column) == (4, 6)

    def test_keys_compare_as_read(self) -> None:
        """`"a"` and `"\\u0061"` are the same key once read, so the second is a repeat."""
        error = refused('{"a": 1, "\\u0061": 2}')
        assert (error.message, error.column) == ('the key "a" is repeated in one object', 10)

    def test_the_same_key_in_other_objects_is_no_repeat(self) -> None:
        """Objects side by side, or one inside another, each have their own keys."""
        text = '[{"a": 1}, {"a": 2, "b": {"a": 3, "b": 4}}]'
        assert loads(text) == json.loads(text)

    def test_text_that_looks_like_keys_is_text(self) -> None:
        """A string holding a repeat, or quotes and brackets, is a value, not an object."""
        text = json.dumps({"a": '{"a": 1, "a": 2}', "b": '"[{"', "c": "x\\"})
        assert loads(text) == json.loads(text)

    def test_an_outer_repeat_after_an_inner_object(self) -> None:
        """The repeat named is the first one in the text, whichever object it is in."""
        error = refused('{"a": {"b": 1, "c": 2}, "b": 3,\n "a": 4}')
        assert (error.message, error.line, error.column) == (
            'the key "a" is repeated in one object',
            2,
            2,
        )

    def test_a_long_key_is_cut(self) -> None:
        """A key of thousands of characters is named by its first ones."""
        key = "k" * 5_000
        error = refused(json.dumps({key: 1, "x": 2, **{key: 3}}).replace('"x": 2', f'"{key}": 2'))
        assert error.message == f'the key "{"k" * 57}..." is repeated in one object'

    def test_duplicates_true_reads_the_last(self) -> None:
        """`duplicates=True` reads a repeat as `json` does: the last one wins."""
        assert loads('{"a": 1, "a": 2}', duplicates=True) == {"a": 2}

    def test_a_ruleset_file_with_a_repeated_key(self, tmp_path: Path) -> None:
        """`load_ruleset(path)`: one `RulesetError` at `(file)` naming the key, line, column."""
        file = tmp_path / "twice.json"
        file.write_text(CLOCKS.replace('{\n  "', '{\n  "name": "Twice",\n  "', 1), "utf-8")
        with pytest.raises(RulesetError) as caught:
            load_ruleset(file)
        (problem,) = caught.value.problems
        assert problem.path == "(file)"
        assert problem.message.startswith('the key "name" is repeated in one object at line ')

    def test_validate_names_the_repeated_key(self, tmp_path: Path) -> None:
        """`gmtags validate` on a ruleset with a repeated key: exit 1, the key named."""
        file = tmp_path / "twice.json"
        file.write_text(CLOCKS.replace('{\n  "', '{\n  "id": "twice",\n  "', 1), "utf-8")
        ran = invoke(main, "validate", file)
        assert ran.returncode == 1
        assert '(file): the key "id" is repeated in one object at line ' in ran.stderr
        assert "Traceback" not in ran.stderr

    def test_an_answers_file_with_a_repeated_key(self, tmp_path: Path) -> None:
        """An answers file with a repeated key is refused at `(file)`."""
        file = tmp_path / "answers.json"
        file.write_text('{"v": 1, "steps": {"race": {}, "race": {}}}', "utf-8")
        with pytest.raises(AnswersError) as caught:
            load_answers(file)
        assert [str(p) for p in caught.value.problems] == [
            '(file): the key "race" is repeated in one object at line 1, column 32'
        ]

    def test_a_state_file_with_a_repeated_key(self, tmp_path: Path) -> None:
        """A state file with a repeated key is refused, naming it."""
        file = tmp_path / "state.json"
        file.write_text('{"gameCharacterCards": {}, "gameCharacterCards": {}}', "utf-8")
        with pytest.raises(Exception, match='the key "gameCharacterCards" is repeated'):
            load_snapshot(file)


class TestLoneSurrogates:
    @pytest.mark.parametrize(
        "text",
        ['"\\ud800"', '["a\\udfff"]', '{"\\ud83d": 1}', '"\\ud83d\\ud83d\\ude00"', '"\ud800"'],
        ids=["high", "low", "in a key", "high before a pair", "the character itself"],
    )
    def test_kept_by_default(self, text: str) -> None:
        """By default a lone half is read as `json` reads it (SPEC §8: a chat that holds one
        still works), and `dumps` writes it back as its escape."""
        assert loads(text) == json.loads(text)
        assert loads(dumps(loads(text))) == loads(text)

    @pytest.mark.parametrize(
        ("text", "column"),
        [
            ('"\\ud800"', 2),
            ('["ok", "a\\udfff"]', 10),
            ('{"\\ud83d": 1}', 3),
            ('"\\ud83d\\ud83d\\ude00"', 2),
            ('"\\ud83d\\u0041"', 2),
            ('"x\\\\\\ud800"', 5),
            ('"\\uDBFF"', 2),
            ('"ab\ud800"', 4),
        ],
        ids=[
            "high",
            "low",
            "in a key",
            "high before a pair",
            "high before another escape",
            "after an escaped backslash",
            "upper case",
            "the character itself",
        ],
    )
    def test_refused_when_asked(self, text: str, column: int) -> None:
        """`surrogates=False` refuses a string holding a lone half, escaped or not, where it
        is (the backslash of its escape)."""
        error = refused(text, surrogates=False)
        assert (error.message, error.line, error.column) == (LONE_SURROGATE, 1, column)

    @pytest.mark.parametrize(
        "text",
        ['"\\ud83d\\ude00"', '"\\uD83D\\uDE00"', '"\\\\ud800"', '"\U0001f600é"', '"\\u00e9"'],
        ids=["a pair", "a pair in upper case", "an escaped backslash", "characters", "é"],
    )
    def test_real_characters_are_read(self, text: str) -> None:
        """A pair of halves is one character, and `\\\\ud800` is a backslash and text."""
        assert loads(text, surrogates=False) == json.loads(text)

    @settings(max_examples=200, deadline=None)
    @given(
        value=st.recursive(
            TEXT,
            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
            max_leaves=6,
        ),
        ascii_only=st.booleans(),
    )
    def test_refused_exactly_when_a_string_read_holds_one(
        self, value: Any, ascii_only: bool
    ) -> None:
        """`loads(text, surrogates=False)` refuses exactly the texts whose strings, once read,
        hold a lone half (written escaped, as characters, or as a pair split by another)."""
        text = json.dumps(value, ensure_ascii=ascii_only)
        read = loads(text)
        holds = data_problem(read, surrogates=False) is not None
        assert (lone_surrogate(text) is not None) == holds
        if holds:
            with pytest.raises(JsonTextError):
                loads(text, surrogates=False)
        else:
            assert loads(text, surrogates=False) == read

    def test_a_ruleset_refuses_one(self, tmp_path: Path) -> None:
        """A ruleset file or object holding a lone half is refused, naming where."""
        file = tmp_path / "lone.json"
        file.write_text(CLOCKS.replace('{\n  "', '{\n  "$note": "\\udc00",\n  "', 1), "utf-8")
        with pytest.raises(RulesetError) as caught:
            load_ruleset(file)
        assert [str(p) for p in caught.value.problems] == [
            f"(file): {LONE_SURROGATE} at line 2, column 13"
        ]
        data = json.loads(CLOCKS)
        with pytest.raises(RulesetError) as caught:
            load_ruleset({**data, "name": "Bell \ud83d", "notes": {"\udc00": 1}})
        assert [str(p) for p in caught.value.problems] == [
            f"name: {LONE_SURROGATE}",
            f'notes: the key "\\udc00": {LONE_SURROGATE}',
        ]

    def test_answers_refuse_one(self, tmp_path: Path) -> None:
        """An answers file or object holding a lone half is refused, naming where."""
        file = tmp_path / "answers.json"
        file.write_text('{"v": 1, "steps": {"x": {"fields": {"name": "\\ud800"}}}}', "utf-8")
        with pytest.raises(AnswersError) as caught:
            load_answers(file)
        assert [str(p) for p in caught.value.problems] == [
            f"(file): {LONE_SURROGATE} at line 1, column 46"
        ]
        with pytest.raises(AnswersError) as caught:
            read_answers({"v": 1, "steps": {"x": {"fields": {"name": "\ud800"}}}})
        assert [str(p) for p in caught.value.problems] == [f"steps.x.fields.name: {LONE_SURROGATE}"]

    def test_a_state_keeps_reading_one(self, tmp_path: Path) -> None:
        """A state (which gmtags may have written from a chat holding one) still reads."""
        file = tmp_path / "state.json"
        file.write_text('{"gameCharacterCards": {"Bram \\ud83d": {}}}', "utf-8")
        assert list(load_snapshot(file).game_character_cards) == ["Bram \ud83d"]


class TestDumps:
    def test_lone_surrogates_escaped_pairs_kept(self) -> None:
        """A lone surrogate half goes out as its escape; real characters stay as they are."""
        assert dumps(["\ud83d", "é\U0001f600"], compact=True) == '["\\ud83d","é\U0001f600"]'

    def test_refuses_nan(self) -> None:
        """Strict JSON has no NaN: writing one is a programmer error."""
        with pytest.raises(ValueError, match="JSON compliant"):
            dumps({"x": float("inf")})


class TestDataProblem:
    def test_clean_data_has_none(self) -> None:
        """Data a strict file could hold has no problem."""
        assert data_problem({"a": [1, 2.5, None, True, {"b": "c"}]}) is None

    @pytest.mark.parametrize(
        ("data", "where"),
        [
            ({"a": [0, float("nan")]}, ("a", 1)),
            ({"a": {"b": 10**21}}, ("a", "b")),
            ({"a": {1: 2}}, ("a",)),
        ],
        ids=["nan", "22 digits", "int key"],
    )
    def test_first_problem_and_where(self, data: Any, where: tuple[str | int, ...]) -> None:
        """NaN, an integer past 21 digits and a non-string key are each found at their place."""
        problem = data_problem(data)
        assert problem is not None and problem[0] == where
