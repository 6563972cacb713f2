"""One chat's run for `gmtags transcript …`: a chat file's text in, its outcome and output out.

`run_text` runs every chat, whatever runs it: the command's own process
(`--jobs 1`), a worker process on this machine (`--jobs N`: `run_file`, which
reads and writes the chat's files itself) or a Dask worker on another machine
(`--dask`: `gmtags.commands.cluster` sends it the text and the ruleset and
writes the output it sends back). Where a chat ran therefore cannot change a
byte of what is written for it.
"""

from __future__ import annotations

import gc
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from gmtags.history.database import is_postgres
from gmtags.history.records import HistoryError
from gmtags.history.store import HistoryStore
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.played import LayerChoiceError
from gmtags.state.layers import start_layers
from gmtags.state.snapshot import Snapshot
from gmtags.transcript.chat import Chat, TranscriptError, parse_chat, read_chat_text, write_atomic
from gmtags.transcript.layout import stored_start
from gmtags.transcript.rebuild import rebuild
from gmtags.transcript.reprocess import reprocess
from gmtags.transcript.state import state
from gmtags.transcript.stored import save_nodes, stored_chat, stored_state

Command = Literal["reprocess", "rebuild", "state"]

FAILURES = (TranscriptError, HistoryError, LayerChoiceError, sqlite3.Error, OSError)
"""What a chat that cannot be read, run or written raises: reported, and the others go on."""


@dataclass(frozen=True, slots=True)
class Task:
    """One chat to run a command on, and where its result goes (None: returned as text)."""

    command: Command
    chat: str
    """The chat file's path: where it is read, what errors name, and (its stem) its name."""
    out: str | None
    message: int | None = None
    swipe: int | None = None
    db: str | None = None
    """The history store to read (state, rebuild) or save to (reprocess), if any: an SQLite
    file or a `postgresql://` address (`gmtags.history.database`)."""
    named: str | None = None
    """The chat of the store (`--chat`); None: found by matching the file's messages."""
    layers: tuple[str, ...] = ()
    """`--layers`: the layers a start that names none is given (checked against the ruleset)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one chat gave: counts, contradictions, the text for stdout, or an error."""

    chat: str
    error: str | None = None
    messages: int = 0
    swipes: int = 0
    report: tuple[str, ...] = field(default=())
    text: str | None = None
    """The output: for stdout, or (`run_text`) for `deliver` to write to the task's `out`."""


def _open_store(task: Task) -> HistoryStore:
    """The task's history store; an SQLite file that is only read must already exist."""
    assert task.db is not None
    if task.command != "reprocess" and not is_postgres(task.db) and not Path(task.db).is_file():
        raise HistoryError(f"history store not found: {task.db}")
    return HistoryStore(task.db)


def _layered(task: Task, chat: Chat, start: Snapshot | None) -> Snapshot | None:
    """The start with `--layers` set: the given start, else the chat's stored one, else empty."""
    if not task.layers:
        return start
    found = start if start is not None else stored_start(chat) or Snapshot()
    return start_layers(found, task.layers)


FULL_PASS_NEVER = 1 << 30
"""The collector's third threshold while a chat runs: a full pass never comes due."""


