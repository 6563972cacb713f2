"""tests/server/replayed_client.py: the SillyTavern simulator against a recording upstream."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from gmtags.server.background import BackgroundServer
from tests.server.replayed_client import (
    CONTINUE_NUDGE_PROMPT,
    IMPERSONATION_PROMPT,
    NEW_CHAT_PROMPT,
    PROMPT_PLACEHOLDER,
    ReplayedClient,
    ReplayError,
    count_tokens,
    merge_messages,
)

MAIN = "Write Gamemaster's next reply in a fictional chat between Gamemaster and Player."
DESCRIPTION = "Gamemaster runs a tabletop adventure for Player and keeps to its rules."
GREETING = "Welcome, Player. The road to the old mill lies ahead. What do you do?"
UPSTREAM_CHAT = "upstream-chat"


@dataclass
class Reply:
    """What the recording upstream answers: one text a choice, or an error."""

    choices: tuple[str, ...] = ("The mill wheel turns slowly.",)
    status: int = 200
    error: str = ""
    events: list[str] = field(default_factory=list)  # extra raw SSE data lines before [DONE]


class Recorder:
    """An OpenAI-compatible upstream that records every request and answers as it is told."""

    def __init__(self) -> None:
        self.app = Starlette(
            routes=[Route("/v1/chat/completions", self.completions, methods=["POST"])]
        )
        self.url = ""
        self.reset()

    def reset(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.raw: list[bytes] = []
        self.headers: list[dict[str, str]] = []
        self.replies: list[Reply] = []

    def answer(self, *replies: Reply | str) -> None:
        self.replies += [Reply((r,)) if isinstance(r, str) else r for r in replies]

    async def completions(self, request: Request) -> Response:
        self.raw.append(await request.body())
        body = json.loads(self.raw[-1])
        self.bodies.append(body)
        self.headers.append(dict(request.headers))
        reply = self.replies.pop(0) if self.replies else Reply()
        headers = {"X-Gmtags-Chat": UPSTREAM_CHAT}
        if reply.status != 200:
            error = {"message": reply.error, "type": "invalid_request_error", "code": None}
            return JSONResponse({"error": error}, status_code=reply.status, headers=headers)
        if body.get("stream"):
            events = self._events(reply)
            return StreamingResponse(events, media_type="text/event-stream", headers=headers)
        choices = [
            {"index": i, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
            for i, text in enumerate(reply.choices)
        ]
        return JSONResponse({"object": "chat.completion", "choices": choices}, headers=headers)

    async def _events(self, reply: Reply) -> AsyncIterator[str]:
        for index, text in enumerate(reply.choices):
            for start in range(0, len(text), 7):
                delta = {"index": index, "delta": {"content": text[start : start + 7]}}
                yield f"data: {json.dumps({'choices': [delta]})}\n\n"
        for event in reply.events:
            yield f"data: {event}\n\n"
        yield "data: [DONE]\n\n"


@pytest.fixture(scope="module")
def served() -> Iterator[Recorder]:
    """One recording upstream for the module."""
    recorder = Recorder()
    server = BackgroundServer(recorder.app).start()
    recorder.url = f"{server.url}/v1"
    yield recorder
    server.stop()


@pytest.fixture
def upstream(served: Recorder) -> Recorder:
    """The recording upstream, emptied for this test."""
    served.reset()
    return served


@pytest.fixture
def tavern(upstream: Recorder) -> Iterator[Callable[..., ReplayedClient]]:
    """Make simulators against the recording upstream; they are closed after the test."""
    made: list[ReplayedClient] = []

    def make(**settings: Any) -> ReplayedClient:
        made.append(ReplayedClient(upstream.url, **settings))
        return made[-1]

    yield make
    for simulator in made:
        simulator.close()


def system(content: str) -> dict[str, str]:
    return {"role": "system", "content": content}


def user(content: str) -> dict[str, str]:
    return {"role": "user", "content": content}


def assistant(content: str) -> dict[str, str]:
    return {"role": "assistant", "content": content}


def nudge(partial: str) -> dict[str, str]:
    return system(CONTINUE_NUDGE_PROMPT.replace("{{lastChatMessage}}", partial))


HEAD = [system(MAIN), system(DESCRIPTION), system(NEW_CHAT_PROMPT)]


class TestRequest:
    def test_first_turn_body(
        self, tavern: Callable[..., ReplayedClient], upstream: Recorder
    ) -> None:
        """A turn forwards the default prompt order and openai.js's default sampling fields."""
        st = tavern()
        st.send("I walk to the mill.")
        body = upstream.bodies[0]
        assert body["messages"] == [*HEAD, assistant(GREETING), user("I walk to the mill.")]
        assert list(body) == [
            "messages",
            "model",
            "temperature",
            "max_tokens",
            "stream",
            "presence_penalty",
            "frequency_penalty",
            "top_p",
            "logit_bias",
        ]
        assert body["stream"] is True and body["max_tokens"] == 300 and body["logit_bias"] == {}
        assert b'"temperature":1,' in upstream.raw[0] and b'"top_p":1,' in upstream.raw[0]
        assert st.requests == [body]

    def test_headers_without_key(
        self, tavern: Callable[..., ReplayedClient], upstream: Recorder
    ) -> None:
        """With no key stored the Node server sends `Bearer undefined`, plus the YAML headers."""
        st = tavern(header_chat="campaign-1")
        st.send("Hello.")
        headers = upstream.headers[0]
        assert headers["authorization"] == "Bearer undefined"
        assert headers["x-gmtags-chat"] == "campaign-1"
        assert headers["content-type"] == "application/json"
        assert headers["user-agent"] == "node-fetch"

    def test_headers_with_key(
        self, tavern: Callable[..., ReplayedClient], upstream: Recorder
    ) -> None:
        """A stored custom key goes as `Authorization: Bearer <key>` on quiet requests too."""
        st = tavern(api_key="sk-test", header_chat="campaign-1")
        st.quiet("Summarize the story.")
        assert upstream.headers[0]["authorization"] == "Bearer sk-test"
        assert upstream.headers[0]["x-gmtags-chat"] == "campaign-1"

    def test_response_headers_kept(self, tavern: Callable[..., ReplayedClient]) -> None:
        """The reply's headers are kept, so a test can read the proxy's `X-Gmtags-Chat`."""
        st = tavern()
        st.send("Hello.")
        assert st.last_headers is not None and st.last_headers["X-Gmtags-Chat"] == UPSTREAM_CHAT

    def test_empty_prompts_not_sent(
        self, tavern: Callable[..., ReplayedClient], upstream: Recorder
    ) -> None:
        """Empty prompts are left out and the card's prompts keep the default prompt order."""
        st = tavern(
            main_prompt="",
            description="",
            persona="A tired knight.",
            personality="stern",
            scenario="A storm.",
            post_history="Stay in character.",
        )
        st.send("Hi.")
        assert upstream.bodies[0]["messages"] == [
            system("A tired knight."),
            system("[Gamemaster's personality: stern]"),
            system("[Circumstances and context of the dialogue: A storm.]"),
            system(NEW_CHAT_PROMPT),
            assistant(GREETING),
            user("Hi."),
            system("Stay in character."),
        ]

    def test_budget_fills_newest_first(
        self, tavern: Callable[..., ReplayedClient], upstream: Recorder
    ) -> None:
        """History is filled newest first while the budget lasts, so the greeting drops first."""
        st = tavern(budget=560, stream=False)
        for turn in range(8):
            upstream.answer(f"Reply {turn}: " + "the wind howls " * 8)
            st.send(f"Turn {turn}: " + "I press on " * 8)
        first, last = upstream.bodies[0]["messages"], upstream.bodies[-1]["messages"]
        assert assistant(GREETING) in first and assistant(GREETING) not in last
        assert last[:3] == HEAD
        history = last[3:]
        sent = [st._prompt(m) for m in st.chat[:-1]]  # what the last request could hold
        assert history == sent[len(sent) - len(history) :] and history[-1]["role"] == "user"
        room = 560 - 300 - 3 - sum(count_tokens(m) for m in HEAD)
        assert sum(count_tokens(m) for m in history) <= room
        older = sent[len(sent) - len(history) - 1]
        assert sum(count_tokens(m) for m in [older, *history]) > room

    def test_names_content(self, tavern: Callable[..., ReplayedClient], upstream: Recorder) -> None:
        """Names "content" prefixes every chat message with `Name: `."""
        st = tavern(names="content")
        st.send("Hi.")
        assert upstream.bodies[0]["messages"][-2:] == [
            assistant(f"Gamemaster: {GREETING}"),
            user("Player: Hi."),
        ]

    def test_names_completion(
        self, tavern: Callable[..., ReplayedClient], upstream: Recorder
    ) -> None:
        """Names "completion" sets the `name` field, sanitized, on chat messages only."""
        st = tavern(names="completion", user="Sir Kay")
        st.send("Hi.")
        messages = upstream.bodies[0]["messages"]
        assert messages[-1] == {"role": "user", "content": "Hi.", "name": "Sir_Kay"}
        assert messages[-2]["name"] == "Gamemaster" and "name" not in messages[0]

    def test_names_default_sends_none(self, tavern: Callable[..., ReplayedClient]) -> None:
        """Names "default" adds no names in a one-to-one chat."""
        st = tavern()
        st.send("Hi.")
        assert all("name" not in m for m in st.requests[0]["messages"])
        assert st.requests[0]["messages"][-1] == user("Hi.")


