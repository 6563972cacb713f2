"""Shared fixtures for transcript and history tests: the crows ruleset and saved chats."""

from __future__ import annotations

from pathlib import Path

import pytest

from gmtags import Ruleset, Snapshot, load_ruleset
from gmtags.state.snapshot import load_snapshot
from gmtags.transcript import Chat, read_chat, reprocess
from tests.conftest import FIXTURES
from tests.postgres import PostgresServer

TRANSCRIPTS = FIXTURES / "transcripts"
CROWS = FIXTURES / "rulesets" / "sheets" / "crows.json"
HEIST = TRANSCRIPTS / "crows-heist.jsonl"
GROUP = TRANSCRIPTS / "crows-group.jsonl"
PLAIN = TRANSCRIPTS / "plain-crows.jsonl"
START = TRANSCRIPTS / "crows-state.json"
GOLDEN = Path(__file__).parent / "golden"
"""Chats and what gmtags writes for them, byte for byte (`test_golden.py`)."""


@pytest.fixture(scope="session")
def crows() -> Ruleset:
    """The Blades-style fixture ruleset: clocks, a crew sheet, stress tracks, dice-highest."""
    return load_ruleset(CROWS)


@pytest.fixture(scope="session")
def start() -> Snapshot:
    """Vex and Nim's cards, a crew sheet with a vault of 8, Vex at stress 3."""
    return load_snapshot(START)


@pytest.fixture
def heist() -> Chat:
    """A one-character SillyTavern chat with swipes, narrator notes and odd unknown fields."""
    return read_chat(HEIST)


@pytest.fixture
def heist_done(heist: Chat, crows: Ruleset, start: Snapshot) -> Chat:
    """The heist chat reprocessed from the start snapshot."""
    return reprocess(heist, crows, start).chat


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a new empty history store for `--db` is: an SQLite file, or a new database of
    the tests' own PostgreSQL server (`tests/postgres.py`)."""
    if request.param == "sqlite":
        return str(tmp_path / "h.sqlite")
    server: PostgresServer = request.getfixturevalue("postgres")
    return server.create_database()


def copy_to(tmp_path: Path, source: Path) -> Path:
    """A copy of a fixture file in `tmp_path`, byte for byte."""
    target = tmp_path / source.name
    target.write_bytes(source.read_bytes())
    return target
