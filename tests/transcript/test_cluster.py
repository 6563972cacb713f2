"""gmtags/commands/cluster.py: `transcript reprocess|rebuild --dask` on a real Dask cluster.

Every test runs the command itself (click's runner, in this process) against a
`distributed.LocalCluster` and holds its files, exit code and stderr to what
`--jobs 1` gives for the same chats (SPEC §12: byte for byte the same).
"""

from __future__ import annotations

import socket
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import dask
import pytest
from distributed import LocalCluster

from gmtags.commands.transcript import transcript as transcript_group
from gmtags.history.store import HistoryStore
from tests.conftest import Ran, invoke
from tests.postgres import PostgresServer
from tests.transcript.conftest import CROWS, GOLDEN, GROUP, HEIST, PLAIN, START, copy_to

RULES = ("--ruleset", CROWS, "--state", START)


def _cluster(workers: int, processes: bool) -> Iterator[str]:
    with LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=processes, dashboard_address=":0"
    ) as cluster:
        yield cluster.scheduler_address


@pytest.fixture(scope="module")
def threads() -> Iterator[str]:
    """A cluster of two one-thread workers in this process; its scheduler's address."""
    yield from _cluster(2, processes=False)


@pytest.fixture(scope="module")
def processes() -> Iterator[str]:
    """A cluster of one worker process: every task, ruleset and outcome crosses a pickle."""
    yield from _cluster(1, processes=True)


def transcript(*args: str | Path) -> Ran:
    """`gmtags transcript ARGS` run in this process."""
    return invoke(transcript_group, *args)


def chats(folder: Path) -> Path:
    """A folder of five chats (SillyTavern, group, plain, generated, one a level deeper)."""
    (folder / "deeper").mkdir(parents=True)
    for source in (HEIST, GROUP, PLAIN, GOLDEN / "generated.jsonl"):
        copy_to(folder, source)
    copy_to(folder / "deeper", GOLDEN / "odd.jsonl")
    return folder


