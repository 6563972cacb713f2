"""A SillyTavern client simulator: the requests SillyTavern 1.12.6 sends to a custom source.

SillyTavern (commit 1ac6780e) builds a chat-completion prompt in the browser and posts it to
its own Node server, which post-processes it and forwards it to the "Custom (OpenAI-compatible)"
URL. `ReplayedClient` plays both halves for one 1:1 chat with default settings: it builds the
forwarded body and headers, posts them with httpx to `{base_url}/chat/completions`, reads the
reply (SSE or JSON) and saves it into `chat` the way SillyTavern does. Written from reading
SillyTavern's source (its file names are cited), not translated from it. Not modelled: groups,
world info, dialogue examples, author's note, regex scripts, tools, narrator messages,
instruct mode and the Node server's retries of a 429.

Tokens are counted with a deterministic stand-in for tiktoken, `ceil(len(text) / 4)` a
string, in the shape of SillyTavern's count (`public/scripts/tokenizers.js`
`countTokensOpenAIAsync` over `src/endpoints/tokenizers.js`): 3 + role + content (+ name + 1)
a message, 0 for an empty one. Times come from `clock`, by default a fake clock from
2024-10-20 12:00 UTC advancing a second a call, so chat files are reproducible.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

Message = dict[str, Any]
"""A chat message as SillyTavern keeps it in `chat` and writes it to the chat file."""
Prompt = dict[str, Any]
"""A chat-completion message: `role`, `content` and maybe `name`."""

# public/scripts/openai.js default_* prompts and formats (data SillyTavern sends verbatim).
DEFAULT_MAIN_PROMPT = (
    "Write {{char}}'s next reply in a fictional chat between {{charIfNotGroup}} and {{user}}."
)
NEW_CHAT_PROMPT = "[Start a new Chat]"
CONTINUE_NUDGE_PROMPT = (
    "[Continue the following message. Do not include ANY parts of the original message. "
    "Use capitalization and punctuation as if your reply is a part of the original message: "
    "{{lastChatMessage}}]"
)
IMPERSONATION_PROMPT = (
    "[Write your next reply from the point of view of {{user}}, using the chat history so far "
    "as a guideline for the writing style of {{user}}. Don't write as {{char}} or system. "
    "Don't describe actions of {{char}}.]"
)
PERSONALITY_FORMAT = "[{{char}}'s personality: {{personality}}]"
SCENARIO_FORMAT = "[Circumstances and context of the dialogue: {{scenario}}]"
# default/config.yaml `promptPlaceholder`; src/prompt-converters.js falls back to another text.
PROMPT_PLACEHOLDER = "[Start a new chat]"
DEFAULT_GREETING = "Welcome, {{user}}. The road to the old mill lies ahead. What do you do?"
DEFAULT_DESCRIPTION = "{{char}} runs a tabletop adventure for {{user}} and keeps to its rules."

NAMES_BEHAVIORS = ("none", "default", "completion", "content")  # character_names_behavior
POST_PROCESSING = ("", "merge", "claude", "strict")  # "claude" is the deprecated name of merge
KINDS = ("normal", "swipe", "regenerate", "continue", "quiet", "impersonate")
# src/endpoints/backends/chat-completions.js handleErrorResponse
STATUS_MESSAGES = {
    400: "Bad request",
    401: "Unauthorized",
    402: "Credit limit reached",
    403: "Forbidden",
    404: "Not found",
    429: "Too many requests",
    451: "Unavailable for legal reasons",
    502: "Bad gateway",
}
MONTHS = "January February March April May June July August September October November December"
_SPACES = "[\t \u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\ufeff]+"
_MD_PAIR = re.compile(r"([*_]{1,2})([\s\S]*?)\1")
_MD_SPACE = re.compile(rf"([*_])({_SPACES})|({_SPACES})([*_])")


class ReplayError(RuntimeError):
    """A failed generation: the upstream's HTTP status and the message SillyTavern shows."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message


def count_tokens(message: Prompt) -> int:
    """Tokens of one prompt message (see the module docstring)."""
    if not message.get("content"):
        return 0
    name = message.get("name")
    cost = 3 + _tok(message["role"]) + _tok(message["content"])
    return cost + (_tok(name) + 1 if name else 0)


def _tok(text: str) -> int:
    return math.ceil(len(text) / 4)


