"""gmtags/server/completions.py: the proxy's chat completions, driven with the openai client."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from openai.types.chat import ChatCompletionChunk
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route
from structlog.testing import capture_logs

from gmtags import ProcessResult, log, process
from gmtags.history.store import HistoryStore, Node
from gmtags.prompt import gm_instructions
from gmtags.server import completions
from gmtags.server.background import BackgroundServer
from gmtags.server.chats import ChatBook
from gmtags.server.completions import PREPARED, Completions
from gmtags.server.demo import demo_config
from gmtags.server.demo_upstream import DEMO_REPLIES, MODEL, ScriptedUpstream
from gmtags.server.messages import with_instructions
from gmtags.server.upstream import Upstream
from gmtags.state.snapshot import Snapshot
from tests.server.conftest import Proxy

FIRST = [{"role": "system", "content": "You are the GM."}, {"role": "user", "content": "I push."}]


def second_turn(first_reply: str) -> list[dict[str, str]]:
    """The conversation after the first reply, with the player's next line."""
    return [
        *FIRST,
        {"role": "assistant", "content": first_reply},
        {"role": "user", "content": "I refill the lamp."},
    ]


def ask(proxy: Proxy, chat: str | None, messages: list[dict[str, str]], stream: bool) -> str:
    """The proxy's reply text to `messages`, streamed (joined deltas) or whole."""
    client = proxy.client(chat)
    if not stream:
        reply = client.chat.completions.create(model=MODEL, messages=messages)  # type: ignore[arg-type]
        return reply.choices[0].message.content or ""
    pieces = client.chat.completions.create(model=MODEL, messages=messages, stream=True)  # type: ignore[arg-type]
    return "".join(
        chunk.choices[0].delta.content or ""
        for chunk in pieces
        if isinstance(chunk, ChatCompletionChunk) and chunk.choices
    )


def node_result(proxy: Proxy, reply: int, before: Snapshot, node: Node) -> ProcessResult:
    """What `process` makes of canned reply `reply` with the seed of the stored `node`."""
    return process(DEMO_REPLIES[reply], proxy.config.ruleset, before, seed=node.seed)


def stored(proxy: Proxy) -> HistoryStore:
    """The proxy's history store, opened a second time (WAL lets both read)."""
    return HistoryStore(proxy.config.db)


def newest(proxy: Proxy, chat: str) -> Node:
    """The newest finished reply node of `chat`."""
    with stored(proxy) as store:
        return store.nodes(chat)[-1]


