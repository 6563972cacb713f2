"""`POST /v1/chat/completions`: forward with the GM instructions, rewrite the reply (SPEC §7).

The request is placed in its chat by content (`gmtags.server.chats`), the GM
instructions are added where the client's prompt format allows
(`gmtags.server.messages`), and the reply is rewritten through the processor:

- streaming replies go through one `StreamProcessor` as they arrive: the
  content of each upstream delta is fed and what `feed` returns goes on in the
  same chunk at once, so narration reaches the player with no wait beyond a
  held-back tag; `close()` runs when the upstream finishes (its
  `finish_reason` chunk, `[DONE]`, or the end of the stream);
- a UTF-16 surrogate pair split across two deltas (some model servers send
  an emoji that way) is joined before it is fed; a lone half becomes U+FFFD;
- a large piece of text (a whole reply, or a delta, over `SLICE` characters)
  goes through the processor `SLICE` characters at a time, handing the event
  loop back between slices, and so does finding its receipts, so one
  enormous reply (a megabyte of tags) does not stall every other chat. The
  result is the same: the processor gives the same output for any chunking.
  (A worker thread would not do: the thread holds the GIL, and every other
  request then waits for it at each step.)

Only choice 0 is rewritten, so a request asking for several choices (`n` > 1)
is refused with an OpenAI-style error object, streaming or not, like every
other request the proxy cannot serve; a history store that fails while the
request is placed (a PostgreSQL database gone away) gets one too, status 503,
with nothing forwarded. Every response carries `X-Gmtags-Chat`
with the chat the request was placed in (or the one it named).

A reply's node is completed once the reply is whole, and also when the caller
hangs up mid-stream (the receipts it was sent are in the message it keeps);
it is completed before the stream's last bytes go out, so a caller that has
read the whole stream always finds it stored. A reply the upstream failed or
broke off is not recorded: its reserved node is abandoned. A store that fails
while a reply is recorded is logged and told: a stream ends with an
OpenAI-style error in place of `[DONE]` (the narration has gone out, but the
chat's history does not hold it), and a whole reply becomes a 503.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

import httpx
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from gmtags.history.fingerprint import Fingerprint, fingerprint, iter_receipts, of_receipts
from gmtags.history.records import HistoryError
from gmtags.history.store import Node
from gmtags.log import get_logger
from gmtags.prompt import Instructions, gm_instructions
from gmtags.server.chats import CHAT_HEADER, MAX_CHAT_ID, ChatBook, Turn, chat_header
from gmtags.server.config import ServerConfig
from gmtags.server.errors import error_body, error_response, json_response
from gmtags.server.messages import with_instructions
from gmtags.server.sse import DONE, event, sse_data, sse_lines
from gmtags.server.upstream import Upstream, UpstreamError, failure
from gmtags.state.snapshot import Snapshot
from gmtags.stream import StreamProcessor
from gmtags.text import mend_surrogates

SLICE = 2 * 1024
"""Characters processed between two hand-backs to the event loop (a few ms of tags)."""
_SPANS = 256
"""Tag spans read between two hand-backs while finding a long reply's receipts."""
DRAIN_SECONDS = 1.0
"""How long the rest of an upstream stream after its `[DONE]` is waited for (see `_drain`)."""
PREPARED = 256
"""Snapshots whose GM instructions are kept made ahead (a few kB each)."""


