"""gmtags/history/store.py: reply nodes in one SQLite file (WAL, atomic writes) or a PostgreSQL
database; every test with a `store` runs on both (tests/history/conftest.py)."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from gmtags import Snapshot
from gmtags.history.fingerprint import fingerprint
from gmtags.history.records import HistoryError
from gmtags.history.snapshots import snapshot_hash
from gmtags.history.store import HistoryStore
from gmtags.seeds import derive_node_seed
from gmtags.transcript import Chat, read_chat
from tests.history.conftest import count, rows, run_sql
from tests.history.test_parts import built_card

START = Snapshot()
ONE = Snapshot.model_validate({"rulesetClocks": [{"name": "Dawn", "size": 4, "filled": 1}]})
TWO = Snapshot.model_validate({"rulesetClocks": [{"name": "Dawn", "size": 4, "filled": 2}]})


class TestChats:
    def test_a_new_chat_is_at_its_start(self, store: HistoryStore) -> None:
        """A chat made known starts at its start snapshot, with no current node."""
        store.ensure_chat("c", ONE)
        assert store.has_chat("c") and store.chats() == ["c"]
        assert store.current("c") == ONE and store.current_node("c") is None
        assert store.start("c") == ONE

    def test_ensure_keeps_the_first_start(self, store: HistoryStore) -> None:
        """Making a known chat known again changes nothing."""
        store.ensure_chat("c", ONE)
        store.ensure_chat("c", TWO)
        assert store.start("c") == ONE

    def test_unknown_chat(self, store: HistoryStore) -> None:
        """An unknown chat has no current snapshot, and its start is an error."""
        assert store.current("nobody") is None and not store.has_chat("nobody")
        with pytest.raises(HistoryError):
            store.start("nobody")


class TestNodes:
    def test_reserve_fixes_id_and_seed(self, store: HistoryStore) -> None:
        """A reserved node has its id and a seed derived from chat and id, and matches nothing."""
        store.ensure_chat("c", START)
        node = store.reserve("c", None, "turn", START)
        assert node.seed == derive_node_seed("c", node.id)
        assert store.nodes("c") == []
        with pytest.raises(HistoryError):
            store.node(node.id)

    def test_complete_stores_and_makes_current(self, store: HistoryStore) -> None:
        """A completed turn is stored with its fingerprint and becomes the chat's current node."""
        store.ensure_chat("c", START)
        reserved = store.reserve("c", None, "turn", START)
        print_ = fingerprint("The road is dark.")
        done = store.complete(reserved, ONE, print_, current=True)
        assert store.node(done.id) == done
        assert done.fingerprint == print_ and store.snapshot(done.after) == ONE
        assert store.current("c") == ONE and store.current_node("c") == done.id

    def test_a_continuation_is_not_current_at_once(self, store: HistoryStore) -> None:
        """A node completed without `current` leaves the chat's current node where it was."""
        store.ensure_chat("c", START)
        first = store.complete(
            store.reserve("c", None, "turn", START), ONE, fingerprint("a"), current=True
        )
        later = store.reserve("c", first.id, "continue", ONE)
        store.complete(later, TWO, fingerprint("b"), current=False)
        assert store.current("c") == ONE

    def test_abandon_forgets_a_reserved_node(self, store: HistoryStore) -> None:
        """An abandoned reservation leaves no node behind; a finished node is never abandoned."""
        store.ensure_chat("c", START)
        done = store.complete(
            store.reserve("c", None, "turn", START), ONE, fingerprint("a"), current=True
        )
        store.abandon(store.reserve("c", done.id, "turn", ONE))
        store.abandon(done)
        assert [node.id for node in store.nodes("c")] == [done.id]

    def test_forget_chat_only_when_nothing_is_in_it(self, store: HistoryStore) -> None:
        """A chat is forgotten only when it holds no node, finished or being made, and no page
        save (a failed request's chat goes; one in use stays)."""
        store.ensure_chat("c", START)
        made = store.reserve("c", None, "turn", START)
        assert not store.forget_chat("c")
        store.abandon(made)
        assert store.forget_chat("c") and not store.has_chat("c") and store.current("c") is None
        store.ensure_chat("d", START)
        store.complete(store.reserve("d", None, "turn", START), ONE, fingerprint("a"), current=True)
        store.ensure_chat("e", START)
        store.edit_current("e", lambda snapshot: ONE)
        assert not store.forget_chat("d") and not store.forget_chat("e")
        assert store.chats() == ["d", "e"]

    def test_exact_and_pieces(self, store: HistoryStore) -> None:
        """Nodes are found by their whole key, or as a possible last piece of a longer message
        by tail or short key, newest first, within a chat when one is named."""
        store.ensure_chat("c", START)
        store.ensure_chat("d", START)
        text = "x" * 100
        one = store.complete(
            store.reserve("c", None, "turn", START), ONE, fingerprint(text), current=True
        )
        two = store.complete(
            store.reserve("d", None, "turn", START), ONE, fingerprint("short"), current=True
        )
        assert [h.id for h in store.exact(fingerprint(text).key, None, 10)] == [one.id]
        assert store.exact(fingerprint(text).key, "d", 10) == []
        assert [n.id for n in store.pieces(fingerprint("y " + text), None, 10)] == [one.id]
        assert store.pieces(fingerprint(text), None, 10) == []  # not smaller than itself
        assert [n.id for n in store.pieces(fingerprint("so short"), None, 10)] == [two.id]
        assert store.pieces(fingerprint("so short"), "c", 10) == []
        assert store.heads([one.id, two.id, 999])[one.id].size == 100

    def test_add_node_reuses_the_same_node(self, store: HistoryStore) -> None:
        """Adding a finished node twice (a chat saved again) stores it once."""
        store.ensure_chat("c", START)
        one = store.add_node("c", None, START, ONE, fingerprint("a"), 5, current=True)
        again = store.add_node("c", None, START, ONE, fingerprint("a"), 5, current=True)
        assert one == again and len(store.nodes("c")) == 1

    def test_snapshots_are_stored_by_content(self, store: HistoryStore) -> None:
        """Nodes that share a snapshot share one row of it."""
        store.ensure_chat("c", START)
        for text in ("a", "b", "c"):
            store.add_node("c", None, START, ONE, fingerprint(text), None, current=False)
        names = {row[0] for row in rows(store, "SELECT name FROM snapshots")}
        assert names == {snapshot_hash(START), snapshot_hash(ONE)}

    def test_an_sqlite_file_is_wal(self, tmp_path: Path) -> None:
        """An SQLite store runs in WAL mode."""
        with HistoryStore(tmp_path / "h.sqlite") as store:
            assert rows(store, "PRAGMA journal_mode") == [("wal",)]

    def test_vacuum_drops_unreferenced(self, store: HistoryStore) -> None:
        """Snapshots no chat or node names go on vacuum; named ones stay."""
        store.ensure_chat("c", START)
        store.abandon(store.reserve("c", None, "turn", TWO))
        assert store.vacuum_snapshots() == 1
        assert store.current("c") == START


