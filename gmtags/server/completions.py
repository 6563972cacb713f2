"""The proxy's core for every API shape: forward with the GM instructions, rewrite the reply.

One `Completions` serves one API shape (`gmtags.server.shapes`: OpenAI chat
and text completions, llama.cpp, Ollama, Anthropic; SPEC §7.2), which says
where a body keeps what this module reads and writes. The request is placed
in its chat by content (`gmtags.server.chats`: its messages, or a text
prompt's stored replies), the GM instructions are added where the shape and
the client's prompt format allow, and the reply is rewritten through the processor
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
- an event the rewrite leaves as it was (its text came out of the processor
  as it went in, and the processor was not closed) goes on as its bytes came,
  its JSON not written again (`_rewritten`): the caller reads the same value
  either way, and most events of a reply are narration;
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
`X-Gmtags-Chat` header (UTF-8), before anything is placed. The chat is that
header (which `/c/{chat}` sets), else Open WebUI's `X-OpenWebUI-Chat-Id`,
else placement finds it. Only choice 0 is rewritten, so a request asking for
several choices (`n` > 1) is refused with an error object in the shape's
form, streaming or not, like every other request the proxy cannot serve; a
history store that fails while the request is placed (a PostgreSQL database
gone away) gets one too, status 503, with nothing forwarded. A client's
background task (Open WebUI's titles, tags, follow-ups, queries,
autocompletion: `gmtags.server.tasks`) passes through untouched: no
instructions, no rewriting, no node, no chat. Every response carries
`X-Gmtags-Chat` with the chat the request was placed in (or the one it
named; `chats.chat_header` says how a name that is not ASCII goes).

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
import sqlite3
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping, Sequence
from typing import Any

from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from gmtags.history.fingerprint import Fingerprint, fingerprint, iter_receipts, of_receipts
from gmtags.history.records import HistoryError
from gmtags.history.store import Node
from gmtags.log import get_logger
from gmtags.prompt import Instructions, gm_instructions
from gmtags.server.bodies import BodyError, header_text, read_json_body
from gmtags.server.chats import CHAT_HEADER, ChatBook, Turn, chat_header, chat_id_problem
from gmtags.server.config import ServerConfig
from gmtags.server.errors import json_response
from gmtags.server.passthrough import relay
from gmtags.server.shapes import Asked, Event, Markers, Shape
from gmtags.server.shapes.chat import Chat
from gmtags.server.sse import DONE, Lines, SseReader, event_data, frame, frames
from gmtags.server.tasks import task_of, task_of_text
from gmtags.server.upstream import (
    UPSTREAM_FAILED,
    Upstream,
    UpstreamError,
    UpstreamStream,
    failure,
    request_json,
    wrong_shape,
)
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
OPEN_WEBUI_CHAT = "X-OpenWebUI-Chat-Id"
"""Open WebUI's header naming its chat (sent when it forwards user info headers)."""


async def read_body(request: Request, limit: int, shape: Shape) -> tuple[dict[str, Any], Asked]:
    """The request's JSON object (`read_json_body`: limited, strict) and what it asks, checked
    for what the proxy can serve; `BodyError` when it is refused."""
    body = await read_json_body(request, limit)
    if not isinstance(body, dict):
        raise BodyError(400, "the request body must be a JSON object")
    return body, shape.read(body)


