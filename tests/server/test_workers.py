"""`gmtags serve --workers N` and several `gmtags serve` on one history file (SPEC §12), run as
real processes: no reply lost or duplicated, and a page open on one process follows replies and
saves made in another."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from gmtags.history.store import HistoryStore
from gmtags.process import process
from gmtags.server.background import BackgroundServer
from gmtags.server.demo import demo_config
from gmtags.server.demo_upstream import MODEL, ScriptedUpstream
from tests.server.conftest import read_events

DEMO = Path(__file__).resolve().parents[2] / "gmtags" / "demo"
TIMEOUT = 20.0
SYSTEM = {"role": "system", "content": "You are the GM of the Lantern Watch."}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Serve:
    """One `gmtags serve` process (the console command's code, run by this interpreter)."""

    def __init__(self, upstream: str, db: Path | str, workers: int = 1) -> None:
        self.port = free_port()
        command = [
            *(sys.executable, "-c", "from gmtags.cli import run; run()", "serve"),
            *("--ruleset", str(DEMO / "ruleset.json"), "--state", str(DEMO / "state.json")),
            *("--upstream", upstream, "--port", str(self.port), "--db", str(db)),
            *("--workers", str(workers)),
        ]
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while not self._healthy():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("gmtags serve did not start")
            time.sleep(0.1)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _healthy(self) -> bool:
        try:
            return httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    def stop(self) -> None:
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def stream(self, chat: str, messages: list[dict[str, str]]) -> str:
        """One streamed reply in `chat`: its content as received."""
        body = {"model": MODEL, "stream": True, "messages": messages}
        parts = []
        with httpx.stream(
            "POST",
            f"{self.url}/v1/chat/completions",
            json=body,
            headers={"X-Gmtags-Chat": chat, "Authorization": "Bearer sk-test"},
            timeout=TIMEOUT,
        ) as response:
            assert response.status_code == 200
            for line in response.iter_lines():
                if line.startswith("data: ") and line != "data: [DONE]":
                    for choice in json.loads(line[6:]).get("choices", ()):
                        parts.append(choice.get("delta", {}).get("content") or "")
        return "".join(parts)


@pytest.fixture
def upstream() -> Iterator[tuple[ScriptedUpstream, str]]:
    """The scripted upstream, in a thread of this process."""
    scripted = ScriptedUpstream()
    with BackgroundServer(scripted.app) as server:
        yield scripted, f"{server.url}/v1"


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., Serve]]:
    """Start `gmtags serve` processes on one history file; all stop after the test."""
    started: list[Serve] = []

    def start(upstream_url: str, workers: int = 1) -> Serve:
        started.append(Serve(upstream_url, tmp_path / "h.sqlite3", workers))
        return started[-1]

    yield start
    for running in started:
        running.stop()


def user_line(chat: str, turn: int) -> dict[str, str]:
    return {"role": "user", "content": f"{chat}, turn {turn}: Bram presses on."}


def play_at_once(proxy: Serve, chats: list[str], turns: int) -> dict[str, list[str]]:
    """Every chat playing `turns` streamed turns through `proxy`, all chats at once: the
    replies each received, in order."""

    def play(chat: str) -> list[str]:
        messages = [SYSTEM, user_line(chat, 0)]
        replies = []
        for turn in range(1, turns + 1):
            replies.append(proxy.stream(chat, messages))
            messages += [{"role": "assistant", "content": replies[-1]}, user_line(chat, turn)]
        return replies

    with ThreadPoolExecutor(len(chats)) as pool:
        return dict(zip(chats, pool.map(play, chats), strict=True))


class TestWorkers:
    def test_concurrent_chats_keep_every_reply(
        self,
        serve: Callable[..., Serve],
        upstream: tuple[ScriptedUpstream, str],
        tmp_path: Path,
    ) -> None:
        """Six chats playing four turns at once through two workers: each reply is one node,
        each under the one before, each the replay of the upstream's reply with its seed."""
        scripted, url = upstream
        proxy = serve(url, workers=2)
        chats = [f"w-{index}" for index in range(6)]
        played = play_at_once(proxy, chats, 4)
        ruleset = demo_config(url).ruleset
        with HistoryStore(tmp_path / "h.sqlite3") as store:
            assert sorted(store.chats()) == chats
            for chat, replies in played.items():
                nodes = store.nodes(chat)
                assert len(nodes) == len(replies)
                snapshot, parent = store.start(chat), None
                for turn, (received, node) in enumerate(zip(replies, nodes, strict=True)):
                    raw = scripted.reply_for([{"role": "user"}] * (turn + 1))
                    result = process(raw, ruleset, snapshot, seed=node.seed)
                    assert node.parent == parent and received == result.text
                    assert store.snapshot(node.after) == result.snapshot
                    snapshot, parent = result.snapshot, node.id
                assert store.current_node(chat) == parent

    def test_racing_swipes_are_each_one_node(
        self,
        serve: Callable[..., Serve],
        upstream: tuple[ScriptedUpstream, str],
        tmp_path: Path,
    ) -> None:
        """Eight requests sent at once on one message (swipes, over two workers) are eight
        sibling nodes with eight seeds: none lost, none merged."""
        _, url = upstream
        proxy = serve(url, workers=2)
        first = proxy.stream("race", [SYSTEM, user_line("race", 0)])
        swipe = [SYSTEM, user_line("race", 0), {"role": "assistant", "content": first}]
        swipe.append(user_line("race", 1))
        with ThreadPoolExecutor(8) as pool:
            replies = list(pool.map(lambda _: proxy.stream("race", swipe), range(8)))
        with HistoryStore(tmp_path / "h.sqlite3") as store:
            root, *swipes = store.nodes("race")
            assert len(swipes) == len(replies) == 8
            assert {node.parent for node in swipes} == {root.id}
            assert len({node.seed for node in swipes}) == 8


class TestEventsAcrossProcesses:
    def test_a_page_on_one_process_follows_another(
        self, serve: Callable[..., Serve], upstream: tuple[ScriptedUpstream, str]
    ) -> None:
        """A page following a chat on process B is told of a reply made by process A, and of
        a save made on A, without a reload."""
        _, url = upstream
        one, two = serve(url), serve(url)
        first = one.stream("road", [SYSTEM, user_line("road", 0)])
        second = [SYSTEM, user_line("road", 0), {"role": "assistant", "content": first}]
        second.append(user_line("road", 1))
        events = read_events(two.url, "road", lambda: one.stream("road", second), 1)
        assert [kind for kind, _ in events] == ["node"]
        assert events[0][1]["kind"] == "reply" and events[0][1]["chat"] == "road"

        def save() -> None:
            body = {"chat": "road", "name": "Ilse", "card": {"fields": {}}}
            httpx.post(f"{one.url}/gmtags/api/builder/save", json=body, timeout=TIMEOUT)

        assert read_events(two.url, "road", save, 1) == [("changed", {"chat": "road"})]
