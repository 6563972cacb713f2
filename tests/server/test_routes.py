"""What the proxy refuses of a request's shape, and how it answers a route it does not serve.

Found by the hostile-input suite (`test_hostile.py`); each is a JSON error, never a 500 or a
plain-text answer, and nothing is stored.
"""

from __future__ import annotations

import httpx
import pytest

from tests.server.conftest import Proxy

SYSTEM = {"role": "system", "content": "You are the GM."}


def _chats(proxy: Proxy) -> list[object]:
    found = httpx.get(f"{proxy.server.url}/gmtags/api/chats").json()
    assert isinstance(found, list)
    return found


@pytest.mark.parametrize("role", [[], {}, 3, None, True])
def test_a_message_whose_role_is_not_text_is_400(proxy: Proxy, role: object) -> None:
    body = {"model": "m", "messages": [SYSTEM, {"role": role, "content": "hi"}]}
    response = httpx.post(f"{proxy.url}/chat/completions", json=body)
    assert response.status_code == 400
    assert response.json()["error"]["message"] == (
        "messages[1].role must be text (system, user, assistant)"
    )
    assert proxy.upstream.requests == [] and _chats(proxy) == []


@pytest.mark.parametrize("chat", ["line\nbreak", "tab\there", "nul\x00"])
def test_a_chat_id_with_a_control_character_is_refused(proxy: Proxy, chat: str) -> None:
    """Such a chat could be stored but no route could reach it."""
    saved = httpx.post(
        f"{proxy.server.url}/gmtags/api/builder/save",
        json={"chat": chat, "name": "Ilse", "card": {"abilities": {}}},
    )
    assert saved.status_code == 400
    assert saved.json()["problems"][0]["path"] == "chat"
    asked = httpx.post(
        f"{proxy.url}/chat/completions",
        json={"model": "m", "messages": [SYSTEM, {"role": "user", "content": "hi"}]},
        headers={"X-Gmtags-Chat": b"tab\there"},
    )
    assert asked.status_code == 400
    assert _chats(proxy) == []


def test_a_chat_with_a_slash_has_its_state(proxy: Proxy) -> None:
    client = proxy.client("campaign/one")
    client.chat.completions.create(
        model="gmtags-demo", messages=[SYSTEM, {"role": "user", "content": "I push."}]
    )
    state = httpx.get(f"{proxy.server.url}/gmtags/chats/campaign%2Fone/state")
    assert state.status_code == 200
    assert "gameCharacterCards" in state.json()


def test_a_route_not_served_is_a_json_error(proxy: Proxy) -> None:
    for method, path, status in [
        ("GET", "/gmtags/api/nothing", 404),
        ("GET", "/v2/whatever", 404),
        ("GET", "/gmtags/api/chats/%0A0", 404),
        ("DELETE", "/v1/chat/completions", 405),
    ]:
        response = httpx.request(method, f"{proxy.server.url}{path}")
        assert response.status_code == status, path
        assert response.headers["content-type"] == "application/json"
        assert response.json()["error"]["message"]


def test_a_browser_asking_for_a_page_that_is_not_there_gets_a_page(proxy: Proxy) -> None:
    response = httpx.get(f"{proxy.server.url}/gmtags/nothing", headers={"Accept": "text/html"})
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")
    assert "All chats" in response.text
