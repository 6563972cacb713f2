"""gmtags/server/sse.py: reading and writing server-sent events."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from gmtags.server.sse import DONE, event, sse_data


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
