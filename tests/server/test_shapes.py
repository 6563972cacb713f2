"""The API shapes' parts that need no server: where instructions go in each shape, routes,
upstream URLs and forwarded headers (SPEC §7.2)."""

from __future__ import annotations

import pytest

from gmtags.prompt import Instructions
from gmtags.server.bodies import BodyError
from gmtags.server.prefix import plain_route
from gmtags.server.shapes import SHAPES, Asked, Markers
from gmtags.server.shapes.anthropic import Messages
from gmtags.server.shapes.base import in_prompt
from gmtags.server.shapes.ollama import Generate
from gmtags.server.shapes.text import Text
from gmtags.server.upstream import Upstream, forwarded, roots

TOLD = Instructions(system="GM RULES", reminder="TURN NOTE")
MARKS = Markers("{{gmtags}}", "{{gmtags_turn}}")


class TestTextPrompt:
    def test_at_the_marker(self) -> None:
        prompt = "<s>System: {{gmtags}}\nStory.\nUser: hi\nGM:"
        assert (
            in_prompt(prompt, TOLD, MARKS)
            == "<s>System: GM RULES\n\nTURN NOTE\nStory.\nUser: hi\nGM:"
        )

    def test_without_a_marker_at_the_very_start(self) -> None:
        assert in_prompt("User: hi\nGM:", TOLD, MARKS) == "GM RULES\n\nTURN NOTE\n\nUser: hi\nGM:"

    def test_the_turn_marker_takes_the_reminder(self) -> None:
        prompt = "{{gmtags}}\nUser: hi\n{{gmtags_turn}}\nGM:"
        assert in_prompt(prompt, TOLD, MARKS) == "GM RULES\nUser: hi\nTURN NOTE\nGM:"

    def test_the_turn_marker_alone_puts_the_instructions_first(self) -> None:
        assert in_prompt("User: hi {{gmtags_turn}}", TOLD, MARKS) == (
            "GM RULES\n\nUser: hi TURN NOTE"
        )

    def test_a_marker_twice_takes_them_once(self) -> None:
        assert in_prompt("{{gmtags}} a {{gmtags}} b", TOLD, MARKS) == ("GM RULES\n\nTURN NOTE a  b")

    def test_another_marker(self) -> None:
        marks = Markers("<<GM>>", "<<TURN>>")
        assert in_prompt("a <<GM>> b {{gmtags}}", TOLD, marks) == (
            "a GM RULES\n\nTURN NOTE b {{gmtags}}"
        )


class TestShapes:
    def test_one_route_each(self) -> None:
        routes = [shape.route for shape in SHAPES]
        assert len(set(routes)) == len(routes)
        assert set(routes) == {
            "/v1/chat/completions",
            "/v1/completions",
            "/completion",
            "/api/generate",
            "/api/chat",
            "/v1/messages",
        }

    @pytest.mark.parametrize("prompt", [None, 3, ["a", "b"], {"text": "a"}])
    def test_a_prompt_must_be_one_text(self, prompt: object) -> None:
        with pytest.raises(BodyError):
            Text().read({"prompt": prompt})

    def test_a_prompt_in_a_list_of_one(self) -> None:
        assert Text().read({"prompt": ["Hi"]}).prompt == "Hi"

    def test_text_refuses_several_choices(self) -> None:
        with pytest.raises(BodyError, match="n must be 1"):
            Text().read({"prompt": "Hi", "n": 2})

    def test_anthropic_system_text(self) -> None:
        body = {"system": "Be dark.", "messages": [{"role": "user", "content": "Hi"}]}
        shape = Messages()
        sent = shape.instruct(body, shape.read(body), TOLD, MARKS)
        assert sent["system"] == "GM RULES\n\nBe dark."
        assert sent["messages"] == [{"role": "user", "content": "Hi\n\nTURN NOTE"}]

    def test_anthropic_system_blocks(self) -> None:
        block = {"type": "text", "text": "Be dark.", "cache_control": {"type": "ephemeral"}}
        content = [{"type": "text", "text": "Hi"}]
        body = {"system": [block], "messages": [{"role": "user", "content": content}]}
        shape = Messages()
        sent = shape.instruct(body, shape.read(body), TOLD, MARKS)
        assert sent["system"] == [{"type": "text", "text": "GM RULES"}, block]
        assert sent["messages"][0]["content"] == [*content, {"type": "text", "text": "TURN NOTE"}]
        assert body["messages"][0]["content"] == content  # the client's body is not changed

    def test_anthropic_without_system(self) -> None:
        body = {"messages": [{"role": "user", "content": "Hi"}]}
        shape = Messages()
        sent = shape.instruct(body, shape.read(body), TOLD, MARKS)
        assert sent["system"] == "GM RULES"

    def test_anthropic_errors_in_its_shape(self) -> None:
        assert Messages().error_body("no", "timeout") == {
            "type": "error",
            "error": {"type": "api_error", "message": "no"},
        }

    def test_ollama_generate_takes_system(self) -> None:
        body = {"model": "m", "prompt": "Hi", "system": "Be dark."}
        sent = Generate().instruct(body, Asked(prompt="Hi"), TOLD, MARKS)
        assert sent["system"] == "GM RULES\n\nBe dark." and sent["prompt"] == "Hi\n\nTURN NOTE"

    def test_ollama_raw_takes_the_prompt(self) -> None:
        """SillyTavern sends raw prompts, and Ollama then ignores `system`."""
        body = {"model": "m", "prompt": "{{gmtags}}\nHi", "raw": True}
        sent = Generate().instruct(body, Asked(prompt=body["prompt"]), TOLD, MARKS)
        assert sent["prompt"] == "GM RULES\n\nTURN NOTE\nHi" and "system" not in sent

    def test_ollama_streams_unless_told_not_to(self) -> None:
        assert Generate().streams({}) and not Generate().streams({"stream": False})
        assert not Text().streams({})


