"""Running an ASGI app with uvicorn in a thread, on a port it already holds.

Used by `serve_demo` for the scripted upstream and by the tests. The socket is
bound before the thread starts, so the port is known at once and no other
process can take it in between; the thread is a daemon and `stop` joins it.
The socket is made with its protocol named (`IPPROTO_TCP`): asyncio turns
Nagle's algorithm off (`TCP_NODELAY`) only on sockets that say they are TCP,
and with it on, each small SSE chunk after the headers waits out the peer's
delayed acknowledgement (about 40 ms on Linux).
"""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType
from typing import Any

import uvicorn

from gmtags.server.protocol import Protocol


class BackgroundServer:
    """An app served by uvicorn in a daemon thread on `host`:`port` (0 picks a free port)."""

    def __init__(self, app: Any, host: str = "127.0.0.1", port: int = 0) -> None:
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind((host, port))
        self.host = host
        self.port: int = self._socket.getsockname()[1]
        config = uvicorn.Config(
            app, log_level="warning", lifespan="on", timeout_graceful_shutdown=5, http=Protocol
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._socket]}, daemon=True
        )

    @property
    def url(self) -> str:
        """The server's base URL."""
        return f"http://{self.host}:{self.port}"

    def start(self, timeout: float = 10.0) -> BackgroundServer:
        """Start serving; return once the server accepts connections."""
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self._socket.close()
                raise RuntimeError(f"the server on port {self.port} did not start")
            time.sleep(0.01)
        return self

    def stop(self, timeout: float = 10.0) -> None:
        """Ask the server to finish and wait for its thread."""
        self._server.should_exit = True
        self._thread.join(timeout)
        self._socket.close()

    def __enter__(self) -> BackgroundServer:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