def free_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class TestCompletions:
    @pytest.mark.parametrize("stream", [False, True])
    def test_reply_carries_receipts(self, proxy: Proxy, chat_id: str, stream: bool) -> None:
        """The reply has every tag rewritten as its receipt, exactly as `process` writes it."""
        text = ask(proxy, chat_id, FIRST, stream)
        node = newest(proxy, chat_id)
        assert text == node_result(proxy, 0, proxy.config.start, node).text
        assert 'result="' in text

    @pytest.mark.parametrize("stream", [False, True])
    def test_display_hides_tags(
        self, make_proxy: Callable[..., Proxy], chat_id: str, stream: bool
    ) -> None:
        """With display on, the reply is the narration with tags hidden."""
        proxy = make_proxy(display="hidden")
        text = ask(proxy, chat_id, FIRST, stream)
        node = newest(proxy, chat_id)
        assert text == node_result(proxy, 0, proxy.config.start, node).display
        assert "[" not in text

    @pytest.mark.parametrize("stream", [False, True])
    def test_snapshots_are_stored(self, proxy: Proxy, chat_id: str, stream: bool) -> None:
        """Each reply's snapshot is stored, and the next turn starts from it."""
        first = ask(proxy, chat_id, FIRST, stream)
        one = node_result(proxy, 0, proxy.config.start, newest(proxy, chat_id))
        with stored(proxy) as store:
            assert store.current(chat_id) == one.snapshot
        second = ask(proxy, chat_id, second_turn(first), stream)
        node = newest(proxy, chat_id)
        two = node_result(proxy, 1, one.snapshot, node)
        assert second == two.text
        with stored(proxy) as store:
            assert store.current(chat_id) == two.snapshot
            assert store.snapshot(node.before) == one.snapshot
        assert two.snapshot.ruleset_live["bram the quiet"].pools["oil"] == 3

    @pytest.mark.parametrize("stream", [False, True])
    def test_regenerate_starts_before_the_earlier_reply(
        self, proxy: Proxy, chat_id: str, stream: bool
    ) -> None:
        """Asking again with the same messages starts from the snapshot before the last reply."""
        first = ask(proxy, chat_id, FIRST, stream)
        one = node_result(proxy, 0, proxy.config.start, newest(proxy, chat_id))
        ask(proxy, chat_id, second_turn(first), stream)
        earlier = newest(proxy, chat_id)
        again = ask(proxy, chat_id, second_turn(first), stream)
        swipe = newest(proxy, chat_id)
        assert again == node_result(proxy, 1, one.snapshot, swipe).text
        assert swipe.parent == earlier.parent and swipe.id != earlier.id
        assert swipe.seed != earlier.seed
        with stored(proxy) as store:
            assert store.current(chat_id) == store.snapshot(swipe.after)
            assert store.current_node(chat_id) == swipe.id

    def test_instructions_and_key_are_forwarded(self, proxy: Proxy, chat_id: str) -> None:
        """The upstream gets the GM system part joined to the first system message, the reminder
        appended to the player's message (no system message mid-chat), and the caller's key."""
        ask(proxy, chat_id, FIRST, stream=False)
        sent = proxy.upstream.requests[-1]["messages"]
        assert [m["role"] for m in sent] == ["system", "user"]
        assert "Call for a check" in sent[0]["content"]
        assert sent[0]["content"].endswith("\n\nYou are the GM.")
        assert sent[1]["content"].startswith("I push.\n\n")
        assert "Road washed out" in sent[1]["content"]
        assert proxy.upstream.authorizations[-1] == "Bearer sk-test-key"

    def test_stream_arrives_in_pieces(self, proxy: Proxy, chat_id: str) -> None:
        """Narration is passed on chunk by chunk as it arrives, not gathered into one piece."""
        pieces = proxy.client(chat_id).chat.completions.create(
            model=MODEL,
            messages=FIRST,  # type: ignore[arg-type]
            stream=True,
        )
        contents = [
            c.choices[0].delta.content
            for c in pieces
            if isinstance(c, ChatCompletionChunk) and c.choices
        ]
        assert sum(1 for content in contents if content) > 10

    def test_key_is_never_logged(self, proxy: Proxy, chat_id: str) -> None:
        """The proxy logs each request and reply, and never the caller's API key."""
        log.configure(logging.INFO)
        try:
            with capture_logs() as events:
                ask(proxy, chat_id, FIRST, stream=True)
                ask(proxy, chat_id, FIRST, stream=False)
        finally:
            log.configure()
        assert {"request", "reply"} <= {event["event"] for event in events}
        assert "sk-test-key" not in repr(events)

    def test_chat_is_found_by_its_replies_without_the_header(self, proxy: Proxy) -> None:
        """Without the header, a first request starts a new chat, and the next one, anchored on
        that chat's reply, lands in it; every response names its chat."""
        url = f"{proxy.url}/chat/completions"
        first = httpx.post(url, json={"model": MODEL, "messages": FIRST}, timeout=10)
        chat = first.headers["X-Gmtags-Chat"]
        reply = first.json()["choices"][0]["message"]["content"]
        body = {"model": MODEL, "messages": second_turn(reply)}
        second = httpx.post(url, json=body, timeout=10)
        assert second.headers["X-Gmtags-Chat"] == chat
        other = httpx.post(url, json={"model": MODEL, "messages": FIRST}, timeout=10)
        assert other.headers["X-Gmtags-Chat"] != chat
        with stored(proxy) as store:
            nodes = store.nodes(chat)
        assert len(nodes) == 2 and nodes[1].parent == nodes[0].id

    def test_upstream_error_passes_through(self, make_proxy: Callable[..., Proxy]) -> None:
        """An upstream 500 reaches the caller as a 500 with the upstream's error body."""
        proxy = make_proxy(ScriptedUpstream(fail_status=500))
        with pytest.raises(openai.InternalServerError) as raised:
            ask(proxy, "failing", FIRST, stream=False)
        assert raised.value.status_code == 500
        assert "scripted failure" in raised.value.message

    def test_upstream_error_passes_through_when_streaming(
        self, make_proxy: Callable[..., Proxy]
    ) -> None:
        """A streaming request to a failing upstream gets the error status, not a stream."""
        proxy = make_proxy(ScriptedUpstream(fail_status=500))
        with pytest.raises(openai.InternalServerError):
            ask(proxy, "failing", FIRST, stream=True)
        with stored(proxy) as store:
            assert store.nodes("failing") == []

    def test_broken_stream_ends_with_an_error(self, make_proxy: Callable[..., Proxy]) -> None:
        """A stream the upstream drops part way ends with an error event and records nothing."""
        proxy = make_proxy(ScriptedUpstream(cut_after=3))
        with pytest.raises(openai.APIError) as raised:
            ask(proxy, "cut", FIRST, stream=True)
        assert "upstream" in raised.value.message
        with stored(proxy) as store:
            assert store.nodes("cut") == []

    @pytest.mark.parametrize("stream", [False, True])
    def test_unreachable_upstream_is_502(
        self, make_proxy: Callable[..., Proxy], stream: bool
    ) -> None:
        """An upstream nobody listens on gives an OpenAI-style 502."""
        proxy = make_proxy(upstream_url=f"http://127.0.0.1:{free_port()}/v1")
        with pytest.raises(openai.APIStatusError) as raised:
            ask(proxy, "nowhere", FIRST, stream)
        assert raised.value.status_code == 502

    @pytest.mark.parametrize("stream", [False, True])
    def test_slow_upstream_is_504(self, make_proxy: Callable[..., Proxy], stream: bool) -> None:
        """An upstream that does not answer within the timeout gives an OpenAI-style 504."""
        proxy = make_proxy(ScriptedUpstream(delay=1.5), upstream_timeout=0.2)
        with pytest.raises(openai.APIStatusError) as raised:
            ask(proxy, "slow", FIRST, stream)
        assert raised.value.status_code == 504
        assert raised.value.body["type"] == "timeout"  # type: ignore[index]


