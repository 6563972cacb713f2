"""gmtags/server/auth.py: `--token` in front of the proxy and every `/gmtags/` route (SPEC §11)."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import openai
import pytest

from gmtags.commands.serve import serve_command
from gmtags.server.auth import needs_token
from tests.conftest import invoke
from tests.server.conftest import Proxy

TOKEN = "s3cret-token"
KEY = "sk-upstream-key-never-shown"


@pytest.fixture
def guarded(make_proxy: Callable[..., Proxy]) -> Proxy:
    return make_proxy(token=TOKEN)


def _client(proxy: Proxy, token: str | None) -> openai.OpenAI:
    headers = {"X-Gmtags-Chat": "auth-chat"}
    if token is not None:
        headers["X-Gmtags-Token"] = token
    return openai.OpenAI(
        base_url=proxy.url, api_key=KEY, max_retries=0, timeout=20, default_headers=headers
    )


def _ask(client: openai.OpenAI) -> str:
    reply = client.chat.completions.create(
        model="gmtags-demo", messages=[{"role": "user", "content": "I open the gate."}]
    )
    return reply.choices[0].message.content or ""


class TestTheProxy:
    def test_without_the_token_the_proxy_refuses_and_calls_nobody(self, guarded: Proxy) -> None:
        with pytest.raises(openai.AuthenticationError) as raised:
            _ask(_client(guarded, None))
        assert raised.value.status_code == 401
        assert guarded.upstream.requests == []

    def test_a_wrong_token_is_refused(self, guarded: Proxy) -> None:
        with pytest.raises(openai.AuthenticationError):
            _ask(_client(guarded, "not-it"))

    def test_with_the_token_authorization_passes_through_untouched(self, guarded: Proxy) -> None:
        """The upstream sees the caller's `Authorization` as sent, and never the gmtags token."""
        assert "result=" in _ask(_client(guarded, TOKEN))
        assert guarded.upstream.authorizations == [f"Bearer {KEY}"]
        assert all(TOKEN not in str(body) for body in guarded.upstream.requests)

    def test_healthz_and_the_shipped_styles_stay_open(self, guarded: Proxy) -> None:
        """A supervisor's liveness check, and the styles the token form itself uses."""
        assert httpx.get(f"{guarded.server.url}/healthz").text == "ok"
        assert httpx.get(f"{guarded.server.url}/gmtags/static/base.css").status_code == 200


class TestThePages:
    def test_every_gmtags_route_needs_it(self, guarded: Proxy) -> None:
        """The JSON endpoints answer 401 without the token and never show a key."""
        base = guarded.server.url
        _ask(_client(guarded, TOKEN))
        for path in ("/gmtags/chats/auth-chat/state", "/gmtags/api/chats"):
            refused = httpx.get(f"{base}{path}")
            assert refused.status_code == 401 and KEY not in refused.text
            assert refused.json()["error"]["code"] == "token_required"
            allowed = httpx.get(f"{base}{path}", headers={"X-Gmtags-Token": TOKEN})
            assert allowed.status_code != 401 and KEY not in allowed.text
        saved = httpx.post(f"{base}/gmtags/api/builder/save", json={})
        assert saved.status_code == 401

    def test_a_page_asks_once_and_the_cookie_opens_the_rest(self, guarded: Proxy) -> None:
        base = guarded.server.url
        with httpx.Client(base_url=base) as browser:
            asked = browser.get("/gmtags/chats/auth-chat?x=1", headers={"Accept": "text/html"})
            assert asked.status_code == 401 and 'type="password"' in asked.text
            assert 'value="/gmtags/chats/auth-chat?x=1"' in asked.text
            wrong = browser.post("/gmtags/login", data={"token": "no", "next": "/gmtags/"})
            assert wrong.status_code == 401 and "not right" in wrong.text
            assert "gmtags_token" not in browser.cookies
            opened = browser.post(
                "/gmtags/login", data={"token": TOKEN, "next": "/gmtags/chats/auth-chat?x=1"}
            )
            assert opened.status_code == 303
            assert opened.headers["location"] == "/gmtags/chats/auth-chat?x=1"
            assert "httponly" in opened.headers["set-cookie"].lower()
            assert browser.get("/gmtags/chats/auth-chat/state").status_code != 401

    @pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example/", "/v1/x"])
    def test_the_login_sends_the_browser_only_to_its_own_pages(
        self, guarded: Proxy, target: str
    ) -> None:
        opened = httpx.post(
            f"{guarded.server.url}/gmtags/login", data={"token": TOKEN, "next": target}
        )
        assert opened.status_code == 303 and opened.headers["location"] == "/gmtags/"


class TestServeCommand:
    def test_listening_beyond_loopback_needs_a_token(self) -> None:
        ran = invoke(
            serve_command, "--ruleset", "x.json", "--upstream", "http://u/v1", "--host", "0.0.0.0"
        )
        assert ran.returncode == 2 and "--token" in ran.stderr

    def test_a_blank_token_is_refused(self) -> None:
        ran = invoke(
            serve_command, "--ruleset", "x.json", "--upstream", "http://u/v1", "--token", " "
        )
        assert ran.returncode == 2 and "blank" in ran.stderr

    @pytest.mark.parametrize(
        ("host", "needed"),
        [
            ("127.0.0.1", False),
            ("127.0.0.2", False),
            ("::1", False),
            ("localhost", False),
            ("0.0.0.0", True),
            ("192.168.1.5", True),
            ("::", True),
        ],
    )
    def test_which_hosts_need_one(self, host: str, needed: bool) -> None:
        assert needs_token(host) is needed


def test_the_demo_server_beyond_loopback_needs_a_token_too() -> None:
    from gmtags.cli import main

    ran = invoke(main, "demo", "--serve", "--host", "0.0.0.0")
    assert ran.returncode == 2 and "--token" in ran.stderr
