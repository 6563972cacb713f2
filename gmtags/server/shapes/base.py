"""What an API shape says, and nothing else (SPEC §7.2).

The proxy has one core (`gmtags.server.completions`): it reads a request,
places it in its chat, adds the GM instructions, forwards it to the same route
of the upstream, rewrites the reply through the processor as it streams and
stores the node. What differs between the APIs a chat client speaks is only
where things stand in a body, and a `Shape` says that:

- the route it serves and the upstream route it forwards to;
- what a request asks (`read`): messages to place by content (SPEC §7.1),
  or a text prompt (placed by the stored replies it holds);
- whether the request streams, and how the stream is framed (SSE or NDJSON);
- where the GM instructions go (`instruct`);
- where a whole reply keeps its text (`slots`), and how a streamed event
  carries a piece of it (`rewrite`: feed it, put what the processor gives
  back in its place, and close the processor where the reply ends);
- how an error looks to its clients (`error_body`), and which header carries
  the upstream's key (`key_header`).

A new shape is one module with one `Shape` subclass, and one line in
`gmtags.server.shapes.SHAPES`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Protocol

from gmtags.prompt import Instructions
from gmtags.server.bodies import BodyError
from gmtags.server.errors import error_body
from gmtags.server.messages import with_instructions

Framing = Literal["sse", "ndjson"]


@dataclass(frozen=True, slots=True)
class Event:
    """One streamed event: its SSE event name (None: none, as OpenAI streams) and its data
    (a JSON value, or the literal `[DONE]`)."""

    name: str | None
    data: Any


@dataclass(frozen=True, slots=True)
class Asked:
    """What a request asks to be placed by: its messages (role and content, as SPEC §7.1
    reads them), or the text of its prompt."""

    messages: list[Mapping[str, Any]] | None = None
    prompt: str | None = None


@dataclass(frozen=True, slots=True)
class Markers:
    """Where a text prompt takes the GM instructions and the turn reminder (SPEC §7.2)."""

    instructions: str
    turn: str
    merge: bool = False
    """`--merge-instructions`: the turn reminder always joins the last user message."""


class Relay(Protocol):
    """What a shape's `rewrite` feeds a streamed reply's text through."""

    @property
    def closed(self) -> bool:
        """The processor has closed: later text passes as it came."""
        ...

    def feed(self, text: str) -> Awaitable[str]:
        """The text to send in place of `text` (what the processor gives back)."""
        ...

    def close(self) -> str:
        """The text held back until the reply's end."""
        ...

    @property
    def state(self) -> dict[str, Any]:
        """What a shape keeps about one stream between its events (an open text block)."""
        ...


Slot = tuple[MutableMapping[str, Any], str]
"""Where a whole reply keeps a piece of its text: an object and its key."""


class Shape(ABC):
    """One API a chat client speaks (module doc): a subclass says what the abstract methods
    ask; the other defaults are OpenAI's."""

    name: ClassVar[str]
    route: ClassVar[str]
    """The route served, as its clients' base URLs end (`/v1/chat/completions`)."""
    upstream_route: ClassVar[str]
    """The route forwarded to, under the upstream's root (its URL without `/v1`)."""
    framing: ClassVar[Framing] = "sse"
    key_header: ClassVar[str] = "authorization"
    """The header that carries the upstream's API key (`Authorization: Bearer`, `x-api-key`)."""
    media_type: ClassVar[str] = "text/event-stream"
    text_at: ClassVar[str]
    """Where a whole reply keeps its text, as an error names it (`choices[0].message`)."""

    @abstractmethod
    def read(self, body: Mapping[str, Any]) -> Asked:
        """What the request asks; `BodyError` for a body this shape cannot serve."""
        ...

    def streams(self, body: Mapping[str, Any]) -> bool:
        """Whether the request asks for a streamed reply."""
        return body.get("stream") is True

    @abstractmethod
    def instruct(
        self,
        body: Mapping[str, Any],
        asked: Asked,
        instructions: Instructions,
        markers: Markers,
    ) -> dict[str, Any]:
        """The body forwarded upstream: `body` with the instructions where this shape takes
        them, and `asked` (its messages with cards read back) in place of its own."""
        ...

    @abstractmethod
    def slots(self, reply: Any) -> list[Slot] | None:
        """Where a whole reply keeps its text, in order (None: not a reply of this shape)."""
        ...

    @abstractmethod
    async def rewrite(self, event: Event, relay: Relay) -> list[Event]:
        """The events to send for one event of the upstream's stream (its text fed)."""
        ...

    @abstractmethod
    def tail(self, last: Event | None, text: str, relay: Relay) -> Event:
        """An event carrying `text`, held back until a stream that ended without saying so."""
        ...

    def error_body(self, message: str, kind: str, code: str | int | None = None) -> Any:
        """An error as this shape's clients read it."""
        return error_body(message, kind, code)

    def error_event(self, body: Any) -> Event:
        """An error told inside a stream already begun."""
        return Event(None, body)

    def key(self, key: str) -> tuple[str, str]:
        """The header that gives the upstream `key` (`gmtags serve --upstream-key-env`)."""
        if self.key_header == "authorization":
            return "Authorization", f"Bearer {key}"
        return self.key_header, key


