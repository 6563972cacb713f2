"""Every API shape through the proxy (SPEC §7.2), spoken by the real clients: the official
`openai` (text completions), `anthropic` and `ollama` Python clients, and SillyTavern 1.12.6's
Text Completion bodies as recorded (`fixtures/clients/`), each against a scripted upstream
speaking that shape. Each shows: receipts in the reply, streamed and whole; the instructions
where the shape takes them; the second turn placed after the first; a swipe a sibling;
reasoning untouched."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anthropic
import httpx
import ollama
import openai
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gmtags.prompt import gm_instructions
from gmtags.server.background import BackgroundServer
from gmtags.server.demo_upstream import DEMO_REPLIES, MODEL, ScriptedUpstream
from tests.server.conftest import Proxy

CLIENTS = Path(__file__).resolve().parents[2] / "fixtures" / "clients"
THINKING = "The guard is tired; the lock is old."
RECEIPT = 'result="'


def recorded(name: str) -> dict[str, Any]:
    """A request body SillyTavern 1.12.6 sent its Text Completion backend."""
    found: dict[str, Any] = json.loads((CLIENTS / "sillytavern-textgen" / name).read_text())
    return found


def nodes(proxy: Proxy, chat: str) -> list[dict[str, Any]]:
    answer = httpx.get(f"{proxy.server.url}/gmtags/api/chats/{chat}", timeout=10)
    assert answer.status_code == 200, answer.text
    found: list[dict[str, Any]] = answer.json()["nodes"]
    return found


def system_part(proxy: Proxy) -> str:
    return gm_instructions(proxy.config.ruleset, proxy.config.start).system


def sse_data(text: str) -> list[dict[str, Any]]:
    return [
        json.loads(line[5:])
        for line in text.splitlines()
        if line.startswith("data:") and line[5:].strip() != "[DONE]"
    ]


def placed_in_turns(
    proxy: Proxy, chat: str, ask: Callable[[str | None], str], first_prompt_reply: str
) -> None:
    """Turn two goes on from turn one's node; asking turn two again is its sibling."""
    (first,) = nodes(proxy, chat)
    second_reply = ask(first_prompt_reply)
    assert RECEIPT in second_reply
    ask(first_prompt_reply)  # a swipe
    found = nodes(proxy, chat)
    assert len(found) == 3
    assert [node["parent"] for node in found[1:]] == [first["id"], first["id"]]


class TestTextCompletions:
    """`POST /v1/completions`: the official openai client and SillyTavern's KoboldCpp,
    TabbyAPI and text-generation-webui bodies."""

    @pytest.mark.parametrize("stream", [False, True])
    def test_openai_client(self, make_proxy: Callable[..., Proxy], stream: bool) -> None:
        proxy = make_proxy()
        client = openai.OpenAI(
            base_url=proxy.url,
            api_key="sk-test",
            max_retries=0,
            default_headers={"X-Gmtags-Chat": "text"},
        )
        story = "<|im_start|>system\nA dark road. {{gmtags}}<|im_end|>\n"

        def ask(before: str | None) -> str:
            prompt = story + (before or "") + "<|im_start|>user\nI push.<|im_end|>\n"
            prompt += "<|im_start|>assistant\n"
            if stream:
                pieces = client.completions.create(model=MODEL, prompt=prompt, stream=True)
                return "".join(chunk.choices[0].text for chunk in pieces if chunk.choices)
            return client.completions.create(model=MODEL, prompt=prompt).choices[0].text

        reply = ask(None)
        assert RECEIPT in reply and "[clock:" in reply
        sent = proxy.upstream.requests[-1]["prompt"]
        assert sent.startswith(f"<|im_start|>system\nA dark road. {system_part(proxy)}")
        assert "{{gmtags}}" not in sent
        earlier = f"<|im_start|>user\nI push.<|im_end|>\n<|im_start|>assistant\n{reply}<|im_end|>\n"
        placed_in_turns(proxy, "text", ask, earlier)

    @pytest.mark.parametrize("source", ["koboldcpp", "tabby", "ooba"])
    def test_sillytavern_bodies(self, make_proxy: Callable[..., Proxy], source: str) -> None:
        """The recorded body, posted where SillyTavern posts it (`/c/{chat}` before the route)."""
        proxy = make_proxy()
        sent = recorded(f"{source}.json")
        path = sent["path"].replace("/c/Warden-7", f"/c/st-{source}")
        answer = httpx.post(proxy.server.url + path, json=sent["body"], timeout=20)
        assert answer.status_code == 200, answer.text
        assert answer.headers["x-gmtags-chat"] == f"st-{source}"
        text = "".join(chunk["choices"][0]["text"] for chunk in sse_data(answer.text))
        assert RECEIPT in text
        assert system_part(proxy) in proxy.upstream.requests[-1]["prompt"]
        assert proxy.upstream.routes[-1] == "/v1/completions"