def files(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` by its path below it, byte for byte."""
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in folder.rglob("*")
        if path.is_file()
    }


def untimed(stderr: str) -> list[str]:
    """stderr's lines with the summary's time and where the chats ran left out."""
    *lines, summary = stderr.splitlines()
    return [*lines, summary.rsplit(" in ", 1)[0]]


def where(stderr: str) -> str:
    """The summary's last part: where the chats ran."""
    return stderr.splitlines()[-1].rsplit(" (", 1)[1]


def free_port() -> int:
    """A TCP port on this machine that nothing listens on (bound, then closed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


class TestSameBytesAsOneJob:
    def test_reprocess_a_folder(self, tmp_path: Path, threads: str) -> None:
        """A folder reprocessed on the cluster writes the same files as --jobs 1, and the
        summary counts the same chats, messages and swipes and names the cluster."""
        folder = chats(tmp_path / "chats")
        local = transcript("reprocess", folder, *RULES, "--out", tmp_path / "one")
        remote = transcript(
            "reprocess", folder, *RULES, "--out", tmp_path / "dask", "--dask", threads
        )
        assert local.returncode == remote.returncode == 0, remote.stderr
        assert files(tmp_path / "dask") == files(tmp_path / "one")
        assert sorted(files(tmp_path / "one")) == sorted(files(folder))
        assert untimed(remote.stderr) == untimed(local.stderr)
        assert untimed(local.stderr)[-1] == "reprocess: 5 chats, 74 assistant messages, 92 swipes"
        assert where(remote.stderr) == f"2 Dask workers at {threads})"

    def test_a_chat_past_dasks_large_graph_size(self, tmp_path: Path, threads: str) -> None:
        """A chat larger than Dask's large-graph warning size is sent all the same, with
        nothing more on stderr than --jobs 1 prints."""
        folder = chats(tmp_path / "chats")
        local = transcript("reprocess", folder, *RULES, "--out", tmp_path / "one")
        with (
            dask.config.set({"distributed.admin.large-graph-warning-threshold": "1kB"}),
            warnings.catch_warnings(record=True) as warned,
        ):
            warnings.simplefilter("always")
            remote = transcript(
                "reprocess", folder, *RULES, "--out", tmp_path / "dask", "--dask", threads
            )
        assert remote.returncode == 0, remote.stderr
        assert [str(warning.message) for warning in warned] == []
        assert untimed(remote.stderr) == untimed(local.stderr)
        assert files(tmp_path / "dask") == files(tmp_path / "one")

    def test_one_chat_to_stdout(self, threads: str) -> None:
        """One chat without --out comes back to stdout, the same bytes as --jobs 1."""
        local = transcript("reprocess", HEIST, *RULES)
        remote = transcript("reprocess", HEIST, *RULES, "--dask", threads)
        assert remote.returncode == 0, remote.stderr
        assert remote.stdout == local.stdout
        assert remote.stderr == local.stderr == ""

    def test_a_worker_process(self, tmp_path: Path, processes: str) -> None:
        """With a worker in its own process (the ruleset and each chat pickled to it, each
        outcome back) the files are still those of --jobs 1."""
        folder = chats(tmp_path / "chats")
        local = transcript("reprocess", folder, *RULES, "--out", tmp_path / "one")
        remote = transcript(
            "reprocess", folder, *RULES, "--out", tmp_path / "dask", "--dask", processes
        )
        assert local.returncode == remote.returncode == 0, remote.stderr
        assert files(tmp_path / "dask") == files(tmp_path / "one")
        assert untimed(remote.stderr) == untimed(local.stderr)
        assert where(remote.stderr) == f"1 Dask worker at {processes})"


class TestReports:
    def test_bad_chats_among_good_ones(self, tmp_path: Path, threads: str) -> None:
        """A chat with bad JSON (found on a worker) and one that is not UTF-8 (found by the
        client as it reads) are reported in the chats' order, exit 1, as with --jobs 1; the
        good chats are written."""
        folder = chats(tmp_path / "chats")
        (folder / "a-bad.jsonl").write_text('{"chat_metadata":{}}\n{oops\n', encoding="utf-8")
        (folder / "b-latin.jsonl").write_bytes(b'{"role":"user","content":"caf\xe9"}\n')
        local = transcript("reprocess", folder, *RULES, "--out", tmp_path / "one")
        remote = transcript(
            "reprocess", folder, *RULES, "--out", tmp_path / "dask", "--dask", threads
        )
        assert local.returncode == remote.returncode == 1
        assert untimed(remote.stderr) == untimed(local.stderr)
        lines = remote.stderr.splitlines()
        assert lines[0].startswith(f"gmtags: {folder / 'a-bad.jsonl'}, line 2: not valid JSON")
        assert lines[1] == f"gmtags: {folder / 'b-latin.jsonl'}: not UTF-8 text"
        assert files(tmp_path / "dask") == files(tmp_path / "one")
        assert "a-bad.jsonl" not in files(tmp_path / "dask")

    def test_rebuild_contradictions(self, tmp_path: Path, threads: str) -> None:
        """Rebuilding reprocessed chats, one with a forged clock, reports the same
        contradiction and writes the same files as --jobs 1, exit 1."""
        done = tmp_path / "done"
        ran = transcript("reprocess", chats(tmp_path / "chats"), *RULES, "--out", done)
        assert ran.returncode == 0, ran.stderr
        heist = done / HEIST.name
        forged = heist.read_text(encoding="utf-8").replace('now=\\"2/8\\"', 'now=\\"7/8\\"')
        heist.write_text(forged, encoding="utf-8")
        local = transcript("rebuild", done, "--ruleset", CROWS, "--out", tmp_path / "one")
        remote = transcript(
            "rebuild", done, "--ruleset", CROWS, "--out", tmp_path / "dask", "--dask", threads
        )
        assert local.returncode == remote.returncode == 1
        assert untimed(remote.stderr) == untimed(local.stderr)
        assert f"{heist}: message 0, swipe 0, tag 1: now='7/8' but the rules give now='2/8'" in (
            remote.stderr
        )
        *report, summary = untimed(remote.stderr)
        assert all(": message " in line for line in report)
        assert summary.endswith(f", {len(report)} contradicted receipts")
        assert files(tmp_path / "dask") == files(tmp_path / "one")

    def test_rebuild_without_out_only_checks(self, tmp_path: Path, threads: str) -> None:
        """A rebuild of several chats without --out prints nothing on stdout, as locally."""
        folder = chats(tmp_path / "chats")
        local = transcript("rebuild", folder, *RULES)
        remote = transcript("rebuild", folder, *RULES, "--dask", threads)
        assert remote.stdout == local.stdout == ""
        assert remote.returncode == local.returncode
        assert untimed(remote.stderr) == untimed(local.stderr)


def stored(db: str) -> dict[str, list[tuple[object, ...]]]:
    """Every chat of the store at `db` and its replies (each as where it hangs among them,
    kind, seed, snapshots and fingerprint; node ids depend on the order chats were saved)."""
    with HistoryStore(db) as store:
        found: dict[str, list[tuple[object, ...]]] = {}
        for chat in store.chats():
            nodes = store.nodes(chat)
            place = {node.id: index for index, node in enumerate(nodes)}
            found[chat] = [
                (
                    None if node.parent is None else place[node.parent],
                    node.kind,
                    node.seed,
                    node.before,
                    node.after,
                    node.fingerprint,
                )
                for node in nodes
            ]
        return found


class TestPostgresStore:
    def test_workers_save_and_read_the_same_replies(
        self, tmp_path: Path, threads: str, postgres: PostgresServer
    ) -> None:
        """With a postgresql:// --db the workers save each reprocessed chat's replies there,
        the same replies --jobs 1 saves, and `rebuild --db` on the cluster reads them back
        to the same files and reports as --jobs 1."""
        folder = chats(tmp_path / "chats")
        here, there = postgres.create_database(), postgres.create_database()
        one, dask_out = tmp_path / "one", tmp_path / "dask"
        local = transcript("reprocess", folder, *RULES, "--out", one, "--db", here)
        remote = transcript(
            "reprocess", folder, *RULES, "--out", dask_out, "--db", there, "--dask", threads
        )
        assert local.returncode == remote.returncode == 0, remote.stderr
        assert files(dask_out) == files(one)
        saved = stored(here)
        assert len(saved) == 5
        assert stored(there) == saved
        rebuilt_here = transcript("rebuild", one, "--ruleset", CROWS, "--db", here)
        rebuilt_there = transcript(
            "rebuild", one, "--ruleset", CROWS, "--db", there, "--dask", threads
        )
        assert rebuilt_there.returncode == rebuilt_here.returncode
        assert untimed(rebuilt_there.stderr) == untimed(rebuilt_here.stderr)


class TestRefusals:
    def test_no_scheduler(self, tmp_path: Path) -> None:
        """An address where no scheduler listens exits 1 with one line, once Dask's connect
        timeout is over, and nothing is written."""
        address = f"tcp://127.0.0.1:{free_port()}"
        with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
            result = transcript(
                "reprocess", HEIST, *RULES, "--out", tmp_path / "o", "--dask", address
            )
        assert result.returncode == 1
        assert result.stderr.startswith(f"gmtags: no Dask scheduler reached at {address}: ")
        assert result.stderr.count("\n") == 1
        assert "Traceback" not in result.stderr
        assert not (tmp_path / "o").exists()

    def test_no_workers(self, tmp_path: Path) -> None:
        """A scheduler with no worker for the length of the connect timeout exits 1 with one
        line, rather than waiting with the chats for a worker that may never come."""
        with (
            LocalCluster(n_workers=0, processes=False, dashboard_address=":0") as cluster,
            dask.config.set({"distributed.comm.timeouts.connect": "1s"}),
        ):
            address = cluster.scheduler_address
            result = transcript(
                "reprocess", HEIST, *RULES, "--out", tmp_path / "o", "--dask", address
            )
        assert result.returncode == 1
        assert result.stderr == f"gmtags: the Dask scheduler at {address} has no workers\n"
        assert not (tmp_path / "o").exists()

    @pytest.mark.parametrize("address", ["nonsense", "ftp://127.0.0.1:8786"])
    def test_not_an_address(self, address: str) -> None:
        """An address without a port or with a scheme Dask lacks is a usage error (exit 2)."""
        result = transcript("reprocess", HEIST, *RULES, "--dask", address)
        assert result.returncode == 2
        assert "--dask" in result.stderr
        assert "Traceback" not in result.stderr

    def test_without_the_extra(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Without `distributed` installed, --dask exits 1 naming the extra to install."""
        monkeypatch.setitem(sys.modules, "distributed", None)
        result = transcript("reprocess", HEIST, *RULES, "--dask", "tcp://127.0.0.1:8786")
        assert result.returncode == 1
        assert result.stderr == "gmtags: --dask needs the dask extra: pip install 'gmtags[dask]'\n"

    def test_with_an_sqlite_db(self, tmp_path: Path) -> None:
        """An SQLite --db is a file on this machine that the workers do not reach: exit 2."""
        db = tmp_path / "h.sqlite"
        result = transcript("reprocess", HEIST, *RULES, "--db", db, "--dask", "tcp://127.0.0.1:1")
        assert result.returncode == 2
        assert "--db" in result.stderr
        assert not db.exists()

    def test_with_jobs(self) -> None:
        """--jobs and --dask both say where the chats run: exit 2."""
        result = transcript("rebuild", HEIST, *RULES, "--jobs", "2", "--dask", "tcp://127.0.0.1:1")
        assert result.returncode == 2
        assert "choose one" in result.stderr
