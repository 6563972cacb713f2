"""gmtags/transcript/jsontext.py: editing one value of a JSON text in place."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gmtags import jsonfile
from gmtags.transcript.jsontext import Edit, apply_all, dump, rewrite, splice, splice_all
from gmtags.transcript.jsontext import Path as JsonPath

KEYS = st.sampled_from(["a", "b", "mes", "extra", "gmtags", "é", 'k"q'])
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(codec="utf-8") | st.sampled_from(["\ud800", "\n", "\u2028"]))
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=12,
)
OBJECTS = st.dictionaries(KEYS, VALUES, max_size=5)


def loads(text: str) -> Any:
    """A chat line's text read as `gmtags.transcript.chat` reads it (a repeated key kept)."""
    return jsonfile.loads(text, duplicates=True)


@st.composite
def spelled(draw: st.DrawFn, data: dict[str, Any]) -> str:
    """`data` as JSON text: as gmtags writes it, or spelled some other way a file may hold."""
    how = draw(st.sampled_from(["dump", "spaces", "ascii", "repeated"]))
    if how == "dump":
        return dump(data)
    if how == "spaces":
        return json.dumps(data, ensure_ascii=False, indent=draw(st.sampled_from([None, 1, "\t"])))
    if how == "ascii":
        return json.dumps(data, separators=(",", ":"))
    if not data:
        return "{ }"
    # A repeated key: an earlier member the last one overrides, as JSON readers read it.
    key = draw(st.sampled_from(sorted(data)))
    return "{" + dump(key) + ": 0," + dump(data)[1:]


@st.composite
def path_in(draw: st.DrawFn, value: Any, depth: int = 0) -> list[str | int]:
    """A path that exists in `value`, goes on past its end, or stops at a value."""
    choices = ["stop"] if depth else []
    if isinstance(value, dict):
        choices += ["key", "new"] if value else ["new"]
    elif isinstance(value, list) and value:
        choices.append("index")
    elif depth:
        choices.append("new")  # a member set inside a value that is not an object
    step = draw(st.sampled_from(choices or ["new"]))
    if step == "stop":
        return []
    if step == "index":
        assert isinstance(value, list)
        index = draw(st.integers(0, len(value) - 1))
        return [index, *draw(path_in(value[index], depth + 1))]
    if step == "key":
        assert isinstance(value, dict)
        key = draw(st.sampled_from(sorted(value)))
        return [key, *draw(path_in(value[key], depth + 1))]
    return draw(st.lists(KEYS, min_size=1, max_size=2))


@st.composite
def edited(draw: st.DrawFn) -> tuple[str, Any, list[Edit]]:
    """An object's text, its parse, and edits that do not lie inside one another."""
    data = draw(OBJECTS)
    text = draw(spelled(data))
    edits: list[Edit] = [
        (draw(path_in(data)), draw(VALUES)) for _ in range(draw(st.integers(1, 4)))
    ]
    return text, loads(text), edits


def unchanged(value: Any) -> str:
    """`value` spelled with its key order, to see that nothing was changed in place."""
    return json.dumps(value)


class TestApplyAll:
    @settings(max_examples=400, deadline=None)
    @given(case=edited())
    def test_the_data_follows_the_text(self, case: tuple[str, Any, list[Edit]]) -> None:
        """Issue 16: editing the parse gives the parse of the edited text, key order included,
        and leaves the parse it started from as it was."""
        text, data, edits = case
        before = unchanged(data)
        try:
            spliced = splice_all(text, edits)
        except ValueError:
            assume(False)  # edits inside a value another sets: refused, a programmer error
        after = apply_all(data, edits)
        assert unchanged(after) == unchanged(loads(spliced))
        assert unchanged(data) == before

    @settings(max_examples=400, deadline=None)
    @given(case=edited())
    def test_rewrite_writes_what_the_splice_writes(self, case: tuple[str, Any, list[Edit]]) -> None:
        """Issue 16: a line written again whole when it is spelled as gmtags spells it, and
        spliced otherwise, is byte for byte the spliced line."""
        text, data, edits = case
        try:
            spliced = splice_all(text, edits)
        except ValueError:
            assume(False)
        assert rewrite(text, data, apply_all(data, edits), edits) == spliced

    def test_a_value_that_is_not_an_object_becomes_one(self) -> None:
        """A member set inside a string replaces the string with an object, as the splice does."""
        edits: list[Edit] = [(("extra", "gmtags"), {"seed": 1})]
        text = '{"extra":"x","n":1}'
        assert apply_all(loads(text), edits) == loads(splice_all(text, edits))
        assert apply_all(loads(text), edits)["extra"] == {"gmtags": {"seed": 1}}

    def test_shares_what_it_does_not_edit(self) -> None:
        """Only the containers on the paths are copied; the rest is the same object."""
        data = {"swipes": ["a"], "extra": {"api": "x"}, "info": [{"k": 1}, {"k": 2}]}
        path: JsonPath = ("info", 1, "k")
        after = apply_all(data, [(path, 3)])
        assert after["swipes"] is data["swipes"] and after["extra"] is data["extra"]
        assert after["info"][0] is data["info"][0] and after["info"][1] == {"k": 3}


class TestSplice:
    def test_replaces_only_the_named_value(self) -> None:
        """Every byte outside the edited value stays as written, odd spellings included."""
        text = '{"a": 1.0, "b":{"x":1e3,"y":"\\u00e9"} ,"c":[1, 2]}'
        out = splice(text, ("b", "y"), "é!")
        assert out == '{"a": 1.0, "b":{"x":1e3,"y":"é!"} ,"c":[1, 2]}'

    def test_appends_a_missing_member_after_the_last(self) -> None:
        """A missing key is added at the end of its object, nested objects built as needed."""
        out = splice('{"extra":{"api":"openai"}}', ("extra", "gmtags", "seed"), 3)
        assert out == '{"extra":{"api":"openai","gmtags":{"seed":3}}}'

    def test_inserts_into_an_empty_object(self) -> None:
        """An empty object receives the member between its braces."""
        assert splice("{ }", ("k",), [1]) == '{"k":[1] }'

    def test_walks_array_indexes(self) -> None:
        """An integer in the path names an array element."""
        text = '{"swipe_info":[{"a":1},{"a":2,"extra":{}}]}'
        out = splice(text, ("swipe_info", 1, "extra", "g"), True)
        assert json.loads(out)["swipe_info"][1] == {"a": 2, "extra": {"g": True}}
        assert out.startswith('{"swipe_info":[{"a":1},')

    def test_edits_the_last_of_repeated_keys(self) -> None:
        """With a repeated key the last one is the one JSON readers see, so it is edited."""
        assert splice('{"k":1,"k":2}', ("k",), 3) == '{"k":1,"k":3}'

    def test_missing_array_index_raises(self) -> None:
        """An array index that does not exist is a programmer error."""
        with pytest.raises(IndexError):
            splice('{"a":[]}', ("a", 0), 1)

    def test_dump_writes_like_json_stringify(self) -> None:
        """New values are compact with non-ASCII characters as they are."""
        assert dump({"a": "é", "b": [1, 2]}) == '{"a":"é","b":[1,2]}'
