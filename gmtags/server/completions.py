"""`POST /v1/chat/completions`: forward with the GM instructions, rewrite the reply (SPEC §7).

The request is placed in its chat by content (`gmtags.server.chats`), the GM
instructions are added where the client's prompt format allows
(`gmtags.server.messages`), and the reply is rewritten through the processor
into what `--display` shows the player (SPEC §7.3: receipts, cards or the
narration alone). The node stored keeps the reply as the client received it
(its fingerprint) and the receipts of the commands it applied, whatever the
display (SPEC §7.2); with cards, each assistant message placement matched goes
upstream with its cards read back as those receipts (`gmtags.history.readback`).
How replies go through:

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

The body is read as SPEC §8 says (`gmtags.server.bodies`: no further than
`--max-body`, UTF-8, strict JSON with no lone surrogate), and so is the
`X-Gmtags-Chat` header (UTF-8), before anything is placed. Only choice 0 is
rewritten, so a request asking for several choices (`n` > 1) is refused with
an OpenAI-style error object, streaming or not, like every other request the
proxy cannot serve; a history store that fails while the request is placed
(a PostgreSQL database gone away) gets one too, status 503, with nothing
forwarded. Every response carries `X-Gmtags-Chat` with the chat the request
was placed in (or the one it named; `chats.chat_header` says how a name that is
not ASCII goes).

A request that fails leaves no chat and no node (SPEC §8): the upstream's
error status, an upstream that cannot be reached or answers in the wrong
shape (`gmtags.server.upstream`), or a caller gone before the first byte
abandons the reserved node, and the chat with it when nothing else is in it
(`ChatBook.abandon`). A reply's node is completed once the reply is whole,
before the stream's last bytes go out, so a caller that has read the whole
stream always finds it stored. A caller that hangs up mid-stream leaves a
node holding exactly the text it was sent and the snapshot as of the last
receipt in it (`_Stream`): a tag the processor still held back is never
applied, so the next request, carrying the partial reply as the caller kept
it, anchors on that node. A stream the upstream broke off is not recorded.
A store that fails while a reply is recorded is logged and told: a stream
ends with an OpenAI-style error in place of `[DONE]` (the narration has gone
out, but the chat's history does not hold it), and a whole reply becomes a
503.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping, Sequence
from typing import Any

import httpx
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response, StreamingResponse
from starlette.types import Message, Receive, Scope, Send

from gmtags.history.fingerprint import Fingerprint, fingerprint, iter_receipts, of_receipts
from gmtags.history.records import HistoryError
from gmtags.history.store import Node
from gmtags.log import get_logger
from gmtags.prompt import Instructions, gm_instructions
from gmtags.server.bodies import BodyError, header_text, read_json_body
from gmtags.server.chats import CHAT_HEADER, ChatBook, Turn, chat_header, chat_id_problem
from gmtags.server.config import ServerConfig
from gmtags.server.errors import error_body, error_response, json_response
from gmtags.server.messages import with_instructions
from gmtags.server.sse import DONE, event, sse_data, sse_lines
from gmtags.server.upstream import Upstream, UpstreamError, UpstreamStream, failure, wrong_shape
from gmtags.state.snapshot import Snapshot
from gmtags.stream import StreamProcessor
from gmtags.tags.receipt import Receipt
from gmtags.text import mend_surrogates

SLICE = 2 * 1024
"""Characters processed between two hand-backs to the event loop (a few ms of tags)."""
_SPANS = 256
"""Tag spans read between two hand-backs while finding a long reply's receipts."""
DRAIN_SECONDS = 1.0
"""How long the rest of an upstream stream after its `[DONE]` is waited for (see `_drain`)."""
PREPARED = 256
"""Snapshots whose GM instructions are kept made ahead (a few kB each)."""


async def read_body(request: Request, limit: int) -> dict[str, Any]:
    """The request's JSON object (`read_json_body`: limited, strict), checked for what the
    proxy can serve; `BodyError` when it is refused."""
    body = await read_json_body(request, limit)
    if not isinstance(body, dict):
        raise BodyError(400, "the request body must be a JSON object")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise BodyError(400, "messages must be a non-empty list")
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            raise BodyError(400, f"messages[{index}] must be an object")
        if not isinstance(message.get("role"), str):
            raise BodyError(400, f"messages[{index}].role must be text (system, user, assistant)")
    n = body.get("n")
    if n is not None and n != 1:
        raise BodyError(
            400, "gmtags rules one reply per request: n must be 1 (turn off multiple swipes)"
        )
    return body


