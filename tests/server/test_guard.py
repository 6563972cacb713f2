"""gmtags/server/guard.py: only the player's own pages and client change anything (SPEC §11).

Every test talks to a real proxy over HTTP on loopback; each refusal is checked to have
stored nothing and reached no upstream.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gmtags.commands.serve import serve_command
from gmtags.server.auth import needs_token
from gmtags.server.guard import Guard, Policy, host_name, normal_origin
from tests.conftest import invoke
from tests.server.conftest import Proxy

EVIL = "http://evil.example"
EXTENSION = "http://127.0.0.1:8000"
CARD = {"abilities": {}, "skills": {}}
COMPLETION = {
    "model": "gmtags-demo",
    "messages": [{"role": "user", "content": "I open the gate."}],
}


@pytest.fixture
def served(make_proxy: Callable[..., Proxy]) -> Proxy:
    """A proxy that lets SillyTavern's page in and answers to `gm.example` too."""
    return make_proxy(allow_origins=(EXTENSION,), public_hosts=("gm.example",))


def _chats(proxy: Proxy) -> list[Any]:
    found = httpx.get(f"{proxy.server.url}/gmtags/api/chats").json()
    assert isinstance(found, list)
    return found


def _post(proxy: Proxy, path: str, body: Any, **headers: str | bytes) -> httpx.Response:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return httpx.post(f"{proxy.server.url}{path}", content=data, headers=headers, timeout=20)


def _save(chat: str = "guarded") -> dict[str, Any]:
    return {"chat": chat, "name": "Intruder", "card": CARD}


class TestHost:
    """A request for a name the server does not answer to is refused: no DNS rebinding."""

    @pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.9", "localhost", "[::1]", "LOCALHOST"])
    def test_loopback_names_are_answered(self, served: Proxy, host: str) -> None:
        response = httpx.get(f"{served.server.url}/healthz", headers={"Host": f"{host}:1"})
        assert response.status_code == 200

    def test_a_public_host_is_answered(self, served: Proxy) -> None:
        response = httpx.get(
            f"{served.server.url}/gmtags/api/chats", headers={"Host": "gm.example"}
        )
        assert response.status_code == 200

    @pytest.mark.parametrize(
        "host", ["evil.example", "127.attacker.example", "localhost.evil.example", "10.0.0.8"]
    )
    def test_a_foreign_host_is_refused_on_every_route(self, served: Proxy, host: str) -> None:
        """421 with a JSON error, for the pages, the APIs, the proxy and the health check."""
        for method, path in [
            ("GET", "/healthz"),
            ("GET", "/gmtags/"),
            ("GET", "/gmtags/api/chats"),
            ("POST", "/v1/chat/completions"),
        ]:
            response = httpx.request(
                method, f"{served.server.url}{path}", headers={"Host": host}, json=COMPLETION
            )
            assert response.status_code == 421, path
            assert "does not answer" in response.json()["error"]["message"]
        assert served.upstream.requests == []
        assert _chats(served) == []

    def test_a_request_with_no_host_is_refused(self, served: Proxy) -> None:
        """HTTP/1.0 may leave Host out; such a request names no server and is refused."""
        with socket.create_connection(("127.0.0.1", served.server.port), timeout=10) as sock:
            sock.sendall(b"GET /gmtags/api/chats HTTP/1.0\r\n\r\n")
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
        assert answer.startswith(b"HTTP/1.1 421")

    def test_listening_everywhere_answers_any_address_but_no_name(self) -> None:
        policy = Policy(host="0.0.0.0")
        assert policy.answers_to("192.168.1.20:8787") and policy.answers_to("[fe80::1]:8787")
        assert not policy.answers_to("rebind.evil.example:8787")
        assert Policy(host="192.168.1.20").answers_to("192.168.1.20")
        assert not Policy(host="192.168.1.20").answers_to("192.168.1.21")

    def test_host_names_are_read_without_port_or_brackets(self) -> None:
        assert host_name("LocalHost.:8787") == "localhost"
        assert host_name("[::1]:8787") == "::1"
        assert host_name("::1") == "::1"