class TestLlamaCpp:
    """`POST /completion`: SillyTavern's llama.cpp bodies, streamed and whole."""

    @pytest.mark.parametrize("name", ["llamacpp.json", "llamacpp-nostream.json"])
    def test_sillytavern_bodies(self, make_proxy: Callable[..., Proxy], name: str) -> None:
        proxy = make_proxy()
        sent = recorded(name)
        body = sent["body"]
        url = proxy.server.url + "/c/st-llama/completion"

        def ask(before: str | None) -> str:
            prompt = body["prompt"] if before is None else body["prompt"] + before
            answer = httpx.post(url, json={**body, "prompt": prompt}, timeout=20)
            assert answer.status_code == 200, answer.text
            if body.get("stream"):
                assert "[DONE]" not in answer.text
                events = sse_data(answer.text)
                assert events[-1]["stop"] is True
                return "".join(event["content"] for event in events)
            reply: str = answer.json()["content"]
            return reply

        reply = ask(None)
        assert RECEIPT in reply
        told = proxy.upstream.requests[-1]["prompt"]
        assert "{{gmtags}}" not in told and system_part(proxy) in told
        assert told.index(system_part(proxy)) < told.index("<|im_start|>user")
        earlier = f" {reply}<|im_end|>\n<|im_start|>user\nMara: Again.<|im_end|>\n"
        placed_in_turns(proxy, "st-llama", ask, earlier + "<|im_start|>assistant\nWarden:")

    def test_the_tokenize_call_passes_through(self, make_proxy: Callable[..., Proxy]) -> None:
        """SillyTavern counts tokens on its llama.cpp backend: passed on, no chat made."""
        proxy = make_proxy()
        answer = httpx.post(
            proxy.server.url + "/c/st-llama/tokenize", json={"content": "Hi"}, timeout=10
        )
        assert answer.status_code == 404  # the scripted upstream has no tokenizer
        assert httpx.get(f"{proxy.server.url}/gmtags/api/chats").json() == []


