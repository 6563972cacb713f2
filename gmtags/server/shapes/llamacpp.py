"""`POST /completion`: llama.cpp server's own completion endpoint (SPEC §7.2).

A `prompt` placed and instructed as a text prompt; the reply's text is
`content`, streamed as `data: {"content": …, "stop": false}` events and ended
by the one whose `stop` is true (llama.cpp sends no `[DONE]`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gmtags.prompt import Instructions
from gmtags.server.shapes.base import (
    Asked,
    Event,
    Markers,
    Relay,
    Shape,
    Slot,
    fed,
    in_prompt,
    require_prompt,
)


class LlamaCpp(Shape):
    """llama.cpp's `/completion`."""

    name = "llamacpp"
    route = "/completion"
    upstream_route = "/completion"
    text_at = "content"

    def read(self, body: Mapping[str, Any]) -> Asked:
        return Asked(prompt=require_prompt(body))

    def instruct(
        self, body: Mapping[str, Any], asked: Asked, instructions: Instructions, markers: Markers
    ) -> dict[str, Any]:
        assert asked.prompt is not None
        return {**body, "prompt": in_prompt(asked.prompt, instructions, markers)}

    def slots(self, reply: Any) -> list[Slot] | None:
        if not isinstance(reply, dict) or "content" not in reply:
            return None
        return [(reply, "content")] if isinstance(reply["content"], str) else []

    async def rewrite(self, event: Event, relay: Relay) -> list[Event]:
        if isinstance(event.data, dict):
            await fed(relay, event.data, "content", event.data.get("stop") is True)
        return [event]

    def tail(self, last: Event | None, text: str, relay: Relay) -> Event:
        return Event(None, {"content": text, "stop": False})
