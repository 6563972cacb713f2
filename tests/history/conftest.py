"""History tests share the transcript fixtures, and run every store test on both databases."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from gmtags.history.store import HistoryStore
from tests.postgres import PostgresServer
from tests.transcript.conftest import crows, heist, heist_done, start

__all__ = ["crows", "heist", "heist_done", "start"]


@pytest.fixture(params=["sqlite", "postgresql"])
def store_path(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a new empty store is: an SQLite file, or a new database of the tests' own
    PostgreSQL server (`tests/postgres.py`)."""
    if request.param == "sqlite":
        return str(tmp_path / "history.sqlite")
    server: PostgresServer = request.getfixturevalue("postgres")
    return server.create_database()


@pytest.fixture
def store(store_path: str) -> Iterator[HistoryStore]:
    """An empty store, on each database."""
    with HistoryStore(store_path) as opened:
        yield opened


def run_sql(store: HistoryStore, sql: str, params: tuple[object, ...] = ()) -> None:
    """Run one statement on the store's database behind its back (damage, inspection)."""
    with store.database.writing() as db:
        db.execute(sql, params)


def rows(store: HistoryStore, sql: str) -> list[tuple[object, ...]]:
    """The rows of one query on the store's database."""
    with store.database.reading() as db:
        return [tuple(row) for row in db.execute(sql).fetchall()]


def count(store: HistoryStore, table: str) -> int:
    """How many rows `table` holds."""
    return int(str(rows(store, f"SELECT COUNT(*) FROM {table}")[0][0]))
