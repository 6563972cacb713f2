"""gmtags/transcript/jsontext.py: editing one value of a JSON text in place."""

from __future__ import annotations

import json

import pytest

from gmtags.transcript.jsontext import dump, splice


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
