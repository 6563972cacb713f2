"""The API shapes the proxy speaks, one module each (SPEC §7.2): `SHAPES` is the registry.

Adding a shape is one module with a `Shape` subclass (`gmtags.server.shapes.base`)
and one line here.
"""

from __future__ import annotations

from gmtags.server.shapes.anthropic import Messages
from gmtags.server.shapes.base import Asked, Event, Markers, Shape
from gmtags.server.shapes.chat import Chat
from gmtags.server.shapes.llamacpp import LlamaCpp
from gmtags.server.shapes.ollama import Generate, OllamaChat
from gmtags.server.shapes.text import Text

SHAPES: tuple[Shape, ...] = (
    Chat(),
    Text(),
    LlamaCpp(),
    Generate(),
    OllamaChat(),
    Messages(),
)
"""Every shape served, each at its `route`."""

PASSED_THROUGH = ("/v1/models", "/api/tags", "/api/version")
"""`GET` routes forwarded to the upstream as they are (model lists, the server's version)."""

__all__ = ["PASSED_THROUGH", "SHAPES", "Asked", "Event", "Markers", "Shape"]
