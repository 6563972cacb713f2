"""gmtags/server/events.py: the in-process broker the state page follows its chat through."""

from __future__ import annotations

import asyncio
import threading

from gmtags.server.events import QUEUE_SIZE, ChatEvents, page_kind


class TestChatEvents:
    def test_a_subscriber_gets_its_chats_events_only(self) -> None:
        """Events reach the subscribers of their own chat, in order, numbered upwards."""

        async def main() -> list[tuple[str, int, dict[str, object]]]:
            events = ChatEvents()
            with events.subscribe("a") as queue:
                events.current("b", 3)
                events.node("a", 5, 2, "turn", 5)
                events.changed("a")
                got = [queue.get_nowait(), queue.get_nowait()]
                assert queue.empty()
            return [(e.kind, e.number, e.data) for e in got]

        (node, changed) = asyncio.run(main())
        assert node[0] == "node" and node[2] == {
            "chat": "a",
            "node": 5,
            "parent": 2,
            "kind": "reply",
            "current": 5,
        }
        assert changed[0] == "changed" and changed[2] == {"chat": "a"}
        assert changed[1] > node[1]

    def test_leaving_unsubscribes(self) -> None:
        """When the block ends the subscriber is gone, and publishing reaches nobody."""

        async def main() -> int:
            events = ChatEvents()
            with events.subscribe("a"):
                assert events.subscribers("a") == 1
            events.changed("a")
            return events.subscribers("a")

        assert asyncio.run(main()) == 0

    def test_a_full_queue_drops_its_oldest(self) -> None:
        """A subscriber that never reads keeps the newest `QUEUE_SIZE` events."""

        async def main() -> list[int]:
            events = ChatEvents()
            with events.subscribe("a") as queue:
                for number in range(QUEUE_SIZE + 5):
                    events.current("a", number)
                return [queue.get_nowait().data["current"] for _ in range(queue.qsize())]

        kept = asyncio.run(main())
        assert kept == list(range(5, QUEUE_SIZE + 5))

    def test_publishing_from_another_thread(self) -> None:
        """A publisher off the subscriber's loop reaches it through the loop."""

        async def main() -> str:
            events = ChatEvents()
            with events.subscribe("a") as queue:
                thread = threading.Thread(target=events.changed, args=("a",))
                thread.start()
                event = await asyncio.wait_for(queue.get(), 5)
                thread.join()
                return event.kind

        assert asyncio.run(main()) == "changed"

    def test_page_kinds(self) -> None:
        """A store `continue` is a continuation; turns and asides are replies."""
        assert [page_kind(k) for k in ("turn", "aside", "continue")] == [
            "reply",
            "reply",
            "continuation",
        ]