class TestOrigin:
    """A change sent by another web site is refused before anything is read."""

    @pytest.mark.parametrize(
        "origin",
        [
            EVIL,
            "null",
            "http://127.0.0.1:9999",
            "file://",
            "http://[abc",
            "http://a b",
            "é".encode(),
        ],
    )
    def test_a_foreign_origin_cannot_call_the_proxy(
        self, served: Proxy, origin: str | bytes
    ) -> None:
        """The player's upstream key is never spent by another page (a port of the same host
        is another origin too)."""
        response = _post(served, "/v1/chat/completions", COMPLETION, Origin=origin)
        assert response.status_code == 403
        assert "may not change anything" in response.json()["error"]["message"]
        assert served.upstream.requests == []
        assert _chats(served) == []

    @pytest.mark.parametrize("origin", [EVIL, "null"])
    def test_a_foreign_origin_cannot_save_or_build(self, served: Proxy, origin: str) -> None:
        for path, body in [
            ("/gmtags/api/builder/save", _save()),
            ("/gmtags/api/builder/build", {"answers": {}, "chat": "guarded"}),
        ]:
            response = _post(served, path, body, Origin=origin, **{"Content-Type": "text/plain"})
            assert response.status_code == 403, path
        assert _chats(served) == []

    def test_cross_site_fetch_metadata_without_origin_is_refused(self, served: Proxy) -> None:
        response = _post(
            served, "/v1/chat/completions", COMPLETION, **{"Sec-Fetch-Site": "cross-site"}
        )
        assert response.status_code == 403
        assert served.upstream.requests == []

    def test_the_servers_own_origin_and_an_allowed_one_pass(self, served: Proxy) -> None:
        own = _post(served, "/gmtags/api/builder/save", _save("own"), Origin=served.server.url,
                    **{"Content-Type": "application/json"})  # fmt: skip
        assert own.status_code == 200
        allowed = _post(
            served,
            "/v1/chat/completions",
            COMPLETION,
            Origin=EXTENSION,
            **{"Content-Type": "application/json", "X-Gmtags-Chat": "st"},
        )
        assert allowed.status_code == 200
        assert allowed.headers["access-control-allow-origin"] == EXTENSION
        assert "X-Gmtags-Chat" in allowed.headers["access-control-expose-headers"]

    def test_a_client_that_is_not_a_browser_passes(self, served: Proxy) -> None:
        """No Origin and no fetch metadata: the chat client itself (SillyTavern's server)."""
        response = _post(served, "/v1/chat/completions", COMPLETION)
        assert response.status_code == 200


class TestContentType:
    """The pages' JSON endpoints take JSON only, so no HTML form can post to them."""

    @pytest.mark.parametrize(
        "content_type",
        [
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
            None,
        ],
    )
    def test_a_form_body_is_refused(self, served: Proxy, content_type: str | None) -> None:
        headers = {} if content_type is None else {"Content-Type": content_type}
        response = _post(served, "/gmtags/api/builder/save", _save(), **headers)
        assert response.status_code == 415
        assert "application/json" in response.json()["error"]["message"]
        assert _chats(served) == []

    def test_json_with_a_charset_is_read(self, served: Proxy) -> None:
        response = _post(
            served,
            "/gmtags/api/builder/save",
            _save(),
            **{"Content-Type": "Application/JSON; charset=utf-8"},
        )
        assert response.status_code == 200
        assert [chat["chat"] for chat in _chats(served)] == ["guarded"]


class TestCors:
    def test_a_preflight_from_an_allowed_origin_is_answered_for_it_alone(
        self, served: Proxy
    ) -> None:
        response = httpx.options(
            f"{served.server.url}/v1/chat/completions",
            headers={
                "Origin": EXTENSION,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "content-type, x-gmtags-chat, x-gmtags-token",
            },
        )
        assert response.status_code == 204
        assert response.headers["access-control-allow-origin"] == EXTENSION
        assert "POST" in response.headers["access-control-allow-methods"]
        allowed = response.headers["access-control-allow-headers"]
        assert allowed == "content-type, x-gmtags-chat, x-gmtags-token"
        assert response.headers["vary"] == "Origin"

    def test_a_preflight_from_another_origin_gets_no_cors(self, served: Proxy) -> None:
        response = httpx.options(
            f"{served.server.url}/gmtags/api/builder/save",
            headers={"Origin": EVIL, "Access-Control-Request-Method": "POST"},
        )
        assert response.status_code == 403
        assert not any(name.startswith("access-control-") for name in response.headers)

    def test_reads_carry_cors_only_for_an_allowed_origin(self, served: Proxy) -> None:
        url = f"{served.server.url}/gmtags/api/chats"
        assert (
            httpx.get(url, headers={"Origin": EXTENSION}).headers["access-control-allow-origin"]
            == EXTENSION
        )
        assert "access-control-allow-origin" not in httpx.get(url, headers={"Origin": EVIL}).headers
        assert "access-control-allow-origin" not in httpx.get(url).headers

    def test_a_preflight_needs_no_token(self, make_proxy: Callable[..., Proxy]) -> None:
        """A browser sends no custom header with a preflight: the token is asked of the request
        itself."""
        proxy = make_proxy(allow_origins=(EXTENSION,), token="t0k")
        preflight = httpx.options(
            f"{proxy.server.url}/gmtags/api/chats",
            headers={"Origin": EXTENSION, "Access-Control-Request-Method": "GET"},
        )
        assert preflight.status_code == 204
        refused = httpx.get(f"{proxy.server.url}/gmtags/api/chats", headers={"Origin": EXTENSION})
        assert refused.status_code == 401
        assert refused.headers["access-control-allow-origin"] == EXTENSION


