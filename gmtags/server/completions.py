"""`POST /v1/chat/completions`: forward with the GM instructions, rewrite the reply (SPEC §7).

Streaming replies go through one `StreamProcessor` as they arrive: the
content of each upstream delta is fed and what `feed` returns goes on in the
same chunk at once, so narration reaches the player with no wait beyond a
held-back tag; `close()` runs when the upstream finishes (its `finish_reason`
chunk, `[DONE]`, or the end of the stream). Only choice 0 is rewritten, so
requests asking for several choices (`n` > 1) are refused.

A reply's snapshots are recorded once it is whole, and also when the caller
hangs up mid-stream (the receipts it was sent are in the message it keeps).
A reply the upstream broke off is not recorded: the chat stays where it was.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from gmtags.log import get_logger
from gmtags.process import process
from gmtags.prompt import gm_instructions
from gmtags.server.chats import CHAT_HEADER, MAX_CHAT_ID, ChatBook, Turn, derive_chat_id
from gmtags.server.config import ServerConfig
from gmtags.server.errors import error_response
from gmtags.server.messages import with_instructions
from gmtags.server.sse import DONE, event, sse_data
from gmtags.server.upstream import Upstream, UpstreamError, failure
from gmtags.stream import StreamProcessor


class BadRequest(Exception):
    """A request the proxy refuses: its status and message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


async def read_body(request: Request, limit: int) -> dict[str, Any]:
    """The request's JSON object, read no further than `limit` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise BadRequest(413, f"the request is larger than {limit} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BadRequest(413, f"the request is larger than {limit} bytes")
        chunks.append(chunk)
    try:
        body = json.loads(b"".join(chunks))
    except ValueError:
        raise BadRequest(400, "the request body is not JSON") from None
    if not isinstance(body, dict):
        raise BadRequest(400, "the request body must be a JSON object")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise BadRequest(400, "messages must be a non-empty list")
    if not all(isinstance(message, dict) for message in messages):
        raise BadRequest(400, "every message must be an object")
    if body.get("n", 1) != 1:
        raise BadRequest(400, "gmtags rewrites one choice: n must be 1")
    return body


def chat_id_of(request: Request, messages: list[dict[str, Any]]) -> str:
    """SPEC §7: the chat named by `X-Gmtags-Chat`, else one derived from the first messages."""
    named = request.headers.get(CHAT_HEADER, "").strip()
    if len(named) > MAX_CHAT_ID:
        raise BadRequest(400, f"{CHAT_HEADER} is longer than {MAX_CHAT_ID} characters")
    return named or derive_chat_id(messages)


class Completions:
    """The chat completions endpoint of one proxy."""

    def __init__(self, config: ServerConfig, book: ChatBook, upstream: Upstream) -> None:
        self.config = config
        self.book = book
        self.upstream = upstream
        self.log = get_logger(component="serve")

    async def handle(self, request: Request) -> Response:
        """Answer one chat completions request."""
        try:
            body = await read_body(request, self.config.max_body)
            chat_id = chat_id_of(request, body["messages"])
        except BadRequest as error:
            return error_response(error.status, error.message, "invalid_request_error")
        turn = self.book.begin(chat_id, body["messages"])
        instructions = gm_instructions(self.config.ruleset, turn.before)
        forwarded = {**body, "messages": with_instructions(body["messages"], instructions)}
        log = self.log.bind(chat=turn.chat_id, message=turn.message, swipe=turn.swipe)
        log.info("request", stream=bool(body.get("stream")), regenerate=turn.regenerate)
        try:
            if body.get("stream") is True:
                upstream = await self.upstream.stream(forwarded, request.headers)
                return StreamingResponse(
                    self._relay(upstream, turn, log), media_type="text/event-stream"
                )
            reply = await self.upstream.complete(forwarded, request.headers)
        except UpstreamError as error:
            log.warning("upstream-error", status=error.status)
            return JSONResponse(error.body, status_code=error.status)
        return JSONResponse(self._rewrite(reply, turn, log))

    def _rewrite(self, reply: Any, turn: Turn, log: Any) -> Any:
        """A non-streaming reply with choice 0's content processed whole."""
        try:
            message = reply["choices"][0]["message"]
        except (KeyError, IndexError, TypeError):
            return reply
        content = message.get("content") if isinstance(message, dict) else None
        text = content if isinstance(content, str) else ""
        result = process(text, self.config.ruleset, turn.before, seed=turn.seed)
        if isinstance(content, str):
            message["content"] = result.display if self.config.display else result.text
        self.book.finish(turn, result.snapshot)
        log.info("reply", receipts=len(result.receipts))
        return reply

    async def _relay(self, upstream: httpx.Response, turn: Turn, log: Any) -> AsyncIterator[bytes]:
        """The upstream's SSE stream with choice 0's content rewritten as it arrives."""
        processor = StreamProcessor(
            self.config.ruleset, turn.before, turn.seed, display=self.config.display
        )
        last: dict[str, Any] = {}
        broken = False
        recorded = False

        def finish() -> str:
            """Close the processor and record the reply, once: before the last bytes go out,
            so a caller that has read the whole stream always finds the reply stored."""
            nonlocal recorded
            tail = "" if processor.closed else processor.close()
            if not recorded:
                recorded = True
                self.book.finish(turn, processor.result.snapshot)
                log.info("reply", receipts=len(processor.result.receipts))
            return tail

        try:
            async for data in sse_data(upstream.aiter_lines()):
                if data.strip() == DONE:
                    if tail := finish():
                        yield event(_tail(last, tail))
                    yield event(DONE)
                    break
                try:
                    chunk = json.loads(data)
                except ValueError:
                    continue
                if isinstance(chunk, dict):
                    last = chunk
                    _rewrite_chunk(chunk, processor)
                yield event(chunk)
            else:
                if tail := finish():
                    yield event(_tail(last, tail))
        except httpx.HTTPError as error:
            broken = True
            failed = failure(error)
            log.warning("upstream-broke", status=failed.status)
            yield event(failed.body)
        finally:
            # A caller that hangs up cancels every later await: record before awaiting.
            if not broken and not recorded:
                finish()
            await upstream.aclose()


def _rewrite_chunk(chunk: dict[str, Any], processor: StreamProcessor) -> None:
    """Feed choice 0's content to the processor and put what it gives back in its place."""
    choices = chunk.get("choices")
    if not isinstance(choices, list):
        return
    for choice in choices:
        if not isinstance(choice, dict) or choice.get("index", 0) != 0:
            continue
        delta = choice.get("delta")
        if not isinstance(delta, dict) or processor.closed:
            continue
        content = delta.get("content")
        out = processor.feed(content) if isinstance(content, str) else ""
        if choice.get("finish_reason") is not None:
            out += processor.close()
        if isinstance(content, str) or out:
            delta["content"] = out


def _tail(last: dict[str, Any], text: str) -> dict[str, Any]:
    """A chunk like the last one carrying the text held back until the end."""
    return {
        "id": last.get("id", "gmtags"),
        "object": "chat.completion.chunk",
        "created": last.get("created", 0),
        "model": last.get("model", ""),
        "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}],
    }
