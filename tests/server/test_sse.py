"""gmtags/server/sse.py: reading and writing server-sent events."""

from __future__ import annotations

import itertools
import json
import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gmtags.server.shapes.base import Event
from gmtags.server.sse import DONE, Lines, SseReader, event_data, event_json, frames


def _split(data: bytes, cuts: list[int]) -> list[bytes]:
    """`data` cut at the (sorted, deduplicated) positions `cuts`."""
    points = [0, *sorted({cut % (len(data) + 1) for cut in cuts}), len(data)]
    return [data[start:end] for start, end in itertools.pairwise(points)]


def _lines_of(chunks: list[bytes]) -> list[str]:
    lines = Lines()
    got = [line for chunk in chunks for line in lines.feed(chunk)] + lines.close()
    return [line.decode("utf-8", "replace") for line in got]


def _events_of(chunks: list[bytes]) -> list[tuple[str | None, str]]:
    reader = SseReader()
    got = [event for chunk in chunks for event in reader.feed(chunk)] + reader.close()
    return [(name, data.decode("utf-8", "replace")) for name, data in got]


def _split_lines(text: str) -> list[str]:
    """The oracle: the text split at CRLF, LF and CR (a last ending opens no new line)."""
    lines = re.split(r"\r\n|\r|\n", text)
    if text.endswith(("\r", "\n")) or not text:
        lines.pop()
    return lines


def _events(text: str) -> list[tuple[str | None, str]]:
    """The oracle: the SSE format's reading of a whole text (data lines joined, a blank line
    ending an event, an event name kept, anything else dropped)."""
    events: list[tuple[str | None, str]] = []
    data: list[str] = []
    name: str | None = None
    for line in _split_lines(text):
        field, colon, value = line.partition(":")
        value = value.removeprefix(" ") if colon else ""
        if not line:
            if data:
                events.append((name, "\n".join(data)))
            data, name = [], None
        elif field == "data":
            data.append(value)
        elif field == "event":
            name = value
    if data:
        events.append((name, "\n".join(data)))
    return events


class TestLines:
    def test_every_line_ending_the_format_allows(self) -> None:
        """CRLF, LF and CR end a line; a last line without an ending still counts."""
        assert _lines_of([b"a\r\nb\nc\rd"]) == ["a", "b", "c", "d"]

    def test_a_crlf_cut_in_two_is_one_ending(self) -> None:
        """A CR closing one chunk and the LF opening the next end one line, not two."""
        assert _lines_of([b"data: x\r", b"\n\r", b"\n"]) == ["data: x", ""]

    def test_only_the_format_s_endings_split(self) -> None:
        """U+2028, U+0085 and form feeds inside a JSON string stay in their line."""
        text = 'data: {"c":"a\u2028b\u0085c\x0cd"}\n\n'
        assert _lines_of([text.encode()]) == [text[:-2], ""]

    @given(
        st.lists(st.sampled_from(["data: ", "é", "😀", "x", "\r", "\n", "\r\n", " ", "{}"])),
        st.lists(st.integers(min_value=0, max_value=400), max_size=8),
    )
    def test_any_cut_reads_as_the_whole(self, parts: list[str], cuts: list[int]) -> None:
        """However the bytes are cut into chunks (inside a UTF-8 character too), the lines are
        those of the whole text split at CRLF, LF and CR."""
        text = "".join(parts)
        assert _lines_of(_split(text.encode(), cuts)) == _split_lines(text)


_PARTS = ["data: ", "data:", "event: x", ": c", "id: 1", "é", "😀", "x", "\r", "\n", "\r\n", " "]


