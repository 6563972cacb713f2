"""gmtags/server/sse.py: reading and writing server-sent events."""

from __future__ import annotations

import asyncio
import itertools
import re
from collections.abc import AsyncIterator

from hypothesis import given
from hypothesis import strategies as st

from gmtags.server.sse import DONE, Lines, SseReader, event, sse_data, sse_events, sse_lines


async def _lines(*lines: str) -> AsyncIterator[str]:
    for line in lines:
        yield line


def _read(*lines: str) -> list[str]:
    async def collect() -> list[str]:
        return [data async for data in sse_data(_lines(*lines))]

    return asyncio.run(collect())


class TestSseData:
    def test_events_are_split_on_blank_lines(self) -> None:
        """Each blank-line-ended event yields its data once."""
        assert _read("data: {}", "", "data: [DONE]", "") == ["{}", "[DONE]"]

    def test_comments_and_other_fields_are_dropped(self) -> None:
        """Keep-alive comments and `event:` lines carry no data."""
        assert _read(": keep-alive", "", "event: x", "data:1", "") == ["1"]

    def test_multi_line_data_is_joined(self) -> None:
        """Several data lines of one event join with line breaks, and a last event without
        a blank line still counts."""
        assert _read("data: a", "data: b") == ["a\nb"]


class TestEvent:
    def test_json_and_done(self) -> None:
        """JSON data is written compactly with UTF-8 kept; `[DONE]` is written as is."""
        assert event({"a": "é"}) == 'data: {"a":"é"}\n\n'.encode()
        assert event(DONE) == b"data: [DONE]\n\n"


def _split(data: bytes, cuts: list[int]) -> list[bytes]:
    """`data` cut at the (sorted, deduplicated) positions `cuts`."""
    points = [0, *sorted({cut % (len(data) + 1) for cut in cuts}), len(data)]
    return [data[start:end] for start, end in itertools.pairwise(points)]


def _lines_of(chunks: list[bytes]) -> list[str]:
    async def feed() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    async def collect() -> list[str]:
        return [line async for line in sse_lines(feed())]

    return asyncio.run(collect())


class TestSseLines:
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
        expected = re.split(r"\r\n|\r|\n", text)
        if text.endswith(("\r", "\n")) or not text:
            expected.pop()  # the ending of the last line opens no new one
        assert _lines_of(_split(text.encode(), cuts)) == expected


def _events_of(chunks: list[bytes]) -> list[tuple[str | None, str]]:
    async def feed() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    async def collect() -> list[tuple[str | None, str]]:
        return [event async for event in sse_events(sse_lines(feed()))]

    return asyncio.run(collect())


_PARTS = ["data: ", "data:", "event: x", ": c", "id: 1", "é", "😀", "x", "\r", "\n", "\r\n", " "]


class TestLines:
    @given(st.lists(st.sampled_from(_PARTS)), st.lists(st.integers(min_value=0), max_size=8))
    def test_same_lines_as_sse_lines(self, parts: list[str], cuts: list[int]) -> None:
        """Chunk by chunk, `Lines` ends the lines `sse_lines` reads, however the bytes are cut."""
        data = "".join(parts).encode()
        lines = Lines()
        got = [line for chunk in _split(data, cuts) for line in lines.feed(chunk)]
        got += lines.close()
        assert [line.decode("utf-8", "replace") for line in got] == _lines_of([data])


class TestSseReader:
    @given(
        st.lists(st.sampled_from([*_PARTS, "\n\n", "data: {}\n\n"])),
        st.lists(st.integers(min_value=0), max_size=8),
    )
    def test_same_events_as_sse_events(self, parts: list[str], cuts: list[int]) -> None:
        """Chunk by chunk, `SseReader` gives the events `sse_events` reads (names, and data as
        the bytes that came), however the bytes are cut (inside a UTF-8 character too)."""
        data = "".join(parts).encode()
        reader = SseReader()
        got = [event for chunk in _split(data, cuts) for event in reader.feed(chunk)]
        got += reader.close()
        expected = _events_of([data])
        assert [(name, body.decode("utf-8", "replace")) for name, body in got] == expected

    def test_data_kept_as_bytes(self) -> None:
        """A data line's bytes are kept as they came, one space after the colon dropped."""
        reader = SseReader()
        assert reader.feed(b'event: e\ndata:  {"a": "\\u00e9"}\n\n') == [
            ("e", b' {"a": "\\u00e9"}')
        ]
