"""A scripted upstream: canned GM replies with tags, no model (issue 7, item 4).

It answers every API shape of SPEC §7.2, as the real servers write them
(`demo_shapes`): `POST /v1/chat/completions` and `/v1/completions` (OpenAI),
`/completion` (llama.cpp), `/api/generate` and `/api/chat` (Ollama, NDJSON),
`/v1/messages` (Anthropic), streaming and not; and `GET /v1/models`,
`/api/tags` and `/api/version`. A chat reply is chosen by how many user
messages the request holds, a prompt's by which canned replies it already
holds, so the same conversation always gets the same text (a regenerate
differs only in its dice). Streams are cut into small pieces so tags arrive
split across chunks.
For tests it can also answer with a script of its own, fail every completion
with a status (in the shape's own error format), wait before answering, pace
its deltas as a model does, send reasoning first, drop a stream part way, or
cut its stream by UTF-16 code units (as some model servers do, so a character
outside the Basic Multilingual Plane arrives as two escaped halves in
consecutive chunks); it keeps every request body, route, `Authorization`
header and all headers it saw.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from gmtags.server.demo_shapes import (
    SHAPES,
    Shape,
    Turn,
    ollama_tags,
    ollama_version,
    prompt_text,
)

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
    prompt_script: Callable[[str], str] | None = None
    """When set, the reply to a text prompt (`/v1/completions`, `/completion`, `/api/generate`)."""
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
    """Reasoning the model sends before its reply (SPEC §2.1): in `reasoning_field` of a chat
    completion, Ollama's `thinking`, an Anthropic thinking block; text completions have none."""
    reasoning_field: str = "reasoning_content"
    """Where reasoning goes: `reasoning_content` (DeepSeek, vLLM), `reasoning` (OpenRouter)."""
    requests: list[dict[str, Any]] = field(default_factory=list)
    """The body of each completion request (`POST`), in order."""
    routes: list[str] = field(default_factory=list)
    """The path of each completion request, beside `requests`."""
    authorizations: list[str | None] = field(default_factory=list)
    """The `Authorization` header of every request (`GET`s too)."""
    headers: list[dict[str, str]] = field(default_factory=list)
    """All headers of every request (`GET`s too), names lower-cased, beside `authorizations`."""
    _ids: itertools.count[int] = field(default_factory=itertools.count)

    def reply_for(self, messages: Sequence[Any]) -> str:
        """The canned reply to a conversation: one per user turn, in order, then round again."""
        if self.script is not None:
            return self.script(messages)
        users = sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "user")
        return self.replies[max(users - 1, 0) % len(self.replies)]

    def reply_for_prompt(self, prompt: str) -> str:
        """The canned reply to a text prompt: the k-th reply (round again) when the prompt
        already holds the first 40 characters of k of them, so each turn gets the next."""
        if self.prompt_script is not None:
            return self.prompt_script(prompt)
        held = sum(1 for reply in self.replies if reply[:40] in prompt)
        return self.replies[held % len(self.replies)]

    @property
    def app(self) -> Starlette:
        """The Starlette app serving this upstream's routes."""
        routes = [self._route(path, shape) for path, shape in SHAPES.items()]
        return Starlette(
            routes=[
                *routes,
                Route("/v1/models", self._models, methods=["GET"]),
                Route("/api/tags", self._tags, methods=["GET"]),
                Route("/api/version", self._version, methods=["GET"]),
            ]
        )

    def _saw(self, request: Request) -> None:
        self.authorizations.append(request.headers.get("authorization"))
        seen: dict[str, str] = {}
        for name, value in request.headers.items():  # names come lower-cased
            seen[name] = f"{seen[name]}, {value}" if name in seen else value
        self.headers.append(seen)

    async def _models(self, request: Request) -> Response:
        self._saw(request)
        model = {"id": MODEL, "object": "model", "created": 0, "owned_by": "gmtags"}
        return JSONResponse({"object": "list", "data": [model]})

    async def _tags(self, request: Request) -> Response:
        self._saw(request)
        return ollama_tags(MODEL)

    async def _version(self, request: Request) -> Response:
        self._saw(request)
        return ollama_version()

    def _route(self, path: str, shape: type[Shape]) -> Route:
        async def answer(request: Request) -> Response:
            return await self._answer(request, shape)

        return Route(path, answer, methods=["POST"])

    async def _answer(self, request: Request, shape: type[Shape]) -> Response:
        body = await request.json()
        self.requests.append(body)
        self.routes.append(request.url.path)
        self._saw(request)
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.fail_status is not None:
            return shape.error(self.fail_status)
        if shape.reads == "messages":
            text = self.reply_for(body.get("messages", []))
        else:
            text = self.reply_for_prompt(prompt_text(body.get("prompt")))
        turn = Turn(
            body=body,
            number=next(self._ids),
            model=body.get("model", MODEL),
            text=text,
            reasoning=self.reasoning,
            reasoning_field=self.reasoning_field,
        )
        reply = shape(turn)
        if body.get("stream", shape.streams_unless_told):
            return StreamingResponse(self._stream(reply, text), media_type=shape.stream_media_type)
        return reply.whole()

    async def _stream(self, reply: Shape, text: str) -> AsyncIterator[bytes]:
        for frame in reply.opening():
            yield frame
        for start in range(0, len(self.reasoning), self.chunk_size):
            for frame in reply.thinking(self.reasoning[start : start + self.chunk_size]):
                yield frame
        if self.utf16:
            units = text.encode("utf-16-le", "surrogatepass")
            text = "".join(
                chr(int.from_bytes(units[i : i + 2], "little")) for i in range(0, len(units), 2)
            )
        for number, start in enumerate(range(0, len(text), self.chunk_size)):
            if number == self.cut_after:
                raise ConnectionAbortedError("scripted cut")
            for frame in reply.text(text[start : start + self.chunk_size]):
                yield frame
            await asyncio.sleep(self.pace)
        for frame in reply.closing():
            yield frame
