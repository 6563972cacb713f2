"""The upstream model server: requests forwarded with the caller's API key, failures mapped.

The caller's `Authorization` header goes to the upstream as it came and is
never logged. An upstream that answers with an error status passes through
with that status (its OpenAI-style body kept when it has one); an upstream
that cannot be reached gives 502 and one that does not answer in time 504.

A reply in the wrong shape is a 502 too (SPEC §7.2), told before the caller
gets a byte: a 200 to a streaming request that is not an event stream (its
`Content-Type` is not `text/event-stream` and its first bytes are no SSE
field either: some servers stream SSE under another type), and a whole reply
that is not strict JSON (`gmtags.jsonfile.loads`) or has no
`choices[0].message` object. A 200 carrying an OpenAI-style error object
passes that error on, as a 502.

The forwarded body is written here (not by httpx): the GM instructions may
carry text from a stored snapshot, and one stored by an older version may hold
a lone UTF-16 surrogate half, which is not UTF-8 (httpx raises) and which a
strict upstream refuses even escaped; it goes as U+FFFD.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from gmtags.jsonfile import JsonTextError, loads
from gmtags.server.errors import error_body
from gmtags.text import mend_surrogates

EVENT_STREAM = "text/event-stream"
SSE_FIELDS = (b"data:", b"event:", b"id:", b"retry:", b":")
"""How an SSE stream's first line begins (a field, or a `:` comment)."""
WRONG_SHAPE_BYTES = 64 * 1024
"""How much of a 200 that is not an event stream is read to find an error object in it."""


class UpstreamError(Exception):
    """The upstream failed: the status and OpenAI-style body to answer the caller with."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(status, body)
        self.status = status
        self.body = body


@dataclass(frozen=True, slots=True)
class UpstreamStream:
    """A streaming reply whose headers (and, for a stream not labelled SSE, first bytes) were
    read: its body's bytes from the start, and the response to close."""

    response: httpx.Response
    chunks: AsyncIterator[bytes]

    async def aclose(self) -> None:
        """Close the response (its connection goes back to the pool if it was read whole)."""
        await self.response.aclose()


def _auth(headers: Mapping[str, str]) -> dict[str, str]:
    auth = headers.get("authorization")
    return {"Authorization": auth} if auth else {}


def _posted(headers: Mapping[str, str]) -> dict[str, str]:
    """The headers of a forwarded request: the caller's key, and the body's type."""
    return {"Content-Type": "application/json", **_auth(headers)}


