"""Routes of the builder page (SPEC §11); see `gmtags.server.pages`."""

from __future__ import annotations

from starlette.routing import BaseRoute

from gmtags.server.chats import ChatBook
from gmtags.server.config import ServerConfig


def routes(config: ServerConfig, book: ChatBook) -> list[BaseRoute]:
    """The builder page's routes."""
    return []
