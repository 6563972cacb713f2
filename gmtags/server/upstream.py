"""The upstream model server: each request forwarded to the same route, failures mapped.

A request goes to the route of its API shape (`gmtags.server.shapes`) under
the upstream's root: `--upstream` with or without its `/v1` (SPEC §7.2). A
URL whose path is more than `/v1` (`https://example.com/api/v1`,
`…/v1beta/openai`) is the base of the OpenAI-style routes as given; a bare
host takes `/v1` for them; the other routes (llama.cpp's `/completion`,
Ollama's `/api/…`) hang under the root, the URL without a trailing `/v1`.

Headers: every request header passes to the upstream except hop-by-hop ones,
`Host`, `Content-Length`, `Cookie`, `Accept-Encoding` (the client asks for
what it can decode, and a reply comes back decoded) and gmtags' own
(`X-Gmtags-*`); so OpenRouter's `HTTP-Referer`/`X-Title`,
`anthropic-version`/`anthropic-beta` and `OpenAI-Organization` reach it. The
caller's key (`Authorization`, `x-api-key`) goes as it came and is never
logged, unless the key lives on the server (`--upstream-key-env`): then the
caller's own auth headers (which may carry the gmtags token) are dropped and
the shape's auth header is set with that key.

An upstream that answers with an error status passes through with that
status (its error object kept when it has one); an upstream that cannot be
reached gives 502 and one that does not answer in time 504, each as an error
of the caller's API shape. A reply in the wrong shape is a 502 too (SPEC §7.2),
told before the caller gets a byte: a 200 to a streaming request that is not
an event stream (its `Content-Type` is not `text/event-stream` and its first
bytes are no SSE field either: some servers stream SSE under another type) or,
for Ollama, not NDJSON; and a whole reply that is not strict JSON
(`gmtags.jsonfile.loads`) or has no text where its shape keeps it. A 200
carrying an error object passes that error on, as a 502.

The forwarded body is written here: the GM instructions may carry text from a
stored snapshot, and one stored by an older version may hold a lone UTF-16
surrogate half, which is not UTF-8 and which a strict upstream refuses even
escaped; it goes as U+FFFD.

The HTTP client is aiohttp's (issue 29): it parses replies in C, and the proxy
reads one chunk per token of every reply it relays. Measured with
`benchmarks/bench_proxy.py --shape chat`, a bare relay reading its upstream
with aiohttp used half the CPU of the same relay reading it with httpx (0.67
against 1.31 CPU s per 100 replies). Its session belongs to one event loop, so
it is made on the first request, in the loop that serves it. The upstream is
reached through the proxy `HTTP_PROXY` or `HTTPS_PROXY` names for its scheme
unless `NO_PROXY` excludes its host (read once, when the proxy starts: aiohttp
would read the environment and `~/.netrc` in a thread on every request, and
netrc credentials must never be added to a player's request); TLS certificates
are checked against the system's store; the upstream's cookies are not kept (a
cookie one player's request got would go with every other player's); a
redirect is not followed (the caller gets it, as any other answer).
"""

from __future__ import annotations

import asyncio
import base64
import json
import urllib.request
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

import aiohttp
import orjson

from gmtags.jsonfile import JsonTextError, loads
from gmtags.server.shapes import Shape
from gmtags.text import mend_surrogates

