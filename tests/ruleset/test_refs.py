"""Value references, numbers and step tables: the shapes every number reader has (002, 004)."""

from __future__ import annotations

import itertools
import math
from typing import Annotated, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from gmtags.ruleset.refs import (
    ItemStat,
    ListSum,
    Number,
    RulesetValueRef,
    Scalar,
    StepRow,
    StepTable,
    ascending_steps,
    number_between,
    step_lookup,
)

NUMBER = TypeAdapter(Number)
UNIT = TypeAdapter(Annotated[Number, number_between(0, 1)])
SCALAR = TypeAdapter(Scalar)
ROW = TypeAdapter(StepRow)
TABLE = TypeAdapter(StepTable)

ID_KEYS = (
    "field",
    "derived",
    "abilityScore",
    "abilityMod",
    "abilityModFromField",
    "skillMod",
    "saveMod",
    "livePool",
    "liveTrack",
)
"""002: the keys that name one sheet id."""


def error_types(adapter: TypeAdapter[Any] | type[Any], value: object) -> list[str]:
    """The pydantic error types `value` raises, or [] when it validates."""
    try:
        if isinstance(adapter, TypeAdapter):
            adapter.validate_python(value)
        else:
            adapter.model_validate(value)
    except ValidationError as error:
        return [problem["type"] for problem in error.errors()]
    return []


def counting_where(equals: object) -> dict[str, Any]:
    """A listSum counting the rows whose `k` cell equals `equals`."""
    return {"list": "gear", "count": True, "where": {"column": "k", "equals": equals}}


def ref(data: dict[str, Any]) -> RulesetValueRef:
    return RulesetValueRef.model_validate(data)


class TestNumber:
    @pytest.mark.parametrize("value", [0, -3, 2, 2.5, -0.0, 1e308, 10**30])
    def test_finite_numbers_pass_unchanged(self, value: float) -> None:
        """A finite number is kept as given: an int stays an int, so a sheet shows `2`."""
        got = NUMBER.validate_python(value)
        assert got == value and type(got) is type(value)

    @pytest.mark.parametrize("value", [True, False, "2", None, [1], {"const": 1}])
    def test_non_numbers_are_refused(self, value: object) -> None:
        """Booleans, strings, null and containers are not numbers."""
        assert error_types(NUMBER, value) == ["number_type"]

    @pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
    def test_non_finite_numbers_are_refused(self, value: float) -> None:
        """SCHEMA-NOTES §4: NaN and the infinities are not finite numbers."""
        assert error_types(NUMBER, value) == ["finite_number"]


class TestNumberBetween:
    @pytest.mark.parametrize("value", [0, 1, 0.5, -0.0, 1.0])
    def test_bounds_are_inclusive(self, value: float) -> None:
        """Both ends of [low, high] are allowed."""
        assert UNIT.validate_python(value) == value

    @pytest.mark.parametrize("value", [-1, 1.0001, 2, -1e-9, 10**30])
    def test_outside_is_refused_with_the_bounds(self, value: float) -> None:
        """A number outside the range is refused, and the message names both bounds."""
        with pytest.raises(ValidationError) as raised:
            UNIT.validate_python(value)
        (problem,) = raised.value.errors()
        assert problem["type"] == "number_range" and problem["msg"] == "must be from 0 to 1"
        assert problem["ctx"] == {"low": 0, "high": 1}

    def test_a_non_number_is_refused_before_the_range(self) -> None:
        """The range applies after the number check: a boolean is refused as not a number."""
        assert error_types(UNIT, True) == ["number_type"]

    def test_each_validator_keeps_its_own_bounds(self) -> None:
        """Two ranges made one after the other do not share bounds."""
        small = TypeAdapter(Annotated[Number, number_between(0, 1)])
        large = TypeAdapter(Annotated[Number, number_between(5, 10)])
        assert error_types(small, 7) == ["number_range"] and error_types(large, 7) == []


class TestScalar:
    @pytest.mark.parametrize("value", ["", "x" * 80, "Ćwiczenie", True, False, 0, -2.5])
    def test_values_a_cell_can_hold(self, value: object) -> None:
        """A text of at most 80 characters, a finite number or a boolean is kept as given."""
        got = SCALAR.validate_python(value)
        assert got == value and type(got) is type(value)

    @pytest.mark.parametrize(
        ("value", "error"),
        [
            ("x" * 81, "scalar_length"),
            ("x" * 10_000, "scalar_length"),
            (math.nan, "finite_number"),
            (None, "number_type"),
            ([1], "number_type"),
        ],
    )
    def test_other_values_are_refused(self, value: object, error: str) -> None:
        """Longer text, non-finite numbers, null and lists are not scalars."""
        assert error_types(SCALAR, value) == [error]