class MessagesBody(Shape):
    """A shape whose request holds OpenAI-style `messages`: placed by them (SPEC §7.1) and
    instructed as SPEC §7.1 says (`gmtags.server.messages`)."""

    def read(self, body: Mapping[str, Any]) -> Asked:
        return Asked(messages=require_messages(body))

    def instruct(
        self, body: Mapping[str, Any], asked: Asked, instructions: Instructions, markers: Markers
    ) -> dict[str, Any]:
        assert asked.messages is not None
        messages = with_instructions(asked.messages, instructions, merge=markers.merge)
        return {**body, "messages": messages}


class PromptBody(Shape):
    """A shape whose request holds one text `prompt`: placed by the stored replies it holds
    and instructed at its markers (`in_prompt`)."""

    def read(self, body: Mapping[str, Any]) -> Asked:
        return Asked(prompt=require_prompt(body))

    def instruct(
        self, body: Mapping[str, Any], asked: Asked, instructions: Instructions, markers: Markers
    ) -> dict[str, Any]:
        assert asked.prompt is not None
        return {**body, "prompt": in_prompt(asked.prompt, instructions, markers)}


def require_messages(body: Mapping[str, Any], field: str = "messages") -> list[Mapping[str, Any]]:
    """The body's non-empty list of messages, each an object with a text `role`."""
    messages = body.get(field)
    if not isinstance(messages, list) or not messages:
        raise BodyError(400, f"{field} must be a non-empty list")
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            raise BodyError(400, f"{field}[{index}] must be an object")
        if not isinstance(message.get("role"), str):
            raise BodyError(400, f"{field}[{index}].role must be text (system, user, assistant)")
    return messages


def require_prompt(body: Mapping[str, Any], field: str = "prompt") -> str:
    """The body's prompt: one text (a list holding one text is read as it)."""
    prompt = body.get(field)
    if isinstance(prompt, list) and len(prompt) == 1 and isinstance(prompt[0], str):
        prompt = prompt[0]
    if not isinstance(prompt, str):
        raise BodyError(400, f"{field} must be text (gmtags places one prompt per request)")
    return prompt


def one_choice(body: Mapping[str, Any]) -> None:
    """Refuse a request for several choices: only choice 0 is ruled."""
    n = body.get("n")
    if n is not None and n != 1:
        raise BodyError(
            400, "gmtags rules one reply per request: n must be 1 (turn off multiple swipes)"
        )


def in_prompt(prompt: str, instructions: Instructions, markers: Markers) -> str:
    """A text prompt with the GM instructions where it holds `markers.instructions`, else at
    its very start, and the turn reminder where it holds `markers.turn`, else joined to the
    instructions (SPEC §7.2). A marker written twice takes them once; its other copies go."""
    parts = _split(prompt, (markers.instructions, markers.turn))
    has_turn = markers.turn in parts
    head = instructions.system if has_turn else f"{instructions.system}\n\n{instructions.reminder}"
    out: list[str] = []
    placed: set[str] = set()
    for part in parts:
        if part in (markers.instructions, markers.turn):
            if part not in placed:
                out.append(head if part == markers.instructions else instructions.reminder)
                placed.add(part)
            continue
        out.append(part)
    if markers.instructions not in placed:
        out.insert(0, head + "\n\n")
    return "".join(out)


def _split(text: str, markers: tuple[str, ...]) -> list[str]:
    """`text` cut before and after every copy of the markers (the markers kept as parts)."""
    found = [marker for marker in markers if marker]
    parts: list[str] = []
    start = 0
    while found:
        hits = [(text.find(marker, start), marker) for marker in found]
        hits = [(at, marker) for at, marker in hits if at >= 0]
        if not hits:
            break
        at, marker = min(hits, key=lambda hit: (hit[0], -len(hit[1])))
        parts += [text[start:at], marker]
        start = at + len(marker)
    parts.append(text[start:])
    return [part for part in parts if part]


def openai_chunk(last: Event | None, kind: str, choice: dict[str, Any]) -> Event:
    """A streamed OpenAI-style chunk like the last one (its id, time, model) holding `choice`."""
    data = last.data if last is not None and isinstance(last.data, dict) else {}
    return Event(
        None,
        {
            "id": data.get("id", "gmtags"),
            "object": kind,
            "created": data.get("created", 0),
            "model": data.get("model", ""),
            "choices": [choice],
        },
    )


def first_choice(reply: Any) -> dict[str, Any] | None:
    """An OpenAI-style reply's choice 0, when it is an object."""
    choices = reply.get("choices") if isinstance(reply, dict) else None
    choice = choices[0] if isinstance(choices, list) and choices else None
    return choice if isinstance(choice, dict) else None


def finished(choice: Mapping[str, Any]) -> bool:
    """Whether an OpenAI-style choice ends the reply: a `finish_reason` (KoboldCpp sends the
    text `"null"` until its last chunk)."""
    reason = choice.get("finish_reason")
    return reason is not None and reason != "null"


async def fed(relay: Relay, holder: MutableMapping[str, Any], key: str, ends: bool) -> None:
    """Feed `holder[key]` (when it is text) and put the processor's output in its place; when
    the event ends the reply (`ends`), the text held back joins it."""
    if relay.closed:
        return
    content = holder.get(key)
    out = ""
    if isinstance(content, str):
        out = await relay.feed(content)
    if ends:
        out += relay.close()
    if isinstance(content, str) or out:
        holder[key] = out
