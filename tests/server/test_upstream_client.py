"""gmtags/server/upstream.py's HTTP client: proxies from the environment, no cookies, no netrc,
compressed replies decoded."""

from __future__ import annotations

import asyncio
import gzip
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from gmtags.server.background import BackgroundServer
from gmtags.server.shapes import Chat
from gmtags.server.upstream import Upstream, env_proxy, request_json
from tests.server.conftest import Proxy

REPLY = {
    "id": "x",
    "object": "chat.completion",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "Fine."}}],
}
MODELS = {"object": "list", "data": [{"id": "m", "object": "model"}] * 40}


class Recorder:
    """A model server that keeps the headers of every request and sets a cookie."""

    def __init__(self) -> None:
        self.seen: list[dict[str, str]] = []

    def app(self) -> Starlette:
        async def complete(request: Request) -> Response:
            self.seen.append(dict(request.headers))
            reply = JSONResponse(REPLY)
            reply.set_cookie("session", "player-one")
            return reply

        async def models(request: Request) -> Response:
            self.seen.append(dict(request.headers))
            packed = gzip.compress(json.dumps(MODELS).encode())
            return Response(
                packed,
                media_type="application/json",
                headers={"Content-Encoding": "gzip"},
            )

        async def moved(request: Request) -> Response:
            self.seen.append(dict(request.headers))
            return Response(status_code=307, headers={"Location": "http://elsewhere.invalid/"})

        return Starlette(
            routes=[
                Route("/v1/chat/completions", complete, methods=["POST"]),
                Route("/v1/models", models, methods=["GET"]),
                Route("/api/tags", moved, methods=["GET"]),
            ]
        )


@pytest.fixture
def recorder() -> Iterator[tuple[Recorder, BackgroundServer]]:
    served = Recorder()
    with BackgroundServer(served.app()) as server:
        yield served, server


def _complete_twice(upstream: Upstream) -> list[Any]:
    async def main() -> list[Any]:
        try:
            body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
            return [await upstream.complete(Chat(), body, []) for _ in range(2)]
        finally:
            await upstream.aclose()

    return asyncio.run(main())


class TestEnvProxy:
    def test_none_named(self, monkeypatch: pytest.MonkeyPatch) -> None:
        for name in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy"):
            monkeypatch.delenv(name, raising=False)
        assert env_proxy("http://model.example/v1") == (None, None)

    def test_the_scheme_s_own(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("HTTPS_PROXY", "http://squid.lan:3128")
        monkeypatch.setenv("HTTP_PROXY", "http://other.lan:8080")
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        assert env_proxy("https://api.example.com") == ("http://squid.lan:3128", None)

    def test_credentials_go_apart(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("HTTPS_PROXY", "http://me:p%40ss@squid.lan:3128")
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        assert env_proxy("https://api.example.com") == (
            "http://squid.lan:3128",
            "Basic bWU6cEBzcw==",  # me:p@ss
        )

    def test_no_proxy_excludes_a_host(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("HTTP_PROXY", "http://squid.lan:3128")
        monkeypatch.setenv("NO_PROXY", "localhost,model.lan")
        assert env_proxy("http://model.lan:5001/v1") == (None, None)


def test_the_upstream_is_reached_through_the_environment_s_proxy(
    recorder: tuple[Recorder, BackgroundServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A host that no resolver knows is reached through `HTTP_PROXY`: the proxy gets the
    request for it (its `Host`), with the credentials the proxy's URL holds."""
    served, proxy = recorder
    monkeypatch.setenv("HTTP_PROXY", f"http://me:pw@{proxy.host}:{proxy.port}")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    replies = _complete_twice(Upstream("http://model.invalid/v1", 10.0))
    assert replies == [REPLY, REPLY]
    assert [seen["host"] for seen in served.seen] == ["model.invalid", "model.invalid"]
    assert {seen["proxy-authorization"] for seen in served.seen} == {"Basic bWU6cHc="}


def test_no_cookie_is_kept_and_no_netrc_is_read(
    recorder: tuple[Recorder, BackgroundServer],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """The upstream's cookie is not sent back (another player's request would carry it), and a
    `~/.netrc` naming the upstream's host adds no credentials to a request."""
    served, server = recorder
    netrc = tmp_path / "netrc"
    netrc.write_text(f"machine {server.host} login host-user password host-secret\n")
    netrc.chmod(0o600)
    monkeypatch.setenv("NETRC", str(netrc))
    for name in ("HTTP_PROXY", "http_proxy"):
        monkeypatch.delenv(name, raising=False)
    assert _complete_twice(Upstream(f"{server.url}/v1", 10.0)) == [REPLY, REPLY]
    assert all("cookie" not in seen and "authorization" not in seen for seen in served.seen)


def test_a_compressed_reply_passed_through_comes_decoded(
    recorder: tuple[Recorder, BackgroundServer], make_proxy: Callable[..., Proxy]
) -> None:
    """A model list the upstream sent gzipped reaches the client as JSON: the client gets no
    `Content-Encoding`, so the bytes it gets must be the decoded ones."""
    _, server = recorder
    proxy = make_proxy(upstream_url=f"{server.url}/v1")
    answer = httpx.get(f"{proxy.url}/models", headers={"Accept-Encoding": "identity"})
    assert answer.status_code == 200 and "content-encoding" not in answer.headers
    assert json.loads(answer.content) == MODELS


class TestRequestJson:
    """The forwarded body: compact UTF-8 JSON with the same value, whoever writes it."""

    def test_same_value_compact_utf8(self) -> None:
        body = {"model": "m", "messages": [{"role": "user", "content": "Élise — ok"}], "t": 0.7}
        compact = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
        assert request_json(body) == compact.encode()

    def test_a_lone_surrogate_half_goes_as_the_replacement_character(self) -> None:
        assert json.loads(request_json({"content": "a\ud83db"})) == {"content": "a\ufffdb"}

    def test_an_integer_past_64_bits_goes_in_full(self) -> None:
        assert request_json({"seed": 10**20}) == b'{"seed":100000000000000000000}'


def test_a_redirect_is_not_followed(
    recorder: tuple[Recorder, BackgroundServer], make_proxy: Callable[..., Proxy]
) -> None:
    """An upstream's redirect reaches the client as it came: gmtags never sends the request
    (and its key) on to another address."""
    served, server = recorder
    proxy = make_proxy(upstream_url=f"{server.url}/v1")
    answer = httpx.get(f"{proxy.server.url}/api/tags", follow_redirects=False)
    assert answer.status_code == 307 and answer.headers.get("location") is None
    assert len(served.seen) == 1
