"""gmtags/jsonfile.py: the strict JSON every file gmtags reads must be, and how it writes it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gmtags.jsonfile import DEPTH, JsonTextError, data_problem, dumps, loads


def nested(depth: int) -> str:
    """An array nested `depth` levels."""
    return "[" * depth + "]" * depth


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
