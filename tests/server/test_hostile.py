"""Hostile requests against a real `gmtags serve` over HTTP (SPEC §7.2, §8, §11).

Every route gets bodies of every JSON type and shape and many that are not
JSON (bad UTF-8, `NaN`, `1e999`, duplicate keys, lone surrogates, 150 levels
of nesting, 2 MiB), and headers a browser, a rebinding page or a broken client
may send (other hosts, foreign and `null` origins, `Sec-Fetch-Site:
cross-site`, form content types, odd `X-Gmtags-Chat` values). The requests go
out as raw bytes over a socket, so a header can be missing, repeated or not
UTF-8. Whatever comes in:

- the server never answers 5xx, never shows a traceback (in the body or its
  log), and still answers `/healthz`;
- a refusal of a JSON endpoint, and every refusal of another host, a foreign
  page or a form, is a JSON error;
- a refused request (any 4xx) and every GET change nothing: the chats, each
  chat's state and nodes, and the requests the upstream saw are as before;
- the guard's refusals are the ones SPEC §11 names: 421 for a host the server
  does not answer to, 403 for a change sent by another web page, 415 for a
  page API body that is not `application/json`; a body over the limit is 413
  and a body that is not strict JSON 400 (SPEC §8);
- a request that is not HTTP (a header value with a control character) is a
  400 before any of those, a JSON error naming the header
  (`gmtags.server.protocol`).
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.served import CARD, Served, complete, observe, serve_many

ALLOWED = "http://allowed.example:8000"
"""The one origin the server is started with `--allow-origin`."""
PUBLIC = "gmtags.example"
"""The one name the server is started with `--public-host`."""
TOKEN = "hostile-token"
SEEDED = "seeded"
"""A chat with one reply, made before the hostile requests."""
OTHER = "other"
"""A second chat with one reply (its node is not `SEEDED`'s)."""
MIB = 1024 * 1024

SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# ---------------------------------------------------------------------------------------------
# A raw HTTP/1.1 client: exactly the bytes asked for go out.


@dataclass(frozen=True)
class Ask:
    """One request as raw bytes: a missing, repeated or non-UTF-8 header is sent as it is."""

    method: str
    target: str
    headers: tuple[tuple[str, bytes], ...] = ()
    body: bytes | None = field(default=None, repr=False)
    chunked: bool = False
    http10: bool = False
    brief: bool = False
    """Read only the start of the answer (an events stream that lasts seconds)."""

    def wire(self) -> bytes:
        version = "HTTP/1.0" if self.http10 else "HTTP/1.1"
        lines = [f"{self.method} {self.target} {version}".encode("ascii")]
        lines += [name.encode("ascii") + b": " + value for name, value in self.headers]
        body = b""
        if self.body is not None:
            if self.chunked:
                lines.append(b"Transfer-Encoding: chunked")
                step = 64 * 1024
                pieces = [self.body[i : i + step] for i in range(0, len(self.body), step)]
                body = b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces) + b"0\r\n\r\n"
            else:
                lines.append(b"Content-Length: %d" % len(self.body))
                body = self.body
        lines.append(b"Connection: close")
        return b"\r\n".join(lines) + b"\r\n\r\n" + body

    def __repr__(self) -> str:
        body = None if self.body is None else self.body[:300]
        size = 0 if self.body is None else len(self.body)
        return (
            f"Ask({self.method} {self.target[:300]!r} http10={self.http10} "
            f"chunked={self.chunked} headers={[(n, v[:200]) for n, v in self.headers]!r} "
            f"body[{size} bytes]={body!r})"
        )


@dataclass(frozen=True)
class Answer:
    """A response as it came: status, headers by lower-case name, the body (de-chunked)."""

    status: int
    headers: dict[str, list[str]]
    body: bytes

    def header(self, name: str) -> str | None:
        values = self.headers.get(name.lower())
        return values[0] if values else None

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def __repr__(self) -> str:
        return f"Answer({self.status} {self.headers!r} {self.body[:600]!r})"


