"""The proxy under faults (issue 26, SPEC §8): hostile bodies and headers, stored lone
surrogates, failed requests, callers that hang up, upstreams that answer in the wrong shape.

Every test here also holds that no traceback reaches the caller or any log.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route
from structlog.testing import capture_logs

from gmtags import process
from gmtags.history.fingerprint import Fingerprint, fingerprint, receipts_in
from gmtags.history.store import HistoryStore
from gmtags.server.background import BackgroundServer
from gmtags.server.chats import ChatBook
from gmtags.server.completions import Completions, _Stream
from gmtags.server.demo import demo_config
from gmtags.server.demo_upstream import DEMO_REPLIES, MODEL, ScriptedUpstream
from gmtags.server.errors import json_response
from gmtags.server.upstream import Upstream, UpstreamStream
from gmtags.state.snapshot import Snapshot
from tests.server.conftest import Proxy
from tests.server.test_completions import FIRST, free_port

NEXT = "The bell rings on."
"""What the upstreams here answer a request that is not streamed."""


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextmanager
def no_tracebacks() -> Iterator[list[dict[str, Any]]]:
    """Run the block capturing gmtags' log and uvicorn's error log (where an exception in the
    app lands); fail when either holds an exception or an error uvicorn logged. Enter it once
    every server of the test is running (starting one sets uvicorn's loggers up afresh)."""
    handler = _Records()
    uvicorn = logging.getLogger("uvicorn.error")
    uvicorn.addHandler(handler)
    try:
        with capture_logs() as events:
            yield events
    finally:
        uvicorn.removeHandler(handler)
    failures = [r.getMessage() for r in handler.records if r.exc_info or r.levelno >= 40]
    assert failures == []
    assert [e for e in events if "exc_info" in e or "exception" in e] == []


def post(
    proxy: Proxy,
    body: dict[str, Any] | bytes,
    chat: str | bytes | None = None,
    timeout: float = 10.0,
) -> httpx.Response:
    """POST a chat completions request (`body` as JSON, or raw bytes), naming `chat`."""
    headers: dict[str, Any] = {} if chat is None else {"X-Gmtags-Chat": chat}
    url = f"{proxy.url}/chat/completions"
    if isinstance(body, bytes):
        headers["Content-Type"] = "application/json"
        response = httpx.post(url, content=body, headers=headers, timeout=timeout)
    else:
        response = httpx.post(url, json=body, headers=headers, timeout=timeout)
    assert "Traceback" not in response.text
    return response


def left(proxy: Proxy, chat: str) -> tuple[bool, int]:
    """Whether the store knows `chat`, and how many nodes (finished or reserved) it has."""
    with sqlite3.connect(proxy.config.db) as db:
        known = db.execute("SELECT 1 FROM histories WHERE chat_id = ?", (chat,)).fetchone()
        (nodes,) = db.execute("SELECT COUNT(*) FROM nodes WHERE chat_id = ?", (chat,)).fetchone()
    return known is not None, int(nodes)


def assert_no_trace(proxy: Proxy, chat: str | None = None) -> None:
    """No chat (`chat`, or any when None) and no node are left: not in the store, not listed
    by `GET /gmtags/api/chats`, and the chat's state is a 404."""
    listed = httpx.get(f"{proxy.server.url}/gmtags/api/chats", timeout=10).json()
    with sqlite3.connect(proxy.config.db) as db:
        chats = [row[0] for row in db.execute("SELECT chat_id FROM histories")]
        (nodes,) = db.execute("SELECT COUNT(*) FROM nodes").fetchone()
    if chat is None:
        assert listed == [] and chats == [] and nodes == 0
        return
    assert chat not in [entry["chat"] for entry in listed]
    assert left(proxy, chat) == (False, 0)
    state = httpx.get(f"{proxy.server.url}/gmtags/chats/{chat}/state", timeout=10)
    assert state.status_code == 404


def wait_for(check: Callable[[], bool], seconds: float = 5.0) -> None:
    """Wait until `check()` holds (the proxy settles a hung-up request on its own time)."""
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "the proxy did not settle in time"
        time.sleep(0.01)


def completion(text: str) -> dict[str, Any]:
    """A whole OpenAI reply holding `text`."""
    message = {"role": "assistant", "content": text}
    return {"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message": message}]}