class TestReply:
    def test_stream_joined_and_saved(self, tavern: Callable[..., ReplayedClient]) -> None:
        """Streamed deltas are joined and saved as a new message with one swipe (saveReply)."""
        st = tavern()
        assert st.send("Hello.") == "The mill wheel turns slowly."
        message = st.chat[-1]
        assert message["mes"] == "The mill wheel turns slowly." and message["is_user"] is False
        assert message["swipes"] == [message["mes"]] and message["swipe_id"] == 0
        assert message["extra"] == {"api": "custom", "model": "local-model"}
        assert message["swipe_info"][0]["extra"] == message["extra"]
        assert "is_system" not in message

    def test_json_reply(self, tavern: Callable[..., ReplayedClient], upstream: Recorder) -> None:
        """Without streaming the reply is read from `choices[0].message.content`."""
        st = tavern(stream=False)
        upstream.answer("A crow watches you.")
        assert st.send("Hello.") == "A crow watches you."
        assert upstream.bodies[0]["stream"] is False

    def test_clean_up(self, tavern: Callable[..., ReplayedClient], upstream: Recorder) -> None:
        """cleanUpMessage drops the character's name, a player line and spaces at line ends."""
        st = tavern()
        upstream.answer("Gamemaster: The door creaks.   \nIt opens.\nPlayer: I run.")
        assert st.send("I knock.") == "The door creaks.\nIt opens."

    def test_stream_error_event_is_a_toast(
        self, tavern: Callable[..., ReplayedClient], upstream: Recorder
    ) -> None:
        """An error event inside a stream is only shown as a toast; the reply still saves."""
        st = tavern()
        upstream.answer(Reply(("Part.",), events=['{"error": {"message": "overloaded"}}']))
        assert st.send("Hi.") == "Part."
        assert st.toasts == ["overloaded"]

    @pytest.mark.parametrize("stream", [True, False])
    def test_error_raises(
        self, tavern: Callable[..., ReplayedClient], upstream: Recorder, stream: bool
    ) -> None:
        """An error reply raises with its status and `error.message`, as SillyTavern shows it."""
        st = tavern(stream=stream)
        upstream.answer(Reply(status=400, error="n > 1 is not supported"))
        with pytest.raises(ReplayError) as raised:
            st.send("Hi.")
        assert raised.value.status == 400 and raised.value.message == "n > 1 is not supported"
        assert st.chat[-1]["mes"] == "Hi."  # the player's message stays


