"""The pages beside the chat and the JSON endpoints they use (SPEC §11).

`state`: `/gmtags/`, `/gmtags/chats/{chat}` and the chat APIs (the game state
and its history, followed live); `builder`: `/gmtags/builder` and the builder
APIs (the guided builder of SPEC §10, saving into a chat). Each module gives
its own routes and serves its own static files from the wheel.
"""

from __future__ import annotations

from starlette.routing import BaseRoute

from gmtags.server.chats import ChatBook
from gmtags.server.config import ServerConfig
from gmtags.server.pages import builder, state


def routes(config: ServerConfig, book: ChatBook) -> list[BaseRoute]:
    """Every page and page API route of the proxy."""
    return [*state.routes(config, book), *builder.routes(config, book)]


__all__ = ["routes"]