def send(port: int, ask: Ask, timeout: float = 30.0) -> Answer:
    """Send `ask` to the server on `port` and read its answer.

    The body goes out from a thread while the answer is read, so a server that refuses a
    large body early (413) is heard even when it stops reading and closes."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        writer = threading.Thread(target=_write, args=(sock, ask.wire()), daemon=True)
        writer.start()
        raw = _read(sock, ask.brief)
        writer.join(timeout)
    finally:
        sock.close()
    assert raw, f"the server closed the connection without an answer to {ask!r}"
    return _parse(raw, ask)


def _write(sock: socket.socket, data: bytes) -> None:
    with contextlib.suppress(OSError):  # the server stopped reading; its answer says why
        sock.sendall(data)


def _read(sock: socket.socket, brief: bool) -> bytes:
    data = bytearray()
    until: float | None = None
    while True:
        try:
            chunk = sock.recv(1 << 16)
        except ConnectionResetError:
            break
        except TimeoutError:
            if until is not None:
                break
            raise
        if not chunk:
            break
        data += chunk
        if brief and until is None and b"\r\n\r\n" in data:
            until = time.monotonic() + 1.0
            sock.settimeout(0.25)
        if until is not None and (b": connected" in data or time.monotonic() > until):
            break
    return bytes(data)


def _parse(raw: bytes, ask: Ask) -> Answer:
    head, found, rest = raw.partition(b"\r\n\r\n")
    assert found, f"an incomplete answer {raw[:300]!r} to {ask!r}"
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers: dict[str, list[str]] = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers.setdefault(name.strip().lower(), []).append(value.strip())
    if "chunked" in ",".join(headers.get("transfer-encoding", [])).lower():
        rest = _dechunk(rest)
    return Answer(status, headers, rest)


def _dechunk(data: bytes) -> bytes:
    out = bytearray()
    while data:
        size, found, data = data.partition(b"\r\n")
        if not found or not size.split(b";")[0].strip():
            break
        length = int(size.split(b";")[0], 16)
        if length == 0:
            break
        out += data[:length]
        data = data[length + 2 :]
    return bytes(out)


# ---------------------------------------------------------------------------------------------
# The routes and what may be sent to them.


@dataclass(frozen=True)
class Route:
    """One route of SPEC §7.2 and §11, as a template of its target."""

    method: str
    template: str
    json: bool
    """Whether it is a JSON endpoint (its refusals are JSON errors)."""

    @property
    def writes(self) -> bool:
        return self.method == "POST"

    @property
    def page_api(self) -> bool:
        return self.template.startswith("/gmtags/api/")


COMPLETIONS = Route("POST", "/v1/chat/completions", json=True)
BUILD = Route("POST", "/gmtags/api/builder/build", json=True)
SAVE = Route("POST", "/gmtags/api/builder/save", json=True)
LOGIN = Route("POST", "/gmtags/login", json=False)
EVENTS = Route("GET", "/gmtags/api/chats/{chat}/events", json=True)
NODE = Route("GET", "/gmtags/api/chats/{chat}/nodes/{node}", json=True)
READS = (
    Route("GET", "/v1/models", json=True),
    Route("GET", "/healthz", json=False),
    Route("GET", "/gmtags/", json=False),
    Route("GET", "/gmtags/chats/{chat}", json=False),
    Route("GET", "/gmtags/chats/{chat}?node={node}", json=False),
    Route("GET", "/gmtags/chats/{chat}/state", json=True),
    Route("GET", "/gmtags/api/chats", json=True),
    Route("GET", "/gmtags/api/chats/{chat}", json=True),
    NODE,
    EVENTS,
    Route("GET", "/gmtags/builder?{query}", json=False),
)
WRITES = (COMPLETIONS, BUILD, SAVE, LOGIN)
JSON_WRITES = (COMPLETIONS, BUILD, SAVE)
ROUTES = READS + WRITES

CHATS = (
    SEEDED,
    OTHER,
    "no-such-chat",
    "Élise",
    "a/b",
    "..",
    "\x00",
    "%00",
    "💥",
    " ",
    "\u202eevil",
    "x" * 300,
)
SEGMENTS = st.one_of(
    st.sampled_from(CHATS).map(lambda chat: quote(chat, safe="")),
    st.sampled_from(["%ff", "%ED%A0%80", "%C0%AF", "%2e%2e", "%", "%zz"]),
    st.text(max_size=12).map(lambda text: quote(text, safe="")),
)
"""A chat as one path segment: known and unknown chats, bad escapes, any text."""
PARTY = st.sampled_from(["0", "1", "yes", ""])
NODE_WORDS = ("١", "１", "¹", "-1", "99999999999999999999", "0", "1e3", "1.0", " 1", "", "%00")


def node_segments(real: str) -> st.SearchStrategy[str]:
    """A node id as a path segment: the real one, the real one in other digits, and others."""
    return st.sampled_from([real, *foreign_digits(real), *NODE_WORDS]).map(
        lambda node: quote(node, safe="")
    )


def foreign_digits(ascii_id: str) -> list[str]:
    """`ascii_id` written in Arabic-Indic, full-width and superscript digits: `str.isdigit`
    says yes to each, but a node id is ASCII digits only (SPEC §8)."""
    superscript = "⁰¹²³⁴⁵⁶⁷⁸⁹"
    return [
        "".join(chr(0x660 + int(d)) for d in ascii_id),
        "".join(chr(0xFF10 + int(d)) for d in ascii_id),
        "".join(superscript[int(d)] for d in ascii_id),
    ]


def good_hosts(port: int) -> list[str]:
    """`Host` values the server answers to: loopback, its `--host`, its `--public-host`."""
    return [
        f"127.0.0.1:{port}",
        f"localhost:{port}",
        "127.0.0.1",
        "localhost",
        f"[::1]:{port}",
        f"127.9.8.7:{port}",
        f"LocalHost:{port}",
        f"{PUBLIC}:{port}",
        PUBLIC,
    ]


def bad_hosts(port: int) -> list[bytes]:
    """`Host` values of other servers: a rebinding page's own name, names that only look
    local, other addresses, empty, not ASCII, very long."""
    names = [
        "evil.example",
        f"evil.example:{port}",
        f"127.0.0.1.evil.example:{port}",
        "127.attacker.example",
        f"localhost.evil.example:{port}",
        f"192.168.1.10:{port}",
        f"0.0.0.0:{port}",
        f"[::2]:{port}",
        "10.0.0.1",
        "",
        f"lоcalhost:{port}",  # a Cyrillic о
        f"localhost@evil.example:{port}",
        f"{PUBLIC}.evil.example",
        "x" * 3000,
    ]
    return [name.encode() for name in names] + [b"\xe9vil.example", b"\xff\xfe"]


def foreign_origins(port: int) -> list[bytes]:
    """`Origin` values of pages that are not the server's own nor allowed."""
    names = [
        "http://evil.example",
        "https://evil.example:443",
        f"http://127.0.0.1:{port + 1}",
        f"http://localhost:{port + 1}",
        f"http://[::1]:{port + 1}",
        "null",
        "",
        "file://",
        "chrome-extension://abcdefghijklmnopabcdefghijklmnop",
        f"http://127.0.0.1:{port}@evil.example",
        f"http://127.0.0.1:{port}.evil.example",
        "http://allowed.example:8001",
        "https://allowed.example:8000",
        "http://allowed.example:8000.evil.example",
        "x" * 3000,
    ]
    return [name.encode() for name in names] + ["http://évil.example".encode(), b"\xff"]


