"""A real `gmtags serve` process for tests that talk to it as a browser or a client would.

`serve_gmtags` starts the scripted upstream (`ScriptedUpstream`) in a thread of
the test process, so a test can count the completions that reached it, and
`gmtags serve` with the bundled demo ruleset and state in a subprocess on a
free loopback port, its output in a log file; `observe` reads, through the
pages' JSON API, everything the server has stored, to compare before and
after a request that must change nothing.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

from gmtags.demo import demo_file
from gmtags.server.background import BackgroundServer
from gmtags.server.demo_upstream import ScriptedUpstream

GMTAGS = Path(sys.executable).parent / "gmtags"
"""The `gmtags` command of the environment the tests run in."""
CARD = {"abilities": {"nerve": 2, "hands": 2}, "skills": {"ward": "trained"}}
"""A character card the demo ruleset accepts: a save of it stores a character."""


def free_port() -> int:
    """A loopback port no one listens on (as far as anyone can know beforehand)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass(frozen=True, slots=True)
class Served:
    """One running `gmtags serve` and the scripted upstream behind it."""

    url: str
    port: int
    log: Path
    upstream: ScriptedUpstream = field(repr=False)
    token: str | None = None
    """Its `--token`, when it was started with one."""

    @property
    def completions(self) -> int:
        """How many completion requests reached the upstream so far."""
        return len(self.upstream.requests)

    def log_text(self, start: int = 0) -> str:
        """The server's output so far, from byte `start`."""
        with self.log.open("rb") as log:
            log.seek(start)
            return log.read().decode("utf-8", "replace")

    def client(self) -> httpx.Client:
        """A client of this server as its own player: its address, its token."""
        headers = {} if self.token is None else {"X-Gmtags-Token": self.token}
        return httpx.Client(base_url=self.url, headers=headers, timeout=20.0)

    def log_size(self) -> int:
        return self.log.stat().st_size


@contextmanager
def serve_gmtags(folder: Path, *flags: str) -> Iterator[Served]:
    """`gmtags serve` on the demo ruleset and state with `flags`, its history in `folder`,
    against a scripted upstream in this process; stopped (and the upstream too) on exit."""
    with serve_many(folder, flags) as (served,):
        yield served


@contextmanager
def serve_many(folder: Path, *flag_sets: tuple[str, ...]) -> Iterator[list[Served]]:
    """One `serve_gmtags` for each of `flag_sets`, started at once (each takes seconds to
    start, most of it its own CPU)."""
    upstreams = [ScriptedUpstream() for _ in flag_sets]
    ups = [BackgroundServer(upstream.app).start() for upstream in upstreams]
    processes: list[subprocess.Popen[bytes]] = []
    try:
        started = []
        for upstream, up, flags in zip(upstreams, ups, flag_sets, strict=True):
            port = free_port()
            log = folder / f"gmtags-serve-{port}.log"
            with log.open("wb") as out:
                processes.append(
                    subprocess.Popen(
                        _command(f"{up.url}/v1", folder / f"history-{port}.sqlite3", port, flags),
                        stdout=out,
                        stderr=subprocess.STDOUT,
                        cwd=folder,
                    )
                )
            token = flags[flags.index("--token") + 1] if "--token" in flags else None
            started.append(Served(f"http://127.0.0.1:{port}", port, log, upstream, token))
        for served, process in zip(started, processes, strict=True):
            _wait_healthy(process, served.url, served.log, timeout=60.0)
        yield started
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for up in ups:
            up.stop()


def _command(upstream: str, db: Path, port: int, flags: tuple[str, ...]) -> list[str]:
    return [
        str(GMTAGS),
        "serve",
        "--ruleset",
        str(demo_file("ruleset.json")),
        "--state",
        str(demo_file("state.json")),
        "--upstream",
        upstream,
        "--db",
        str(db),
        "--port",
        str(port),
        *flags,
    ]


def _wait_healthy(process: subprocess.Popen[bytes], url: str, log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"gmtags serve exited:\n{log.read_text(errors='replace')}")
        try:
            if httpx.get(f"{url}/healthz", timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise RuntimeError(f"gmtags serve did not answer on {url}:\n{log.read_text(errors='replace')}")


def chat_path(chat: str) -> str:
    """A chat id as one path segment of the pages' URLs."""
    return quote(chat, safe="")


def observe(client: httpx.Client) -> dict[str, Any]:
    """Everything the server `client` talks to has stored that its API shows: the chats, and
    each chat's current state and nodes."""
    chats = client.get("/gmtags/api/chats")
    assert chats.status_code == 200, chats.text
    seen: dict[str, Any] = {"chats": chats.json()}
    for row in seen["chats"]:
        detail = client.get(f"/gmtags/api/chats/{chat_path(row['chat'])}")
        assert detail.status_code == 200, (row, detail.text)
        seen[f"chat {row['chat']}"] = detail.json()
    return seen


def complete(url: str, chat: str, text: str = "We open the gate.") -> httpx.Response:
    """One well-formed completion as a chat client sends it, naming `chat`."""
    body = {"model": "gmtags-demo", "messages": [{"role": "user", "content": text}]}
    response = httpx.post(
        f"{url}/v1/chat/completions", json=body, headers={"X-Gmtags-Chat": chat}, timeout=20.0
    )
    assert response.status_code == 200, response.text
    return response
