"""Routes of the state page (SPEC §11); see `gmtags.server.pages`.

Pages: `/gmtags/` (the chats) and `/gmtags/chats/{chat}` (its state beside its
timeline; `?node=<id>` shows the state after that reply, `?node=start` the
chat's start; `?embed=1` the state alone, compact, for a frame: `state_embed`;
pinned to a reply, the embed shows the state a turn written after it starts from,
with the characters saved on the pages since, as the Game panel needs).
JSON, part of the stable interface:

- `GET /gmtags/api/chats` → `[{"chat", "replies", "updated"}]`, newest first;
- `GET /gmtags/api/chats/{chat}` → `{"state": snapshot, "nodes": [{"id", "parent",
  "kind", "receipts", "created", "current"}]}`, nodes oldest first;
- `GET /gmtags/api/chats/{chat}/nodes/{id}` → the snapshot after that node;
- `GET /gmtags/api/chats/{chat}/events` → server-sent events (`gmtags.server.events`).

`replies` counts finished replies, continuations not (they are pieces of the
reply they continue); `updated` and `created` are ISO-8601 UTC text to the
millisecond (`2026-12-01T15:04:05.123Z`), null for rows older than the column.
An unknown chat or node is an OpenAI-style 404 (an HTML page for the pages).

The static files of every page (`gmtags/server/static`: `base.css`, `state/`,
`builder/`) are served under `/gmtags/static/`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from gmtags.history.records import HistoryError
from gmtags.history.store import Node
from gmtags.server.chats import ChatBook, chat_header
from gmtags.server.config import ServerConfig
from gmtags.server.errors import error_response, json_bytes, json_response
from gmtags.server.events import ChatEvent, page_kind
from gmtags.server.pages.state_embed import NO_GAME, embed_missing, embed_page
from gmtags.server.pages.state_html import chat_page, index_page, not_found_page
from gmtags.server.pages.state_timeline import START, iso_time

STATIC_DIR = Path(str(resources.files("gmtags.server").joinpath("static")))
"""The wheel's static files, served under `/gmtags/static/`."""
KEEPALIVE = 2.0
"""Seconds between the keep-alive comments of an events stream with nothing to say (a client
that went away is noticed by the next one at the latest)."""
STREAM_SECONDS = 5.0
"""How long one events stream lasts: the browser's EventSource connects again at once
(`retry`) and the page reads the chat again on connecting, so nothing is missed; uvicorn,
shutting down, waits for open responses, and so never more than this for a page left open."""
RETRY_MS = 500


def node_json(node: Node, current: int | None) -> dict[str, Any]:
    """One node as `GET /gmtags/api/chats/{chat}` lists it."""
    return {
        "id": node.id,
        "parent": node.parent,
        "kind": page_kind(node.kind),
        "receipts": list(node.receipts),
        "created": iso_time(node.created),
        "current": node.id == current,
    }


def sse(event: ChatEvent) -> bytes:
    """One server-sent event: its kind, its number as the id, its data as JSON."""
    return (
        f"event: {event.kind}\nid: {event.number}\n".encode()
        + b"data: "
        + json_bytes(event.data)
        + b"\n\n"
    )


