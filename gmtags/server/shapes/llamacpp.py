"""`POST /completion`: llama.cpp server's own completion endpoint (SPEC §7.2).

A `prompt` placed and instructed as a text prompt; the reply's text is
`content`, streamed as `data: {"content": …, "stop": false}` events and ended
by the one whose `stop` is true (llama.cpp sends no `[DONE]`).
"""

from __future__ import annotations

from typing import Any

from gmtags.server.shapes.base import Event, PromptBody, Relay, Slot, fed


class LlamaCpp(PromptBody):
    """llama.cpp's `/completion`."""

    name = "llamacpp"
    route = "/completion"
    upstream_route = "/completion"
    text_at = "content"

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
