"""Does the proxy's cost grow with a chat's length? (issue 10)

Not part of `make bench` (a run takes about a minute); run it alone:

    python benchmarks/proxy_history.py              # 10 and 1,000 stored replies
    python benchmarks/proxy_history.py --quick      # 10 and 200

For each length N, a fresh proxy (the demo ruleset, history in a temporary
SQLite file) in front of the scripted upstream plays one chat of N turns the
way SillyTavern sends them: a system message, then only the newest 20
messages of the conversation. The GM's replies each call for a check (2d6,
so many replies share receipts, the anchor's hard case) and now and then
spend or restore the lamp oil. Then the last turn is sent again and again (a
swipe: it anchors on the reply before it), alternately through the proxy and
straight to the upstream, and the time to the first SSE chunk with
narration is measured for both. Reported per N: p50/p99 through the proxy,
directly, the difference (what the proxy adds), and at the end the ratio of
the added p50 at the longest length to the shortest.

Everything runs on 127.0.0.1 in this one process (client, upstream and proxy
share its GIL), requests one at a time.
"""

from __future__ import annotations

import argparse
import itertools
import tempfile
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
from load_proxy import percentile

from gmtags.server.app import create_app
from gmtags.server.background import BackgroundServer
from gmtags.server.chats import CHAT_HEADER
from gmtags.server.demo import demo_config
from gmtags.server.demo_upstream import MODEL, ScriptedUpstream

HOST = "127.0.0.1"
WINDOW = 20
"""Conversation messages sent with each request (SillyTavern's context budget keeps the newest)."""
SYSTEM = "You are the GM of the Lantern Watch."
SAMPLES = 200


class Script:
    """Reply `n`: a line of its own, a 2d6 check, and the oil spent or restored now and then."""

    def __init__(self) -> None:
        self.count = itertools.count(1)

    def __call__(self, messages: Sequence[Any]) -> str:
        n = next(self.count)
        parts = [f"Beat {n}: Bram keeps the lamp low.", '[skill_check: skill="Ward"]']
        if n % 4 == 0:
            parts.append('[sheet: who="Bram the Quiet" op="spend" pool="Lamp oil" amount="1"]')
        elif n % 4 == 2:
            parts.append('[sheet: who="Bram the Quiet" op="restore" pool="Lamp oil" amount="1"]')
        return " ".join(parts)


def first_byte(client: httpx.Client, url: str, body: dict[str, Any]) -> tuple[float, str]:
    """Seconds to the first narration chunk of a streamed reply, and the whole reply."""
    started = time.perf_counter()
    first: float | None = None
    parts: list[str] = []
    with client.stream("POST", url, json=body) as response:
        response.raise_for_status()
        for line in response.iter_lines():
            if not line.startswith("data:") or line.endswith("[DONE]"):
                continue
            chunk = httpx.Response(200, content=line[5:]).json()
            for choice in chunk.get("choices") or ():
                content = (choice.get("delta") or {}).get("content")
                if content:
                    first = first if first is not None else time.perf_counter() - started
                    parts.append(content)
    assert first is not None
    return first, "".join(parts)


def window(conversation: list[dict[str, str]]) -> list[dict[str, str]]:
    return [{"role": "system", "content": SYSTEM}, *conversation[-WINDOW:]]


def measure(length: int, samples: int) -> tuple[list[float], list[float]]:
    """First-byte times through the proxy and direct, at a chat of `length` stored replies."""
    upstream = ScriptedUpstream(script=Script())
    with tempfile.TemporaryDirectory(prefix="gmtags-history-") as folder:
        db = str(Path(folder) / "history.sqlite3")
        with BackgroundServer(upstream.app, host=HOST) as up:
            config = replace(demo_config(f"{up.url}/v1"), db=db)
            with (
                BackgroundServer(create_app(config), host=HOST) as proxy,
                httpx.Client(timeout=30, headers={CHAT_HEADER: "long"}) as client,
            ):
                through = f"{proxy.url}/v1/chat/completions"
                direct = f"{up.url}/v1/chat/completions"
                conversation: list[dict[str, str]] = []
                for turn in range(length):
                    conversation.append({"role": "user", "content": f"Turn {turn}: I go on."})
                    body = {"model": MODEL, "stream": True, "messages": window(conversation)}
                    _, reply = first_byte(client, through, body)
                    conversation.append({"role": "assistant", "content": reply})
                conversation.append({"role": "user", "content": "And then?"})
                body = {"model": MODEL, "stream": True, "messages": window(conversation)}
                proxied, straight = [], []
                for _ in range(samples):
                    proxied.append(first_byte(client, through, body)[0])
                    straight.append(first_byte(client, direct, body)[0])
    return sorted(proxied), sorted(straight)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10 and 200 replies")
    args = parser.parse_args(argv)
    lengths = (10, 200) if args.quick else (10, 1000)
    added: dict[int, float] = {}
    print(f"proxy_history: one chat, {WINDOW} newest messages a request, {SAMPLES} swipes each")
    for length in lengths:
        proxied, straight = measure(length, SAMPLES)
        p50, p99 = percentile(proxied, 0.5) * 1e3, percentile(proxied, 0.99) * 1e3
        d50, d99 = percentile(straight, 0.5) * 1e3, percentile(straight, 0.99) * 1e3
        added[length] = p50 - d50
        print(
            f"{length:5d} stored replies: first narration byte (ms) proxy p50 {p50:.2f}"
            f" p99 {p99:.2f}, direct p50 {d50:.2f} p99 {d99:.2f},"
            f" added p50 {p50 - d50:+.2f} p99 {p99 - d99:+.2f}"
        )
    short, long = lengths
    print(f"added p50 at {long} / at {short}: {added[long] / added[short]:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
