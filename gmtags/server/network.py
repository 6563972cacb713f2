"""httpcore's network layer on asyncio's own streams, for the proxy's upstream connections.

httpx reads the upstream through httpcore, whose network layer under asyncio is
anyio's: every read of a streamed reply goes through a cancel scope, a
`fail_after` deadline and an async-library lookup. The proxy reads a chunk per
token of every reply it relays, so that is paid on every event. This backend
implements httpcore's documented `AsyncNetworkBackend` interface with
`asyncio.open_connection` and `asyncio.timeout` instead; httpcore's exceptions
(`ConnectError`, `ReadTimeout`, …) are raised as its own backends raise them, so
httpx maps them the same way. Measured (`benchmarks/bench_proxy.py --shape chat`):
about 0.2 CPU s less per 100 streamed replies, the proxy's cost beside a bare
relay going from 1.6× to 1.25×.

httpx has no setting for it, so `use_asyncio` gives the backend to the client's
connection pool after the client is made (httpx keeps the pool as
`AsyncHTTPTransport._pool`, httpcore its backend as `_network_backend`). Where
that pool is not there (another httpx, a proxy set in the environment) the
client keeps its own network layer and says so (False); a test holds the
installed versions to it.
"""

from __future__ import annotations

import asyncio
import contextlib
import select
import socket
import ssl
from collections.abc import Iterable
from typing import Any

import httpcore
import httpx

SocketOption = (
    tuple[int, int, int] | tuple[int, int, bytes | bytearray] | tuple[int, int, None, int]
)
"""httpcore's socket option: `setsockopt`'s arguments."""
READ_SIZE = 64 * 1024


def _readable(sock: socket.socket | None) -> bool:
    """Whether a connection kept for reuse has something to read (the server closed it)."""
    if sock is None or sock.fileno() < 0:
        return True
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


class AsyncioStream(httpcore.AsyncNetworkStream):
    """One connection: asyncio's reader and writer."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        try:
            async with asyncio.timeout(timeout):
                return await self._reader.read(max_bytes)
        except TimeoutError:
            raise httpcore.ReadTimeout("the upstream did not send in time") from None
        except OSError as error:
            raise httpcore.ReadError(str(error)) from error

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        try:
            async with asyncio.timeout(timeout):
                self._writer.write(buffer)
                await self._writer.drain()
        except TimeoutError:
            raise httpcore.WriteTimeout("the upstream did not take the request in time") from None
        except OSError as error:
            raise httpcore.WriteError(str(error)) from error

    async def aclose(self) -> None:
        self._writer.close()
        with contextlib.suppress(OSError, ssl.SSLError):
            await self._writer.wait_closed()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.AsyncNetworkStream:
        try:
            async with asyncio.timeout(timeout):
                await self._writer.start_tls(ssl_context, server_hostname=server_hostname)
        except TimeoutError:
            await self.aclose()
            raise httpcore.ConnectTimeout("the upstream's TLS did not answer in time") from None
        except (OSError, ssl.SSLError) as error:
            await self.aclose()
            raise httpcore.ConnectError(str(error)) from error
        return self

    def get_extra_info(self, info: str) -> Any:
        if info == "ssl_object":
            return self._writer.get_extra_info("ssl_object")
        if info == "client_addr":
            return self._writer.get_extra_info("sockname")
        if info == "server_addr":
            return self._writer.get_extra_info("peername")
        if info == "socket":
            return self._writer.get_extra_info("socket")
        if info == "is_readable":
            return _readable(self._writer.get_extra_info("socket"))
        return None


def use_asyncio(client: httpx.AsyncClient) -> bool:
    """Give `client`'s connection pool this module's backend (True), when it has one."""
    pool = getattr(getattr(client, "_transport", None), "_pool", None)
    if not isinstance(pool, httpcore.AsyncConnectionPool) or not hasattr(pool, "_network_backend"):
        return False
    pool._network_backend = AsyncioBackend()
    return True


class AsyncioBackend(httpcore.AsyncNetworkBackend):
    """Connections opened with `asyncio.open_connection`."""

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        try:
            async with asyncio.timeout(timeout):
                reader, writer = await asyncio.open_connection(
                    host,
                    port,
                    local_addr=None if local_address is None else (local_address, 0),
                    limit=READ_SIZE,
                )
        except TimeoutError:
            raise httpcore.ConnectTimeout("the upstream did not answer in time") from None
        except OSError as error:
            raise httpcore.ConnectError(str(error)) from error
        sock = writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            for option in socket_options or ():
                sock.setsockopt(*option)
        return AsyncioStream(reader, writer)

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        try:
            async with asyncio.timeout(timeout):
                reader, writer = await asyncio.open_unix_connection(path, limit=READ_SIZE)
        except TimeoutError:
            raise httpcore.ConnectTimeout("the upstream did not answer in time") from None
        except OSError as error:
            raise httpcore.ConnectError(str(error)) from error
        return AsyncioStream(reader, writer)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)