def request_json(body: Any) -> bytes:
    """`body` as the UTF-8 JSON sent upstream, a lone surrogate half in it as U+FFFD (see the
    module docstring; outside strings JSON text is ASCII, so mending the text mends strings)."""
    text = json.dumps(body, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    if not text.isascii():
        text = mend_surrogates(text)
    return text.encode("utf-8")


def failure(error: httpx.HTTPError) -> UpstreamError:
    """The error to answer with when talking to the upstream raised `error`."""
    if isinstance(error, httpx.TimeoutException):
        return UpstreamError(504, error_body("the upstream did not answer in time", "timeout"))
    if isinstance(error, httpx.ConnectError):
        return UpstreamError(502, error_body("the upstream cannot be reached", "upstream_error"))
    return UpstreamError(502, error_body("the upstream connection failed", "upstream_error"))


def _json(content: bytes) -> Any:
    """An upstream body's JSON value (bytes that are not UTF-8 read as U+FFFD); JsonTextError.
    A key repeated in one object is read as JSON readers do (the last wins): it is the model
    server's JSON, not something a player or page sent."""
    return loads(content.decode("utf-8", "replace"), duplicates=True)


def _error_object(content: bytes) -> dict[str, Any] | None:
    """The body when it is an OpenAI-style error object, else None."""
    try:
        body = _json(content)
    except JsonTextError:
        return None
    return body if isinstance(body, dict) and isinstance(body.get("error"), dict) else None


def _status_error(status: int, content: bytes) -> UpstreamError:
    body = _error_object(content)
    if body is not None:
        return UpstreamError(status, body)
    message = f"the upstream answered {status}"
    return UpstreamError(status, error_body(message, "upstream_error", status))


def wrong_shape(message: str, content: bytes = b"") -> UpstreamError:
    """A 502 for a 200 the proxy cannot use: the upstream's own error object when the body is
    one, else `message`."""
    body = _error_object(content) if content else None
    return UpstreamError(502, body or error_body(message, "upstream_error", "bad_upstream_reply"))


def _media_type(response: httpx.Response) -> str:
    media: str = response.headers.get("content-type", "")
    return media.split(";")[0].strip().lower()


def _body(response: httpx.Response) -> AsyncIterator[bytes]:
    """A streamed body's bytes as they arrive, decompressed only when it was compressed
    (httpx's decoding layers cost a little on every chunk)."""
    if response.headers.get("content-encoding", "identity").strip().lower() == "identity":
        return response.aiter_raw()
    return response.aiter_bytes()


async def _opening(chunks: AsyncIterator[bytes]) -> bytes:
    """The body's first bytes, read until one is not whitespace (or the body ends)."""
    got = b""
    async for chunk in chunks:
        got += chunk
        if got.strip():
            break
    return got


async def _rest(first: bytes, chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    yield first
    async for chunk in chunks:
        yield chunk


async def _start(response: httpx.Response) -> UpstreamStream:
    """The stream of a 200 to a streaming request, or the 502 for one that is not SSE."""
    chunks = _body(response)
    media = _media_type(response)
    if media == EVENT_STREAM:
        return UpstreamStream(response, chunks)
    first = await _opening(chunks)
    if first.lstrip().startswith(SSE_FIELDS):
        return UpstreamStream(response, _rest(first, chunks))
    content = first
    async for chunk in chunks:
        if len(content) > WRONG_SHAPE_BYTES:
            break
        content += chunk
    shown = media or "no content type"
    message = f"the upstream answered a streaming request with {shown}, not an event stream"
    raise wrong_shape(message, content)


class Upstream:
    """An OpenAI-compatible model server at `base_url` (which includes `/v1`)."""

    def __init__(self, base_url: str, timeout: float) -> None:
        self.base_url = base_url.rstrip("/")
        self.client = httpx.AsyncClient(timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)))

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self.client.aclose()

    async def models(self, headers: Mapping[str, str]) -> tuple[int, Any]:
        """`GET /models`: the upstream's status and JSON body."""
        try:
            response = await self.client.get(f"{self.base_url}/models", headers=_auth(headers))
        except httpx.HTTPError as error:
            raise failure(error) from None
        if response.status_code >= 400:
            raise _status_error(response.status_code, response.content)
        try:
            return response.status_code, _json(response.content)
        except JsonTextError:
            raise UpstreamError(
                502, error_body("the upstream sent no JSON", "upstream_error")
            ) from None

    async def complete(self, body: Mapping[str, Any], headers: Mapping[str, str]) -> Any:
        """A non-streaming `POST /chat/completions`: the upstream's JSON reply, which has a
        `choices[0].message` object."""
        try:
            response = await self.client.post(
                f"{self.base_url}/chat/completions",
                content=request_json(body),
                headers=_posted(headers),
            )
        except httpx.HTTPError as error:
            raise failure(error) from None
        if response.status_code >= 400:
            raise _status_error(response.status_code, response.content)
        try:
            reply = _json(response.content)
        except JsonTextError as error:
            raise wrong_shape(f"the upstream's reply is not JSON: {error}") from None
        try:
            message = reply["choices"][0]["message"]
        except (KeyError, IndexError, TypeError):
            message = None
        if not isinstance(message, dict):
            raise wrong_shape("the upstream's reply has no choices[0].message", response.content)
        return reply

    async def stream(self, body: Mapping[str, Any], headers: Mapping[str, str]) -> UpstreamStream:
        """A streaming `POST /chat/completions`, its headers read and its shape checked; the
        caller closes it."""
        request = self.client.build_request(
            "POST",
            f"{self.base_url}/chat/completions",
            content=request_json(body),
            headers=_posted(headers),
        )
        try:
            response = await self.client.send(request, stream=True)
        except httpx.HTTPError as error:
            raise failure(error) from None
        try:
            if response.status_code >= 400:
                raise _status_error(response.status_code, await response.aread())
            return await _start(response)
        except BaseException as error:
            await response.aclose()
            if isinstance(error, httpx.HTTPError):
                raise failure(error) from None
            raise