JSON_TYPES = (
    "application/json",
    "application/json; charset=utf-8",
    "application/json;charset=UTF-8",
)
OTHER_TYPES = (
    "text/plain",
    "text/plain;charset=UTF-8",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=----gmtags",
    "application/jsonp",
    "application/json-seq",
    "application/vnd.api+json",
    "text/json",
    "application/json, text/plain",
    "*/*",
    "",
)
CHAT_HEADERS = (
    b"hostile-chat",
    "Élise".encode(),
    b"\xe9lise",
    b"x" * 201,
    b"x" * 5000,
    b"a/b",
    b"../../etc/passwd",
    b"\x01control",
    "💥".encode(),
    b"%2F",
)
EXTRA_HEADERS = (
    ("X-Forwarded-Host", b"evil.example"),
    ("Forwarded", b"host=evil.example;proto=http"),
    ("X-Forwarded-For", b"203.0.113.9"),
    ("Cookie", b"gmtags_token=guess"),
    ("X-Gmtags-Token", b"guess"),
    ("Accept", b"text/html"),
    ("Authorization", b"Bearer sk-hostile"),
    ("Referer", b"http://evil.example/attack.html"),
    ("Sec-Fetch-Mode", b"no-cors"),
    ("Sec-Fetch-Dest", b"document"),
)


# ---------------------------------------------------------------------------------------------
# Bodies.


def _completion(extra: str = "", content: str = '"We open the gate."') -> bytes:
    head = f'{{"model":"gmtags-demo","messages":[{{"role":"user","content":{content}}}]'
    return f"{head}{extra}}}".encode()


def _save(extra: str = "", chat: str = "saved-by-hostile") -> bytes:
    card = json.dumps(CARD)
    return f'{{"chat":"{chat}","name":"Hostile Hero","card":{card}{extra}}}'.encode()


def _build(extra: str = "") -> bytes:
    return f'{{"answers":{{}}{extra}}}'.encode()


VALID = {COMPLETIONS: _completion(), SAVE: _save(), BUILD: _build()}
"""A body each JSON route takes (a completion and a save store something)."""
BASES: dict[Route, Callable[[str], bytes]] = {COMPLETIONS: _completion, SAVE: _save, BUILD: _build}