class BadRequest(Exception):
    """A request the proxy refuses: its status and message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


async def read_body(request: Request, limit: int) -> dict[str, Any]:
    """The request's JSON object, read no further than `limit` bytes, checked for what the
    proxy can serve."""
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
    except RecursionError:
        raise BadRequest(400, "the request body is nested too deeply") from None
    except ValueError:
        raise BadRequest(400, "the request body is not JSON") from None
    if not isinstance(body, dict):
        raise BadRequest(400, "the request body must be a JSON object")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise BadRequest(400, "messages must be a non-empty list")
    if not all(isinstance(message, dict) for message in messages):
        raise BadRequest(400, "every message must be an object")
    n = body.get("n")
    if n is not None and n != 1:
        raise BadRequest(
            400, "gmtags rules one reply per request: n must be 1 (turn off multiple swipes)"
        )
    return body


def named_chat(request: Request) -> str | None:
    """The chat `X-Gmtags-Chat` names, or None."""
    named = request.headers.get(CHAT_HEADER, "").strip()
    if len(named) > MAX_CHAT_ID:
        raise BadRequest(400, f"{CHAT_HEADER} is longer than {MAX_CHAT_ID} characters")
    return named or None


async def _feed(feed: Callable[[str], str], text: str) -> str:
    """`feed(text)`, made `SLICE` characters at a time with the event loop served between."""
    if len(text) <= SLICE:
        return feed(text)
    out: list[str] = []
    for start in range(0, len(text), SLICE):
        out.append(feed(text[start : start + SLICE]))
        await asyncio.sleep(0)
    return "".join(out)


async def _fingerprint(text: str) -> Fingerprint:
    """`fingerprint(text)`, pausing for the event loop every `_SPANS` tags of a long text."""
    if len(text) <= SLICE:
        return fingerprint(text)
    text = mend_surrogates(text)
    receipts: list[str] = []
    for count, receipt in enumerate(iter_receipts(text), start=1):
        if receipt is not None:
            receipts.append(receipt)
        if count % _SPANS == 0:
            await asyncio.sleep(0)
    return of_receipts(tuple(receipts), text)


class Completions:
    """The chat completions endpoint of one proxy."""

    def __init__(self, config: ServerConfig, book: ChatBook, upstream: Upstream) -> None:
        self.config = config
        self.book = book
        self.upstream = upstream
        self.log = get_logger(component="serve")
        self.prepared: dict[str, Instructions] = {}
        """The GM instructions made for the snapshot a streamed reply left, by its name: made
        after the reply's last bytes went out, so the turn that goes on from it does not wait
        for them (a swipe of it neither)."""

    def instructions(self, turn: Turn) -> Instructions:
        """The GM instructions for the snapshot `turn` starts from."""
        made = self.prepared.get(turn.node.before)
        return made if made is not None else gm_instructions(self.config.ruleset, turn.before)

    def prepare(self, name: str, snapshot: Snapshot) -> None:
        """Make the GM instructions for `snapshot` (named `name`) before a request needs them."""
        if name in self.prepared:
            return
        if len(self.prepared) >= PREPARED:
            del self.prepared[next(iter(self.prepared))]  # the oldest
        self.prepared[name] = gm_instructions(self.config.ruleset, snapshot)

    async def handle(self, request: Request) -> Response:
        """Answer one chat completions request."""
        named: str | None = None
        try:
            named = named_chat(request)
            body = await read_body(request, self.config.max_body)
        except BadRequest as error:
            return error_response(
                error.status, error.message, "invalid_request_error", headers=chat_header(named)
            )
        try:
            turn = self.book.begin(named, body["messages"])
        except STORE_FAILURES as error:
            self.log.error("store-failed", error=str(error))
            return error_response(
                503, f"gmtags could not place the request: {error}", "server_error",
                headers=chat_header(named),
            )  # fmt: skip
        headers = chat_header(turn.chat_id)
        instructions = self.instructions(turn)
        messages = with_instructions(
            body["messages"], instructions, merge=self.config.merge_instructions
        )
        forwarded = {**body, "messages": messages}
        log = self.log.bind(chat=turn.chat_id, node=turn.node.id, kind=turn.kind)
        anchor = None if turn.anchor is None else turn.anchor.id
        log.info("request", stream=bool(body.get("stream")), anchor=anchor)
        try:
            if body.get("stream") is True:
                upstream = await self.upstream.stream(forwarded, request.headers)
                return StreamingResponse(
                    self._relay(upstream, turn, log),
                    media_type="text/event-stream",
                    headers=headers,
                )
            reply = await self.upstream.complete(forwarded, request.headers)
        except UpstreamError as error:
            self._abandon(turn, log)
            log.warning("upstream-error", status=error.status)
            return json_response(error.body, error.status, headers)
        try:
            rewritten = await self._rewrite(reply, turn, log)
        except STORE_FAILURES as error:
            log.error("store-failed", error=str(error))
            return json_response(_unstored(error), 503, headers)
        return json_response(rewritten, 200, headers)

    def _abandon(self, turn: Turn, log: Any) -> None:
        """Forget a reply that was never made; a failing store is logged (the reply is lost
        either way, and the reserved node matches nothing)."""
        try:
            self.book.abandon(turn)
        except STORE_FAILURES as error:
            log.error("store-failed", error=str(error))

    def _processor(self, turn: Turn) -> StreamProcessor:
        return StreamProcessor(
            self.config.ruleset, turn.before, turn.seed, display=self.config.display
        )

    async def _rewrite(self, reply: Any, turn: Turn, log: Any) -> Any:
        """A non-streaming reply with choice 0's content processed whole."""
        try:
            message = reply["choices"][0]["message"]
        except (KeyError, IndexError, TypeError):
            self._abandon(turn, log)
            return reply
        content = message.get("content") if isinstance(message, dict) else None
        text = mend_surrogates(content) if isinstance(content, str) else ""
        processor = self._processor(turn)  # equal to process() for any chunking
        shown = await _feed(processor.feed, text) + processor.close()
        result = processor.result
        print_ = await _fingerprint(shown)
        if isinstance(content, str):
            message["content"] = shown
        self.book.finish(turn, shown, result.snapshot, print_)
        log.info("reply", receipts=len(result.receipts))
        return reply

    async def _relay(self, upstream: httpx.Response, turn: Turn, log: Any) -> AsyncIterator[bytes]:
        """The upstream's SSE stream with choice 0's content rewritten as it arrives."""
        relay = _Relay(self._processor(turn))
        last: dict[str, Any] = {}
        broken = False
        recorded: Node | None = None
        unstored: Exception | None = None

        def record(print_: Fingerprint | None = None) -> None:
            """Record the reply, once: before the last bytes go out, so a caller that has read
            the whole stream always finds the reply stored. A store that fails is logged and
            kept, to be told to the caller in place of the stream's end."""
            nonlocal recorded, unstored
            if recorded is None and unstored is None:
                result = relay.processor.result
                try:
                    recorded = self.book.finish(turn, relay.shown, result.snapshot, print_)
                except STORE_FAILURES as error:
                    unstored = error
                    log.error("store-failed", error=str(error))
                    return
                log.info("reply", receipts=len(result.receipts))

        async def finish() -> str:
            tail = relay.close()
            shown = relay.shown
            record(await _fingerprint(shown))
            return tail

        events = sse_data(sse_lines(_body(upstream)))
        try:
            async for data in events:
                if data.strip() == DONE:
                    if tail := await finish():
                        yield event(_tail(last, tail))
                    if unstored is not None:
                        yield event(_unstored(unstored))
                        break
                    yield event(DONE)
                    await _drain(events)
                    break
                try:
                    chunk = json.loads(data)
                except (ValueError, RecursionError):
                    continue
                if isinstance(chunk, dict):
                    last = chunk
                    await relay.rewrite(chunk)
                yield event(chunk)
            else:
                if tail := await finish():
                    yield event(_tail(last, tail))
                if unstored is not None:
                    yield event(_unstored(unstored))
        except httpx.HTTPError as error:
            broken = True
            failed = failure(error)
            log.warning("upstream-broke", status=failed.status)
            yield event(failed.body)
        finally:
            # A caller that hangs up cancels every later await: record before awaiting.
            if broken and recorded is None:
                self._abandon(turn, log)
            elif recorded is None:
                relay.close()
                record()
            await upstream.aclose()
        if recorded is not None:  # the stream went out whole: the next turn starts here
            self.prepare(recorded.after, relay.processor.result.snapshot)


