"""Another web site in Chromium against `gmtags serve` (SPEC §11: "Only the player's own pages
and client may change anything").

A page of our own is served on other loopback ports (`http://127.0.0.1:B` and
`http://localhost:B`, which Chromium takes for two different sites, and
`http://127.0.0.1:A`), and from it Chromium tries what any site the player
opens could try: HTML forms posting to the page API and to the proxy (text/plain
with a JSON body inside, urlencoded, multipart), `fetch` in `no-cors` mode, and
`fetch` with CORS (a preflighted JSON POST, a plain GET of the chats). Each is
refused: the server answers 403, or the browser's fetch fails; nothing is
stored (the chats, their states and nodes read through the API are as before)
and the upstream gets no request. A page on `127.0.0.1:B` is cross-origin but
same-site to the server on `127.0.0.1:P`, so there the `Origin` check alone
refuses it.

With `--allow-origin http://127.0.0.1:A` the page at A (the SillyTavern
extension's place) calls the proxy and reads the chats with CORS; its
preflight names that origin alone, and every other origin is still refused.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page

from tests.served import CARD, Served, complete, observe, serve_many

VICTIM = "victim"
"""A chat with one reply on each server: what a foreign page would write into."""
ELSEWHERE = b"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>elsewhere</title></head>
<body><p>Some other web site the player has open.</p></body></html>"""
SAVE_BODY = {"chat": VICTIM, "name": "Planted By Another Site", "card": CARD}
COMPLETION_BODY = {
    "model": "gmtags-demo",
    "messages": [{"role": "user", "content": "Another site speaks for the player."}],
}
ENCTYPES = ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data")


class _Elsewhere(BaseHTTPRequestHandler):
    """Every path is the same small page."""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(ELSEWHERE)))
        self.end_headers()
        self.wfile.write(ELSEWHERE)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@dataclass(frozen=True)
class Site:
    """A `gmtags serve` under test, and a client of it as its own player."""

    served: Served
    client: httpx.Client

    @property
    def url(self) -> str:
        return self.served.url

    def stored(self) -> tuple[dict[str, Any], int]:
        """What the server has stored, and how many completions reached its upstream."""
        return observe(self.client), self.served.completions


@dataclass(frozen=True)
class World:
    """Two pages elsewhere and two servers: `plain` allows no origin, `allowing` allows the
    page on port `a`."""

    a: int
    b: int
    plain: Site
    allowing: Site

    @property
    def allowed(self) -> str:
        return f"http://127.0.0.1:{self.a}"


def _elsewhere() -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Elsewhere)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    """The pages at A and B and both servers, each with the chat `VICTIM` of one reply; no
    traceback in either server's log at the end."""
    folder = tmp_path_factory.mktemp("cross-site")
    with ExitStack() as stack:
        page_a, page_b = _elsewhere(), _elsewhere()
        for elsewhere in (page_a, page_b):
            stack.callback(elsewhere.server_close)
            stack.callback(elsewhere.shutdown)
        a, b = page_a.server_address[1], page_b.server_address[1]
        plain, allowing = stack.enter_context(
            serve_many(folder, (), ("--allow-origin", f"http://127.0.0.1:{a}"))
        )
        sites = []
        for served in (plain, allowing):
            complete(served.url, VICTIM)
            sites.append(Site(served, stack.enter_context(served.client())))
        yield World(int(a), int(b), *sites)
        for site in sites:
            assert "Traceback" not in site.served.log_text(), site.served.log_text()


FOREIGN = ("http://127.0.0.1:{b}", "http://localhost:{b}")
"""The pages that are neither the server's nor allowed: same-site and cross-site."""
SITE_OF = {"http://127.0.0.1:{b}": "same-site", "http://localhost:{b}": "cross-site"}
"""What Chromium says in `Sec-Fetch-Site` for each, sending to `http://127.0.0.1:P`."""
WRITES = (("/gmtags/api/builder/save", SAVE_BODY), ("/v1/chat/completions", COMPLETION_BODY))


@dataclass
class Exchange:
    """One request Chromium sent and the status it got, as its DevTools protocol saw them
    (the page itself cannot: a no-cors response is opaque, a refused CORS one an error)."""

    method: str = ""
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    status: int | None = None