POISONS = (
    ',"temperature":NaN',
    ',"temperature":Infinity',
    ',"temperature":-Infinity',
    ',"temperature":1e999',
    ',"temperature":-1E400',
    ',"seed":' + "9" * 5000,
    ',"user":"\\ud800"',
    ',"user":"a\\udfffb"',
    ',"metadata":' + "[" * 150 + "]" * 150,
    ',"metadata":' + '{"a":' * 101 + "1" + "}" * 101,
    ',"stop":"x","stop":"y"',
)
"""What SPEC §8 refuses in any JSON gmtags reads, each added to a body that is otherwise taken."""


def poisoned(route: Route, poison: str) -> bytes:
    if route is COMPLETIONS and "ud800" in poison:
        return _completion(content='"a lone half \\ud800 here"')
    if route is COMPLETIONS and poison.startswith(',"stop"'):
        return b'{"model":"m","model":"m2","messages":[{"role":"user","content":"hi"}]}'
    return BASES[route](poison)


def big(route: Route) -> bytes:
    """A body of 2 MiB that is otherwise taken (over the 1 MiB limit)."""
    filler = "a" * (2 * MIB)
    if route is COMPLETIONS:
        return _completion(content=json.dumps(filler))
    return BASES[route](f',"padding":"{filler}"')


def bad_utf8(route: Route) -> bytes:
    """A body that is otherwise taken, with a string of bytes that are not UTF-8."""
    return VALID[route][:-1] + b',"note":"\xff\xfe \xc3\x28 \xed\xa0\x80"}'


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(),
    st.sampled_from(["\x00", "\ud800", "a\udfffb", "\u2028", "\ufeff", "[skill_check: x]"]),
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=16,
)


def encoded(value: Any, ascii_only: bool) -> bytes:
    """`value` as JSON text; a lone surrogate goes out escaped, or (not ASCII-only) as the
    three bytes that are not UTF-8."""
    return json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")


messages = st.lists(
    st.dictionaries(st.sampled_from(["role", "content", "name", "tool_calls"]), json_values),
    min_size=1,
    max_size=3,
)
completion_shaped = st.fixed_dictionaries(
    {"messages": messages},
    optional={"stream": st.booleans(), "n": json_values, "model": json_values},
)
"""Completion bodies whose messages hold any JSON: the proxy takes them or refuses them."""


@dataclass(frozen=True)
class Body:
    """A body and what a server with no other reason to refuse it answers."""

    kind: str
    data: bytes = field(repr=False)
    expect: frozenset[int] | None
    """The statuses allowed (None: anything that is not 5xx, a success included)."""
    chunked: bool = False

    def __repr__(self) -> str:
        return f"Body({self.kind}, {len(self.data)} bytes: {self.data[:200]!r})"


NOT_JSON = st.one_of(
    st.binary(max_size=200),
    st.sampled_from(
        [b"", b"{", b"hello", b"<html></html>", b'{"messages": [}', b"\x00\x00", b"[]", b"null"]
    ),
    st.text(max_size=100).map(lambda text: text.encode("utf-8", "surrogatepass")),
)


def bodies(route: Route) -> st.SearchStrategy[Body]:
    """Every kind of body for a JSON route (module doc)."""
    four = frozenset(range(400, 500))
    kinds = [
        st.sampled_from(POISONS).map(
            lambda poison: Body(f"poison {poison[:30]}", poisoned(route, poison), frozenset({400}))
        ),
        st.booleans().map(lambda chunked: Body("big", big(route), frozenset({413}), chunked)),
        st.just(Body("bad UTF-8", bad_utf8(route), frozenset({400}))),
        NOT_JSON.map(lambda data: Body("not JSON", data, four)),
        st.builds(encoded, json_values, st.booleans()).map(lambda d: Body("JSON", d, None)),
    ]
    if route is COMPLETIONS:
        kinds.append(
            st.builds(encoded, completion_shaped, st.booleans()).map(
                lambda d: Body("completion-shaped", d, None)
            )
        )
    return st.one_of(kinds)


# ---------------------------------------------------------------------------------------------
# Whole requests.


@dataclass(frozen=True)
class Case:
    """A request and the refusals its headers call for."""

    route: Route
    ask: Ask
    refusals: frozenset[int]
    """Statuses one of which the guard must answer (empty: the headers call for none)."""
    body: Body | None = None
    origin: bytes | None = None

    def refused_with(self, status: int) -> int:
        """`status`, unless the request is not HTTP: then the 400 that comes before it."""
        return 400 if self.refusals == {400} else status


