"""Server-sent events as OpenAI streams them: `data: <json>` events, then `data: [DONE]`.

The upstream's stream is read as bytes (`sse_lines`): split into lines where
the SSE format ends them (CRLF, LF or CR, nowhere else), each line decoded as
UTF-8. httpx's own `aiter_lines` costs more per chunk (it decodes the whole
stream as text, then splits it as `str.splitlines` does, so a JSON string
holding U+2028 or U+0085 as is would be cut in two and its chunk lost).
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable
from typing import TYPE_CHECKING, Any

from gmtags.server.errors import json_bytes

if TYPE_CHECKING:
    from gmtags.server.shapes.base import Event

DONE = "[DONE]"


async def sse_lines(chunks: AsyncIterable[bytes]) -> AsyncIterator[str]:
    """The lines of an SSE byte stream, however it is cut into chunks (a CR at the end of one
    chunk waits for the next: it may be half of a CRLF); undecodable bytes read as U+FFFD."""
    pending = b""
    async for chunk in chunks:
        text = pending + chunk
        held = b""
        if b"\r" in text:
            if text.endswith(b"\r"):
                text, held = text[:-1], b"\r"
            text = text.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        *lines, pending = text.split(b"\n")
        pending += held
        for line in lines:
            yield line.decode("utf-8", "replace")
    if pending:
        yield pending.removesuffix(b"\r").decode("utf-8", "replace")


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


async def sse_events(lines: AsyncIterable[str]) -> AsyncIterator[tuple[str | None, str]]:
    """Each event of a stream of SSE lines: its `event` name (None when it has none) and its
    `data` (comments and other fields dropped; an event with no data is none)."""
    data: list[str] = []
    name: str | None = None
    async for line in lines:
        if line == "":
            if data:
                yield name, "\n".join(data)
            data, name = [], None
        elif line.startswith("data:"):
            value = line[5:]
            data.append(value[1:] if value.startswith(" ") else value)
        elif line.startswith("event:"):
            value = line[6:]
            name = value[1:] if value.startswith(" ") else value
    if data:
        yield name, "\n".join(data)


def frames(framing: str, events: Iterable[Event]) -> bytes:
    """Events as they go to the caller: SSE (`event:` when named, `data:`) or NDJSON lines."""
    out = bytearray()
    for sent in events:
        body = DONE.encode() if sent.data == DONE else json_bytes(sent.data)
        if framing == "ndjson":
            out += body + b"\n"
        elif sent.name is None:
            out += b"data: " + body + b"\n\n"
        else:
            out += b"event: " + sent.name.encode("utf-8", "replace") + b"\ndata: " + body + b"\n\n"
    return bytes(out)


def event(data: Any) -> bytes:
    """One SSE event carrying JSON data (or the literal `[DONE]`)."""
    body = DONE.encode() if data == DONE else json_bytes(data)
    return b"data: " + body + b"\n\n"
