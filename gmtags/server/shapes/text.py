"""`POST /v1/completions`: OpenAI-compatible text completion (SPEC §7.2).

The Text Completion backends SillyTavern and others speak (vLLM, TabbyAPI,
Aphrodite, KoboldCpp, llama.cpp, text-generation-webui, Ollama, OpenRouter).
The request holds one `prompt`: it is placed by the stored replies it holds
and takes the instructions at its markers (`in_prompt`). The reply's text is
`choices[0].text`, streamed the same way and ended by its `finish_reason`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gmtags.server.shapes.base import (
    Asked,
    Event,
    PromptBody,
    Relay,
    Slot,
    fed,
    finished,
    first_choice,
    one_choice,
    openai_chunk,
)


class Text(PromptBody):
    """OpenAI's (legacy) completions."""

    name = "text"
    route = "/v1/completions"
    upstream_route = "/v1/completions"
    text_at = "choices[0].text"

    def read(self, body: Mapping[str, Any]) -> Asked:
        one_choice(body)
        return super().read(body)

    def slots(self, reply: Any) -> list[Slot] | None:
        choice = first_choice(reply)
        if choice is None:
            return None
        return [(choice, "text")] if isinstance(choice.get("text"), str) else []

    async def rewrite(self, event: Event, relay: Relay) -> list[Event]:
        choices = event.data.get("choices") if isinstance(event.data, dict) else None
        for choice in choices if isinstance(choices, list) else ():
            if isinstance(choice, dict) and choice.get("index", 0) == 0:
                await fed(relay, choice, "text", finished(choice))
        return [event]

    def tail(self, last: Event | None, text: str, relay: Relay) -> Event:
        choice = {"index": 0, "text": text, "finish_reason": None, "logprobs": None}
        return openai_chunk(last, "text_completion", choice)