def named_chat(request: Request) -> str | None:
    """The chat `X-Gmtags-Chat` names (read as UTF-8), else `X-OpenWebUI-Chat-Id`, or None."""
    for header in (CHAT_HEADER, OPEN_WEBUI_CHAT):
        named = (header_text(request.headers, header) or "").strip()
        if named:
            problem = chat_id_problem(named)
            if problem is not None:
                raise BodyError(400, f"{header} {problem}")
            return named
    return None


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
    """One API shape's endpoint of one proxy (the OpenAI chat shape unless told)."""

    def __init__(
        self, config: ServerConfig, book: ChatBook, upstream: Upstream, shape: Shape | None = None
    ) -> None:
        self.config = config
        self.book = book
        self.upstream = upstream
        self.shape = shape if shape is not None else Chat()
        self.markers = Markers(config.prompt_marker, config.turn_marker, config.merge_instructions)
        self.log = get_logger(component="serve", api=self.shape.name)
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

    def error(
        self,
        status: int,
        message: str,
        kind: str,
        code: str | int | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Response:
        """An error reply in this shape's form."""
        return json_response(self.shape.error_body(message, kind, code), status, headers)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one request as an ASGI app: the route calls this object, not `handle` through
        Starlette's `request_response`, whose wrapper would take every streamed event once more
        on its way out (issue 29)."""
        response = await self.handle(Request(scope, receive, send))
        await response(scope, receive, send)

    async def handle(self, request: Request) -> Response:
        """Answer one request of this shape."""
        named: str | None = None
        try:
            named = named_chat(request)
            body, asked = await read_body(request, self.config.max_body, self.shape)
        except BodyError as error:
            return self.error(
                error.status, error.message, "invalid_request_error", headers=chat_header(named)
            )
        task = (
            task_of(asked.messages)
            if asked.messages is not None
            else task_of_text(asked.prompt or "")
        )
        if task is not None:
            return await self._task(request, body, task, named)
        try:
            turn = (
                self.book.begin(named, asked.messages)
                if asked.messages is not None
                else self.book.begin_text(named, asked.prompt or "")
            )
        except STORE_FAILURES as error:
            self.log.error("store-failed", error=str(error))
            return self.error(
                503, f"gmtags could not place the request: {error}", "server_error",
                headers=chat_header(named),
            )  # fmt: skip
        headers = chat_header(turn.chat_id)
        log = self.log.bind(chat=turn.chat_id, node=turn.node.id, kind=turn.kind)
        raw = request.headers.raw
        try:
            instructions = self.instructions(turn)
            shown = self._read_back(turn, asked, log)
            forwarded = self.shape.instruct(body, shown, instructions, self.markers)
            anchor = None if turn.anchor is None else turn.anchor.id
            streams = self.shape.streams(body)
            log.info("request", stream=streams, anchor=anchor)
            if streams:
                upstream = await self.upstream.stream(self.shape, forwarded, raw)
                return _RelayResponse(_Stream(self, upstream, turn, log), headers)
            reply = await self.upstream.complete(self.shape, forwarded, raw)
        except UpstreamError as error:
            self._abandon(turn, log)
            log.warning("upstream-error", status=error.status)
            return json_response(error.body(self.shape), error.status, headers)
        except BaseException:
            self._abandon(turn, log)  # the server is stopping (or a bug): nothing is made
            raise
        return await self._whole(reply, turn, request, headers, log)

    async def _task(
        self, request: Request, body: dict[str, Any], task: str, named: str | None
    ) -> Response:
        """A client's background task, passed through untouched (`gmtags.server.passthrough`):
        no instructions, no rewriting, no node, no chat."""
        self.log.info("task", task=task)
        route = self.shape.upstream_route
        try:
            return await relay(
                self.upstream,
                self.shape,
                "POST",
                route,
                request_json(body),
                request.headers.raw,
                chat_header(named),
            )
        except UpstreamError as error:
            return json_response(error.body(self.shape), error.status, chat_header(named))

    def _read_back(self, turn: Turn, asked: Asked, log: Any) -> Asked:
        """SPEC §7.3: the messages (or the text prompt) with their cards read back as receipts.
        Decision: a store that fails meanwhile is logged and the request goes as the client
        sent it (the reply can still be made; the model then sees cards for that turn)."""
        try:
            if asked.messages is not None:
                return Asked(messages=list(self.book.as_receipts(turn, asked.messages)))
            return Asked(prompt=self.book.prompt_as_receipts(turn, asked.prompt or ""))
        except STORE_FAILURES as error:
            log.error("store-failed", error=str(error))
            return asked

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
        """A whole reply (`Upstream.complete` checked it has its text where the shape keeps
        it) with its text processed whole, and stored unless the caller has gone."""
        slots = self.shape.slots(reply) or []
        processor = self._processor(turn)  # equal to process() for any chunking
        shown: list[str] = []
        for holder, key in slots:
            holder[key] = await _feed(processor.feed, mend_surrogates(holder[key]))
            shown.append(holder[key])
        tail = processor.close()
        if tail and slots:
            holder, key = slots[-1]
            holder[key] += tail
        text = "".join(shown) + tail
        result = processor.result
        print_ = await _fingerprint(text)
        if await request.is_disconnected():
            self._abandon(turn, log)  # gone before the first byte: it never got the reply
            log.info("caller-gone", sent=0)
            return Response(status_code=499)
        try:
            self.book.finish(turn, text, result.snapshot, print_, result.receipts)
        except STORE_FAILURES as error:
            log.error("store-failed", error=str(error))
            return json_response(self._unstored(error), 503, headers)
        log.info("reply", receipts=len(result.receipts))
        return json_response(reply, 200, headers)

    def _unstored(self, error: Exception) -> Any:
        """The error told when a reply was made but the store failed to keep it."""
        message = f"gmtags could not store the reply (it is not in the chat's history): {error}"
        return self.shape.error_body(message, "server_error")


STORE_FAILURES = (HistoryError, sqlite3.Error)
"""What a failing history store raises (a PostgreSQL store's errors come as `HistoryError`)."""


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
        shape = self.owner.shape
        framing = shape.framing
        last: Event | None = None
        seen = done = False
        chunks = self.upstream.chunks
        reader = _Reader(framing)
        ended = False
        try:
            while not done and not ended:
                try:
                    chunk = await anext(chunks)
                except StopAsyncIteration:
                    parsed, ended = reader.close(), True
                else:
                    parsed = reader.feed(chunk)
                for got, raw in parsed:
                    if got.data == DONE:
                        done = True
                        break
                    if isinstance(got.data, dict):
                        seen = True
                        last = got
                    yield await _rewritten(shape, relay, got, raw)
                    if not self._went_out():
                        return
        except UPSTREAM_FAILED as error:
            self.failed = True
            failed = failure(error)
            self.log.warning("upstream-broke", status=failed.status)
            yield frames(framing, [shape.error_event(failed.body(shape))])
            return
        if not seen:
            self.failed = True
            self.log.warning("upstream-empty")
            empty = wrong_shape("the upstream's stream held no reply")
            yield frames(framing, [shape.error_event(empty.body(shape))])
            return
        tail = relay.close()
        result = relay.processor.result
        print_ = await _fingerprint(relay.shown)
        if self.record(relay.shown, result.snapshot, print_, result.receipts):
            self.log.info("reply", receipts=len(result.receipts))
        if tail:
            yield frames(framing, [shape.tail(last, tail, relay)])
            if not self._went_out():
                return
        if self.unstored is not None:
            yield frames(framing, [shape.error_event(self.owner._unstored(self.unstored))])
            return
        if done:
            yield frames(framing, [Event(None, DONE)])
            await _drain(chunks)
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
    never started (a caller gone before the first event).

    Its events go out from a task of their own while this one listens for the caller hanging
    up, which cancels that task, as Starlette's `StreamingResponse` does for an ASGI 2.3
    server, but with asyncio's own tasks: anyio's task group and cancel scope cost a few
    hundred microseconds per reply (issue 29), its cancel scope writing the task's repr."""

    def __init__(self, stream: _Stream, headers: Mapping[str, str]) -> None:
        media = stream.owner.shape.media_type
        super().__init__(stream.body, media_type=media, headers=headers)
        self.stream = stream

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        stream = self.stream

        async def listening() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass
            stream.gone = True
            streaming.cancel()

        # The listener runs first: a caller gone already is told before any event is made.
        listener = asyncio.ensure_future(listening())
        streaming = asyncio.ensure_future(self._send_all(send))
        try:
            await streaming
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if not stream.gone or (current is not None and current.cancelling()):
                raise  # this task was cancelled (the server is stopping), not the stream
        except (OSError, ClientDisconnect):
            stream.gone = True  # an ASGI 2.4 server's way of saying the caller hung up
        finally:
            listener.cancel()
            await stream.end()

    async def _send_all(self, send: Send) -> None:
        headers = self.raw_headers
        await send({"type": "http.response.start", "status": self.status_code, "headers": headers})
        async for chunk in self.body_iterator:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})


