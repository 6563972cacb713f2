"""`--dask tcp://HOST:PORT`: chats run on an existing Dask cluster (SPEC §12, `gmtags[dask]`).

The client (the `gmtags transcript` command) reads every chat file and writes
every output itself; the workers need gmtags installed and nothing else, no
shared file system. The ruleset and start are sent to every worker once
(`Client.scatter(..., broadcast=True)`); each chat goes as one task holding its
`Task` and its file's text, and comes back as its `Outcome` with the output
text, which the client writes as `--jobs 1` would (`gmtags.transcript.tasks`:
the same `run_text` runs there). So the files are the same, byte for byte.

The client keeps a few chats per worker thread in flight, the largest files
first, reading the next file as one comes back, so its memory holds a window
of chats, not all of them.

`distributed` is imported here only, and this module only when `--dask` is
given: gmtags works without the extra.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import CancelledError
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

import click

from gmtags.commands.common import fail
from gmtags.ruleset.model import Ruleset
from gmtags.state.snapshot import Snapshot
from gmtags.transcript.chat import read_chat_text
from gmtags.transcript.tasks import (
    FAILURES,
    Outcome,
    Task,
    deliver,
    failed,
    largest_first,
    run_text,
)

if TYPE_CHECKING:
    from distributed import Client, Future

IN_FLIGHT_PER_THREAD = 2
"""Chats sent ahead per worker thread: one running, one already there when it is done."""


@dataclass(frozen=True, slots=True)
class Cluster:
    """A connected Dask client and the scheduler address it was given."""

    client: Client
    address: str

    def describe(self) -> str:
        """Where the chats ran, for the summary line: "2 Dask workers at tcp://…"."""
        workers = len(self._threads())
        return f"{workers} Dask worker{'s' if workers != 1 else ''} at {self.address}"

    def _threads(self) -> dict[str, int]:
        """Each worker's threads (its address: how many), as the scheduler knows them now."""
        threads: dict[str, int] = self.client.nthreads()  # type: ignore[no-untyped-call]
        return threads

    def run(
        self,
        tasks: Sequence[Task],
        ruleset: Ruleset,
        start: Snapshot | None,
        advance: Callable[[], None],
    ) -> list[Outcome]:
        """Run every task on the cluster; outcomes in task order, outputs written here."""
        from distributed import KilledWorker, as_completed

        client = self.client
        sending = [ruleset, start]
        rules, begin = client.scatter(sending, broadcast=True, hash=False)  # type: ignore[no-untyped-call]
        outcomes: dict[int, Outcome] = {}
        waiting = iter(largest_first(tasks))
        sent: dict[Future[Outcome], int] = {}
        running = as_completed(loop=client.loop)  # type: ignore[no-untyped-call]

        def send_next() -> None:
            """Send the next readable chat; an unreadable one is reported at once."""
            for index in waiting:
                task = tasks[index]
                try:
                    text = read_chat_text(task.chat)
                except FAILURES as error:
                    outcomes[index] = failed(task, error)
                    advance()
                    continue
                with warnings.catch_warnings():
                    # A task holds its chat's text by design: Dask's advice for a graph
                    # past 10 MB (load the data on the workers) does not apply here.
                    warnings.filterwarnings("ignore", "Sending large graph", UserWarning)
                    future = client.submit(run_text, task, text, rules, begin, pure=False)
                sent[future] = index
                running.add(future)  # type: ignore[no-untyped-call]
                return

        threads = sum(self._threads().values())
        for _ in range(max(1, threads) * IN_FLIGHT_PER_THREAD):
            send_next()
        for future in running:
            index = sent.pop(future)
            task = tasks[index]
            try:
                outcomes[index] = deliver(task, future.result())
            except (KilledWorker, CancelledError) as error:
                lost = f"{task.chat}: lost on the Dask cluster: {error}"
                outcomes[index] = Outcome(task.chat, lost)
            advance()
            send_next()
        return [outcomes[index] for index in range(len(tasks))]


@contextmanager
def connect(address: str) -> Iterator[Cluster]:
    """A client of the scheduler at `address`, closed afterwards.

    Exits 2 for an address that is not one (`tcp://HOST:PORT`), 1 when the
    `gmtags[dask]` extra is missing, or when no scheduler answers, or none of
    its workers is there, within Dask's connect timeout
    (`distributed.comm.timeouts.connect`, 30 s unless set).
    """
    try:
        import dask
        from distributed import Client
        from distributed.comm.addressing import parse_address
        from distributed.comm.registry import backends
    except ImportError:
        fail("--dask needs the dask extra: pip install 'gmtags[dask]'")
    scheme, _ = parse_address(address)
    if scheme not in backends:
        known = ", ".join(f"{name}://" for name in sorted(backends))
        message = f"{address}: the scheme must be one of {known}"
        raise click.BadParameter(message, param_hint="--dask")
    try:
        client = Client(address, set_as_default=False)  # type: ignore[no-untyped-call]
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--dask") from None
    except OSError as error:
        fail(f"no Dask scheduler reached at {address}: {error}")
    with client:
        try:
            client.wait_for_workers(1, timeout=dask.config.get("distributed.comm.timeouts.connect"))
        except TimeoutError:
            fail(f"the Dask scheduler at {address} has no workers")
        yield Cluster(client, address)