def merge_messages(messages: list[Prompt], char: str, user: str, strict: bool) -> list[Prompt]:
    """The Node server's prompt post-processing (`src/prompt-converters.js` `mergeMessages`).

    Names go into the content as `Name: `, consecutive messages of one role join with a blank
    line. Strict also turns every system message after the first into a user message, puts
    `PROMPT_PLACEHOLDER` as a user message after a leading system message not followed by a
    user one (or first, before a leading assistant message) and merges again.
    """
    cleaned = []
    for original in messages:
        role, content, name = original["role"], original.get("content") or "", original.get("name")
        if role == "system" and name in ("example_assistant", "example_user"):
            speaker = char if name == "example_assistant" else user
            if speaker and not content.startswith(f"{speaker}: "):
                content = f"{speaker}: {content}"
        if name and role != "system" and not content.startswith(f"{name}: "):
            content = f"{name}: {content}"
        cleaned.append({"role": "user" if role == "tool" else role, "content": content})
    merged: list[Prompt] = []
    for message in cleaned:
        if merged and merged[-1]["role"] == message["role"] and message["content"]:
            merged[-1]["content"] += "\n\n" + message["content"]
        else:
            merged.append(message)
    if not strict:
        return merged
    for message in merged[1:]:
        if message["role"] == "system":
            message["role"] = "user"
    placeholder = {"role": "user", "content": PROMPT_PLACEHOLDER}
    if merged and merged[0]["role"] == "system":
        if len(merged) == 1 or merged[1]["role"] != "user":
            merged.insert(1, placeholder)
    elif merged and merged[0]["role"] != "user":
        merged.insert(0, placeholder)
    return merge_messages(merged, char, user, strict=False)


def fake_clock(start: datetime) -> Callable[[], datetime]:
    """A clock that returns `start`, then one second later at every call."""
    ticks = itertools.count()
    return lambda: start + timedelta(seconds=next(ticks))


def send_date(moment: datetime) -> str:
    """RossAscends-mods.js `getMessageTimeStamp`: "October 20, 2024 12:00pm"."""
    hour, meridiem = moment.hour % 12 or 12, "pm" if moment.hour >= 12 else "am"
    month = MONTHS.split()[moment.month - 1]
    return f"{month} {moment.day}, {moment.year} {hour}:{moment.minute:02d}{meridiem}"


