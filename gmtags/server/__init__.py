"""The OpenAI-compatible proxy `gmtags serve` (SPEC §7) and the scripted demo upstream."""

from gmtags.server.app import create_app
from gmtags.server.config import ServerConfig

__all__ = ["ServerConfig", "create_app"]
