"""gmtags/server/app.py: the proxy's routes besides chat completions."""

from __future__ import annotations

import httpx

from gmtags.server.demo_upstream import MODEL
from tests.server.conftest import Proxy


class TestApp:
    def test_healthz(self, proxy: Proxy) -> None:
        """`/healthz` answers 200."""
        assert httpx.get(f"{proxy.server.url}/healthz", timeout=10).status_code == 200

    def test_models_are_forwarded(self, proxy: Proxy) -> None:
        """`/v1/models` is the upstream's list, fetched with the caller's key."""
        models = proxy.client(api_key="sk-models").models.list()
        assert [model.id for model in models] == [MODEL]
        assert proxy.upstream.authorizations[-1] == "Bearer sk-models"

    def test_state_of_a_chat(self, proxy: Proxy, chat_id: str) -> None:
        """The state endpoint answers the chat's current snapshot JSON."""
        messages = [{"role": "system", "content": "GM"}, {"role": "user", "content": "I push."}]
        proxy.client(chat_id).chat.completions.create(model=MODEL, messages=messages)  # type: ignore[arg-type]
        response = httpx.get(f"{proxy.server.url}/gmtags/chats/{chat_id}/state", timeout=10)
        assert response.status_code == 200
        assert response.headers["X-Gmtags-Chat"] == chat_id
        clocks = {clock["name"] for clock in response.json()["rulesetClocks"]}
        assert clocks == {"Road washed out", "Alarm raised"}

    def test_state_of_an_unknown_chat(self, proxy: Proxy) -> None:
        """An unknown chat's state is an OpenAI-style 404."""
        response = httpx.get(f"{proxy.server.url}/gmtags/chats/nobody/state", timeout=10)
        assert response.status_code == 404
        assert "error" in response.json()
