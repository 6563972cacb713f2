"""What a request brings, read as SPEC §8 says: a limited, strict body; gmtags' headers in UTF-8.

A body is read no further than its limit: a `Content-Length` over it is
refused before anything is read, and a body that streams past it is refused
(413) at the chunk that crosses it, the rest left unread. What was read must
be UTF-8, and strict JSON (`gmtags.jsonfile.loads`): `NaN`, `Infinity`, a
number out of the float range, a lone UTF-16 surrogate half (`"\\ud800"`), a
duplicate key, or nesting deeper than `gmtags.jsonfile.DEPTH` is refused
(400), the message naming the line and column. Every refusal is a
`BodyError`, raised before the caller has placed or stored anything.

Header values: Starlette, as the ASGI specification has it, reads header bytes
as latin-1, so `X-Gmtags-Chat: Élise` sent in UTF-8 would read as `Ã‰lise`.
`header_text` reads gmtags' own headers as UTF-8, and refuses one that is not
(400, naming the header).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.requests import Request

from gmtags.jsonfile import JsonTextError, loads


class BodyError(Exception):
    """A request refused for what it brings: the status to answer with (413 or 400), and a
    message for the caller that says what is wrong and where."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


async def read_bytes(request: Request, limit: int) -> bytes:
    """The request body's bytes, read no further than `limit` (`BodyError` 413 past it)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise BodyError(413, f"the request body is larger than {limit} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BodyError(413, f"the request body is larger than {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


async def read_json_body(request: Request, limit: int) -> Any:
    """The request body's JSON value, read no further than `limit` bytes; `BodyError` (413
    over the limit, 400 for bytes that are not UTF-8 or text that is not strict JSON)."""
    raw = await read_bytes(request, limit)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BodyError(400, f"the request body is not UTF-8: {_bad_byte(raw, error)}") from None
    try:
        return loads(text, surrogates=False)
    except JsonTextError as error:
        raise BodyError(400, f"the request body is not strict JSON: {error}") from None


def _bad_byte(raw: bytes, error: UnicodeDecodeError) -> str:
    """Where the first byte that is not UTF-8 stands: its value, line and column (columns
    count characters, as `JsonTextError`'s do)."""
    at = error.start
    line_start = raw.rfind(b"\n", 0, at) + 1
    line = raw.count(b"\n", 0, at) + 1
    column = len(raw[line_start:at].decode("utf-8", "replace")) + 1
    return f"byte 0x{raw[at]:02x} at line {line}, column {column}"


def header_text(headers: Mapping[str, str], name: str) -> str | None:
    """Header `name` read as UTF-8 (None when absent); `BodyError` (400) when its bytes are
    not UTF-8. `headers` are Starlette's, whose values hold the bytes as latin-1."""
    value = headers.get(name)
    if value is None:
        return None
    try:
        return value.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        raise BodyError(400, f"the {name} header is not UTF-8") from None