@st.composite
def cases(
    draw: st.DrawFn,
    port: int,
    real_node: str,
    routes: tuple[Route, ...] = ROUTES,
    hosts: str = "any",
    origins: str = "any",
    types: str = "any",
    body_kinds: str = "any",
    sites: str | None = None,
) -> Case:
    """A request to one of `routes` with headers drawn from the kinds named (`sites`: the one
    `Sec-Fetch-Site` value to send)."""
    route = draw(st.sampled_from(routes))
    headers: list[tuple[str, bytes]] = []
    refusals: set[int] = set()

    host_kind = draw(st.sampled_from(["good", "bad", "missing"] if hosts == "any" else [hosts]))
    host: bytes | None = None
    if host_kind == "good":
        host = draw(st.sampled_from(good_hosts(port))).encode()
    elif host_kind == "bad":
        host = draw(st.sampled_from(bad_hosts(port)))
        refusals.add(421)
    else:
        refusals.add(421)
    if host is not None:
        headers.append(("Host", host))

    origin_kinds = ["none", "own", "allowed", "foreign"] if origins == "any" else [origins]
    origin_kind = draw(st.sampled_from(origin_kinds))
    origin: bytes | None = None
    if origin_kind == "own" and host is not None:
        origin = b"http://" + host
    elif origin_kind == "allowed":
        origin = ALLOWED.encode()
    elif origin_kind == "foreign":
        origin = draw(st.sampled_from(foreign_origins(port)))
    if origin is not None:
        headers.append(("Origin", origin))
    site = draw(st.sampled_from([None, "same-origin", "same-site", "none", "cross-site"]))
    if sites is not None:
        site = sites
    if site is not None:
        headers.append(("Sec-Fetch-Site", site.encode()))
    if route.writes and (origin_kind == "foreign" or (origin is None and site == "cross-site")):
        refusals.add(403)

    if types == "json":
        content_type: str | None = draw(st.sampled_from(JSON_TYPES))
    elif types == "other":
        content_type = draw(st.sampled_from((None, *OTHER_TYPES)))
    else:
        content_type = draw(st.sampled_from((None, *JSON_TYPES, *OTHER_TYPES)))
    if content_type is not None:
        headers.append(("Content-Type", content_type.encode()))
    if route.writes and route.page_api and content_type not in JSON_TYPES:
        refusals.add(415)

    chat_header = draw(st.sampled_from((None, *CHAT_HEADERS)))
    if chat_header is not None:
        headers.append(("X-Gmtags-Chat", chat_header))
        if re.search(rb"[\x00-\x08\x0a-\x1f\x7f]", chat_header):
            refusals = {400}  # not HTTP: refused before the guard or any route reads it
    headers += draw(st.lists(st.sampled_from(EXTRA_HEADERS), max_size=2, unique=True))

    body: Body | None = None
    if route in JSON_WRITES:
        valid = Body("valid", VALID[route], None)
        body = valid if body_kinds == "valid" else draw(bodies(route))
    elif route is LOGIN:
        form = urlencode({"token": draw(st.text(max_size=20)), "next": "/gmtags/"})
        body = Body("login form", form.encode(), None)
    target = route.template.format(
        chat=draw(SEGMENTS),
        node=draw(node_segments(real_node)),
        query=urlencode(
            {"chat": draw(st.sampled_from(CHATS)), "party": draw(st.sampled_from("01"))}
        ),
    )
    ask = Ask(
        route.method,
        target,
        tuple(headers),
        None if body is None else body.data,
        chunked=body is not None and body.chunked and host is not None,
        http10=host is None,
        brief=route is EVENTS,
    )
    return Case(route, ask, frozenset(refusals), body, origin)


# ---------------------------------------------------------------------------------------------
# The server, and what every answer must be.


@dataclass
class Server:
    """A server under attack, a client of it as its own player, and the node ids of the
    chats seeded in it."""

    served: Served
    client: httpx.Client
    seeded_node: str = ""
    other_node: str = ""

    @property
    def port(self) -> int:
        return self.served.port

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(f"Server({self.served.url}, log {self.served.log})")


def _only_node(client: httpx.Client, chat: str) -> str:
    nodes = client.get(f"/gmtags/api/chats/{chat}").json()["nodes"]
    assert len(nodes) == 1, nodes
    return str(nodes[0]["id"])


def assert_log_clean(served: Served, start: int = 0, shown: str = "") -> None:
    """No traceback in the server's output from byte `start` on."""
    text = served.log_text(start)
    if "Traceback" in text:
        at = text.index("Traceback")
        raise AssertionError(f"{shown}\nthe server logged:\n{text[at : at + 4000]}")


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Server]]:
    """Two servers started at once: `hostile` and `locked`."""
    folder = tmp_path_factory.mktemp("hostile")
    open_flags = ("--allow-origin", ALLOWED, "--public-host", PUBLIC)
    with contextlib.ExitStack() as stack:
        opened, closed = stack.enter_context(serve_many(folder, open_flags, ("--token", TOKEN)))
        client = stack.enter_context(opened.client())
        complete(opened.url, SEEDED)
        complete(opened.url, OTHER)
        seeded, other = _only_node(client, SEEDED), _only_node(client, OTHER)
        yield Server(opened, client, seeded, other), Server(closed, closed.client())


