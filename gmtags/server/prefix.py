"""The chat named in the URL, `/c/{chat}` before any route, and the route made plain (SPEC §7.2).

A route is the same without its `/v1` prefix and with doubled slashes
collapsed: clients append paths to whatever base URL the player typed
(`http://127.0.0.1:8787` or `…/v1`, with or without a trailing slash), so
`//v1/chat/completions`, `/chat/completions` and `/v1/v1/chat/completions`
are all `/v1/chat/completions` (`plain_route`). Only the API routes the proxy
serves are renamed; any other path (the pages, their APIs) is left as it is.

A client that can set a base URL but no header (SillyTavern's Text Completion)
uses `http://127.0.0.1:8787/c/Warden-7/v1` as its base URL. `ChatPrefix`, an
ASGI middleware inside `gmtags.server.guard.Guard` and outside the token gate,
serves `/c/<chat>/<route>` as `/<route>`: every route works under it (the
proxy routes, `/v1/models`, the state route, the pages). The segment is
percent-decoded as UTF-8 and checked like a header's id (`chat_id_problem`);
when the request has no `X-Gmtags-Chat`, the middleware adds one naming that
chat (its UTF-8 bytes, as `chat_header` writes them), so everything after it
reads the chat the one way it already does. A header the client sent wins
(SPEC: the header, then the prefix).

Decisions:
- The segment is read from `raw_path`, before percent-decoding: `a%2Fb` is the
  chat `a/b`, where the decoded `path` could not tell it from a route `/b`.
  Spaces and tabs around it are dropped, as a header value's are.
- The route's `path` and `raw_path` lose the prefix and `root_path` is kept: in
  ASGI as uvicorn and Starlette read it, `path` holds `root_path`, and the token
  gate and the routes read `path`, so the route is what they all see (a prefix
  the token gate did not see would be a way round it).
- The guard's one path-based rule, that `POST /gmtags/api/…` takes only JSON, is
  applied here again for the route under the prefix (the guard saw the prefixed
  path), so no HTML form posts to the pages' endpoints through `/c/…`.
- `/c/` with no chat, or a chat with no route after it, is a JSON error (400,
  404): the client's base URL is wrong, and the error says so.
"""

from __future__ import annotations

import re
from urllib.parse import unquote, unquote_to_bytes

from gmtags.server.auth import App, Receive, Scope, Send
from gmtags.server.chats import CHAT_HEADER, chat_id_problem
from gmtags.server.errors import error_response
from gmtags.server.guard import JSON_ENDPOINTS, SAFE_METHODS
from gmtags.server.shapes import PASSED_THROUGH, SHAPES

PREFIX = b"c/"
"""The prefix's first segment, after the path's leading slash(es)."""
_HEADER = CHAT_HEADER.lower().encode("ascii")


_SLASHES = re.compile(r"/{2,}")
_PLAIN = {
    route.removeprefix("/v1"): route
    for route in (*(shape.route for shape in SHAPES), *PASSED_THROUGH)
}
"""Each served route by its name without `/v1` (`/chat/completions`, `/api/tags`)."""


def plain_route(path: str) -> str:
    """An API route as it is served (doubled slashes collapsed, `/v1` or not); any other path
    as it is (a page's path with an empty segment, `/gmtags/chats//state`, names no chat)."""
    bare = _SLASHES.sub("/", path)
    while bare.startswith("/v1/"):
        bare = bare[3:]
    return _PLAIN.get(bare, path)


class PrefixError(ValueError):
    """A `/c/…` path that names no chat or no route; its status and message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def split_prefix(raw_path: bytes) -> tuple[str, bytes] | None:
    """The chat a `/c/{chat}/…` path names and the route after it (raw, percent-encoded bytes
    starting with `/`), or None for a path without the prefix. `PrefixError` for a chat that
    is not UTF-8 or no chat id (`chat_id_problem`), or a prefix with no route after it."""
    bare = raw_path.lstrip(b"/")
    if not raw_path.startswith(b"/") or not (bare.startswith(PREFIX) or bare == b"c"):
        return None
    written, slash, rest = bare[len(PREFIX) :].partition(b"/")
    try:
        chat_id = unquote_to_bytes(written).decode("utf-8").strip(" \t")
    except UnicodeDecodeError:
        raise PrefixError(400, "the chat in the URL prefix /c/{chat} is not UTF-8") from None
    problem = chat_id_problem(chat_id)
    if problem is not None:
        raise PrefixError(400, f"the chat in the URL prefix /c/{{chat}} {problem}")
    if not slash or not rest.strip(b"/"):
        raise PrefixError(
            404,
            f"no route after /c/{written.decode('latin-1')[:100]}: use a base URL such as"
            " http://127.0.0.1:8787/c/CHAT/v1",
        )
    return chat_id, b"/" + rest


def with_chat(headers: list[tuple[bytes, bytes]], chat_id: str) -> list[tuple[bytes, bytes]]:
    """`headers` naming `chat_id` in `X-Gmtags-Chat`, unless one they hold names a chat
    already (a blank one names none and is replaced)."""
    named = [value for name, value in headers if name.lower() == _HEADER]
    if any(value.strip() for value in named):
        return headers
    kept = [(name, value) for name, value in headers if name.lower() != _HEADER]
    return [*kept, (_HEADER, chat_id.encode("utf-8"))]


def _is_json(headers: list[tuple[bytes, bytes]]) -> bool:
    media = next((v for n, v in headers if n.lower() == b"content-type"), b"")
    return media.split(b";", 1)[0].strip().lower() == b"application/json"


def _route_path(scope: Scope) -> str:
    """The request's path without the `root_path` it holds."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(root) else path


class ChatPrefix:
    """ASGI middleware: `/c/{chat}/<route>` served as `/<route>` in that chat (module doc)."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        # uvicorn's raw_path is the request target as sent (a reverse proxy's root_path not
        # in it), where path is root_path and the target decoded.
        raw_path = scope.get("raw_path") or _route_path(scope).encode("utf-8")
        raw_path = raw_path.split(b"?", 1)[0]
        try:
            found = split_prefix(raw_path)
        except PrefixError as error:
            refusal = error_response(error.status, error.message, "invalid_request_error")
            await refusal(scope, receive, send)
            return
        if found is None:
            route, rest = _route_path(scope), raw_path
            plain = plain_route(route)
            if plain == route:
                await self.app(scope, receive, send)
                return
        else:
            chat_id, rest = found
            route = unquote(rest.decode("latin-1"))
            plain = plain_route(route)
        headers = [(bytes(name), bytes(value)) for name, value in scope.get("headers", [])]
        if found is not None:
            headers = with_chat(headers, chat_id)
        if plain != route:  # an API route made plain
            rest = plain.encode("utf-8")
        unsafe = scope["method"] not in SAFE_METHODS
        if unsafe and plain.startswith(JSON_ENDPOINTS) and not _is_json(headers):
            refusal = error_response(
                415,
                "the body must be sent as Content-Type: application/json",
                "invalid_request_error",
                "not_json",
            )
            await refusal(scope, receive, send)
            return
        root = scope.get("root_path", "")
        inner = {**scope, "path": root + plain, "raw_path": rest, "headers": headers}
        await self.app(inner, receive, send)