class TestSseReader:
    def test_events_are_split_on_blank_lines(self) -> None:
        """Each blank-line-ended event gives its data once."""
        assert _events_of([b"data: {}\n\ndata: [DONE]\n\n"]) == [(None, "{}"), (None, "[DONE]")]

    def test_comments_and_other_fields_are_dropped(self) -> None:
        """Keep-alive comments and ids carry no data; an event name is kept."""
        assert _events_of([b": keep-alive\n\nid: 3\nevent: x\ndata:1\n\n"]) == [("x", "1")]

    def test_multi_line_data_is_joined(self) -> None:
        """Several data lines of one event join with line breaks, and a last event without
        a blank line still counts."""
        assert _events_of([b"data: a\ndata: b"]) == [(None, "a\nb")]

    def test_data_kept_as_bytes(self) -> None:
        """A data line's bytes are kept as they came, one space after the colon dropped."""
        reader = SseReader()
        assert reader.feed(b'event: e\ndata:  {"a": "\\u00e9"}\n\n') == [
            ("e", b' {"a": "\\u00e9"}')
        ]

    @given(
        st.lists(st.sampled_from([*_PARTS, "\n\n", "data: {}\n\n"])),
        st.lists(st.integers(min_value=0), max_size=8),
    )
    def test_any_cut_reads_as_the_whole(self, parts: list[str], cuts: list[int]) -> None:
        """However the bytes are cut (inside a UTF-8 character too), the events are the
        format's reading of the whole text."""
        text = "".join(parts)
        assert _events_of(_split(text.encode(), cuts)) == _events(text)


class TestFrames:
    def test_json_and_done(self) -> None:
        """JSON data is written compactly with UTF-8 kept; `[DONE]` is written as is."""
        assert frames("sse", [Event(None, {"a": "é"})]) == 'data: {"a":"é"}\n\n'.encode()
        assert frames("sse", [Event(None, DONE)]) == b"data: [DONE]\n\n"

    def test_named_events_and_json_lines(self) -> None:
        sent = [Event("ping", {"type": "ping"}), Event(None, {"done": True})]
        assert frames("sse", sent) == (
            b'event: ping\ndata: {"type":"ping"}\n\ndata: {"done":true}\n\n'
        )
        assert frames("ndjson", sent) == b'{"type":"ping"}\n{"done":true}\n'


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**25), max_value=10**25)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


class TestEventJson:
    """`event_data` reads what `json.loads` reads; `event_json` writes what it reads back."""

    @given(JSON_VALUES, st.booleans())
    def test_read_as_json_reads_it(self, value: object, ascii_only: bool) -> None:
        text = json.dumps(value, ensure_ascii=ascii_only)
        assert _same(event_data(text.encode("utf-8", "surrogatepass"), text), json.loads(text))

    @given(JSON_VALUES)
    def test_written_then_read_is_the_same(self, value: object) -> None:
        assert _same(json.loads(event_json(value)), value)

    @pytest.mark.parametrize(
        ("data", "value"),
        [
            (b'{"n":123456789012345678901234567890}', {"n": 123456789012345678901234567890}),
            (b'{"n":-9223372036854775809}', {"n": -9223372036854775809}),
            (b'{"s":"\\ud83d"}', {"s": "\ud83d"}),
            (b'{"a":1,"a":2}', {"a": 2}),
        ],
    )
    def test_what_orjson_reads_otherwise_is_read_by_json(self, data: bytes, value: object) -> None:
        assert _same(event_data(data, data.decode()), value)

    def test_nan_is_read_and_written_as_null(self) -> None:
        data = b'{"x":NaN,"t":"a"}'
        read = event_data(data, data.decode())
        assert read["t"] == "a" and math.isnan(read["x"])
        assert event_json(read) == b'{"x":null,"t":"a"}'

    def test_bytes_that_are_not_utf8_read_as_replacement(self) -> None:
        data = b'{"t":"a\xffb"}'
        assert event_data(data, data.decode("utf-8", "replace")) == {"t": "a\ufffdb"}

    def test_what_orjson_will_not_write_goes_as_json_writes_it(self) -> None:
        assert event_json({"n": 10**30}) == b'{"n":1000000000000000000000000000000}'
        assert event_json({"s": "a\ud83d"}) == b'{"s":"a\\ud83d"}'

    def test_not_json_raises_value_error(self) -> None:
        with pytest.raises(ValueError):
            event_data(b"{not json", "{not json")


def _same(a: object, b: object) -> bool:
    """Equal, and of the same types all the way down (1 is not 1.0, -0.0 is not 0.0)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    if type(a) is not type(b):
        return False
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[key], b[key]) for key in a)
    return a == b
