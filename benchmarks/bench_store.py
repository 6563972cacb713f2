"""Size and speed of the history store (gmtags/history/store.py, issue 16 goal 5).

Goal: a 10,000-message history in the store takes at most 10% of 10,000 full snapshots.

Builds a 10,000-reply chat the way the proxy stores one: a party of four full
characters (the 5e builder sample's half-elf wizard, built from
fixtures/answers, given crows abilities and playbooks: a snapshot is about
15 KB), the crows ruleset, replies with clocks made, ticked and cleared,
party and character sheet commands, stress, coin, advances and checks, and
three swipes at every tenth reply. Each reply is a node saved as the proxy
saves it (`reserve` with the parent's snapshot name, `complete` with the new
snapshot), and the script reports:
- the store's size: the SQLite file after a checkpoint, and the bytes of its
  stored snapshots (every row of the snapshot tables);
- the reference: 10,000 full snapshots, the sum of the canonical JSON sizes of
  every reply's snapshot after, and the file against it (the goal: 10%);
- the time to save every node (µs per node), and to read a snapshot back from
  a store just opened (µs per snapshot, 500 names spread over the history, the best of three
  openings).
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import sqlite3
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench_transcript import REPLIES as CREW_REPLIES

from gmtags import Snapshot, build_character, load_ruleset, process
from gmtags.history.fingerprint import Fingerprint, fingerprint
from gmtags.history.snapshots import canonical_json
from gmtags.history.store import HistoryStore

ROOT = Path(__file__).resolve().parent.parent
REPLIES = 10_000
GOAL = 0.10
PARTY = (("Vex", "lurk"), ("Nim", "whisper"), ("Ash", "cutter"), ("Corin", "lurk"))
SNAPSHOT_TABLES = ("snapshots", "snapshot_parts")
"""Tables holding snapshot data in either layout (a table a file lacks counts nothing)."""


def reply(index: int) -> str:
    """The GM's reply at position `index`: a cycle of eight, most of them changing the state."""
    score = index // 8
    return (
        *CREW_REPLIES,  # bench_transcript's four, then four of a score's own
        f'Ash counts the take. [sheet: who="Ash" op="advance" field="coin_stash" to="{score % 41}"]'
        ' [skill_check: ability="Skirmish" who="Ash"]',
        'The crew moves on. [sheet: sheet="party" op="advance" field="lair" '
        f'to="Safehouse {score}"] [clock: name="Score {score}" size="6"]',
        'Corin takes the hit. [sheet: who="Corin" op="track" track="stress" by="1"] '
        f'[clock: name="Score {score}" tick="2"]',
        f'The score is done. [clock: name="Score {score}" clear] '
        '[sheet: who="Corin" op="track" track="stress" by="-1"] '
        '[sheet: sheet="party" op="spend" pool="coin" amount="1"]',
    )[index % 8]


def party_start() -> Snapshot:
    """Four full characters (a built 5e card each, with crows abilities) and a crew sheet."""
    builder = load_ruleset(ROOT / "fixtures/rulesets/builder/5e-builder.json")
    answers = json.loads((ROOT / "fixtures/answers/5e-half-elf-wizard.json").read_text())
    card = build_character(builder, answers).card
    cards: dict[str, Any] = {}
    for number, (name, playbook) in enumerate(PARTY):
        built = copy.deepcopy(card)
        built["abilities"] = {"finesse": 2, "hunt": 1, "skirmish": number % 3, "study": 1}
        built["fields"] = {**built["fields"], "playbook": playbook}
        cards[name] = built
    crew = {"fields": {"vault": 8, "lair": "Bell tower"}}
    return Snapshot.model_validate({"gameCharacterCards": cards, "gamePartySheet": crew})


@dataclass(frozen=True, slots=True)
class Reply:
    """One node to store: its parent (an index into the list, None: the start), its state after
    and its fingerprint."""

    parent: int | None
    after: Snapshot
    print_: Fingerprint