def delta(text: str) -> bytes:
    """One SSE event of a streamed OpenAI reply carrying `text`."""
    chunk = {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}
    return f"data: {json.dumps(chunk)}\n\n".encode()


def canned(status: int, media_type: str, body: bytes) -> Starlette:
    """An upstream answering every chat completions request with `status`, `body` and
    `media_type`, streamed or not."""

    async def route(request: Request) -> Response:
        await request.body()
        return Response(body, status_code=status, media_type=media_type)

    return Starlette(routes=[Route("/v1/chat/completions", route, methods=["POST"])])


@pytest.fixture
def serve() -> Iterator[Callable[[Starlette], str]]:
    """Serve upstream apps of a test's own; each gives its base URL (with `/v1`)."""
    running: list[BackgroundServer] = []

    def start(app: Starlette) -> str:
        server = BackgroundServer(app).start()
        running.append(server)
        return f"{server.url}/v1"

    yield start
    for server in running:
        server.stop()


class TestHostileBodies:
    @pytest.mark.parametrize(
        ("body", "said"),
        [
            (b'{"model": "m", "messages": [{"role": "user", "content": NaN}]}', "NaN"),
            (b'{"model": "m", "temperature": Infinity, "messages": []}', "Infinity"),
            (b'{"model": "m", "temperature": 1e999, "messages": []}', "too large"),
            (b'{"model": "m", "messages": [{"role": "user", "content": "\\ud800"}]}', "surrogate"),
            (b'{"model": "m", "model": "n", "messages": []}', "repeated"),
            (b'{"messages": [{"role": "user", "content": "x"}], "m": ' + b"[" * 101, "nested"),
            (b'{"model": "m", "messages": [{"role": "user", "content": "\xff"}]}', "UTF-8"),
        ],
    )
    @pytest.mark.parametrize("stream", [False, True])
    def test_refused_with_a_400_naming_where_and_nothing_placed(
        self, proxy: Proxy, body: bytes, said: str, stream: bool
    ) -> None:
        """NaN, Infinity, 1e999, a lone surrogate, a duplicate key, nesting past 100 and bytes
        that are not UTF-8 are each an OpenAI-style 400 saying what and where; nothing is
        forwarded, placed or stored."""
        if stream:
            body = body.replace(b'{"', b'{"stream": true, "', 1)
        with no_tracebacks():
            response = post(proxy, body, chat="hostile")
        assert response.status_code == 400
        error = response.json()["error"]
        assert error["type"] == "invalid_request_error"
        assert said in error["message"] and "line 1, column" in error["message"]
        assert response.headers["X-Gmtags-Chat"] == "hostile"
        assert proxy.upstream.requests == []
        assert_no_trace(proxy)

    def test_a_large_body_is_413_before_anything_is_placed(
        self, make_proxy: Callable[..., Proxy]
    ) -> None:
        """A body streamed past `--max-body` (no length given) is a 413, nothing placed."""
        proxy = make_proxy(max_body=1000)

        def chunks() -> Iterator[bytes]:
            yield b'{"model": "m", "messages": [{"role": "user", "content": "'
            for _ in range(100):
                yield b"x" * 100
            yield b'"}]}'

        with no_tracebacks():
            response = httpx.post(f"{proxy.url}/chat/completions", content=chunks(), timeout=10)
        assert response.status_code == 413
        assert response.json()["error"]["type"] == "invalid_request_error"
        assert_no_trace(proxy)


