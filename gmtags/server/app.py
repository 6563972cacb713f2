"""The proxy's Starlette app (SPEC §7).

Routes: one per API shape (`gmtags.server.shapes`: `POST /v1/chat/completions`,
`/v1/completions`, `/completion`, `/api/generate`, `/api/chat`, `/v1/messages`),
`GET /v1/models`, `/api/tags` and `/api/version` (forwarded),
`GET /gmtags/chats/{chat}/state` (the chat's current snapshot JSON) and
`GET /healthz`, and the pages and their APIs (`gmtags.server.pages`), each also
under `/c/{chat}`, without its `/v1` and with doubled slashes
(`gmtags.server.prefix`: the chat named in the URL, the route made plain). In front of
every route, `gmtags.server.guard` refuses requests for another host and
changes sent by other web sites; with a token every route but `/healthz`
needs it (`gmtags.server.auth`). The history
store (an SQLite file, or a PostgreSQL database: SPEC §12) is used from the
event loop only: each write is a short transaction, and keeping them on one
thread keeps them in order without a lock. Other processes may write the same
store (`gmtags serve --workers N`, or more proxies on the same PostgreSQL
database): what they write reaches this process's pages through
`gmtags.server.watch`, and every instance reads the same state.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from gmtags.history.store import HistoryStore
from gmtags.process import process
from gmtags.prompt import gm_instructions
from gmtags.server import pages
from gmtags.server.auth import TokenGate
from gmtags.server.bodies import BodyError, read_bytes
from gmtags.server.chats import ChatBook, chat_header
from gmtags.server.completions import Completions
from gmtags.server.config import ServerConfig
from gmtags.server.errors import error_response
from gmtags.server.guard import Guard, Policy
from gmtags.server.pages.state_html import not_found_page
from gmtags.server.passthrough import refused, relay
from gmtags.server.prefix import ChatPrefix
from gmtags.server.shapes import PASSED_THROUGH, SHAPES, Shape
from gmtags.server.shapes.chat import Chat
from gmtags.server.shapes.ollama import Generate
from gmtags.server.upstream import Upstream, UpstreamError
from gmtags.server.watch import StoreWatcher

WARM_UP = (
    '[clock: name="gmtags warm-up" size="4"] [skill_check: skill="gmtags warm-up"]'
    ' [sheet: who="gmtags warm-up" op="note" text="-"]'
)
"""A reply made once at start-up and thrown away: the tag parser (built on first use, half a
second) and the engine's first-use work are done before the first player waits on them."""


OPENAI: Shape = Chat()
OLLAMA: Shape = Generate()


def warm_up(config: ServerConfig) -> None:
    """Do the first reply's one-time work (see `WARM_UP`) before serving."""
    process(WARM_UP, config.ruleset, config.start, seed=0)
    gm_instructions(config.ruleset, config.start)


def settle(config: ServerConfig) -> None:
    """Ready a process that will serve nothing but this proxy: warmed up, and everything made
    so far (modules, the parser, the ruleset) left out of the cyclic collector's passes
    (`gc.freeze`). Its first full pass otherwise comes a few seconds into serving and walks
    every one of those objects: some 80 ms in which no chat gets a byte."""
    warm_up(config)
    gc.collect()
    gc.freeze()


def create_app(config: ServerConfig) -> Starlette:
    """The proxy for `config`; the store and the upstream connection live as long as the app."""
    store = HistoryStore(config.db)
    book = ChatBook(store, config.start)
    upstream = Upstream(config.upstream, config.upstream_timeout, config.upstream_key)
    served = [Completions(config, book, upstream, shape) for shape in SHAPES]

    async def passed(request: Request) -> Response:
        """A request forwarded as it is (a model list, a token count), errors in the API's own
        form (`gmtags.server.passthrough`)."""
        route = request.url.path
        shape: Shape = OLLAMA if route.startswith("/api/") else OPENAI
        try:
            content = None
            if request.method != "GET":
                content = await read_bytes(request, config.max_body)
            return await relay(upstream, None, request.method, route, content, request.headers.raw)
        except (UpstreamError, BodyError) as error:
            return refused(shape, error)

    async def state(request: Request) -> Response:
        chat_id = request.path_params["chat"]
        snapshot = book.current(chat_id)
        if snapshot is None:
            return error_response(404, f"no chat {chat_id!r}", "not_found_error")
        return JSONResponse(snapshot.to_json_dict(), headers=chat_header(chat_id))

    async def healthz(request: Request) -> Response:
        return PlainTextResponse("ok")

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        warm_up(config)
        watcher = StoreWatcher(store, book.events)
        watching = asyncio.create_task(watcher.run()) if watcher.active else None
        try:
            yield
        finally:
            if watching is not None:
                watching.cancel()
            watcher.close()
            await upstream.aclose()
            store.close()

    async def no_route(request: Request, exc: Exception) -> Response:
        """A path or method no route serves: an error object (a page for a browser)."""
        status = exc.status_code if isinstance(exc, HTTPException) else 404
        if (
            status == 404
            and request.method == "GET"
            and "text/html" in request.headers.get("accept", "")
        ):
            return HTMLResponse(not_found_page("No such page."), status_code=404)
        message = "no such route" if status == 404 else f"the request is refused ({status})"
        if status == 405:
            message = f"{request.method} is not served at {request.url.path}"
        return error_response(status, message, "invalid_request_error")

    app = Starlette(
        exception_handlers={HTTPException: no_route},
        routes=[
            *(Route(each.shape.route, each, methods=["POST"]) for each in served),
            *(Route(route, passed, methods=[method]) for route, method in PASSED_THROUGH.items()),
            Route("/gmtags/chats/{chat:path}/state", state, methods=["GET"]),
            Route("/healthz", healthz, methods=["GET"]),
            *pages.routes(config, book),
        ],
        lifespan=lifespan,
        middleware=[
            Middleware(
                Guard, policy=Policy(config.host, config.public_hosts, config.allow_origins)
            ),
            Middleware(ChatPrefix),
            *(
                []
                if config.token is None
                else [
                    Middleware(
                        TokenGate, token=config.token, bearer=config.upstream_key is not None
                    )
                ]
            ),
        ],
    )
    app.state.book = book
    return app