class _Collector:
    """How many chats run in this process now, and the thresholds to restore after the last."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running = 0
        self.saved = gc.get_threshold()


_COLLECTOR = _Collector()


@contextmanager
def no_full_collections() -> Iterator[None]:
    """While a chat runs, the cyclic collector makes no full pass over the heap.

    Issue 16: a full pass walks every object alive: pydantic's compiled schemas,
    the chat's parsed lines and the snapshots named so far. A 10,000-message chat
    set off two, 14% of its reprocess (about 70 ms each, after the objects from
    before it were frozen out of them, which was the previous remedy). Running a
    chat makes next to no cyclic garbage (a reprocess or rebuild with the
    collector off leaves none for `gc.collect()` to find): what it drops,
    reference counting frees. So the
    young generations are still collected as usual, and the threshold for a full
    pass is raised out of reach (`FULL_PASS_NEVER`) until the last chat running
    in the process (Dask worker threads may run several) is done, then put back.
    """
    collector = _COLLECTOR
    with collector.lock:
        if collector.running == 0:
            collector.saved = gc.get_threshold()
            young, middle, _ = collector.saved
            gc.set_threshold(young, middle, FULL_PASS_NEVER)
        collector.running += 1
    try:
        yield
    finally:
        with collector.lock:
            collector.running -= 1
            if collector.running == 0:
                gc.set_threshold(*collector.saved)


def failed(task: Task, error: BaseException) -> Outcome:
    """The outcome of a chat that raised one of `FAILURES`: one line naming the chat."""
    if isinstance(error, TranscriptError):
        return Outcome(task.chat, str(error))
    if isinstance(error, HistoryError | LayerChoiceError):
        return Outcome(task.chat, f"{task.chat}: {error}")
    if isinstance(error, FileNotFoundError):
        return Outcome(task.chat, f"chat file not found: {task.chat}")
    if isinstance(error, sqlite3.Error):
        return Outcome(task.chat, f"{task.chat}: history store {task.db}: {error}")
    assert isinstance(error, OSError), error
    return Outcome(task.chat, f"cannot read or write {task.chat}: {error.strerror}")


def run_text(task: Task, text: str, ruleset: Ruleset | None, start: Snapshot | None) -> Outcome:
    """Run `task` on `text`, its chat file's text; the outcome holds the output text.

    A chat that cannot be run becomes an error outcome, never an exception.
    """
    with no_full_collections():
        try:
            chat = parse_chat(text, Path(task.chat).stem, task.chat)
            return _run_chat(task, chat, ruleset, start)
        except FAILURES as error:
            return failed(task, error)


def _run_chat(task: Task, chat: Chat, ruleset: Ruleset | None, start: Snapshot | None) -> Outcome:
    if task.command == "state":
        if task.db is None:
            snapshot = state(chat, task.message, task.swipe)
        else:
            with _open_store(task) as store:
                snapshot = stored_state(
                    chat, store, task.message, task.swipe, named=task.named, where=store.where
                )
        return Outcome(task.chat, text=snapshot.to_json(indent=2))
    assert ruleset is not None
    if task.command == "reprocess":
        done = reprocess(chat, ruleset, _layered(task, chat, start))
        if task.db is not None:
            with _open_store(task) as store:
                save_nodes(store, done.chat, done.history)
        return Outcome(task.chat, None, done.messages, done.swipes, (), done.chat.dumps())
    if task.db is not None:
        with _open_store(task) as store:
            start = store.start(stored_chat(chat, store, task.named, store.where))
    built = rebuild(chat, ruleset, _layered(task, chat, start))
    report = tuple(f"{task.chat}: {item}" for item in built.contradictions)
    return Outcome(task.chat, None, built.messages, built.swipes, report, built.chat.dumps())


def deliver(task: Task, outcome: Outcome) -> Outcome:
    """Write the outcome's text to the task's `out` (atomically), if it has one; the outcome
    then keeps no text. One that cannot be written becomes an error outcome."""
    if task.out is None or outcome.text is None:
        return outcome
    try:
        Path(task.out).parent.mkdir(parents=True, exist_ok=True)
        write_atomic(task.out, outcome.text)
    except OSError as error:
        return failed(task, error)
    return replace(outcome, text=None)


def run_file(task: Task, ruleset: Ruleset | None, start: Snapshot | None) -> Outcome:
    """Read the task's chat, run it and write its output: the whole of one chat, here."""
    try:
        text = read_chat_text(task.chat)
    except FAILURES as error:
        return failed(task, error)
    return deliver(task, run_text(task, text, ruleset, start))


def largest_first(tasks: Sequence[Task]) -> list[int]:
    """The tasks' indexes, the largest chat file first (ties and unreadable files in order):
    the long chats start at once and the short ones fill the gaps, so no process is left
    with one long chat after the others are done."""

    def size(index: int) -> int:
        try:
            return Path(tasks[index].chat).stat().st_size
        except OSError:
            return 0

    return sorted(range(len(tasks)), key=lambda index: -size(index))
