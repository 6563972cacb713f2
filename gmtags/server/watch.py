"""Replies and saves made by other processes, told to the pages this one serves (SPEC §11, §12).

`gmtags serve --workers N`, or several `gmtags serve` on one history file,
write each chat's replies from whichever process served the request, and a
page following the chat may be open on any of them. The events broker
(`gmtags.server.events`) is in-process, so each process also watches the
store: while a page follows a chat, every `INTERVAL` seconds the watcher asks
the store's probe (`HistoryStore.probe`) whether anyone committed since it last
looked, and only then reads the followed chats' finished nodes, current node
and current snapshot name through the store's API. On SQLite the probe is
`PRAGMA data_version` on a connection of its own (no table is read) and says
only that someone wrote, so every followed chat is read; on PostgreSQL it is
the notifications each write transaction sends naming its chat, so only the
chats written are read (the probe is asked at every look, followed or not, so
no notification waits). A chat is also read when a page begins following it,
as what it was told. What it finds new it publishes as the events the chat book
would have: `node` for each new finished node, `current` when the current node
moved, `changed` when only the current snapshot did (a page save).

What this process published itself is not told twice: the watcher listens to
the broker and counts those events as seen. A save elsewhere landing in the
same `INTERVAL` as an event here may then go untold; a page reads every event
as a signal to fetch the chat again, so it still shows the save with the next
event, and at the latest when its stream reconnects (every few seconds).

A store in memory (`:memory:`) is private to its process: nothing to watch.
"""

from __future__ import annotations

import asyncio
import sqlite3
from dataclasses import dataclass, field

from gmtags.history.database import ChangeProbe
from gmtags.history.records import HistoryError
from gmtags.history.store import HistoryStore
from gmtags.log import get_logger
from gmtags.server.events import ChatEvent, ChatEvents

INTERVAL = 0.25
"""Seconds between two looks at the store (a page shows a reply within 2 s: SPEC §11)."""


@dataclass(frozen=True, slots=True)
class Marks:
    """What a page shows of a chat: its finished nodes (id: parent, kind), its current node,
    and the name of the current snapshot."""

    nodes: dict[int, tuple[int | None, str]]
    current: int | None
    shown: str


def read_marks(store: HistoryStore, chat_id: str) -> Marks:
    """Chat `chat_id`'s marks as the store holds them now."""
    nodes = store.nodes(chat_id)
    current = store.current_node(chat_id)
    shown = next((node.after for node in nodes if node.id == current), None)
    return Marks(
        {node.id: (node.parent, node.kind) for node in nodes},
        current,
        shown if shown is not None else store.start_name(chat_id),
    )


@dataclass(slots=True)
class _Seen:
    """A followed chat: its marks at the last look, the node ids and current node this
    process published since, and whether it published anything (its snapshot name moves
    then without a save to tell)."""

    marks: Marks
    published: set[int] = field(default_factory=set)
    current: int | None = None
    told: bool = False


class StoreWatcher:
    """Tells `events` what other processes wrote to `store` for the chats pages follow."""

    def __init__(self, store: HistoryStore, events: ChatEvents, interval: float = INTERVAL):
        self.store = store
        self.events = events
        self.interval = interval
        self.log = get_logger(component="watch")
        self._seen: dict[str, _Seen] = {}
        self._probe: ChangeProbe | None = store.probe()
        events.listen(self._heard)
        events.on_follow(self._follow)

    @property
    def active(self) -> bool:
        """False for a store no other process can write (in memory)."""
        return self._probe is not None

    def close(self) -> None:
        """Stop listening and close the watcher's connection."""
        self.events.unlisten(self._heard, self._follow)
        if self._probe is not None:
            self._probe.close()

    def _follow(self, chat_id: str) -> None:
        """A page began following `chat_id`: what the store holds now is what it was told."""
        if self._probe is None:
            return
        try:
            marks = read_marks(self.store, chat_id)
        except HistoryError:
            return  # not in the store (yet): learnt at the next look
        self._seen[chat_id] = _Seen(marks, current=marks.current)

    def _heard(self, event: ChatEvent) -> None:
        """An event this process published: already told."""
        seen = self._seen.get(str(event.data["chat"]))
        if seen is None:
            return
        seen.told = True
        if event.kind == "node":
            seen.published.add(int(event.data["node"]))
        if event.kind in ("node", "current"):
            seen.current = event.data["current"]

    def look(self) -> None:
        """One look: publish what changed in each followed chat since the last."""
        if self._probe is None:
            return
        followed = set(self.events.followed())
        for chat_id in set(self._seen) - followed:
            del self._seen[chat_id]
        written = self._probe.changed()
        if not followed or written == set():
            return
        for chat_id in sorted(followed if written is None else followed & written):
            try:
                marks = read_marks(self.store, chat_id)
            except HistoryError:
                continue  # not in the store (yet)
            seen = self._seen.get(chat_id)
            if seen is None:
                self._seen[chat_id] = _Seen(marks, current=marks.current)
            else:
                self._tell(chat_id, seen, marks)

    def _tell(self, chat_id: str, seen: _Seen, marks: Marks) -> None:
        old = seen.marks
        current_told = marks.current == seen.current
        news = sorted(set(marks.nodes) - set(old.nodes) - seen.published)
        for ident in news:
            parent, kind = marks.nodes[ident]
            self.events.node(chat_id, ident, parent, kind, marks.current)
            current_told = True
        if marks.current != old.current and not current_told:
            self.events.current(chat_id, marks.current)
        elif not news and not seen.told and marks.shown != old.shown:
            self.events.changed(chat_id)
        self._seen[chat_id] = _Seen(marks, current=marks.current)

    async def run(self) -> None:
        """Look every `interval` seconds until cancelled."""
        while True:
            await asyncio.sleep(self.interval)
            try:
                self.look()
            except (sqlite3.Error, HistoryError) as error:
                self.log.warning("watch-failed", error=str(error))