class TestHeaders:
    def test_pages_carry_a_content_security_policy(self, served: Proxy) -> None:
        page = httpx.get(f"{served.server.url}/gmtags/")
        policy = page.headers["content-security-policy"]
        assert "script-src 'self'" in policy and "'unsafe-inline'" not in policy
        assert policy.endswith(f"frame-ancestors 'self' {EXTENSION}")
        assert page.headers["x-content-type-options"] == "nosniff"

    def test_every_response_is_nosniff_and_kept_from_other_sites(self, served: Proxy) -> None:
        for path in ["/healthz", "/gmtags/api/chats", "/gmtags/static/base.css"]:
            response = httpx.get(f"{served.server.url}{path}")
            assert response.headers["x-content-type-options"] == "nosniff", path
            assert response.headers["cross-origin-resource-policy"] == "same-origin", path


class TestTokenCookie:
    """The cookie the pages set counts for the pages' own requests only."""

    def test_a_same_site_page_on_another_port_gets_nothing_with_the_cookie(
        self, make_proxy: Callable[..., Proxy]
    ) -> None:
        proxy = make_proxy(token="t0k")
        url = f"{proxy.server.url}/gmtags/api/chats"
        cookie = {"Cookie": "gmtags_token=t0k"}
        assert (
            httpx.get(url, headers={**cookie, "Sec-Fetch-Site": "same-origin"}).status_code == 200
        )
        assert httpx.get(url, headers=cookie).status_code == 200
        for site in ["same-site", "cross-site"]:
            response = httpx.get(url, headers={**cookie, "Sec-Fetch-Site": site})
            assert response.status_code == 401, site

    def test_a_framed_page_counts_the_cookie_but_a_framed_change_does_not(
        self, make_proxy: Callable[..., Proxy]
    ) -> None:
        """The Game panel a SillyTavern page frames reads with the cookie (the frame is
        drawn only where frame-ancestors allows); nothing but a GET gets that leeway."""
        proxy = make_proxy(token="t0k")
        framed = {"Cookie": "gmtags_token=t0k", "Sec-Fetch-Site": "same-site"}
        framed["Sec-Fetch-Dest"] = "iframe"
        page = httpx.get(f"{proxy.server.url}/gmtags/", headers=framed)
        assert page.status_code == 200
        fetched = {**framed, "Sec-Fetch-Dest": "empty"}
        assert httpx.get(f"{proxy.server.url}/gmtags/", headers=fetched).status_code == 401
        posted = httpx.post(
            f"{proxy.server.url}/gmtags/api/builder/build",
            json={"answers": {}},
            headers={**framed, "Origin": proxy.server.url},
        )
        assert posted.status_code == 401


class TestLoopback:
    @pytest.mark.parametrize("host", ["127.0.0.1", "127.4.5.6", "::1", "[::1]", "localhost"])
    def test_loopback_needs_no_token(self, host: str) -> None:
        assert not needs_token(host)

    @pytest.mark.parametrize(
        "host", ["127.attacker.example", "0.0.0.0", "::", "192.168.1.2", "127.0.0.1.nip.io"]
    )
    def test_anything_else_needs_one(self, host: str) -> None:
        assert needs_token(host)

    def test_serve_refuses_a_name_that_only_starts_with_127(self) -> None:
        result = invoke(
            serve_command,
            *["--ruleset", "r.json", "--upstream", "http://x/v1", "--host", "127.attacker.example"],
        )
        assert result.returncode == 2
        assert "--token" in result.stderr

    @pytest.mark.parametrize(
        "origin", ["*", "http://x.example/path", "ftp://x.example", "x.example"]
    )
    def test_serve_refuses_an_allow_origin_that_is_not_an_origin(self, origin: str) -> None:
        result = invoke(
            serve_command,
            *["--ruleset", "r.json", "--upstream", "http://x/v1", "--allow-origin", origin],
        )
        assert result.returncode == 2
        assert "--allow-origin" in result.stderr

    def test_origins_are_compared_as_browsers_send_them(self) -> None:
        assert normal_origin("HTTP://127.0.0.1:80/") == "http://127.0.0.1"
        assert normal_origin("https://ST.example:443") == "https://st.example"


class TestAnyHeaders:
    """No header value makes the guard fail: it passes the request on or refuses it."""

    @settings(max_examples=300, deadline=None)
    @given(
        method=st.sampled_from(["GET", "POST", "OPTIONS", "PUT", "DELETE"]),
        path=st.sampled_from(["/v1/chat/completions", "/gmtags/api/builder/save", "/healthz"]),
        values=st.dictionaries(
            st.sampled_from(
                [
                    "host",
                    "origin",
                    "sec-fetch-site",
                    "content-type",
                    "content-length",
                    "transfer-encoding",
                    "access-control-request-method",
                    "access-control-request-headers",
                ]
            ),
            st.binary(max_size=60),
        ),
    )
    def test_the_guard_never_fails(self, method: str, path: str, values: dict[str, bytes]) -> None:
        statuses: list[int] = []

        async def app(scope: Any, receive: Any, send: Any) -> None:
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"ok"})

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                statuses.append(message["status"])

        scope = {
            "type": "http",
            "method": method,
            "path": path,
            "headers": [(name.encode(), value) for name, value in values.items()],
        }
        guard = Guard(app, Policy(allow_origins=(EXTENSION,)))
        asyncio.run(guard(scope, receive, send))
        assert statuses and statuses[0] in (200, 204, 403, 415, 421)
