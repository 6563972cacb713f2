"""`--token`: who may use a proxy that listens beyond loopback (SPEC §11).

"Binding elsewhere requires `--token T`; then every `/gmtags/` route and the
proxy require `X-Gmtags-Token: T` (or the cookie the pages set after asking
for it once); `Authorization` always passes through to the upstream
untouched" (unless the key lives on the server, SPEC §7.2). So:

- A request to any route but `/healthz` (the proxy's API routes, `/gmtags/…`)
  without the token is refused: 401 with
  an OpenAI-style error for the proxy and the JSON endpoints, and for a
  browser opening a page (a GET that accepts `text/html`) the small form that
  asks for the token once. `POST /gmtags/login` with the
  right token sets the `gmtags_token` cookie (HttpOnly, SameSite=Strict,
  Path=/gmtags) and sends the browser back to the page it came from (a path
  on this server only); a wrong one is the form again, with 401.
- `/healthz` stays open (a process supervisor's liveness check reads no game), and so
  do the pages' shipped styles and scripts under `/gmtags/static/`.
- The token is compared in constant time, never logged, never echoed, and
  `X-Gmtags-Token` is never sent upstream (`gmtags.server.upstream`). With the
  upstream's key on the server (`--upstream-key-env`), a client with one key
  field sends the token as its key (`Authorization: Bearer T`, or
  `x-api-key: T`); those headers then never go upstream either (gmtags sets
  the upstream's own with the server's key). The pages never see the upstream's key: the
  browser sends it nowhere, and the JSON endpoints never include headers.

The cookie counts only on a request from this server's own pages
(`Sec-Fetch-Site` absent, `same-origin` or `none`): a page on another port of
the same host is "same-site" to the browser, which would send it the cookie
with a SameSite=Strict one too. (`gmtags.server.guard` refuses such a page's
changes whatever it sends; this keeps it from reading anything either.) One
exception: a page drawn in a frame (`GET`, `Sec-Fetch-Dest: iframe`), such as
the Game panel the SillyTavern extension frames (SPEC §13), counts the cookie
from any site. The browser draws such a frame only where the page's
`frame-ancestors` lets it (this server and the `--allow-origin` origins), a
page that frames it cannot read it, and a `GET` changes nothing; so a player
with a token signs in once inside the panel and the panel then works.

Decisions where the spec is silent: the header wins over the cookie when both
are given; a page's form posts the token as a form field (never in the URL,
which servers log); a client like SillyTavern sends the header through its
custom endpoint's extra headers.
"""

from __future__ import annotations

import hmac
import html
import ipaddress
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from gmtags.server.errors import error_response

HEADER = "x-gmtags-token"
COOKIE = "gmtags_token"
LOGIN = "/gmtags/login"
LOOPBACK_NAMES = frozenset({"localhost"})
"""Names that need no token besides the loopback addresses: only this machine reaches them."""
SAME_ORIGIN = frozenset({"same-origin", "none"})
"""`Sec-Fetch-Site` values with which the cookie counts (module doc)."""
MAX_FORM = 4096
"""The largest login form read (bytes)."""

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def address(name: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The IP address `name` spells, or None when it is a name."""
    try:
        return ipaddress.ip_address(name)
    except ValueError:
        return None


def is_loopback(host: str) -> bool:
    """Whether `host` names this machine only: `localhost`, an address in 127.0.0.0/8 or
    `::1`; a name that merely starts with `127.` (`127.attacker.example`) is not one."""
    name = host.strip().strip("[]").rstrip(".").casefold()
    if name in LOOPBACK_NAMES:
        return True
    found = address(name)
    return found is not None and found.is_loopback


def needs_token(host: str) -> bool:
    """Whether listening on `host` needs `--token` (anything but loopback)."""
    return not is_loopback(host)


def _same(given: str | None, token: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), token.encode())


def _guarded(path: str) -> bool:
    """Every route (the pages, their APIs and every API shape the proxy speaks) but the
    liveness check and the pages' shipped styles and scripts (`/gmtags/static/`, the same
    for everyone, no game in them), so the form is styled."""
    return path != "/healthz" and not path.startswith("/gmtags/static/")


def _bearer(request: Request) -> str | None:
    """The token as a client with one key field sends it (SPEC §7.2): `Authorization:
    Bearer T`, or Anthropic's `x-api-key: T`."""
    auth = request.headers.get("authorization", "")
    scheme, _, value = auth.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return request.headers.get("x-api-key")


