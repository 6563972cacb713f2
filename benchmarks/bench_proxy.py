"""What `gmtags serve` costs a player (issue 16, goal 4): each part in its own process.

About 40 s a shape on a quiet machine (4 minutes for all six):

    python benchmarks/bench_proxy.py                  # every shape, 20 chats, 2 rounds of 3 s
    python benchmarks/bench_proxy.py --shape chat     # the OpenAI chat shape alone
    python benchmarks/bench_proxy.py --workers 2      # gmtags serve --workers 2
    python benchmarks/bench_proxy.py --chats 50 --seconds 10 --rounds 3
    python benchmarks/bench_proxy.py --shape chat --rounds 3 \
        --baseline /tmp/old --baseline-python /tmp/old-venv/bin/python

`--baseline DIR` adds a fourth leg: `gmtags serve` from another source tree (a
`git worktree` of an older commit), measured in the same run, with its ratio to
this tree's; `--baseline-python` runs it in a virtual environment of its own, so
that it has the dependencies it had (`pip install -e DIR` there).

Three processes besides this one, all on 127.0.0.1: the scripted upstream
(`gmtags.server.demo_upstream`, served by uvicorn), `gmtags serve` (the real
command line: the demo ruleset and state, history in a temporary SQLite file,
`--workers N`), and a bare pass-through proxy written with the same stack
(Starlette and an httpx stream relaying the upstream's bytes as they come: no
parsing, no instructions, no history). This process is the load generator:
`--chats` chats stream one reply after another for `--seconds`, the legs
(direct to the upstream, through the bare proxy, through gmtags) taking turns
for `--rounds` rounds; gmtags' chats go on from round to round. Each API
shape (`--shape`, SPEC §7.2; all by default, chat first) has its own legs
over the same three servers, its chats speaking it (`load_proxy.SPEAKS`).

Reported, per shape: the time to the first event with narration (p50/p99) on
each leg, and what each proxy adds to the direct figure; each proxy's CPU
time (user + system of its processes, read from /proc before and after its
legs) per 100 replies and per streamed event, and the ratio gmtags / bare
(issue 29: the chat shape at most `GOAL_CPU_PER_100` CPU seconds per 100
replies); errors (there must be none); and whether every chat's history is
intact afterwards (chat: `load_proxy.check_history`, one node per reply, each
under the one before, each the replay of the upstream's reply, nothing lost or
duplicated; the other shapes: one node per reply).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load_proxy import (
    SPEAKS,
    Chat,
    Speaks,
    check_history,
    new_chats,
    one_reply,
    outcome,
    percentile,
)

from gmtags.demo import demo_file
from gmtags.history.store import HistoryStore
from gmtags.server.demo import demo_config
from gmtags.server.demo_upstream import ScriptedUpstream

HOST = "127.0.0.1"
"""Loopback only: nothing here listens on or connects to any other address."""
CHATS = 20
SECONDS = 3.0
ROUNDS = 2
"""Legs taking turns, so that on a shared machine each sees the same bursts of other work; a
leg also waits for the replies under way when its time is up (about a second more)."""
PACE = 0.02
"""Seconds between the scripted upstream's deltas: a model streaming some 100 tokens a second
(each delta is 7 characters, about 2 tokens). With none, every part runs flat out and the
first-byte figures measure the queue of a saturated machine, not what the proxy adds."""
THINK = 0.5
"""The longest a player waits before sending the next turn (uniform from 0, seeded per chat):
chats that all started together and took the same time would otherwise stay in step, twenty
requests arriving in one burst every turn."""
CLIENT_TIMEOUT = 30.0
TICKS = os.sysconf("SC_CLK_TCK")

GOAL_P99_MS = 5.0
"""Issue 16, goal 4: the first narration byte at most this much later through gmtags (p99)."""
GOAL_CPU_RATIO = 2.0
"""Issue 16, goal 4: gmtags' CPU per streamed chunk at most this many times the bare proxy's."""
GOAL_CPU_PER_100 = 1.2
"""Issue 29: gmtags' CPU seconds per 100 chat replies (62-chunk replies with tags), half of
the 2.40 s measured before."""


def free_port() -> int:
    """A port nothing listens on now (the child binds it a moment later)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def cpu_seconds(root: int) -> float:
    """User + system CPU seconds of process `root` and every process under it (uvicorn's
    workers), from /proc."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        parents[int(entry)] = int(fields[1])
        times[int(entry)] = (int(fields[11]) + int(fields[12])) / TICKS
    total = 0.0
    for pid, seconds in times.items():
        at = pid
        while at not in (0, 1) and at != root:
            at = parents.get(at, 0)
        if at == root:
            total += seconds
    return total


@dataclass
class Server:
    """A child process serving HTTP on `port`."""

    name: str
    process: subprocess.Popen[bytes]
    port: int

    @property
    def url(self) -> str:
        """The server's root (the OpenAI routes are under its `/v1`)."""
        return f"http://{HOST}:{self.port}"

    def cpu(self) -> float:
        return cpu_seconds(self.process.pid)