PARTY = Snapshot.model_validate(
    {"gameCharacterCards": {"Vex": built_card(), "Nim": built_card() | {"fields": {"n": 1}}}}
)


def _party(stress: int) -> Snapshot:
    """The two-card party with Vex at `stress` (cards unchanged)."""
    return Snapshot.model_validate(
        {**PARTY.to_json_dict(), "rulesetLive": {"vex": {"tracks": {"stress": stress}}}}
    )


class TestSnapshotParts:
    def test_unchanged_cards_are_stored_once(self, store: HistoryStore) -> None:
        """Ten snapshots differing in one stress track store each card once, and each reads
        back equal."""
        store.ensure_chat("c", PARTY)
        parent = None
        for stress in range(10):
            before = PARTY if stress == 0 else _party(stress - 1)
            print_ = fingerprint(f"reply {stress}")
            after = _party(stress)
            parent = store.add_node("c", parent, before, after, print_, None, current=True).id
        assert count(store, "snapshots") == 11 and count(store, "snapshot_parts") == 2
        with HistoryStore(store.path) as again:
            assert all(again.snapshot(snapshot_hash(_party(n))) == _party(n) for n in range(10))

    def test_vacuum_keeps_parts_still_named(self, store: HistoryStore) -> None:
        """Vacuum drops an abandoned snapshot but not the card parts kept snapshots share."""
        store.ensure_chat("c", _party(0))
        store.abandon(store.reserve("c", None, "turn", _party(1)))
        assert store.vacuum_snapshots() == 1
        assert count(store, "snapshot_parts") == 2
        with HistoryStore(store.path) as again:
            assert again.start("c") == _party(0)

    def test_a_missing_part_is_an_error(self, store: HistoryStore) -> None:
        """A manifest naming a part the file lost raises `HistoryError`, not a bare KeyError."""
        store.ensure_chat("c", PARTY)
        run_sql(store, "DELETE FROM snapshot_parts")
        with HistoryStore(store.path) as again, pytest.raises(HistoryError, match="part"):
            again.start("c")

    def test_a_damaged_part_is_an_error(self, store: HistoryStore) -> None:
        """A part whose body is not what was written raises `HistoryError` naming the damage."""
        store.ensure_chat("c", PARTY)
        run_sql(store, "UPDATE snapshot_parts SET body = ?", (b"\x00\xff",))
        with HistoryStore(store.path) as again, pytest.raises(HistoryError, match="damaged"):
            again.start("c")


