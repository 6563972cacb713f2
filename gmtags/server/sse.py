"""Server-sent events as OpenAI streams them: `data: <json>` events, then `data: [DONE]`.

The upstream's stream is read as bytes (`Lines`): split into lines where the
SSE format ends them (CRLF, LF or CR, nowhere else). An HTTP client's own line
reader (httpx's `aiter_lines`) costs more per chunk (it decodes the whole
stream as text, then splits it as `str.splitlines` does, so a JSON string
holding U+2028 or U+0085 as is would be cut in two and its chunk lost). One
call per chunk received gives the lines or the events (`SseReader`) it
completes, with no async generator per line or per event, and each event's
data stays the bytes that came, so that an event the proxy leaves as it is
goes on as it came (`frame`). An event's JSON is read and written by orjson
where that gives the same value (`event_data`, `event_json`)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import orjson
import regex

from gmtags.server.errors import json_bytes

if TYPE_CHECKING:
    from gmtags.server.shapes.base import Event

DONE = "[DONE]"
LONG_DIGITS = 19
"""Digits in a row past which an event's data is read by `json` (`event_data`): 2**63 has 19."""
_LONG_NUMBER = regex.compile(rb"[0-9]{%d}" % LONG_DIGITS)


class Lines:
    """An SSE byte stream's lines, one chunk at a time: `feed` returns the lines a chunk ends
    (as bytes, not yet decoded), `close` the last one."""

    __slots__ = ("_pending",)

    def __init__(self) -> None:
        self._pending = b""

    def feed(self, chunk: bytes) -> list[bytes]:
        """The lines `chunk` ends (a CR at its end waits: it may be half of a CRLF)."""
        text = self._pending + chunk
        held = b""
        if b"\r" in text:
            if text.endswith(b"\r"):
                text, held = text[:-1], b"\r"
            text = text.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        *lines, pending = text.split(b"\n")
        self._pending = pending + held
        return lines

    def close(self) -> list[bytes]:
        """The line the stream ended in without a line break, if any."""
        pending, self._pending = self._pending, b""
        return [pending.removesuffix(b"\r")] if pending else []


class SseReader:
    """An SSE stream's events, one chunk at a time: `feed` returns the events a chunk
    completes, `close` the last one; each as its `event` name (None when it has none) and its
    `data` as the bytes that came (lines joined by LF; comments and other fields dropped; an
    event with no data is none)."""

    __slots__ = ("_data", "_lines", "_name")

    def __init__(self) -> None:
        self._lines = Lines()
        self._data: list[bytes] = []
        self._name: str | None = None

    def feed(self, chunk: bytes) -> list[tuple[str | None, bytes]]:
        """The events `chunk` completes."""
        return self._read(self._lines.feed(chunk), end=False)

    def close(self) -> list[tuple[str | None, bytes]]:
        """The events the stream's end completes."""
        return self._read(self._lines.close(), end=True)

    def _read(self, lines: list[bytes], end: bool) -> list[tuple[str | None, bytes]]:
        events: list[tuple[str | None, bytes]] = []
        data = self._data
        for line in lines:
            if not line:
                if data:
                    events.append((self._name, b"\n".join(data)))
                    data.clear()
                self._name = None
            elif line.startswith(b"data:"):
                data.append(line[6:] if line.startswith(b"data: ") else line[5:])
            elif line.startswith(b"event:"):
                value = line[7:] if line.startswith(b"event: ") else line[6:]
                self._name = value.decode("utf-8", "replace")
        if end and data:
            events.append((self._name, b"\n".join(data)))
            data.clear()
        return events


def frames(framing: str, events: Iterable[Event]) -> bytes:
    """Events as they go to the caller: SSE (`event:` when named, `data:`) or NDJSON lines."""
    return b"".join(
        frame(framing, sent.name, DONE.encode() if sent.data == DONE else event_json(sent.data))
        for sent in events
    )


def event_json(data: Any) -> bytes:
    """An event's data as compact UTF-8 JSON, written by orjson (issue 29: a reply's events
    are written again whenever the proxy changed their text, and orjson takes a fraction of
    `json`'s time). What orjson will not write goes as `json_bytes` writes it: a lone UTF-16
    surrogate half (escaped) and an integer past 64 bits (in full). A number JSON has no
    spelling for (NaN, an infinity: only an upstream's event read by `json` can hold one)
    goes out as null, which every JSON reader reads."""
    try:
        return orjson.dumps(data)
    except orjson.JSONEncodeError:
        return json_bytes(data)


def event_data(data: bytes, text: str) -> Any:
    """The JSON value of an upstream event's data (`data`, read as UTF-8 into `text`); raises
    ValueError or RecursionError when it is not JSON.

    orjson reads it when it can (issue 29: once per event of every reply). It reads an integer
    past 64 bits as a float, so data with a run of `LONG_DIGITS` digits is read by `json`,
    which keeps it; so is everything orjson refuses that `json` reads (`NaN`, `Infinity`, a
    lone surrogate half escaped, bytes that are not UTF-8 as U+FFFD): the value the proxy
    reads is `json.loads(text)`'s either way."""
    if not _LONG_NUMBER.search(data):
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
    return json.loads(text)


def frame(framing: str, name: str | None, body: bytes) -> bytes:
    """One event whose data is `body` (one line of JSON, or `[DONE]`) as it goes to the
    caller."""
    if framing == "ndjson":
        return body + b"\n"
    if name is None:
        return b"data: " + body + b"\n\n"
    return b"event: " + name.encode("utf-8", "replace") + b"\ndata: " + body + b"\n\n"