class TestSwipes:
    def test_swipe(self, tavern: Callable[..., ReplayedClient], upstream: Recorder) -> None:
        """A swipe sends the chat without the swiped reply and stores the reply as a new swipe."""
        st = tavern()
        upstream.answer("First.", "Second.")
        st.send("Hi.")
        assert st.swipe() == "Second."
        assert upstream.bodies[1]["messages"] == upstream.bodies[0]["messages"]
        last = st.chat[-1]
        assert last["swipes"] == ["First.", "Second."] and last["swipe_id"] == 1
        assert last["mes"] == "Second." and len(last["swipe_info"]) == 2

    def test_select_swipe(self, tavern: Callable[..., ReplayedClient], upstream: Recorder) -> None:
        """Swiping back sends nothing, and the next turn carries only the chosen swipe's text."""
        st = tavern()
        upstream.answer("First.", "Second.")
        st.send("Hi.")
        st.swipe()
        st.select_swipe(0)
        assert len(upstream.bodies) == 2 and st.chat[-1]["mes"] == "First."
        st.send("Next.")
        assert upstream.bodies[2]["messages"][-2:] == [assistant("First."), user("Next.")]
        assert all("Second." not in m["content"] for m in upstream.bodies[2]["messages"])

    def test_failed_swipe_restores(
        self, tavern: Callable[..., ReplayedClient], upstream: Recorder
    ) -> None:
        """A swipe whose request fails leaves the message as it was."""
        st = tavern()
        st.send("Hi.")
        before = json.dumps(st.chat[-1])
        upstream.answer(Reply(status=500, error="boom"))
        with pytest.raises(ReplayError):
            st.swipe()
        assert json.dumps(st.chat[-1]) == before

    def test_regenerate(self, tavern: Callable[..., ReplayedClient], upstream: Recorder) -> None:
        """Regenerate deletes the reply with its swipes and saves the new reply as a new message."""
        st = tavern()
        upstream.answer("First.", "Second.", "Third.")
        st.send("Hi.")
        st.swipe()
        assert st.build_messages("regenerate") == upstream.bodies[0]["messages"]
        assert st.regenerate() == "Third."
        assert upstream.bodies[2]["messages"] == upstream.bodies[0]["messages"]
        assert st.chat[-1]["swipes"] == ["Third."] and len(st.chat) == 3

    def test_multiple_swipes(
        self, tavern: Callable[..., ReplayedClient], upstream: Recorder
    ) -> None:
        """With `n` > 1 every further choice becomes a swipe; continue requests never send `n`."""
        st = tavern(n=2)
        upstream.answer(Reply(("One.", "Two.")), "More.")
        st.send("Hi.")
        assert upstream.bodies[0]["n"] == 2
        assert st.chat[-1]["swipes"] == ["One.", "Two."] and st.chat[-1]["swipe_id"] == 0
        st.continue_()
        assert "n" not in upstream.bodies[1]


