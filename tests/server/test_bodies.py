"""gmtags/server/bodies.py: a request body read limited and strict, gmtags' headers as UTF-8."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from starlette.datastructures import Headers
from starlette.requests import Request

from gmtags.server.bodies import BodyError, header_text, read_json_body


class _Sender:
    """An ASGI `receive` handing out a body in chunks, counting how many were taken."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks
        self.taken = 0

    async def __call__(self) -> dict[str, Any]:
        self.taken += 1
        more = self.taken < len(self.chunks)
        return {"type": "http.request", "body": self.chunks[self.taken - 1], "more_body": more}


def _request(sender: _Sender, headers: dict[str, str] | None = None) -> Request:
    raw = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in (headers or {}).items()]
    scope = {"type": "http", "method": "POST", "path": "/", "headers": raw}
    return Request(scope, sender)


def _read(body: bytes, limit: int = 1000) -> Any:
    return asyncio.run(read_json_body(_request(_Sender([body])), limit))


def _refusal(body: bytes, limit: int = 1000) -> BodyError:
    with pytest.raises(BodyError) as raised:
        _read(body, limit)
    return raised.value


class TestReadJsonBody:
    def test_strict_json_is_read(self) -> None:
        """A body of strict JSON is its value, non-ASCII text and pairs escaped as JSON allows
        included."""
        assert _read('{"a": [1, 2.5, "Élise \\ud83d\\ude00"]}'.encode()) == {
            "a": [1, 2.5, "Élise 😀"]
        }

    @pytest.mark.parametrize(
        ("body", "said"),
        [
            (b'{"a": NaN}', "NaN is not allowed"),
            (b'{"a": -Infinity}', "-Infinity is not allowed"),
            (b'{"a": 1e999}', "too large"),
            (b'{"a": "x\\ud800"}', "surrogate"),
            (b'{"a": 1, "a": 2}', "repeated"),
            (b"[" * 101 + b"]" * 101, "nested deeper than 100"),
            (b"{nope", "not valid JSON"),
            (b"", "not valid JSON"),
        ],
    )
    def test_json_that_is_not_strict_is_refused_saying_where(self, body: bytes, said: str) -> None:
        """NaN, Infinity, a number out of range, a lone surrogate, a duplicate key, nesting
        past 100 and broken JSON are each a 400 naming what and where (line and column)."""
        error = _refusal(body)
        assert error.status == 400
        assert said in error.message and "line 1, column" in error.message

    def test_a_lone_surrogate_is_placed(self) -> None:
        """The line and column given are where the lone half stands."""
        error = _refusal(b'{\n  "messages": [\n    "fine", "bad \\udc00"]}')
        assert error.message.endswith("at line 3, column 18")

    def test_bytes_that_are_not_utf8_are_refused_saying_where(self) -> None:
        """Bytes that are not UTF-8 are a 400 naming the byte, its line and its column (in
        characters)."""
        error = _refusal('{"a":\n "é\xff"}'.encode("latin-1").replace(b"\xe9", "é".encode()))
        assert error.status == 400
        assert error.message == "the request body is not UTF-8: byte 0xff at line 2, column 4"

    def test_a_declared_length_over_the_limit_reads_nothing(self) -> None:
        """A Content-Length over the limit is refused (413) before any byte is read."""
        sender = _Sender([b"{}"])
        request = _request(sender, {"Content-Length": "5000"})
        with pytest.raises(BodyError) as raised:
            asyncio.run(read_json_body(request, 1000))
        assert raised.value.status == 413 and sender.taken == 0

    def test_a_body_over_the_limit_is_read_no_further(self) -> None:
        """A body with no length (chunked) is refused at the chunk that crosses the limit,
        the rest never read."""
        sender = _Sender([b"x" * 400] * 100)
        with pytest.raises(BodyError) as raised:
            asyncio.run(read_json_body(_request(sender), 1000))
        assert raised.value.status == 413 and sender.taken == 3


class TestHeaderText:
    def test_utf8_bytes_read_as_utf8(self) -> None:
        """A header's UTF-8 bytes (which Starlette hands over as latin-1) read as the text."""
        headers = Headers(raw=[(b"x-gmtags-chat", "Élise".encode())])
        assert header_text(headers, "X-Gmtags-Chat") == "Élise"
        assert header_text(headers, "X-Other") is None

    def test_bytes_that_are_not_utf8_are_refused(self) -> None:
        """Bytes that are not UTF-8 (latin-1 `É`) are a 400 naming the header."""
        headers = Headers(raw=[(b"x-gmtags-chat", "Élise".encode("latin-1"))])
        with pytest.raises(BodyError) as raised:
            header_text(headers, "X-Gmtags-Chat")
        assert raised.value.status == 400 and "X-Gmtags-Chat" in raised.value.message
