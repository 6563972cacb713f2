"""`POST /v1/messages`: Anthropic's Messages API, Claude (SPEC §7.2).

The messages are placed by content with the `system` field read as their
first, system message; the GM system part opens `system` (a text, or a first
text block before the client's own blocks) and the turn reminder joins the
last user message (the API has no system message mid-chat). The upstream's
key goes as `x-api-key`.

The reply's text is its `text` blocks, streamed as `text_delta`s of
`content_block_delta` events. One processor reads the reply's text blocks in
order and closes at the end of the first one (what it held back goes out as
one more `text_delta` just before that block's `content_block_stop`); a later
text block (after a tool call) passes as it came. `thinking` and
`redacted_thinking` blocks, their `thinking_delta`s and `signature_delta`s,
pass untouched. A stream that ends its message with no text block closed
gets one made for the text held back, before `message_delta`. Errors are
`{"type": "error", "error": {"type", "message"}}`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gmtags.prompt import Instructions
from gmtags.server.bodies import BodyError
from gmtags.server.messages import with_instructions
from gmtags.server.shapes.base import (
    Asked,
    Event,
    Markers,
    Relay,
    Shape,
    Slot,
    fed,
    require_messages,
)

ERROR_TYPES = frozenset(
    {
        "invalid_request_error",
        "authentication_error",
        "permission_error",
        "not_found_error",
        "request_too_large",
        "rate_limit_error",
        "api_error",
        "overloaded_error",
    }
)
"""Anthropic's error types; gmtags' own kinds outside them go as `api_error`."""
_OPEN = "text-block"
_LAST = "last-index"


class Messages(Shape):
    """Anthropic's `/v1/messages`."""

    name = "anthropic"
    route = "/v1/messages"
    upstream_route = "/v1/messages"
    text_at = "content list"
    key_header = "x-api-key"

    def read(self, body: Mapping[str, Any]) -> Asked:
        messages = require_messages(body)
        system = body.get("system")
        if system is not None and not isinstance(system, str | list):
            raise BodyError(400, "system must be text or a list of text blocks")
        told = [] if system is None else [{"role": "system", "content": system}]
        return Asked(messages=[*told, *messages])

    def instruct(
        self, body: Mapping[str, Any], asked: Asked, instructions: Instructions, markers: Markers
    ) -> dict[str, Any]:
        assert asked.messages is not None
        placed = with_instructions(asked.messages, instructions, merge=True)
        return {**body, "system": placed[0]["content"], "messages": placed[1:]}

    def slots(self, reply: Any) -> list[Slot] | None:
        content = reply.get("content") if isinstance(reply, dict) else None
        if not isinstance(content, list):
            return None
        return [
            (block, "text")
            for block in content
            if isinstance(block, dict)
            and block.get("type") == "text"
            and isinstance(block.get("text"), str)
        ]

    async def rewrite(self, event: Event, relay: Relay) -> list[Event]:
        data = event.data
        if not isinstance(data, dict):
            return [event]
        kind = data.get("type")
        index = data.get("index")
        state = relay.state
        if isinstance(index, int):
            state[_LAST] = max(index, state.get(_LAST, -1))
        if kind == "content_block_start":
            block = data.get("content_block")
            if isinstance(block, dict) and block.get("type") == "text" and not relay.closed:
                state[_OPEN] = index
                await fed(relay, block, "text", False)
        elif kind == "content_block_delta" and index == state.get(_OPEN):
            delta = data.get("delta")
            if isinstance(delta, dict) and delta.get("type") == "text_delta":
                await fed(relay, delta, "text", False)
        elif kind == "content_block_stop" and isinstance(index, int) and index == state.get(_OPEN):
            held = "" if relay.closed else relay.close()
            state.pop(_OPEN, None)
            return [*([_delta(index, held)] if held else []), event]
        elif kind in ("message_delta", "message_stop") and not relay.closed:
            held = relay.close()
            if held:
                made = state.get(_LAST, -1) + 1
                return [*_block(made, held), event]
        return [event]

    def tail(self, last: Event | None, text: str, relay: Relay) -> Event:
        index = relay.state.get(_OPEN)
        return _delta(index if isinstance(index, int) else 0, text)

    def error_event(self, body: Any) -> Event:
        return Event("error", body)

    def error_body(self, message: str, kind: str, code: str | int | None = None) -> Any:
        kind = kind if kind in ERROR_TYPES else "api_error"
        return {"type": "error", "error": {"type": kind, "message": message}}


def _delta(index: int, text: str) -> Event:
    delta = {"type": "text_delta", "text": text}
    return Event(
        "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
    )


def _block(index: int, text: str) -> list[Event]:
    """A whole text block holding `text`, as three events."""
    start = {
        "type": "content_block_start",
        "index": index,
        "content_block": {"type": "text", "text": ""},
    }
    stop = {"type": "content_block_stop", "index": index}
    return [
        Event("content_block_start", start),
        _delta(index, text),
        Event("content_block_stop", stop),
    ]
