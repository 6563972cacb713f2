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

from gmtags.prompt import Instructions
from gmtags.server.shapes.base import (
    Asked,
    Event,
    Markers,
    Relay,
    Shape,
    Slot,
    fed,
    finished,
    in_prompt,
    one_choice,
    require_prompt,
)


class Text(Shape):
    """OpenAI's (legacy) completions."""

    name = "text"
    route = "/v1/completions"
    upstream_route = "/v1/completions"
    text_at = "choices[0].text"

    def read(self, body: Mapping[str, Any]) -> Asked:
        prompt = require_prompt(body)
        one_choice(body)
        return Asked(prompt=prompt)

    def instruct(
        self, body: Mapping[str, Any], asked: Asked, instructions: Instructions, markers: Markers
    ) -> dict[str, Any]:
        assert asked.prompt is not None
        return {**body, "prompt": in_prompt(asked.prompt, instructions, markers)}

    def slots(self, reply: Any) -> list[Slot] | None:
        try:
            choice = reply["choices"][0]
        except (KeyError, IndexError, TypeError):
            return None
        if not isinstance(choice, dict):
            return None
        return [(choice, "text")] if isinstance(choice.get("text"), str) else []

    async def rewrite(self, event: Event, relay: Relay) -> list[Event]:
        choices = event.data.get("choices") if isinstance(event.data, dict) else None
        for choice in choices if isinstance(choices, list) else ():
            if isinstance(choice, dict) and choice.get("index", 0) == 0:
                await fed(relay, choice, "text", finished(choice))
        return [event]

    def tail(self, last: Event | None, text: str, relay: Relay) -> Event:
        data = last.data if last is not None and isinstance(last.data, dict) else {}
        return Event(
            None,
            {
                "id": data.get("id", "gmtags"),
                "object": "text_completion",
                "created": data.get("created", 0),
                "model": data.get("model", ""),
                "choices": [{"index": 0, "text": text, "finish_reason": None, "logprobs": None}],
            },
        )