class TestStepRow:
    def test_pair_is_held_as_a_tuple_and_written_as_an_array(self) -> None:
        """A `[threshold, value]` row is a tuple in Python and a JSON array in a file."""
        row = ROW.validate_python([3, -1.5])
        assert row == (3, -1.5)
        assert ROW.dump_json(row) == b"[3,-1.5]" and ROW.dump_python(row) == (3, -1.5)

    @pytest.mark.parametrize(
        ("value", "error"),
        [
            ([1], "step_row"),
            ([1, 2, 3], "step_row"),
            ([], "step_row"),
            ("12", "step_row"),
            ({"0": 1, "1": 2}, "step_row"),
            ([1, True], "number_type"),
            (["1", 2], "number_type"),
            ([math.inf, 2], "finite_number"),
        ],
    )
    def test_malformed_rows_are_refused(self, value: object, error: str) -> None:
        """A row is exactly two finite numbers."""
        assert error_types(ROW, value) == [error]


class TestStepTable:
    def test_rows_ascending(self) -> None:
        """Strictly ascending thresholds load, negative and fractional ones too."""
        assert TABLE.validate_json("[[-5, 0], [0.5, 1], [3, 2]]") == [(-5, 0), (0.5, 1), (3, 2)]

    @pytest.mark.parametrize(
        "table", [[[3, 1], [3, 2]], [[3, 1], [2, 2]], [[1, 0], [5, 0], [4, 0]]]
    )
    def test_thresholds_must_strictly_ascend(self, table: list[list[int]]) -> None:
        """SCHEMA-NOTES §4: a repeated or falling threshold is refused."""
        assert error_types(TABLE, table) == ["step_order"]

    def test_one_to_a_hundred_rows(self) -> None:
        """SCHEMA-NOTES §4: 1–100 rows; none and 101 are refused."""
        assert len(TABLE.validate_python([[i, i] for i in range(100)])) == 100
        assert len(TABLE.validate_python([[0, 7]])) == 1
        assert error_types(TABLE, []) == ["too_short"]
        assert error_types(TABLE, [[i, i] for i in range(101)]) == ["too_long"]

    def test_ascending_steps_passes_the_table_through(self) -> None:
        """`ascending_steps` returns the same table when it is in order; any short table is."""
        table = [(1, 5), (2, 3)]
        assert ascending_steps(table) is table
        assert ascending_steps([]) == [] and ascending_steps([(9, 9)]) == [(9, 9)]


class TestStepLookup:
    TABLE = [(3, 1), (6, 2), (10, 4)]

    @pytest.mark.parametrize(
        ("number", "value"),
        [(-100, 1), (0, 1), (2.99, 1), (3, 1), (5, 1), (6, 2), (9.5, 2), (10, 4), (10**9, 4)],
    )
    def test_highest_threshold_at_or_below(self, number: float, value: int) -> None:
        """The value at the highest threshold ≤ the number; below the first, the first value."""
        assert step_lookup(self.TABLE, number) == value

    def test_single_row(self) -> None:
        """A one-row table gives its value for every number."""
        assert {step_lookup([(0, 7)], n) for n in (-1, 0, 1)} == {7}

    @settings(max_examples=60, deadline=None)
    @given(
        thresholds=st.lists(st.integers(-1000, 1000), min_size=1, max_size=100, unique=True),
        values=st.lists(st.integers(-50, 50), min_size=100, max_size=100),
        number=st.floats(-2000, 2000),
    )
    def test_matches_the_rule(
        self, thresholds: list[int], values: list[int], number: float
    ) -> None:
        """Any valid table and number: the last row at or below the number, else the first row."""
        table = TABLE.validate_python(
            [[t, v] for t, v in zip(sorted(thresholds), values[: len(thresholds)], strict=True)]
        )
        at_or_below = [value for threshold, value in table if threshold <= number]
        assert step_lookup(table, number) == (at_or_below[-1] if at_or_below else table[0][1])


class TestStepTableProperties:
    @settings(max_examples=60, deadline=None)
    @given(
        rows=st.lists(
            st.tuples(st.integers(-5, 5) | st.floats(-5, 5), st.integers(-5, 5)), max_size=110
        )
    )
    def test_loads_exactly_when_ascending_and_sized(self, rows: list[tuple[float, int]]) -> None:
        """Any rows load exactly when there are 1–100 and the thresholds strictly ascend."""
        ascending = all(a[0] < b[0] for a, b in itertools.pairwise(rows))
        assert (error_types(TABLE, [list(row) for row in rows]) == []) == (
            ascending and 1 <= len(rows) <= 100
        )


