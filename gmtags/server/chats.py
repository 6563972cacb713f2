"""Which chat a request belongs to, and the snapshot its reply starts from (SPEC §6, §7).

A request's reply is message `n` of its chat, where `n` counts the request's
messages that are not `system` ones (front ends move system text around from
turn to turn; the conversation itself only grows). Snapshots are kept per
message and swipe in the SQLite `HistoryStore`, so:

- a request for a message that already has a stored reply ends where an
  earlier request ended: it is a regenerate or a swipe (SPEC §7) and starts
  from the snapshot before that earlier reply, as a new swipe;
- any other request starts from the state after the last stored reply before
  it (the chat's start when there is none), and replies recorded after it
  (messages the player deleted) are forgotten when its reply is recorded.

Dice seeds come from (chat id, message, swipe) as in `gmtags.transcript.seeds`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gmtags.history.records import History, SwipeRecord
from gmtags.history.snapshots import SnapshotTable
from gmtags.history.store import HistoryStore
from gmtags.state.snapshot import Snapshot
from gmtags.transcript.seeds import derive_seed

CHAT_HEADER = "X-Gmtags-Chat"
MAX_CHAT_ID = 200
"""The longest chat id a header may give (an id is a key, not a document)."""


def conversation(messages: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The request's messages that belong to the conversation (every role but `system`)."""
    return [message for message in messages if message.get("role") != "system"]


def derive_chat_id(messages: Sequence[Mapping[str, Any]]) -> str:
    """A stable chat id from the first messages: the conversation up to its first user message.

    The first request of a chat already holds them and later requests repeat
    them, so every request of the chat gets the same id; a character's shared
    greeting alone would not tell two chats apart, the player's first line does.
    """
    prefix: list[list[Any]] = []
    for message in conversation(messages):
        prefix.append([message.get("role"), message.get("content")])
        if message.get("role") == "user":
            break
    text = json.dumps(prefix, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "auto-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]


@dataclass(frozen=True, slots=True)
class Turn:
    """One reply to be made: its place in the chat, its seed and the snapshot it starts from."""

    chat_id: str
    message: int
    swipe: int
    seed: int
    before: Snapshot

    @property
    def regenerate(self) -> bool:
        """True when this reply replaces an earlier one (a swipe after the first)."""
        return self.swipe > 0


class ChatBook:
    """The proxy's view of the history store: where each reply starts and what it left."""

    def __init__(self, store: HistoryStore, start: Snapshot) -> None:
        self.store = store
        self.start = start

    def _ensure(self, chat_id: str) -> int:
        length = self.store.length(chat_id)
        if length is None:
            table = SnapshotTable()
            name = table.add(self.start)
            self.store.save(History(chat_id, name, 0, {}, dict(table)))
            return 0
        return length

    def begin(self, chat_id: str, messages: Sequence[Mapping[str, Any]]) -> Turn:
        """The turn a request with these messages makes in chat `chat_id`."""
        length = self._ensure(chat_id)
        index = len(conversation(messages))
        record = self.store.record(chat_id, index)
        stored = [swipe for swipe in record.swipes if swipe is not None] if record else []
        if record is not None and stored:
            before = self.store.snapshot(stored[0].before)
            swipe = len(record.swipes)
        elif index == 0 or length == 0:
            before, swipe = self.store.start(chat_id), 0
        else:
            # More messages than the store knows (replies made elsewhere): the latest state.
            before = self.store.state(chat_id, min(index, length) - 1)
            swipe = 0
        return Turn(chat_id, index, swipe, derive_seed(chat_id, index, swipe), before)

    def finish(self, turn: Turn, after: Snapshot) -> None:
        """Record the reply's snapshots as the current swipe of its message."""
        length = self.store.length(turn.chat_id) or 0
        if length > turn.message + 1:
            self.store.delete_from(turn.chat_id, turn.message + 1)
        table = SnapshotTable()
        record = SwipeRecord(table.add(turn.before), table.add(after), turn.seed)
        self.store.record_swipe(
            turn.chat_id, turn.message, turn.swipe, record, dict(table), length=turn.message + 1
        )

    def current(self, chat_id: str) -> Snapshot | None:
        """The chat's current snapshot, or None when the chat is unknown."""
        if self.store.length(chat_id) is None:
            return None
        return self.store.state(chat_id)
