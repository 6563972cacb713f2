"""The embedded history store: replies as nodes of a tree per chat, one SQLite file (SPEC §7.1).

Every reply gmtags makes (through the proxy, or saved by `gmtags transcript
reprocess --db`) is a node: its chat, its parent node (NULL: the chat's
start), the snapshots before and after it, its seed and its fingerprint
(`gmtags.history.fingerprint`). Several children of one node are swipes of
one message; a continuation is a child of the reply it continues. A node's place
and reply never change (a save from the pages replaces its snapshot after,
keeping the old one in `edits`), and nodes are never deleted on the strength of
a count: a node no later request anchors on simply stops mattering.

Tables (`gmtags.history.schema`: versioned, migrated on opening, never destructive):
- `snapshots(name, body, layout)`: every snapshot once, named by the sha256 of
  its canonical JSON (`gmtags.history.snapshots`). A snapshot written now is
  a manifest of shared parts (layout 2, `gmtags.history.parts`); one written
  before parts existed keeps its whole JSON as its body (layout 1) and reads
  the same;
- `snapshot_parts(id, hash, body)`: each part (a card, the party sheet, the
  clocks…) once, by the sha256 of its canonical JSON, `body` that JSON
  zlib-compressed;
- `histories(chat_id, start, current)`: each chat's start snapshot and its
  current node (NULL: the start);
- `nodes(id, chat_id, parent, kind, seed, before, after, key, tail, receipts,
  text)`: the replies. A node whose `after` is NULL is being made (its id and
  seed are reserved when the request arrives); it is matched by nothing.
  `key` and `tail` are the fingerprint's lookup keys and `size` its size
  (indexed); `receipts` (a
  JSON list) or `text` is the fingerprint itself, read to confirm a match;
  `created` when the node was made (added to older files on opening);
- `edits(id, chat_id, node, old, new, created)`: each save the pages made into
  a chat's current snapshot (`edit_current`): the node whose snapshot after
  it replaced (NULL: the chat's start), and the snapshots before and after.

Every write is one transaction (`BEGIN IMMEDIATE` … `COMMIT`), so a process
killed at any point leaves the last committed history readable. The journal
is WAL with `synchronous=NORMAL`: a killed process loses nothing committed; a
power cut may lose the last transaction but never corrupts the file.
Snapshots no chat or node names stay in the file until `vacuum_snapshots`,
which also drops the parts only they held.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import TracebackType
from typing import Literal

from gmtags.history.fingerprint import Fingerprint
from gmtags.history.parts import Split, assemble, manifest, part_ids, read_manifest, split
from gmtags.history.records import HistoryError
from gmtags.history.schema import FULL, PARTS, migrate
from gmtags.history.seeds import derive_node_seed
from gmtags.history.snapshots import SnapshotTable
from gmtags.state.snapshot import Snapshot

NodeKind = Literal["turn", "continue", "aside"]
"""What a node's request was: a player's turn, a continuation, or anything else (background)."""

_NODE_COLUMNS = "id, chat_id, parent, kind, seed, before, after, receipts, text, created"


@dataclass(frozen=True, slots=True)
class Head:
    """A node's place and lookup keys, read without its fingerprint: what tie-breaks need."""

    id: int
    chat_id: str
    parent: int | None
    key: str | None
    tail: str | None
    size: int


@dataclass(frozen=True, slots=True)
class Node:
    """One stored reply: where it hangs, its snapshots by name, and its fingerprint."""

    id: int
    chat_id: str
    parent: int | None
    kind: NodeKind
    seed: int | None
    before: str
    after: str
    fingerprint: Fingerprint
    created: float | None = None
    """When the node was made (seconds since the epoch; None in a file older than the column)."""


@dataclass(frozen=True, slots=True)
class ChatSummary:
    """One chat as the pages list it: its id, its replies, and when it last changed."""

    chat_id: str
    replies: int
    """Finished replies (turns and asides; continuations are parts of their reply)."""
    updated: float | None
    """Seconds since the epoch of its newest node or page save (None: none is dated)."""


