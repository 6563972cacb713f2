"""gmtags/server/prefix.py: the chat named by the URL prefix `/c/{chat}` (SPEC §7.2)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import openai
import pytest
from starlette.testclient import TestClient

from gmtags.server.app import create_app
from gmtags.server.demo import demo_config
from gmtags.server.demo_upstream import MODEL
from gmtags.server.prefix import PrefixError, split_prefix, with_chat
from tests.server.conftest import Proxy

SYSTEM = {"role": "system", "content": "You are the GM."}
TIMEOUT = 20.0


def user(text: str) -> dict[str, str]:
    return {"role": "user", "content": text}


def gm(text: str) -> dict[str, str]:
    return {"role": "assistant", "content": text}


def post(url: str, messages: list[dict[str, str]], **headers: str) -> httpx.Response:
    return httpx.post(
        f"{url}/chat/completions",
        json={"model": MODEL, "messages": messages},
        headers={"Authorization": "Bearer sk-test", **headers},
        timeout=TIMEOUT,
    )


def content(response: httpx.Response) -> str:
    assert response.status_code == 200, response.text
    text: str = response.json()["choices"][0]["message"]["content"]
    return text


def chat_nodes(proxy: Proxy, chat: str) -> list[dict[str, Any]]:
    """The chat's nodes as its JSON lists them (the chat id percent-encoded as one segment)."""
    segment = quote(chat, safe="")
    response = httpx.get(f"{proxy.server.url}/gmtags/api/chats/{segment}", timeout=TIMEOUT)
    if response.status_code == 404:
        return []
    assert response.status_code == 200, response.text
    nodes: list[dict[str, Any]] = response.json()["nodes"]
    return nodes


def chats(proxy: Proxy) -> list[str]:
    listed = httpx.get(f"{proxy.server.url}/gmtags/api/chats", timeout=TIMEOUT).json()
    return [row["chat"] for row in listed]


@pytest.fixture
def proxy(make_proxy: Callable[..., Proxy]) -> Proxy:
    return make_proxy()


class TestSplitPrefix:
    def test_plain_path(self) -> None:
        """A path without the prefix is not the prefix's."""
        assert split_prefix(b"/v1/chat/completions") is None
        assert split_prefix(b"/cats/v1") is None
        assert split_prefix(b"/gmtags/chats/c/x") is None

    def test_chat_and_route(self) -> None:
        """`/c/{chat}/<route>` gives the chat and the route, still percent-encoded."""
        assert split_prefix(b"/c/Warden-7/v1/models") == ("Warden-7", b"/v1/models")
        assert split_prefix(b"/c/a%2Fb/gmtags/chats/a%2Fb") == ("a/b", b"/gmtags/chats/a%2Fb")

    def test_utf8(self) -> None:
        """The chat is percent-decoded as UTF-8; spaces around it go, as a header's do."""
        assert split_prefix(b"/c/%C3%89lise%20/v1")[0] == "Élise"  # type: ignore[index]
        with pytest.raises(PrefixError, match="not UTF-8") as caught:
            split_prefix(b"/c/%C3/v1")
        assert caught.value.status == 400

    @pytest.mark.parametrize("path", [b"/c/", b"/c", b"/c//v1/models", b"/c/%20/v1", b"/c/%0A/v1"])
    def test_no_chat(self, path: bytes) -> None:
        """An empty chat, or one with a control character, is refused with 400."""
        with pytest.raises(PrefixError) as caught:
            split_prefix(path)
        assert caught.value.status == 400

    @pytest.mark.parametrize("path", [b"/c/Warden-7", b"/c/Warden-7/", b"/c/Warden-7//"])
    def test_no_route(self, path: bytes) -> None:
        """A chat with no route after it is 404: the base URL is wrong."""
        with pytest.raises(PrefixError) as caught:
            split_prefix(path)
        assert caught.value.status == 404


class TestWithChat:
    def test_added(self) -> None:
        """With no X-Gmtags-Chat the prefix's chat is added as UTF-8 bytes."""
        assert with_chat([(b"host", b"h")], "Élise") == [
            (b"host", b"h"),
            (b"x-gmtags-chat", "Élise".encode()),
        ]

    def test_header_wins(self) -> None:
        """A header naming a chat is kept; a blank one is replaced."""
        given = [(b"X-Gmtags-Chat", b"mine")]
        assert with_chat(given, "other") == given
        assert with_chat([(b"x-gmtags-chat", b"  ")], "other") == [(b"x-gmtags-chat", b"other")]


