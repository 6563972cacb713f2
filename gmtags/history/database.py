"""Where the history store keeps its tables: an SQLite file, or a PostgreSQL database (SPEC §12).

`gmtags.history.store` writes its SQL once, with `?` placeholders, against the
small `Connection` protocol below, and a `Database` gives it connections:

- `SQLiteDatabase` (the default: `--db FILE`, or `:memory:`): one connection,
  guarded by a lock; a write transaction is `BEGIN IMMEDIATE`, which takes the
  file's write lock, so writers in any number of processes go one at a time.
  WAL journal, `synchronous=NORMAL`: a killed process loses nothing committed.
- `PostgresDatabase` (`--db postgresql://…`, the `gmtags[postgres]` extra):
  a psycopg 3 connection pool (autocommit connections; a write transaction is
  an explicit one). Writers do not take a database-wide lock, so each write
  transaction that touches a chat first takes that chat's transaction-scoped
  advisory lock (`lock_chat`): two requests racing on one chat, from any
  processes on any machines, place their replies one after the other. Taking
  the lock also queues a notification on the `gmtags_history` channel naming
  the chat, delivered when the transaction commits: what `gmtags.server.watch`
  listens to.

Decisions:
- PostgreSQL's text cannot hold U+0000, which a model may write. The PostgreSQL
  connection escapes it in every text it sends (U+0000 as U+FFFE 1, U+FFFE
  itself as U+FFFE 2; U+FFFE is a noncharacter, nothing else writes it) and
  unescapes every text it reads, so equal texts stay equal and round trip.
- An address's password is never written in an error or a log line.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

from gmtags.history.records import HistoryError

Row = tuple[Any, ...]
"""One row a query gives."""


class Cursor(Protocol):
    """What a statement gives back (the part of DB-API cursors the store reads)."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Row | None: ...

    def fetchall(self) -> list[Row]: ...


class Connection(Protocol):
    """A connection the store runs its statements on (`?` placeholders)."""

    def execute(self, sql: str, params: Sequence[object] = ()) -> Cursor: ...


class ChangeProbe(Protocol):
    """Tells whether anyone committed to the store since it was last asked."""

    def changed(self) -> set[str] | None:
        """The chats written since the last call (an empty set: none); None when something
        was written and the probe cannot say which chats (SQLite). The first call: None."""
        ...

    def close(self) -> None: ...


class Database(Protocol):
    """A place the history store's tables live in."""

    dialect: str
    """`sqlite` or `postgresql`: which SQL the schema's migrations write."""
    where: str
    """Where it is, as said to a person (a file path, or an address without its password)."""

    def reading(self) -> Any:
        """A context manager giving a connection for reads outside a transaction."""
        ...

    def writing(self) -> Any:
        """A context manager giving a connection inside one write transaction: committed when
        the block ends, rolled back when it raises."""
        ...

    def lock_chat(self, db: Connection, chat_id: str) -> None:
        """Inside a write transaction: hold chat `chat_id` until it ends."""
        ...

    errors: tuple[type[BaseException], ...]
    """What a failing database raises that the store reports as `HistoryError` (SQLite: none;
    its errors pass as they are)."""

    def insert(self, db: Connection, sql: str, params: Sequence[object]) -> int | None:
        """Run an INSERT and return the id of the row it made (None: an `ON CONFLICT DO
        NOTHING` made none)."""
        ...

    def probe(self) -> ChangeProbe | None:
        """A probe of commits by anyone (None: no other process can write here)."""
        ...

    def close(self) -> None: ...


def is_postgres(db: str) -> bool:
    """True when `--db` names a PostgreSQL database rather than an SQLite file."""
    return db.startswith(("postgresql://", "postgres://"))


def open_database(db: str) -> Database:
    """The database `--db` names: a `postgresql://` address, else an SQLite file."""
    return PostgresDatabase(db) if is_postgres(db) else SQLiteDatabase(db)


# SQLite ---------------------------------------------------------------------