EVENT_STREAM = "text/event-stream"
SSE_FIELDS = (b"data:", b"event:", b"id:", b"retry:", b":")
"""How an SSE stream's first line begins (a field, or a `:` comment)."""
WRONG_SHAPE_BYTES = 64 * 1024
"""How much of a 200 that is not an event stream is read to find an error object in it."""
NOT_FORWARDED = frozenset(
    {
        b"connection",
        b"keep-alive",
        b"proxy-authenticate",
        b"proxy-authorization",
        b"proxy-connection",
        b"te",
        b"trailer",
        b"transfer-encoding",
        b"upgrade",
        b"host",
        b"content-length",
        b"content-type",
        b"cookie",
        b"accept-encoding",
    }
)
"""Request headers never forwarded (hop-by-hop, or written again for the forwarded body)."""
KEY_HEADERS = frozenset({b"authorization", b"x-api-key"})
"""The caller's auth headers: its API key, or (with a key on the server) the gmtags token."""
OWN_PREFIX = b"x-gmtags-"
CONNECTIONS = 100
"""Connections open to the upstream at once, at most; a request past them waits for one."""
CONNECT_SECONDS = 10.0
"""How long opening a connection may take, at most (`--upstream-timeout` when shorter)."""
UPSTREAM_FAILED = (aiohttp.ClientError, TimeoutError)
"""What talking to the upstream raises when it cannot be reached, breaks off or is too slow."""
Headers = list[tuple[bytes, bytes]]
"""Request headers as raw (name, value) pairs, as ASGI gives them."""


class UpstreamError(Exception):
    """The upstream failed: the status to answer with, and the upstream's own error object
    (`own`) or what gmtags says (`message`, `kind`, `code`), told in the caller's shape."""

    def __init__(
        self,
        status: int,
        message: str,
        kind: str = "upstream_error",
        code: str | int | None = None,
        own: Any = None,
    ) -> None:
        super().__init__(status, message)
        self.status = status
        self.message = message
        self.kind = kind
        self.code = code
        self.own = own

    def body(self, shape: Shape) -> Any:
        """The error as `shape`'s clients read it (the upstream's own, when it sent one)."""
        return (
            self.own
            if self.own is not None
            else shape.error_body(self.message, self.kind, self.code)
        )


@dataclass(frozen=True, slots=True)
class UpstreamStream:
    """A streaming reply whose headers (and, for a stream not labelled as its framing, first
    bytes) were read: its body's bytes from the start, and the response to close."""

    chunks: AsyncIterator[bytes]
    release: Callable[[], object]
    """Close the response: its connection goes back to the pool if it was read whole."""

    async def aclose(self) -> None:
        """Close the response (`release`)."""
        self.release()


def forwarded(
    headers: Iterable[tuple[bytes, bytes]], shape: Shape | None, key: str | None
) -> Headers:
    """The headers sent upstream for a request with `headers` (module doc); `shape` None: a
    request passed through, whose key header (with a key on the server) is `Authorization`."""
    raw = list(headers)
    named = {
        token.strip().lower().encode("latin-1")
        for name, value in raw
        if name.lower() == b"connection"
        for token in value.decode("latin-1").split(",")
    }
    sent = [
        (name, value)
        for name, value in raw
        if (low := name.lower()) not in NOT_FORWARDED
        and low not in named
        and not low.startswith(OWN_PREFIX)
        and (key is None or low not in KEY_HEADERS)
    ]
    if key is not None:
        name, value = shape.key(key) if shape is not None else ("Authorization", f"Bearer {key}")
        sent.append((name.lower().encode("latin-1"), value.encode("latin-1", "replace")))
    return sent


def _posted(headers: list[tuple[bytes, bytes]]) -> Headers:
    return [*headers, (b"content-type", b"application/json")]