class TestChatHeader:
    @pytest.mark.parametrize("stream", [False, True])
    def test_a_utf8_name_is_the_chat(self, proxy: Proxy, stream: bool) -> None:
        """`X-Gmtags-Chat: Élise` sent in UTF-8 names the chat `Élise`, and the response names
        it back in the same bytes."""
        body = {"model": MODEL, "messages": FIRST, "stream": stream}
        with no_tracebacks():
            response = post(proxy, body, chat="Élise".encode())
        assert response.status_code == 200
        assert response.headers["X-Gmtags-Chat"] == "Élise"
        assert response.headers.raw  # the bytes on the wire are UTF-8
        assert (b"x-gmtags-chat", "Élise".encode()) in [
            (name.lower(), value) for name, value in response.headers.raw
        ]
        assert left(proxy, "Élise") == (True, 1)
        assert httpx.get(f"{proxy.server.url}/gmtags/chats/Élise/state").status_code == 200

    def test_a_name_that_is_not_utf8_is_a_400(self, proxy: Proxy) -> None:
        """A header whose bytes are not UTF-8 (latin-1 `É`) is a 400 naming the header, and
        nothing is placed."""
        body = {"model": MODEL, "messages": FIRST}
        with no_tracebacks():
            response = post(proxy, body, chat="Élise".encode("latin-1"))
        assert response.status_code == 400
        assert "X-Gmtags-Chat" in response.json()["error"]["message"]
        assert "X-Gmtags-Chat" not in response.headers
        assert proxy.upstream.requests == []
        assert_no_trace(proxy)


class TestStoredLoneSurrogates:
    """A chat stored by an older version may hold a lone UTF-16 surrogate half, in a
    snapshot (where the GM instructions read it) or in a reply's receipts."""

    def _old_chat(self, proxy: Proxy, chat: str) -> str:
        """Store a reply whose receipts and snapshot after hold a lone half, as an older
        version could; return the text the client kept of it."""
        data = proxy.config.start.to_json_dict()
        data["gamePartySheet"]["fields"]["post"] = "The ford \ud800 tower"
        after = Snapshot.model_validate(data)
        receipt = '[clock: name="Bell" size="4" result="ok" now="0/4"]'
        with HistoryStore(proxy.config.db) as store:
            store.ensure_chat(chat, proxy.config.start)
            node = store.reserve(chat, None, "turn", proxy.config.start)
            done = store.complete(node, after, Fingerprint((receipt,), ""), current=True)
        with sqlite3.connect(proxy.config.db) as db:  # the receipts as JSON escapes them
            old = json.dumps([receipt.replace("Bell", "Bell \ud800")])
            db.execute("UPDATE nodes SET receipts = ? WHERE id = ?", (old, done.id))
        return f"The bell. {receipt}"

    @pytest.mark.parametrize("stream", [False, True])
    def test_later_requests_still_work(self, proxy: Proxy, chat_id: str, stream: bool) -> None:
        """A turn going on from a snapshot holding a lone half is answered (the upstream gets
        it as U+FFFD in well-formed UTF-8), and so is a new turn of that chat."""
        kept = self._old_chat(proxy, chat_id)
        onward = [*FIRST, {"role": "assistant", "content": kept}, {"role": "user", "content": "On"}]
        with no_tracebacks():
            for messages in (onward, FIRST):
                body = {"model": MODEL, "messages": messages, "stream": stream}
                response = post(proxy, body, chat=chat_id)
                assert response.status_code == 200 and "error" not in response.text
        sent = json.dumps(proxy.upstream.requests[0], ensure_ascii=False)
        assert "The ford \ufffd tower" in sent
        assert left(proxy, chat_id) == (True, 3)