STORE_FAILURES = (HistoryError, sqlite3.Error)
"""What a failing history store raises (a PostgreSQL store's errors come as `HistoryError`)."""


def _unstored(error: Exception) -> dict[str, Any]:
    """The OpenAI-style error told when a reply was made but the store failed to keep it."""
    message = f"gmtags could not store the reply (it is not in the chat's history): {error}"
    return error_body(message, "server_error")


class _Relay:
    """One stream's processor, the surrogate half held back, and the text the caller got."""

    def __init__(self, processor: StreamProcessor) -> None:
        self.processor = processor
        self.pending = ""
        self.parts: list[str] = []

    @property
    def shown(self) -> str:
        """Everything sent to the caller as choice 0's content."""
        return "".join(self.parts)

    def _take(self, content: str) -> str:
        text = self.pending + content
        self.pending = ""
        if text and "\ud800" <= text[-1] <= "\udbff":
            text, self.pending = text[:-1], text[-1]
        return mend_surrogates(text)

    def _feed(self, text: str) -> str:
        out = self.processor.feed(text)
        self.parts.append(out)
        return out

    def close(self) -> str:
        """The text held back until the end (a lone surrogate half becomes U+FFFD)."""
        if self.processor.closed:
            return ""
        out = self._feed("\ufffd") if self.pending else ""
        self.pending = ""
        tail = self.processor.close()
        self.parts.append(tail)
        return out + tail

    async def rewrite(self, chunk: dict[str, Any]) -> None:
        """Feed choice 0's content and put what the processor gives back in its place."""
        choices = chunk.get("choices")
        if not isinstance(choices, list):
            return
        for choice in choices:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta")
            if not isinstance(delta, dict) or self.processor.closed:
                continue
            content = delta.get("content")
            out = ""
            if isinstance(content, str):
                text = self._take(content)
                out = await _feed(self._feed, text)
            if choice.get("finish_reason") is not None:
                out += self.close()
            if isinstance(content, str) or out:
                delta["content"] = out


async def _drain(events: AsyncIterator[str]) -> None:
    """Read what an upstream stream sends after its `[DONE]` (its end, as a rule) for up to
    `DRAIN_SECONDS`, so that its connection goes back to the pool: a stream closed before its
    end closes its connection, and the next request then waits for a new one (on a loaded
    machine, tens of milliseconds before its first byte)."""
    try:
        async with asyncio.timeout(DRAIN_SECONDS):
            async for _ in events:
                pass
    except (TimeoutError, httpx.HTTPError):
        pass  # the caller has its whole reply; the connection is closed instead


def _body(upstream: httpx.Response) -> AsyncIterator[bytes]:
    """The upstream stream's bytes as they arrive, decompressed only when it was compressed
    (httpx's decoding layers cost a little on every chunk)."""
    if upstream.headers.get("content-encoding", "identity").strip().lower() == "identity":
        return upstream.aiter_raw()
    return upstream.aiter_bytes()


def _tail(last: Mapping[str, Any], text: str) -> dict[str, Any]:
    """A chunk like the last one carrying the text held back until the end."""
    return {
        "id": last.get("id", "gmtags"),
        "object": "chat.completion.chunk",
        "created": last.get("created", 0),
        "model": last.get("model", ""),
        "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}],
    }
