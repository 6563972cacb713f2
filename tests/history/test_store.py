"""gmtags/history/store.py: the SQLite history store (one file, WAL, atomic writes)."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from gmtags import Snapshot
from gmtags.history.records import HistoryError, SwipeRecord
from gmtags.history.snapshots import snapshot_hash
from gmtags.history.store import HistoryStore
from gmtags.transcript import Chat, read_chat
from gmtags.transcript.layout import read_history


@pytest.fixture
def store(tmp_path: Path) -> Iterator[HistoryStore]:
    """An empty store in a temporary folder."""
    with HistoryStore(tmp_path / "history.sqlite") as opened:
        yield opened


class TestHistoryStore:
    def test_save_and_load_round_trip(self, store: HistoryStore, heist_done: Chat) -> None:
        """A saved history loads back equal, record by record and state by state."""
        history = read_history(heist_done)
        store.save(history)
        loaded = store.load(history.chat_id)
        assert dict(loaded.messages) == dict(history.messages)
        assert loaded.current() == history.current()
        assert store.chats() == ["crows-heist-0001"]

    def test_state_matches_the_history(self, store: HistoryStore, heist_done: Chat) -> None:
        """Direct state lookups give what `History.state` gives, for every message and swipe."""
        history = read_history(heist_done)
        store.save(history)
        for message in range(history.length):
            assert store.state(history.chat_id, message) == history.state(message)
        for message, record in history.messages.items():
            for swipe in range(len(record.swipes)):
                assert store.state(history.chat_id, message, swipe) == history.state(message, swipe)
        assert store.state(history.chat_id) == history.current()
        with pytest.raises(HistoryError):
            store.state(history.chat_id, 1, 0)
        with pytest.raises(HistoryError):
            store.state("nope")

    def test_snapshots_are_stored_by_content(self, store: HistoryStore, heist_done: Chat) -> None:
        """Saving the same history twice stores no new snapshot rows."""
        history = read_history(heist_done)
        store.save(history)
        count = store._db.execute("SELECT COUNT(*) FROM snapshots").fetchone()[0]
        store.save(history)
        assert store._db.execute("SELECT COUNT(*) FROM snapshots").fetchone()[0] == count
        assert count == len(history.referenced())

    def test_is_wal(self, store: HistoryStore) -> None:
        """The store runs in WAL mode."""
        assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"

    def test_record_swipe_and_delete_from(self, store: HistoryStore, heist_done: Chat) -> None:
        """A new swipe becomes current; deleting the tail restores the earlier state."""
        history = read_history(heist_done)
        store.save(history)
        snap = Snapshot.model_validate({"rulesetClocks": [{"name": "New", "size": 4, "filled": 4}]})
        record = SwipeRecord(history.record(7).swipe().before, snapshot_hash(snap), 1)
        store.record_swipe(history.chat_id, 7, 1, record, {record.after: snap}, length=9)
        assert store.state(history.chat_id, 7) == snap
        store.delete_from(history.chat_id, 6)
        assert store.state(history.chat_id) == history.after(5)

    def test_length_start_and_record(self, store: HistoryStore, heist_done: Chat) -> None:
        """The single-message reads agree with the whole loaded history."""
        history = read_history(heist_done)
        store.save(history)
        chat = history.chat_id
        assert store.length(chat) == history.length
        assert store.start(chat) == history.snapshot(history.start)
        for index, record in history.messages.items():
            assert store.record(chat, index) == record
        assert store.length("nobody") is None
        assert store.record(chat, history.length + 5) is None

    def test_vacuum_drops_unreferenced(self, store: HistoryStore, heist_done: Chat) -> None:
        """Snapshots no record names go on vacuum; named ones stay."""
        history = read_history(heist_done)
        store.save(history)
        store.delete_from(history.chat_id, 0)
        assert store.vacuum_snapshots() > 0
        assert store.state(history.chat_id) == history.snapshot(history.start)


WRITER = r"""
import sys
from gmtags import Snapshot
from gmtags.history.records import History, MessageRecord, SwipeRecord
from gmtags.history.snapshots import SnapshotTable
from gmtags.history.store import HistoryStore
from gmtags.transcript.chat import write_atomic

db, chat_path = sys.argv[1], sys.argv[2]
store = HistoryStore(db)
for round in range(10_000):
    table = SnapshotTable()
    start = table.add(Snapshot())
    messages = {}
    for n in range(400):
        snap = Snapshot.model_validate(
            {"rulesetLive": {"vex": {"tracks": {"stress": (n + round) % 9}}},
             "gamePartySheet": {"fields": {"heat": round % 10, "rep": n}}}
        )
        messages[n] = MessageRecord((SwipeRecord(start, table.add(snap), n),))
    store.save(History("killed", start, 400, messages, table))
    lines = ['{"chat_metadata":{"round":%d}}' % round]
    lines += ['{"name":"GM","is_user":false,"mes":"%d of %d"}' % (i, round) for i in range(3000)]
    write_atomic(chat_path, "\n".join(lines) + "\n")
    print("saved", round, flush=True)
"""


class TestCrashSafety:
    def test_sigkill_mid_write_leaves_store_and_chat_readable(self, tmp_path: Path) -> None:
        """A writer killed with SIGKILL leaves the last committed history and a whole chat file."""
        db, chat = tmp_path / "h.sqlite", tmp_path / "chat.jsonl"
        writer = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(db), str(chat)], stdout=subprocess.PIPE, text=True
        )
        assert writer.stdout is not None
        assert writer.stdout.readline().startswith("saved 0")
        writer.stdout.readline()
        time.sleep(0.05)  # land somewhere inside a later save or file write
        writer.send_signal(signal.SIGKILL)
        writer.wait()
        assert writer.returncode == -signal.SIGKILL

        with sqlite3.connect(db) as raw:
            assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        with HistoryStore(db) as store:
            history = store.load("killed")
            assert history.length == 400
            assert len(history.messages) == 400
            heats = {history.after(n).game_party_sheet.fields["heat"] for n in range(400)}  # type: ignore[union-attr]
            assert len(heats) == 1  # one whole save, never half of two
        parsed: Chat = read_chat(chat)  # never half a file: every line is whole JSON
        assert len(parsed.messages) == 3000
        round_ = parsed.metadata["round"]
        assert parsed.messages[-1].data["mes"] == f"2999 of {round_}"