@contextmanager
def serving(
    name: str, command: list[str], port: int, ready: str, tree: str | None = None
) -> Iterator[Server]:
    """Start `command` (listening on `port`, with gmtags imported from `tree` when given),
    wait until GET `ready` answers, stop it after."""
    env = None if tree is None else {**os.environ, "PYTHONPATH": tree}
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        env=env,
        cwd=tempfile.gettempdir(),  # not the repository: `-c` puts the working folder first
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"{name} exited with {process.returncode}")
            try:
                if httpx.get(f"http://{HOST}:{port}{ready}", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"{name} did not start")
            time.sleep(0.05)
        yield Server(name, process, port)
    finally:
        process.send_signal(signal.SIGINT)  # as Ctrl-C: uvicorn stops, a profile is written
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# The child processes ---------------------------------------------------------


def serve_upstream(port: int, pace: float) -> None:
    """The scripted upstream, `pace` seconds between its deltas, keeping none of the requests
    it sees."""
    import uvicorn
    from load_proxy import _Discard

    upstream = ScriptedUpstream(requests=_Discard(), authorizations=_Discard(), pace=pace)
    uvicorn.run(upstream.app, host=HOST, port=port, log_level="warning")


def bare_app(upstream: str) -> object:
    """A pass-through proxy on the same stack as gmtags: the request's body forwarded to the
    same route of `upstream` (its root), the upstream's bytes relayed as they arrive."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import PlainTextResponse, Response, StreamingResponse
    from starlette.routing import Route

    client = httpx.AsyncClient(timeout=CLIENT_TIMEOUT)

    async def completions(request: Request) -> Response:
        body = await request.body()
        headers = {"Content-Type": "application/json"}
        if auth := request.headers.get("authorization"):
            headers["Authorization"] = auth
        sent = client.build_request(
            "POST", upstream + request.url.path, content=body, headers=headers
        )
        response = await client.send(sent, stream=True)

        async def relay() -> AsyncIterator[bytes]:
            try:
                async for chunk in response.aiter_raw():
                    yield chunk
            finally:
                await response.aclose()

        media = response.headers.get("content-type", "text/event-stream")
        return StreamingResponse(relay(), response.status_code, media_type=media)

    async def healthz(request: Request) -> Response:
        return PlainTextResponse("ok")

    return Starlette(
        routes=[
            *(Route(speaks.route, completions, methods=["POST"]) for speaks in SPEAKS.values()),
            Route("/healthz", healthz, methods=["GET"]),
        ]
    )


def serve_bare(port: int, upstream: str) -> None:
    import uvicorn

    uvicorn.run(bare_app(upstream), host=HOST, port=port, log_level="warning")


# The load generator ------------------------------------------------------------


@dataclass
class Leg:
    """One way to the upstream: its chats, and what they got over all rounds."""

    name: str
    server: Server | None
    chats: list[Chat]
    speaks: Speaks
    seconds: float = 0.0
    cpu: float = 0.0
    chunks: int = 0

    @property
    def url(self) -> str:
        assert self.server is not None or self.name == "direct"
        return self.server.url if self.server is not None else ""

    @property
    def per_100(self) -> float:
        """CPU seconds per 100 replies."""
        return self.cpu / self.replies * 100 if self.replies else 0.0

    @property
    def first_bytes(self) -> list[float]:
        return sorted(value for chat in self.chats for value in chat.first_bytes)

    @property
    def replies(self) -> int:
        return sum(len(chat.replies) for chat in self.chats)

    @property
    def errors(self) -> list[str]:
        return [error for chat in self.chats for error in chat.errors]


async def run_leg(
    url: str, chats: list[Chat], seconds: float, speaks: Speaks | None = None
) -> tuple[float, int]:
    """`chats` streaming replies from the server at `url` (its root) one after another for
    `seconds`, speaking `speaks` (chat unless told): how long it took and how many events the
    client read."""
    limits = httpx.Limits(max_connections=len(chats), max_keepalive_connections=len(chats))
    async with httpx.AsyncClient(timeout=CLIENT_TIMEOUT, limits=limits) as client:
        started = time.perf_counter()
        deadline = started + seconds
        counts = [0] * len(chats)

        async def loop(index: int, chat: Chat) -> None:
            think = random.Random(index)
            while time.perf_counter() < deadline and not chat.errors:
                await asyncio.sleep(think.uniform(0, THINK))
                counts[index] += await one_reply(client, url, chat, speaks)

        await asyncio.gather(*(loop(index, chat) for index, chat in enumerate(chats)))
        return time.perf_counter() - started, sum(counts)


def measure(legs: Sequence[Leg], direct_url: str, seconds: float, rounds: int) -> None:
    """Each leg in turn for `seconds`, `rounds` times, its proxy's CPU read around it."""
    for _ in range(rounds):
        for leg in legs:
            before = leg.server.cpu() if leg.server is not None else 0.0
            took, chunks = asyncio.run(
                run_leg(leg.url or direct_url, leg.chats, seconds, leg.speaks)
            )
            after = leg.server.cpu() if leg.server is not None else 0.0
            leg.seconds += took
            leg.cpu += after - before
            leg.chunks += chunks