def named_chat(request: Request) -> str | None:
    """The chat `X-Gmtags-Chat` names (read as UTF-8), or None."""
    named = (header_text(request.headers, CHAT_HEADER) or "").strip()
    problem = chat_id_problem(named) if named else None
    if problem is not None:
        raise BodyError(400, f"{CHAT_HEADER} {problem}")
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
        except BodyError as error:
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
        log = self.log.bind(chat=turn.chat_id, node=turn.node.id, kind=turn.kind)
        try:
            instructions = self.instructions(turn)
            shown = self._read_back(turn, body["messages"], log)
            messages = with_instructions(shown, instructions, merge=self.config.merge_instructions)
            forwarded = {**body, "messages": messages}
            anchor = None if turn.anchor is None else turn.anchor.id
            log.info("request", stream=bool(body.get("stream")), anchor=anchor)
            if body.get("stream") is True:
                upstream = await self.upstream.stream(forwarded, request.headers)
                return _RelayResponse(_Stream(self, upstream, turn, log), headers)
            reply = await self.upstream.complete(forwarded, request.headers)
        except UpstreamError as error:
            self._abandon(turn, log)
            log.warning("upstream-error", status=error.status)
            return json_response(error.body, error.status, headers)
        except BaseException:
            self._abandon(turn, log)  # the server is stopping (or a bug): nothing is made
            raise
        return await self._whole(reply, turn, request, headers, log)

    def _read_back(self, turn: Turn, messages: list[Any], log: Any) -> list[Any]:
        """SPEC §7.3: the messages with their cards read back as receipts. Decision: a store
        that fails meanwhile is logged and the messages go as the client sent them (the
        reply can still be made; the model then sees cards for that turn)."""
        try:
            return list(self.book.as_receipts(turn, messages))
        except STORE_FAILURES as error:
            log.error("store-failed", error=str(error))
            return messages

    def _abandon(self, turn: Turn, log: Any) -> None:
        """Forget a reply that was never made, and its chat when the request made it (SPEC
        §8); a failing store is logged (the reply is lost either way, and the reserved node
        matches nothing)."""
        try:
            self.book.abandon(turn)
        except STORE_FAILURES as error:
            log.error("store-failed", error=str(error))

    def _processor(self, turn: Turn) -> StreamProcessor:
        display = self.config.display  # SPEC §7.3
        return StreamProcessor(
            self.config.ruleset,
            turn.before,
            turn.seed,
            display=display == "hidden",
            cards=display == "cards",
        )

    async def _whole(
        self, reply: Any, turn: Turn, request: Request, headers: Mapping[str, str], log: Any
    ) -> Response:
        """A non-streaming reply (`Upstream.complete` checked it has `choices[0].message`)
        with choice 0's content processed whole, and stored unless the caller has gone."""
        message = reply["choices"][0]["message"]
        content = message.get("content")
        text = mend_surrogates(content) if isinstance(content, str) else ""
        processor = self._processor(turn)  # equal to process() for any chunking
        shown = await _feed(processor.feed, text) + processor.close()
        result = processor.result
        print_ = await _fingerprint(shown)
        if isinstance(content, str):
            message["content"] = shown
        if await request.is_disconnected():
            self._abandon(turn, log)  # gone before the first byte: it never got the reply
            log.info("caller-gone", sent=0)
            return Response(status_code=499)
        try:
            self.book.finish(turn, shown, result.snapshot, print_, result.receipts)
        except STORE_FAILURES as error:
            log.error("store-failed", error=str(error))
            return json_response(_unstored(error), 503, headers)
        log.info("reply", receipts=len(result.receipts))
        return json_response(reply, 200, headers)


STORE_FAILURES = (HistoryError, sqlite3.Error)
"""What a failing history store raises (a PostgreSQL store's errors come as `HistoryError`)."""


def _unstored(error: Exception) -> dict[str, Any]:
    """The OpenAI-style error told when a reply was made but the store failed to keep it."""
    message = f"gmtags could not store the reply (it is not in the chat's history): {error}"
    return error_body(message, "server_error")