class Wire:
    """Every request a tab sends to `prefix`, with its status."""

    def __init__(self, page: Page, prefix: str) -> None:
        self.page = page
        self.prefix = prefix
        self.seen: dict[str, Exchange] = {}
        session = page.context.new_cdp_session(page)
        session.send("Network.enable")
        session.on("Network.requestWillBeSent", self._sent)
        session.on("Network.requestWillBeSentExtraInfo", self._headers)
        session.on("Network.responseReceivedExtraInfo", self._answered)

    def _one(self, event: dict[str, Any]) -> Exchange:
        return self.seen.setdefault(event["requestId"], Exchange())

    def _sent(self, event: dict[str, Any]) -> None:
        # A preflight and its request share no id; a redirect would reuse one (none here).
        exchange = self._one(event)
        exchange.method = event["request"]["method"]
        exchange.url = event["request"]["url"]

    def _headers(self, event: dict[str, Any]) -> None:
        self._one(event).headers = {k.lower(): v for k, v in event["headers"].items()}

    def _answered(self, event: dict[str, Any]) -> None:
        self._one(event).status = event["statusCode"]

    def exchanges(self, wanted: int) -> list[Exchange]:
        """The requests to `prefix` once `wanted` of them have their status."""
        for _ in range(200):
            found = [e for e in self.seen.values() if e.url.startswith(self.prefix)]
            if len([e for e in found if e.status is not None]) >= wanted:
                return found
            self.page.wait_for_timeout(25)
        raise AssertionError(f"fewer than {wanted} answers from {self.prefix}: {self.seen}")

    def clear(self) -> None:
        self.seen.clear()


@pytest.fixture
def tab(browser: Browser) -> Iterator[Page]:
    """A fresh tab of its own context (no cookies), for pages of other sites."""
    context = browser.new_context()
    yield context.new_page()
    context.close()


def _open(page: Page, world: World, origin: str) -> str:
    url = origin.format(a=world.a, b=world.b)
    page.goto(f"{url}/attack.html")
    assert page.title() == "elsewhere"
    return url


def _post_form(page: Page, action: str, enctype: str, body: dict[str, Any]) -> int:
    """Submit a form to `action` whose body is `body` as JSON (text/plain: `name=value`
    with the `=` hidden inside a JSON string) and give the status the page was answered."""
    text = json.dumps(body)
    name, value = text[:-1] + ', "pad": "', '"}'
    with page.expect_navigation() as navigated:
        page.evaluate(
            """([action, enctype, name, value]) => {
                const form = document.createElement("form");
                form.method = "POST";
                form.action = action;
                form.enctype = enctype;
                const field = document.createElement("input");
                field.type = "hidden";
                field.name = name;
                field.value = value;
                form.append(field);
                document.body.append(form);
                form.submit();
            }""",
            [action, enctype, name, value],
        )
    answer = navigated.value
    assert answer is not None
    return answer.status


FETCH = """async ([url, init]) => {
    try {
        const response = await fetch(url, init);
        const chat = response.headers.get("X-Gmtags-Chat");
        return {type: response.type, status: response.status, chat, body: await response.text()};
    } catch (error) {
        return {error: String(error)};
    }
}"""