def intact(db: str, legs: Sequence[Leg]) -> list[str]:
    """What is wrong with the stored histories of gmtags' chats, every shape's (empty: all
    intact)."""
    config = demo_config("http://unused/v1")
    upstream = ScriptedUpstream()
    problems: list[str] = []
    with HistoryStore(db) as store:
        known = {chat.chat_id for leg in legs for chat in leg.chats}
        extra = set(store.chats()) - known
        problems.extend(f"{chat_id}: unexpected chat in the store" for chat_id in sorted(extra))
        for leg in legs:
            for chat in leg.chats:
                if leg.speaks.name == "chat":
                    problems.extend(check_history(store, chat, config.ruleset, upstream))
                else:
                    problems.extend(counted(store, chat))
    return problems


def counted(store: HistoryStore, chat: Chat) -> list[str]:
    """What is wrong with another shape's chat: one node per reply (empty: all well). Where
    each hangs is not asked: the scripted upstream's three replies come round again, and a text
    prompt holding one twice is placed by its stored replies, which it names twice."""
    if not chat.replies:
        return []
    if not store.has_chat(chat.chat_id):
        return [f"{chat.chat_id}: not in the store"]
    nodes = store.nodes(chat.chat_id)
    if len(nodes) != len(chat.replies):
        return [f"{chat.chat_id}: {len(nodes)} nodes for {len(chat.replies)} replies"]
    return []


