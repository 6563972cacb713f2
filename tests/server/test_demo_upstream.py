"""gmtags/server/demo_upstream.py and demo.py: the scripted upstream and `serve_demo`."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from typing import Any

import anthropic
import httpx
import ollama
import openai
import pytest
from anthropic.types import RawContentBlockDeltaEvent, SignatureDelta, TextDelta, ThinkingDelta
from pydantic import BaseModel
from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.types import Receive, Scope, Send

from gmtags import process
from gmtags.server import demo
from gmtags.server.background import BackgroundServer
from gmtags.server.demo_shapes import AnthropicMessages
from gmtags.server.demo_upstream import DEMO_REPLIES, MODEL, ScriptedUpstream

THOUGHT = "The bell first, then the gate."
USER: list[Any] = [{"role": "user", "content": "I push the gate."}]


class _Current:
    """The scripted upstream this test put behind the module's one server."""

    def __init__(self) -> None:
        self.app: Starlette | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert self.app is not None
        await self.app(scope, receive, send)


@pytest.fixture(scope="module")
def _server() -> Iterator[tuple[BackgroundServer, _Current]]:
    """One server for the module (starting one per test would take most of the time)."""
    current = _Current()
    with BackgroundServer(Starlette(routes=[Mount("", app=current)])) as server:
        yield server, current


@pytest.fixture
def serve(
    _server: tuple[BackgroundServer, _Current],
) -> Callable[..., tuple[ScriptedUpstream, str]]:
    """Serve a fresh `ScriptedUpstream(**options)`; give it and its base URL."""
    server, current = _server

    def start(**options: Any) -> tuple[ScriptedUpstream, str]:
        upstream = ScriptedUpstream(**options)
        current.app = upstream.app
        return upstream, server.url

    return start


def sse_data(body: str) -> list[dict[str, Any]]:
    """The JSON of each `data:` line of an SSE body."""
    lines = [line[6:] for line in body.split("\n") if line.startswith("data: ")]
    return [json.loads(line) for line in lines]


class TestScriptedUpstream:
    def test_one_reply_per_user_turn(self) -> None:
        """The reply is chosen by the number of user messages, round and round."""
        upstream = ScriptedUpstream()
        user = {"role": "user", "content": "x"}
        assert upstream.reply_for([user]) == DEMO_REPLIES[0]
        assert upstream.reply_for([user] * 2) == DEMO_REPLIES[1]
        assert upstream.reply_for([user] * (len(DEMO_REPLIES) + 1)) == DEMO_REPLIES[0]

    def test_stream_and_whole_give_the_same_text(self) -> None:
        """The streamed deltas join into the text the non-streaming reply carries."""
        body = {"model": MODEL, "messages": [{"role": "user", "content": "x"}]}
        with BackgroundServer(ScriptedUpstream().app) as server:
            url = f"{server.url}/v1/chat/completions"
            whole = httpx.post(url, json=body, timeout=10).json()
            streamed = httpx.post(url, json={**body, "stream": True}, timeout=10).text
        assert whole["choices"][0]["message"]["content"] == DEMO_REPLIES[0]
        assert streamed.endswith("data: [DONE]\n\n")

    def test_replies_play_the_demo_ruleset(self) -> None:
        """Every canned reply's tags apply to the demo ruleset and state without a refusal."""
        config = demo.demo_config("http://127.0.0.1:1/v1")
        snapshot = config.start
        for reply in DEMO_REPLIES:
            result = process(reply, config.ruleset, snapshot, seed=1)
            assert result.receipts
            assert all(receipt.result != "refused" for receipt in result.receipts)
            snapshot = result.snapshot

    def test_prompt_reply_follows_the_replies_the_prompt_holds(self) -> None:
        """A prompt holding k canned replies gets the (k+1)-th, round again; `prompt_script`
        answers instead when set."""
        upstream = ScriptedUpstream()
        assert upstream.reply_for_prompt("Story so far:") == DEMO_REPLIES[0]
        assert upstream.reply_for_prompt(f"...{DEMO_REPLIES[0]}\nYou:") == DEMO_REPLIES[1]
        assert upstream.reply_for_prompt("".join(DEMO_REPLIES)) == DEMO_REPLIES[0]
        assert ScriptedUpstream(prompt_script=str.upper).reply_for_prompt("ab") == "AB"

    def test_records_routes_and_headers(self, serve: Callable[..., Any]) -> None:
        """Each POST's path goes in `routes`; every request's headers, names lower-cased,
        in `headers` (GETs too, like `authorizations`)."""
        upstream, url = serve()
        sent = {"X-Title": "Ward test", "Authorization": "Bearer sk-1"}
        httpx.post(f"{url}/api/generate", json={"prompt": "x", "stream": False}, headers=sent)
        httpx.get(f"{url}/api/tags", headers={"anthropic-version": "2023-06-01"})
        assert upstream.routes == ["/api/generate"]
        assert upstream.headers[0]["x-title"] == "Ward test"
        assert upstream.headers[1]["anthropic-version"] == "2023-06-01"
        assert upstream.authorizations == ["Bearer sk-1", None]


