"""Two `gmtags serve` processes on one PostgreSQL database serve the same chats (SPEC §12),
against the tests' own real PostgreSQL server: turns alternating between them, a swipe served
by the other, twenty requests racing on ten chats over both, and a proxy killed mid-reply. No
reply is lost or duplicated, and every instance reads the same state."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

from gmtags.history.store import HistoryStore, Node
from gmtags.process import process
from gmtags.server.app import create_app
from gmtags.server.background import BackgroundServer
from gmtags.server.demo import demo_config
from gmtags.server.demo_upstream import MODEL, ScriptedUpstream
from tests.postgres import PostgresServer
from tests.server.conftest import read_events
from tests.server.test_workers import SYSTEM, TIMEOUT, Serve, play_at_once, upstream, user_line

__all__ = ["upstream"]  # the fixture, shared with test_workers

Messages = list[dict[str, str]]


@pytest.fixture
def address(postgres: PostgresServer) -> str:
    """A new empty database of the tests' PostgreSQL server."""
    return postgres.create_database()


@pytest.fixture
def pair(address: str, upstream: tuple[ScriptedUpstream, str]) -> Iterator[tuple[Serve, Serve]]:
    """Two `gmtags serve` processes on one PostgreSQL database and one upstream."""
    _, url = upstream
    one = Serve(url, address)
    try:
        two = Serve(url, address)
    except BaseException:
        one.stop()
        raise
    yield one, two
    for running in (one, two):
        if running.process.poll() is None:
            running.stop()


def state(proxy: Serve, chat: str) -> object:
    response = httpx.get(f"{proxy.url}/gmtags/chats/{chat}/state", timeout=TIMEOUT)
    assert response.status_code == 200
    return response.json()


def nodes_api(proxy: Serve, chat: str) -> object:
    response = httpx.get(f"{proxy.url}/gmtags/api/chats/{chat}", timeout=TIMEOUT)
    assert response.status_code == 200
    return response.json()


def replayed(
    store: HistoryStore, scripted: ScriptedUpstream, url: str, node: Node, users: int
) -> str:
    """What the reply of `node` must be: the upstream's reply for `users` user turns, run
    from the node's snapshot before with its seed; its snapshot after must be what that left."""
    raw = scripted.reply_for([{"role": "user"}] * users)
    result = process(raw, demo_config(url).ruleset, store.snapshot(node.before), seed=node.seed)
    assert store.snapshot(node.after) == result.snapshot
    return result.text