class TestListSum:
    @pytest.mark.parametrize(
        "data",
        [
            {"list": "gear", "column": "bulk"},
            {"list": "gear", "column": "bulk", "count": False},
            {"list": "gear", "column": "bulk", "onlyWhen": "packed"},
            {"list": "talents", "count": True},
            {"list": "talents", "count": True, "where": {"column": "tier", "equals": 2}},
            {"list": "talents", "count": True, "where": {"column": "kind", "equals": "x" * 80}},
        ],
    )
    def test_sum_a_column_or_count_rows(self, data: dict[str, Any]) -> None:
        """004: a listSum sums one column or counts rows (`count: true`), optionally filtered."""
        assert error_types(ListSum, data) == []

    @pytest.mark.parametrize(
        "data",
        [
            {"list": "gear"},
            {"list": "gear", "count": False},
            {"list": "gear", "column": "bulk", "count": True},
        ],
    )
    def test_exactly_one_of_column_and_count(self, data: dict[str, Any]) -> None:
        """Neither, both, or `count: false` without a column is refused."""
        assert error_types(ListSum, data) == ["list_sum_shape"]

    def test_where_keeps_the_scalar_as_given(self) -> None:
        """`where.equals` compares with a scalar: a boolean stays a boolean, not 1."""
        where = ListSum.model_validate(
            {"list": "gear", "count": True, "where": {"column": "worn", "equals": True}}
        ).where
        assert where is not None and where.equals is True

    @pytest.mark.parametrize(
        ("data", "error"),
        [
            (counting_where("x" * 81), "scalar_length"),
            (counting_where(None), "number_type"),
            ({"list": "gear", "count": "true"}, "bool_type"),
            ({"list": "gear", "column": "bulk", "only_when": "packed"}, "extra_forbidden"),
            ({"column": "bulk"}, "missing"),
        ],
    )
    def test_hostile_shapes_are_refused(self, data: dict[str, Any], error: str) -> None:
        """Long or null filter values, a string count, Python names and no list are refused."""
        assert error in error_types(ListSum, data)


class TestItemStat:
    @pytest.mark.parametrize(
        "data",
        [
            {"from": "worn", "pick": "count"},
            {"from": "carried", "pick": "sum", "stat": "weight"},
            {"from": "all", "pick": "max", "stat": "armor", "slot": "body", "default": 0},
            {"from": "worn", "pick": "min", "stat": "ac", "category": "shield", "tag": "magic"},
        ],
    )
    def test_item_reads(self, data: dict[str, Any]) -> None:
        """SCHEMA-NOTES §4: which items, how to pick, and the stat read."""
        assert error_types(ItemStat, data) == []

    @pytest.mark.parametrize("pick", ["sum", "max", "min"])
    def test_stat_is_needed_unless_counting(self, pick: str) -> None:
        """Only `pick: count` may leave out `stat`."""
        assert error_types(ItemStat, {"from": "worn", "pick": pick}) == ["item_stat"]

    @pytest.mark.parametrize(
        ("data", "error"),
        [
            ({"from": "stashed", "pick": "count"}, "literal_error"),
            ({"from": "worn", "pick": "avg", "stat": "ac"}, "literal_error"),
            ({"from_": "worn", "pick": "count"}, "extra_forbidden"),
            ({"from": "worn", "pick": "count", "default": math.nan}, "finite_number"),
        ],
    )
    def test_hostile_shapes_are_refused(self, data: dict[str, Any], error: str) -> None:
        """Unknown sources and picks, the Python name `from_` and a NaN default are refused."""
        assert error in error_types(ItemStat, data)


