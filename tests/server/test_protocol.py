"""gmtags/server/protocol.py: the HTTP protocol gmtags serves with, and its refusals."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from gmtags.server.background import BackgroundServer
from gmtags.server.protocol import HEAD_LIMIT, head_problem


class TestHeadProblem:
    @pytest.mark.parametrize(
        ("head", "said"),
        [
            (b"GET / HTTP/1.1\r\nHost: a\r\nX-Chat: a\x01b\r\n\r\n", "'X-Chat' holds a control"),
            (b"GET / HTTP/1.1\r\nHost: a\r\nX-Chat: a\x7fb\r\n\r\n", "'X-Chat' holds a control"),
            (b"GET / HTTP/1.1\r\nX(y): 1\r\n\r\n", "name 'X(y)' is not a token"),
            (b"GET / HTTP/1.1\r\nHost: a\r\nno colon here\r\n\r\n", "header line 2 has no ':'"),
            (b"GET /\r\n\r\n", "the request line is not HTTP/1.1"),
            (b"\x16\x03\x01\x02\x00", "the request line is not HTTP/1.1"),
            (b"GET / HTTP/1.1\r\nHost: a\r\n\r\n", "the request is not HTTP/1.1"),
        ],
    )
    def test_names_what_is_wrong(self, head: bytes, said: str) -> None:
        assert said in head_problem(head)

    def test_a_value_is_never_shown(self) -> None:
        """The value may be a key: only the header's name is said."""
        problem = head_problem(b"GET / HTTP/1.1\r\nAuthorization: Bearer sk-secret\x01\r\n\r\n")
        assert "Authorization" in problem and "sk-secret" not in problem

    def test_a_name_that_is_not_printable_is_escaped(self) -> None:
        problem = head_problem(b"GET / HTTP/1.1\r\nX\x1b[31m: 1\r\n\r\n")
        assert "\x1b" not in problem and "\\x1b" in problem


def _echo(request: Request) -> Response:
    return PlainTextResponse(f"{request.method} {len(request.headers)}")


async def _posted(request: Request) -> Response:
    return PlainTextResponse(str(len(await request.body())))


@pytest.fixture(scope="module")
def server() -> Iterator[BackgroundServer]:
    app = Starlette(
        routes=[Route("/", _echo, methods=["GET"]), Route("/post", _posted, methods=["POST"])]
    )
    with BackgroundServer(app) as running:
        yield running


def exchange(server: BackgroundServer, *requests: bytes) -> bytes:
    """Send `requests` on one connection; everything the server answers until it closes."""
    with socket.create_connection((server.host, server.port), timeout=10) as sock:
        for request in requests:
            sock.sendall(request)
        sock.shutdown(socket.SHUT_WR)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


def _status_and_json(answer: bytes) -> tuple[int, dict[str, object]]:
    head, _, body = answer.partition(b"\r\n\r\n")
    assert b"x-content-type-options: nosniff" in head.lower(), answer
    assert b"content-type: application/json" in head.lower(), answer
    return int(head.split()[1]), json.loads(body)


class TestServed:
    def test_a_control_character_is_a_json_400_naming_the_header(
        self, server: BackgroundServer
    ) -> None:
        answer = exchange(server, b"GET / HTTP/1.1\r\nHost: a\r\nX-Gmtags-Chat: \x01c\r\n\r\n")
        status, body = _status_and_json(answer)
        assert status == 400
        assert body == {
            "error": {
                "message": "the value of the header 'X-Gmtags-Chat' holds a control character",
                "type": "invalid_request_error",
                "param": None,
                "code": None,
            }
        }

    def test_a_head_over_the_limit_is_431(self, server: BackgroundServer) -> None:
        filler = b"X-Filler: " + b"x" * 1000 + b"\r\n"
        request = b"GET / HTTP/1.1\r\nHost: a\r\n" + filler * (HEAD_LIMIT // len(filler) + 2)
        status, body = _status_and_json(exchange(server, request))
        assert status == 431 and "over 65536 bytes" in str(body)

    def test_a_long_body_is_not_a_long_head(self, server: BackgroundServer) -> None:
        """The limit counts the head alone: a body many times its size, sent with the head in
        one write, is served."""
        data = b"x" * (4 * HEAD_LIMIT)
        head = b"POST /post HTTP/1.1\r\nHost: a\r\nContent-Length: %d\r\n\r\n" % len(data)
        answer = exchange(server, head + data)
        assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(str(len(data)).encode())

    def test_each_request_on_a_connection_is_read_afresh(self, server: BackgroundServer) -> None:
        """Kept alive, a later request is parsed (and refused) on its own bytes."""
        good = b"GET / HTTP/1.1\r\nHost: a\r\n\r\n"
        with socket.create_connection((server.host, server.port), timeout=10) as sock:
            for _ in range(2):
                sock.sendall(good)
                assert sock.recv(65536).startswith(b"HTTP/1.1 200")
            sock.sendall(b"GET / HTTP/1.1\r\nHost: a\r\nX-Other: \x02\r\n\r\n")
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
        status, body = _status_and_json(answer)
        assert status == 400 and "'X-Other' holds a control character" in str(body)
