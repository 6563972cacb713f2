"""A scripted OpenAI-compatible upstream: canned GM replies with tags, no model (issue 7, item 4).

It answers `POST /v1/chat/completions` (streaming and not) and `GET /v1/models`.
The reply is chosen by how many user messages the request holds, so the same
conversation always gets the same text (a regenerate differs only in its
dice). Streams are cut into small pieces so tags arrive split across chunks.
For tests it can also answer with a script of its own, fail every completion
with a status, wait before answering, pace its deltas as a model does, drop a
stream part way, or cut its stream by UTF-16 code units (as some model servers
do, so a character outside the Basic Multilingual Plane arrives as two escaped
halves in consecutive chunks); it keeps every request body and `Authorization`
header it saw.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from gmtags.server.errors import json_response

MODEL = "gmtags-demo"

DEMO_REPLIES = (
    "The lantern gutters as Bram sets his shoulder to the gate."
    ' [skill_check: skill="Ward" difficulty="Hard" who="Bram the Quiet"]\n'
    "Somewhere below the watch-house a bell starts, slow at first, then frantic.\n"
    '[clock: name="Alarm raised" size="6"]\n',
    "Bram tops up the lamp before the wind can take it."
    ' [sheet: who="Bram the Quiet" op="spend" pool="Lamp oil" amount="1"]\n'
    "A stone from the dark catches his brow."
    ' [sheet: who="Bram the Quiet" op="damage" track="Harm" kind="knock" amount="1"]\n'
    'The bell rings on. [clock: name="Alarm raised" tick="2"]\n',
    "Rain hammers the road; the last of the ford goes under."
    ' [clock: name="Road washed out" tick="1"]\n'
    "Bram works the rusted latch with numb fingers."
    ' [skill_check: skill="Tinker" difficulty="Steady" who="Bram the Quiet"]\n'
    "He is soaked to the skin"
    ' [sheet: who="Bram the Quiet" op="condition" condition="Soaked"]'
    " and the watch opens a crate of rations."
    ' [sheet: sheet="party" op="spend" pool="Supplies" amount="1"]\n',
)
"""Replies that play the bundled demo ruleset (`gmtags/demo/ruleset.json`) from its state."""


@dataclass
class ScriptedUpstream:
    """The scripted upstream's behaviour and what it has seen; `app` serves it."""

    replies: Sequence[str] = DEMO_REPLIES
    script: Callable[[Sequence[Any]], str] | None = None
    """When set, the reply to a request's messages (instead of `replies`)."""
    chunk_size: int = 7
    """Characters per streamed delta."""
    utf16: bool = False
    """Cut streamed text by UTF-16 code units (a pair's halves may go in two deltas)."""
    fail_status: int | None = None
    """Answer every completion with this error status instead."""
    delay: float = 0.0
    """Seconds to wait before answering a completion."""
    pace: float = 0.0
    """Seconds between two streamed deltas (0: as fast as it can; a model takes some ms)."""
    cut_after: int | None = None
    """Drop the connection after streaming this many content deltas."""
    reasoning: str = ""
    """Reasoning the model sends before its reply, in `reasoning_field` (SPEC §2.1)."""
    reasoning_field: str = "reasoning_content"
    """Where reasoning goes: `reasoning_content` (DeepSeek, vLLM), `reasoning` (OpenRouter)."""
    requests: list[dict[str, Any]] = field(default_factory=list)
    authorizations: list[str | None] = field(default_factory=list)
    _ids: itertools.count[int] = field(default_factory=itertools.count)

    def reply_for(self, messages: Sequence[Any]) -> str:
        """The canned reply to a conversation: one per user turn, in order, then round again."""
        if self.script is not None:
            return self.script(messages)
        users = sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "user")
        return self.replies[max(users - 1, 0) % len(self.replies)]

    @property
    def app(self) -> Starlette:
        """The Starlette app serving this upstream under `/v1`."""
        return Starlette(
            routes=[
                Route("/v1/chat/completions", self._completions, methods=["POST"]),
                Route("/v1/models", self._models, methods=["GET"]),
            ]
        )

    async def _models(self, request: Request) -> Response:
        self.authorizations.append(request.headers.get("authorization"))
        model = {"id": MODEL, "object": "model", "created": 0, "owned_by": "gmtags"}
        return JSONResponse({"object": "list", "data": [model]})

    async def _completions(self, request: Request) -> Response:
        body = await request.json()
        self.requests.append(body)
        self.authorizations.append(request.headers.get("authorization"))
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.fail_status is not None:
            error = {"message": "scripted failure", "type": "server_error", "code": None}
            return JSONResponse({"error": error}, status_code=self.fail_status)
        text = self.reply_for(body.get("messages", []))
        ident = f"chatcmpl-demo-{next(self._ids)}"
        model = body.get("model", MODEL)
        if body.get("stream"):
            return StreamingResponse(
                self._stream(ident, model, text), media_type="text/event-stream"
            )
        return json_response(
            {
                "id": ident,
                "object": "chat.completion",
                "created": 0,
                "model": model,
                "choices": [
                    {
                        "index": 0,
                        "message": {
                            "role": "assistant",
                            "content": text,
                            **({self.reasoning_field: self.reasoning} if self.reasoning else {}),
                        },
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
            }
        )  # a lone surrogate half in a reply goes out escaped, as JSON allows

    async def _stream(self, ident: str, model: str, text: str) -> AsyncIterator[bytes]:
        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            data = {
                "id": ident,
                "object": "chat.completion.chunk",
                "created": 0,
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            return f"data: {json.dumps(data)}\n\n".encode()  # ASCII: halves go escaped

        yield chunk({"role": "assistant", "content": ""})
        for start in range(0, len(self.reasoning), self.chunk_size):
            yield chunk({self.reasoning_field: self.reasoning[start : start + self.chunk_size]})
        if self.utf16:
            units = text.encode("utf-16-le", "surrogatepass")
            text = "".join(
                chr(int.from_bytes(units[i : i + 2], "little")) for i in range(0, len(units), 2)
            )
        for number, start in enumerate(range(0, len(text), self.chunk_size)):
            if number == self.cut_after:
                raise ConnectionAbortedError("scripted cut")
            yield chunk({"content": text[start : start + self.chunk_size]})
            await asyncio.sleep(self.pace)
        yield chunk({}, "stop")
        yield b"data: [DONE]\n\n"