class TestRoutes:
    @pytest.mark.parametrize(
        ("path", "route"),
        [
            ("/v1/chat/completions", "/v1/chat/completions"),
            ("/chat/completions", "/v1/chat/completions"),
            ("//v1//chat/completions", "/v1/chat/completions"),
            ("/v1/v1/chat/completions", "/v1/chat/completions"),
            ("/completions", "/v1/completions"),
            ("/completion", "/completion"),
            ("/v1/completion", "/completion"),
            ("/messages", "/v1/messages"),
            ("/models", "/v1/models"),
            ("//api/generate", "/api/generate"),
            ("/v1/api/chat", "/api/chat"),
            ("/gmtags//chats", "/gmtags//chats"),
            ("/gmtags/chats//state", "/gmtags/chats//state"),
            ("/v1/unknown", "/v1/unknown"),
        ],
    )
    def test_plain_route(self, path: str, route: str) -> None:
        assert plain_route(path) == route

    @pytest.mark.parametrize(
        ("url", "api", "root"),
        [
            ("http://h:1/v1", "http://h:1/v1", "http://h:1"),
            ("http://h:1/v1/", "http://h:1/v1", "http://h:1"),
            ("http://h:1", "http://h:1/v1", "http://h:1"),
            (
                "https://openrouter.ai/api/v1",
                "https://openrouter.ai/api/v1",
                "https://openrouter.ai/api",
            ),
            (
                "https://g.example/v1beta/openai/",
                "https://g.example/v1beta/openai",
                "https://g.example/v1beta/openai",
            ),
        ],
    )
    def test_upstream_with_or_without_v1(self, url: str, api: str, root: str) -> None:
        assert roots(url) == (api, root)

    def test_upstream_routes(self) -> None:
        upstream = Upstream("http://h:1/v1", 1.0)
        assert upstream.url("/v1/messages") == "http://h:1/v1/messages"
        assert upstream.url("/completion") == "http://h:1/completion"
        assert upstream.url("/api/generate") == "http://h:1/api/generate"


HEADERS = [
    (b"Host", b"127.0.0.1:8787"),
    (b"Content-Length", b"12"),
    (b"Content-Type", b"application/json"),
    (b"Cookie", b"gmtags_token=t"),
    (b"Connection", b"keep-alive, X-Hop"),
    (b"X-Hop", b"1"),
    (b"Accept-Encoding", b"zstd"),
    (b"X-Gmtags-Chat", b"c"),
    (b"X-Gmtags-Token", b"secret"),
    (b"Authorization", b"Bearer sk-client"),
    (b"HTTP-Referer", b"https://sillytavern.app"),
    (b"X-Title", b"SillyTavern"),
    (b"anthropic-version", b"2023-06-01"),
    (b"anthropic-beta", b"interleaved-thinking-2025-05-14"),
    (b"OpenAI-Organization", b"org-1"),
    (b"User-Agent", b"SillyTavern/1.12"),
]


class TestHeaders:
    def test_passed_on_but_hop_by_hop_host_cookie_and_gmtags_own(self) -> None:
        sent = dict(forwarded(HEADERS, SHAPES[0], None))
        assert sent == {
            b"Authorization": b"Bearer sk-client",
            b"HTTP-Referer": b"https://sillytavern.app",
            b"X-Title": b"SillyTavern",
            b"anthropic-version": b"2023-06-01",
            b"anthropic-beta": b"interleaved-thinking-2025-05-14",
            b"OpenAI-Organization": b"org-1",
            b"User-Agent": b"SillyTavern/1.12",
        }

    def test_a_key_on_the_server_replaces_the_clients(self) -> None:
        sent = forwarded([*HEADERS, (b"x-api-key", b"token")], SHAPES[0], "sk-server")
        assert (b"authorization", b"Bearer sk-server") in sent
        assert all(name.lower() != b"x-api-key" for name, _ in sent)
        assert (b"Authorization", b"Bearer sk-client") not in sent

    def test_anthropic_takes_its_key_as_x_api_key(self) -> None:
        sent = forwarded([(b"x-api-key", b"token")], Messages(), "sk-ant")
        assert sent == [(b"x-api-key", b"sk-ant")]