class TestTextCompletions:
    def test_whole_and_streamed_through_the_openai_client(self, serve: Callable[..., Any]) -> None:
        """`/v1/completions` answers `client.completions.create` whole and streamed, the stream
        ending with an empty `stop` chunk and `[DONE]`; the next turn gets the next reply."""
        upstream, url = serve(chunk_size=9)
        client = openai.OpenAI(base_url=f"{url}/v1", api_key="sk-t", max_retries=0)
        whole = client.completions.create(model=MODEL, prompt="Once:")
        assert whole.object == "text_completion"
        assert whole.choices[0].text == DEMO_REPLIES[0]
        assert whole.choices[0].finish_reason == "stop"
        chunks = list(client.completions.create(model=MODEL, prompt=DEMO_REPLIES[0], stream=True))
        assert "".join(chunk.choices[0].text for chunk in chunks) == DEMO_REPLIES[1]
        assert [c.choices[0].finish_reason for c in chunks[-2:]] == [None, "stop"]
        assert chunks[-1].choices[0].text == ""
        assert upstream.routes == ["/v1/completions"] * 2

    def test_utf16_halves_go_escaped(self, serve: Callable[..., Any]) -> None:
        """With `utf16`, a character outside the BMP goes as two escaped halves in two chunks."""
        _, url = serve(replies=("a\U0001f600b",), utf16=True, chunk_size=2)
        body = {"model": MODEL, "prompt": "x", "stream": True}
        text = httpx.post(f"{url}/v1/completions", json=body).text
        assert '"text":"a\\ud83d"' in text and '"text":"\\ude00b"' in text


class TestLlamaCompletion:
    def test_whole_and_streamed(self, serve: Callable[..., Any]) -> None:
        """`/completion` answers with llama.cpp's fields; its stream's last event has
        `stop: true`, empty content and the timings, and no `[DONE]` follows."""
        _, url = serve()
        whole = httpx.post(f"{url}/completion", json={"prompt": "x", "n_predict": 400}).json()
        assert whole["content"] == DEMO_REPLIES[0]
        assert whole["stop"] is True and whole["stop_type"] == "eos"
        assert whole["generation_settings"]["n_predict"] == 400
        body = {"prompt": DEMO_REPLIES[0], "stream": True}
        streamed = httpx.post(f"{url}/completion", json=body).text
        assert "[DONE]" not in streamed
        events = sse_data(streamed)
        assert all(event["stop"] is False for event in events[:-1])
        assert "".join(event["content"] for event in events) == DEMO_REPLIES[1]
        last = events[-1]
        assert last["stop"] is True and last["content"] == "" and "timings" in last

    def test_failure_in_llama_cpp_shape(self, serve: Callable[..., Any]) -> None:
        """`fail_status` answers with llama.cpp's error object."""
        _, url = serve(fail_status=500)
        reply = httpx.post(f"{url}/completion", json={"prompt": "x"})
        assert reply.status_code == 500
        error = {"code": 500, "message": "scripted failure", "type": "server_error"}
        assert reply.json() == {"error": error}


class TestOllama:
    def test_generate_through_the_ollama_client(self, serve: Callable[..., Any]) -> None:
        """`/api/generate` answers `Client.generate` whole (with context) and streamed, thinking
        pieces first; the last line is `done` with its reason."""
        _, url = serve(reasoning=THOUGHT, chunk_size=8)
        client = ollama.Client(host=url)
        whole = client.generate(model=MODEL, prompt="Once:", stream=False)
        assert whole.response == DEMO_REPLIES[0] and whole.thinking == THOUGHT
        assert whole.done and whole.done_reason == "stop" and whole.context
        parts = list(client.generate(model=MODEL, prompt=DEMO_REPLIES[0], stream=True, raw=True))
        assert "".join(part.thinking or "" for part in parts) == THOUGHT
        assert "".join(part.response or "" for part in parts) == DEMO_REPLIES[1]
        assert parts[0].thinking and not parts[0].response
        assert parts[-1].done and parts[-1].done_reason == "stop" and parts[-1].response == ""
        assert parts[-1].context is None  # a raw prompt gets no context back
        assert not any(part.done for part in parts[:-1])

    def test_stream_absent_means_ndjson(self, serve: Callable[..., Any]) -> None:
        """A request without `stream` streams, as Ollama does: NDJSON, `<>&` escaped as Go does."""
        _, url = serve(replies=("a <b> & c",))
        reply = httpx.post(f"{url}/api/generate", json={"model": MODEL, "prompt": "x"})
        assert reply.headers["content-type"] == "application/x-ndjson"
        lines = reply.text.splitlines()
        assert all(json.loads(line)["model"] == MODEL for line in lines)
        assert "\\u003cb\\u003e \\u0026" in reply.text

    def test_chat_and_list_through_the_ollama_client(self, serve: Callable[..., Any]) -> None:
        """`/api/chat` answers `Client.chat` whole and streamed (`message.thinking`, then
        `message.content`); `/api/tags` answers `Client.list`."""
        _, url = serve(reasoning=THOUGHT)
        client = ollama.Client(host=url)
        whole = client.chat(model=MODEL, messages=USER, stream=False)
        assert whole.message.content == DEMO_REPLIES[0]
        assert whole.message.thinking == THOUGHT and whole.done_reason == "stop"
        parts = list(client.chat(model=MODEL, messages=USER * 2, stream=True))
        assert "".join(part.message.thinking or "" for part in parts) == THOUGHT
        assert "".join(part.message.content or "" for part in parts) == DEMO_REPLIES[1]
        assert parts[-1].done and parts[-1].message.content == ""
        assert [model.model for model in client.list().models] == [f"{MODEL}:latest"]
        assert httpx.get(f"{url}/api/version").json() == {"version": "0.6.0"}

    def test_failure_and_cut(self, serve: Callable[..., Any]) -> None:
        """`fail_status` answers with Ollama's `{"error": ...}`; `cut_after` drops the stream."""
        _, url = serve(fail_status=503)
        with pytest.raises(ollama.ResponseError) as raised:
            ollama.Client(host=url).chat(model=MODEL, messages=USER, stream=False)
        assert raised.value.status_code == 503 and raised.value.error == "scripted failure"
        _, url = serve(cut_after=2)
        with pytest.raises(httpx.RemoteProtocolError):
            list(ollama.Client(host=url).generate(model=MODEL, prompt="x", stream=True))