def routes(config: ServerConfig, book: ChatBook) -> list[BaseRoute]:
    """The state page's routes, and the static files of every page."""
    store = book.store

    def unknown_chat(chat_id: str) -> Response:
        return error_response(404, f"no chat {chat_id!r}", "not_found_error")

    def find_node(chat_id: str, written: str) -> Node | None:
        # ASCII digits only (SPEC §8): str.isdigit also takes "١", "１" and "¹"
        if not (written.isascii() and written.isdigit()) or len(written) > 18:
            return None
        try:
            node = store.node(int(written))
        except HistoryError:
            return None
        return node if node.chat_id == chat_id else None

    async def index(request: Request) -> Response:
        return HTMLResponse(index_page(store.chat_summaries()))

    async def page(request: Request) -> Response:
        chat_id = request.path_params["chat"]
        embed = request.query_params.get("embed") == "1"
        if not store.has_chat(chat_id):
            if embed:
                return HTMLResponse(embed_missing(chat_id, NO_GAME, waiting=True), status_code=404)
            return HTMLResponse(not_found_page(f"No chat {chat_id!r}."), status_code=404)
        current = store.current_node(chat_id)
        written = request.query_params.get("node")
        chosen = written is not None and written != ""
        shown: int | None = current
        if written == START:
            snapshot, shown = store.start(chat_id), None
            if embed:  # the panel: where a turn written here goes on from (saves included)
                snapshot = book.going_on_from(chat_id, None)
        elif chosen:
            node = find_node(chat_id, written or "")
            if node is None:
                message = f"No reply {written!r} in chat {chat_id!r}."
                html = embed_missing(chat_id, message, waiting=False) if embed else None
                return HTMLResponse(html or not_found_page(message), status_code=404)
            snapshot, shown = store.snapshot(node.after), node.id
            if embed:
                snapshot = book.going_on_from(chat_id, node)
        else:
            snapshot = book.current(chat_id) or store.start(chat_id)
        nodes = store.nodes(chat_id)
        if embed:
            html = embed_page(config.ruleset, chat_id, snapshot, nodes, current, shown, chosen)
        else:
            html = chat_page(config.ruleset, chat_id, snapshot, nodes, current, shown, chosen)
        return HTMLResponse(html, headers=chat_header(chat_id))

    async def chats(request: Request) -> Response:
        return json_response(
            [
                {"chat": chat.chat_id, "replies": chat.replies, "updated": iso_time(chat.updated)}
                for chat in store.chat_summaries()
            ]
        )

    async def chat(request: Request) -> Response:
        chat_id = request.path_params["chat"]
        snapshot = book.current(chat_id)
        if snapshot is None:
            return unknown_chat(chat_id)
        current = store.current_node(chat_id)
        nodes = [node_json(node, current) for node in store.nodes(chat_id)]
        body = {"state": snapshot.to_json_dict(), "nodes": nodes}
        return json_response(body, headers=chat_header(chat_id))

    async def node(request: Request) -> Response:
        chat_id = request.path_params["chat"]
        if not store.has_chat(chat_id):
            return unknown_chat(chat_id)
        found = find_node(chat_id, request.path_params["node"])
        if found is None:
            written = request.path_params["node"]
            return error_response(
                404, f"no node {written!r} in chat {chat_id!r}", "not_found_error"
            )
        return json_response(
            store.snapshot(found.after).to_json_dict(), headers=chat_header(chat_id)
        )

    async def events(request: Request) -> Response:
        chat_id = request.path_params["chat"]
        if not store.has_chat(chat_id):
            return unknown_chat(chat_id)
        return StreamingResponse(
            _follow(book, chat_id, request),
            media_type="text/event-stream",
            headers={
                "Cache-Control": "no-cache",
                "X-Accel-Buffering": "no",
                **chat_header(chat_id),
            },
        )

    return [
        Route("/gmtags/", index, methods=["GET"]),
        Route("/gmtags/api/chats", chats, methods=["GET"]),
        # A chat id may hold a slash (sent %2F-escaped): the longer routes are tried first.
        Route("/gmtags/api/chats/{chat:path}/nodes/{node:str}", node, methods=["GET"]),
        Route("/gmtags/api/chats/{chat:path}/events", events, methods=["GET"]),
        Route("/gmtags/api/chats/{chat:path}", chat, methods=["GET"]),
        Route("/gmtags/chats/{chat:path}", page, methods=["GET"]),
        Mount("/gmtags/static", StaticFiles(directory=STATIC_DIR), name="gmtags-static"),
    ]


async def _follow(book: ChatBook, chat_id: str, request: Request) -> AsyncIterator[bytes]:
    """The events of one chat for `STREAM_SECONDS`, with keep-alive comments between.

    It ends early when the client goes away (Starlette cancels it on the disconnect;
    the keep-alive checks too, for servers that only tell a send that fails).
    """
    loop = asyncio.get_running_loop()
    ends = loop.time() + STREAM_SECONDS
    with book.events.subscribe(chat_id) as queue:
        yield f"retry: {RETRY_MS}\n: connected\n\n".encode()
        while (left := ends - loop.time()) > 0:
            try:
                event = await asyncio.wait_for(queue.get(), timeout=min(KEEPALIVE, left))
            except TimeoutError:
                if await request.is_disconnected():
                    return
                yield b": keep-alive\n\n"
                continue
            yield sse(event)
