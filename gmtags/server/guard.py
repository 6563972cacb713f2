"""Only the player's own pages and client may change anything (SPEC §11).

The browser is the attack path: any web site the player opens can send
requests to 127.0.0.1, and a DNS-rebinding page can make its own name resolve
there. `Guard` is the outermost middleware of `gmtags serve`, on every route,
with or without a token:

- **Host.** A request whose `Host` is not a name the server answers to is
  refused with 421: the loopback names and addresses (`localhost`,
  127.0.0.0/8, `::1`), the `--host` address, and the names in
  `--public-host`. A server listening on every address (`--host 0.0.0.0` or
  `::`) also answers to any IP address written as one, since DNS rebinding
  needs a name. The port is not compared (a reverse proxy may change it). A
  request with no `Host` is refused too.
- **Origin.** A request that can change anything (every method but GET,
  HEAD and OPTIONS: every POST, the proxy routes included) is refused with
  403 when its `Origin` is present and is neither the server's own origin
  (`http(s)://` and the request's `Host`) nor one in `--allow-origin`
  (`Origin: null`, which sandboxed frames and some redirects send, is never
  allowed), or when it carries `Sec-Fetch-Site: cross-site` with no `Origin`.
  A client that is not a browser sends neither, and passes.
- **Content type.** The pages' JSON endpoints (`POST /gmtags/api/…`) refuse
  a body whose `Content-Type` is not `application/json` (parameters such as
  `charset=utf-8` allowed; a missing one refused) with 415, so no HTML form
  can post to them (a form can only send `text/plain`, urlencoded or
  multipart bodies).
- **CORS.** Responses carry CORS headers only for an `--allow-origin` origin
  (the SillyTavern extension's page): `Access-Control-Allow-Origin` naming
  that origin alone, and `X-Gmtags-Chat` exposed. A preflight (`OPTIONS` with
  `Access-Control-Request-Method`) from such an origin is answered here with
  204, before the token gate (a browser sends no custom header with a
  preflight); one from any other origin is 403 with no CORS header.
- **Headers on every response.** `X-Content-Type-Options: nosniff`,
  `Cross-Origin-Resource-Policy: same-origin` (no other site reads a response
  through an image or script tag) and `Referrer-Policy: same-origin`; an HTML
  page also gets `Content-Security-Policy` (`CSP`: scripts, styles and
  requests to this server only, no inline script or style, no plugins, forms
  posting here only, and `frame-ancestors` limited to this server and the
  allowed origins, so no other site frames a page under the player's cursor).

Refusals are OpenAI-style JSON errors, answered before the app sees the
request: nothing is read, stored or forwarded, and no chat is made.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from starlette.responses import Response

from gmtags.server.auth import App, Message, Receive, Scope, Send, address, is_loopback
from gmtags.server.errors import error_response

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
JSON_ENDPOINTS = "/gmtags/api/"
EXPOSED = "X-Gmtags-Chat"
PREFLIGHT_MAX_AGE = "600"
ALLOWED_METHODS = "GET, POST, OPTIONS"
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
    " connect-src 'self'; font-src 'self'; form-action 'self'; base-uri 'none';"
    " frame-ancestors 'self'"
)
"""The pages' policy; `Policy.csp` adds the allowed origins to `frame-ancestors`."""


def origin_problem(origin: str) -> str | None:
    """Why `origin` cannot be an `--allow-origin` value, or None: `scheme://host[:port]`."""
    try:
        parts = urlsplit(origin)
    except ValueError:  # an unclosed IPv6 bracket
        return "is not a URL"
    if not origin.isascii() or not origin.isprintable() or " " in origin:
        return "must be written in ASCII with no spaces (a browser sends a name in punycode)"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "must be an origin such as http://127.0.0.1:8000 (scheme, host and port)"
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        return "must be an origin alone, with no path, query or user"
    try:
        parts.port  # noqa: B018 (a bad port raises)
    except ValueError:
        return "has a port that is not a number from 0 to 65535"
    return None


def normal_origin(origin: str) -> str:
    """`origin` as a browser sends it: lower case, no trailing slash, no default port (text
    that is no URL is kept as it is, and matches no origin)."""
    try:
        parts = urlsplit(origin.strip())
    except ValueError:
        return origin
    scheme = parts.scheme.casefold()
    return f"{scheme}://{_netloc(scheme, parts.netloc)}"


