"""A request body is limited while it is read, on every route (SPEC §8).

"a request body is limited while it is read (1 MiB by default), on every route: a larger one
is refused (413) before more is read". A client streams a body of no declared length; the
server must answer 413 having let it send little more than the limit (the socket buffers),
never the whole body (issue 26: the builder endpoints read 300 MiB before refusing it).
"""

from __future__ import annotations

import socket
from collections.abc import Callable

import httpx
import pytest

from tests.server.conftest import Proxy

CHUNK = 64 * 1024
OFFERED = 256 * 1024 * 1024
"""What the client would send if let: far more than the limit and the buffers together."""
LET_THROUGH = 24 * 1024 * 1024
"""The most the server may let a client send before refusing (1 MiB read, the rest buffers)."""


def _stream_body(port: int, path: str) -> tuple[int, bytes]:
    """POST `path` with a chunked JSON body that never ends, until the server answers or stops
    reading; returns how many bytes went out and the start of the answer."""
    sent = 0
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".encode()
        )
        piece = f"{CHUNK:x}\r\n".encode() + b" " * CHUNK + b"\r\n"
        sock.sendall(b"1\r\n{\r\n")
        sock.settimeout(2.0)
        try:
            while sent < OFFERED:
                sock.sendall(piece)
                sent += CHUNK
        except (TimeoutError, BrokenPipeError, ConnectionResetError):
            pass  # the server stopped reading, or closed the connection
        sock.settimeout(10.0)
        answer = b""
        try:
            while len(answer) < 4096 and (chunk := sock.recv(4096)):
                answer += chunk
        except (TimeoutError, ConnectionResetError):
            pass
    return sent, answer


@pytest.mark.parametrize(
    "path", ["/gmtags/api/builder/build", "/gmtags/api/builder/save", "/v1/chat/completions"]
)
def test_a_body_past_the_limit_is_refused_while_it_streams(
    make_proxy: Callable[..., Proxy], path: str
) -> None:
    proxy = make_proxy()
    sent, answer = _stream_body(proxy.server.port, path)
    assert sent < LET_THROUGH, f"the server read {sent} bytes of an endless body"
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b"larger than" in answer or b"too large" in answer
    assert httpx.get(f"{proxy.server.url}/healthz").status_code == 200
    assert httpx.get(f"{proxy.server.url}/gmtags/api/chats").json() == []
