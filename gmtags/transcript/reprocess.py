"""`reprocess`: re-roll every assistant message and swipe of a saved chat (SPEC §6).

Messages are taken in chat order. Every swipe of an assistant message starts
from the snapshot its position implies: the state after the previous
assistant message's current swipe (the chat's start for the first one), so
swipes are siblings and never see each other's rolls (002, "Relojes de
progreso…": regenerate starts from the previous snapshot). The chat then goes
on from the current swipe. Each swipe is rolled with the seed derived from
(chat id, message index, swipe index) (`gmtags.transcript.seeds`).

A text that already holds receipts is processed like any reply: the engine's
attributes in it are discarded (SPEC §2) and every command is rolled again.

The start snapshot is the one passed in; without one, the start a previous
run stored in the chat; without that, the empty snapshot.

Issue 16: the work is done in two passes. `_roll` is the chain: every message
rolled in order, each from the state the one before it left, which nothing
can run ahead of. Then every snapshot is named (in the order the chain made
them, so the file is the same) and every message line is written once, texts
and records together; the metadata line last.
"""

from __future__ import annotations

from dataclasses import dataclass

from gmtags.history.records import History, MessageRecord, SwipeRecord
from gmtags.limits import DEFAULT_LIMITS, Limits
from gmtags.process import process
from gmtags.ruleset.model import Ruleset
from gmtags.state.snapshot import Snapshot
from gmtags.transcript.chat import Chat, Line
from gmtags.transcript.layout import (
    assistant_swipes,
    read_history,
    stored_start,
    write_header,
    write_message,
    write_records,
)
from gmtags.transcript.named import NamedSnapshots
from gmtags.transcript.seeds import derive_seed


@dataclass(frozen=True, slots=True)
class Reprocessed:
    """A reprocessed chat, its history, and how much was rolled."""

    chat: Chat
    history: History
    messages: int
    """How many assistant messages were rolled."""
    swipes: int
    """How many swipes (alternatives) were rolled, the current ones included."""


@dataclass(frozen=True, slots=True)
class _Rolled:
    """One assistant message rolled: the state its swipes started from, and each swipe's new
    text, state after and seed."""

    index: int
    current: int
    before: Snapshot
    texts: list[str]
    afters: list[Snapshot]
    seeds: list[int]


def _roll(
    chat: Chat, ruleset: Ruleset, state: Snapshot, first: int, limits: Limits
) -> list[_Rolled]:
    """Every assistant message from `first` on rolled in chat order, from `state` on."""
    chat_id = chat.chat_id
    rolled: list[_Rolled] = []
    for index in chat.assistant_indexes():
        if index < first:
            continue
        texts, current = assistant_swipes(chat, index)
        seeds = [derive_seed(chat_id, index, swipe) for swipe in range(len(texts))]
        results = [
            process(text, ruleset, state, seed, limits=limits)
            for text, seed in zip(texts, seeds, strict=True)
        ]
        afters = [result.snapshot for result in results]
        rolled.append(_Rolled(index, current, state, [r.text for r in results], afters, seeds))
        state = afters[current]
    return rolled


def reprocess(
    chat: Chat,
    ruleset: Ruleset,
    start_snapshot: Snapshot | None = None,
    *,
    first: int = 0,
    limits: Limits = DEFAULT_LIMITS,
) -> Reprocessed:
    """Re-roll every assistant message and swipe from message `first` on (SPEC §6).

    Messages before `first` keep their text and their stored snapshots (an
    edit reprocesses from the edited message); with `first > 0` the chat must
    already store its history.
    """
    table = NamedSnapshots()
    records: dict[int, MessageRecord] = {}
    lines: dict[int, Line] = {}
    kind = chat.kind
    if first > 0:
        stored = read_history(chat)
        # The chat's own table, added to: what the kept messages refer to stays unread.
        assert isinstance(stored.snapshots, NamedSnapshots)
        table = stored.snapshots
        start = stored.snapshot(stored.start)
        last: int | None = None
        for index in chat.assistant_indexes():
            if index >= first:
                break
            record = stored.record(index)
            for kept in record.swipes:
                for name in () if kept is None else (kept.before, kept.after):
                    if not table.holds(name):
                        stored.snapshot(name)  # raises: not stored
            records[index] = record
            if kind != "plain" and all(swipe is not None for swipe in record.swipes):
                kept_records = [swipe for swipe in record.swipes if swipe is not None]
                lines[index] = write_records(chat.messages[index], kept_records)
            last = index
        state = start if last is None else stored.after(last)
    else:
        start = start_snapshot if start_snapshot is not None else stored_start(chat) or Snapshot()
        state = start
    start_name = table.add(start)
    rolled = _roll(chat, ruleset, state, first, limits)
    for message in rolled:
        before = table.add(message.before)
        swipe_records = [
            SwipeRecord(before, table.add(after), seed)
            for after, seed in zip(message.afters, message.seeds, strict=True)
        ]
        index = message.index
        lines[index] = write_message(kind, chat.messages[index], message.texts, swipe_records)
        records[index] = MessageRecord(tuple(swipe_records), message.current)
    rolled_messages = len(rolled)
    rolled_swipes = sum(len(message.texts) for message in rolled)
    chat = chat.with_messages(lines)
    chat_id = chat.chat_id
    history = History(chat_id, start_name, len(chat.messages), records, table)
    history = History(
        chat_id, start_name, len(chat.messages), records, table.only(history.referenced())
    )
    return Reprocessed(write_header(chat, history), history, rolled_messages, rolled_swipes)