class TestOllama:
    """`POST /api/generate` and `/api/chat` with the official ollama client, and SillyTavern's
    Ollama body (raw)."""

    @pytest.mark.parametrize("stream", [False, True])
    def test_generate_raw(self, make_proxy: Callable[..., Proxy], stream: bool) -> None:
        proxy = make_proxy(ScriptedUpstream(reasoning=THINKING))
        client = ollama.Client(host=proxy.server.url, headers={"X-Gmtags-Chat": "gen"})

        def ask(before: str | None) -> str:
            prompt = "[INST] {{gmtags}} I push. [/INST]" + (before or "")
            if stream:
                parts = list(client.generate(model=MODEL, prompt=prompt, raw=True, stream=True))
                thought = "".join(part.thinking or "" for part in parts)
                assert thought == THINKING  # reasoning untouched
                return "".join(part.response for part in parts)
            whole = client.generate(model=MODEL, prompt=prompt, raw=True)
            assert whole.thinking == THINKING
            return whole.response

        reply = ask(None)
        assert RECEIPT in reply
        told = proxy.upstream.requests[-1]
        assert told["prompt"].startswith(f"[INST] {system_part(proxy)}")
        assert "system" not in told  # Ollama refuses system beside raw
        placed_in_turns(proxy, "gen", ask, f" {reply}</s>[INST] Again. [/INST]")

    def test_generate_with_system(self, make_proxy: Callable[..., Proxy]) -> None:
        proxy = make_proxy()
        client = ollama.Client(host=proxy.server.url)
        reply = client.generate(model=MODEL, prompt="I push.", system="Be dark.", stream=False)
        assert RECEIPT in reply.response
        told = proxy.upstream.requests[-1]
        assert told["system"] == f"{system_part(proxy)}\n\nBe dark."
        assert told["prompt"].startswith("I push.\n\n")

    @pytest.mark.parametrize("stream", [False, True])
    def test_chat(self, make_proxy: Callable[..., Proxy], stream: bool) -> None:
        proxy = make_proxy(ScriptedUpstream(reasoning=THINKING))
        client = ollama.Client(host=proxy.server.url, headers={"X-Gmtags-Chat": "och"})
        opening = [{"role": "system", "content": "Be dark."}, {"role": "user", "content": "Go."}]

        def ask(before: str | None) -> str:
            messages = list(opening)
            if before is not None:
                messages += [
                    {"role": "assistant", "content": before},
                    {"role": "user", "content": "Again."},
                ]
            if stream:
                parts = list(client.chat(model=MODEL, messages=messages, stream=True))
                assert "".join(part.message.thinking or "" for part in parts) == THINKING
                return "".join(part.message.content or "" for part in parts)
            whole = client.chat(model=MODEL, messages=messages)
            assert whole.message.thinking == THINKING
            return whole.message.content or ""

        reply = ask(None)
        assert RECEIPT in reply
        told = proxy.upstream.requests[-1]["messages"]
        assert told[0]["content"].startswith(system_part(proxy))
        placed_in_turns(proxy, "och", ask, reply)

    def test_sillytavern_body(self, make_proxy: Callable[..., Proxy]) -> None:
        proxy = make_proxy()
        sent = recorded("ollama.json")
        answer = httpx.post(
            proxy.server.url + "/c/st-ollama/api/generate", json=sent["body"], timeout=20
        )
        assert answer.status_code == 200, answer.text
        lines = [json.loads(line) for line in answer.text.splitlines() if line.strip()]
        assert lines[-1]["done"] is True
        assert RECEIPT in "".join(line["response"] for line in lines)

    def test_model_list_passes_through(self, make_proxy: Callable[..., Proxy]) -> None:
        proxy = make_proxy()
        listed = ollama.Client(host=proxy.server.url).list()
        assert [model.model for model in listed.models] == [f"{MODEL}:latest"]


class TestAnthropic:
    """`POST /v1/messages` with the official anthropic client: thinking untouched."""

    def client(self, proxy: Proxy, chat: str) -> anthropic.Anthropic:
        return anthropic.Anthropic(
            base_url=proxy.server.url,
            api_key="sk-ant-test",
            max_retries=0,
            default_headers={"X-Gmtags-Chat": chat},
        )

    @pytest.mark.parametrize("stream", [False, True])
    def test_messages(self, make_proxy: Callable[..., Proxy], stream: bool) -> None:
        proxy = make_proxy(ScriptedUpstream(reasoning=THINKING))
        client = self.client(proxy, "claude")

        def ask(before: str | None) -> str:
            messages: list[Any] = [{"role": "user", "content": "I push."}]
            if before is not None:
                messages += [
                    {"role": "assistant", "content": before},
                    {"role": "user", "content": "Again."},
                ]
            asked: dict[str, Any] = {
                "model": MODEL,
                "max_tokens": 500,
                "system": "Be dark.",
                "messages": messages,
            }
            if stream:
                with client.messages.stream(**asked) as events:
                    message = events.get_final_message()
            else:
                message = client.messages.create(**asked)
            thinking = [block for block in message.content if block.type == "thinking"]
            assert [block.thinking for block in thinking] == [THINKING]
            return "".join(block.text for block in message.content if block.type == "text")

        reply = ask(None)
        assert RECEIPT in reply
        told = proxy.upstream.requests[-1]
        assert told["system"] == f"{system_part(proxy)}\n\nBe dark."
        assert told["messages"][-1]["content"].startswith("I push.\n\n")
        placed_in_turns(proxy, "claude", ask, reply)

    def test_an_error_in_anthropics_shape(self, make_proxy: Callable[..., Proxy]) -> None:
        proxy = make_proxy(ScriptedUpstream(fail_status=529))
        with pytest.raises(anthropic.APIStatusError) as raised:
            self.client(proxy, "down").messages.create(
                model=MODEL, max_tokens=10, messages=[{"role": "user", "content": "Hi"}]
            )
        assert raised.value.status_code == 529
        assert raised.value.body["error"]["type"] == "overloaded_error"  # type: ignore[index]

    def test_a_refusal_in_anthropics_shape(self, make_proxy: Callable[..., Proxy]) -> None:
        proxy = make_proxy()
        answer = httpx.post(f"{proxy.server.url}/v1/messages", json={"messages": []})
        assert answer.status_code == 400
        assert answer.json()["type"] == "error"
        assert answer.json()["error"]["type"] == "invalid_request_error"


