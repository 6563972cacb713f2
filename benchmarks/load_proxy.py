"""Load test of `gmtags serve` on loopback (issue 7): concurrent streaming chats.

Not part of `make bench` (a default run takes about 40 s); run it alone:

    python benchmarks/load_proxy.py            # 50 chats for 30 s, direct baseline 10 s
    python benchmarks/load_proxy.py --quick    # 5 chats for 3 s, direct baseline 2 s

The scripted upstream (`gmtags.server.demo_upstream`) and the proxy (the demo
ruleset and state, history in a temporary SQLite file) run with uvicorn in
threads of this process, on free ports of 127.0.0.1 only. Each chat streams a
conversation with `X-Gmtags-Chat: load-<i>`, appending the reply it got and a
new user line every turn, until the time is up. A separate run of the same
shape goes straight to the upstream as the baseline.

Reported: completed replies per second; the time to the first SSE chunk whose
`delta.content` is not empty (p50/p99) through the proxy, directly, and the
difference (the latency the proxy adds); errors (a status other than 200, an
error event, a stream without `[DONE]` or without content, a connection
failure: there must be none); and whether every chat's snapshot history is
intact afterwards, read back with the history store's read API: one node per
reply it got, each the child of the one before (SPEC §7.1), each node's
snapshots those of replaying the upstream's replies with `process()` and the
node's seed from the chat's start, the chat's current node its last one, and
the text the chat received the replay's text.

The client, both servers and the proxy's SQLite writes share one process (and
its GIL), so the figures are those of one machine doing all of it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import httpx

from gmtags.history.snapshots import canonical_json
from gmtags.history.store import HistoryStore
from gmtags.process import process
from gmtags.ruleset.model import Ruleset
from gmtags.server.app import create_app
from gmtags.server.background import BackgroundServer
from gmtags.server.chats import CHAT_HEADER
from gmtags.server.demo import demo_config
from gmtags.server.demo_upstream import MODEL, ScriptedUpstream
from gmtags.state.snapshot import Snapshot

HOST = "127.0.0.1"
"""Loopback only: nothing here listens on or connects to any other address."""
CHATS = 50
SECONDS = 30.0
DIRECT_SECONDS = 10.0
QUICK = (5, 3.0, 2.0)
"""`--quick`: chats, seconds through the proxy, seconds of the direct baseline."""
CLIENT_TIMEOUT = 30.0
SYSTEM = "You are the GM of the Lantern Watch."
API_KEY = "sk-load-test"


class _Discard(list[Any]):
    """A list that keeps nothing: the upstream's request log would grow for the whole run."""

    def append(self, item: Any) -> None:
        pass


@dataclass
class Chat:
    """One chat of a run: what it sent and received."""

    chat_id: str
    messages: list[dict[str, str]]
    replies: list[str] = field(default_factory=list)
    first_bytes: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


@dataclass
class Run:
    """One run's chats and how long it took."""

    chats: list[Chat]
    seconds: float

    @property
    def replies(self) -> int:
        return sum(len(chat.replies) for chat in self.chats)

    @property
    def errors(self) -> list[str]:
        return [error for chat in self.chats for error in chat.errors]

    @property
    def first_bytes(self) -> list[float]:
        return sorted(value for chat in self.chats for value in chat.first_bytes)

    @property
    def rate(self) -> float:
        return self.replies / self.seconds if self.seconds else 0.0