def history(start: Snapshot) -> tuple[list[Reply], int, list[str]]:
    """`REPLIES` replies (each tenth position has three swipes from one state), the bytes of
    every reply's snapshot after as canonical JSON (the reference), and their names."""
    ruleset = load_ruleset(ROOT / "fixtures/rulesets/sheets/crows.json")
    first = process('[clock: name="Alarm" size="8"]', ruleset, start, seed=0)
    replies = [Reply(None, first.snapshot, fingerprint(first.text))]
    current, position = 0, 1
    while len(replies) < REPLIES:
        before = replies[current].after
        chosen = len(replies)
        for swipe in range(3 if position % 10 == 0 else 1):
            if len(replies) == REPLIES:
                break
            done = process(reply(position + 3 * swipe), ruleset, before, seed=len(replies))
            replies.append(Reply(current, done.snapshot, fingerprint(done.text)))
        current, position = chosen, position + 1
    texts = [canonical_json(r.after.to_json_dict()).encode() for r in replies]
    return replies, sum(map(len, texts)), [hashlib.sha256(text).hexdigest() for text in texts]


def save(path: Path, start: Snapshot, replies: list[Reply]) -> tuple[float, list[str]]:
    """Store every reply as the proxy does; the seconds it took and each reply's snapshot name."""
    names: list[str] = []
    ids: list[int] = []
    with HistoryStore(path) as store:
        begin = time.perf_counter()
        store.ensure_chat("bench", start)
        start_name = store.start_name("bench")
        for item in replies:
            parent = None if item.parent is None else ids[item.parent]
            before = start_name if item.parent is None else names[item.parent]
            node = store.reserve("bench", parent, "turn", before)
            node = store.complete(node, item.after, item.print_, current=True)
            ids.append(node.id)
            names.append(node.after)
        seconds = time.perf_counter() - begin
    return seconds, names


def snapshot_bytes(path: Path) -> int:
    """The bytes of every stored snapshot row (names, bodies, manifests and parts)."""
    with sqlite3.connect(path) as raw:
        tables = {row[0] for row in raw.execute("SELECT name FROM sqlite_master")}
        total = 0
        for table in SNAPSHOT_TABLES:
            if table in tables:
                columns = [row[1] for row in raw.execute(f"PRAGMA table_info({table})")]
                lengths = " + ".join(f"COALESCE(LENGTH(CAST({c} AS BLOB)), 0)" for c in columns)
                total += int(raw.execute(f"SELECT SUM({lengths}) FROM {table}").fetchone()[0] or 0)
    return total


def read_back(path: Path, names: list[str], replies: list[Reply]) -> float:
    """Seconds per snapshot read from a store just opened (nothing cached), checked equal; the
    best of three openings."""
    sample = names[:: max(1, len(names) // 500)]
    expected = {name: item.after for name, item in zip(names, replies, strict=True)}
    best = float("inf")
    for _ in range(3):
        with HistoryStore(path) as store:
            begin = time.perf_counter()
            read = [store.snapshot(name) for name in sample]
            best = min(best, (time.perf_counter() - begin) / len(sample))
        assert all(snap == expected[name] for name, snap in zip(sample, read, strict=True))
    return best


def main() -> None:
    """Print the numbers listed in the module docstring."""
    start = party_start()
    replies, reference, expected = history(start)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "history.sqlite"
        save_s, names = save(path, start, replies)
        with sqlite3.connect(path) as raw:
            raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        size = os.path.getsize(path)
        stored = snapshot_bytes(path)
        read_s = read_back(path, names, replies)
    assert names == expected  # the store names each snapshot by its canonical JSON
    distinct = len(set(names))
    print(
        f"history store: {REPLIES:,} replies, {distinct:,} distinct snapshots, "
        f"a snapshot {reference / REPLIES / 1e3:.1f} KB on average"
    )
    print(f"  reference, {REPLIES:,} full snapshots:   {reference / 1e6:10.2f} MB")
    print(f"  store file after a checkpoint:     {size / 1e6:10.2f} MB")
    print(f"  of it, stored snapshots:           {stored / 1e6:10.2f} MB")
    print(
        f"  file / reference: {size / reference:6.1%}  (goal: at most {GOAL:.0%}; "
        f"{'met' if size <= GOAL * reference else 'not met'}; "
        f"stored snapshots / reference: {stored / reference:.1%})"
    )
    print(f"  save a node (reserve + complete):  {save_s / REPLIES * 1e6:10.0f} µs")
    print(f"  read a snapshot back (cold):       {read_s * 1e6:10.0f} µs")


if __name__ == "__main__":
    main()
