"""The embedded history store: one SQLite file, WAL, no server, keyed by chat id (SPEC §6).

Tables:
- `snapshots(name, body)`: every snapshot once, named by the sha256 of its
  canonical JSON (`gmtags.history.snapshots`), `body` that JSON;
- `chats(chat_id, start, length)`: the start snapshot and message count;
- `messages(chat_id, message, current)`: each assistant message's current swipe;
- `swipes(chat_id, message, swipe, seed, before, after)`: the snapshots of each swipe.

Every write is one transaction (`BEGIN IMMEDIATE` … `COMMIT`), so a process
killed at any point leaves the last committed history readable. The journal
is WAL with `synchronous=NORMAL`: a killed process loses nothing committed;
a power cut may lose the last transaction but never corrupts the file.
Snapshots no record names any more stay in the file until `vacuum_snapshots`.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from types import TracebackType

from gmtags.history.records import History, HistoryError, MessageRecord, SwipeRecord
from gmtags.history.snapshots import canonical_json
from gmtags.state.snapshot import Snapshot

_SCHEMA = """
CREATE TABLE IF NOT EXISTS snapshots (
    name TEXT PRIMARY KEY,
    body TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS chats (
    chat_id TEXT PRIMARY KEY,
    start TEXT NOT NULL REFERENCES snapshots(name),
    length INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS messages (
    chat_id TEXT NOT NULL,
    message INTEGER NOT NULL,
    current INTEGER NOT NULL,
    PRIMARY KEY (chat_id, message)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS swipes (
    chat_id TEXT NOT NULL,
    message INTEGER NOT NULL,
    swipe INTEGER NOT NULL,
    seed INTEGER,
    before TEXT NOT NULL REFERENCES snapshots(name),
    after TEXT NOT NULL REFERENCES snapshots(name),
    PRIMARY KEY (chat_id, message, swipe)
) WITHOUT ROWID;
"""


class HistoryStore:
    """Snapshot histories of many chats in one SQLite file."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA busy_timeout=5000")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        """Close the file."""
        self._db.close()

    def __enter__(self) -> HistoryStore:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def _put_snapshots(self, db: sqlite3.Connection, snapshots: Mapping[str, Snapshot]) -> None:
        db.executemany(
            "INSERT OR IGNORE INTO snapshots(name, body) VALUES (?, ?)",
            ((name, canonical_json(snap.to_json_dict())) for name, snap in snapshots.items()),
        )

    def save(self, history: History) -> None:
        """Store a chat's whole history in one transaction, replacing what was stored."""
        chat = history.chat_id
        with self._transaction() as db:
            self._put_snapshots(db, {name: history.snapshot(name) for name in history.referenced()})
            db.execute("DELETE FROM swipes WHERE chat_id = ?", (chat,))
            db.execute("DELETE FROM messages WHERE chat_id = ?", (chat,))
            db.execute(
                "INSERT OR REPLACE INTO chats(chat_id, start, length) VALUES (?, ?, ?)",
                (chat, history.start, history.length),
            )
            db.executemany(
                "INSERT INTO messages(chat_id, message, current) VALUES (?, ?, ?)",
                ((chat, index, record.current) for index, record in history.messages.items()),
            )
            db.executemany(
                "INSERT INTO swipes(chat_id, message, swipe, seed, before, after)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (
                    (chat, index, swipe, rec.seed, rec.before, rec.after)
                    for index, record in history.messages.items()
                    for swipe, rec in enumerate(record.swipes)
                    if rec is not None
                ),
            )

    def record_swipe(
        self,
        chat_id: str,
        message: int,
        swipe: int,
        record: SwipeRecord,
        snapshots: Mapping[str, Snapshot],
        *,
        length: int,
    ) -> None:
        """Add (or replace) one swipe and make it current, in one transaction.

        `snapshots` must hold the record's snapshots that the store may not
        have yet; `length` is the chat's message count after this message.
        The chat must have been saved once (its start is known).
        """
        with self._transaction() as db:
            if self._chat_row(db, chat_id) is None:
                raise HistoryError(f"chat {chat_id!r} is not in the store")
            self._put_snapshots(db, snapshots)
            db.execute("UPDATE chats SET length = ? WHERE chat_id = ?", (length, chat_id))
            db.execute(
                "INSERT OR REPLACE INTO swipes(chat_id, message, swipe, seed, before, after)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (chat_id, message, swipe, record.seed, record.before, record.after),
            )
            db.execute(
                "INSERT OR REPLACE INTO messages(chat_id, message, current) VALUES (?, ?, ?)",
                (chat_id, message, swipe),
            )

    def delete_from(self, chat_id: str, message: int) -> None:
        """Forget message `message` and every later one of a chat (a delete of the tail)."""
        with self._transaction() as db:
            db.execute("DELETE FROM swipes WHERE chat_id = ? AND message >= ?", (chat_id, message))
            db.execute(
                "DELETE FROM messages WHERE chat_id = ? AND message >= ?", (chat_id, message)
            )
            db.execute(
                "UPDATE chats SET length = MIN(length, ?) WHERE chat_id = ?", (message, chat_id)
            )

    def _chat_row(self, db: sqlite3.Connection, chat_id: str) -> tuple[str, int] | None:
        row = db.execute("SELECT start, length FROM chats WHERE chat_id = ?", (chat_id,)).fetchone()
        return None if row is None else (str(row[0]), int(row[1]))

    def length(self, chat_id: str) -> int | None:
        """The chat's message count, or None when the chat is not in the store."""
        row = self._chat_row(self._db, chat_id)
        return None if row is None else row[1]

    def start(self, chat_id: str) -> Snapshot:
        """The snapshot the chat starts from."""
        row = self._chat_row(self._db, chat_id)
        if row is None:
            raise HistoryError(f"chat {chat_id!r} is not in the store")
        return self.snapshot(row[0])

    def record(self, chat_id: str, message: int) -> MessageRecord | None:
        """One message's swipe records read alone (None when it has none): what the proxy needs."""
        swipes = dict(
            (int(swipe), SwipeRecord(before, after, seed))
            for swipe, seed, before, after in self._db.execute(
                "SELECT swipe, seed, before, after FROM swipes WHERE chat_id = ? AND message = ?",
                (chat_id, message),
            )
        )
        if not swipes:
            return None
        row = self._db.execute(
            "SELECT current FROM messages WHERE chat_id = ? AND message = ?", (chat_id, message)
        ).fetchone()
        records = tuple(swipes.get(index) for index in range(max(swipes) + 1))
        return MessageRecord(records, 0 if row is None else int(row[0]))

    def chats(self) -> list[str]:
        """Every chat id in the store, sorted."""
        return [row[0] for row in self._db.execute("SELECT chat_id FROM chats ORDER BY chat_id")]

    def snapshot(self, name: str) -> Snapshot:
        """The snapshot with this name."""
        row = self._db.execute("SELECT body FROM snapshots WHERE name = ?", (name,)).fetchone()
        if row is None:
            raise HistoryError(f"snapshot {name[:12]}… is not stored")
        return Snapshot.model_validate(json.loads(row[0]))

    def load(self, chat_id: str) -> History:
        """A chat's whole history (its snapshots read once each)."""
        chat = self._chat_row(self._db, chat_id)
        if chat is None:
            raise HistoryError(f"chat {chat_id!r} is not in the store")
        start, length = chat
        currents = dict(
            self._db.execute(
                "SELECT message, current FROM messages WHERE chat_id = ?", (chat_id,)
            ).fetchall()
        )
        by_message: dict[int, dict[int, SwipeRecord]] = {}
        for message, swipe, seed, before, after in self._db.execute(
            "SELECT message, swipe, seed, before, after FROM swipes WHERE chat_id = ?",
            (chat_id,),
        ):
            by_message.setdefault(message, {})[swipe] = SwipeRecord(before, after, seed)
        messages: dict[int, MessageRecord] = {}
        for message, swipes in by_message.items():
            count = max(swipes) + 1
            records = tuple(swipes.get(index) for index in range(count))
            messages[message] = MessageRecord(records, currents.get(message, 0))
        names = {start} | {
            name
            for record in messages.values()
            for s in record.swipes
            if s
            for name in (s.before, s.after)
        }
        snapshots = {name: self.snapshot(name) for name in names}
        return History(chat_id, start, length, messages, snapshots)

    def state(self, chat_id: str, message: int | None = None, swipe: int | None = None) -> Snapshot:
        """SPEC §6: the snapshot after `message`'s `swipe`, read with two indexed lookups.

        The same rules as `History.state`: default the last message and its
        current swipe; a message that is not an assistant message gives the
        state after the last assistant message before it.
        """
        chat = self._chat_row(self._db, chat_id)
        if chat is None:
            raise HistoryError(f"chat {chat_id!r} is not in the store")
        start, length = chat
        index = length - 1 if message is None else message
        if message is not None and not 0 <= index < length:
            raise HistoryError(f"message {index} does not exist ({length} messages)")
        row = self._db.execute(
            "SELECT message, current FROM messages WHERE chat_id = ? AND message <= ?"
            " ORDER BY message DESC LIMIT 1",
            (chat_id, index),
        ).fetchone()
        if (row is None or row[0] != index) and swipe is not None:
            raise HistoryError(f"message {index} is not an assistant message: it has no swipes")
        if row is None:
            return self.snapshot(start)
        chosen = row[1] if swipe is None else swipe
        after = self._db.execute(
            "SELECT after FROM swipes WHERE chat_id = ? AND message = ? AND swipe = ?",
            (chat_id, row[0], chosen),
        ).fetchone()
        if after is None:
            raise HistoryError(f"message {row[0]} swipe {chosen} has no stored snapshot")
        return self.snapshot(after[0])

    def vacuum_snapshots(self) -> int:
        """Delete snapshots no chat refers to any more; returns how many went."""
        with self._transaction() as db:
            cursor = db.execute(
                "DELETE FROM snapshots WHERE name NOT IN ("
                " SELECT start FROM chats UNION SELECT before FROM swipes"
                " UNION SELECT after FROM swipes)"
            )
            return cursor.rowcount