def _fetch(page: Page, url: str, init: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate(FETCH, [url, init])
    return found


def _failed(seen: dict[str, Any]) -> bool:
    return "TypeError" in seen.get("error", "")


class TestForms:
    @pytest.mark.parametrize("origin", FOREIGN)
    def test_no_form_changes_anything(self, tab: Page, world: World, origin: str) -> None:
        """A form of another site (text/plain holding JSON, urlencoded, multipart) posting a
        character save or a completion is 403 (the `Origin` check, even same-site), and
        nothing is stored or sent upstream."""
        site = world.plain
        before = site.stored()
        wire = Wire(tab, site.url)
        for enctype in ENCTYPES:
            for route, body in WRITES:
                page_url = _open(tab, world, origin)
                status = _post_form(tab, f"{site.url}{route}", enctype, body)
                assert status == 403, (origin, enctype, route, status)
                assert tab.evaluate("document.body.innerText").startswith('{"error"')
        sent = [e for e in wire.exchanges(len(ENCTYPES) * len(WRITES)) if e.method == "POST"]
        assert [e.status for e in sent] == [403] * len(ENCTYPES) * len(WRITES), sent
        assert {e.headers.get("origin") for e in sent} == {page_url}
        assert {e.headers.get("sec-fetch-site") for e in sent} == {SITE_OF[origin]}
        assert site.stored() == before


class TestFetch:
    @pytest.mark.parametrize("origin", FOREIGN)
    def test_a_no_cors_post_changes_nothing(self, tab: Page, world: World, origin: str) -> None:
        """`fetch(…, {mode: "no-cors", method: "POST"})` with a JSON body (sent as text/plain,
        the only type no-cors allows) is 403, the page reads nothing (CORP), and nothing
        changes."""
        site = world.plain
        before = site.stored()
        page_url = _open(tab, world, origin)
        wire = Wire(tab, site.url)
        for route, body in WRITES:
            init = {
                "method": "POST",
                "mode": "no-cors",
                "body": json.dumps(body),
                "headers": {"Content-Type": "application/json"},
            }
            seen = _fetch(tab, f"{site.url}{route}", init)
            assert seen.get("type") == "opaque" or _failed(seen), (route, seen)
        sent = wire.exchanges(len(WRITES))
        assert [(e.method, e.status) for e in sent] == [("POST", 403)] * len(WRITES), sent
        assert {e.headers.get("origin") for e in sent} == {page_url}
        assert {e.headers.get("content-type") for e in sent} == {"text/plain;charset=UTF-8"}
        assert site.stored() == before

    @pytest.mark.parametrize("origin", FOREIGN)
    def test_cors_is_refused(self, tab: Page, world: World, origin: str) -> None:
        """A CORS JSON POST's preflight is 403 and the POST never goes; a CORS POST of text
        (no preflight) is 403; a CORS GET of the chats gets no `Access-Control-Allow-Origin`.
        Each fails in the page, with or without `--allow-origin` for another page; nothing
        is stored."""
        for site in (world.plain, world.allowing):
            before = site.stored()
            _open(tab, world, origin)
            wire = Wire(tab, site.url)
            for route, body in WRITES:
                url = f"{site.url}{route}"
                headers = {"Content-Type": "application/json", "X-Gmtags-Chat": VICTIM}
                init = {"method": "POST", "mode": "cors", "body": json.dumps(body)}
                assert _failed(_fetch(tab, url, {**init, "headers": headers})), route
                assert _failed(_fetch(tab, url, init)), route
            assert _failed(_fetch(tab, f"{site.url}/gmtags/api/chats", {"mode": "cors"}))
            sent = [(e.method, e.status) for e in wire.exchanges(2 * len(WRITES) + 1)]
            answered = [pair for pair in sent if pair[1] is not None]
            assert answered.count(("OPTIONS", 403)) == len(WRITES), sent
            assert answered.count(("POST", 403)) == len(WRITES), sent
            assert answered.count(("GET", 200)) == 1, sent
            assert len(answered) == 2 * len(WRITES) + 1, sent  # no preflighted POST went
            assert site.stored() == before


class TestAllowedOrigin:
    def test_the_allowed_page_plays_and_reads(self, tab: Page, world: World) -> None:
        """From `--allow-origin`'s page a CORS completion naming its chat is answered (the
        chat header readable), and the chats can be read."""
        site = world.allowing
        _, upstream = site.stored()
        _open(tab, world, "http://127.0.0.1:{a}")
        wire = Wire(tab, site.url)
        init = {
            "method": "POST",
            "mode": "cors",
            "headers": {"Content-Type": "application/json", "X-Gmtags-Chat": "from-the-extension"},
            "body": json.dumps(COMPLETION_BODY),
        }
        seen = _fetch(tab, f"{site.url}/v1/chat/completions", init)
        assert seen.get("status") == 200, seen
        assert seen["chat"] == "from-the-extension"
        assert "result=" in json.loads(seen["body"])["choices"][0]["message"]["content"]
        assert site.served.completions == upstream + 1
        listed = _fetch(tab, f"{site.url}/gmtags/api/chats", {"mode": "cors"})
        assert listed.get("status") == 200, listed
        assert "from-the-extension" in {row["chat"] for row in json.loads(listed["body"])}
        sent = sorted((e.method, e.status) for e in wire.exchanges(3))
        assert sent == [("GET", 200), ("OPTIONS", 204), ("POST", 200)], sent

    def test_the_preflight_names_the_allowed_origin_alone(self, world: World) -> None:
        """The allowed origin's preflight is 204 naming it; another origin's is 403 with no
        CORS header, and its POST is 403."""
        site = world.allowing
        asked = {
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type, x-gmtags-chat",
        }
        url = f"{site.url}/v1/chat/completions"
        allowed = site.client.options(url, headers={"Origin": world.allowed, **asked})
        assert allowed.status_code == 204
        assert allowed.headers.get_list("access-control-allow-origin") == [world.allowed]
        assert "POST" in allowed.headers["access-control-allow-methods"]
        wanted = allowed.headers["access-control-allow-headers"].lower()
        assert "content-type" in wanted and "x-gmtags-chat" in wanted
        before = site.stored()
        for other in (f"http://127.0.0.1:{world.b}", f"http://localhost:{world.a}"):
            refused = site.client.options(url, headers={"Origin": other, **asked})
            assert refused.status_code == 403, other
            assert not [name for name in refused.headers if name.startswith("access-control-")]
            posted = site.client.post(
                url, json=COMPLETION_BODY, headers={"Origin": other, "X-Gmtags-Chat": VICTIM}
            )
            assert posted.status_code == 403 and "error" in posted.json(), other
            assert "access-control-allow-origin" not in posted.headers
        assert site.stored() == before


class TestFrames:
    def test_only_the_allowed_origin_frames_a_page(self, tab: Page, world: World) -> None:
        """`frame-ancestors`: another site's frame of the chats page shows nothing of it; the
        allowed origin's frame shows it."""
        for origin, shown in (("http://127.0.0.1:{b}", False), ("http://127.0.0.1:{a}", True)):
            _open(tab, world, origin)
            target = f"{world.allowing.url}/gmtags/"
            tab.evaluate(
                """(src) => new Promise((done) => {
                    const frame = document.createElement("iframe");
                    frame.src = src;
                    frame.onload = () => done();
                    document.body.append(frame);
                })""",
                target,
            )
            framed = [frame for frame in tab.frames if frame.url == target]
            assert bool(framed) == shown, (origin, [frame.url for frame in tab.frames])
            if shown:
                assert VICTIM in framed[0].content()