class TestProxyUnderPrefix:
    def test_chat_stored_and_named(self, proxy: Proxy) -> None:
        """A completion through /c/Warden-7/v1 is stored in Warden-7 and answered naming it."""
        response = post(f"{proxy.server.url}/c/Warden-7/v1", [SYSTEM, user("I push.")])
        content(response)
        assert response.headers["X-Gmtags-Chat"] == "Warden-7"
        assert len(chat_nodes(proxy, "Warden-7")) == 1
        assert chats(proxy) == ["Warden-7"]

    def test_second_turn_follows_first(self, proxy: Proxy) -> None:
        """A second turn through the same prefix is placed after the first."""
        base = f"{proxy.server.url}/c/Warden-7/v1"
        first = content(post(base, [SYSTEM, user("I push.")]))
        content(post(base, [SYSTEM, user("I push."), gm(first), user("On.")]))
        nodes = chat_nodes(proxy, "Warden-7")
        assert len(nodes) == 2
        assert nodes[1]["parent"] == nodes[0]["id"]
        assert nodes[1]["current"]

    def test_non_ascii_chat(self, proxy: Proxy) -> None:
        """A chat id percent-encoded in the prefix is the chat the header would name."""
        response = post(f"{proxy.server.url}/c/%C3%89lise%2F2/v1", [SYSTEM, user("I push.")])
        content(response)
        assert response.headers["X-Gmtags-Chat"] == "Élise/2"  # httpx reads it as UTF-8
        assert chats(proxy) == ["Élise/2"]

    def test_header_wins(self, proxy: Proxy) -> None:
        """X-Gmtags-Chat, when sent, names the chat, not the prefix."""
        response = post(
            f"{proxy.server.url}/c/Warden-7/v1", [SYSTEM, user("I push.")], **{"X-Gmtags-Chat": "h"}
        )
        content(response)
        assert response.headers["X-Gmtags-Chat"] == "h"
        assert chats(proxy) == ["h"]

    @pytest.mark.parametrize("segment", ["%0Abad", "%C3", "x" * 201, "%20"])
    def test_bad_chat_refused(self, proxy: Proxy, segment: str) -> None:
        """A chat no id can be is a 400 OpenAI-style error, and nothing is stored."""
        response = post(f"{proxy.server.url}/c/{segment}/v1", [SYSTEM, user("I push.")])
        assert response.status_code == 400
        assert response.json()["error"]["type"] == "invalid_request_error"
        assert "/c/{chat}" in response.json()["error"]["message"]
        assert chats(proxy) == []
        assert proxy.upstream.requests == []

    def test_no_route(self, proxy: Proxy) -> None:
        """`/c/{chat}` with nothing after it is a 404 error saying what a base URL looks like."""
        response = httpx.get(f"{proxy.server.url}/c/Warden-7", timeout=TIMEOUT)
        assert response.status_code == 404
        assert "/c/CHAT/v1" in response.json()["error"]["message"]

    def test_models_pass_through(self, proxy: Proxy) -> None:
        """/c/x/v1/models is the upstream's model list."""
        response = httpx.get(f"{proxy.server.url}/c/x/v1/models", timeout=TIMEOUT)
        assert response.status_code == 200
        assert response.json()["data"][0]["id"] == MODEL

    def test_state_route(self, proxy: Proxy) -> None:
        """The state route works under the prefix too."""
        content(post(f"{proxy.server.url}/c/Warden-7/v1", [SYSTEM, user("I push.")]))
        response = httpx.get(
            f"{proxy.server.url}/c/Warden-7/gmtags/chats/Warden-7/state", timeout=TIMEOUT
        )
        assert response.status_code == 200
        assert "rulesetClocks" in response.json()

    def test_openai_client(self, proxy: Proxy) -> None:
        """The official openai client with base_url …/c/Warden-7/v1 plays in chat Warden-7."""
        client = openai.OpenAI(
            base_url=f"{proxy.server.url}/c/Warden-7/v1",
            api_key="sk-test",
            max_retries=0,
            timeout=TIMEOUT,
        )
        raw = client.chat.completions.with_raw_response.create(
            model=MODEL,
            messages=[{"role": "system", "content": "GM"}, {"role": "user", "content": "Go."}],
        )
        assert raw.headers["X-Gmtags-Chat"] == "Warden-7"
        assert "Bram" in (raw.parse().choices[0].message.content or "")
        stream = client.chat.completions.create(
            model=MODEL,
            messages=[{"role": "system", "content": "GM"}, {"role": "user", "content": "Go."}],
            stream=True,
        )
        assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
        assert [m.id for m in client.models.list()] == [MODEL]
        assert chats(proxy) == ["Warden-7"]
        assert len(chat_nodes(proxy, "Warden-7")) == 2


class TestPrefixGuarded:
    def test_pages_json_only(self, proxy: Proxy) -> None:
        """The pages' POST endpoints take only JSON under the prefix too (no form posts)."""
        response = httpx.post(
            f"{proxy.server.url}/c/x/gmtags/api/builder/build",
            content=b"answers=1",
            headers={"Content-Type": "application/x-www-form-urlencoded"},
            timeout=TIMEOUT,
        )
        assert response.status_code == 415

    def test_token_still_needed(self, tmp_path: Path) -> None:
        """The token gate sees the route under the prefix: no token, no completion."""
        config = replace(
            demo_config("http://127.0.0.1:9/v1"), db=str(tmp_path / "h.sqlite3"), token="T0k3n"
        )
        with TestClient(create_app(config), base_url="http://127.0.0.1") as client:
            refused = client.post(
                "/c/Warden-7/v1/chat/completions",
                json={"model": MODEL, "messages": [user("hi")]},
            )
            assert refused.status_code == 401
            models = client.get("/c/Warden-7/v1/models")
            assert models.status_code == 401
            assert client.get("/c/Warden-7/healthz").status_code == 200

    def test_foreign_origin_refused(self, proxy: Proxy) -> None:
        """A web page on another origin may not post a completion through the prefix."""
        response = post(
            f"{proxy.server.url}/c/Warden-7/v1",
            [SYSTEM, user("I push.")],
            Origin="https://evil.example",
        )
        assert response.status_code == 403
        assert chats(proxy) == []
