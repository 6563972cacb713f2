"""Proxy tests: the scripted upstream and the proxy served on loopback in threads."""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from gmtags.server.app import create_app
from gmtags.server.background import BackgroundServer
from gmtags.server.config import ServerConfig
from gmtags.server.demo import demo_config
from gmtags.server.demo_upstream import ScriptedUpstream

CLIENT_TIMEOUT = 20.0

_chat_numbers = itertools.count()


class Proxy:
    """A proxy and its scripted upstream, both running."""

    def __init__(self, upstream: ScriptedUpstream, server: BackgroundServer, config: ServerConfig):
        self.upstream = upstream
        self.server = server
        self.config = config

    @property
    def url(self) -> str:
        return f"{self.server.url}/v1"

    def client(self, chat: str | None = None, api_key: str = "sk-test-key") -> openai.OpenAI:
        """An official OpenAI client for this proxy, naming `chat` in the gmtags header."""
        headers = {} if chat is None else {"X-Gmtags-Chat": chat}
        return openai.OpenAI(
            base_url=self.url,
            api_key=api_key,
            max_retries=0,
            timeout=CLIENT_TIMEOUT,
            default_headers=headers,
        )


@pytest.fixture
def chat_id() -> str:
    """A chat id no other test uses."""
    return f"test-chat-{next(_chat_numbers)}"


@pytest.fixture
def make_proxy(tmp_path: Path) -> Iterator[Callable[..., Proxy]]:
    """Start a scripted upstream and a proxy in front of it; both stop after the test."""
    running: list[BackgroundServer] = []

    def start(
        upstream: ScriptedUpstream | None = None,
        upstream_url: str | None = None,
        **settings: Any,
    ) -> Proxy:
        scripted = upstream or ScriptedUpstream()
        if upstream_url is None:
            up = BackgroundServer(scripted.app).start()
            running.append(up)
            upstream_url = f"{up.url}/v1"
        config = replace(
            demo_config(upstream_url), db=str(tmp_path / "history.sqlite3"), **settings
        )
        server = BackgroundServer(create_app(config)).start()
        running.append(server)
        return Proxy(scripted, server, config)

    yield start
    for server in reversed(running):
        server.stop()


@pytest.fixture
def proxy(make_proxy: Callable[..., Proxy]) -> Proxy:
    """The proxy with receipts, against the scripted upstream."""
    return make_proxy()


def read_events(
    url: str, chat: str, act: Callable[[], object], wanted: int, timeout: float = 20.0
) -> list[tuple[str, dict[str, Any]]]:
    """Open `chat`'s events stream on the server at `url`, run `act` (in a thread) once the
    stream is open, and read `wanted` events as (event name, data)."""
    got: list[tuple[str, dict[str, Any]]] = []
    with (
        httpx.Client(timeout=timeout) as client,
        client.stream("GET", f"{url}/gmtags/api/chats/{chat}/events") as stream,
    ):
        assert stream.status_code == 200
        assert stream.headers["content-type"].startswith("text/event-stream")
        kind = ""
        for line in stream.iter_lines():
            if line == ": connected":
                threading.Thread(target=act, daemon=True).start()
            elif line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: "):
                got.append((kind, json.loads(line[6:])))
                if len(got) == wanted:
                    break
    return got