def percentile(values: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile of sorted `values` (nan when there are none)."""
    if not values:
        return float("nan")
    rank = max(1, -(-len(values) * fraction // 1))
    return values[min(int(rank), len(values)) - 1]


def user_line(chat_id: str, turn: int) -> str:
    return f"{chat_id}, turn {turn}: Bram presses on toward the gate."


@dataclass(frozen=True)
class Speaks:
    """How a client of one API shape (SPEC §7.2) asks for a streamed reply and reads it."""

    name: str
    route: str
    """The route under the server's root (`/v1/chat/completions`, `/api/chat`)."""
    framing: str
    """`sse` or `ndjson`."""
    body: Callable[[list[dict[str, str]]], dict[str, Any]]
    """The request body for a conversation's messages."""
    pieces: Callable[[Any], tuple[list[str], bool]]
    """An event's data: the reply text it carries, and whether it ends the reply."""


def _prompt(messages: Sequence[dict[str, str]]) -> str:
    """A conversation as one text prompt, as a text-completion front end writes it."""
    return "".join(f"{message['role']}: {message['content']}\n" for message in messages) + (
        "assistant: "
    )


def _chat_pieces(data: Any) -> tuple[list[str], bool]:
    choices = data.get("choices") or ()
    texts = [(c.get("delta") or {}).get("content") for c in choices]
    return [text for text in texts if text], False


def _text_pieces(data: Any) -> tuple[list[str], bool]:
    return [c["text"] for c in data.get("choices") or () if c.get("text")], False


def _llama_pieces(data: Any) -> tuple[list[str], bool]:
    return ([data["content"]] if data.get("content") else []), data.get("stop") is True


def _generate_pieces(data: Any) -> tuple[list[str], bool]:
    return ([data["response"]] if data.get("response") else []), data.get("done") is True


def _ollama_chat_pieces(data: Any) -> tuple[list[str], bool]:
    content = (data.get("message") or {}).get("content")
    return ([content] if content else []), data.get("done") is True


def _anthropic_pieces(data: Any) -> tuple[list[str], bool]:
    delta = data.get("delta") or {}
    text = delta.get("text") if data.get("type") == "content_block_delta" else None
    return ([text] if text else []), data.get("type") == "message_stop"


SPEAKS: dict[str, Speaks] = {
    speaks.name: speaks
    for speaks in (
        Speaks(
            "chat",
            "/v1/chat/completions",
            "sse",
            lambda messages: {"model": MODEL, "stream": True, "messages": messages},
            _chat_pieces,
        ),
        Speaks(
            "text",
            "/v1/completions",
            "sse",
            lambda messages: {"model": MODEL, "stream": True, "prompt": _prompt(messages)},
            _text_pieces,
        ),
        Speaks(
            "llamacpp",
            "/completion",
            "sse",
            lambda messages: {"stream": True, "prompt": _prompt(messages)},
            _llama_pieces,
        ),
        Speaks(
            "ollama-generate",
            "/api/generate",
            "ndjson",
            lambda messages: {"model": MODEL, "stream": True, "prompt": _prompt(messages)},
            _generate_pieces,
        ),
        Speaks(
            "ollama-chat",
            "/api/chat",
            "ndjson",
            lambda messages: {"model": MODEL, "stream": True, "messages": messages},
            _ollama_chat_pieces,
        ),
        Speaks(
            "anthropic",
            "/v1/messages",
            "sse",
            lambda messages: {
                "model": MODEL,
                "max_tokens": 1024,
                "stream": True,
                "system": messages[0]["content"],
                "messages": messages[1:],
            },
            _anthropic_pieces,
        ),
    )
}
"""Every shape a load test can speak, by the name `--shape` takes (chat first)."""


async def one_reply(
    client: httpx.AsyncClient, root: str, chat: Chat, speaks: Speaks | None = None
) -> int:
    """Stream one reply for `chat` from the server at `root` (its URL without `/v1`) in the
    shape `speaks` (OpenAI chat unless told) and append it, or note why it failed; the number
    of events read."""
    speaks = SPEAKS["chat"] if speaks is None else speaks
    body = speaks.body(chat.messages)
    headers = {CHAT_HEADER: chat.chat_id, "Authorization": f"Bearer {API_KEY}"}
    started = time.perf_counter()
    first: float | None = None
    parts: list[str] = []
    done = False
    events = 0
    try:
        async with client.stream(
            "POST", root + speaks.route, json=body, headers=headers
        ) as response:
            if response.status_code != 200:
                text = (await response.aread()).decode("utf-8", "replace")
                chat.errors.append(f"status {response.status_code}: {text[:200]}")
                return events
            async for line in response.aiter_lines():
                if speaks.framing == "sse":
                    if not line.startswith("data:"):
                        continue
                    data = line[5:].strip()
                elif not line.strip():
                    continue
                else:
                    data = line
                events += 1
                if data == "[DONE]":
                    done = True  # read on to the stream's end: the connection is kept
                    continue
                if done:
                    chat.errors.append("an event after the reply's end")
                    return events
                chunk = json.loads(data)
                if "error" in chunk:
                    chat.errors.append(f"error event: {chunk['error']}")
                    return events
                pieces, ends = speaks.pieces(chunk)
                if pieces and first is None:
                    first = time.perf_counter() - started
                parts.extend(pieces)
                done = done or ends
    except (httpx.HTTPError, ValueError) as error:
        chat.errors.append(f"{type(error).__name__}: {error}")
        return events
    if not done or first is None:
        chat.errors.append("stream ended unfinished" if not done else "reply without content")
        return events
    reply = "".join(parts)
    chat.first_bytes.append(first)
    chat.replies.append(reply)
    chat.messages.append({"role": "assistant", "content": reply})
    chat.messages.append({"role": "user", "content": user_line(chat.chat_id, len(chat.replies))})
    return events


def new_chats(prefix: str, count: int) -> list[Chat]:
    """`count` chats named `<prefix>-<i>`, each at its first user line."""
    names = [f"{prefix}-{index}" for index in range(count)]
    return [
        Chat(
            name,
            [
                {"role": "system", "content": SYSTEM},
                {"role": "user", "content": user_line(name, 0)},
            ],
        )
        for name in names
    ]


async def run_chats(base: str, chats: int, seconds: float) -> Run:
    """`chats` chats streaming replies from `base` (a `/v1` URL) one after another for `seconds`."""
    root = base.removesuffix("/v1")
    book = new_chats("load", chats)
    limits = httpx.Limits(max_connections=chats, max_keepalive_connections=chats)
    async with httpx.AsyncClient(timeout=CLIENT_TIMEOUT, limits=limits) as client:
        started = time.perf_counter()
        deadline = started + seconds

        async def loop(chat: Chat) -> None:
            while time.perf_counter() < deadline and not chat.errors:
                await one_reply(client, root, chat)

        await asyncio.gather(*(loop(chat) for chat in book))
        elapsed = time.perf_counter() - started
    return Run(book, elapsed)


def same(left: Snapshot, right: Snapshot) -> bool:
    return canonical_json(left.to_json_dict()) == canonical_json(right.to_json_dict())


def check_history(
    store: HistoryStore, chat: Chat, ruleset: Ruleset, upstream: ScriptedUpstream
) -> list[str]:
    """What is wrong with `chat`'s stored history (empty when it is intact)."""
    chat_id = chat.chat_id
    count = len(chat.replies)
    if not store.has_chat(chat_id):
        return [f"{chat_id}: not in the store"] if count else []
    nodes = store.nodes(chat_id)
    if len(nodes) != count:
        return [f"{chat_id}: {len(nodes)} nodes for {count} replies"]
    snapshot = store.start(chat_id)
    parent: int | None = None
    for turn, (received, node) in enumerate(zip(chat.replies, nodes, strict=True)):
        raw = upstream.reply_for([{"role": "user"}] * (turn + 1))
        result = process(raw, ruleset, snapshot, seed=node.seed)
        if node.parent != parent:
            return [f"{chat_id}: reply {turn} does not hang under the reply before it"]
        if not same(store.snapshot(node.before), snapshot):
            return [f"{chat_id}: reply {turn} does not start where the last ended"]
        if not same(store.snapshot(node.after), result.snapshot):
            return [f"{chat_id}: reply {turn} differs from its replay"]
        if received != result.text:
            return [f"{chat_id}: reply {turn}: the text received is not the replay's"]
        snapshot, parent = result.snapshot, node.id
    if store.current_node(chat_id) != parent:
        return [f"{chat_id}: the current node is not the last reply"]
    return []


def load_test(chats: int, seconds: float, direct_seconds: float) -> tuple[Run, Run, list[str]]:
    """Run the direct baseline, then the proxy; return both runs and the history problems."""
    upstream = ScriptedUpstream(requests=_Discard(), authorizations=_Discard())
    with tempfile.TemporaryDirectory(prefix="gmtags-load-") as folder:
        db = str(Path(folder) / "history.sqlite3")
        with BackgroundServer(upstream.app, host=HOST) as up:
            upstream_url = f"{up.url}/v1"
            direct = asyncio.run(run_chats(upstream_url, chats, direct_seconds))
            config = replace(demo_config(upstream_url), db=db)
            with BackgroundServer(create_app(config), host=HOST) as proxy:
                proxied = asyncio.run(run_chats(f"{proxy.url}/v1", chats, seconds))
        problems: list[str] = []
        with HistoryStore(db) as store:
            known = {chat.chat_id for chat in proxied.chats if chat.replies}
            extra = set(store.chats()) - {chat.chat_id for chat in proxied.chats}
            problems.extend(f"{chat_id}: unexpected chat in the store" for chat_id in extra)
            for chat in proxied.chats:
                problems.extend(check_history(store, chat, config.ruleset, upstream))
            missing = known - set(store.chats())
            problems.extend(f"{chat_id}: missing from the store" for chat_id in missing)
    return proxied, direct, problems


def main(argv: Sequence[str] | None = None) -> int:
    """Run the load test and print its figures; 0 when there were no errors and histories hold."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chats", type=int, default=CHATS, help="concurrent chats (50)")
    parser.add_argument("--seconds", type=float, default=SECONDS, help="proxy run length (30)")
    parser.add_argument(
        "--direct-seconds", type=float, default=DIRECT_SECONDS, help="baseline length (10)"
    )
    parser.add_argument("--quick", action="store_true", help="5 chats, 3 s (baseline 2 s)")
    args = parser.parse_args(argv)
    chats, seconds, direct_seconds = (
        QUICK if args.quick else (args.chats, args.seconds, args.direct_seconds)
    )

    proxied, direct, problems = load_test(chats, seconds, direct_seconds)

    def ms(values: Sequence[float], fraction: float) -> float:
        return percentile(values, fraction) * 1000

    p50, p99 = ms(proxied.first_bytes, 0.5), ms(proxied.first_bytes, 0.99)
    d50, d99 = ms(direct.first_bytes, 0.5), ms(direct.first_bytes, 0.99)
    errors = proxied.errors + direct.errors
    intact = len(proxied.chats) - len({p.split(":")[0] for p in problems})
    print(
        f"load_proxy: {chats} streaming chats on {HOST}, {proxied.seconds:.1f} s through the"
        f" proxy, {direct.seconds:.1f} s direct to the scripted upstream"
    )
    print(
        f"requests/s:  proxy {proxied.rate:7.1f} ({proxied.replies} replies)"
        f"   direct {direct.rate:7.1f} ({direct.replies} replies)"
    )
    print(
        f"first narration byte (ms):  proxy p50 {p50:.2f} p99 {p99:.2f}"
        f"   direct p50 {d50:.2f} p99 {d99:.2f}"
        f"   added p50 {p50 - d50:+.2f} p99 {p99 - d99:+.2f}"
    )
    return outcome(
        errors,
        f"(proxy {len(proxied.errors)}, direct {len(direct.errors)})",
        problems,
        f"({intact}/{len(proxied.chats)} chats)",
    )


def outcome(errors: Sequence[str], counted: str, problems: Sequence[str], checked: str) -> int:
    """Print the errors and the history check (the first five of each); the exit status."""
    print(f"errors:  {len(errors)} {counted}".rstrip())
    for error in errors[:5]:
        print(f"  {error}")
    print(f"history: {'intact' if not problems else 'NOT intact'} {checked}")
    for problem in problems[:5]:
        print(f"  {problem}")
    return 0 if not errors and not problems else 1


if __name__ == "__main__":
    raise SystemExit(main())
