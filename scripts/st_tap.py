"""A pass-through in front of gmtags that writes down every request it forwards (for `st_check.py`).

SillyTavern's server, not the browser, calls a Text Completion backend, and
gmtags strips the `/c/{chat}` prefix before its routes see the request, so
neither the scripted upstream nor gmtags' own records show the path
SillyTavern used. The tap sits where the player's server URL points: it
forwards each request to gmtags byte for byte (method, raw path and query,
headers, body) and streams the answer back as it comes, keeping the method,
raw path and `User-Agent` of each in `seen`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import NamedTuple

import httpx
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route


class Seen(NamedTuple):
    """One request the tap forwarded."""

    method: str
    path: str
    """The raw path, as sent (percent-escapes kept)."""
    agent: str
    """Its `User-Agent`: SillyTavern's server is `node-fetch/…`, the browser is not."""


_HOP = {"host", "content-length", "connection", "transfer-encoding", "keep-alive"}


class Tap:
    """Forwards everything to `target` and writes down what it forwarded."""

    def __init__(self, target: str) -> None:
        self.target = target.rstrip("/")
        self.seen: list[Seen] = []
        """Every request, in the order they came."""
        self._client = httpx.AsyncClient(timeout=httpx.Timeout(60.0, connect=5.0))

    @property
    def app(self) -> Starlette:
        methods = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"]
        return Starlette(routes=[Route("/{rest:path}", self._forward, methods=methods)])

    async def _forward(self, request: Request) -> StreamingResponse:
        raw = request.scope.get("raw_path") or request.url.path.encode()
        path = raw.decode("latin-1")
        self.seen.append(Seen(request.method, path, request.headers.get("user-agent", "")))
        query = request.scope.get("query_string", b"").decode("latin-1")
        url = self.target + path + (f"?{query}" if query else "")
        headers = [(k, v) for k, v in request.headers.raw if k.decode().lower() not in _HOP]
        outgoing = self._client.build_request(
            request.method, url, headers=headers, content=await request.body()
        )
        answer = await self._client.send(outgoing, stream=True)
        back = {k: v for k, v in answer.headers.items() if k.lower() not in _HOP}

        async def body() -> AsyncIterator[bytes]:
            async for piece in answer.aiter_raw():
                yield piece

        return StreamingResponse(
            body(),
            status_code=answer.status_code,
            headers=back,
            background=BackgroundTask(answer.aclose),
        )