class TestContinue:
    def test_nudge(self, tavern: Callable[..., ReplayedClient], upstream: Recorder) -> None:
        """Continue keeps the partial last, adds the nudge, and saves partial + " " + more."""
        st = tavern()
        upstream.answer("The door", "creaks open.")
        st.send("I knock.")
        assert st.continue_() == "The door creaks open."
        assert upstream.bodies[1]["messages"][-3:] == [
            user("I knock."),
            assistant("The door"),
            nudge("The door"),
        ]
        assert st.chat[-1]["swipes"] == ["The door creaks open."] and len(st.chat) == 3

    def test_partial_ending_in_space(
        self, tavern: Callable[..., ReplayedClient], upstream: Recorder
    ) -> None:
        """A partial that already ends with a space gets no second one."""
        st = tavern()
        st.send("I knock.")
        st.edit(-1, "The door")
        st.chat[-1]["mes"] = "The door "
        upstream.answer("opens.")
        assert st.continue_() == "The door opens."

    def test_prefill(self, tavern: Callable[..., ReplayedClient], upstream: Recorder) -> None:
        """With continue_prefill the partial comes last, after post-history, with no nudge."""
        st = tavern(continue_prefill=True, post_history="Stay in character.")
        upstream.answer("The door", "creaks.")
        st.send("I knock.")
        assert st.continue_() == "The door creaks."
        assert upstream.bodies[1]["messages"][-3:] == [
            user("I knock."),
            system("Stay in character."),
            assistant("\n\nThe door"),
        ]

    def test_greeting(self, tavern: Callable[..., ReplayedClient], upstream: Recorder) -> None:
        """Continuing the greeting replaces its macros and gives it its first swipe."""
        st = tavern()
        upstream.answer("Beware.")
        assert st.chat[0]["mes"].startswith("Welcome, {{user}}.")
        assert st.continue_() == f"{GREETING} Beware."
        assert upstream.bodies[0]["messages"][-2:] == [assistant(GREETING), nudge(GREETING)]
        assert st.chat[0]["swipes"] == [f"{GREETING} Beware."]