class _Relay:
    """One stream's processor, the surrogate half held back, and the text the caller got (what
    a shape's `rewrite` feeds text through: `gmtags.server.shapes.base.Relay`)."""

    def __init__(self, processor: StreamProcessor) -> None:
        self.processor = processor
        self.pending = ""
        self.parts: list[str] = []
        self.state: dict[str, Any] = {}
        self.altered = False
        """Some text fed since it was last set False came out other than it went in, or the
        processor was closed (which may add text, and ends a shape's reply): an event whose
        rewrite neither fed such a text nor closed is what it was."""

    @property
    def closed(self) -> bool:
        """The processor has closed: later text passes as it came."""
        return self.processor.closed

    @property
    def shown(self) -> str:
        """Everything sent to the caller as the reply's text."""
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

    async def feed(self, content: str) -> str:
        """What goes out in place of `content` (a surrogate half waits for its pair)."""
        out = await _feed(self._feed, self._take(content))
        if out != content:
            self.altered = True
        return out

    def close(self) -> str:
        """The text held back until the end (a lone surrogate half becomes U+FFFD)."""
        self.altered = True
        if self.processor.closed:
            return ""
        out = self._feed("\ufffd") if self.pending else ""
        self.pending = ""
        tail = self.processor.close()
        self.parts.append(tail)
        return out + tail