def main(argv: Sequence[str] | None = None) -> int:
    """Run the legs and print the figures; 0 when nothing failed and every history holds."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chats", type=int, default=CHATS, help=f"concurrent chats ({CHATS})")
    parser.add_argument(
        "--seconds", type=float, default=SECONDS, help=f"seconds per leg ({SECONDS})"
    )
    parser.add_argument("--rounds", type=int, default=ROUNDS, help=f"rounds of the legs ({ROUNDS})")
    parser.add_argument(
        "--pace",
        type=float,
        default=PACE,
        help=f"seconds between the upstream's deltas ({PACE}; 0: as fast as it can)",
    )
    parser.add_argument(
        "--shape",
        action="append",
        choices=list(SPEAKS),
        help="an API shape to measure (again for several; default: all, chat first)",
    )
    parser.add_argument("--workers", type=int, default=1, help="gmtags serve --workers (1)")
    parser.add_argument("--profile", metavar="FILE", help="run gmtags serve under cProfile")
    parser.add_argument(
        "--gmtags-tree",
        metavar="DIR",
        help="run gmtags serve from this source tree (a baseline worktree); the rest from here",
    )
    parser.add_argument(
        "--baseline",
        metavar="DIR",
        help="add a leg: gmtags serve from this source tree (a worktree of an older commit),"
        " measured in the same run as this one",
    )
    parser.add_argument(
        "--baseline-python",
        metavar="PYTHON",
        help="the interpreter of the baseline leg (a virtual environment with that tree's own"
        " dependencies); this one by default",
    )
    parser.add_argument("--serve-upstream", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument(
        "--serve-bare", nargs=2, metavar=("PORT", "UPSTREAM"), help=argparse.SUPPRESS
    )
    args = parser.parse_args(argv)
    if args.serve_upstream is not None:
        serve_upstream(args.serve_upstream, args.pace)
        return 0
    if args.serve_bare is not None:
        serve_bare(int(args.serve_bare[0]), args.serve_bare[1])
        return 0

    me = [sys.executable, str(Path(__file__).resolve())]
    with tempfile.TemporaryDirectory(prefix="gmtags-bench-proxy-") as folder, ExitStack() as stack:
        db = str(Path(folder) / "history.sqlite3")
        port = free_port()
        up = stack.enter_context(
            serving(
                "upstream",
                [*me, "--serve-upstream", str(port), "--pace", str(args.pace)],
                port,
                "/v1/models",
            )
        )
        upstream_root = up.url
        port = free_port()
        bare = stack.enter_context(
            serving("bare proxy", [*me, "--serve-bare", str(port), upstream_root], port, "/healthz")
        )
        plain = ["-c", "from gmtags.cli import run; run()"]

        def gmtags_serve(python: str, runner: list[str], port: int, db: str) -> list[str]:
            command = [
                *[python, *runner],
                *["serve", "--ruleset", str(demo_file("ruleset.json"))],
                *["--state", str(demo_file("state.json")), "--upstream", f"{upstream_root}/v1"],
                *["--host", HOST, "--port", str(port), "--db", db],
            ]
            return command if args.workers == 1 else [*command, "--workers", str(args.workers)]

        runner = plain
        if args.profile:
            script = shutil.which("gmtags") or str(Path(sys.executable).parent / "gmtags")
            runner = ["-m", "cProfile", "-o", args.profile, script]
        port = free_port()
        command = gmtags_serve(sys.executable, runner, port, db)
        proxy = stack.enter_context(
            serving("gmtags serve", command, port, "/healthz", args.gmtags_tree)
        )
        before: Server | None = None
        baseline_db = str(Path(folder) / "baseline.sqlite3")
        if args.baseline:
            port = free_port()
            python = args.baseline_python or sys.executable
            command = gmtags_serve(python, plain, port, baseline_db)
            before = stack.enter_context(
                serving("gmtags serve (baseline)", command, port, "/healthz", args.baseline)
            )
        shapes = [SPEAKS[name] for name in dict.fromkeys(args.shape or SPEAKS)]
        runs: list[list[Leg]] = []
        for speaks in shapes:
            legs = [
                Leg("direct", None, new_chats(f"direct-{speaks.name}", args.chats), speaks),
                Leg("bare", bare, new_chats(f"bare-{speaks.name}", args.chats), speaks),
                Leg("gmtags", proxy, new_chats(f"load-{speaks.name}", args.chats), speaks),
            ]
            if before is not None:
                chats = new_chats(f"before-{speaks.name}", args.chats)
                legs.append(Leg("before", before, chats, speaks))
            measure(legs, upstream_root, args.seconds, args.rounds)
            runs.append(legs)
        stack.close()  # every process stopped before the store is read
        problems = intact(db, [legs[2] for legs in runs])
        if before is not None:
            problems += intact(baseline_db, [legs[3] for legs in runs])
    print(
        f"bench_proxy: {args.chats} streaming chats, {args.rounds} rounds of {args.seconds:g} s"
        f" per leg, upstream pace {args.pace * 1000:g} ms, gmtags serve --workers {args.workers},"
        " each server its own process"
    )
    for legs in runs:
        report(legs)
    print(
        "CPU s per 100 replies, gmtags / bare:  "
        + "   ".join(
            f"{legs[0].speaks.name} {legs[2].per_100:.2f} / {legs[1].per_100:.2f}" for legs in runs
        )
    )
    errors = [error for legs in runs for leg in legs for error in leg.errors]
    replies = sum(legs[2].replies for legs in runs)
    chats = sum(len(legs[2].chats) for legs in runs)
    return outcome(errors, "", problems, f"({replies} replies in {chats} chats)")


def report(legs: Sequence[Leg]) -> None:
    """One shape's figures."""
    direct, bare, ours = legs[:3]

    def ms(leg: Leg, fraction: float) -> float:
        return percentile(leg.first_bytes, fraction) * 1000

    print(f"{ours.speaks.name} ({ours.speaks.route}):")
    for leg in legs:
        added = ""
        if leg is not direct:
            p99 = ms(leg, 0.99) - ms(direct, 0.99)
            added = f"   added p50 {ms(leg, 0.5) - ms(direct, 0.5):+6.2f} p99 {p99:+6.2f}"
            if leg is ours:
                verdict = "met" if p99 <= GOAL_P99_MS else "not met"
                added += f" (goal: p99 ≤ +{GOAL_P99_MS:g} ms: {verdict})"
        print(
            f"  first narration byte, {leg.name:6} (ms): p50 {ms(leg, 0.5):6.2f}"
            f" p99 {ms(leg, 0.99):6.2f}{added}   ({leg.replies / leg.seconds:6.1f} replies/s)"
        )
    per_chunk = {leg.name: leg.cpu / leg.chunks * 1e6 if leg.chunks else 0.0 for leg in legs[1:]}
    ratio = per_chunk["gmtags"] / per_chunk["bare"] if per_chunk["bare"] else 0.0
    print(
        f"  proxy CPU per streamed event (µs): gmtags {per_chunk['gmtags']:6.1f}"
        f"   bare {per_chunk['bare']:6.1f}   ratio {ratio:5.2f}x"
        f" (goal: at most {GOAL_CPU_RATIO:g}x: {'met' if ratio <= GOAL_CPU_RATIO else 'not met'})"
    )
    goal = ""
    if ours.speaks.name == "chat":
        met = "met" if ours.per_100 <= GOAL_CPU_PER_100 else "not met"
        goal = f" (goal: gmtags at most {GOAL_CPU_PER_100:g} s: {met})"
    print(
        f"  proxy CPU per 100 replies (s): gmtags {ours.per_100:5.2f}"
        f"   bare {bare.per_100:5.2f}{goal}"
    )
    for leg in legs[3:]:
        ratio = ours.per_100 / leg.per_100 if leg.per_100 else 0.0
        print(
            f"  baseline tree, CPU per 100 replies (s): {leg.per_100:5.2f}"
            f"   per streamed event (µs): {per_chunk[leg.name]:6.1f}"
            f"   gmtags / baseline: {ratio:5.2f}x"
        )


if __name__ == "__main__":
    raise SystemExit(main())