class TestConcurrency:
    def test_two_connections_writing_lose_nothing(self, store_path: str) -> None:
        """Two stores on one file or database, writing nodes of one chat from two threads at
        once (sharing card parts), leave every node with snapshots that read back equal."""
        path = store_path
        with HistoryStore(path) as first:
            first.ensure_chat("c", PARTY)
        made: dict[int, Snapshot] = {}
        problems: list[BaseException] = []

        def write(offset: int) -> None:
            try:
                with HistoryStore(path) as own:
                    for round_ in range(40):
                        after = _party(offset + round_)
                        node = own.reserve("c", None, "turn", PARTY)
                        print_ = fingerprint(f"{offset} {round_}")
                        node = own.complete(node, after, print_, current=True)
                        made[node.id] = after
            except BaseException as error:  # reported below, on the test's thread
                problems.append(error)

        threads = [threading.Thread(target=write, args=(offset,)) for offset in (0, 100)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert problems == []
        with HistoryStore(path) as store:
            nodes = store.nodes("c")
            assert len(nodes) == 80 == len(made)
            assert all(store.snapshot(node.after) == made[node.id] for node in nodes)
            assert count(store, "snapshot_parts") == 2


WRITER = r"""
import sys
from gmtags import Snapshot
from gmtags.history.fingerprint import fingerprint
from gmtags.history.store import HistoryStore
from gmtags.transcript.chat import write_atomic

db, chat_path = sys.argv[1], sys.argv[2]
store = HistoryStore(db)
store.ensure_chat("killed", Snapshot())
parent = None
for round in range(100_000):
    card = {"Vex": {"fields": {"note": "a long note, stored as a part " * 4 + str(round)}}}
    before = Snapshot.model_validate({"gamePartySheet": {"fields": {"heat": round}}})
    after = Snapshot.model_validate(
        {"gamePartySheet": {"fields": {"heat": round + 1}}, "gameCharacterCards": card}
    )
    node = store.reserve("killed", parent, "turn", before)
    node = store.complete(node, after, fingerprint(f"reply {round}"), current=True)
    parent = node.id
    if round % 50 == 0:
        lines = ['{"chat_metadata":{"round":%d}}' % round]
        line = '{"name":"GM","is_user":false,"mes":"%d of %d"}'
        lines += [line % (i, round) for i in range(3000)]
        write_atomic(chat_path, "\n".join(lines) + "\n")
        print("saved", round, flush=True)
"""


class TestCrashSafety:
    def test_sigkill_mid_write_leaves_store_and_chat_readable(
        self, store_path: str, tmp_path: Path
    ) -> None:
        """A writer killed with SIGKILL leaves whole nodes (each snapshot's manifest and parts),
        a consistent current node and a whole chat file."""
        db, chat = store_path, tmp_path / "chat.jsonl"
        writer = subprocess.Popen(
            [sys.executable, "-c", WRITER, db, str(chat)], stdout=subprocess.PIPE, text=True
        )
        assert writer.stdout is not None
        assert writer.stdout.readline().startswith("saved 0")
        writer.stdout.readline()
        time.sleep(0.05)  # land somewhere inside a later write
        writer.send_signal(signal.SIGKILL)
        writer.wait()
        assert writer.returncode == -signal.SIGKILL

        if not db.startswith("postgresql:"):
            with sqlite3.connect(db) as raw:
                assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        with HistoryStore(db) as store:
            nodes = store.nodes("killed")
            assert len(nodes) >= 50
            for node in nodes:  # every finished node names stored snapshots, parts included
                after = store.snapshot(node.after)
                round_ = int(node.fingerprint.text.split()[-1])
                assert after.game_party_sheet.fields["heat"] == round_ + 1  # type: ignore[union-attr]
                assert after.game_character_cards["Vex"].fields["note"].endswith(f" {round_}")  # type: ignore[union-attr]
            assert store.current_node("killed") == nodes[-1].id
        parsed: Chat = read_chat(chat)  # never half a file: every line is whole JSON
        assert len(parsed.messages) == 3000
        round_ = parsed.metadata["round"]
        assert parsed.messages[-1].data["mes"] == f"2999 of {round_}"


class TestApplied:
    def test_a_node_keeps_the_receipts_it_applied(self, store: HistoryStore) -> None:
        """SPEC §7.2: the receipts of the commands applied are kept whatever the client saw
        (here cards), and read back as the node's receipts."""
        store.ensure_chat("c", START)
        receipt = '[clock: name="Dawn" tick="1" result="ok" now="1/4"]'
        node = store.reserve("c", None, "turn", START)
        print_ = fingerprint("🕒 **Dawn** 1/4")
        done = store.complete(node, ONE, print_, current=True, applied=(receipt,))
        assert done.receipts == store.node(done.id).receipts == (receipt,)
        assert store.node(done.id).fingerprint.receipts == ("🕒 **Dawn** 1/4",)

    def test_a_node_without_applied_receipts_reads_its_fingerprints(
        self, store: HistoryStore
    ) -> None:
        """A node stored before `applied` existed lists the receipts of its fingerprint."""
        store.ensure_chat("c", START)
        receipt = '[clock: name="Dawn" tick="1" result="ok" now="1/4"]'
        done = store.complete(
            store.reserve("c", None, "turn", START), ONE, fingerprint(receipt), current=True
        )
        assert store.node(done.id).receipts == (receipt,)