async def _rewritten(shape: Shape, relay: _Relay, got: Event, raw: bytes | None) -> bytes:
    """What goes to the caller for one event of the upstream's stream: the shape's rewrite,
    framed; an event the rewrite left as it was (no text fed came out changed, the processor
    not closed) goes on as its bytes came (`raw`, when `_Reader` kept them), with no JSON
    written again: most events of a reply are narration that passes as it is."""
    framing = shape.framing
    if not isinstance(got.data, dict):
        return frames(framing, [got])
    relay.altered = False
    sent = await shape.rewrite(got, relay)
    if raw is not None and not relay.altered and len(sent) == 1 and sent[0] is got:
        return frame(framing, got.name, raw)
    return frames(framing, sent)


class _Reader:
    """The upstream's stream as events, one chunk at a time: SSE events (data that is not JSON
    skipped, `[DONE]` as it is) or NDJSON lines, as the shape frames them. Each comes with its
    data's bytes as they came when they can go on as they are (one line of UTF-8: the event
    then goes out in the same framing with that line as its data, when the proxy leaves it as
    it is), else None. The value the caller reads is the same either way; only how the JSON
    is spelled may differ (its spacing, escapes; a key written twice in one object is the
    model server's JSON, read as JSON readers do: the last wins)."""

    def __init__(self, framing: str) -> None:
        self.ndjson = framing == "ndjson"
        self.sse = SseReader()
        self.lines = Lines()

    def feed(self, chunk: bytes) -> list[tuple[Event, bytes | None]]:
        """The events `chunk` completes."""
        if self.ndjson:
            return self._ndjson(self.lines.feed(chunk))
        return self._sse(self.sse.feed(chunk))

    def close(self) -> list[tuple[Event, bytes | None]]:
        """The events the stream's end completes."""
        if self.ndjson:
            return self._ndjson(self.lines.close())
        return self._sse(self.sse.close())

    @staticmethod
    def _ndjson(lines: list[bytes]) -> list[tuple[Event, bytes | None]]:
        events: list[tuple[Event, bytes | None]] = []
        for line in lines:
            text, raw = _decoded(line)
            if text.strip():
                try:
                    events.append((Event(None, event_data(line, text)), raw))
                except (ValueError, RecursionError):
                    continue
        return events

    @staticmethod
    def _sse(parsed: list[tuple[str | None, bytes]]) -> list[tuple[Event, bytes | None]]:
        events: list[tuple[Event, bytes | None]] = []
        for name, data in parsed:
            text, raw = _decoded(data)
            if text.strip() == DONE:
                events.append((Event(name, DONE), None))
                continue
            try:
                events.append((Event(name, event_data(data, text)), raw))
            except (ValueError, RecursionError):
                continue
        return events


def _decoded(data: bytes) -> tuple[str, bytes | None]:
    """`data` as text (bytes that are not UTF-8 read as U+FFFD), and as the bytes to forward
    when they are one line of UTF-8 (else None)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("utf-8", "replace"), None
    return text, data if b"\n" not in data else None


async def _drain(chunks: AsyncIterator[bytes]) -> None:
    """Read what an upstream stream sends after its `[DONE]` (its end, as a rule) for up to
    `DRAIN_SECONDS`, so that its connection goes back to the pool: a stream closed before its
    end closes its connection, and the next request then waits for a new one (on a loaded
    machine, tens of milliseconds before its first byte)."""
    try:
        async with asyncio.timeout(DRAIN_SECONDS):
            async for _ in chunks:
                pass
    except UPSTREAM_FAILED:
        pass  # the caller has its whole reply; the connection is closed instead
