"""The HTTP/1.1 protocol gmtags serves with: uvicorn's httptools one, refusing bytes that are
not HTTP with an error object that names what is wrong.

httptools parses requests in C (llhttp), and uvicorn's protocol on it writes a
streamed event in one step: the proxy writes one per token of every reply, so
it costs less CPU per reply than h11's (issue 29, `benchmarks/bench_proxy.py`).
llhttp is also stricter than h11: a header whose value holds a control
character, a header name that is not a token, a line with no colon are not
HTTP, refused before any route sees them. uvicorn answers those with a bare
`400 Invalid HTTP request received.`; this protocol answers a JSON error in the
shape every gmtags route answers with, naming the header (never its value,
which may carry a key) from the request's head as it came. A head that grows
past `HEAD_LIMIT` without ending is refused with 431, and the connection
closes after either refusal.
"""

from __future__ import annotations

import asyncio

import regex
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from gmtags.log import get_logger
from gmtags.server.errors import error_body, json_bytes

HEAD_LIMIT = 64 * 1024
"""The longest request line and headers taken, in bytes."""
SHOWN = 60
"""How much of a header's name a refusal shows."""
_TOKEN = regex.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_CONTROL = regex.compile(rb"[\x00-\x08\x0a-\x1f\x7f]")
_REQUEST_LINE = regex.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+ [^\x00-\x20\x7f]+ HTTP/\d\.\d")
_REASONS = {400: b"Bad Request", 431: b"Request Header Fields Too Large"}

log = get_logger()


def _shown(name: bytes) -> str:
    text = name[:SHOWN].decode("latin-1")
    return ascii(text) if not text.isprintable() else repr(text)


def head_problem(head: bytes) -> str:
    """What makes `head` (a request's first bytes) not HTTP/1.1, said for the caller."""
    lines = head.split(b"\n")
    request_line = lines[0].removesuffix(b"\r")
    if not _REQUEST_LINE.fullmatch(request_line):
        return "the request line is not HTTP/1.1 (METHOD /target HTTP/1.1)"
    for number, raw in enumerate(lines[1:-1], start=1):
        line = raw.removesuffix(b"\r")
        if not line:
            break
        name, colon, value = line.partition(b":")
        if not colon:
            return f"header line {number} has no ':'"
        if not _TOKEN.fullmatch(name):
            return f"the header name {_shown(name)} is not a token"
        if _CONTROL.search(value):
            return f"the value of the header {_shown(name)} holds a control character"
    return "the request is not HTTP/1.1"


class Protocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, its refusals written as gmtags' errors (module doc)."""

    _head: bytearray | None = None
    """The current request's bytes while its headers are not all in (None after)."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._head = bytearray()

    def data_received(self, data: bytes) -> None:
        head = self._head
        if head is not None:
            head += data
        super().data_received(data)
        head = self._head
        if head is not None and len(head) > HEAD_LIMIT and not self.transport.is_closing():
            self._refuse(431, f"the request's line and headers are over {HEAD_LIMIT} bytes")

    def on_headers_complete(self) -> None:
        self._head = None
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._head = bytearray()

    def send_400_response(self, msg: str) -> None:
        self._refuse(400, head_problem(bytes(self._head or b"")))

    def _refuse(self, status: int, message: str) -> None:
        log.warning("bad-http", status=status, problem=message)
        body = json_bytes(error_body(message, "invalid_request_error"))
        content = [b"HTTP/1.1 %d %s\r\n" % (status, _REASONS[status])]
        for name, value in self.server_state.default_headers:
            content.extend([name, b": ", value, b"\r\n"])
        content.extend(
            [
                b"content-type: application/json\r\n",
                b"x-content-type-options: nosniff\r\n",
                b"content-length: %d\r\n" % len(body),
                b"connection: close\r\n\r\n",
                body,
            ]
        )
        self._head = None
        self.transport.write(b"".join(content))
        self.transport.close()