class TestFailedRequestsLeaveNothing:
    @pytest.mark.parametrize("stream", [False, True])
    @pytest.mark.parametrize("status", [400, 500])
    def test_an_upstream_error(
        self, make_proxy: Callable[..., Proxy], stream: bool, status: int
    ) -> None:
        """An upstream that refuses (4xx) or fails (5xx) leaves no chat and no node."""
        proxy = make_proxy(ScriptedUpstream(fail_status=status))
        with no_tracebacks():
            response = post(proxy, {"model": MODEL, "messages": FIRST, "stream": stream}, "f")
        assert response.status_code == status
        assert response.json()["error"]["message"] == "scripted failure"
        assert_no_trace(proxy, "f")

    @pytest.mark.parametrize("stream", [False, True])
    def test_an_unreachable_upstream(self, make_proxy: Callable[..., Proxy], stream: bool) -> None:
        """An upstream nobody listens on leaves no chat (named or not) and no node."""
        proxy = make_proxy(upstream_url=f"http://127.0.0.1:{free_port()}/v1")
        with no_tracebacks():
            named = post(proxy, {"model": MODEL, "messages": FIRST, "stream": stream}, "gone")
            unnamed = post(proxy, {"model": MODEL, "messages": FIRST, "stream": stream})
        assert named.status_code == unnamed.status_code == 502
        assert_no_trace(proxy)

    @pytest.mark.parametrize("stream", [False, True])
    def test_a_caller_gone_before_the_first_byte(
        self, make_proxy: Callable[..., Proxy], stream: bool
    ) -> None:
        """A caller that hangs up while the upstream is still thinking leaves no chat and no
        node once the upstream has answered."""
        proxy = make_proxy(ScriptedUpstream(delay=0.6))
        with no_tracebacks():
            with pytest.raises(httpx.ReadTimeout):
                post(proxy, {"model": MODEL, "messages": FIRST, "stream": stream}, "left", 0.2)
            assert left(proxy, "left") == (True, 1)  # placed while the upstream thinks
            wait_for(lambda: left(proxy, "left") == (False, 0))
        assert len(proxy.upstream.requests) == 1
        assert_no_trace(proxy, "left")

    @pytest.mark.parametrize("stream", [False, True])
    def test_a_chat_that_was_there_stays(self, proxy: Proxy, chat_id: str, stream: bool) -> None:
        """A failed request in a chat that holds replies takes nothing away from it."""
        first = post(proxy, {"model": MODEL, "messages": FIRST}, chat_id)
        assert first.status_code == 200
        proxy.upstream.fail_status = 500
        reply = first.json()["choices"][0]["message"]["content"]
        turn = [*FIRST, {"role": "assistant", "content": reply}, {"role": "user", "content": "On"}]
        with no_tracebacks():
            failed = post(proxy, {"model": MODEL, "messages": turn, "stream": stream}, chat_id)
        assert failed.status_code == 500
        assert left(proxy, chat_id) == (True, 1)
        assert httpx.get(f"{proxy.server.url}/gmtags/chats/{chat_id}/state").status_code == 200