def _netloc(scheme: str, netloc: str) -> str:
    netloc = netloc.casefold()
    default = {"http": ":80", "https": ":443"}.get(scheme)
    if default and netloc.endswith(default):
        netloc = netloc[: -len(default)]
    return netloc


def host_name(host: str) -> str:
    """The name in a `Host` header value, without its port, brackets or final dot."""
    host = host.strip().casefold()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host[1:]
    if host.count(":") == 1:
        host = host.split(":", 1)[0]
    return host.rstrip(".")


@dataclass(frozen=True, slots=True)
class Policy:
    """What one server answers to and whom it lets in (module doc)."""

    host: str = "127.0.0.1"
    """The `--host` address the server listens on."""
    public_hosts: tuple[str, ...] = ()
    """`--public-host`: the names clients beyond this machine reach it by."""
    allow_origins: tuple[str, ...] = ()
    """`--allow-origin`: the web origins whose pages may call the server."""

    names: frozenset[str] = field(init=False, compare=False)
    """The names it answers to besides loopback: `--host` and `--public-host`."""
    everywhere: bool = field(init=False, compare=False)
    """It listens on every address (`0.0.0.0`, `::`), so it answers to any IP address."""
    origins: frozenset[str] = field(init=False, compare=False)
    """The allowed origins as browsers send them."""
    csp: str = field(init=False, compare=False)
    """The pages' policy, `frame-ancestors` naming the allowed origins."""

    def __post_init__(self) -> None:
        # Worked out once: `answers_to` runs on every request.
        listening = address(host_name(self.host))
        origins = frozenset(normal_origin(origin) for origin in self.allow_origins)
        names = frozenset({host_name(self.host), *(host_name(h) for h in self.public_hosts)})
        object.__setattr__(self, "names", names)
        object.__setattr__(self, "everywhere", listening is not None and listening.is_unspecified)
        object.__setattr__(self, "origins", origins)
        object.__setattr__(self, "csp", " ".join([CSP, *sorted(origins)]))

    def answers_to(self, host: str) -> bool:
        """Whether a request with this `Host` header value is for this server."""
        name = host_name(host)
        if not name:
            return False
        if name in self.names or is_loopback(name):
            return True
        return self.everywhere and address(name) is not None


