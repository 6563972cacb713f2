"""Routes of the state page (SPEC §11); see `gmtags.server.pages`."""

from __future__ import annotations

from starlette.routing import BaseRoute

from gmtags.server.chats import ChatBook
from gmtags.server.config import ServerConfig


def routes(config: ServerConfig, book: ChatBook) -> list[BaseRoute]:
    """The state page's routes."""
    return []
