"""`POST /v1/chat/completions`: OpenAI-compatible chat (SPEC §7, §7.1).

Messages are placed by content and take the instructions as SPEC §7.1 says
(`gmtags.server.messages`); the reply's text is choice 0's `message.content`,
streamed as `choices[].delta.content` and ended by its `finish_reason`. Only
choice 0 is ruled, so `n` > 1 is refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gmtags.server.shapes.base import (
    Asked,
    Event,
    MessagesBody,
    Relay,
    Slot,
    fed,
    finished,
    first_choice,
    one_choice,
    openai_chunk,
)


class Chat(MessagesBody):
    """OpenAI's chat completions."""

    name = "chat"
    route = "/v1/chat/completions"
    upstream_route = "/v1/chat/completions"
    text_at = "choices[0].message"

    def read(self, body: Mapping[str, Any]) -> Asked:
        one_choice(body)
        return super().read(body)

    def slots(self, reply: Any) -> list[Slot] | None:
        choice = first_choice(reply)
        message = None if choice is None else choice.get("message")
        if not isinstance(message, dict):
            return None
        return [(message, "content")] if isinstance(message.get("content"), str) else []

    async def rewrite(self, event: Event, relay: Relay) -> list[Event]:
        choices = event.data.get("choices") if isinstance(event.data, dict) else None
        for choice in choices if isinstance(choices, list) else ():
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta")
            if isinstance(delta, dict):
                await fed(relay, delta, "content", finished(choice))
        return [event]

    def tail(self, last: Event | None, text: str, relay: Relay) -> Event:
        choice = {"index": 0, "delta": {"content": text}, "finish_reason": None}
        return openai_chunk(last, "chat.completion.chunk", choice)