class Guard:
    """ASGI middleware: the checks of the module doc in front of `app`."""

    def __init__(self, app: App, policy: Policy) -> None:
        self.app = app
        self.policy = policy
        self.origins = policy.origins
        self.csp = policy.csp.encode("latin-1")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        origin = headers.get("origin")
        allowed = origin is not None and normal_origin(origin) in self.origins
        body = _Body(receive, _has_body(headers))
        sender = self._sender(send, origin if allowed else None, body)
        response = self._refusal(scope, headers)
        if response is None and _is_preflight(scope, headers):
            response = self._preflight(allowed, origin or "", headers)
        if response is not None:
            await response(scope, body.receive, sender)
            return
        await self.app(scope, body.receive, sender)

    def _refusal(self, scope: Scope, headers: dict[str, str]) -> Response | None:
        """The refusal of a request the module doc refuses, else None."""
        host = headers.get("host")
        if host is None or not self.policy.answers_to(host):
            shown = "no Host header" if host is None else f"the host {host_name(host)!r}"
            return _refused(
                421,
                f"this gmtags server does not answer to {shown}: use its address, or start it"
                " with --public-host NAME",
                "unknown_host",
            )
        method = scope["method"]
        if method in SAFE_METHODS:
            return None
        origin = headers.get("origin")
        if origin is not None and not self._trusted(origin, host):
            return _refused(
                403,
                f"requests from the web page at {origin[:100]!r} may not change anything here"
                " (gmtags serve --allow-origin lets a page's origin in)",
                "foreign_origin",
            )
        if origin is None and headers.get("sec-fetch-site", "").strip() == "cross-site":
            return _refused(
                403,
                "a request sent by another web site may not change anything here",
                "foreign_origin",
            )
        if scope["path"].startswith(JSON_ENDPOINTS) and not _is_json(headers):
            return _refused(
                415, "the body must be sent as Content-Type: application/json", "not_json"
            )
        return None

    def _trusted(self, origin: str, host: str) -> bool:
        """Whether a request from `origin` may change things on a server reached as `host`."""
        if origin.strip() == "null" or origin_problem(origin) is not None:
            return False
        normal = normal_origin(origin)
        if normal in self.origins:
            return True
        scheme = normal.split("://", 1)[0]
        return normal == f"{scheme}://{_netloc(scheme, host.strip())}"

    def _preflight(self, allowed: bool, origin: str, headers: dict[str, str]) -> Response:
        """The answer to a CORS preflight: 204 with the CORS headers for an allowed origin
        (`_sender` adds `Access-Control-Allow-Origin`), else 403."""
        if not allowed:
            return _refused(
                403,
                f"the web page at {origin[:100]!r} may not call this server"
                " (gmtags serve --allow-origin lets a page's origin in)",
                "foreign_origin",
            )
        requested = allowed_headers(headers.get("access-control-request-headers", ""))
        answer = {
            "Access-Control-Allow-Methods": ALLOWED_METHODS,
            "Access-Control-Max-Age": PREFLIGHT_MAX_AGE,
        }
        if requested:
            answer["Access-Control-Allow-Headers"] = requested
        return Response(status_code=204, headers=answer)

    def _sender(self, send: Send, origin: str | None, body: _Body) -> Send:
        """`send` with the module doc's headers added to the response's start, and
        `Connection: close` when the request's body was not read to its end (a refusal): the
        server then reads no more of it, where it would otherwise read the rest to keep the
        connection (a 300 MiB body refused at its first MiB is not read to the end)."""
        csp = self.csp

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                raw = list(message.get("headers", []))
                present = {name.lower() for name, _ in raw}
                extra = [
                    (b"x-content-type-options", b"nosniff"),
                    (b"cross-origin-resource-policy", b"same-origin"),
                    (b"referrer-policy", b"same-origin"),
                ]
                content_type = next((v for n, v in raw if n.lower() == b"content-type"), b"")
                if content_type.startswith(b"text/html"):
                    extra.append((b"content-security-policy", csp))
                if origin is not None:
                    extra += [
                        (b"access-control-allow-origin", origin.encode("latin-1")),
                        (b"access-control-expose-headers", EXPOSED.encode()),
                        (b"vary", b"Origin"),
                    ]
                if not body.done:
                    extra.append((b"connection", b"close"))
                raw += [(name, value) for name, value in extra if name not in present]
                message = {**message, "headers": raw}
            await send(message)

        return sending


def _headers(scope: Scope) -> dict[str, str]:
    """The request's headers by lower-case name (the first of each), as latin-1 text."""
    found: dict[str, str] = {}
    for name, value in scope.get("headers", []):
        found.setdefault(name.decode("latin-1").lower(), value.decode("latin-1"))
    return found


def _is_json(headers: dict[str, str]) -> bool:
    media = headers.get("content-type", "").split(";", 1)[0].strip().casefold()
    return media == "application/json"


class _Body:
    """The request's `receive`, noting whether its body was read to the end."""

    def __init__(self, receive: Receive, expected: bool) -> None:
        self._receive = receive
        self.done = not expected

    async def receive(self) -> Message:
        message = await self._receive()
        if message["type"] == "http.request" and not message.get("more_body", False):
            self.done = True
        return message


def _has_body(headers: dict[str, str]) -> bool:
    """Whether the request comes with a body (a length above 0, or chunks)."""
    length = headers.get("content-length", "").strip()
    return "transfer-encoding" in headers or (length != "" and length != "0")


def _is_preflight(scope: Scope, headers: dict[str, str]) -> bool:
    return (
        scope["method"] == "OPTIONS"
        and "origin" in headers
        and "access-control-request-method" in headers
    )


def _refused(status: int, message: str, code: str) -> Response:
    return error_response(status, message, "invalid_request_error", code)


def allowed_headers(requested: str) -> str:
    """The headers a preflight may ask for, as `Access-Control-Allow-Headers` says them."""
    names: Iterable[str] = (name.strip() for name in requested.split(","))
    return ", ".join(name for name in names if name and name.isascii() and name.isprintable())
