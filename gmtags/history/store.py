"""The history store: replies as nodes of a tree per chat, in SQLite or PostgreSQL (SPEC §7.1, §12).

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
  `created` when the node was made (added to older files on opening); `applied`
  the receipts of its commands (a JSON list), whatever the client was shown;
  `excerpt` its first words (`gmtags.history.excerpt`), which the pages name it by;
- `edits(id, chat_id, node, old, new, created)`: each save the pages made into
  a chat's current snapshot (`edit_current`): the node whose snapshot after
  it replaced (NULL: the chat's start), and the snapshots before and after.

The tables live in one SQLite file (the default) or a PostgreSQL database
(`--db postgresql://…`): `gmtags.history.database` gives the connections, and
every statement here is written once for both. Every write is one transaction,
so a process killed at any point leaves the last committed history readable;
each write that touches a chat holds that chat while it runs (SQLite: the
file's write lock; PostgreSQL: the chat's advisory lock). `placing` makes one
transaction of a request's whole placement (the proxy: finding its anchor,
moving the chat's current node, reserving its node), so requests racing on one
chat from any number of processes are placed one after the other.
Snapshots no chat or node names stay in the file until `vacuum_snapshots`,
which also drops the parts only they held.
"""

from __future__ import annotations

import json
import os
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from types import TracebackType
from typing import Any, Literal

from gmtags.history.database import ChangeProbe, Connection, Database, open_database
from gmtags.history.fingerprint import Fingerprint
from gmtags.history.forms import snapshot_form
from gmtags.history.parts import Split, assemble, manifest, part_ids, read_manifest, split
from gmtags.history.records import HistoryError
from gmtags.history.schema import FULL, PARTS, migrate
from gmtags.history.snapshots import SnapshotTable
from gmtags.jsonfile import dumps
from gmtags.seeds import derive_node_seed
from gmtags.state.snapshot import Snapshot

NodeKind = Literal["turn", "continue", "aside"]
"""What a node's request was: a player's turn, a continuation, or anything else (background)."""

_NODE_COLUMNS = (
    "id, chat_id, parent, kind, seed, before, after, receipts, text, created, saves, applied,"
    " excerpt"
)


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
    saves: frozenset[int] = frozenset()
    """The page saves (`edits` ids) its snapshot after holds (see `saves`)."""
    applied: tuple[str, ...] = ()
    """The receipts of the reply's commands, as written, whatever the client was shown."""
    excerpt: str = ""
    """The reply's first words (`gmtags.history.excerpt`); "" for none or an older node."""

    @property
    def receipts(self) -> tuple[str, ...]:
        """SPEC §7.2: the receipts of the commands applied (an older node: its fingerprint's)."""
        return self.applied or self.fingerprint.receipts


@dataclass(frozen=True, slots=True)
class Save:
    """A save the pages made into a chat: its `edits` id, and the node it was made on (None:
    the chat's start); what it wrote is read with `saved`, only when a snapshot lacks it."""

    id: int
    node: int | None


@dataclass(frozen=True, slots=True)
class ChatSummary:
    """One chat as the pages list it: its id, its replies, and when it last changed."""

    chat_id: str
    replies: int
    """Finished replies (turns and asides; continuations are parts of their reply)."""
    updated: float | None
    """Seconds since the epoch of its newest node or page save (None: none is dated)."""


def _node(row: tuple[object, ...]) -> Node:
    ident, chat_id, parent, kind, seed, before, after, receipts, text, created, *rest = row
    saves, applied, excerpt = rest
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
        frozenset(json.loads(str(saves))) if saves else frozenset(),
        tuple(json.loads(str(applied))) if applied else (),
        str(excerpt) if excerpt else "",
    )