class TestRoutesAndHeaders:
    def test_a_base_url_without_v1(self, make_proxy: Callable[..., Proxy]) -> None:
        proxy = make_proxy()
        client = openai.OpenAI(base_url=proxy.server.url, api_key="k", max_retries=0)
        reply = client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "Go."}]
        )
        assert RECEIPT in (reply.choices[0].message.content or "")

    def test_doubled_slashes(self, make_proxy: Callable[..., Proxy]) -> None:
        proxy = make_proxy()
        answer = httpx.post(
            f"{proxy.server.url}//v1//chat/completions",
            json={"model": MODEL, "messages": [{"role": "user", "content": "Go."}]},
        )
        assert answer.status_code == 200 and proxy.upstream.routes == ["/v1/chat/completions"]

    def test_headers_forwarded_but_gmtags_own(self, make_proxy: Callable[..., Proxy]) -> None:
        proxy = make_proxy()
        client = openai.OpenAI(
            base_url=proxy.url,
            api_key="sk-client",
            max_retries=0,
            default_headers={
                "HTTP-Referer": "https://sillytavern.app",
                "X-Title": "SillyTavern",
                "X-Gmtags-Chat": "h",
                "Cookie": "a=b",
            },
        )
        client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "Go"}])
        seen = proxy.upstream.headers[-1]
        assert (
            seen["http-referer"] == "https://sillytavern.app" and seen["x-title"] == "SillyTavern"
        )
        assert seen["authorization"] == "Bearer sk-client"
        assert not any(name.startswith("x-gmtags") for name in seen) and "cookie" not in seen

    def test_open_webui_names_its_chat(self, make_proxy: Callable[..., Proxy]) -> None:
        proxy = make_proxy()
        answer = httpx.post(
            f"{proxy.url}/chat/completions",
            headers={"X-OpenWebUI-Chat-Id": "owui-42"},
            json={"model": MODEL, "messages": [{"role": "user", "content": "Go."}]},
        )
        assert answer.headers["x-gmtags-chat"] == "owui-42" and len(nodes(proxy, "owui-42")) == 1

    @pytest.mark.parametrize("task", ["title", "tags", "follow_ups", "query", "autocomplete"])
    def test_open_webui_tasks_pass_through(
        self, make_proxy: Callable[..., Proxy], task: str
    ) -> None:
        """A task gets no instructions, its reply is not rewritten, and no chat is made."""
        proxy = make_proxy(ScriptedUpstream(replies=['{"title": "[clock: name="x" tick="1"]"}']))
        sent = json.loads((CLIENTS / "openwebui" / f"{task}.json").read_text())["body"]
        answer = httpx.post(
            f"{proxy.url}/chat/completions",
            headers={"X-OpenWebUI-Chat-Id": "owui-7"},
            json={**sent, "stream": False},
        )
        assert answer.status_code == 200, answer.text
        assert answer.json()["choices"][0]["message"]["content"] == (
            '{"title": "[clock: name="x" tick="1"]"}'
        )
        assert proxy.upstream.requests[-1]["messages"] == sent["messages"]
        assert httpx.get(f"{proxy.server.url}/gmtags/api/chats").json() == []


