"""gmtags/server/background.py: an app served by uvicorn in a thread."""

from __future__ import annotations

import socket

import httpx
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from gmtags.server.background import BackgroundServer


async def hello(request: object) -> PlainTextResponse:
    return PlainTextResponse("hello")


APP = Starlette(routes=[Route("/", hello)])


class TestBackgroundServer:
    def test_serves_on_the_port_it_holds(self) -> None:
        """The port is known before the thread starts, and the app answers on it."""
        server = BackgroundServer(APP)
        assert server.port > 0
        with server:
            assert httpx.get(server.url, timeout=5).text == "hello"

    def test_its_socket_says_it_is_tcp(self) -> None:
        """The listening socket names its protocol, so asyncio sets TCP_NODELAY on every
        connection (without it each small SSE chunk waited ~40 ms for an acknowledgement:
        `benchmarks/proxy_history.py` measured +43 ms per reply through the proxy)."""
        server = BackgroundServer(APP)
        try:
            assert server._socket.proto == socket.IPPROTO_TCP
        finally:
            server._socket.close()