def _node(row: tuple[object, ...]) -> Node:
    ident, chat_id, parent, kind, seed, before, after, receipts, text, created = row
    print_ = Fingerprint(
        tuple(json.loads(str(receipts))) if receipts else (), str(text) if text else ""
    )
    return Node(
        int(str(ident)),
        str(chat_id),
        None if parent is None else int(str(parent)),
        kind,  # type: ignore[arg-type]
        None if seed is None else int(str(seed)),
        str(before),
        str(after),
        print_,
        None if created is None else float(str(created)),
    )


def _head(row: tuple[object, ...]) -> Head:
    ident, chat_id, parent, key, tail, size = row
    return Head(
        int(str(ident)),
        str(chat_id),
        None if parent is None else int(str(parent)),
        None if key is None else str(key),
        None if tail is None else str(tail),
        int(str(size or 0)),
    )


def _receipts(print_: Fingerprint) -> str | None:
    """A receipts fingerprint as stored: a JSON list (None for a text fingerprint)."""
    return json.dumps(list(print_.receipts), ensure_ascii=False) if print_.receipts else None


class HistoryStore:
    """The reply trees of many chats in one SQLite file.

    One connection, guarded by a lock, so the store can be shared by threads;
    the proxy uses it from its event loop only.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._lock = threading.RLock()
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA busy_timeout=5000")
        migrate(self._db)
        self._snapshots: dict[str, Snapshot] = {}

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
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _name(self, db: sqlite3.Connection, snapshot: Snapshot | Split) -> str:
        """Store a snapshot (once, as parts: `gmtags.history.parts`) and return its name."""
        cut = snapshot if isinstance(snapshot, Split) else split(snapshot.to_json_dict())
        if db.execute("SELECT 1 FROM snapshots WHERE name = ?", (cut.name,)).fetchone():
            return cut.name  # stored already, in either layout
        ids: dict[str, int] = {}
        hashes = list(cut.parts)
        for start in range(0, len(hashes), _BATCH):
            batch = hashes[start : start + _BATCH]
            marks = ", ".join("?" for _ in batch)
            rows = db.execute(
                f"SELECT hash, id FROM snapshot_parts WHERE hash IN ({marks})", batch
            ).fetchall()
            ids.update((str(digest), int(ident)) for digest, ident in rows)
        for digest in hashes:
            if digest not in ids:
                body = zlib.compress(cut.parts[digest].encode("utf-8", "surrogatepass"), _LEVEL)
                cursor = db.execute(
                    "INSERT INTO snapshot_parts(hash, body) VALUES (?, ?)", (digest, body)
                )
                ids[digest] = int(cursor.lastrowid or 0)
        db.execute(
            "INSERT INTO snapshots(name, body, layout) VALUES (?, ?, ?)",
            (cut.name, manifest(cut, ids), PARTS),
        )
        return cut.name

    # Chats -----------------------------------------------------------------

    def ensure_chat(self, chat_id: str, start: Snapshot) -> None:
        """Make chat `chat_id` known, starting from `start`, unless it already is."""
        if self.has_chat(chat_id):
            return  # the common case, read without taking the write lock
        with self._transaction() as db:
            if self._start(db, chat_id) is None:
                db.execute(
                    "INSERT INTO histories(chat_id, start, current) VALUES (?, ?, NULL)",
                    (chat_id, self._name(db, start)),
                )

    def _start(self, db: sqlite3.Connection, chat_id: str) -> str | None:
        row = db.execute("SELECT start FROM histories WHERE chat_id = ?", (chat_id,)).fetchone()
        return None if row is None else str(row[0])

    def has_chat(self, chat_id: str) -> bool:
        """True when the store knows chat `chat_id`."""
        with self._lock:
            return self._start(self._db, chat_id) is not None

    def start(self, chat_id: str) -> Snapshot:
        """The snapshot chat `chat_id` starts from."""
        return self.snapshot(self.start_name(chat_id))

    def start_name(self, chat_id: str) -> str:
        """The name of the snapshot chat `chat_id` starts from."""
        with self._lock:
            name = self._start(self._db, chat_id)
        if name is None:
            raise HistoryError(f"chat {chat_id!r} is not in the store")
        return name

    def chats(self) -> list[str]:
        """Every chat id in the store, sorted."""
        with self._lock:
            rows = self._db.execute("SELECT chat_id FROM histories ORDER BY chat_id").fetchall()
        return [str(row[0]) for row in rows]

    def chat_summaries(self) -> list[ChatSummary]:
        """Every chat with its reply count and when it last changed, newest first (the pages'
        chat list, SPEC §11). A continuation is part of the reply it continues, so it is not
        counted; `updated` is the newest finished node's or page save's `created` (None when
        the chat has neither, or only rows older than the column), and chats with none come
        last, by id."""
        with self._lock:
            rows = self._db.execute(
                "SELECT h.chat_id,"
                " (SELECT COUNT(*) FROM nodes n WHERE n.chat_id = h.chat_id"
                "  AND n.after IS NOT NULL AND n.kind != 'continue'),"
                " (SELECT MAX(n.created) FROM nodes n WHERE n.chat_id = h.chat_id"
                "  AND n.after IS NOT NULL),"
                " (SELECT MAX(e.created) FROM edits e WHERE e.chat_id = h.chat_id)"
                " FROM histories h"
            ).fetchall()
        found = []
        for chat_id, replies, made, edited in rows:
            times = [float(t) for t in (made, edited) if t is not None]
            found.append(ChatSummary(str(chat_id), int(replies), max(times) if times else None))
        found.sort(key=lambda chat: chat.chat_id)
        found.sort(key=lambda chat: -chat.updated if chat.updated is not None else float("inf"))
        return found

    def current_node(self, chat_id: str) -> int | None:
        """The id of the chat's current node (None: the chat is at its start)."""
        with self._lock:
            row = self._db.execute(
                "SELECT current FROM histories WHERE chat_id = ?", (chat_id,)
            ).fetchone()
        if row is None:
            raise HistoryError(f"chat {chat_id!r} is not in the store")
        return None if row[0] is None else int(row[0])

    def set_current(self, chat_id: str, node: int | None) -> None:
        """Make `node` (None: the start) the chat's current node."""
        with self._lock:  # one statement: atomic without a transaction around it
            self._db.execute("UPDATE histories SET current = ? WHERE chat_id = ?", (node, chat_id))

    def current(self, chat_id: str) -> Snapshot | None:
        """The chat's current snapshot, or None when the chat is unknown."""
        with self._lock:
            row = self._db.execute(
                "SELECT h.start, n.after FROM histories h LEFT JOIN nodes n ON n.id = h.current"
                " WHERE h.chat_id = ?",
                (chat_id,),
            ).fetchone()
        if row is None:
            return None
        return self.snapshot(str(row[1] if row[1] is not None else row[0]))

    # Nodes -----------------------------------------------------------------

    def reserve(
        self, chat_id: str, parent: int | None, kind: NodeKind, before: Snapshot | str
    ) -> Node:
        """A new node being made: its id and its seed (from the chat and the id) are fixed now.
        `before` is its snapshot, or the name of one the store holds.

        Two requests racing on one chat get two nodes and two seeds.
        """
        made = time.time()
        if isinstance(before, str):
            name = before
            with self._lock:  # one statement: atomic without a transaction around it
                cursor = self._db.execute(
                    "INSERT INTO nodes(chat_id, parent, kind, before, created)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (chat_id, parent, kind, name, made),
                )
        else:
            with self._transaction() as db:
                name = self._name(db, before)
                cursor = db.execute(
                    "INSERT INTO nodes(chat_id, parent, kind, before, created)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (chat_id, parent, kind, name, made),
                )
        ident = int(cursor.lastrowid or 0)
        seed = derive_node_seed(chat_id, ident)  # stored with the reply, in `complete`
        return Node(ident, chat_id, parent, kind, seed, name, name, Fingerprint((), ""), made)

    def complete(
        self, node: Node, after: Snapshot | str, print_: Fingerprint, *, current: bool
    ) -> Node:
        """Store a reserved node's reply (`after`: its snapshot, or the name of one the store
        holds); with `current`, it becomes its chat's current node."""
        with self._transaction() as db:
            name = after if isinstance(after, str) else self._name(db, after)
            db.execute(
                "UPDATE nodes SET after = ?, seed = ?, key = ?, tail = ?, size = ?, receipts = ?,"
                " text = ? WHERE id = ?",
                (
                    name,
                    node.seed,
                    print_.key,
                    print_.tail,
                    print_.size,
                    _receipts(print_),
                    print_.text or None,
                    node.id,
                ),
            )
            if current:
                db.execute(
                    "UPDATE histories SET current = ? WHERE chat_id = ?", (node.id, node.chat_id)
                )
        return Node(
            node.id,
            node.chat_id,
            node.parent,
            node.kind,
            node.seed,
            node.before,
            name,
            print_,
            node.created,
        )

    def abandon(self, node: Node) -> None:
        """Forget a reserved node whose reply was never made (the upstream failed)."""
        with self._lock:  # one statement: atomic without a transaction around it
            self._db.execute("DELETE FROM nodes WHERE id = ? AND after IS NULL", (node.id,))

    def node(self, ident: int) -> Node:
        """The stored node `ident`."""
        with self._lock:
            row = self._db.execute(
                f"SELECT {_NODE_COLUMNS} FROM nodes WHERE id = ? AND after IS NOT NULL", (ident,)
            ).fetchone()
        if row is None:
            raise HistoryError(f"node {ident} is not in the store")
        return _node(row)

    def nodes(self, chat_id: str) -> list[Node]:
        """Every finished node of a chat, oldest first."""
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_NODE_COLUMNS} FROM nodes WHERE chat_id = ? AND after IS NOT NULL"
                " ORDER BY id",
                (chat_id,),
            ).fetchall()
        return [_node(row) for row in rows]

    def exact(self, key: str, chat_id: str | None, limit: int) -> list[Head]:
        """The newest `limit` finished nodes whose fingerprint key is `key`, in chat `chat_id`
        (None: in any chat), newest first."""
        where, params = "key = ?", [key]
        if chat_id is not None:
            where, params = where + " AND chat_id = ?", [*params, chat_id]
        query = (
            f"SELECT id, chat_id, parent, key, tail, size FROM nodes WHERE {where}"
            " AND after IS NOT NULL ORDER BY id DESC LIMIT ?"
        )
        with self._lock:
            rows = self._db.execute(query, (*params, limit)).fetchall()
        return [_head(row) for row in rows]

    def heads(self, idents: Iterable[int]) -> dict[int, Head]:
        """The finished nodes among `idents`, by id, without their fingerprints."""
        wanted = sorted(set(idents))
        found: dict[int, Head] = {}
        for start in range(0, len(wanted), _BATCH):
            batch = wanted[start : start + _BATCH]
            marks = ", ".join("?" for _ in batch)
            with self._lock:
                rows = self._db.execute(
                    f"SELECT id, chat_id, parent, key, tail, size FROM nodes WHERE id IN ({marks})"
                    " AND after IS NOT NULL",
                    batch,
                ).fetchall()
            found.update((int(row[0]), _head(row)) for row in rows)
        return found

    def pieces(self, print_: Fingerprint, chat_id: str | None, limit: int) -> list[Node]:
        """The newest `limit` finished nodes, in chat `chat_id` (None: any chat), that can be
        the last piece of a chain of two or more making up `print_`: smaller than it, with
        its tail, or (a short text) with a key among its end keys. Newest first."""
        keys, tail = print_.end_keys()
        keys.discard(print_.key)
        chat = "" if chat_id is None else " AND chat_id = ?"
        chats = [] if chat_id is None else [chat_id]
        queries: list[tuple[str, list[object]]] = []
        if tail is not None:
            queries.append(("tail = ? AND size < ?", [tail, print_.size]))
        if keys:
            marks = ", ".join("?" for _ in keys)
            queries.append((f"key IN ({marks})", [*sorted(keys)]))
        found: dict[int, Node] = {}
        for where, params in queries:
            query = (
                f"SELECT {_NODE_COLUMNS} FROM nodes WHERE {where}{chat} AND after IS NOT NULL"
                " ORDER BY id DESC LIMIT ?"
            )
            with self._lock:
                rows = self._db.execute(query, (*params, *chats, limit)).fetchall()
            found.update((node.id, node) for node in map(_node, rows))
        return [found[ident] for ident in sorted(found, reverse=True)[:limit]]

    def add_node(
        self,
        chat_id: str,
        parent: int | None,
        before: Snapshot,
        after: Snapshot,
        print_: Fingerprint,
        seed: int | None,
        *,
        current: bool,
    ) -> Node:
        """A finished node added at once (a saved transcript's reply), or the same one found.

        A node with the same chat, parent, fingerprint and snapshots is reused,
        so saving a chat twice adds nothing.
        """
        cuts = split(before.to_json_dict()), split(after.to_json_dict())
        before_name, after_name = cuts[0].name, cuts[1].name
        with self._transaction() as db:
            row = db.execute(
                f"SELECT {_NODE_COLUMNS} FROM nodes WHERE chat_id = ? AND parent IS ? AND key = ?"
                " AND before = ? AND after = ? ORDER BY id LIMIT 1",
                (chat_id, parent, print_.key, before_name, after_name),
            ).fetchone()
            if row is not None:
                node = _node(row)
            else:
                for cut in cuts:
                    self._name(db, cut)
                made = time.time()
                cursor = db.execute(
                    "INSERT INTO nodes(chat_id, parent, kind, seed, before, after, key, tail,"
                    " size, receipts, text, created)"
                    " VALUES (?, ?, 'turn', ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        chat_id,
                        parent,
                        seed,
                        before_name,
                        after_name,
                        print_.key,
                        print_.tail,
                        print_.size,
                        _receipts(print_),
                        print_.text or None,
                        made,
                    ),
                )
                ident = int(cursor.lastrowid or 0)
                node = Node(
                    ident, chat_id, parent, "turn", seed, before_name, after_name, print_, made
                )
            if current:
                db.execute("UPDATE histories SET current = ? WHERE chat_id = ?", (node.id, chat_id))
        return node

    # Edits -----------------------------------------------------------------

    def edit_current(self, chat_id: str, change: Callable[[Snapshot], Snapshot]) -> Snapshot:
        """Replace the chat's current snapshot by `change(current)`, read and written in one
        transaction (a save from the pages: a built card, the party sheet), and return it.

        The current node's snapshot after (the chat's start when it is at its start) is
        what the next reply anchored on it starts from, so that is what changes; the
        snapshot it held is kept in `edits`. `change` may raise (a stale party revision):
        nothing is written then. An unknown chat raises `HistoryError`.
        """
        with self._transaction() as db:
            row = db.execute(
                "SELECT h.current, h.start, n.after FROM histories h"
                " LEFT JOIN nodes n ON n.id = h.current WHERE h.chat_id = ?",
                (chat_id,),
            ).fetchone()
            if row is None:
                raise HistoryError(f"chat {chat_id!r} is not in the store")
            current, old = row[0], str(row[2] if row[2] is not None else row[1])
            changed = change(self.snapshot(old))
            new = self._name(db, changed)
            if current is None:
                db.execute("UPDATE histories SET start = ? WHERE chat_id = ?", (new, chat_id))
            else:
                db.execute("UPDATE nodes SET after = ? WHERE id = ?", (new, current))
            db.execute(
                "INSERT INTO edits(chat_id, node, old, new, created) VALUES (?, ?, ?, ?, ?)",
                (chat_id, current, old, new, time.time()),
            )
        return changed

    # Snapshots -------------------------------------------------------------

    def snapshot(self, name: str) -> Snapshot:
        """The snapshot with this name (read once, then kept: snapshots never change)."""
        cached = self._snapshots.get(name)
        if cached is not None:
            return cached
        with self._lock:
            row = self._db.execute(
                "SELECT body, layout FROM snapshots WHERE name = ?", (name,)
            ).fetchone()
            if row is None:
                raise HistoryError(f"snapshot {name[:12]}… is not stored")
            body, layout = str(row[0]), int(row[1])
            try:
                data = json.loads(body) if layout == FULL else self._assemble(name, body)
            except (ValueError, zlib.error) as error:
                raise HistoryError(
                    f"snapshot {name[:12]}… is damaged in the store: {error}"
                ) from None
        snapshot = Snapshot.model_validate(data)
        if len(self._snapshots) >= _SNAPSHOT_CACHE:
            self._snapshots.clear()
        self._snapshots[name] = snapshot
        return snapshot

    def _assemble(self, name: str, body: str) -> dict[str, object]:
        """A layout-2 snapshot's JSON data: its manifest's parts read and put in place."""
        slots = read_manifest(body)
        wanted = sorted(part_ids(slots))
        parts: dict[int, object] = {}
        for start in range(0, len(wanted), _BATCH):
            batch = wanted[start : start + _BATCH]
            marks = ", ".join("?" for _ in batch)
            rows = self._db.execute(
                f"SELECT id, body FROM snapshot_parts WHERE id IN ({marks})", batch
            ).fetchall()
            parts.update(
                (int(ident), json.loads(zlib.decompress(body).decode("utf-8", "surrogatepass")))
                for ident, body in rows
            )
        if len(parts) != len(wanted):
            raise HistoryError(f"snapshot {name[:12]}… names a part that is not stored")
        return assemble(slots, parts)

    def table(self, names: Iterable[str]) -> SnapshotTable:
        """The named snapshots as a table."""
        return SnapshotTable({name: self.snapshot(name) for name in names})

    def vacuum_snapshots(self) -> int:
        """Delete snapshots no chat or node refers to any more, and the parts only they held;
        returns how many snapshots went."""
        with self._transaction() as db:
            cursor = db.execute(
                "DELETE FROM snapshots WHERE name NOT IN ("
                " SELECT start FROM histories UNION SELECT before FROM nodes"
                " UNION SELECT after FROM nodes WHERE after IS NOT NULL"
                " UNION SELECT old FROM edits UNION SELECT new FROM edits)"
            )
            gone = cursor.rowcount
            kept: set[int] = set()
            for (body,) in db.execute("SELECT body FROM snapshots WHERE layout = ?", (PARTS,)):
                kept |= part_ids(read_manifest(str(body)))
            unused = [
                (int(ident),)
                for (ident,) in db.execute("SELECT id FROM snapshot_parts")
                if int(ident) not in kept
            ]
            db.executemany("DELETE FROM snapshot_parts WHERE id = ?", unused)
            return gone


_BATCH = 500
"""Node ids read in one query (well under SQLite's limit on bound values)."""
_LEVEL = 6
"""zlib level of a stored part (measured: `benchmarks/bench_store.py`)."""
_SNAPSHOT_CACHE = 4096
"""Snapshots kept in memory after reading (each is small; the proxy reads the same ones often)."""