class TestTwoProxies:
    def test_alternating_turns_on_one_chat(
        self,
        pair: tuple[Serve, Serve],
        address: str,
        upstream: tuple[ScriptedUpstream, str],
    ) -> None:
        """Six turns of one chat, odd ones on one proxy and even ones on the other: a chain of
        six nodes, each under the one before and starting from what it left, and both
        proxies report the same state and the same nodes after every turn."""
        scripted, url = upstream
        messages: Messages = [SYSTEM, user_line("alt", 0)]
        replies: list[str] = []
        for turn in range(6):
            proxy = pair[turn % 2]
            replies.append(proxy.stream("alt", messages))
            assert state(pair[0], "alt") == state(pair[1], "alt")
            assert nodes_api(pair[0], "alt") == nodes_api(pair[1], "alt")
            messages += [{"role": "assistant", "content": replies[-1]}, user_line("alt", turn + 1)]
        with HistoryStore(address) as store:
            nodes = store.nodes("alt")
            assert len(nodes) == 6
            parent = None
            for turn, (node, received) in enumerate(zip(nodes, replies, strict=True)):
                assert node.parent == parent and node.kind == "turn"
                before = (
                    store.start("alt") if parent is None else store.snapshot(nodes[turn - 1].after)
                )
                assert store.snapshot(node.before) == before
                assert received == replayed(store, scripted, url, node, turn + 1)
                parent = node.id
            assert store.current_node("alt") == nodes[-1].id
            assert state(pair[0], "alt") == store.current("alt").to_json_dict()  # type: ignore[union-attr]

    def test_a_swipe_served_by_the_other_proxy(
        self,
        pair: tuple[Serve, Serve],
        address: str,
        upstream: tuple[ScriptedUpstream, str],
    ) -> None:
        """A turn on one proxy, then its swipe on the other: the swipe is a sibling of the
        first reply (same parent, same snapshot before, its own seed) and becomes current;
        the next turn, on the first proxy, goes on from the swipe the player kept."""
        scripted, url = upstream
        one, two = pair
        opening = [SYSTEM, user_line("sw", 0)]
        first = one.stream("sw", opening)
        turn = [*opening, {"role": "assistant", "content": first}, user_line("sw", 1)]
        second = one.stream("sw", turn)
        swiped = two.stream("sw", turn)  # the same request again: a swipe, on the other
        with HistoryStore(address) as store:
            root, original, swipe = store.nodes("sw")
            assert original.parent == swipe.parent == root.id
            assert original.before == swipe.before == root.after
            assert original.seed != swipe.seed
            assert second == replayed(store, scripted, url, original, 2)
            assert swiped == replayed(store, scripted, url, swipe, 2)
            assert store.current_node("sw") == swipe.id
        assert state(one, "sw") == state(two, "sw")
        onward = [*turn, {"role": "assistant", "content": swiped}, user_line("sw", 2)]
        one.stream("sw", onward)
        with HistoryStore(address) as store:
            last = store.nodes("sw")[-1]
            assert last.parent == swipe.id and last.before == swipe.after

    def test_twenty_racing_requests_on_ten_chats(
        self,
        pair: tuple[Serve, Serve],
        address: str,
        upstream: tuple[ScriptedUpstream, str],
    ) -> None:
        """Ten chats, each sent the same turn twice at once, once to each proxy (twenty
        requests together), then a second turn on each: every request is one node, the two
        racing ones siblings with their own seeds, none lost and none merged."""
        scripted, url = upstream
        scripted.pace = 0.002  # streams overlap
        chats = [f"race-{n}" for n in range(10)]
        jobs = [(chat, proxy) for chat in chats for proxy in pair]
        gate = threading.Barrier(len(jobs))

        def send(job: tuple[str, Serve]) -> str:
            chat, proxy = job
            gate.wait()
            return proxy.stream(chat, [SYSTEM, user_line(chat, 0)])

        with ThreadPoolExecutor(len(jobs)) as pool:
            first = list(pool.map(send, jobs))
        with HistoryStore(address) as store:
            for index, chat in enumerate(chats):
                nodes = store.nodes(chat)
                assert len(nodes) == 2
                assert {node.parent for node in nodes} == {None}
                assert len({node.seed for node in nodes}) == 2
                got = {replayed(store, scripted, url, node, 1) for node in nodes}
                assert got == {first[2 * index], first[2 * index + 1]}

        def go_on(index: int) -> str:
            chat, proxy = chats[index], pair[index % 2]
            kept = first[2 * index + 1]  # the player kept the second proxy's reply
            messages = [SYSTEM, user_line(chat, 0), {"role": "assistant", "content": kept}]
            return proxy.stream(chat, [*messages, user_line(chat, 1)])

        with ThreadPoolExecutor(10) as pool:
            list(pool.map(go_on, range(10)))
        with HistoryStore(address) as store:
            for index, chat in enumerate(chats):
                nodes = store.nodes(chat)
                assert len(nodes) == 3
                # Two swipes whose dice fell alike read the same: the newest is the anchor
                # then (SPEC 7.1's tie-break), so the kept reply is the newest that matches.
                kept = [
                    node
                    for node in nodes[:2]
                    if replayed(store, scripted, url, node, 1) == first[2 * index + 1]
                ][-1]
                assert nodes[2].parent == kept.id
                assert store.current_node(chat) == nodes[2].id

    def test_a_proxy_killed_mid_reply(
        self,
        pair: tuple[Serve, Serve],
        address: str,
        upstream: tuple[ScriptedUpstream, str],
    ) -> None:
        """SIGKILL one proxy while it streams a reply: the history stays whole (the reply it
        never finished is not a node), and the other proxy serves the player's retry from
        the same place."""
        scripted, url = upstream
        one, two = pair
        opening = [SYSTEM, user_line("kill", 0)]
        first = two.stream("kill", opening)
        turn = [*opening, {"role": "assistant", "content": first}, user_line("kill", 1)]
        scripted.pace = 0.05  # a slow model: the kill lands mid-stream
        started = threading.Event()
        broke: list[BaseException] = []

        def doomed() -> None:
            body = {"model": MODEL, "stream": True, "messages": turn}
            try:
                with httpx.stream(
                    "POST",
                    f"{one.url}/v1/chat/completions",
                    json=body,
                    headers={"X-Gmtags-Chat": "kill"},
                    timeout=TIMEOUT,
                ) as response:
                    for line in response.iter_lines():
                        if line.startswith("data: ") and '"content"' in line:
                            started.set()
            except httpx.HTTPError as error:
                broke.append(error)

        reader = threading.Thread(target=doomed)
        reader.start()
        assert started.wait(TIMEOUT)
        one.process.send_signal(signal.SIGKILL)
        one.process.wait(TIMEOUT)
        reader.join(TIMEOUT)
        assert broke  # the caller saw the connection drop
        scripted.pace = 0.0
        retried = two.stream("kill", turn)
        with HistoryStore(address) as store:
            root, retry = store.nodes("kill")
            assert retry.parent == root.id and retry.before == root.after
            assert retried == replayed(store, scripted, url, retry, 2)
            assert store.current_node("kill") == retry.id
            assert state(two, "kill") == store.snapshot(retry.after).to_json_dict()
            with store.database.reading() as db:  # the killed reply: reserved, never finished
                unfinished = db.execute("SELECT parent FROM nodes WHERE after IS NULL").fetchall()
            assert unfinished == [(root.id,)]

    def test_a_page_on_one_proxy_follows_the_other(
        self, pair: tuple[Serve, Serve], upstream: tuple[ScriptedUpstream, str]
    ) -> None:
        """A page following a chat on one proxy is told of a reply the other made, and of a
        save made on the other, through the database's notifications."""
        one, two = pair
        first = one.stream("road", [SYSTEM, user_line("road", 0)])
        second = [SYSTEM, user_line("road", 0), {"role": "assistant", "content": first}]
        second.append(user_line("road", 1))
        events = read_events(two.url, "road", lambda: one.stream("road", second), 1)
        assert [kind for kind, _ in events] == ["node"]
        assert events[0][1]["chat"] == "road"

        def save() -> None:
            body = {"chat": "road", "name": "Ilse", "card": {"fields": {}}}
            httpx.post(f"{one.url}/gmtags/api/builder/save", json=body, timeout=TIMEOUT)

        assert read_events(two.url, "road", save, 1) == [("changed", {"chat": "road"})]
        assert state(one, "road") == state(two, "road")


