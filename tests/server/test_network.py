"""gmtags/server/network.py: httpcore's network layer on asyncio's own streams."""

from __future__ import annotations

import asyncio
import shutil
import socket
import ssl
import subprocess
from pathlib import Path

import httpcore
import pytest

from gmtags.server.network import AsyncioBackend
from gmtags.server.upstream import Upstream
from tests.served import free_port


def test_the_upstream_client_reads_on_asyncio() -> None:
    """The installed httpx keeps its pool where `use_asyncio` gives it the backend."""
    upstream = Upstream("http://127.0.0.1:9/v1", 1.0)
    assert upstream.on_asyncio
    asyncio.run(upstream.aclose())


async def _echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    data = await reader.read(100)
    if data == b"close":
        writer.close()
        return
    if data != b"quiet":
        writer.write(data.upper())
        await writer.drain()
    await asyncio.sleep(5)
    writer.close()


class TestPlain:
    def test_write_read_and_is_readable(self) -> None:
        async def main() -> None:
            server = await asyncio.start_server(_echo, "127.0.0.1", 0)
            port = server.sockets[0].getsockname()[1]
            stream = await AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=5)
            assert stream.get_extra_info("is_readable") is False  # idle, open
            await stream.write(b"ping", timeout=5)
            assert await stream.read(100, timeout=5) == b"PING"
            assert stream.get_extra_info("server_addr")[1] == port
            await stream.aclose()
            closing = await AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=5)
            await closing.write(b"close")
            await asyncio.sleep(0.2)
            assert closing.get_extra_info("is_readable") is True  # the server hung up
            assert await closing.read(100, timeout=5) == b""
            await closing.aclose()
            server.close()

        asyncio.run(main())

    def test_a_silent_server_is_a_read_timeout(self) -> None:
        async def main() -> None:
            server = await asyncio.start_server(_echo, "127.0.0.1", 0)
            port = server.sockets[0].getsockname()[1]
            stream = await AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=5)
            await stream.write(b"quiet")
            with pytest.raises(httpcore.ReadTimeout):
                await stream.read(100, timeout=0.1)
            await stream.aclose()
            server.close()

        asyncio.run(main())

    def test_nobody_listening_is_a_connect_error(self) -> None:
        with pytest.raises(httpcore.ConnectError):
            asyncio.run(AsyncioBackend().connect_tcp("127.0.0.1", free_port(), timeout=5))


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for localhost, made by openssl."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is not installed")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            *(openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"),
            *("-keyout", str(key), "-out", str(cert)),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


def test_start_tls(certificate: tuple[Path, Path]) -> None:
    """The connection upgrades to TLS, checked against the server's certificate."""
    cert, key = certificate
    serving = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    serving.load_cert_chain(cert, key)
    trusting = ssl.create_default_context(cafile=str(cert))

    async def main() -> None:
        server = await asyncio.start_server(_echo, "127.0.0.1", 0, ssl=serving)
        port = server.sockets[0].getsockname()[1]
        plain = await AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=5)
        stream = await plain.start_tls(trusting, server_hostname="localhost", timeout=5)
        assert stream.get_extra_info("ssl_object") is not None
        await stream.write(b"secret", timeout=5)
        assert await stream.read(100, timeout=5) == b"SECRET"
        await stream.aclose()
        wrong = await AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=5)
        with pytest.raises(httpcore.ConnectError):
            await wrong.start_tls(ssl.create_default_context(), "localhost", timeout=5)
        server.close()

    asyncio.run(main())


def test_socket_options_are_set() -> None:
    async def main() -> None:
        server = await asyncio.start_server(_echo, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        keep = (socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        stream = await AsyncioBackend().connect_tcp(
            "127.0.0.1", port, timeout=5, socket_options=[keep]
        )
        sock = stream.get_extra_info("socket")
        assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 1
        await stream.aclose()
        server.close()

    asyncio.run(main())
