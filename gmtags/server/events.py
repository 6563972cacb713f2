"""What happened in a chat, told to the pages that follow it (SPEC §11, the events stream).

A small in-process broker: `ChatEvents.subscribe(chat)` gives a queue that
receives every event of that chat from then on; the proxy's `ChatBook` publishes
one when a reply is finished (`node`) and when the chat's current node moves
(`current`), and a page save publishes `changed` (`ChatEvents.changed`). Each
event is a small dict; a page reads it as a signal and fetches what it shows
again, so an event a slow subscriber misses costs nothing but that signal:
a queue holds at most `QUEUE_SIZE` events and drops its oldest when full.

Events stay inside one process: what other processes write to the same
history file reaches this one's pages through `gmtags.server.watch`, which
publishes here too and listens (`ChatEvents.listen`) to know what was already
told. Publishing never blocks and never raises; a subscriber on another event
loop (or a publisher on another thread) is reached through
`call_soon_threadsafe`; a listener is called in the publisher's thread.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections.abc import Callable, Iterator
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
        self._listeners: list[Callable[[ChatEvent], None]] = []
        self._followers: list[Callable[[str], None]] = []

    def on_follow(self, callback: Callable[[str], None]) -> None:
        """Call `callback(chat_id)` whenever a chat gets its first subscriber."""
        self._followers.append(callback)

    def listen(self, listener: Callable[[ChatEvent], None]) -> None:
        """Call `listener(event)` with every event published from now on."""
        self._listeners.append(listener)

    def unlisten(
        self, listener: Callable[[ChatEvent], None], follower: Callable[[str], None] | None = None
    ) -> None:
        """Stop calling `listener` (and `follower`, given to `on_follow`)."""
        if listener in self._listeners:
            self._listeners.remove(listener)
        if follower in self._followers:
            self._followers.remove(follower)

    @contextmanager
    def subscribe(self, chat_id: str) -> Iterator[asyncio.Queue[ChatEvent]]:
        """A queue of chat `chat_id`'s events from now on, until the block ends.

        Called on the event loop that reads the queue.
        """
        subscriber = _Subscriber(asyncio.Queue(QUEUE_SIZE), asyncio.get_running_loop())
        with self._lock:
            first = chat_id not in self._subscribers
            self._subscribers.setdefault(chat_id, set()).add(subscriber)
        if first:
            for callback in list(self._followers):
                callback(chat_id)
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

    def followed(self) -> list[str]:
        """The chats that have a subscriber now."""
        with self._lock:
            return list(self._subscribers)

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
        for listener in list(self._listeners):
            listener(event)
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