class TestRulesetValueRef:
    @pytest.mark.parametrize("key", ID_KEYS)
    def test_id_keys_name_their_target(self, key: str) -> None:
        """002: an id reference reports its key as the file spells it and the id it names."""
        got = ref({key: "grit_max"})
        assert (got.key, got.target) == (key, "grit_max")

    @pytest.mark.parametrize(
        "data",
        [
            {"const": 2},
            {"listSum": {"list": "gear", "column": "bulk"}},
            {"itemStat": {"from": "worn", "pick": "count"}},
        ],
    )
    def test_other_keys_name_no_target(self, data: dict[str, Any]) -> None:
        """const, listSum and itemStat name no single id."""
        got = ref(data)
        assert got.key == next(iter(data)) and got.target is None

    def test_const_zero_is_a_key(self) -> None:
        """`{"const": 0}` is a reference: a zero is given, only a null is absent."""
        assert ref({"const": 0}).key == "const"

    def test_null_counts_as_absent(self) -> None:
        """A key set to null does not count, beside another key or alone."""
        assert ref({"const": 1, "field": None, "read": None}).key == "const"
        assert error_types(RulesetValueRef, {"field": None}) == ["value_ref_keys"]

    @pytest.mark.parametrize(
        "data",
        [{}, {"const": 1, "field": "grit"}, {"derived": "a", "abilityMod": "b", "livePool": "c"}],
    )
    def test_exactly_one_key(self, data: dict[str, Any]) -> None:
        """No key or two keys is refused."""
        assert error_types(RulesetValueRef, data) == ["value_ref_keys"]

    @pytest.mark.parametrize("read", ["value", "filled", "remaining", "penalty"])
    def test_read_beside_live_track(self, read: str) -> None:
        """002: `read` says what a liveTrack reads, and is not a key of its own."""
        got = ref({"liveTrack": "harm", "read": read})
        assert (got.key, got.target, got.track_read) == ("liveTrack", "harm", read)

    def test_read_defaults_to_value(self) -> None:
        """A liveTrack without `read` reads the value."""
        assert ref({"liveTrack": "harm"}).track_read == "value"

    @pytest.mark.parametrize(
        ("data", "error"),
        [
            ({"livePool": "grit", "read": "value"}, "value_ref_read"),
            ({"read": "value"}, "value_ref_keys"),
        ],
    )
    def test_read_only_beside_live_track(self, data: dict[str, Any], error: str) -> None:
        """`read` beside any other key is refused; alone it is no reference at all."""
        assert error_types(RulesetValueRef, data) == [error]

    @pytest.mark.parametrize(
        ("data", "error"),
        [
            ({"liveTrack": "harm", "read": "max"}, "literal_error"),
            ({"const": True}, "number_type"),
            ({"const": "2"}, "number_type"),
            ({"const": math.inf}, "finite_number"),
            ({"ability_mod": "grit"}, "extra_forbidden"),
            ({"liveState": "stance"}, "extra_forbidden"),
            ({"field": "Grit"}, "string_pattern_mismatch"),
            ({"field": "1grit"}, "string_pattern_mismatch"),
            ({"field": "grit\n"}, "string_pattern_mismatch"),
            ({"field": "gr it"}, "string_pattern_mismatch"),
            ({"field": "grït"}, "string_pattern_mismatch"),
            ({"field": ""}, "string_pattern_mismatch"),
            ({"field": '"]'}, "string_pattern_mismatch"),
            ({"field": "g" * 41}, "string_too_long"),
            ({"field": "g" * 10_000}, "string_too_long"),
            ({"field": 3}, "string_type"),
        ],
    )
    def test_hostile_references_are_refused(self, data: dict[str, Any], error: str) -> None:
        """Unknown reads, non-numbers, Python names, unknown keys and ids that are not ids."""
        assert error in error_types(RulesetValueRef, data)

    def test_longest_id(self) -> None:
        """An id may be 40 characters long."""
        assert ref({"derived": "g" * 40}).target == "g" * 40


FINITE = st.integers() | st.floats(allow_nan=False, allow_infinity=False)
IDS = st.from_regex(r"[a-z][a-z0-9_]{0,39}", fullmatch=True)
REFS = st.one_of(
    st.builds(lambda key, target: {key: target}, st.sampled_from(ID_KEYS), IDS),
    st.builds(lambda value: {"const": value}, FINITE),
    st.builds(
        lambda target, read: {"liveTrack": target, "read": read},
        IDS,
        st.sampled_from(["value", "filled", "remaining", "penalty"]),
    ),
    st.builds(lambda lst, col: {"listSum": {"list": lst, "column": col}}, IDS, IDS),
    st.builds(lambda stat: {"itemStat": {"from": "all", "pick": "max", "stat": stat}}, IDS),
)


class TestRulesetValueRefProperties:
    @settings(max_examples=100, deadline=None)
    @given(data=REFS)
    def test_round_trip(self, data: dict[str, Any]) -> None:
        """Any valid reference reports its key and writes back to the same JSON it was read from."""
        got = ref(data)
        assert got.key == next(iter(data))
        assert got.model_dump(mode="json", by_alias=True, exclude_none=True) == data
        assert (
            RulesetValueRef.model_validate_json(
                got.model_dump_json(by_alias=True, exclude_none=True)
            )
            == got
        )

    @settings(max_examples=100, deadline=None)
    @given(first=REFS, second=REFS)
    def test_two_keys_never_load(self, first: dict[str, Any], second: dict[str, Any]) -> None:
        """Any two different keys together are refused."""
        both = {**first, **second}
        keys = set(both) - {"read"}
        if len(keys) > 1:
            assert error_types(RulesetValueRef, both) != []