class TestFailingStore:
    """The history store failing after a request was placed, while its reply is recorded."""

    def _breaking(self, proxy: Proxy) -> Callable[[Any], str]:
        """A script that breaks the proxy's store (its nodes table gone) while the upstream
        answers, after the request was placed, and then gives the first canned reply."""

        def script(messages: Any) -> str:
            with sqlite3.connect(proxy.config.db) as db:
                db.execute("ALTER TABLE nodes RENAME TO gone")
            return DEMO_REPLIES[0]

        return script

    def test_a_stream_ends_with_an_error_saying_the_reply_was_not_stored(
        self, make_proxy: Callable[..., Proxy], chat_id: str
    ) -> None:
        """The narration goes out, then an OpenAI-style error in place of `[DONE]`; the failure
        is logged, and the proxy answers the next request (503 while the store is broken)."""
        proxy = make_proxy()
        proxy.upstream.script = self._breaking(proxy)
        url = f"{proxy.url}/chat/completions"
        body = {"model": MODEL, "stream": True, "messages": FIRST}
        with capture_logs() as logs:
            response = httpx.post(url, json=body, headers={"X-Gmtags-Chat": chat_id}, timeout=20)
        assert response.status_code == 200
        datas = [line[6:] for line in response.text.splitlines() if line.startswith("data: ")]
        assert datas[-1] != "[DONE]" and "[DONE]" not in datas
        error = json.loads(datas[-1])["error"]
        assert error["type"] == "server_error"
        assert "could not store the reply" in error["message"] and "gone" not in error["message"]
        content = "".join(
            choice["delta"].get("content") or ""
            for data in datas[:-1]
            for choice in json.loads(data).get("choices", [])
        )
        # The whole reply went out, its tags rewritten as receipts (the roll is the store's).
        assert content.startswith("The lantern gutters as Bram sets his shoulder to the gate. [")
        assert content.count("\n") == DEMO_REPLIES[0].count("\n")
        assert 'result="' in content and '[clock: name="Alarm raised"' in content
        assert any(entry["event"] == "store-failed" for entry in logs)
        again = httpx.post(url, json=body, headers={"X-Gmtags-Chat": chat_id}, timeout=20)
        assert again.status_code == 503 and again.json()["error"]["type"] == "server_error"

    def test_a_whole_reply_is_a_503(self, make_proxy: Callable[..., Proxy], chat_id: str) -> None:
        """Not streaming: the reply is not sent as if it were kept; the caller gets a 503."""
        proxy = make_proxy()
        proxy.upstream.script = self._breaking(proxy)
        with pytest.raises(openai.APIStatusError) as raised:
            ask(proxy, chat_id, FIRST, stream=False)
        assert raised.value.status_code == 503
        assert "could not store the reply" in raised.value.message