class TestWrongShapes:
    @pytest.mark.parametrize(
        ("media_type", "body", "said"),
        [
            ("application/json", json.dumps(completion("Hi")).encode(), "application/json"),
            ("text/html", b"<html>busy</html>", "text/html"),
            ("application/json", b'{"error": {"message": "quota", "type": "x"}}', "quota"),
        ],
    )
    def test_a_stream_that_is_not_sse_is_a_502(
        self,
        make_proxy: Callable[..., Proxy],
        serve: Callable[[Starlette], str],
        media_type: str,
        body: bytes,
        said: str,
    ) -> None:
        """A 200 to a streaming request that is not an event stream is an OpenAI-style 502
        (the upstream's own error when it sent one), and nothing is stored."""
        proxy = make_proxy(upstream_url=serve(canned(200, media_type, body)))
        with no_tracebacks():
            response = post(proxy, {"model": MODEL, "messages": FIRST, "stream": True}, "w")
        assert response.status_code == 502
        assert response.headers["content-type"] == "application/json"
        assert said in response.json()["error"]["message"]
        assert_no_trace(proxy)

    @pytest.mark.parametrize(
        ("body", "said"),
        [
            (b"<html>busy</html>", "not JSON"),
            (b'{"a": NaN}', "not JSON"),
            (b'{"choices": []}', "choices[0].message"),
            (b'{"choices": [{"index": 0, "text": "Hi"}]}', "choices[0].message"),
            (b"[1, 2]", "choices[0].message"),
            (b'{"error": {"message": "quota", "type": "x"}}', "quota"),
        ],
    )
    def test_a_whole_reply_in_the_wrong_shape_is_a_502(
        self,
        make_proxy: Callable[..., Proxy],
        serve: Callable[[Starlette], str],
        body: bytes,
        said: str,
    ) -> None:
        """A 200 whose body is not JSON or has no `choices[0].message` is a 502, nothing
        stored."""
        proxy = make_proxy(upstream_url=serve(canned(200, "application/json", body)))
        with no_tracebacks():
            response = post(proxy, {"model": MODEL, "messages": FIRST}, "w")
        assert response.status_code == 502
        assert said in response.json()["error"]["message"]
        assert_no_trace(proxy)

    def test_a_whole_reply_with_a_repeated_key_is_read(
        self, make_proxy: Callable[..., Proxy], serve: Callable[[Starlette], str]
    ) -> None:
        """The model server's JSON is read as JSON readers do (the last of a repeated key
        wins): only what a player or page sends is held to strict JSON."""
        body = (
            b'{"id": "x", "id": "y", "object": "chat.completion", "choices": [{"index": 0,'
            b' "message": {"role": "assistant", "content": "The gate holds."}}]}'
        )
        proxy = make_proxy(upstream_url=serve(canned(200, "application/json", body)))
        response = post(proxy, {"model": MODEL, "messages": FIRST}, "d")
        assert response.status_code == 200
        assert response.json()["id"] == "y"
        assert response.json()["choices"][0]["message"]["content"] == "The gate holds."

    def test_sse_under_another_type_still_streams(
        self, make_proxy: Callable[..., Proxy], serve: Callable[[Starlette], str]
    ) -> None:
        """An upstream that streams SSE labelled `text/plain` is read as the stream it is."""
        events = b"\n" + delta("The gate ") + delta("holds.") + b"data: [DONE]\n\n"
        proxy = make_proxy(upstream_url=serve(canned(200, "text/plain", events)))
        with no_tracebacks():
            response = post(proxy, {"model": MODEL, "messages": FIRST, "stream": True}, "p")
        assert response.status_code == 200 and response.text.endswith("data: [DONE]\n\n")
        assert left(proxy, "p") == (True, 1)

    def test_an_event_stream_with_no_reply_ends_with_an_error(
        self, make_proxy: Callable[..., Proxy], serve: Callable[[Starlette], str]
    ) -> None:
        """An event stream that ends holding no reply event ends with an error event, and
        nothing is stored."""
        upstream = canned(200, "text/event-stream", b": keep-alive\n\ndata: [DONE]\n\n")
        proxy = make_proxy(upstream_url=serve(upstream))
        with no_tracebacks():
            response = post(proxy, {"model": MODEL, "messages": FIRST, "stream": True}, "e")
        datas = [line[6:] for line in response.text.splitlines() if line.startswith("data: ")]
        assert "held no reply" in json.loads(datas[-1])["error"]["message"]
        assert_no_trace(proxy)


REPLY = DEMO_REPLIES[2]
"""A reply with a clock, a check and two sheet commands (one on the party sheet)."""
PIECES = [REPLY[start : start + 16] for start in range(0, len(REPLY), 16)]


class HaltingUpstream:
    """Streams `REPLY` in `PIECES`, stopping after the first `halt` of them as a model does
    between two tokens (until the proxy hangs up); a whole request gets `NEXT`."""

    def __init__(self) -> None:
        self.halt = 0
        self.app = Starlette(routes=[Route("/v1/chat/completions", self.route, methods=["POST"])])

    async def route(self, request: Request) -> Response:
        body = await request.json()
        if not body.get("stream"):
            return json_response(completion(NEXT))
        halt = self.halt

        async def events() -> AsyncIterator[bytes]:
            for piece in PIECES[:halt]:
                yield delta(piece)
            await asyncio.sleep(30)  # cancelled when the proxy closes the connection

        return StreamingResponse(events(), media_type="text/event-stream")


def read_then_hang_up(proxy: Proxy, chat: str, count: int) -> str:
    """Stream a turn over a real socket, read `count` events, hang up; the text read."""
    got: list[dict[str, Any]] = []
    body = {"model": MODEL, "messages": FIRST, "stream": True}
    with (
        httpx.Client(timeout=10) as client,
        client.stream(
            "POST", f"{proxy.url}/chat/completions", json=body, headers={"X-Gmtags-Chat": chat}
        ) as response,
    ):
        assert response.status_code == 200
        lines = response.iter_lines()
        while len(got) < count:
            line = next(lines)
            if line.startswith("data: "):
                got.append(json.loads(line[6:]))
    return "".join(
        choice["delta"].get("content") or "" for data in got for choice in data["choices"]
    )