def js_date(moment: datetime) -> str:
    """A JavaScript Date as JSON.stringify writes it: UTC, milliseconds, `Z`."""
    moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def js_json(value: Any) -> str:
    """JSON.stringify: compact, non-ASCII as is."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class ReplayedClient:
    """One SillyTavern 1.12.6 chat with a character over a custom chat-completion source.

    `budget` is the context size (openai.js `openai_max_context`, default 4095); the prompt
    gets it minus `max_tokens` minus 3. `post_processing` is "Prompt Post-Processing": ""
    (none), "merge" ("claude", its old name) or "strict"; 1.12.6 has no "semi-strict".
    `names` is "Character Names Behavior": "none", "default" (no names in a 1:1 chat),
    "completion" (the `name` field) or "content" (a `Name: ` prefix). `header_chat` and
    `include_headers` stand for the `custom_include_headers` YAML; `api_key` None is no key.
    """

    def __init__(
        self,
        base_url: str,
        *,
        header_chat: str | None = None,
        api_key: str | None = None,
        stream: bool = True,
        budget: int = 4095,
        post_processing: str = "",
        names: str = "default",
        continue_prefill: bool = False,
        character: str = "Gamemaster",
        user: str = "Player",
        greeting: str | None = DEFAULT_GREETING,
        main_prompt: str = DEFAULT_MAIN_PROMPT,
        description: str = DEFAULT_DESCRIPTION,
        personality: str = "",
        scenario: str = "",
        persona: str = "",
        post_history: str = "",
        send_if_empty: str = "",
        n: int = 1,
        model: str = "local-model",
        max_tokens: int = 300,
        seed: int = -1,
        include_headers: dict[str, str] | None = None,
        continue_postfix: str = " ",
        timeout: float = 20.0,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        if post_processing not in POST_PROCESSING:
            raise ValueError(f"SillyTavern 1.12.6 has no post-processing {post_processing!r}")
        if names not in NAMES_BEHAVIORS:
            raise ValueError(f"unknown names behavior {names!r}")
        self.base_url, self.header_chat, self.api_key = base_url.rstrip("/"), header_chat, api_key
        self.stream, self.budget, self.n, self.seed = stream, budget, n, seed
        self.post_processing, self.names = post_processing, names
        self.continue_prefill, self.continue_postfix = continue_prefill, continue_postfix
        self.character, self.user, self.model = character, user, model
        self.main_prompt, self.post_history = main_prompt, post_history
        # script.js getCharacterCardFields trims the card's fields.
        self.description, self.personality = description.strip(), personality.strip()
        self.scenario, self.persona = scenario.strip(), persona.strip()
        self.send_if_empty, self.max_tokens = send_if_empty, max_tokens
        self.include_headers = dict(include_headers or {})
        self.clock = clock or fake_clock(datetime(2024, 10, 20, 12, 0, tzinfo=UTC))
        self.create_date = self.clock().strftime("%Y-%m-%d@%Hh%Mm%Ss")  # humanizedDateTime
        self.chat_metadata: dict[str, Any] = {}
        self.chat: list[Message] = []
        self.requests: list[dict[str, Any]] = []
        self.toasts: list[str] = []  # error toasts shown while a stream went on
        self.last_headers: httpx.Headers | None = None
        self._http = httpx.Client(timeout=timeout)
        self._regenerating = False
        if greeting:  # script.js getFirstMessage: first_mes as written, macros replaced later
            self.chat.append(self._message(character, False, greeting, {}))

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> ReplayedClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # ----- what the player does --------------------------------------------------------------

    def send(self, text: str) -> str:
        """Send (script.js `sendMessageAsUser`, `Generate`): the player's message, then a reply.

        With an empty `text` the player's message is `send_if_empty` when set, else none.
        """
        text = text or self.send_if_empty.strip()
        if text:
            self.chat.append(self._message(self.user, True, self._sub(text), {"isSmallSys": False}))
        return self._new_reply("normal")

    def swipe(self) -> str:
        """Swipe right from the last swipe (script.js `swipe_right`, `Generate('swipe')`).

        The request leaves the swiped message out; the reply becomes a new swipe, selected.
        A swipe right onto a swipe that exists sends nothing: that is `select_swipe`.
        """
        if len(self.chat) < 2 or self.chat[-1]["is_user"]:
            raise ValueError("only a reply after the greeting has swipes to generate")
        last, before = self.chat[-1], copy.deepcopy(self.chat[-1])
        if "swipe_id" not in last:
            last.update(swipe_id=0, swipes=[last["mes"]], swipe_info=[self._info(last)])
        last["swipe_id"] = len(last["swipes"])
        last.pop("gen_started", None)
        last.pop("gen_finished", None)
        started = self.clock()
        try:
            reply, extra_swipes = self._generate("swipe")
        except Exception:
            self.chat[-1] = before
            raise
        last["swipes"].append("")
        self._save(last, self._clean_up(reply), started, extra_swipes)
        return str(last["mes"])

    def select_swipe(self, index: int) -> None:
        """Show swipe `index` of the last message (script.js `swipe_left`): no request."""
        last = self.chat[-1]
        if not 0 <= index < len(last.get("swipes", [])):
            raise IndexError(f"the last message has no swipe {index}")
        infos = last.get("swipe_info") or []
        info = (infos[index] if index < len(infos) else None) or {}
        last["swipe_id"], last["mes"] = index, last["swipes"][index]
        last["send_date"] = info.get("send_date") or last["send_date"]
        last["extra"] = copy.deepcopy(info.get("extra") or last.get("extra") or {})

    def regenerate(self) -> str:
        """Regenerate (script.js `Generate('regenerate')`): the last reply and its swipes are
        deleted before the request; the new reply is a new message."""
        if self.chat and not self.chat[-1]["is_user"]:
            self.chat.pop()
        self._regenerating = True
        try:
            return self._new_reply("regenerate")
        finally:
            self._regenerating = False

    def continue_(self) -> str:
        """Continue (script.js `Generate('continue')`, `saveReply('appendFinal')`): saved as
        partial + `continue_postfix` (unless it ends with a space) + continuation, cleaned up."""
        if not self.chat:
            raise ValueError("nothing to continue")
        last, started = self.chat[-1], self.clock()
        if last.get("gen_started") and last.get("gen_finished"):  # the timer counts both parts
            took = datetime.fromisoformat(last["gen_finished"])
            started -= took - datetime.fromisoformat(last["gen_started"])
        reply, _ = self._generate("continue")
        partial = last["mes"]  # read after Generate replaced the macros of chat[0]
        partial += "" if partial.endswith(" ") else self.continue_postfix
        self._save(last, self._clean_up(partial + reply, cont=True), started, [])
        return str(last["mes"])

    def quiet(self, prompt: str) -> str:
        """A background generation (script.js `generateQuietPrompt`: Summarize, `/gen`): the
        prompt is the last message, a system one; never streamed; the chat stays as it was."""
        reply, _ = self._generate("quiet", prompt)
        return self._clean_up(reply)

    def impersonate(self) -> str:
        """Impersonate (script.js `Generate('impersonate')`): the reply goes to the input box."""
        reply, _ = self._generate("impersonate")
        return self._clean_up(reply, impersonate=True)

    def test_message(self) -> str:
        """Test Message (openai.js `testApiConnection`): `Hi` alone as a quiet request."""
        prompt = self._post_process([{"role": "user", "content": "Hi"}])
        return self._post(self._body(prompt, "quiet"))[0]

    def delete_last(self, count: int = 1) -> None:
        """Delete the last `count` messages (script.js delete mode): no request."""
        del self.chat[max(0, len(self.chat) - count) :]

    def edit(self, index: int, text: str) -> None:
        """Edit a message (script.js `updateMessage`): trimmed, macros replaced, current swipe."""
        message = self.chat[index]
        message["mes"] = self._sub(text.strip())
        if "swipe_id" in message:
            message["swipes"][message["swipe_id"]] = message["mes"]

    # ----- the prompt --------------------------------------------------------------------------

    def build_messages(self, kind: str, quiet_prompt: str | None = None) -> list[Prompt]:
        """The messages SillyTavern would forward now, after its server's post-processing."""
        return self._post_process(self.browser_messages(kind, quiet_prompt))

    def browser_messages(self, kind: str, quiet_prompt: str | None = None) -> list[Prompt]:
        """What the browser posts (openai.js `prepareOpenAIMessages`), before post-processing.

        In the default prompt order (PromptManager.js `promptManagerDefaultPromptOrder`): main
        prompt, persona, description, personality, scenario, `[Start a new Chat]` and the
        history that fits the budget filled newest first (openai.js `populateChatHistory`),
        the continue nudge, post-history instructions, a continue prefill, then the
        impersonation or quiet prompt. Empty prompts are not sent.
        """
        if kind not in KINDS:
            raise ValueError(f"unknown generation type {kind!r}")
        chat = self.chat
        if kind == "regenerate" and chat and not chat[-1]["is_user"] and not self._regenerating:
            chat = chat[:-1]  # what regenerate() is about to delete
        core = [message for message in chat if not message.get("is_system")]
        if kind == "swipe":
            core = core[:-1]  # script.js Generate: coreChat.pop()
        budget = self.budget - self.max_tokens - 3  # ChatCompletion.setTokenBudget, reply priming

        def system(content: str) -> Prompt:
            return {"role": "system", "content": self._sub(content)}

        def take(message: Prompt) -> Prompt:  # ChatCompletion.add: the prompt must fit
            nonlocal budget
            if count_tokens(message) > budget:
                raise ValueError("SillyTavern: token budget exceeded by the fixed prompts")
            budget -= count_tokens(message)
            return message

        personality = PERSONALITY_FORMAT if self.personality else ""
        scenario = SCENARIO_FORMAT if self.scenario else ""
        fixed = (self.main_prompt, self.persona, self.description, personality, scenario)
        head = [take(system(content)) for content in fixed]
        controls = [system(IMPERSONATION_PROMPT)] if kind == "impersonate" else []
        if quiet_prompt:  # Generate replaces its macros, preparePrompt once more
            controls.append(system(self._sub(quiet_prompt)))
        budget -= sum(count_tokens(message) for message in controls)
        post_history = take(system(self.post_history))
        new_chat = system(NEW_CHAT_PROMPT)
        budget -= count_tokens(new_chat)
        nudge = None
        if kind == "continue" and core and not self.continue_prefill:
            partial = core[-1]["mes"].strip()  # cyclePrompt, trimmed
            nudge = system(self._sub(CONTINUE_NUDGE_PROMPT, lastChatMessage=partial))
            budget -= count_tokens(nudge)
        history = [self._prompt(message) for message in core]
        kept: list[Prompt] = []
        empty = {"role": "user", "content": self.send_if_empty}
        last_is_reply = bool(history) and history[-1]["role"] == "assistant"
        if last_is_reply and self.send_if_empty and count_tokens(empty) <= budget:
            kept.append(empty)
            budget -= count_tokens(empty)
        prefill = None
        for index, message in enumerate(reversed(history)):
            if count_tokens(message) > budget:
                break
            if index == 0 and kind == "continue" and self.continue_prefill:
                if message["role"] == "assistant":  # assistant_prefill ("") + "\n\n" + partial
                    message = {"role": "assistant", "content": "\n\n" + message["content"]}
                prefill = message
            elif message["content"]:
                kept.insert(0, message)
            budget -= count_tokens(message)
        every = [*head, new_chat, *kept, nudge, post_history, prefill, *controls]
        return [message for message in every if message and message["content"]]

    def _prompt(self, message: Message) -> Prompt:
        """A chat message as the browser sends it (openai.js `setOpenAIMessages`)."""
        content = message["mes"]
        if self.names == "content":
            content = f"{message['name']}: {content}"
        role = "user" if message["is_user"] else "assistant"
        prompt: Prompt = {"role": role, "content": self._sub(content.replace("\r", ""))}
        if self.names == "completion" and message.get("name"):
            name = message["name"]  # PromptManager.js isValidName / sanitizeName
            if not re.fullmatch(r"[a-zA-Z0-9_]{1,64}", name):
                name = re.sub(r"[^a-zA-Z0-9_]", "_", name)[:64]
            prompt["name"] = name
        return prompt

    def _post_process(self, messages: list[Prompt]) -> list[Prompt]:
        """chat-completions.js `postProcessPrompt`, applied for the custom source."""
        if not self.post_processing:
            return messages
        strict = self.post_processing == "strict"
        return merge_messages(messages, self.character, self.user, strict)

    def _sub(self, text: str, **extra: str) -> str:
        """The macros of a default 1:1 chat (script.js `substituteParams`, macros.js)."""
        env = {
            "user": self.user,
            "char": self.character,
            "charifnotgroup": self.character,
            "group": self.character,
            "description": self.description,
            "personality": self.personality,
            "scenario": self.scenario,
            "persona": self.persona,
            **{key.lower(): value for key, value in extra.items()},
        }
        legacy = re.compile(r"<(USER|BOT|CHAR|CHARIFNOTGROUP|GROUP)>", re.I)  # a 1:1 chat
        text = legacy.sub(lambda m: self.user if m[1].upper() == "USER" else self.character, text)
        if "{{" not in text:
            return text
        text = re.sub(r"\{\{newline\}\}", "\n", text, flags=re.I)
        text = re.sub(r"(?:\r?\n)*\{\{trim\}\}(?:\r?\n)*|\{\{noop\}\}", "", text, flags=re.I)
        text = re.sub(r"\{\{(\w+)\}\}", lambda m: env.get(m[1].lower(), m[0]), text)
        return re.sub(r"\{\{//[\s\S]*?\}\}", "", text)

    # ----- the request and the reply -----------------------------------------------------------

    def _body(self, messages: list[Prompt], kind: str) -> dict[str, Any]:
        """What the Node server forwards (openai.js `sendOpenAIRequest`, chat-completions.js):
        default sampling (JSON.stringify writes 1.0 as 1), no stop strings, `n` only when > 1
        for a turn, swipe or regenerate."""
        body: dict[str, Any] = {
            "messages": messages,
            "model": self.model,
            "temperature": 1,
            "max_tokens": self.max_tokens,
            "stream": self.stream and kind != "quiet",
            "presence_penalty": 0,
            "frequency_penalty": 0,
            "top_p": 1,
            "logit_bias": {},
        }
        if self.seed >= 0:
            body["seed"] = self.seed
        if self.n > 1 and kind not in ("continue", "impersonate", "quiet"):
            body["n"] = self.n
        return body

    def _headers(self) -> dict[str, str]:
        """chat-completions.js with node-fetch 3: a missing key reads as `undefined`."""
        key = "undefined" if self.api_key is None else self.api_key
        headers = {
            "Content-Type": "application/json",
            "Authorization": f"Bearer {key}".strip(),  # a parser drops the space of "Bearer "
            "Accept": "*/*",
            "User-Agent": "node-fetch",
            "Accept-Encoding": "gzip, deflate, br",
            "Connection": "close",
        }
        if self.header_chat is not None:  # custom_include_headers: "X-Gmtags-Chat: <chat>"
            headers["X-Gmtags-Chat"] = self.header_chat
        return {**headers, **self.include_headers}

    def _generate(self, kind: str, quiet_prompt: str | None = None) -> tuple[str, list[str]]:
        """script.js `Generate`: the chat is marked used, chat[0]'s macros replaced, then sent."""
        self.chat_metadata["tainted"] = True
        messages = self.build_messages(kind, quiet_prompt)
        if self.chat:
            self.chat[0]["mes"] = self._sub(self.chat[0]["mes"])
        return self._post(self._body(messages, kind))

    def _post(self, body: dict[str, Any]) -> tuple[str, list[str]]:
        """Post `body`: the reply's text and the texts of further choices (`n` > 1)."""
        self.requests.append(body)
        url, content = f"{self.base_url}/chat/completions", js_json(body).encode()
        with self._http.stream("POST", url, content=content, headers=self._headers()) as response:
            self.last_headers = response.headers
            if body["stream"] and response.is_success:
                return self._read_stream(response)
            data = _json(response.read().decode(errors="replace"))
        error = data.get("error") if isinstance(data, dict) else None
        message = error.get("message") if isinstance(error, dict) else None
        status = response.status_code
        if not response.is_success:  # openai.js tryParseStreamingError; handleErrorResponse
            fallback = response.reason_phrase if body["stream"] else STATUS_MESSAGES.get(status)
            raise ReplayError(status, message or fallback or "Unknown error occurred")
        if not isinstance(data, dict) or error:  # the Node server sends {error}; openai.js throws
            raise ReplayError(status, message or response.reason_phrase)
        texts = [_text(choice, "message") for choice in data.get("choices") or [{}]]
        return texts[0], [self._clean_up(text) for text in texts[1:]]  # extractMultiSwipes

    def _read_stream(self, response: httpx.Response) -> tuple[str, list[str]]:
        """openai.js streaming: SSE `data:` events until `[DONE]`, `choices[0].delta.content`
        joined; a choice with index i > 0 is extra swipe i (n > 1)."""
        text, swipes, lines = "", dict[int, str](), list[str]()
        for line in itertools.chain(response.iter_lines(), [""]):
            if line:
                field, _, value = line.partition(":")
                lines += [value.removeprefix(" ")] if field == "data" else []
                continue
            payload, lines = "\n".join(lines), []
            if payload == "[DONE]":
                break
            if not payload:
                continue
            event = _json(payload)
            if not isinstance(event, dict):
                raise ReplayError(response.status_code, f"not JSON: {payload[:80]}")
            error = event.get("error")
            if error or event.get("message"):  # tryParseStreamingError: a toast, the stream goes on
                shown = (error.get("message") if isinstance(error, dict) else None) or (
                    response.reason_phrase if error else event["message"]
                )
                self.toasts.append(str(shown))
            choice = (event.get("choices") or [{}])[0]
            piece, index = _text(choice, "delta", "message"), choice.get("index") or 0
            if index > 0:
                swipes[index - 1] = swipes.get(index - 1, "") + piece
            else:
                text += piece
        extra = [swipes.get(i, "") for i in range(max(swipes, default=-1) + 1)]
        return text, [self._clean_up(swipe) for swipe in extra]

    def _clean_up(self, text: str, impersonate: bool = False, cont: bool = False) -> str:
        """script.js `cleanUpMessage` with the default power-user settings."""
        char_line, user_line = f"\n{self.character}:", f"\n{self.user}:"
        stops = [char_line if impersonate else user_line, user_line]  # names_as_stop_strings
        if cont and self.chat and self.chat[-1]["is_user"]:
            stops.append(char_line)
        for stop in dict.fromkeys(stops):  # a reply ending in the start of a stop string
            size = next((n for n in range(len(stop), 0, -1) if text.endswith(stop[:n])), 0)
            text = text[: len(text) - size]
        text = re.sub(r"[^\S\r\n]+$", "", text, flags=re.M)
        other = self.character if impersonate else self.user  # allow_name1_display: false
        if text.startswith(f"{other}:"):
            text = ""
        text = text.split(f"\n{other}:")[0].split("<|endoftext|>")[0]
        text = re.sub(rf"(^|\n){re.escape(self.character)}:\s*", r"\1", text)
        text = _fix_markdown(text.strip() if impersonate else text)
        own = self.user if impersonate else self.character
        if text.startswith(f"{own}:"):
            text = text[len(own) + 1 :].lstrip()
        return text.strip()  # trim_spaces

    # ----- saving --------------------------------------------------------------------------

    def _message(self, name: str, is_user: bool, mes: str, extra: dict[str, Any]) -> Message:
        """A message as sendMessageAsUser / getFirstMessage create it."""
        date = send_date(self.clock())
        return dict(
            name=name, is_user=is_user, is_system=False, send_date=date, mes=mes, extra=extra
        )

    def _new_reply(self, kind: str) -> str:
        """script.js `saveReply` making a new message (which has no `is_system`)."""
        started = self.clock()
        reply, extra_swipes = self._generate(kind)
        message: Message = {"extra": {}, "name": self.character, "is_user": False}
        self.chat.append(message)
        text = self._clean_up(reply)
        self._save(message, text, started, extra_swipes)
        return text

    def _save(self, message: Message, text: str, started: datetime, extra: list[str]) -> None:
        """The rest of `saveReply`: the text, times and api, kept as the current swipe (the
        first one when there were none), extra choices appended as more swipes."""
        finished = self.clock()
        message["send_date"] = send_date(finished)
        message.setdefault("extra", {}).update(api="custom", model=self.model)
        message["mes"] = text
        message["gen_started"], message["gen_finished"] = js_date(started), js_date(finished)
        message.setdefault("swipe_info", [])
        if "swipe_id" not in message:
            message.update(swipe_id=0, swipes=[text])
        message["swipes"][message["swipe_id"]] = text
        infos = message["swipe_info"]
        infos.extend([None] * (message["swipe_id"] + 1 - len(infos)))  # a JS hole: null
        infos[message["swipe_id"]] = self._info(message)
        message["swipes"].extend(extra)
        infos.extend(self._info(message) for _ in extra)

    def _info(self, message: Message) -> dict[str, Any]:
        keys = ("send_date", "gen_started", "gen_finished")
        times = {key: message[key] for key in keys if key in message}
        return {**times, "extra": copy.deepcopy(message.get("extra", {}))}

    # ----- chat files ----------------------------------------------------------------------

    def to_jsonl(self, chat_metadata: dict[str, Any] | None = None) -> str:
        """The chat file (script.js `saveChat`, src/endpoints/chats.js): a metadata line, then
        one message a line, no final newline."""
        header = {
            "user_name": self.user,
            "character_name": self.character,
            "create_date": self.create_date,
            "chat_metadata": {**self.chat_metadata, **(chat_metadata or {})},
        }
        return "\n".join(js_json(line) for line in [header, *self.chat])

    def load_jsonl(self, text: str) -> None:
        """Open a chat file (script.js `getChat`): its metadata and messages replace the chat."""
        header, *messages = [json.loads(line) for line in text.splitlines() if line.strip()]
        self.create_date = header.get("create_date", self.create_date)
        self.chat_metadata = header.get("chat_metadata") or {}
        self.chat = messages


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _text(choice: dict[str, Any], *parts: str) -> str:
    """openai.js `getStreamingReply`, script.js `extractMessageFromData`: the first text."""
    values = [(choice.get(part) or {}).get("content") for part in parts]
    return next((str(value) for value in [*values, choice.get("text")] if value is not None), "")


def _fix_markdown(text: str) -> str:
    """power-user.js `fixMarkdown(text, false)`: no spaces just inside `*`/`_` pairs."""
    for match in reversed(list(_MD_PAIR.finditer(text))):
        fixed = _MD_SPACE.sub(lambda m: (m[1] or "") + (m[4] or ""), match[0])
        text = text[: match.start()] + fixed + text[match.end() :]
    return text
