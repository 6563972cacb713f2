"""`POST /api/generate` and `POST /api/chat`: Ollama's own API (SPEC §7.2).

Both stream NDJSON (one JSON object a line) unless the request says
`"stream": false` (Ollama streams when it is absent), and end the reply with
the object whose `done` is true. `/api/generate` takes the instructions in
`system`, or in its prompt as a text prompt when `raw` is true (SillyTavern
sends raw prompts, and Ollama then ignores `system`) or when the prompt holds
a marker; its text is `response`. `/api/chat` is placed and instructed by its
messages as OpenAI chat is; its text is `message.content`. Reasoning
(`thinking`) passes untouched. An error is `{"error": "…"}`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gmtags.prompt import Instructions
from gmtags.server.shapes.base import (
    Asked,
    Event,
    Markers,
    MessagesBody,
    PromptBody,
    Relay,
    Shape,
    Slot,
    fed,
)


class _Ollama(Shape):
    """What Ollama's two routes share: NDJSON, streaming by default, `{"error": "…"}`."""

    framing = "ndjson"
    media_type = "application/x-ndjson"

    def streams(self, body: Mapping[str, Any]) -> bool:
        return body.get("stream") is not False

    def error_body(self, message: str, kind: str, code: str | int | None = None) -> Any:
        return {"error": message}

    @staticmethod
    def _ended(data: Mapping[str, Any]) -> bool:
        return data.get("done") is True


class Generate(_Ollama, PromptBody):
    """Ollama's `/api/generate`."""

    name = "ollama-generate"
    route = "/api/generate"
    upstream_route = "/api/generate"
    text_at = "response"

    def instruct(
        self, body: Mapping[str, Any], asked: Asked, instructions: Instructions, markers: Markers
    ) -> dict[str, Any]:
        prompt = asked.prompt or ""
        marked = markers.instructions in prompt or markers.turn in prompt
        if body.get("raw") is True or marked:
            return super().instruct(body, asked, instructions, markers)
        system = body.get("system")
        told = instructions.system + (f"\n\n{system}" if isinstance(system, str) and system else "")
        asked_for = f"{prompt}\n\n{instructions.reminder}" if prompt else instructions.reminder
        return {**body, "system": told, "prompt": asked_for}

    def slots(self, reply: Any) -> list[Slot] | None:
        if not isinstance(reply, dict) or not isinstance(reply.get("response"), str):
            return None
        return [(reply, "response")]

    async def rewrite(self, event: Event, relay: Relay) -> list[Event]:
        if isinstance(event.data, dict):
            await fed(relay, event.data, "response", self._ended(event.data))
        return [event]

    def tail(self, last: Event | None, text: str, relay: Relay) -> Event:
        return _line(last, "response", text)


class OllamaChat(_Ollama, MessagesBody):
    """Ollama's `/api/chat`."""

    name = "ollama-chat"
    route = "/api/chat"
    upstream_route = "/api/chat"
    text_at = "message"

    def slots(self, reply: Any) -> list[Slot] | None:
        message = reply.get("message") if isinstance(reply, dict) else None
        if not isinstance(message, dict):
            return None
        return [(message, "content")] if isinstance(message.get("content"), str) else []

    async def rewrite(self, event: Event, relay: Relay) -> list[Event]:
        data = event.data
        if not isinstance(data, dict):
            return [event]
        ended = self._ended(data)
        message = data.get("message")
        if not isinstance(message, dict) and ended and not relay.closed:
            message = data["message"] = {"role": "assistant", "content": ""}
        if isinstance(message, dict):
            await fed(relay, message, "content", ended)
        return [event]

    def tail(self, last: Event | None, text: str, relay: Relay) -> Event:
        return _line(last, "message", {"role": "assistant", "content": text})


def _line(last: Event | None, key: str, value: Any) -> Event:
    """A streamed line like the last one (its model and time) holding `key: value`."""
    data = last.data if last is not None and isinstance(last.data, dict) else {}
    line = {"model": data.get("model", ""), "created_at": data.get("created_at", "")}
    return Event(None, {**line, key: value, "done": False})
