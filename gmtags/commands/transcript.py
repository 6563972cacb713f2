"""`gmtags transcript …`: reprocess, rebuild and read saved chats (SPEC §6).

    gmtags transcript reprocess CHAT.jsonl --ruleset R.json [--state S.json] [--out OUT.jsonl]
    gmtags transcript rebuild CHAT.jsonl --ruleset R.json [--state S.json] [--out OUT.jsonl]
    gmtags transcript state CHAT.jsonl [--message N] [--swipe K] [--db H.sqlite [--chat ID]]

`CHAT.jsonl` may be a folder (every `*.jsonl` under it) or several files;
`--jobs N` spreads them over N processes, or `--dask tcp://HOST:PORT` over the
workers of an existing Dask cluster (SPEC §12, `gmtags.commands.cluster`),
with a progress bar when stderr is a terminal and a one-line summary on stderr
at the end. Every chat, wherever it runs, is run by `gmtags.transcript.tasks`'
one `run_text`.

Decision (issue 16): a chat is the unit of work. Each assistant message starts
from the snapshot the one before it left, so the messages of one chat are a
chain that one process runs in order, and `--jobs` runs several chats at once,
the largest files first; one chat with `--jobs 2` runs as with `--jobs 1`.
What is outside that chain (reading the lines, naming and writing snapshots) is
a small part of a chat's time (`benchmarks/bench_transcript.py`), less than
shipping the snapshots to another process would cost. The output does not
depend on `--jobs`: every chat is run by the same code from the same ruleset
and start, and written to its own file.

Decisions where SPEC §6 is silent:
- With one chat, the result goes to `--out` or stdout. With several, `--out`
  names a folder (made when missing) that receives each chat under its name
  (its path below the folder it was found in); `reprocess` needs it, and
  `rebuild` without it only checks and reports.
- `rebuild` writes its report on stderr, one line per contradicted receipt
  (`CHAT: message N, swipe K, tag T: problem: receipt`), and exits 1 when
  there is any.
- `state` of several chats prints one JSON object keyed by chat path.
- `--db FILE` is the history store the proxy keeps (`gmtags.history.store`),
  one history for the proxy and the command line. `state` and `rebuild`
  read it (SPEC §7.1): `state` finds the message's snapshot among the stored
  replies by fingerprint, `rebuild` starts from the stored chat's start;
  `--chat ID` names the chat, else it is the chat holding the file's last
  matching assistant message (`gmtags.transcript.stored`). `reprocess`
  saves the reprocessed replies into it: the one place a plain role/content
  chat's snapshots are kept.
- A chat that cannot be read is reported (`CHAT, line N: why`) and the others
  still run; the exit code is then 1. Nothing is ever written half-way:
  every output file is written to a temporary file and renamed.
- `--db` may also name a PostgreSQL store (`postgresql://…`, SPEC §12),
  read and written as the SQLite one; errors name it without its password.
- `--dask` (reprocess and rebuild): this process reads every chat and
  writes every output; the workers get the text, the ruleset and the start.
  With `--db postgresql://…` each worker opens the store itself, as a
  `--jobs` worker does: the database is reached over the network from
  anywhere. An SQLite `--db` is refused (exit 2): it is a file on this
  machine that the workers do not reach, and running its parts here would
  mean parsing every chat here and shipping each history back. `--jobs N`
  above 1 is refused too (both say where chats run): the cluster's workers
  and their threads set how many chats run at once.
- `--layers a,b` (SPEC §4) sets the layers of the start each chat is
  processed from (`--state`, else the start stored in the chat or the
  store, else empty) when that start names none; an id the ruleset lacks, or
  two layers in conflict, exits 1 before any chat runs; a chat whose start
  already plays other layers is reported like an unreadable one.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Literal

import click

from gmtags.commands.common import fail, layers_option, read_ruleset, read_snapshot, rulesets_option
from gmtags.history.database import is_postgres
from gmtags.jsonfile import dumps
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.played import LayerChoiceError, chosen_layers
from gmtags.state.snapshot import Snapshot
from gmtags.transcript.tasks import Command, Outcome, Task, largest_first, run_file

_WORKER: dict[str, tuple[Ruleset | None, Snapshot | None]] = {}


def _load(
    ruleset_path: str | None, state_path: str | None, rulesets: Sequence[str] = ()
) -> tuple[Ruleset | None, Snapshot | None]:
    """The ruleset (its lenders in the `--rulesets` folders) and start state, read with the
    shared CLI loaders (exit 1 on a bad file)."""
    ruleset = read_ruleset(ruleset_path, rulesets) if ruleset_path is not None else None
    start = read_snapshot(state_path) if state_path is not None else None
    return ruleset, start


def _init_worker(ruleset: Ruleset | None, start: Snapshot | None) -> None:
    """A worker keeps the ruleset and start the main process read (under `fork` they are
    inherited, not read or copied again; under `spawn` they arrive pickled)."""
    _WORKER["loaded"] = (ruleset, start)


def _run_in_worker(task: Task) -> Outcome:
    ruleset, start = _WORKER["loaded"]
    return run_file(task, ruleset, start)


def _expand(paths: tuple[str, ...]) -> tuple[list[tuple[Path, Path]], bool]:
    """Every chat file as (path, name under --out), and whether there are several."""
    found: list[tuple[Path, Path]] = []
    several = len(paths) > 1
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            several = True
            found.extend((file, file.relative_to(path)) for file in sorted(path.rglob("*.jsonl")))
        elif path.exists():
            found.append((path, Path(path.name)))
        else:
            fail(f"chat file not found: {raw}")
    return found, several


def _tasks(
    command: Command,
    paths: tuple[str, ...],
    out: str | None,
    message: int | None = None,
    swipe: int | None = None,
    db: str | None = None,
    named: str | None = None,
) -> tuple[list[Task], bool]:
    files, several = _expand(paths)
    if not several:
        file = files[0][0]
        return [Task(command, str(file), out, message, swipe, db, named)], False
    if command == "reprocess" and out is None:
        raise click.UsageError("several chats need --out FOLDER to write them to")
    names = [name for _, name in files]
    if len(set(names)) != len(names):
        raise click.UsageError("two chats would be written under the same name in --out")
    if out is not None and Path(out).exists() and not Path(out).is_dir():
        raise click.UsageError("--out must be a folder when there are several chats")
    return [
        Task(
            command,
            str(file),
            None if out is None else str(Path(out) / name),
            message,
            swipe,
            db,
            named,
        )
        for file, name in files
    ], True


@contextmanager
def _progress(total: int, label: str) -> Iterator[Callable[[], None]]:
    """A progress bar on stderr when it is a terminal; otherwise nothing is drawn."""
    if total < 2 or not sys.stderr.isatty():
        yield lambda: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    columns = (
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
        bar = progress.add_task(label, total=total)
        yield lambda: progress.advance(bar)


def _jobs(jobs: int) -> str:
    return f"{jobs} job{'s' if jobs != 1 else ''}"


def _execute(
    tasks: Sequence[Task],
    jobs: int,
    ruleset_path: str | None,
    state_path: str | None,
    layers: str | None = None,
    rulesets: Sequence[str] = (),
    dask: str | None = None,
) -> tuple[list[Outcome], str]:
    """Run every task, in `jobs` processes when there are several, or on the Dask cluster
    at `dask`; the outcomes in task order, and where they ran (for the summary).

    `--layers` is checked against the ruleset here, before any chat runs. A chat
    is the unit of work: each message starts from the state the one before it
    left, so one chat always runs in one process, and `--jobs` runs several chats
    at once (at most one process per chat).
    """
    ruleset, start = _load(ruleset_path, state_path, rulesets)
    if layers is not None and ruleset is not None:
        try:
            chosen = chosen_layers(ruleset, layers)
        except LayerChoiceError as error:
            fail(str(error))
        tasks = [replace(task, layers=chosen) for task in tasks]
    label = tasks[0].command if tasks else ""
    if dask is not None:
        from gmtags.commands.cluster import connect

        assert ruleset is not None
        with connect(dask) as cluster, _progress(len(tasks), label) as advance:
            outcomes = cluster.run(tasks, ruleset, start, advance)
            return outcomes, cluster.describe()
    done: dict[int, Outcome] = {}
    with _progress(len(tasks), label) as advance:
        if jobs <= 1 or len(tasks) <= 1:
            for index, task in enumerate(tasks):
                done[index] = run_file(task, ruleset, start)
                advance()
        else:
            with ProcessPoolExecutor(
                max_workers=min(jobs, len(tasks)),
                initializer=_init_worker,
                initargs=(ruleset, start),
            ) as pool:
                futures: dict[Future[Outcome], int] = {
                    pool.submit(_run_in_worker, tasks[index]): index
                    for index in largest_first(tasks)
                }
                for future in as_completed(futures):
                    done[futures[future]] = future.result()
                    advance()
    return [done[index] for index in range(len(tasks))], _jobs(jobs)


def _summary(command: str, outcomes: list[Outcome], seconds: float, where: str) -> str:
    failed = sum(1 for outcome in outcomes if outcome.error)
    contradicted = sum(len(outcome.report) for outcome in outcomes)
    parts = [
        f"{command}: {len(outcomes) - failed} chat{'s' if len(outcomes) - failed != 1 else ''}",
        f"{sum(o.messages for o in outcomes)} assistant messages",
        f"{sum(o.swipes for o in outcomes)} swipes",
    ]
    if command == "rebuild":
        parts.append(f"{contradicted} contradicted receipts")
    if failed:
        parts.append(f"{failed} failed")
    return ", ".join(parts) + f" in {seconds:.2f} s ({where})"


def _finish(command: str, outcomes: list[Outcome], started: float, where: str) -> bool:
    """Report errors and contradictions on stderr; True when everything was fine."""
    for outcome in outcomes:
        if outcome.error:
            click.echo(f"gmtags: {outcome.error}", err=True)
        for line in outcome.report:
            click.echo(line, err=True)
    if len(outcomes) > 1:
        elapsed = time.perf_counter() - started
        click.echo(_summary(command, outcomes, elapsed, where), err=True)
    return not any(outcome.error or outcome.report for outcome in outcomes)


_chats = click.argument("chats", nargs=-1, required=True, metavar="CHAT.jsonl...")
_ruleset_option = click.option(
    "--ruleset", "ruleset_path", required=True, help="The ruleset JSON file."
)
_state_option = click.option(
    "--state",
    "state_path",
    help="The snapshot to start from (default: the one stored in the chat, else empty).",
)
_out_option = click.option(
    "--out", help="Where to write the chat (a folder when there are several; default stdout)."
)
_save_db_option = click.option(
    "--db",
    help="Also save the reprocessed replies in this history store (made when missing).",
)
_read_db_option = click.option(
    "--db", help="Read the history store the proxy keeps (gmtags serve --db) for this chat."
)
_chat_option = click.option(
    "--chat",
    "named",
    help="The chat of the --db store (default: the one the file's last reply matches).",
)
_jobs_option = click.option(
    "--jobs", type=click.IntRange(min=1), default=1, show_default=True, help="Processes to use."
)
_dask_option = click.option(
    "--dask",
    metavar="tcp://HOST:PORT",
    help="Run the chats on this Dask scheduler's workers instead (the gmtags[dask] extra).",
)


def _run_all(
    command: Literal["reprocess", "rebuild"],
    chats: tuple[str, ...],
    ruleset_path: str,
    state_path: str | None,
    out: str | None,
    db: str | None,
    jobs: int,
    named: str | None = None,
    layers: str | None = None,
    rulesets: Sequence[str] = (),
    dask: str | None = None,
) -> None:
    """Run `command` on every chat, print what it writes to stdout, exit 1 on any failure.

    A rebuild of several chats only checks and reports; one chat's rebuilt file goes
    to stdout, like every reprocessed chat without `--out`.
    """
    started = time.perf_counter()
    if named is not None and db is None:
        raise click.UsageError("--chat names a chat of the --db store: give --db too")
    if command == "rebuild" and db is not None and state_path is not None:
        raise click.UsageError("--state and --db both give the start: choose one")
    if dask is not None and db is not None and not is_postgres(db):
        raise click.UsageError(
            "--db names an SQLite file on this machine, which --dask workers do not reach: "
            "use a postgresql:// store, or --jobs N"
        )
    if dask is not None and jobs > 1:
        raise click.UsageError("--jobs and --dask both say where the chats run: choose one")
    tasks, several = _tasks(command, chats, out, db=db, named=named)
    outcomes, where = _execute(tasks, jobs, ruleset_path, state_path, layers, rulesets, dask)
    quiet = several and command == "rebuild"
    for outcome in outcomes:
        if outcome.text is not None and not quiet:
            click.echo(outcome.text, nl=False)
    if not _finish(command, outcomes, started, where):
        sys.exit(1)


@click.group("transcript")
def transcript() -> None:
    """Reprocess, rebuild and read saved chats (SillyTavern or role/content JSONL)."""


@transcript.command("reprocess")
@_chats
@_ruleset_option
@_state_option
@_out_option
@_save_db_option
@_jobs_option
@_dask_option
@layers_option
@rulesets_option
def reprocess_command(
    chats: tuple[str, ...],
    ruleset_path: str,
    state_path: str | None,
    out: str | None,
    db: str | None,
    jobs: int,
    dask: str | None,
    layers: str | None,
    rulesets: tuple[str, ...],
) -> None:
    """Re-roll every assistant message and swipe; write receipts and snapshots."""
    _run_all(
        "reprocess",
        chats,
        ruleset_path,
        state_path,
        out,
        db,
        jobs,
        layers=layers,
        rulesets=rulesets,
        dask=dask,
    )


@transcript.command("rebuild")
@_chats
@_ruleset_option
@_state_option
@_out_option
@_read_db_option
@_chat_option
@_jobs_option
@_dask_option
@layers_option
@rulesets_option
def rebuild_command(
    chats: tuple[str, ...],
    ruleset_path: str,
    state_path: str | None,
    out: str | None,
    db: str | None,
    named: str | None,
    jobs: int,
    dask: str | None,
    layers: str | None,
    rulesets: tuple[str, ...],
) -> None:
    """Recompute snapshots from the receipts without rolling; report contradicted receipts."""
    _run_all(
        "rebuild", chats, ruleset_path, state_path, out, db, jobs, named, layers, rulesets, dask
    )


@transcript.command("state")
@_chats
@click.option("--message", type=click.IntRange(min=0), help="0-based message (default: last).")
@click.option(
    "--swipe", type=click.IntRange(min=0), help="Swipe of that message (default: current)."
)
@_read_db_option
@_chat_option
@_jobs_option
def state_command(
    chats: tuple[str, ...],
    message: int | None,
    swipe: int | None,
    db: str | None,
    named: str | None,
    jobs: int,
) -> None:
    """Print the snapshot JSON after a message and swipe, from the history the chat stores
    (or the proxy's store, with --db)."""
    started = time.perf_counter()
    if named is not None and db is None:
        raise click.UsageError("--chat names a chat of the --db store: give --db too")
    tasks, several = _tasks("state", chats, None, message, swipe, db, named)
    outcomes, where = _execute(tasks, jobs, None, None)
    if several:
        states = {o.chat: json.loads(o.text) for o in outcomes if o.text is not None}
        click.echo(dumps(states, indent=2))
    else:
        for outcome in outcomes:
            if outcome.text is not None:
                click.echo(outcome.text)
    if not _finish("state", outcomes, started, where):
        sys.exit(1)