def request_json(body: Any) -> bytes:
    """`body` as the UTF-8 JSON sent upstream, a lone surrogate half in it as U+FFFD (see the
    module docstring; outside strings JSON text is ASCII, so mending the text mends strings).
    orjson writes it when it can (a body of a whole conversation, on every request: issue 29);
    it refuses a lone surrogate half and an integer past 64 bits, which go as `json` writes
    them."""
    try:
        return orjson.dumps(body)
    except orjson.JSONEncodeError:
        pass
    text = json.dumps(body, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    if not text.isascii():
        text = mend_surrogates(text)
    return text.encode("utf-8")


def failure(error: BaseException) -> UpstreamError:
    """The error to answer with when talking to the upstream raised `error` (one of
    `UPSTREAM_FAILED`)."""
    if isinstance(error, TimeoutError):
        return UpstreamError(504, "the upstream did not answer in time", "timeout")
    if isinstance(error, aiohttp.ClientConnectorError | aiohttp.InvalidURL):
        return UpstreamError(502, "the upstream cannot be reached")
    return UpstreamError(502, "the upstream connection failed")


def _json(content: bytes) -> Any:
    """An upstream body's JSON value (bytes that are not UTF-8 read as U+FFFD); JsonTextError.
    A key repeated in one object is read as JSON readers do (the last wins): it is the model
    server's JSON, not something a player or page sent."""
    return loads(content.decode("utf-8", "replace"), duplicates=True)


def _error_object(content: bytes) -> dict[str, Any] | None:
    """The body when it is an error object (`{"error": …}`, as OpenAI, Anthropic and Ollama
    send one), else None."""
    try:
        body = _json(content)
    except JsonTextError:
        return None
    return body if isinstance(body, dict) and isinstance(body.get("error"), dict | str) else None


def _status_error(status: int, content: bytes) -> UpstreamError:
    return UpstreamError(
        status, f"the upstream answered {status}", code=status, own=_error_object(content)
    )


def wrong_shape(message: str, content: bytes = b"") -> UpstreamError:
    """A 502 for a 200 the proxy cannot use: the upstream's own error object when the body is
    one, else `message`."""
    own = _error_object(content) if content else None
    return UpstreamError(502, message, code="bad_upstream_reply", own=own)


def _media_type(response: aiohttp.ClientResponse) -> str:
    media: str = response.headers.get("content-type", "")
    return media.split(";")[0].strip().lower()


def body_chunks(response: aiohttp.ClientResponse) -> AsyncIterator[bytes]:
    """A streamed body's bytes as they arrive (decompressed, when the upstream compressed it)."""
    return response.content.iter_any()


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


def _streamed_as(shape: Shape, media: str, first: bytes) -> bool:
    """Whether a 200's type or first bytes are the stream `shape` reads (an error object
    in NDJSON is not)."""
    if shape.framing == "sse":
        return media == EVENT_STREAM or first.lstrip().startswith(SSE_FIELDS)
    opening = first.lstrip()
    return opening.startswith(b"{") and not opening.startswith(b'{"error"')


async def _start(shape: Shape, response: aiohttp.ClientResponse) -> UpstreamStream:
    """The stream of a 200 to a streaming request, or the 502 for one in the wrong shape."""
    chunks = body_chunks(response)
    media = _media_type(response)
    if shape.framing == "sse" and media == EVENT_STREAM:
        return UpstreamStream(chunks, response.release)
    first = await _opening(chunks)
    if _streamed_as(shape, media, first):
        return UpstreamStream(_rest(first, chunks), response.release)
    content = first
    async for chunk in chunks:
        if len(content) > WRONG_SHAPE_BYTES:
            break
        content += chunk
    shown = media or "no content type"
    wanted = "an event stream" if shape.framing == "sse" else "a stream of JSON lines"
    message = f"the upstream answered a streaming request with {shown}, not {wanted}"
    raise wrong_shape(message, content)


def roots(url: str) -> tuple[str, str]:
    """The upstream's API base for OpenAI-style routes and its root for the others (module
    doc), from `--upstream`."""
    url = url.rstrip("/")
    path = urlsplit(url).path.rstrip("/")
    root = url.removesuffix("/v1") if path.endswith("/v1") else url
    api = url if path not in ("", "/v1") else root + "/v1"
    return api, root


def env_proxy(url: str) -> tuple[str | None, str | None]:
    """The proxy the environment names for `url` (`HTTP_PROXY`, `HTTPS_PROXY`, `NO_PROXY`),
    as its URL without credentials and the `Proxy-Authorization` its credentials make (None
    for none); (None, None) for no proxy."""
    parts = urlsplit(url)
    named = urllib.request.getproxies_environment().get(parts.scheme)
    if not named or urllib.request.proxy_bypass(parts.hostname or ""):
        return None, None
    proxy = urlsplit(named if "://" in named else f"http://{named}")
    if proxy.username is None:
        return proxy.geturl(), None
    pair = f"{unquote(proxy.username)}:{unquote(proxy.password or '')}".encode()
    auth = f"Basic {base64.b64encode(pair).decode('ascii')}"
    bare = proxy._replace(netloc=proxy.netloc.rpartition("@")[2])
    return bare.geturl(), auth


class Upstream:
    """The model server at `base_url` (`--upstream`, with or without `/v1`)."""

    def __init__(self, base_url: str, timeout: float, key: str | None = None) -> None:
        self.api, self.root = roots(base_url)
        self.key = key
        self.timeout = aiohttp.ClientTimeout(
            total=None,
            connect=timeout,
            sock_connect=min(timeout, CONNECT_SECONDS),
            sock_read=timeout,
        )
        """No limit on a whole reply; each read (and the wait for a connection) `timeout`."""
        self.proxy, self.proxy_auth = env_proxy(self.root)
        self._session: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def url(self, route: str) -> str:
        """Where `route` (as gmtags serves it) is on the upstream."""
        if route.startswith("/v1/"):
            return self.api + route[3:]
        return self.root + route

    def session(self) -> aiohttp.ClientSession:
        """The connection pool of the running event loop (made on its first request)."""
        loop = asyncio.get_running_loop()
        session = self._session
        if session is None or session.closed or self._loop is not loop:
            session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=CONNECTIONS),
                timeout=self.timeout,
                cookie_jar=aiohttp.DummyCookieJar(),
            )
            self._session, self._loop = session, loop
        return session

    async def aclose(self) -> None:
        """Close the connection pool."""
        session, self._session = self._session, None
        if session is not None and self._loop is asyncio.get_running_loop():
            await session.close()

    async def send(
        self,
        method: str,
        route: str,
        content: bytes | None,
        headers: Headers,
    ) -> aiohttp.ClientResponse:
        """The upstream's response to `method route` (its headers read; the caller reads its
        body and releases it); raises one of `UPSTREAM_FAILED`."""
        url = self.url(route)
        sent = [(name.decode("latin-1"), value.decode("latin-1")) for name, value in headers]
        tunnel: dict[str, str] | None = None
        if self.proxy_auth is not None:
            if url.startswith("https:"):  # said in the CONNECT that opens the tunnel
                tunnel = {"Proxy-Authorization": self.proxy_auth}
            else:  # said in the request the proxy forwards
                sent.append(("Proxy-Authorization", self.proxy_auth))
        return await self.session().request(
            method,
            url,
            data=content,
            headers=sent,
            proxy=self.proxy,
            proxy_headers=tunnel,
            allow_redirects=False,
        )

    async def complete(
        self, shape: Shape, body: Mapping[str, Any], headers: Iterable[tuple[bytes, bytes]]
    ) -> Any:
        """A whole reply: the upstream's JSON, which has its text where `shape` keeps it."""
        sent = _posted(forwarded(headers, shape, self.key))
        try:
            response = await self.send("POST", shape.upstream_route, request_json(body), sent)
            async with response:
                content = await response.read()
        except UPSTREAM_FAILED as error:
            raise failure(error) from None
        if response.status >= 400:
            raise _status_error(response.status, content)
        try:
            reply = _json(content)
        except JsonTextError as error:
            raise wrong_shape(f"the upstream's reply is not JSON: {error}") from None
        if shape.slots(reply) is None:
            raise wrong_shape(f"the upstream's reply has no {shape.text_at}", content)
        return reply

    async def stream(
        self, shape: Shape, body: Mapping[str, Any], headers: Iterable[tuple[bytes, bytes]]
    ) -> UpstreamStream:
        """A streamed reply, its headers read and its framing checked; the caller closes it."""
        sent = _posted(forwarded(headers, shape, self.key))
        try:
            response = await self.send("POST", shape.upstream_route, request_json(body), sent)
        except UPSTREAM_FAILED as error:
            raise failure(error) from None
        try:
            if response.status >= 400:
                raise _status_error(response.status, await response.read())
            return await _start(shape, response)
        except BaseException as error:
            response.release()
            if isinstance(error, UPSTREAM_FAILED):
                raise failure(error) from None
            raise