class TestServerSideKey:
    """`--upstream-key-env`: gmtags sets the upstream's key; the client's key field carries the
    token (SPEC §7.2)."""

    def test_openai_bearer_token(self, make_proxy: Callable[..., Proxy]) -> None:
        proxy = make_proxy(token="T0k3n", upstream_key="sk-server")
        good = openai.OpenAI(base_url=proxy.url, api_key="T0k3n", max_retries=0)
        good.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "Go"}])
        assert proxy.upstream.authorizations[-1] == "Bearer sk-server"
        bad = openai.OpenAI(base_url=proxy.url, api_key="wrong", max_retries=0)
        with pytest.raises(openai.AuthenticationError):
            bad.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "Go"}])

    def test_anthropic_key_field(self, make_proxy: Callable[..., Proxy]) -> None:
        proxy = make_proxy(token="T0k3n", upstream_key="sk-ant-server")
        client = anthropic.Anthropic(base_url=proxy.server.url, api_key="T0k3n", max_retries=0)
        client.messages.create(
            model=MODEL, max_tokens=10, messages=[{"role": "user", "content": "Hi"}]
        )
        seen = proxy.upstream.headers[-1]
        assert seen["x-api-key"] == "sk-ant-server" and "authorization" not in seen

    def test_without_a_server_key_the_bearer_is_the_api_key(
        self, make_proxy: Callable[..., Proxy]
    ) -> None:
        """Only the gmtags header opens a server with a token and no key of its own."""
        proxy = make_proxy(token="T0k3n")
        client = openai.OpenAI(base_url=proxy.url, api_key="T0k3n", max_retries=0)
        with pytest.raises(openai.AuthenticationError):
            client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "x"}])


def test_demo_replies_have_tags() -> None:
    """The scripted upstream's replies are what these tests rely on."""
    assert all("[" in reply for reply in DEMO_REPLIES)


def _canned(route: str, media_type: str, body: bytes) -> Starlette:
    """An upstream answering `route` with a 200 of `media_type` holding `body`."""

    async def answer(request: Request) -> Response:
        await request.body()
        return Response(body, media_type=media_type)

    return Starlette(routes=[Route(route, answer, methods=["POST"])])


class TestWrongShapes:
    """A 200 in the wrong shape is a 502 in the client's own shape, nothing stored."""

    def test_ollama_streaming_answered_with_sse(self, make_proxy: Callable[..., Proxy]) -> None:
        upstream = BackgroundServer(
            _canned("/api/generate", "text/event-stream", b'data: {"a": 1}\n\n')
        ).start()
        try:
            proxy = make_proxy(upstream_url=upstream.url)
            answer = httpx.post(
                f"{proxy.server.url}/api/generate", json={"model": MODEL, "prompt": "Hi"}
            )
        finally:
            upstream.stop()
        assert answer.status_code == 502
        assert "JSON lines" in answer.json()["error"]
        assert httpx.get(f"{proxy.server.url}/gmtags/api/chats").json() == []

    def test_anthropic_whole_reply_without_content(self, make_proxy: Callable[..., Proxy]) -> None:
        upstream = BackgroundServer(
            _canned("/v1/messages", "application/json", b'{"type": "message"}')
        ).start()
        try:
            proxy = make_proxy(upstream_url=upstream.url)
            answer = httpx.post(
                f"{proxy.server.url}/v1/messages",
                json={
                    "model": MODEL,
                    "max_tokens": 5,
                    "messages": [{"role": "user", "content": "Hi"}],
                },
            )
        finally:
            upstream.stop()
        assert answer.status_code == 502
        assert answer.json()["type"] == "error" and answer.json()["error"]["type"] == "api_error"


def test_cards_in_a_text_prompt_go_upstream_as_receipts(make_proxy: Callable[..., Proxy]) -> None:
    """`--display cards` with Text Completion: the client gets cards, and the next prompt,
    holding them, reaches the model with the receipts they show."""
    proxy = make_proxy(display="cards")
    url = f"{proxy.server.url}/c/cards/v1/completions"
    first = "<|im_start|>user\nI push.<|im_end|>\n<|im_start|>assistant\n"
    reply = httpx.post(url, json={"model": MODEL, "prompt": first}, timeout=20).json()
    shown = reply["choices"][0]["text"]
    assert "🎲" in shown and RECEIPT not in shown
    second = f"{first}{shown}<|im_end|>\n<|im_start|>user\nAgain.<|im_end|>\n"
    httpx.post(url, json={"model": MODEL, "prompt": second}, timeout=20)
    told = proxy.upstream.requests[-1]["prompt"].split("<|im_start|>user\nI push.")[1]
    found = nodes(proxy, "cards")
    assert "🎲" not in told and found[0]["receipts"]
    assert all(receipt in told for receipt in found[0]["receipts"])
    assert found[1]["parent"] == found[0]["id"] and found[1]["kind"] == "reply"
