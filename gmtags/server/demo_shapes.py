"""The scripted upstream's API shapes (SPEC §7.2): each reply as the real server writes it.

One class per shape says how a reply goes out whole, how it streams (the
frames before, around and after each piece of reasoning and of text) and how an
error looks; `SHAPES` maps each `POST` route to its class. The field names,
their order, the framing and the JSON encoding follow each server's source:

- `/v1/chat/completions`, `/v1/completions`: OpenAI (`openai` client types);
  SSE `data:` lines ending in `data: [DONE]`.
- `/completion`: llama.cpp's server (`server_task_result_cmpl_partial` and
  `_final::to_json_non_oaicompat` in tools/server/server-task.cpp); SSE
  `data:` lines, the last with `"stop":true` and the timings, no `[DONE]`.
- `/api/generate`, `/api/chat`: Ollama (api/types.go `GenerateResponse`,
  `ChatResponse`; server/routes.go `streamResponse`); NDJSON, one object a
  line, written by Go's encoding/json (HTML characters escaped); `stream`
  absent means true.
- `/v1/messages`: Anthropic (`anthropic` client's raw stream events); SSE
  with `event:` lines, a thinking block (closed by its `signature_delta`)
  before the text block.

Reasoning goes where each shape carries it (`reasoning_content`/`reasoning`,
Ollama's `thinking`, Anthropic's thinking block); the two prompt completions
have no place for it and leave it out. It is sent whether or not the request
asked for it (`think`, `thinking`), so a test needs no more than the upstream's
`reasoning`. Token counts, durations, ids and the thinking signature are
stand-ins. A lone UTF-16 surrogate half (the upstream's `utf16` test knob, on
every shape) goes out as a JSON escape.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from starlette.responses import JSONResponse, Response

from gmtags.server.errors import json_response

_HALF = re.compile("[\ud800-\udfff]")
_GO_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028"}
_GO_ESCAPES["\u2029"] = "\\u2029"
_GO_ESCAPE = re.compile("[<>&\u2028\u2029]")


def compact_json(data: Any) -> bytes:
    """`data` as compact UTF-8 JSON; a lone UTF-16 surrogate half goes out escaped (`\\ud83d`)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return _HALF.sub(lambda m: f"\\u{ord(m.group()):04x}", text).encode()


def go_json(data: Any) -> bytes:
    """`data` as Go's `json.Marshal` writes it: compact, UTF-8, `<>&` and U+2028/9 escaped."""
    text = compact_json(data).decode()
    return _GO_ESCAPE.sub(lambda m: _GO_ESCAPES[m.group()], text).encode()


def go_json_response(data: Any, status: int = 200) -> Response:
    """A reply as gin's `c.JSON` sends it (Ollama's whole replies and errors)."""
    return Response(go_json(data), status, media_type="application/json; charset=utf-8")


def go_time() -> str:
    """Now as Go writes a `time.Time` in UTC (RFC 3339, nanoseconds without trailing zeros)."""
    ns = time.time_ns()
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ns // 1_000_000_000))
    fraction = f"{ns % 1_000_000_000:09d}".rstrip("0")
    return f"{stamp}.{fraction}Z" if fraction else f"{stamp}Z"


def tokens(value: Any) -> int:
    """A stand-in token count: about four characters a token."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return max(1, len(text) // 4)


def prompt_text(prompt: Any) -> str:
    """A completion request's `prompt` as one string (OpenAI also takes a list of strings)."""
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, list):
        return "".join(part for part in prompt if isinstance(part, str))
    return ""


Reads = Literal["messages", "prompt"]
"""Where a request holds its conversation: `messages`, or a text `prompt`."""


@dataclass(frozen=True)
class Turn:
    """One answered request: what it asked and what the upstream says."""

    body: dict[str, Any]
    number: int
    """A running number, for the reply's id."""
    model: str
    text: str
    reasoning: str
    reasoning_field: str
    """Where a chat completion carries reasoning (`reasoning_content` or `reasoning`)."""


class Shape(ABC):
    """One API's reply to one turn: whole, as stream frames, or an error.

    A stream is `opening()`, `thinking(piece)` for each piece of reasoning,
    `text(piece)` for each piece of the reply, then `closing()`; each gives the
    frames to write. An instance may keep state between them (an open block).
    """

    reads: ClassVar[Reads] = "messages"
    """Where the request's conversation is: `messages`, or a text `prompt`."""
    streams_unless_told: ClassVar[bool] = False
    """Whether a request without `stream` streams (Ollama's do)."""
    stream_media_type: ClassVar[str] = "text/event-stream"

    def __init__(self, turn: Turn) -> None:
        self.turn = turn

    @abstractmethod
    def whole(self) -> Response:
        """The reply to a request that does not stream."""

    def opening(self) -> list[bytes]:
        """The frames before any piece."""
        return []

    def thinking(self, piece: str) -> list[bytes]:
        """The frames carrying a piece of reasoning (none where the shape has no place for it)."""
        return []

    @abstractmethod
    def text(self, piece: str) -> list[bytes]:
        """The frames carrying a piece of the reply."""

    @abstractmethod
    def closing(self) -> list[bytes]:
        """The frames after the last piece."""

    @classmethod
    def error(cls, status: int) -> Response:
        """The reply to a failed request, in OpenAI's shape unless the shape has its own."""
        error = {"message": "scripted failure", "type": "server_error", "code": None}
        return JSONResponse({"error": error}, status_code=status)