class TestHangingUp:
    def test_every_chunk_boundary(
        self, make_proxy: Callable[..., Proxy], serve: Callable[[Starlette], str]
    ) -> None:
        """For every chunk boundary k, a caller that hangs up after k events leaves a node
        holding exactly the text it read, whose snapshot holds exactly the commands whose
        receipts it read; the next request, carrying that text as the caller kept it,
        anchors on the node and starts from that snapshot. Hung up before any text: nothing
        is left."""
        upstream = HaltingUpstream()
        proxy = make_proxy(upstream_url=serve(upstream.app))
        ruleset, start = proxy.config.ruleset, proxy.config.start
        seen_receipts = set()
        with no_tracebacks(), HistoryStore(proxy.config.db) as store:
            for k in range(len(PIECES) + 1):
                chat = f"hang-up-{k}"
                upstream.halt = k
                received = read_then_hang_up(proxy, chat, k)
                wait_for(
                    lambda chat=chat, k=k: (
                        not _reserved(proxy, chat) and (k > 0 or left(proxy, chat) == (False, 0))
                    )
                )
                if k == 0:
                    assert_no_trace(proxy, chat)
                    continue
                (hung,) = store.nodes(chat)
                assert hung.fingerprint == fingerprint(received)
                seen = receipts_in(received)
                seen_receipts.add(len(seen))
                whole = process(REPLY, ruleset, start, seed=hung.seed)
                assert seen == receipts_in(whole.text)[: len(seen)]
                expected = (
                    process(REPLY[: whole.placed[len(seen) - 1].end], ruleset, start, hung.seed)
                    if seen
                    else None
                )
                after = start if expected is None else expected.snapshot
                assert store.snapshot(hung.after) == after
                onward = [
                    *FIRST,
                    {"role": "assistant", "content": received},
                    {"role": "user", "content": "I look around."},
                ]
                response = post(proxy, {"model": MODEL, "messages": onward}, chat)
                assert response.json()["choices"][0]["message"]["content"] == NEXT
                _, turn = store.nodes(chat)
                assert turn.parent == hung.id and turn.before == hung.after
                assert store.snapshot(turn.before) == after
        assert seen_receipts == {0, 1, 2, 3, 4}  # every count of commands was cut at

    def test_an_event_not_sent_does_not_count(self, tmp_path: Any) -> None:
        """An event handed to `yield` whose send never finished (the response task cancelled
        meanwhile, so the stream is closed at that `yield`) is not in the node: only what the
        server asked past counts."""
        config = demo_config("http://127.0.0.1:9/v1")

        async def chunks() -> AsyncIterator[bytes]:
            yield delta("The gate holds. ")
            yield delta('[clock: name="Alarm raised" size="6"] Then')
            yield delta(" more.")

        async def main() -> tuple[bytes, bytes]:
            with HistoryStore(tmp_path / "h.sqlite3") as store:
                book = ChatBook(store, config.start)
                owner = Completions(config, book, Upstream(config.upstream, 1.0))
                turn = book.begin("c", FIRST)
                upstream = UpstreamStream(chunks(), lambda: None)
                stream = _Stream(owner, upstream, turn, owner.log)
                first = await stream.body.__anext__()
                second = await stream.body.__anext__()  # handed over, never sent
                await stream.end()
                (node,) = store.nodes("c")
                assert node.fingerprint == fingerprint("The gate holds. ")
                assert store.snapshot(node.after) == config.start
                return first, second

        first, second = asyncio.run(main())
        assert b"The gate holds. " in first and b'result=\\"ok\\"' in second


def _reserved(proxy: Proxy, chat: str) -> bool:
    """Whether `chat` has a node still being made."""
    with sqlite3.connect(proxy.config.db) as db:
        row = db.execute(
            "SELECT 1 FROM nodes WHERE chat_id = ? AND after IS NULL", (chat,)
        ).fetchone()
    return row is not None