@pytest.fixture(scope="module")
def hostile(servers: tuple[Server, Server]) -> Server:
    """`gmtags serve` (no token) allowing `ALLOWED` and answering to `PUBLIC`, with two chats
    of one reply each."""
    return servers[0]


@pytest.fixture(scope="module")
def locked(servers: tuple[Server, Server]) -> Server:
    """`gmtags serve --token TOKEN`, where `POST /gmtags/login` exists."""
    return servers[1]


def is_json_error(answer: Answer) -> bool:
    try:
        data = json.loads(answer.body)
    except ValueError:
        return False
    return isinstance(data, dict) and "error" in data


def exchange(server: Server, case: Case) -> Answer:
    """Send `case` and check what every answer must be (module doc); give the answer."""
    served = server.served
    before = observe(server.client)
    upstream = served.completions
    logged = served.log_size()
    answer = send(served.port, case.ask)
    shown = f"{case.ask!r}\n -> {answer!r}"
    assert answer.status < 500, shown
    assert b"Traceback" not in answer.body and b'File "/' not in answer.body, shown
    if case.refusals:
        assert answer.status in case.refusals, shown
    assert answer.header("x-content-type-options") == "nosniff", shown
    if (answer.header("content-type") or "").startswith("text/html"):
        policy = answer.header("content-security-policy") or ""
        assert "frame-ancestors" in policy, shown
        assert "evil.example" not in policy, shown
    refusal = answer.status >= 400 and (
        case.route.json or answer.status in (403, 413, 415, 421) or case.refusals == {400}
    )
    if refusal:
        assert is_json_error(answer), shown
    if case.refusals == {400}:
        assert "X-Gmtags-Chat" in json.loads(answer.body)["error"]["message"], shown
    allowed = answer.header("access-control-allow-origin")
    if allowed is not None:
        assert case.origin == ALLOWED.encode() and allowed == ALLOWED, shown
    if answer.status >= 400 or not case.route.writes:
        assert observe(server.client) == before, f"stored by a refused or reading request: {shown}"
        assert served.completions == upstream, f"sent upstream though refused: {shown}"
    health = server.client.get("/healthz")
    assert health.status_code == 200, shown
    assert_log_clean(served, logged, shown)
    return answer


# ---------------------------------------------------------------------------------------------
# The tests.


class TestEveryRoute:
    @settings(SETTINGS, max_examples=150)
    @given(data=st.data())
    def test_any_headers_any_body(self, hostile: Server, data: st.DataObject) -> None:
        """Any request to any route: no 5xx, refusals as the headers call for, and a
        refused request changes nothing."""
        case = data.draw(cases(hostile.port, hostile.seeded_node))
        exchange(hostile, case)

    @settings(SETTINGS, max_examples=60)
    @given(data=st.data())
    def test_another_host_is_misdirected(self, hostile: Server, data: st.DataObject) -> None:
        """A `Host` the server does not answer to (DNS rebinding), or none, is 421 on every
        route, whatever else the request says."""
        case = data.draw(cases(hostile.port, hostile.seeded_node, hosts="bad"))
        assert exchange(hostile, case).status == case.refused_with(421)

    @settings(SETTINGS, max_examples=15)
    @given(data=st.data())
    def test_no_host_is_misdirected(self, hostile: Server, data: st.DataObject) -> None:
        """An HTTP/1.0 request with no `Host` at all is 421 too."""
        case = data.draw(cases(hostile.port, hostile.seeded_node, hosts="missing"))
        assert exchange(hostile, case).status == case.refused_with(421)