class TestBackground:
    def test_quiet(self, tavern: Callable[..., ReplayedClient], upstream: Recorder) -> None:
        """A quiet prompt is the last message, a system one, never streamed; the chat is kept."""
        st = tavern()
        st.send("Hi.")
        chat = json.dumps(st.chat)
        upstream.answer("A summary.")
        assert st.quiet("Summarize {{char}}'s story.") == "A summary."
        body = upstream.bodies[1]
        assert body["stream"] is False
        assert body["messages"][-1] == system("Summarize Gamemaster's story.")
        assert body["messages"][:-1] == [
            *upstream.bodies[0]["messages"],
            assistant(st.chat[-1]["mes"]),
        ]
        assert json.dumps(st.chat) == chat

    def test_impersonate(self, tavern: Callable[..., ReplayedClient], upstream: Recorder) -> None:
        """Impersonate streams with its prompt last; the reply never enters the chat."""
        st = tavern()
        upstream.answer("Player: I draw my sword.")
        assert st.impersonate() == "I draw my sword."
        last = IMPERSONATION_PROMPT.replace("{{user}}", "Player").replace("{{char}}", "Gamemaster")
        assert upstream.bodies[0]["messages"][-1] == system(last)
        assert upstream.bodies[0]["stream"] is True and len(st.chat) == 1

    def test_test_message(self, tavern: Callable[..., ReplayedClient], upstream: Recorder) -> None:
        """Test Message sends `Hi` alone, not streamed, and leaves the chat untouched."""
        st = tavern(post_processing="strict")
        upstream.answer("Hello!")
        assert st.test_message() == "Hello!"
        assert upstream.bodies[0]["messages"] == [user("Hi")]
        assert upstream.bodies[0]["stream"] is False and st.chat_metadata == {}