class TestReadBody:
    def test_large_request_is_413(self, make_proxy: Callable[..., Proxy]) -> None:
        """A request body over the size limit is refused with 413 before reaching the upstream."""
        proxy = make_proxy(max_body=1000)
        messages = [{"role": "user", "content": "x" * 2000}]
        with pytest.raises(openai.APIStatusError) as raised:
            ask(proxy, "big", messages, stream=False)
        assert raised.value.status_code == 413
        assert proxy.upstream.requests == []

    def test_bad_json_is_400(self, proxy: Proxy) -> None:
        """A body that is not JSON gets an OpenAI-style 400."""
        response = httpx.post(f"{proxy.url}/chat/completions", content=b"{nope", timeout=10)
        assert response.status_code == 400
        assert response.json()["error"]["type"] == "invalid_request_error"

    @pytest.mark.parametrize("stream", [False, True])
    def test_several_choices_are_refused(self, proxy: Proxy, stream: bool) -> None:
        """A request for more than one choice gets an OpenAI-style 400, streaming or not."""
        body = {"model": MODEL, "messages": FIRST, "n": 2, "stream": stream}
        headers = {"X-Gmtags-Chat": "two"}
        response = httpx.post(f"{proxy.url}/chat/completions", json=body, headers=headers)
        assert response.status_code == 400
        assert response.headers["content-type"] == "application/json"
        assert "n must be 1" in response.json()["error"]["message"]
        assert response.headers["X-Gmtags-Chat"] == "two"
        assert proxy.upstream.requests == []

    def test_deeply_nested_body_is_400(self, proxy: Proxy) -> None:
        """A body nested thousands deep gets an OpenAI-style 400, not a server error."""
        body = b'{"model": "m", "messages": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
        response = httpx.post(f"{proxy.url}/chat/completions", content=body, timeout=10)
        assert response.status_code == 400
        message = response.json()["error"]["message"]
        assert message.endswith("nested deeper than 100 arrays and objects at line 1, column 127")

    def test_long_chat_header_is_400(self, proxy: Proxy) -> None:
        """A chat name longer than an id may be is refused with an error object."""
        headers = {"X-Gmtags-Chat": "x" * 201}
        body = {"model": MODEL, "messages": FIRST}
        response = httpx.post(f"{proxy.url}/chat/completions", json=body, headers=headers)
        assert response.status_code == 400
        assert "X-Gmtags-Chat" in response.json()["error"]["message"]