class TestChanges:
    @settings(SETTINGS, max_examples=60)
    @given(data=st.data())
    def test_a_foreign_page_changes_nothing(self, hostile: Server, data: st.DataObject) -> None:
        """A POST that would store a reply or a character, from a foreign or `null` origin,
        is 403 and stores nothing."""
        case = data.draw(
            cases(
                hostile.port,
                hostile.seeded_node,
                routes=JSON_WRITES,
                hosts="good",
                origins="foreign",
                types="json",
                body_kinds="valid",
            )
        )
        assert exchange(hostile, case).status == case.refused_with(403)

    @settings(SETTINGS, max_examples=25)
    @given(data=st.data())
    def test_a_cross_site_request_changes_nothing(
        self, hostile: Server, data: st.DataObject
    ) -> None:
        """`Sec-Fetch-Site: cross-site` with no `Origin` is 403 on every POST."""
        case = data.draw(
            cases(
                hostile.port,
                hostile.seeded_node,
                routes=JSON_WRITES,
                hosts="good",
                origins="none",
                types="json",
                body_kinds="valid",
                sites="cross-site",
            )
        )
        assert exchange(hostile, case).status == case.refused_with(403)

    @settings(SETTINGS, max_examples=40)
    @given(data=st.data())
    def test_a_form_cannot_post_to_the_page_api(self, hostile: Server, data: st.DataObject) -> None:
        """A page API body sent as anything but `application/json` (a form's text/plain,
        urlencoded or multipart, or no type) is 415, from the server's own origin too."""
        case = data.draw(
            cases(
                hostile.port,
                hostile.seeded_node,
                routes=(BUILD, SAVE),
                hosts="good",
                origins="own",
                types="other",
                body_kinds="valid",
            )
        )
        assert exchange(hostile, case).status == case.refused_with(415)


class TestBodies:
    @settings(SETTINGS, max_examples=100)
    @given(data=st.data())
    def test_what_a_body_holds(self, hostile: Server, data: st.DataObject) -> None:
        """From a client that is no browser: a body over the limit is 413, one that is not
        strict JSON (NaN, 1e999, a lone surrogate, a duplicate key, 150 levels, bad UTF-8)
        is 400 naming where, anything else is answered without a 5xx."""
        route = data.draw(st.sampled_from(JSON_WRITES))
        body = data.draw(bodies(route))
        chat = data.draw(st.sampled_from([None, b"hostile-bodies"]))
        headers = [("Host", f"127.0.0.1:{hostile.port}".encode())]
        headers.append(("Content-Type", b"application/json"))
        if chat is not None:
            headers.append(("X-Gmtags-Chat", chat))
        ask = Ask("POST", route.template, tuple(headers), body.data, chunked=body.chunked)
        answer = exchange(hostile, Case(route, ask, frozenset(), body))
        if body.expect is not None:
            assert answer.status in body.expect, f"{body!r} -> {answer!r}"
        if body.kind.startswith("poison"):
            assert re.search(r"(line|column|position|char|offset|at)\s*\d+", answer.text), answer


class TestNodeIds:
    def test_only_ascii_digits_name_a_node(self, hostile: Server) -> None:
        """SPEC §8: a node id is ASCII digits only; the real id in Arabic-Indic, full-width
        or superscript digits (each `str.isdigit`) is 404, never another node or a 500."""
        real = hostile.seeded_node
        base = f"/gmtags/api/chats/{SEEDED}/nodes/"
        headers = (("Host", f"127.0.0.1:{hostile.port}".encode()),)
        ok = exchange(hostile, Case(NODE, Ask("GET", base + real, headers), frozenset()))
        assert ok.status == 200 and "gameCharacterCards" in json.loads(ok.body)
        other = Case(NODE, Ask("GET", base + hostile.other_node, headers), frozenset())
        assert exchange(hostile, other).status == 404
        for word in [*foreign_digits(real), *NODE_WORDS[3:], f"{real}x", f"+{real}"]:
            case = Case(NODE, Ask("GET", base + quote(word, safe=""), headers), frozenset())
            answer = exchange(hostile, case)
            assert answer.status == 404 and is_json_error(answer), (word, answer)

    def test_the_chat_page_names_a_reply_in_ascii_digits_only(self, hostile: Server) -> None:
        """`/gmtags/chats/{chat}?node=` with the real id in other digits is the HTML 404."""
        route = READS[4]
        headers = (("Host", f"localhost:{hostile.port}".encode()),)
        for word in foreign_digits(hostile.seeded_node):
            target = f"/gmtags/chats/{SEEDED}?node={quote(word)}"
            answer = exchange(hostile, Case(route, Ask("GET", target, headers), frozenset()))
            assert answer.status == 404, (word, answer)


class TestChatHeader:
    def _complete(self, hostile: Server, chat: bytes) -> Answer:
        headers = (
            ("Host", f"127.0.0.1:{hostile.port}".encode()),
            ("Content-Type", b"application/json"),
            ("X-Gmtags-Chat", chat),
        )
        ask = Ask("POST", COMPLETIONS.template, headers, VALID[COMPLETIONS])
        return exchange(hostile, Case(COMPLETIONS, ask, frozenset()))

    def test_a_header_is_read_as_utf8(self, hostile: Server) -> None:
        """SPEC §8: `X-Gmtags-Chat: Élise` sent as UTF-8 names the chat "Élise"."""
        answer = self._complete(hostile, "Élise".encode())
        assert answer.status == 200, answer
        chats = [row["chat"] for row in observe(hostile.client)["chats"]]
        assert "Élise" in chats, chats

    def test_an_overlong_chat_is_refused(self, hostile: Server) -> None:
        """A chat id over 200 characters is a 400 JSON error, and nothing is stored."""
        answer = self._complete(hostile, b"x" * 201)
        assert answer.status == 400 and is_json_error(answer), answer