def _page(request: Request) -> bool:
    """A page a person opens (answered with the form): a browser's GET asking for HTML, as
    opposed to the proxy, a JSON endpoint or a script."""
    return request.method == "GET" and "text/html" in request.headers.get("accept", "")


def _own_page(request: Request) -> bool:
    """Whether the request may count the cookie: sent by this server's own pages (or typed in
    the address bar), never by a page of another origin, even one on the same host
    (`Sec-Fetch-Site: same-site`: another port of 127.0.0.1), whose request the browser would
    otherwise send with the cookie. A client that is not a browser sends no such header."""
    site = request.headers.get("sec-fetch-site")
    if site is None or site.strip() in SAME_ORIGIN:
        return True
    return request.method == "GET" and request.headers.get("sec-fetch-dest") == "iframe"


def _back(target: str) -> str:
    """Where the login sends the browser: a path of this server's pages, else the index."""
    if target.startswith("/gmtags") and not target.startswith("//") and "\\" not in target:
        return target
    return "/gmtags/"


def login_form(back: str, wrong: bool) -> HTMLResponse:
    """The form that asks for the token once (module doc)."""
    note = '<p role="alert">That token is not right.</p>' if wrong else ""
    body = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>gmtags: token needed</title>
<link rel="stylesheet" href="/gmtags/static/base.css"></head>
<body><header class="site"><span class="brand">gmtags</span></header>
<main id="main"><h1>Token needed</h1>
<p>This server asks for its token once; your browser keeps it for these pages.</p>{note}
<form class="card" method="post" action="{LOGIN}">
<input type="hidden" name="next" value="{html.escape(back, quote=True)}">
<p><label for="token">Token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Open</button></p></form></main></body></html>"""
    return HTMLResponse(body, status_code=401)


class TokenGate:
    """ASGI middleware: the token check of the module doc in front of `app`."""

    def __init__(self, app: App, token: str, bearer: bool = False) -> None:
        self.app = app
        self.token = token
        self.bearer = bearer
        """The upstream's key lives on the server (`--upstream-key-env`), so the client's own
        key header may carry the token instead."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _guarded(scope["path"]):
            await self.app(scope, receive, send)
            return
        request = Request(scope, receive)
        if scope["path"] == LOGIN and request.method == "POST":
            response = await self._login(request)
            await response(scope, receive, send)
            return
        given = request.headers.get(HEADER)
        if given is None and self.bearer:
            given = _bearer(request)
        if given is None and _own_page(request):
            given = request.cookies.get(COOKIE)
        if _same(given, self.token):
            await self.app(scope, receive, send)
            return
        await self._refuse(request)(scope, receive, send)

    def _refuse(self, request: Request) -> Response:
        if _page(request):
            query = f"?{request.url.query}" if request.url.query else ""
            return login_form(_back(request.url.path + query), wrong=False)
        return error_response(
            401,
            "this gmtags server needs its token: send it as the X-Gmtags-Token header"
            + (" or as the API key" if self.bearer else ""),
            "authentication_error",
            "token_required",
        )

    async def _login(self, request: Request) -> Response:
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_FORM:
                return error_response(413, "the login form is too large", "invalid_request_error")
        form = parse_qs(body.decode("utf-8", "replace"))
        back = _back((form.get("next") or ["/gmtags/"])[0])
        given = form.get("token") or []
        if not given or not _same(given[0], self.token):
            return login_form(back, wrong=True)
        response = RedirectResponse(back, status_code=303)
        response.set_cookie(COOKIE, self.token, httponly=True, samesite="strict", path="/gmtags")
        return response


__all__ = ["TokenGate", "login_form", "needs_token"]