class _Stream:
    """One streamed reply: the upstream's events with choice 0's content rewritten as they
    arrive, and how far the caller got.

    An event counts as sent once the server asks for the next one (`_went_out`):
    Starlette asks only after its `send` of the last one returned. Decision: an
    event handed to `yield` whose send was cut short (the caller hung up and
    the response task was cancelled meanwhile) does not count, and neither does
    one yielded once the server has said the caller is gone (`gone`: its send
    is then swallowed, and the task may run on through buffered events before
    its cancellation lands). What no server tells is an event written to a
    connection the caller closed a moment before; that one counts. When the
    stream stops short, `settle` stores what counted (and the snapshot as of
    it) or, when none of the reply's text went out, nothing.
    """

    def __init__(self, owner: Completions, upstream: UpstreamStream, turn: Turn, log: Any) -> None:
        self.owner = owner
        self.upstream = upstream
        self.turn = turn
        self.log = log
        self.relay = _Relay(owner._processor(turn))
        self.sent = 0
        """How many of the relay's parts went out to the caller."""
        self.sent_after = turn.before
        """The snapshot as of those parts (the commands whose receipts went out)."""
        self.sent_receipts: list[Receipt] = []
        """The receipts of those commands."""
        self.recorded: Node | None = None
        self.unstored: Exception | None = None
        self.failed = False
        """The upstream broke or sent no reply: nothing is stored."""
        self.gone = False
        """The server said the caller hung up (`_RelayResponse`)."""
        self.settled = False
        self.body: AsyncGenerator[bytes, None] = self.events()

    def _went_out(self) -> bool:
        """The server asked for the next event: the last one went out, unless the caller is
        gone (then False, and the stream stops)."""
        if self.gone:
            return False
        self.sent = len(self.relay.parts)
        self.sent_after = self.relay.processor.snapshot
        self.sent_receipts = self.relay.processor.receipts
        return True

    def record(
        self,
        text: str,
        after: Snapshot,
        print_: Fingerprint | None = None,
        applied: Sequence[Receipt] = (),
    ) -> bool:
        """Record the reply, once (True when this call did). A store that fails is logged and
        kept, to be told to the caller in place of the stream's end."""
        if self.recorded is not None or self.unstored is not None:
            return False
        try:
            self.recorded = self.owner.book.finish(self.turn, text, after, print_, applied)
        except STORE_FAILURES as error:
            self.unstored = error
            self.log.error("store-failed", error=str(error))
            return False
        return True

    async def events(self) -> AsyncGenerator[bytes, None]:
        """The stream sent to the caller. The whole reply is recorded before its last bytes go
        out, so a caller that has read the whole stream always finds it stored."""
        relay = self.relay
        last: dict[str, Any] = {}
        seen = done = False
        events = sse_data(sse_lines(self.upstream.chunks))
        try:
            async for data in events:
                if data.strip() == DONE:
                    done = True
                    break
                try:
                    chunk = json.loads(data)
                except (ValueError, RecursionError):
                    continue
                if isinstance(chunk, dict):
                    seen = True
                    last = chunk
                    await relay.rewrite(chunk)
                yield event(chunk)
                if not self._went_out():
                    return
        except httpx.HTTPError as error:
            self.failed = True
            failed = failure(error)
            self.log.warning("upstream-broke", status=failed.status)
            yield event(failed.body)
            return
        if not seen:
            self.failed = True
            self.log.warning("upstream-empty")
            yield event(wrong_shape("the upstream's stream held no reply").body)
            return
        tail = relay.close()
        result = relay.processor.result
        print_ = await _fingerprint(relay.shown)
        if self.record(relay.shown, result.snapshot, print_, result.receipts):
            self.log.info("reply", receipts=len(result.receipts))
        if tail:
            yield event(_tail(last, tail))
            if not self._went_out():
                return
        if self.unstored is not None:
            yield event(_unstored(self.unstored))
            return
        if done:
            yield event(DONE)
            await _drain(events)
        if self.recorded is not None:  # the stream went out whole: the next turn starts here
            self.owner.prepare(self.recorded.after, relay.processor.result.snapshot)

    def settle(self) -> None:
        """However the stream ended, once: a reply not recorded whole is recorded as far as
        the caller got it (SPEC §8: the next request, carrying the partial reply as the
        caller kept it, anchors on it), or abandoned when the upstream failed or none of
        its text went out (the caller gone before the first byte)."""
        if self.settled:
            return
        self.settled = True
        if self.recorded is not None or self.unstored is not None:
            return
        text = "".join(self.relay.parts[: self.sent])
        if self.failed or not text.strip():
            self.owner._abandon(self.turn, self.log)
            if not self.failed:
                self.log.info("caller-gone", sent=0)
            return
        if self.record(text, self.sent_after, None, self.sent_receipts):
            assert self.recorded is not None
            receipts = len(self.recorded.fingerprint.receipts)
            self.log.info("caller-gone", sent=len(text), receipts=receipts)

    async def end(self) -> None:
        """After the response, however it went: settle (before any await, which a cancelled
        caller would cut short), then close the stream and the upstream."""
        self.settle()
        try:
            await self.body.aclose()
        finally:
            await self.upstream.aclose()


class _RelayResponse(StreamingResponse):
    """The caller's SSE response, which ends its `_Stream` when it ends, even one whose body
    never started (a caller gone before the first event)."""

    def __init__(self, stream: _Stream, headers: Mapping[str, str]) -> None:
        super().__init__(stream.body, media_type="text/event-stream", headers=headers)
        self.stream = stream

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def listening() -> Message:
            message = await receive()
            if message["type"] == "http.disconnect":
                self.stream.gone = True
            return message

        try:
            await super().__call__(scope, listening, send)
        except ClientDisconnect:
            pass  # an ASGI 2.4 server's way of saying the caller hung up: settled below
        finally:
            await self.stream.end()


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


def _tail(last: Mapping[str, Any], text: str) -> dict[str, Any]:
    """A chunk like the last one carrying the text held back until the end."""
    return {
        "id": last.get("id", "gmtags"),
        "object": "chat.completion.chunk",
        "created": last.get("created", 0),
        "model": last.get("model", ""),
        "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}],
    }