def test_workers_share_a_postgresql_database(
    address: str, upstream: tuple[ScriptedUpstream, str]
) -> None:
    """`gmtags serve --workers 2` on PostgreSQL: four chats playing three turns at once keep
    every reply, each under the one before and the replay of the upstream's reply."""
    scripted, url = upstream
    proxy = Serve(url, address, workers=2)
    try:
        played = play_at_once(proxy, [f"wk-{n}" for n in range(4)], 3)
    finally:
        proxy.stop()
    with HistoryStore(address) as store:
        for chat, replies in played.items():
            nodes = store.nodes(chat)
            assert [node.parent for node in nodes] == [None, nodes[0].id, nodes[1].id]
            for turn, (node, received) in enumerate(zip(nodes, replies, strict=True)):
                assert received == replayed(store, scripted, url, node, turn + 1)


def test_a_failing_database_is_an_openai_error(
    address: str, upstream: tuple[ScriptedUpstream, str]
) -> None:
    """The store failing while a request is placed: 503 with an OpenAI-style error object
    naming the store without its password, and nothing sent upstream."""
    scripted, url = upstream
    config = replace(demo_config(url), db=address)
    with BackgroundServer(create_app(config)) as proxy:
        with HistoryStore(address) as store, store.database.writing() as db:
            db.execute("DROP TABLE nodes CASCADE")
        seen = len(scripted.requests)
        body = {"model": MODEL, "stream": True, "messages": [SYSTEM, user_line("gone", 0)]}
        response = httpx.post(
            f"{proxy.url}/v1/chat/completions",
            json=body,
            headers={"X-Gmtags-Chat": "gone"},
            timeout=TIMEOUT,
        )
    assert response.status_code == 503
    error = response.json()["error"]
    assert error["type"] == "server_error" and "history store" in error["message"]
    assert response.headers["X-Gmtags-Chat"] == "gone"
    assert len(scripted.requests) == seen


def test_serve_refuses_an_unreachable_database(
    postgres: PostgresServer, upstream: tuple[ScriptedUpstream, str], tmp_path: Path
) -> None:
    """`gmtags serve --db postgresql://…` with no database there: one clear line, exit 1,
    and the password never shown."""
    _, url = upstream
    address = f"postgresql://gm:s3cret@127.0.0.1:{postgres.port + 1}/none?connect_timeout=2"
    demo = Path(__file__).resolve().parents[2] / "gmtags" / "demo"
    done = subprocess.run(
        [
            *(sys.executable, "-c", "from gmtags.cli import run; run()", "serve"),
            *("--ruleset", str(demo / "ruleset.json"), "--upstream", url, "--db", address),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "cannot reach the PostgreSQL history store" in done.stderr
    assert "s3cret" not in done.stderr and "Traceback" not in done.stderr
