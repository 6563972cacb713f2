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

PASSED_THROUGH: dict[str, str] = {
    "/v1/models": "GET",
    "/v1/model": "GET",
    "/v1/model/list": "GET",
    "/props": "GET",
    "/tokenize": "POST",
    "/detokenize": "POST",
    "/v1/token/encode": "POST",
    "/v1/internal/token-count": "POST",
    "/api/tags": "GET",
    "/api/version": "GET",
    "/api/show": "POST",
    "/api/v1/model": "GET",
    "/api/extra/version": "GET",
    "/api/extra/true_max_context_length": "GET",
    "/api/extra/tokencount": "POST",
    "/api/extra/abort": "POST",
}
"""Routes forwarded to the upstream as they are, with their method (`gmtags.server.passthrough`):
model lists (OpenAI, TabbyAPI, KoboldCpp, Ollama), a server's version and properties, token
counts, and KoboldCpp's stop button, which SillyTavern's Text Completion calls on its backend."""

__all__ = ["PASSED_THROUGH", "SHAPES", "Asked", "Event", "Markers", "Shape"]
