"""gmtags/server/watch.py: what other processes write to the history reaches this one's pages."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from gmtags.history.store import HistoryStore
from gmtags.server.chats import ChatBook
from gmtags.server.events import ChatEvent, ChatEvents
from gmtags.server.watch import StoreWatcher, read_marks
from gmtags.state.snapshot import Snapshot

START = Snapshot.model_validate({"rulesetClocks": [{"name": "Dawn", "size": 4, "filled": 0}]})
AFTER = Snapshot.model_validate({"rulesetClocks": [{"name": "Dawn", "size": 4, "filled": 1}]})
EDITED = Snapshot.model_validate({"rulesetClocks": [{"name": "Dawn", "size": 4, "filled": 2}]})
SYSTEM = {"role": "system", "content": "GM"}


def user(text: str) -> dict[str, str]:
    return {"role": "user", "content": text}


def gm(text: str) -> dict[str, str]:
    return {"role": "assistant", "content": text}


@pytest.fixture
def books(tmp_path: Path) -> Iterator[tuple[ChatBook, ChatBook]]:
    """Two chat books on one history file, each with its own connection (two processes')."""
    path = tmp_path / "h.sqlite3"
    with HistoryStore(path) as here, HistoryStore(path) as there:
        yield ChatBook(here, START), ChatBook(there, START)


def drain(queue: asyncio.Queue[ChatEvent]) -> list[tuple[str, dict[str, object]]]:
    got = []
    while not queue.empty():
        event = queue.get_nowait()
        got.append((event.kind, event.data))
    return got


class TestStoreWatcher:
    def test_a_reply_made_elsewhere_is_a_node_event(self, books: tuple[ChatBook, ...]) -> None:
        """A reply another connection finished after a page began following (even before the
        watcher's next look) reaches this book's followers as `node`, once."""
        here, there = books
        first = there.begin("c", [SYSTEM, user("I push.")])
        there.finish(first, "The gate holds.", AFTER)

        async def main() -> list[tuple[str, dict[str, object]]]:
            watcher = StoreWatcher(here.store, here.events)
            with here.events.subscribe("c") as queue:
                second = there.begin(
                    "c", [SYSTEM, user("I push."), gm("The gate holds."), user("On.")]
                )
                there.finish(second, "It gives.", AFTER)
                watcher.look()
                watcher.look()  # nothing new: nothing told
                watcher.close()
                return drain(queue)

        got = asyncio.run(main())
        nodes = there.store.nodes("c")
        assert got == [
            (
                "node",
                {
                    "chat": "c",
                    "node": nodes[1].id,
                    "parent": nodes[0].id,
                    "kind": "reply",
                    "current": nodes[1].id,
                },
            )
        ]

    def test_a_move_and_a_save_made_elsewhere(self, books: tuple[ChatBook, ...]) -> None:
        """Current moving elsewhere is a `current` event; a save elsewhere is `changed`."""
        here, there = books
        first = there.begin("c", [SYSTEM, user("I push.")])
        there.finish(first, "The gate holds.", AFTER)

        async def main() -> list[tuple[str, dict[str, object]]]:
            watcher = StoreWatcher(here.store, here.events)
            with here.events.subscribe("c") as queue:
                watcher.look()
                there.store.set_current("c", None)
                watcher.look()
                there.store.edit_current("c", lambda _: EDITED)
                watcher.look()
                watcher.close()
                return drain(queue)

        assert asyncio.run(main()) == [
            ("current", {"chat": "c", "current": None}),
            ("changed", {"chat": "c"}),
        ]

    def test_what_this_process_told_is_not_told_again(self, books: tuple[ChatBook, ...]) -> None:
        """A reply, a move and a save published here are each told once, by the book."""
        here, _ = books

        async def main() -> list[str]:
            watcher = StoreWatcher(here.store, here.events)
            here.store.ensure_chat("c", START)
            with here.events.subscribe("c") as queue:
                watcher.look()
                turn = here.begin("c", [SYSTEM, user("I push.")])
                here.finish(turn, "The gate holds.", AFTER)
                watcher.look()
                here.store.edit_current("c", lambda _: EDITED)
                here.events.changed("c")
                watcher.look()
                watcher.close()
                return [kind for kind, _ in drain(queue)]

        assert asyncio.run(main()) == ["node", "changed"]

    def test_unfollowed_chats_are_not_read(self, books: tuple[ChatBook, ...]) -> None:
        """With no page following, a look reads no chat and tells nothing."""
        here, there = books
        watcher = StoreWatcher(here.store, here.events)
        heard: list[ChatEvent] = []
        here.events.listen(heard.append)
        turn = there.begin("c", [SYSTEM, user("I push.")])
        there.finish(turn, "The gate holds.", AFTER)
        watcher.look()
        watcher.close()
        assert heard == [] and here.events.followed() == []

    def test_a_store_in_memory_is_not_watched(self) -> None:
        """No other process can write a store in memory: the watcher is inactive."""
        with HistoryStore(":memory:") as store:
            watcher = StoreWatcher(store, ChatEvents())
            assert not watcher.active
            watcher.look()
            watcher.close()

    def test_marks(self, books: tuple[ChatBook, ...]) -> None:
        """A chat's marks: its finished nodes, its current node, the current snapshot's name."""
        here, _ = books
        here.store.ensure_chat("c", START)
        assert read_marks(here.store, "c").shown == here.store.start_name("c")
        turn = here.begin("c", [SYSTEM, user("I push.")])
        node = here.finish(turn, "The gate holds.", AFTER)
        marks = read_marks(here.store, "c")
        assert marks.nodes == {node.id: (None, "turn")}
        assert marks.current == node.id and marks.shown == node.after
