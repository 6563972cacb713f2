"""What happened in a chat, told to the pages that follow it (SPEC §11, the events stream).

A small in-process broker: `ChatEvents.subscribe(chat)` gives a queue that
receives every event of that chat from then on; the proxy's `ChatBook` publishes
one when a reply is finished (`node`) and when the chat's current node moves
(`current`), and a page save publishes `changed` (`ChatEvents.changed`). Each
event is a small dict; a page reads it as a signal and fetches what it shows
again, so an event a slow subscriber misses costs nothing but that signal:
a queue holds at most `QUEUE_SIZE` events and drops its oldest when full.

Events stay inside one process. Publishing never blocks and never raises;
a subscriber on another event loop (or a publisher on another thread) is
reached through `call_soon_threadsafe`.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal

EventKind = Literal["node", "current", "changed"]
"""`node`: a reply was finished; `current`: the chat's current node moved; `changed`: a save."""

QUEUE_SIZE = 64
"""Events a subscriber's queue holds before the oldest goes (each one is only a signal)."""


@dataclass(frozen=True, slots=True)
class ChatEvent:
    """One event of one chat: its kind, a number that only grows, and its JSON data."""

    kind: EventKind
    number: int
    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class _Subscriber:
    queue: asyncio.Queue[ChatEvent]
    loop: asyncio.AbstractEventLoop


def page_kind(kind: str) -> Literal["reply", "continuation"]:
    """A node's kind as the pages name it (SPEC §11): a store `continue` is a continuation;
    a turn and an aside are replies."""
    return "continuation" if kind == "continue" else "reply"


def _offer(queue: asyncio.Queue[ChatEvent], event: ChatEvent) -> None:
    """Put `event` in `queue`, dropping the oldest event when it is full."""
    if queue.full():
        queue.get_nowait()
    queue.put_nowait(event)


class ChatEvents:
    """Subscribers per chat, and the events published to them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscribers: dict[str, set[_Subscriber]] = {}
        self._numbers = itertools.count(1)

    @contextmanager
    def subscribe(self, chat_id: str) -> Iterator[asyncio.Queue[ChatEvent]]:
        """A queue of chat `chat_id`'s events from now on, until the block ends.

        Called on the event loop that reads the queue.
        """
        subscriber = _Subscriber(asyncio.Queue(QUEUE_SIZE), asyncio.get_running_loop())
        with self._lock:
            self._subscribers.setdefault(chat_id, set()).add(subscriber)
        try:
            yield subscriber.queue
        finally:
            with self._lock:
                chat = self._subscribers.get(chat_id)
                if chat is not None:
                    chat.discard(subscriber)
                    if not chat:
                        del self._subscribers[chat_id]

    def subscribers(self, chat_id: str) -> int:
        """How many subscribers chat `chat_id` has now."""
        with self._lock:
            return len(self._subscribers.get(chat_id, ()))

    def publish(self, chat_id: str, kind: EventKind, /, **data: Any) -> ChatEvent:
        """Tell every subscriber of `chat_id` that `kind` happened; `data` goes with it."""
        event = ChatEvent(kind, next(self._numbers), {"chat": chat_id, **data})
        with self._lock:
            subscribers = list(self._subscribers.get(chat_id, ()))
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        for subscriber in subscribers:
            if subscriber.loop is running:
                _offer(subscriber.queue, event)
            elif not subscriber.loop.is_closed():
                subscriber.loop.call_soon_threadsafe(_offer, subscriber.queue, event)
        return event

    def node(
        self, chat_id: str, node: int, parent: int | None, kind: str, current: int | None
    ) -> None:
        """A reply was finished: its id, its parent, its store kind (shown as `reply` or
        `continuation`, see `page_kind`) and the chat's current node after it."""
        shown = page_kind(kind)
        self.publish(chat_id, "node", node=node, parent=parent, kind=shown, current=current)

    def current(self, chat_id: str, current: int | None) -> None:
        """The chat's current node moved to `current` (None: its start)."""
        self.publish(chat_id, "current", current=current)

    def changed(self, chat_id: str) -> None:
        """The chat's state changed without a new reply (a save from the builder page)."""
        self.publish(chat_id, "changed")