class SQLiteDatabase:
    """The store's tables in one SQLite file (WAL), through one locked connection."""

    dialect = "sqlite"
    errors: tuple[type[BaseException], ...] = ()

    def __init__(self, path: str) -> None:
        self.path = path
        self.where = path
        self._lock = threading.RLock()
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA busy_timeout=5000")

    @contextmanager
    def reading(self) -> Iterator[Connection]:
        with self._lock:
            yield self._db

    @contextmanager
    def writing(self) -> Iterator[Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def lock_chat(self, db: Connection, chat_id: str) -> None:
        """Nothing more to take: `BEGIN IMMEDIATE` holds the whole file's write lock."""

    def insert(self, db: Connection, sql: str, params: Sequence[object]) -> int | None:
        cursor = db.execute(sql, params)
        return int(getattr(cursor, "lastrowid", 0) or 0) if cursor.rowcount else None

    def probe(self) -> ChangeProbe | None:
        if self.path == ":memory:" or not Path(self.path).exists():
            return None
        return _DataVersion(Path(self.path))

    def close(self) -> None:
        self._db.close()


class _DataVersion:
    """SQLite's `PRAGMA data_version` on a read-only connection of its own: it moves when
    another connection commits to the file; no table is read."""

    def __init__(self, path: Path) -> None:
        uri = path.resolve().as_uri() + "?mode=ro"
        self._db = sqlite3.connect(uri, uri=True, check_same_thread=False)
        self._version: int | None = None

    def changed(self) -> set[str] | None:
        version = int(self._db.execute("PRAGMA data_version").fetchone()[0])
        moved = version != self._version
        self._version = version
        return None if moved else set()

    def close(self) -> None:
        self._db.close()


# PostgreSQL -----------------------------------------------------------------

CHANNEL = "gmtags_history"
"""The notification channel each write transaction names its chat on."""
POOL_SIZE = 4
"""Most connections one store opens (the proxy and the command line use one at a time; the
rest serve threads)."""
CONNECT_SECONDS = 10.0
"""How long opening the store waits for the database before giving up."""
_LOOK = 0.001
"""Seconds a look at the notifications may wait (with none, psycopg reads nothing new from
the socket, and a connection the server closed goes unnoticed)."""
_TOLD = 1000
"""The longest chat id a notification names; a longer one is told as "" (some chat)."""
_NUL, _MARK = "\x00", "\ufffe"


def _escape(text: str) -> str:
    if _MARK in text:
        text = text.replace(_MARK, _MARK + "\x02")
    return text.replace(_NUL, _MARK + "\x01") if _NUL in text else text


def _unescape(text: str) -> str:
    if _MARK not in text:
        return text
    return text.replace(_MARK + "\x01", _NUL).replace(_MARK + "\x02", _MARK)


def _params(params: Sequence[object]) -> list[object]:
    return [_escape(value) if isinstance(value, str) else value for value in params]


def _row(row: Row) -> Row:
    return tuple(_unescape(value) if isinstance(value, str) else value for value in row)


def shown_address(address: str) -> str:
    """A PostgreSQL address as it may be shown: its password replaced by `***`."""
    try:
        from psycopg.conninfo import conninfo_to_dict, make_conninfo
    except ImportError:
        return address.split("@")[-1]
    try:
        parts = conninfo_to_dict(address)
    except Exception:  # an unreadable address: show only what follows the credentials
        return address.split("@")[-1]
    if "password" in parts:
        parts["password"] = "***"
    return make_conninfo(**{key: str(value) for key, value in parts.items()})


def chat_key(chat_id: str) -> int:
    """The advisory lock key of a chat: 8 bytes of its sha256 as a signed 64-bit integer."""
    digest = hashlib.sha256(f"gmtags-chat\0{chat_id}".encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


class _PgCursor:
    """A psycopg cursor whose rows come back with their texts unescaped."""

    __slots__ = ("_cursor",)

    def __init__(self, cursor: Any) -> None:
        self._cursor = cursor

    @property
    def rowcount(self) -> int:
        return int(self._cursor.rowcount)

    def fetchone(self) -> Row | None:
        row = self._cursor.fetchone()
        return None if row is None else _row(row)

    def fetchall(self) -> list[Row]:
        return [_row(row) for row in self._cursor.fetchall()]


class _PgConnection:
    """A pooled psycopg connection speaking the store's `?` SQL."""

    __slots__ = ("_connection",)

    def __init__(self, connection: Any) -> None:
        self._connection = connection

    def execute(self, sql: str, params: Sequence[object] = ()) -> _PgCursor:
        return _PgCursor(self._connection.execute(_pg_sql(sql), _params(params)))


_SQL: dict[str, str] = {}


def _pg_sql(sql: str) -> str:
    """The store's SQL with psycopg's placeholders (the store writes no `%` and no `?` in a
    literal)."""
    found = _SQL.get(sql)
    if found is None:
        found = _SQL[sql] = sql.replace("?", "%s")
    return found


class PostgresDatabase:
    """The store's tables in a PostgreSQL database, through a psycopg connection pool."""

    dialect = "postgresql"

    def __init__(self, address: str) -> None:
        self.address = address
        self.where = shown_address(address)
        try:
            import psycopg
            from psycopg_pool import ConnectionPool, PoolTimeout
        except ImportError:
            raise HistoryError(
                f"{self.where}: a PostgreSQL history store needs the gmtags[postgres] extra"
                " (pip install 'gmtags[postgres]')"
            ) from None
        self.errors: tuple[type[BaseException], ...] = (psycopg.Error, PoolTimeout)
        try:  # one connection first: a database that is not there says why at once
            psycopg.connect(
                address, connect_timeout=int(CONNECT_SECONDS), client_encoding="utf8"
            ).close()
        except psycopg.Error as error:
            raise HistoryError(
                f"cannot reach the PostgreSQL history store {self.where}: {_first_line(error)}"
            ) from None
        self._pool = ConnectionPool(
            address,
            min_size=1,
            max_size=POOL_SIZE,
            kwargs={"autocommit": True, "client_encoding": "utf8"},
            open=False,
            name="gmtags-history",
        )
        try:
            self._pool.open(wait=True, timeout=CONNECT_SECONDS)
        except self.errors as error:
            self._pool.close()
            raise HistoryError(
                f"cannot reach the PostgreSQL history store {self.where}: {_first_line(error)}"
            ) from None

    @contextmanager
    def reading(self) -> Iterator[Connection]:
        with self._pool.connection() as connection:
            yield _PgConnection(connection)

    @contextmanager
    def writing(self) -> Iterator[Connection]:
        with self._pool.connection() as connection, connection.transaction():
            yield _PgConnection(connection)

    def lock_chat(self, db: Connection, chat_id: str) -> None:
        told = chat_id if len(chat_id) <= _TOLD else ""  # a notification holds 8,000 bytes
        db.execute(
            "SELECT pg_advisory_xact_lock(?), pg_notify(?, ?)", (chat_key(chat_id), CHANNEL, told)
        )

    def insert(self, db: Connection, sql: str, params: Sequence[object]) -> int | None:
        row = db.execute(sql + " RETURNING id", params).fetchone()
        return None if row is None else int(row[0])

    def probe(self) -> ChangeProbe | None:
        return _Notifications(self.address, self.where)

    def close(self) -> None:
        self._pool.close()


class _Notifications:
    """The chats named on `CHANNEL` since the last look, read without waiting, on a
    connection of its own. A lost connection is a `HistoryError` for that look, and the
    next look connects again (and answers None: what was sent meanwhile is not known)."""

    def __init__(self, address: str, where: str) -> None:
        self.address = address
        self.where = where
        self._connection: Any = None
        self._first = True
        self._listen()

    def _listen(self) -> None:
        import psycopg

        try:
            self._connection = psycopg.connect(self.address, autocommit=True)
            self._connection.execute(f"LISTEN {CHANNEL}")
        except psycopg.Error as error:
            self.close()
            raise HistoryError(
                f"cannot listen on the PostgreSQL history store {self.where}: {_first_line(error)}"
            ) from None

    def changed(self) -> set[str] | None:
        import psycopg

        if self._connection is None:
            self._listen()
            return None
        try:
            notes = self._connection.notifies(timeout=_LOOK)
            chats = {_unescape(str(note.payload)) for note in notes}
        except psycopg.Error as error:
            self.close()
            raise HistoryError(
                f"lost the PostgreSQL history store {self.where}: {_first_line(error)}"
            ) from None
        if self._first or "" in chats:
            self._first = False
            return None
        return chats

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]