class TestCors:
    def _options(self, hostile: Server, origin: bytes) -> Answer:
        headers = (
            ("Host", f"127.0.0.1:{hostile.port}".encode()),
            ("Origin", origin),
            ("Access-Control-Request-Method", b"POST"),
            ("Access-Control-Request-Headers", b"content-type, x-gmtags-chat"),
        )
        ask = Ask("OPTIONS", COMPLETIONS.template, headers)
        route = Route("OPTIONS", ask.target, json=True)
        return exchange(hostile, Case(route, ask, frozenset(), None, origin))

    def test_a_preflight_from_the_allowed_origin(self, hostile: Server) -> None:
        """The `--allow-origin` page's preflight is 204 naming that origin alone."""
        answer = self._options(hostile, ALLOWED.encode())
        assert answer.status == 204, answer
        assert answer.headers["access-control-allow-origin"] == [ALLOWED]
        assert "POST" in (answer.header("access-control-allow-methods") or "")
        allowed = (answer.header("access-control-allow-headers") or "").lower()
        assert "content-type" in allowed and "x-gmtags-chat" in allowed

    @settings(SETTINGS, max_examples=20)
    @given(data=st.data())
    def test_a_preflight_from_anyone_else(self, hostile: Server, data: st.DataObject) -> None:
        """Any other origin's preflight is 403 with no CORS header."""
        answer = self._options(hostile, data.draw(st.sampled_from(foreign_origins(hostile.port))))
        assert answer.status == 403 and is_json_error(answer), answer
        assert not any(name.startswith("access-control-") for name in answer.headers), answer


class TestLogin:
    @settings(SETTINGS, max_examples=40)
    @given(data=st.data())
    def test_the_login_form(self, locked: Server, data: st.DataObject) -> None:
        """`POST /gmtags/login` with any form, right token or not: a foreign page is 403 and
        gets no cookie, a form over 4 KiB is 413, anything else the form again or the
        cookie; never a 5xx."""
        token = data.draw(st.sampled_from([TOKEN, "wrong", ""]))
        form = data.draw(
            st.one_of(
                st.just(urlencode({"token": token, "next": "/gmtags/"}).encode()),
                st.just(urlencode({"token": token, "next": "https://evil.example/"}).encode()),
                st.just(b"token=" + b"x" * 5000),
                NOT_JSON,
            )
        )
        origin_kind = data.draw(st.sampled_from(["none", "own", "foreign"]))
        host = f"127.0.0.1:{locked.port}".encode()
        headers: list[tuple[str, bytes]] = [("Host", host)]
        headers.append(("Content-Type", b"application/x-www-form-urlencoded"))
        origin = None
        if origin_kind == "own":
            origin = b"http://" + host
        elif origin_kind == "foreign":
            origin = data.draw(st.sampled_from(foreign_origins(locked.port)))
        if origin is not None:
            headers.append(("Origin", origin))
        ask = Ask("POST", LOGIN.template, tuple(headers), form)
        refusals = frozenset({403}) if origin_kind == "foreign" else frozenset()
        answer = exchange(locked, Case(LOGIN, ask, refusals, None, origin))
        if answer.status >= 400 and answer.status != 401:
            assert "set-cookie" not in answer.headers, answer
        if len(form) > 4096 and not refusals:
            assert answer.status == 413, answer
        if answer.status == 303:
            assert answer.header("location") == "/gmtags/", answer

    def test_the_token_does_not_let_a_foreign_page_in(self, locked: Server) -> None:
        """A save with the right token header from a foreign page is still 403."""
        headers = (
            ("Host", f"127.0.0.1:{locked.port}".encode()),
            ("Content-Type", b"application/json"),
            ("X-Gmtags-Token", TOKEN.encode()),
            ("Origin", b"http://evil.example"),
        )
        ask = Ask("POST", SAVE.template, headers, VALID[SAVE])
        answer = exchange(locked, Case(SAVE, ask, frozenset({403})))
        assert is_json_error(answer), answer


def test_the_log_holds_no_traceback(hostile: Server, locked: Server) -> None:
    """After everything above, both servers' logs hold no traceback."""
    assert_log_clean(hostile.served)
    assert_log_clean(locked.served)
