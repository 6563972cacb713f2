"""Server-sent events as OpenAI streams them: `data: <json>` events, then `data: [DONE]`."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from typing import Any

from gmtags.server.errors import json_bytes

DONE = "[DONE]"


async def sse_data(lines: AsyncIterable[str]) -> AsyncIterator[str]:
    """The `data` of each event in a stream of SSE lines (comments and other fields dropped)."""
    data: list[str] = []
    async for line in lines:
        if line == "":
            if data:
                yield "\n".join(data)
                data = []
        elif line.startswith("data:"):
            value = line[5:]
            data.append(value[1:] if value.startswith(" ") else value)
    if data:
        yield "\n".join(data)


def event(data: Any) -> bytes:
    """One SSE event carrying JSON data (or the literal `[DONE]`)."""
    body = DONE.encode() if data == DONE else json_bytes(data)
    return b"data: " + body + b"\n\n"