def _marks(saves: Iterable[int]) -> str | None:
    """A node's `saves` column: the sorted ids as a JSON list, NULL for none."""
    found = sorted(saves)
    return json.dumps(found) if found else None


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
    """The reply trees of many chats in one SQLite file or PostgreSQL database (`path`: a
    file, `:memory:`, or a `postgresql://` address).

    It may be shared by threads (SQLite: one connection behind a lock;
    PostgreSQL: a connection pool); the proxy uses it from its event loop only.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self.database: Database = open_database(self.path)
        self._bound = threading.local()
        """The connection of the write transaction this thread is in (`placing`), if any."""
        try:
            with self._failures():
                migrate(self.database)
        except BaseException:
            self.database.close()
            raise
        self._snapshots: dict[str, Snapshot] = {}

    @property
    def where(self) -> str:
        """Where the store is, as said to a person (an address's password left out)."""
        return self.database.where

    def close(self) -> None:
        """Close the file or the connections."""
        self.database.close()

    def probe(self) -> ChangeProbe | None:
        """A probe of commits made by anyone (`gmtags.server.watch`); None for a store only
        this process can write (in memory)."""
        with self._failures():
            return self.database.probe()

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
    def _failures(self) -> Iterator[None]:
        """A failing PostgreSQL database raised as `HistoryError` naming the store (SQLite's
        own errors pass as they are)."""
        try:
            yield
        except self.database.errors as error:
            line = (str(error).strip().splitlines() or [type(error).__name__])[0]
            raise HistoryError(f"the history store {self.where} failed: {line}") from None

    @contextmanager
    def _reading(self) -> Iterator[Connection]:
        """A connection to read on: the open transaction's when there is one."""
        bound: Connection | None = getattr(self._bound, "db", None)
        if bound is not None:
            yield bound
            return
        with self._failures(), self.database.reading() as db:
            yield db

    @contextmanager
    def _transaction(self, chat_id: str | None = None) -> Iterator[Connection]:
        """One write transaction holding chat `chat_id` (if given); inside `placing`, the
        placement's own."""
        bound: Connection | None = getattr(self._bound, "db", None)
        if bound is not None:
            if chat_id is not None:
                self.database.lock_chat(bound, chat_id)
            yield bound
            return
        with self._failures(), self.database.writing() as db:
            self._bound.db = db
            try:
                if chat_id is not None:
                    self.database.lock_chat(db, chat_id)
                yield db
            finally:
                self._bound.db = None

    @contextmanager
    def placing(self, chat_id: str | None) -> Iterator[None]:
        """One write transaction around a request's placement: every read and write of this
        store in the block (on this thread) is part of it, and it holds chat `chat_id` (None:
        a chat learnt inside, held with `lock_chat`). Committed when the block ends; rolled
        back, with nothing written, when it raises."""
        with self._transaction(chat_id):
            yield

    def lock_chat(self, chat_id: str) -> None:
        """Inside `placing`: hold chat `chat_id` too, until the placement ends."""
        bound: Connection | None = getattr(self._bound, "db", None)
        if bound is None:
            raise RuntimeError("lock_chat is only for use inside placing()")
        self.database.lock_chat(bound, chat_id)

    def _name(self, db: Connection, snapshot: Snapshot | Split) -> str:
        """Store a snapshot (once, as parts: `gmtags.history.parts`) and return its name."""
        cut = snapshot if isinstance(snapshot, Split) else split(snapshot_form(snapshot))
        if db.execute("SELECT 1 FROM snapshots WHERE name = ?", (cut.name,)).fetchone():
            return cut.name  # stored already, in either layout
        hashes = list(cut.parts)
        ids = self._part_ids(db, hashes)
        raced: list[str] = []
        for digest in sorted(set(hashes) - set(ids)):  # one order: racing writers never deadlock
            body = zlib.compress(cut.parts[digest].encode("utf-8", "surrogatepass"), _LEVEL)
            ident = self.database.insert(
                db,
                "INSERT INTO snapshot_parts(hash, body) VALUES (?, ?)"
                " ON CONFLICT (hash) DO NOTHING",
                (digest, body),
            )
            if ident is None:
                raced.append(digest)  # another transaction stored it first
            else:
                ids[digest] = ident
        if raced:
            ids.update(self._part_ids(db, raced))
        db.execute(
            "INSERT INTO snapshots(name, body, layout) VALUES (?, ?, ?)"
            " ON CONFLICT (name) DO NOTHING",
            (cut.name, manifest(cut, ids), PARTS),
        )
        return cut.name

    def _part_ids(self, db: Connection, hashes: list[str]) -> dict[str, int]:
        """The stored parts among `hashes`: hash to id."""
        rows = _in_batches(db, "SELECT hash, id FROM snapshot_parts WHERE hash IN ({})", hashes)
        return {str(digest): int(ident) for digest, ident in rows}

    # Chats -----------------------------------------------------------------

    def ensure_chat(self, chat_id: str, start: Snapshot) -> None:
        """Make chat `chat_id` known, starting from `start`, unless it already is."""
        if self.has_chat(chat_id):
            return  # the common case, read without taking the write lock
        with self._transaction(chat_id) as db:
            if self._start(db, chat_id) is None:
                db.execute(
                    "INSERT INTO histories(chat_id, start, current) VALUES (?, ?, NULL)"
                    " ON CONFLICT (chat_id) DO NOTHING",
                    (chat_id, self._name(db, start)),
                )

    def _start(self, db: Connection, chat_id: str) -> str | None:
        row = db.execute("SELECT start FROM histories WHERE chat_id = ?", (chat_id,)).fetchone()
        return None if row is None else str(row[0])

    def has_chat(self, chat_id: str) -> bool:
        """True when the store knows chat `chat_id`."""
        with self._reading() as db:
            return self._start(db, chat_id) is not None

    def start(self, chat_id: str) -> Snapshot:
        """The snapshot chat `chat_id` starts from."""
        return self.snapshot(self.start_name(chat_id))

    def start_name(self, chat_id: str) -> str:
        """The name of the snapshot chat `chat_id` starts from."""
        with self._reading() as db:
            name = self._start(db, chat_id)
        if name is None:
            raise HistoryError(f"chat {chat_id!r} is not in the store")
        return name

    def chats(self) -> list[str]:
        """Every chat id in the store, sorted."""
        with self._reading() as db:
            rows = db.execute("SELECT chat_id FROM histories ORDER BY chat_id").fetchall()
        return [str(row[0]) for row in rows]

    def chat_summaries(self) -> list[ChatSummary]:
        """Every chat with its reply count and when it last changed, newest first (the pages'
        chat list, SPEC §11). A continuation is part of the reply it continues, so it is not
        counted; `updated` is the newest finished node's or page save's `created` (None when
        the chat has neither, or only rows older than the column), and chats with none come
        last, by id."""
        with self._reading() as db:
            rows = db.execute(
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
        with self._reading() as db:
            row = db.execute(
                "SELECT current FROM histories WHERE chat_id = ?", (chat_id,)
            ).fetchone()
        if row is None:
            raise HistoryError(f"chat {chat_id!r} is not in the store")
        return None if row[0] is None else int(row[0])

    def set_current(self, chat_id: str, node: int | None) -> None:
        """Make `node` (None: the start) the chat's current node."""
        with self._transaction(chat_id) as db:
            db.execute("UPDATE histories SET current = ? WHERE chat_id = ?", (node, chat_id))

    def current(self, chat_id: str) -> Snapshot | None:
        """The chat's current snapshot, or None when the chat is unknown."""
        with self._reading() as db:
            row = db.execute(
                "SELECT h.start, n.after FROM histories h LEFT JOIN nodes n ON n.id = h.current"
                " WHERE h.chat_id = ?",
                (chat_id,),
            ).fetchone()
        if row is None:
            return None
        return self.snapshot(str(row[1] if row[1] is not None else row[0]))

    def forget_chat(self, chat_id: str) -> bool:
        """Forget chat `chat_id` if nothing is in it: no node (finished or being made) and no
        page save. A request that failed leaves no chat (SPEC §8): the proxy calls this once
        it has abandoned the node it reserved; a chat another request has meanwhile placed a
        node in, or that holds anything, stays. True when it went."""
        with self._transaction(chat_id) as db:
            cursor = db.execute(
                "DELETE FROM histories WHERE chat_id = ?"
                " AND NOT EXISTS (SELECT 1 FROM nodes WHERE chat_id = ?)"
                " AND NOT EXISTS (SELECT 1 FROM edits WHERE chat_id = ?)",
                (chat_id, chat_id, chat_id),
            )
            return bool(cursor.rowcount)

    # Nodes -----------------------------------------------------------------

    def reserve(
        self, chat_id: str, parent: int | None, kind: NodeKind, before: Snapshot | str
    ) -> Node:
        """A new node being made: its id and its seed (from the chat and the id) are fixed now.
        `before` is its snapshot, or the name of one the store holds.

        Two requests racing on one chat get two nodes and two seeds.
        """
        made = time.time()
        with self._transaction(chat_id) as db:
            name = before if isinstance(before, str) else self._name(db, before)
            ident = self.database.insert(
                db,
                "INSERT INTO nodes(chat_id, parent, kind, before, created) VALUES (?, ?, ?, ?, ?)",
                (chat_id, parent, kind, name, made),
            )
        assert ident is not None
        seed = derive_node_seed(chat_id, ident)  # stored with the reply, in `complete`
        return Node(ident, chat_id, parent, kind, seed, name, name, Fingerprint((), ""), made)

    def complete(
        self,
        node: Node,
        after: Snapshot | str,
        print_: Fingerprint,
        *,
        current: bool,
        saves: frozenset[int] = frozenset(),
        applied: tuple[str, ...] = (),
        excerpt: str = "",
    ) -> Node:
        """Store a reserved node's reply (`after`: its snapshot, or the name of one the store
        holds, holding the page saves `saves`, its commands' receipts `applied`, its first
        words `excerpt`); with `current`, it becomes its chat's current node."""
        with self._transaction(node.chat_id) as db:
            name = after if isinstance(after, str) else self._name(db, after)
            db.execute(
                "UPDATE nodes SET after = ?, seed = ?, key = ?, tail = ?, size = ?, receipts = ?,"
                " text = ?, saves = ?, applied = ?, excerpt = ? WHERE id = ?",
                (
                    name,
                    node.seed,
                    print_.key,
                    print_.tail,
                    print_.size,
                    _receipts(print_),
                    print_.text or None,
                    _marks(saves),
                    json.dumps(list(applied), ensure_ascii=False) if applied else None,
                    excerpt or None,
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
            saves,
            applied,
            excerpt,
        )

    def abandon(self, node: Node) -> None:
        """Forget a reserved node whose reply was never made (the upstream failed)."""
        with self._transaction(node.chat_id) as db:
            db.execute("DELETE FROM nodes WHERE id = ? AND after IS NULL", (node.id,))

    def node(self, ident: int) -> Node:
        """The stored node `ident`."""
        with self._reading() as db:
            row = db.execute(
                f"SELECT {_NODE_COLUMNS} FROM nodes WHERE id = ? AND after IS NOT NULL", (ident,)
            ).fetchone()
        if row is None:
            raise HistoryError(f"node {ident} is not in the store")
        return _node(row)

    def nodes(self, chat_id: str) -> list[Node]:
        """Every finished node of a chat, oldest first."""
        with self._reading() as db:
            rows = db.execute(
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
        with self._reading() as db:
            rows = db.execute(query, (*params, limit)).fetchall()
        return [_head(row) for row in rows]

    def heads(self, idents: Iterable[int]) -> dict[int, Head]:
        """The finished nodes among `idents`, by id, without their fingerprints."""
        query = (
            "SELECT id, chat_id, parent, key, tail, size FROM nodes WHERE id IN ({})"
            " AND after IS NOT NULL"
        )
        with self._reading() as db:
            rows = _in_batches(db, query, sorted(set(idents)))
        return {int(row[0]): _head(row) for row in rows}

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
            with self._reading() as db:
                rows = db.execute(query, (*params, *chats, limit)).fetchall()
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
        excerpt: str = "",
    ) -> Node:
        """A finished node added at once (a saved transcript's reply, its first words
        `excerpt`), or the same one found.

        A node with the same chat, parent, fingerprint and snapshots is reused,
        so saving a chat twice adds nothing.
        """
        cuts = split(snapshot_form(before)), split(snapshot_form(after))
        before_name, after_name = cuts[0].name, cuts[1].name
        under, above = ("parent IS NULL", []) if parent is None else ("parent = ?", [parent])
        with self._transaction(chat_id) as db:
            row = db.execute(
                f"SELECT {_NODE_COLUMNS} FROM nodes WHERE chat_id = ? AND {under} AND key = ?"
                " AND before = ? AND after = ? ORDER BY id LIMIT 1",
                (chat_id, *above, print_.key, before_name, after_name),
            ).fetchone()
            if row is not None:
                node = _node(row)
            else:
                for cut in cuts:
                    self._name(db, cut)
                made = time.time()
                ident = self.database.insert(
                    db,
                    "INSERT INTO nodes(chat_id, parent, kind, seed, before, after, key, tail,"
                    " size, receipts, text, created, excerpt)"
                    " VALUES (?, ?, 'turn', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                        excerpt or None,
                    ),
                )
                assert ident is not None
                node = Node(
                    ident, chat_id, parent, "turn", seed, before_name, after_name, print_, made
                )
                node = replace(node, excerpt=excerpt)
            if current:
                db.execute("UPDATE histories SET current = ? WHERE chat_id = ?", (node.id, chat_id))
        return node

    # Edits -----------------------------------------------------------------

    def edit_current(
        self,
        chat_id: str,
        change: Callable[[Snapshot], Snapshot],
        save: dict[str, Any] | None = None,
    ) -> Snapshot:
        """Replace the chat's current snapshot by `change(current)`, read and written in one
        transaction (a save from the pages: a built card, the party sheet), and return it.

        The current node's snapshot after (the chat's start when it is at its start) is
        what the next reply anchored on it starts from, so that is what changes; the
        snapshot it held is kept in `edits`, with `save` (what the change wrote, as JSON:
        see `saves`), and the node is marked as holding it. `change` may raise (a stale
        party revision): nothing is written then. An unknown chat raises `HistoryError`.
        """
        with self._transaction(chat_id) as db:
            row = db.execute(
                "SELECT h.current, h.start, n.after, n.saves FROM histories h"
                " LEFT JOIN nodes n ON n.id = h.current WHERE h.chat_id = ?",
                (chat_id,),
            ).fetchone()
            if row is None:
                raise HistoryError(f"chat {chat_id!r} is not in the store")
            current, old = row[0], str(row[2] if row[2] is not None else row[1])
            changed = change(self.snapshot(old))
            new = self._name(db, changed)
            ident = self.database.insert(
                db,
                "INSERT INTO edits(chat_id, node, old, new, created, save)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (chat_id, current, old, new, time.time(), None if save is None else dumps(save)),
            )
            if current is None:
                db.execute("UPDATE histories SET start = ? WHERE chat_id = ?", (new, chat_id))
            else:
                held = set(json.loads(str(row[3]))) if row[3] else set()
                if save is not None and ident is not None:
                    held.add(ident)
                db.execute(
                    "UPDATE nodes SET after = ?, saves = ? WHERE id = ?",
                    (new, _marks(held), current),
                )
        return changed

    def saves(self, chat_id: str) -> list[Save]:
        """The chat's page saves that stay in play (SPEC §11), oldest first. A save belongs to
        the chat from when it was made: every reply placed after it starts from a snapshot
        holding it, whichever earlier message it goes on from (`ChatBook` applies those its
        anchor's snapshot lacks: a node's `saves`, and at the start those made there). Read
        at every placement, so without what each wrote (`saved`)."""
        with self._reading() as db:
            rows = db.execute(
                "SELECT id, node FROM edits WHERE chat_id = ? AND save IS NOT NULL ORDER BY id",
                (chat_id,),
            ).fetchall()
        return [
            Save(int(str(ident)), None if node is None else int(str(node))) for ident, node in rows
        ]

    def saved(self, save: Save) -> dict[str, Any]:
        """What `save` wrote (`{"name", "card"}` or `{"party": true, "sheet"}`)."""
        with self._reading() as db:
            row = db.execute("SELECT save FROM edits WHERE id = ?", (save.id,)).fetchone()
        if row is None or row[0] is None:
            raise HistoryError(f"save {save.id} is not in the store")
        data: dict[str, Any] = json.loads(str(row[0]))
        return data

    # Snapshots -------------------------------------------------------------

    def snapshot(self, name: str) -> Snapshot:
        """The snapshot with this name (read once, then kept: snapshots never change)."""
        cached = self._snapshots.get(name)
        if cached is not None:
            return cached
        with self._reading() as db:
            query = "SELECT body, layout FROM snapshots WHERE name = ?"
            row = db.execute(query, (name,)).fetchone()
            if row is None:
                raise HistoryError(f"snapshot {name[:12]}… is not stored")
            body, layout = str(row[0]), int(row[1])
            try:
                data = json.loads(body) if layout == FULL else self._assemble(db, name, body)
            except (ValueError, zlib.error) as error:
                raise HistoryError(
                    f"snapshot {name[:12]}… is damaged in the store: {error}"
                ) from None
        snapshot = Snapshot.model_validate(data)
        if len(self._snapshots) >= _SNAPSHOT_CACHE:
            self._snapshots.clear()
        self._snapshots[name] = snapshot
        return snapshot

    def _assemble(self, db: Connection, name: str, body: str) -> dict[str, object]:
        """A layout-2 snapshot's JSON data: its manifest's parts read and put in place."""
        slots = read_manifest(body)
        wanted = sorted(part_ids(slots))
        rows = _in_batches(db, "SELECT id, body FROM snapshot_parts WHERE id IN ({})", wanted)
        parts = {
            int(ident): json.loads(zlib.decompress(body).decode("utf-8", "surrogatepass"))
            for ident, body in rows
        }
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
            manifests = db.execute("SELECT body FROM snapshots WHERE layout = ?", (PARTS,))
            for (body,) in manifests.fetchall():
                kept |= part_ids(read_manifest(str(body)))
            unused = [
                int(ident)
                for (ident,) in db.execute("SELECT id FROM snapshot_parts").fetchall()
                if int(ident) not in kept
            ]
            _in_batches(db, "DELETE FROM snapshot_parts WHERE id IN ({})", unused, rows=False)
            return gone


def _in_batches(
    db: Connection, template: str, values: list[Any], *, rows: bool = True
) -> list[tuple[Any, ...]]:
    """Run `template` with its `{}` replaced by `_BATCH` placeholders at a time over `values`;
    the rows of every batch (none with `rows=False`: a statement that gives none)."""
    found: list[tuple[Any, ...]] = []
    for start in range(0, len(values), _BATCH):
        batch = values[start : start + _BATCH]
        cursor = db.execute(template.format(", ".join("?" for _ in batch)), batch)
        if rows:
            found.extend(cursor.fetchall())
    return found


_BATCH = 500
"""Values bound in one query (well under SQLite's limit on bound values)."""
_LEVEL = 6
"""zlib level of a stored part (measured: `benchmarks/bench_store.py`)."""
_SNAPSHOT_CACHE = 4096
"""Snapshots kept in memory after reading (each is small; the proxy reads the same ones often)."""