class TestAnthropicMessages:
    def test_stream_events_through_the_anthropic_client(self, serve: Callable[..., Any]) -> None:
        """`/v1/messages` streams Anthropic's events: a thinking block closed by its signature,
        a ping, then the text block's `text_delta`s, `message_delta` and `message_stop`."""
        _, url = serve(reasoning=THOUGHT, chunk_size=10)
        client = anthropic.Anthropic(base_url=url, api_key="sk-ant", max_retries=0)
        stream = client.messages.create(model=MODEL, max_tokens=512, messages=USER, stream=True)
        events = [event for event in stream if isinstance(event, BaseModel)]
        kinds = [getattr(event, "type", "") for event in events]
        assert kinds[:2] == ["message_start", "content_block_start"]
        assert kinds[-4:] == [
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop",
        ]
        deltas = [event.delta for event in events if isinstance(event, RawContentBlockDeltaEvent)]
        text = "".join(delta.text for delta in deltas if isinstance(delta, TextDelta))
        assert text == DEMO_REPLIES[0]
        thought = "".join(delta.thinking for delta in deltas if isinstance(delta, ThinkingDelta))
        assert thought == THOUGHT
        assert [type(delta) for delta in deltas].count(SignatureDelta) == 1

    def test_helper_stream_and_whole(self, serve: Callable[..., Any]) -> None:
        """`client.messages.stream(...).get_final_message()` and a plain create both give the
        thinking block (with its signature) and the text."""
        upstream, url = serve(reasoning=THOUGHT)
        client = anthropic.Anthropic(base_url=url, api_key="sk-ant", max_retries=0)
        with client.messages.stream(model=MODEL, max_tokens=512, messages=USER) as stream:
            final = stream.get_final_message()
        whole = client.messages.create(model=MODEL, max_tokens=512, messages=USER)
        for message in (final, whole):
            thinking, text = message.content
            assert thinking.type == "thinking" and thinking.thinking == THOUGHT
            assert thinking.signature == AnthropicMessages.SIGNATURE
            assert text.type == "text" and text.text == DEMO_REPLIES[0]
            assert message.stop_reason == "end_turn"
        assert "anthropic-version" in upstream.headers[-1]

    def test_failure_in_anthropic_shape(self, serve: Callable[..., Any]) -> None:
        """`fail_status` answers with Anthropic's error object, which the client reads."""
        _, url = serve(fail_status=500)
        client = anthropic.Anthropic(base_url=url, api_key="sk-ant", max_retries=0)
        with pytest.raises(anthropic.InternalServerError) as raised:
            client.messages.create(model=MODEL, max_tokens=5, messages=USER)
        error = {"type": "api_error", "message": "scripted failure"}
        assert raised.value.body == {"type": "error", "error": error}


class TestServeDemo:
    def test_serves_the_proxy_against_the_scripted_upstream(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """`serve_demo` runs the proxy app with the demo ruleset in front of a live upstream."""
        replies: list[Any] = []

        def run(app: Any, host: str, port: int, log_level: str, http: Any) -> None:
            with BackgroundServer(app) as proxy:
                body = {"model": MODEL, "messages": [{"role": "user", "content": "x"}]}
                replies.append(
                    httpx.post(f"{proxy.url}/v1/chat/completions", json=body, timeout=10).json()
                )

        monkeypatch.setattr("uvicorn.run", run)
        worker = threading.Thread(target=demo.serve_demo, args=("127.0.0.1", 0))
        worker.start()
        worker.join(30)
        assert not worker.is_alive()
        assert 'result="' in replies[0]["choices"][0]["message"]["content"]
