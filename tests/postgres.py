"""A real PostgreSQL server for the tests (issue 17): Debian's binaries, a throwaway cluster.

`make test` installs Debian's `postgresql` package when its binaries are missing
(`make postgresql`) and never starts the system's own cluster: each test session
makes a cluster of its own in a temporary folder (`initdb`, trust authentication
on loopback only), starts it on a free port with `pg_ctl`, and removes it at the
end. As root, the server runs as the `postgres` user the package creates
(PostgreSQL refuses to run as root). `GMTAGS_PG_BINDIR` names another folder of
binaries.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg


def bindir() -> Path | None:
    """The folder of the newest installed PostgreSQL's server binaries, or None."""
    named = os.environ.get("GMTAGS_PG_BINDIR")
    if named:
        return Path(named)
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=_major)
    return found[-1].parent if found else None


def _major(initdb: Path) -> int:
    version = initdb.parent.parent.name
    return int(version) if version.isdigit() else 0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class PostgresServer:
    """One throwaway cluster: `start()`, then `dsn(database)`, `create_database()`, `stop()`."""

    def __init__(self, binaries: Path) -> None:
        self.binaries = binaries
        self.folder = Path(tempfile.mkdtemp(prefix="gmtags-pg-"))
        self.data = self.folder / "data"
        self.port = _free_port()
        self._as: list[str] = []
        if os.geteuid() == 0:
            owner = pwd.getpwnam("postgres")
            os.chown(self.folder, owner.pw_uid, owner.pw_gid)
            self._as = ["runuser", "-u", "postgres", "--"]
        self._made = 0

    def _run(self, *args: str) -> None:
        subprocess.run(
            [*self._as, *args], check=True, capture_output=True, text=True, cwd=self.folder
        )

    def start(self) -> None:
        """Make the cluster and start it on 127.0.0.1 only; returns once it takes connections."""
        self._run(
            str(self.binaries / "initdb"),
            "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
            "--no-locale", "--no-sync",
        )  # fmt: skip
        options = (
            f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.folder}"
            " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
            " -c max_connections=200"
        )
        self._run(
            str(self.binaries / "pg_ctl"), "-D", str(self.data), "-l",
            str(self.folder / "server.log"), "-o", options, "-w", "-t", "60", "start",
        )  # fmt: skip

    def dsn(self, database: str = "postgres") -> str:
        """The connection address of one database of this server."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self) -> str:
        """A new empty database; its connection address."""
        self._made += 1
        name = f"gmtags_{self._made}"
        with psycopg.connect(self.dsn(), autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.dsn(name)

    def stop(self) -> None:
        """Stop the server at once and remove its folder."""
        if (self.data / "postmaster.pid").exists():
            self._run(
                str(self.binaries / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"
            )
        shutil.rmtree(self.folder, ignore_errors=True)


@contextmanager
def throwaway_server(binaries: Path) -> Iterator[PostgresServer]:
    """A cluster of `binaries`, started, and stopped and removed afterwards."""
    server = PostgresServer(binaries)
    try:
        server.start()
        yield server
    finally:
        server.stop()