class TestPostProcessing:
    def test_merge(self, tavern: Callable[..., ReplayedClient], upstream: Recorder) -> None:
        """Merge joins consecutive same-role messages with a blank line and folds in names."""
        st = tavern(post_processing="merge", names="completion")
        st.send("Hi.")
        assert upstream.bodies[0]["messages"] == [
            system("\n\n".join(m["content"] for m in HEAD)),
            assistant(f"Gamemaster: {GREETING}"),
            user("Player: Hi."),
        ]

    def test_strict(self, tavern: Callable[..., ReplayedClient], upstream: Recorder) -> None:
        """Strict puts the placeholder after the leading system message and makes later
        system messages user ones, merged into the player's turn."""
        st = tavern(post_processing="strict", post_history="Stay in character.")
        st.send("Hi.")
        assert upstream.bodies[0]["messages"] == [
            system("\n\n".join(m["content"] for m in HEAD)),
            user(PROMPT_PLACEHOLDER),
            assistant(GREETING),
            user("Hi.\n\nStay in character."),
        ]

    def test_strict_without_greeting(
        self, tavern: Callable[..., ReplayedClient], upstream: Recorder
    ) -> None:
        """Strict adds no placeholder when a user message follows the system message."""
        st = tavern(post_processing="strict", greeting=None)
        st.send("Hi.")
        assert upstream.bodies[0]["messages"] == [
            system("\n\n".join(m["content"] for m in HEAD)),
            user("Hi."),
        ]

    def test_strict_continue(self, tavern: Callable[..., ReplayedClient]) -> None:
        """Under strict the continue nudge is sent as a user message after the partial."""
        st = tavern(post_processing="strict")
        st.chat[0]["mes"] = "The gate"
        messages = st.build_messages("continue")
        assert messages[-2:] == [assistant("The gate"), user(nudge("The gate")["content"])]

    def test_merge_messages_leading_assistant(self) -> None:
        """Strict puts the placeholder first when the prompt starts with an assistant message."""
        merged = merge_messages([assistant("A."), assistant("B.")], "GM", "P", strict=True)
        assert merged == [user(PROMPT_PLACEHOLDER), assistant("A.\n\nB.")]

    def test_no_semi_strict(self) -> None:
        """SillyTavern 1.12.6 has no "semi-strict" post-processing."""
        with pytest.raises(ValueError):
            ReplayedClient("http://127.0.0.1:1/v1", post_processing="semi-strict")


class TestChatFile:
    def test_jsonl(self, tavern: Callable[..., ReplayedClient]) -> None:
        """The chat file is a metadata line then one message a line, as saveChat writes it."""
        st = tavern()
        st.send("Hi.")
        text = st.to_jsonl({"gmtags": {"chatId": "c1"}})
        lines = [json.loads(line) for line in text.split("\n")]
        assert not text.endswith("\n") and len(lines) == 4
        assert lines[0] == {
            "user_name": "Player",
            "character_name": "Gamemaster",
            "create_date": "2024-10-20@12h00m00s",
            "chat_metadata": {"tainted": True, "gmtags": {"chatId": "c1"}},
        }
        assert list(lines[2]) == ["name", "is_user", "is_system", "send_date", "mes", "extra"]
        assert lines[2]["send_date"] == "October 20, 2024 12:00pm"
        assert list(lines[3]) == [
            "extra",
            "name",
            "is_user",
            "send_date",
            "mes",
            "gen_started",
            "gen_finished",
            "swipe_info",
            "swipe_id",
            "swipes",
        ]
        assert lines[3]["gen_started"] == "2024-10-20T12:00:03.000Z"

    def test_load_jsonl(self, tavern: Callable[..., ReplayedClient]) -> None:
        """A chat file read back gives the same chat and metadata."""
        st = tavern()
        st.send("Hi.")
        other = tavern()
        other.load_jsonl(st.to_jsonl())
        assert other.chat == st.chat and other.to_jsonl() == st.to_jsonl()

    def test_edit_and_delete(
        self, tavern: Callable[..., ReplayedClient], upstream: Recorder
    ) -> None:
        """Edits change the current swipe's text and deletes remove messages, both locally."""
        st = tavern()
        st.send("Hi.")
        st.edit(-1, "  The mill burns.  ")
        assert st.chat[-1]["swipes"] == ["The mill burns."]
        st.delete_last(2)
        assert len(st.chat) == 1 and len(upstream.bodies) == 1