class TestHostileUpstream:
    def test_surrogate_halves_in_two_chunks_are_joined(
        self, make_proxy: Callable[..., Proxy], chat_id: str
    ) -> None:
        """An emoji whose UTF-16 halves arrive escaped in two consecutive chunks reaches the
        caller whole, and the stream is not cut."""
        reply = 'Hi 😀 there. [clock: name="Alarm raised" size="6"] Bye 🎲'
        upstream = ScriptedUpstream(replies=(reply,), utf16=True, chunk_size=4)
        proxy = make_proxy(upstream)
        text = ask(proxy, chat_id, FIRST, stream=True)
        assert text.startswith("Hi 😀 there. [clock:") and text.endswith("Bye 🎲")
        assert "\ufffd" not in text
        assert newest(proxy, chat_id).fingerprint.receipts[0].endswith('now="0/6"]')

    def test_a_lone_half_becomes_a_replacement_character(
        self, make_proxy: Callable[..., Proxy], chat_id: str
    ) -> None:
        """A surrogate half with no partner never breaks the stream: it becomes U+FFFD."""
        proxy = make_proxy(ScriptedUpstream(replies=("tail \ud83d",), chunk_size=3))
        assert ask(proxy, chat_id, FIRST, stream=True) == "tail \ufffd"
        assert ask(proxy, chat_id, FIRST, stream=False) == "tail \ufffd"

    @pytest.mark.parametrize("stream", [False, True])
    def test_a_huge_reply_does_not_stall_other_chats(
        self, make_proxy: Callable[..., Proxy], stream: bool
    ) -> None:
        """While a megabyte of tags is processed, the proxy still answers everyone else."""
        tag = '[clock: name="Alarm raised" tick="1"] '
        huge = tag * (1_000_000 // len(tag))
        proxy = make_proxy(ScriptedUpstream(replies=(huge,), chunk_size=500_000))
        done = threading.Event()
        got: list[str] = []

        def slow() -> None:
            got.append(ask(proxy, "huge", FIRST, stream))
            done.set()

        worker = threading.Thread(target=slow)
        worker.start()
        waits: list[float] = []
        while not done.is_set():
            started = time.perf_counter()
            assert httpx.get(f"{proxy.server.url}/healthz", timeout=10).status_code == 200
            waits.append(time.perf_counter() - started)
            time.sleep(0.02)
        worker.join()
        assert len(waits) >= 5  # the huge reply took a while…
        assert max(waits) < 1.0  # …and nobody else waited for all of it (unit test: TestSlices)
        node = newest(proxy, "huge")
        assert got == [process(huge, proxy.config.ruleset, proxy.config.start, node.seed).text]


class TestMergeInstructions:
    def test_reminder_joins_the_player_message(
        self, make_proxy: Callable[..., Proxy], chat_id: str
    ) -> None:
        """With --merge-instructions the reminder joins the player's message even when the
        request already has system messages mid-chat; without it, it is a system message."""
        messages = [*FIRST, {"role": "system", "content": "Post-history note."}]
        plain = make_proxy()
        ask(plain, chat_id, messages, stream=False)
        sent = plain.upstream.requests[-1]["messages"]
        assert [m["role"] for m in sent] == ["system", "user", "system"]
        assert sent[1]["content"] == "I push."
        merged = make_proxy(merge_instructions=True)
        ask(merged, chat_id, messages, stream=False)
        sent = merged.upstream.requests[-1]["messages"]
        assert [m["role"] for m in sent] == ["system", "user", "system"]
        assert (
            sent[1]["content"].startswith("I push.\n\n") and "Road washed out" in sent[1]["content"]
        )
        assert sent[2]["content"] == "Post-history note."


class TestSlices:
    def test_a_long_piece_hands_the_loop_back_between_slices(self) -> None:
        """A piece longer than SLICE is fed a slice at a time, other tasks running between, and
        the output is what one feed would give (the processor is equal for any chunking)."""
        from gmtags.server.completions import SLICE, _feed

        fed: list[str] = []
        turns = 0

        def feed(text: str) -> str:
            fed.append(text)
            return text.upper()

        async def other() -> None:
            nonlocal turns
            while True:
                turns += 1
                await asyncio.sleep(0)

        async def main() -> str:
            task = asyncio.create_task(other())
            await asyncio.sleep(0)
            out = await _feed(feed, "x" * (10 * SLICE + 3))
            task.cancel()
            return out

        out = asyncio.run(main())
        assert out == "X" * (10 * SLICE + 3)
        assert [len(piece) for piece in fed] == [SLICE] * 10 + [3]
        assert turns >= 11

    def test_a_short_piece_is_fed_at_once(self) -> None:
        """Up to SLICE characters go through in one feed, without awaiting."""
        from gmtags.server.completions import SLICE, _feed

        fed: list[str] = []
        out = asyncio.run(_feed(lambda text: fed.append(text) or text, "y" * SLICE))
        assert out == "y" * SLICE and fed == ["y" * SLICE]


class TestPreparedInstructions:
    def test_the_next_turn_gets_the_instructions_of_its_snapshot(
        self, proxy: Proxy, chat_id: str
    ) -> None:
        """The turn going on from a streamed reply is sent exactly the GM instructions of the
        snapshot that reply left (made ahead, after the reply went out)."""
        first = ask(proxy, chat_id, FIRST, stream=True)
        ask(proxy, chat_id, second_turn(first), stream=True)
        with stored(proxy) as store:
            after = store.snapshot(store.nodes(chat_id)[0].after)
        expected = with_instructions(
            second_turn(first), gm_instructions(proxy.config.ruleset, after), merge=False
        )
        assert proxy.upstream.requests[-1]["messages"] == expected

    def test_made_ahead_by_snapshot_name(self, tmp_path: Path) -> None:
        """A turn starting from a snapshot made ahead gets those instructions; any other turn
        gets them made for it; the oldest go first once `PREPARED` are kept."""
        config = demo_config("http://127.0.0.1:9/v1")
        with HistoryStore(tmp_path / "h.sqlite3") as store:
            book = ChatBook(store, config.start)
            made = Completions(config, book, Upstream(config.upstream, 1.0))
            turn = book.begin("c", FIRST)
            fresh = made.instructions(turn)
            assert fresh == gm_instructions(config.ruleset, config.start)
            made.prepare(turn.node.before, turn.before)
            assert made.instructions(turn) is made.prepared[turn.node.before]
            for number in range(PREPARED):
                made.prepare(f"other-{number}", turn.before)
            assert turn.node.before not in made.prepared and len(made.prepared) == PREPARED


class TestUpstreamConnection:
    def test_turns_share_one_upstream_connection(self, make_proxy: Callable[..., Proxy]) -> None:
        """Each streamed reply is read to its end after `[DONE]`, so the next request goes out
        on the same connection instead of waiting for a new one."""
        scripted = ScriptedUpstream()
        ports: list[int] = []

        async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope["type"] == "http":
                ports.append(scope["client"][1])
            await scripted.app(scope, receive, send)

        with BackgroundServer(app) as up:
            proxy = make_proxy(scripted, upstream_url=f"{up.url}/v1")
            first = ask(proxy, "conn", FIRST, stream=True)
            second = ask(proxy, "conn", second_turn(first), stream=True)
            third = [*second_turn(first), {"role": "assistant", "content": second}]
            ask(proxy, "conn", [*third, {"role": "user", "content": "On."}], stream=True)
        assert len(ports) == 3 and len(set(ports)) == 1

    def test_an_upstream_going_on_after_done(
        self, make_proxy: Callable[..., Proxy], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """What an upstream sends after `[DONE]` never reaches the caller, and waiting for its
        end stops after `DRAIN_SECONDS`: the caller's stream ends."""
        monkeypatch.setattr(completions, "DRAIN_SECONDS", 0.3)

        async def chatter() -> AsyncIterator[bytes]:
            delta = {"choices": [{"index": 0, "delta": {"content": "The gate holds."}}]}
            yield f"data: {json.dumps(delta)}\n\n".encode()
            yield b"data: [DONE]\n\n"
            for _ in range(100):
                yield f"data: {json.dumps(delta)}\n\n".encode()
                await asyncio.sleep(0.1)

        async def completions_route(request: Request) -> Response:
            return StreamingResponse(chatter(), media_type="text/event-stream")

        upstream = Starlette(
            routes=[Route("/v1/chat/completions", completions_route, methods=["POST"])]
        )
        with BackgroundServer(upstream) as up:
            proxy = make_proxy(upstream_url=f"{up.url}/v1")
            started = time.monotonic()
            with httpx.stream(
                "POST",
                f"{proxy.url}/chat/completions",
                json={"model": MODEL, "stream": True, "messages": FIRST},
                timeout=10,
            ) as response:
                lines = [line for line in response.iter_lines() if line.startswith("data: ")]
            took = time.monotonic() - started
        assert lines[-1] == "data: [DONE]" and len(lines) == 2
        assert "The gate holds." in lines[0] and took < 5
