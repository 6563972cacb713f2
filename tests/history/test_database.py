"""gmtags/history/database.py and the store on PostgreSQL: migrations, text PostgreSQL cannot
hold, placements held per chat, commit notifications, and clear errors (SPEC §12)."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gmtags import Snapshot
from gmtags.history.database import (
    _escape,
    _unescape,
    chat_key,
    is_postgres,
    shown_address,
)
from gmtags.history.fingerprint import fingerprint
from gmtags.history.records import HistoryError
from gmtags.history.schema import LATEST
from gmtags.history.store import HistoryStore
from tests.history.conftest import count, rows
from tests.postgres import PostgresServer

START = Snapshot()
ONE = Snapshot.model_validate({"rulesetClocks": [{"name": "Dawn", "size": 4, "filled": 1}]})


class TestAddresses:
    def test_which_database(self) -> None:
        """A `postgresql://` (or `postgres://`) address is PostgreSQL; anything else a file."""
        assert is_postgres("postgresql://u@h/db") and is_postgres("postgres://h/db")
        assert not is_postgres("history.sqlite3") and not is_postgres(":memory:")

    def test_a_password_is_never_shown(self) -> None:
        shown = shown_address("postgresql://gm:s3cret@db.example:5433/campaigns")
        assert "s3cret" not in shown
        assert "db.example" in shown and "campaigns" in shown and "***" in shown

    def test_chat_keys_are_64_bit_and_distinct(self) -> None:
        keys = {chat_key(f"chat-{n}") for n in range(1000)}
        assert len(keys) == 1000
        assert all(-(2**63) <= key < 2**63 for key in keys)

    def test_an_unreachable_database_is_a_clear_error(self, postgres: PostgresServer) -> None:
        """No server on the port: `HistoryError` naming the address, its password left out."""
        address = f"postgresql://gm:s3cret@127.0.0.1:{postgres.port + 1}/nowhere?connect_timeout=2"
        with pytest.raises(HistoryError, match="cannot reach") as raised:
            HistoryStore(address)
        assert "s3cret" not in str(raised.value) and "nowhere" in str(raised.value)


@given(st.text(alphabet=st.sampled_from(["a", " ", "\x00", "\ufffe", "\x01", "\x02", "é"])))
def test_escaping_round_trips_and_keeps_texts_apart(text: str) -> None:
    """Any text escapes to one without U+0000 and back; two texts never escape alike."""
    escaped = _escape(text)
    assert "\x00" not in escaped and _unescape(escaped) == text
    assert _escape(text + "\x00") != escaped


class TestPostgres:
    @pytest.fixture
    def address(self, postgres: PostgresServer) -> str:
        return postgres.create_database()

    def test_a_new_database_is_migrated_once(self, address: str) -> None:
        """Opening makes every table at the latest version; opening again changes nothing."""
        with HistoryStore(address) as store:
            store.ensure_chat("c", ONE)
            assert rows(store, "SELECT version FROM schema_version") == [(LATEST,)]
        with HistoryStore(address) as again:
            assert rows(again, "SELECT version FROM schema_version") == [(LATEST,)]
            assert again.start("c") == ONE

    def test_stores_opening_at_once_migrate_once(self, address: str) -> None:
        """Four stores opening one new database at the same moment: one schema row, no error."""
        gate = threading.Barrier(4)

        def open_one(_: int) -> int:
            gate.wait()
            with HistoryStore(address) as store:
                return count(store, "schema_version")

        with ThreadPoolExecutor(4) as pool:
            assert list(pool.map(open_one, range(4))) == [1, 1, 1, 1]

    def test_text_postgresql_cannot_hold_round_trips(self, address: str) -> None:
        """A reply holding U+0000 (and U+FFFE) is stored, read back and found like any other."""
        text = "The door \x00 opens \ufffe slowly."
        with HistoryStore(address) as store:
            store.ensure_chat("c\x00x", START)
            node = store.add_node("c\x00x", None, START, ONE, fingerprint(text), 7, current=True)
            assert store.chats() == ["c\x00x"]
            assert store.node(node.id).fingerprint == fingerprint(text)
            found = store.exact(fingerprint(text).key, "c\x00x", 5)
            assert [head.id for head in found] == [node.id]

    def test_a_sql_ascii_database_reads_text(self, postgres: PostgresServer) -> None:
        """A database made with `ENCODING 'SQL_ASCII'` (some hosts' default) is read as UTF-8
        text: the connection says `client_encoding=utf8` (else psycopg hands back bytes and
        every chat fails)."""
        with psycopg.connect(postgres.dsn(), autocommit=True) as connection:
            connection.execute(
                "CREATE DATABASE gmtags_ascii ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C'"
                " TEMPLATE template0"
            )
        text = "Élise opens the door. 🎲"
        with HistoryStore(postgres.dsn("gmtags_ascii")) as store:
            store.ensure_chat("Élise", START)
            node = store.add_node("Élise", None, START, ONE, fingerprint(text), 7, current=True)
            assert store.chats() == ["Élise"] and store.snapshot(node.after) == ONE
            assert store.node(node.id).fingerprint == fingerprint(text)

    def test_a_placement_holds_its_chat(self, address: str) -> None:
        """A second placement on the same chat waits for the first to commit; one on another
        chat does not."""
        with HistoryStore(address) as first, HistoryStore(address) as second:
            first.ensure_chat("c", START)
            first.ensure_chat("d", START)
            inside, release = threading.Event(), threading.Event()

            def hold() -> None:
                with first.placing("c"):
                    first.reserve("c", None, "turn", first.start_name("c"))
                    inside.set()
                    release.wait(10)

            holder = threading.Thread(target=hold)
            holder.start()
            assert inside.wait(10)
            started = time.monotonic()
            with second.placing("d"):  # another chat: at once
                pass
            assert time.monotonic() - started < 1.0
            waited: list[float] = []

            def place() -> None:
                began = time.monotonic()
                with second.placing("c"):
                    waited.append(time.monotonic() - began)
                    second.reserve("c", None, "turn", second.start_name("c"))

            placer = threading.Thread(target=place)
            placer.start()
            time.sleep(0.5)
            assert waited == []  # still waiting for the first placement
            release.set()
            holder.join(10)
            placer.join(10)
            assert len(waited) == 1 and waited[0] >= 0.4

    def test_a_failed_placement_writes_nothing(self, address: str) -> None:
        with HistoryStore(address) as store:
            store.ensure_chat("c", START)
            with pytest.raises(RuntimeError), store.placing("c"):
                store.set_current("c", 99)
                store.reserve("c", None, "turn", store.start_name("c"))
                raise RuntimeError("the request was refused")
            assert store.current_node("c") is None
            assert count(store, "nodes") == 0

    def test_lock_chat_outside_a_placement_is_an_error(self, address: str) -> None:
        with HistoryStore(address) as store, pytest.raises(RuntimeError, match="placing"):
            store.lock_chat("c")

    def test_the_probe_names_each_chat_written(self, address: str) -> None:
        """The probe's first answer is "something"; then it names the chats whose writes
        committed, and nothing when nothing was."""
        with HistoryStore(address) as store, HistoryStore(address) as other:
            probe = store.probe()
            assert probe is not None
            assert probe.changed() is None
            assert probe.changed() == set()
            other.ensure_chat("c", START)
            other.ensure_chat("d", START)
            node = other.reserve("c", None, "turn", START)
            other.complete(node, ONE, fingerprint("a reply"), current=True)
            deadline = time.monotonic() + 5
            seen: set[str] = set()
            while seen != {"c", "d"} and time.monotonic() < deadline:
                seen |= probe.changed() or set()
                time.sleep(0.02)
            assert seen == {"c", "d"}
            probe.close()

    def test_the_probe_listens_again_after_losing_its_connection(self, address: str) -> None:
        """The probe's connection killed by the server: that look is a `HistoryError`, the
        next one connects again ("something changed"), and it then names chats as before."""
        with HistoryStore(address) as store:
            probe = store.probe()
            assert probe is not None and probe.changed() is None
            with store.database.writing() as db:
                db.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE query LIKE 'LISTEN%%' AND pid <> pg_backend_pid()"
                )
            time.sleep(0.2)
            with pytest.raises(HistoryError, match="lost"):
                probe.changed()
            assert probe.changed() is None
            store.ensure_chat("after", START)
            deadline = time.monotonic() + 5
            seen: set[str] = set()
            while not seen and time.monotonic() < deadline:
                seen = probe.changed() or set()
                time.sleep(0.02)
            assert seen == {"after"}
            probe.close()

    def test_a_failing_database_is_a_history_error(self, address: str) -> None:
        """A statement the database refuses comes back as `HistoryError` naming the store."""
        with HistoryStore(address) as store:
            store.ensure_chat("c", START)
            with store.database.writing() as db:
                db.execute("DROP TABLE edits")
            with pytest.raises(HistoryError, match="failed"):
                store.edit_current("c", lambda snapshot: ONE)


def test_sqlite_has_no_probe_in_memory() -> None:
    """A store in memory is this process's own: nothing to watch."""
    with HistoryStore(":memory:") as store:
        assert store.probe() is None