class ChatCompletions(Shape):
    """`POST /v1/chat/completions` (OpenAI-compatible)."""

    def _chunk(self, delta: dict[str, Any], finish: str | None = None) -> bytes:
        data = {
            "id": f"chatcmpl-demo-{self.turn.number}",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": self.turn.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        return f"data: {json.dumps(data)}\n\n".encode()  # ASCII: halves go escaped

    def whole(self) -> Response:
        turn = self.turn
        reasoning = {turn.reasoning_field: turn.reasoning} if turn.reasoning else {}
        message = {"role": "assistant", "content": turn.text, **reasoning}
        return json_response(
            {
                "id": f"chatcmpl-demo-{turn.number}",
                "object": "chat.completion",
                "created": 0,
                "model": turn.model,
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
            }
        )  # a lone surrogate half in a reply goes out escaped, as JSON allows

    def opening(self) -> list[bytes]:
        return [self._chunk({"role": "assistant", "content": ""})]

    def thinking(self, piece: str) -> list[bytes]:
        return [self._chunk({self.turn.reasoning_field: piece})]

    def text(self, piece: str) -> list[bytes]:
        return [self._chunk({"content": piece})]

    def closing(self) -> list[bytes]:
        return [self._chunk({}, "stop"), b"data: [DONE]\n\n"]


class TextCompletions(Shape):
    """`POST /v1/completions` (OpenAI text completions; streamed and whole share one shape)."""

    reads: ClassVar[Reads] = "prompt"

    def _completion(self, text: str, finish: str | None) -> dict[str, Any]:
        return {
            "id": f"cmpl-demo-{self.turn.number}",
            "object": "text_completion",
            "created": 0,
            "model": self.turn.model,
            "choices": [{"index": 0, "text": text, "finish_reason": finish, "logprobs": None}],
        }

    def _usage(self) -> dict[str, int]:
        asked = tokens(prompt_text(self.turn.body.get("prompt")))
        said = tokens(self.turn.text)
        return {"prompt_tokens": asked, "completion_tokens": said, "total_tokens": asked + said}

    def whole(self) -> Response:
        data = {**self._completion(self.turn.text, "stop"), "usage": self._usage()}
        return Response(compact_json(data), media_type="application/json")

    def text(self, piece: str) -> list[bytes]:
        return [b"data: " + compact_json(self._completion(piece, None)) + b"\n\n"]

    def closing(self) -> list[bytes]:
        last = b"data: " + compact_json(self._completion("", "stop")) + b"\n\n"
        return [last, b"data: [DONE]\n\n"]


class LlamaCompletion(Shape):
    """`POST /completion` (llama.cpp server's own endpoint)."""

    reads: ClassVar[Reads] = "prompt"
    _ERROR_TYPES: ClassVar[dict[int, str]] = {
        400: "invalid_request_error",
        401: "authentication_error",
        403: "permission_error",
        404: "not_found_error",
        501: "not_supported_error",
        503: "unavailable_error",
    }

    def __init__(self, turn: Turn) -> None:
        super().__init__(turn)
        self._pieces = 0

    def _final(self, content: str) -> dict[str, Any]:
        body = self.turn.body
        prompt = prompt_text(body.get("prompt"))
        asked, said = tokens(prompt), tokens(self.turn.text)
        settings = {
            "n_predict": body.get("n_predict", -1),
            "seed": body.get("seed", 4294967295),
            "temperature": body.get("temperature", 0.8),
            "top_k": body.get("top_k", 40),
            "top_p": body.get("top_p", 0.95),
            "min_p": body.get("min_p", 0.05),
            "stop": body.get("stop", []),
            "stream": bool(body.get("stream", False)),
        }
        timings = {
            "prompt_n": asked,
            "prompt_ms": asked * 1.0,
            "prompt_per_token_ms": 1.0,
            "prompt_per_second": 1000.0,
            "predicted_n": said,
            "predicted_ms": said * 10.0,
            "predicted_per_token_ms": 10.0,
            "predicted_per_second": 100.0,
        }
        return {
            "index": 0,
            "content": content,
            "tokens": [],
            "id_slot": 0,
            "stop": True,
            "model": self.turn.model,
            "tokens_predicted": said,
            "tokens_evaluated": asked,
            "generation_settings": settings,
            "prompt": prompt,
            "has_new_line": "\n" in self.turn.text,
            "truncated": False,
            "stop_type": "eos",
            "stopping_word": "",
            "tokens_cached": asked + said - 1,
            "timings": timings,
        }

    def whole(self) -> Response:
        return Response(compact_json(self._final(self.turn.text)), media_type="application/json")

    def text(self, piece: str) -> list[bytes]:
        self._pieces += 1
        data = {
            "index": 0,
            "content": piece,
            "tokens": [self._pieces],
            "stop": False,
            "id_slot": 0,
            "tokens_predicted": self._pieces,
            "tokens_evaluated": tokens(prompt_text(self.turn.body.get("prompt"))),
        }
        return [b"data: " + compact_json(data) + b"\n\n"]

    def closing(self) -> list[bytes]:
        return [b"data: " + compact_json(self._final("")) + b"\n\n"]

    @classmethod
    def error(cls, status: int) -> Response:
        kind = cls._ERROR_TYPES.get(status, "server_error")
        error = {"code": status, "message": "scripted failure", "type": kind}
        return Response(compact_json({"error": error}), status, media_type="application/json")


class OllamaGenerate(Shape):
    """`POST /api/generate` (Ollama): `response` pieces, `thinking` pieces before them."""

    reads: ClassVar[Reads] = "prompt"
    streams_unless_told = True
    stream_media_type = "application/x-ndjson"

    def _part(self, **fields: Any) -> dict[str, Any]:
        return {"model": self.turn.model, "created_at": go_time(), **fields}

    def _asked(self) -> int:
        return tokens(prompt_text(self.turn.body.get("prompt")))

    def _metrics(self) -> dict[str, Any]:
        asked, said = self._asked(), tokens(self.turn.text)
        return {
            "total_duration": 1_000_000 * (asked + 10 * said),
            "load_duration": 500_000,
            "prompt_eval_count": asked,
            "prompt_eval_duration": 1_000_000 * asked,
            "eval_count": said,
            "eval_duration": 10_000_000 * said,
        }

    def _done(self, text: str, reasoning: str) -> dict[str, Any]:
        done = self._part(response=text)
        if reasoning:
            done["thinking"] = reasoning
        done.update(done=True, done_reason="stop")
        if not self.turn.body.get("raw"):  # a raw prompt gets no context back
            words = len(prompt_text(self.turn.body.get("prompt")).split() + self.turn.text.split())
            done["context"] = list(range(1, words + 1))
        return {**done, **self._metrics()}

    def whole(self) -> Response:
        return go_json_response(self._done(self.turn.text, self.turn.reasoning))

    def thinking(self, piece: str) -> list[bytes]:
        return [go_json(self._part(response="", thinking=piece, done=False)) + b"\n"]

    def text(self, piece: str) -> list[bytes]:
        return [go_json(self._part(response=piece, done=False)) + b"\n"]

    def closing(self) -> list[bytes]:
        return [go_json(self._done("", "")) + b"\n"]

    @classmethod
    def error(cls, status: int) -> Response:
        return go_json_response({"error": "scripted failure"}, status)


class OllamaChat(OllamaGenerate):
    """`POST /api/chat` (Ollama): `message.content` pieces, `message.thinking` before them."""

    reads: ClassVar[Reads] = "messages"

    def _message(self, content: str, reasoning: str = "") -> dict[str, Any]:
        message = {"role": "assistant", "content": content}
        return {**message, "thinking": reasoning} if reasoning else message

    def _done(self, text: str, reasoning: str) -> dict[str, Any]:
        done = self._part(message=self._message(text, reasoning), done=True, done_reason="stop")
        return {**done, **self._metrics()}

    def _asked(self) -> int:
        return tokens(self.turn.body.get("messages", []))

    def thinking(self, piece: str) -> list[bytes]:
        return [go_json(self._part(message=self._message("", piece), done=False)) + b"\n"]

    def text(self, piece: str) -> list[bytes]:
        return [go_json(self._part(message=self._message(piece), done=False)) + b"\n"]


class AnthropicMessages(Shape):
    """`POST /v1/messages` (Anthropic): a thinking block when there is reasoning, then text."""

    SIGNATURE = base64.b64encode(b"gmtags scripted thinking, not signed by anyone").decode()
    """The stand-in for the opaque signature that closes a thinking block."""
    _PING = b'event: ping\ndata: {"type": "ping"}\n\n'  # the real API writes this one spaced
    _ERROR_TYPES: ClassVar[dict[int, str]] = {
        400: "invalid_request_error",
        401: "authentication_error",
        403: "permission_error",
        404: "not_found_error",
        413: "request_too_large",
        429: "rate_limit_error",
        529: "overloaded_error",
    }

    def __init__(self, turn: Turn) -> None:
        super().__init__(turn)
        self._blocks = 0
        self._open: str | None = None  # the type of the block being streamed

    @staticmethod
    def _event(name: str, data: dict[str, Any]) -> bytes:
        return f"event: {name}\n".encode() + b"data: " + compact_json(data) + b"\n\n"

    def _message(self, content: list[dict[str, Any]], stop: str | None) -> dict[str, Any]:
        asked = tokens([self.turn.body.get("system", ""), self.turn.body.get("messages", [])])
        return {
            "id": f"msg_demo{self.turn.number:020d}",
            "type": "message",
            "role": "assistant",
            "model": self.turn.model,
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {
                "input_tokens": asked,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
                "output_tokens": tokens(self.turn.text) if stop else 1,
            },
        }

    def whole(self) -> Response:
        content = [{"type": "text", "text": self.turn.text}]
        if self.turn.reasoning:
            thinking = {"type": "thinking", "thinking": self.turn.reasoning}
            content.insert(0, {**thinking, "signature": self.SIGNATURE})
        data = self._message(content, "end_turn")
        return Response(compact_json(data), media_type="application/json")

    def _switch(self, kind: str) -> list[bytes]:
        """Close the open block and start one of `kind` (a ping follows the first start)."""
        if self._open == kind:
            return []
        frames = self._close()
        block = {"type": "thinking", "thinking": "", "signature": ""}
        if kind == "text":
            block = {"type": "text", "text": ""}
        start = {"type": "content_block_start", "index": self._blocks, "content_block": block}
        frames.append(self._event("content_block_start", start))
        if self._blocks == 0:
            frames.append(self._PING)
        self._open = kind
        return frames

    def _close(self) -> list[bytes]:
        if self._open is None:
            return []
        frames = []
        index = self._blocks
        if self._open == "thinking":
            delta = {"type": "signature_delta", "signature": self.SIGNATURE}
            frames.append(self._delta(delta))
        frames.append(
            self._event("content_block_stop", {"type": "content_block_stop", "index": index})
        )
        self._blocks += 1
        self._open = None
        return frames

    def _delta(self, delta: dict[str, Any]) -> bytes:
        data = {"type": "content_block_delta", "index": self._blocks, "delta": delta}
        return self._event("content_block_delta", data)

    def opening(self) -> list[bytes]:
        start = {"type": "message_start", "message": self._message([], None)}
        return [self._event("message_start", start)]

    def thinking(self, piece: str) -> list[bytes]:
        delta = {"type": "thinking_delta", "thinking": piece}
        return [*self._switch("thinking"), self._delta(delta)]

    def text(self, piece: str) -> list[bytes]:
        return [*self._switch("text"), self._delta({"type": "text_delta", "text": piece})]

    def closing(self) -> list[bytes]:
        frames = [*self._switch("text"), *self._close()]  # an empty reply still has its block
        delta = {"stop_reason": "end_turn", "stop_sequence": None}
        usage = {"output_tokens": tokens(self.turn.text)}
        frames.append(
            self._event("message_delta", {"type": "message_delta", "delta": delta, "usage": usage})
        )
        frames.append(self._event("message_stop", {"type": "message_stop"}))
        return frames

    @classmethod
    def error(cls, status: int) -> Response:
        kind = cls._ERROR_TYPES.get(status, "api_error")
        error = {"type": "error", "error": {"type": kind, "message": "scripted failure"}}
        return Response(compact_json(error), status, media_type="application/json")


SHAPES: dict[str, type[Shape]] = {
    "/v1/chat/completions": ChatCompletions,
    "/v1/completions": TextCompletions,
    "/completion": LlamaCompletion,
    "/api/generate": OllamaGenerate,
    "/api/chat": OllamaChat,
    "/v1/messages": AnthropicMessages,
}
"""Each `POST` route the scripted upstream answers, and its shape."""


def ollama_tags(model: str) -> Response:
    """`GET /api/tags`: Ollama's list of local models, holding `model` (tag `latest`)."""
    name = f"{model}:latest"
    entry = {
        "name": name,
        "model": name,
        "modified_at": "2025-01-01T00:00:00Z",
        "size": 4_920_753_328,
        "digest": hashlib.sha256(name.encode()).hexdigest(),
        "details": {
            "parent_model": "",
            "format": "gguf",
            "family": "llama",
            "families": ["llama"],
            "parameter_size": "8.0B",
            "quantization_level": "Q4_K_M",
        },
    }
    return go_json_response({"models": [entry]})


def ollama_version() -> Response:
    """`GET /api/version`: the Ollama version the scripted upstream plays."""
    return go_json_response({"version": "0.6.0"})
