"""One or two `gmtags serve` processes on SQLite and on PostgreSQL (issue 17), in one run.

Part of `make bench` (about a minute); alone:

    python benchmarks/bench_cluster.py                    # a throwaway PostgreSQL of its own
    python benchmarks/bench_cluster.py --chats 40 --seconds 5
    python benchmarks/bench_cluster.py --postgres postgresql://user@host/db   # an existing one

Every part is a process of its own on 127.0.0.1: the scripted upstream
(`bench_proxy.serve_upstream`, its deltas `--pace` apart, like a model), and
the proxies under test, each the real `gmtags serve` with the demo ruleset:

- `sqlite ×1`: one process on a temporary SQLite file;
- `sqlite ×2`: two processes on one SQLite file;
- `postgresql ×1`: one process on a new PostgreSQL database;
- `postgresql ×2`: two processes on one PostgreSQL database.

With two processes, the load generator (this process) is the load balancer:
round robin, one request to one process and the next to the other, so every
chat's turns alternate between the two (no sticky sessions: the hardest case
for the store). PostgreSQL is a throwaway cluster of Debian's binaries
(`tests/postgres.py`, as the tests use) unless `--postgres` names a database
to make fresh databases on; with neither the PostgreSQL legs are left out, and
the run says so.

Two phases, each leg in turn, `--rounds` times:
- **players**: `--chats` chats, each waiting up to `bench_proxy.THINK` seconds
  before its next turn: the first narration byte (p50/p99) and what each
  proxy leg adds to the direct figure;
- **flat out**: three times as many chats with no wait, and the upstream
  sending its deltas as fast as it can: completed requests per second with
  every process busy (on a 2-core machine the load generator, the upstream
  and the proxies share the cores), and the p99 there.

Afterwards every leg's store is read back (`load_proxy.check_history`): one
node per reply, each under the one before, each the replay of the upstream's
reply with its seed; nothing lost or duplicated.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))  # tests/postgres.py
from bench_proxy import CLIENT_TIMEOUT, HOST, PACE, THINK, Server, free_port, intact, serving
from load_proxy import Chat, new_chats, one_reply, outcome, percentile

from gmtags.demo import demo_file
from gmtags.server.demo_upstream import ScriptedUpstream

HERE = Path(__file__).resolve().parent

CHATS = 20
SECONDS = 3.0
ROUNDS = 2
FLAT_OUT = 3
"""Chats of the flat-out phase, as a multiple of `--chats`."""


@dataclass
class Leg:
    """One way to the upstream (no servers: direct), its chats in both phases, what they got."""

    name: str
    servers: list[Server]
    store: str | None
    players: list[Chat]
    flat: list[Chat]
    seconds: dict[str, float] = field(default_factory=lambda: {"players": 0.0, "flat": 0.0})

    def urls(self, direct: str) -> list[str]:
        return [server.url for server in self.servers] or [direct]

    def chats(self, phase: str) -> list[Chat]:
        return self.players if phase == "players" else self.flat

    def first_bytes(self, phase: str) -> list[float]:
        return sorted(value for chat in self.chats(phase) for value in chat.first_bytes)

    def rate(self, phase: str) -> float:
        replies = sum(len(chat.replies) for chat in self.chats(phase))
        return replies / self.seconds[phase] if self.seconds[phase] else 0.0

    @property
    def errors(self) -> list[str]:
        return [error for chat in self.players + self.flat for error in chat.errors]


async def run_leg(urls: Sequence[str], chats: list[Chat], seconds: float, think: float) -> float:
    """`chats` streaming one reply after another for `seconds`, each chat's requests to each
    of `urls` in turn (round robin); how long it took."""
    limits = httpx.Limits(max_connections=2 * len(chats), max_keepalive_connections=2 * len(chats))
    async with httpx.AsyncClient(timeout=CLIENT_TIMEOUT, limits=limits) as client:
        started = time.perf_counter()
        deadline = started + seconds

        async def loop(index: int, chat: Chat) -> None:
            waits = random.Random(index)
            while time.perf_counter() < deadline and not chat.errors:
                if think:
                    await asyncio.sleep(waits.uniform(0, think))
                url = urls[(index + len(chat.replies)) % len(urls)]
                await one_reply(client, f"{url}/chat/completions", chat)

        await asyncio.gather(*(loop(index, chat) for index, chat in enumerate(chats)))
        return time.perf_counter() - started


def serve_upstream(port: int, pace: float) -> None:
    """The scripted upstream (keeping none of the requests it sees), `pace` seconds between its
    deltas until `POST /bench/pace?seconds=S` sets another gap (the flat-out phase's)."""
    import uvicorn
    from load_proxy import _Discard
    from starlette.requests import Request
    from starlette.responses import PlainTextResponse, Response

    upstream = ScriptedUpstream(requests=_Discard(), authorizations=_Discard(), pace=pace)
    app = upstream.app

    async def set_pace(request: Request) -> Response:
        upstream.pace = float(request.query_params["seconds"])
        return PlainTextResponse("ok")

    app.add_route("/bench/pace", set_pace, methods=["POST"])
    uvicorn.run(app, host=HOST, port=port, log_level="warning")


@contextmanager
def postgres_databases(named: str | None) -> Iterator[object | None]:
    """Something with `create_database()`: the `--postgres` server, a throwaway one of
    Debian's binaries, or None when there is neither."""
    from tests.postgres import bindir, throwaway_server

    binaries = bindir()
    if named is not None:
        yield _Existing(named)
    elif binaries is None:
        yield None
    else:
        with throwaway_server(binaries) as server:
            yield server


class _Existing:
    """Fresh databases made on an existing PostgreSQL server (`--postgres ADDRESS`)."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.made = 0

    def create_database(self) -> str:
        import psycopg
        from psycopg.conninfo import conninfo_to_dict, make_conninfo

        self.made += 1
        name = f"gmtags_bench_{int(time.time())}_{self.made}"
        with psycopg.connect(self.address, autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return make_conninfo(**{**conninfo_to_dict(self.address), "dbname": name})


def gmtags_serve(stack: ExitStack, name: str, upstream: str, db: str) -> Server:
    """One `gmtags serve` process on `db`, stopped with the stack."""
    port = free_port()
    command = [
        *(sys.executable, "-c", "from gmtags.cli import run; run()", "serve"),
        *("--ruleset", str(demo_file("ruleset.json")), "--state", str(demo_file("state.json"))),
        *("--upstream", upstream, "--host", HOST, "--port", str(port), "--db", db),
    ]
    return stack.enter_context(serving(name, command, port, "/healthz"))


def main(argv: Sequence[str] | None = None) -> int:
    """Run both phases on every leg and print the figures; 0 when nothing failed and every
    history holds."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chats", type=int, default=CHATS, help=f"players' chats ({CHATS})")
    parser.add_argument("--seconds", type=float, default=SECONDS, help=f"per leg ({SECONDS})")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help=f"rounds of legs ({ROUNDS})")
    parser.add_argument("--pace", type=float, default=PACE, help=f"upstream delta gap ({PACE})")
    parser.add_argument("--postgres", metavar="ADDRESS", help="make databases on this server")
    parser.add_argument("--serve-upstream", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve_upstream is not None:
        serve_upstream(args.serve_upstream, args.pace)
        return 0

    with (
        tempfile.TemporaryDirectory(prefix="gmtags-bench-cluster-") as folder,
        postgres_databases(args.postgres) as databases,
        ExitStack() as stack,
    ):
        port = free_port()
        command = [sys.executable, str(HERE / "bench_cluster.py"), "--serve-upstream", str(port)]
        up = stack.enter_context(
            serving("upstream", [*command, "--pace", str(args.pace)], port, "/v1/models")
        )

        def leg(name: str, servers: list[Server], store: str | None) -> Leg:
            prefix = name.replace(" ×", "-")
            players = new_chats(prefix, args.chats)
            return Leg(name, servers, store, players, new_chats(f"{prefix}-flat", flat))

        flat = args.chats * FLAT_OUT
        legs = [leg("direct", [], None)]
        stores = [("sqlite", str(Path(folder) / "history.sqlite3"))]
        if databases is not None:
            stores.append(("postgresql", databases.create_database()))  # type: ignore[attr-defined]
        for kind, db in stores:  # the ×2 leg's chats are its own, in the ×1 leg's store
            legs.append(leg(f"{kind} ×1", [gmtags_serve(stack, f"{kind} 1", up.url, db)], db))
        for kind, db in stores:
            two = [gmtags_serve(stack, f"{kind} 2.{n}", up.url, db) for n in (1, 2)]
            legs.append(leg(f"{kind} ×2", two, db))
        for phase, think, pace in (("players", THINK, args.pace), ("flat", 0.0, 0.0)):
            control = f"http://{HOST}:{up.port}/bench/pace"
            httpx.post(control, params={"seconds": pace}, timeout=5).raise_for_status()
            for _ in range(args.rounds):
                for leg in legs:
                    chats = leg.chats(phase)
                    took = asyncio.run(run_leg(leg.urls(up.url), chats, args.seconds, think))
                    leg.seconds[phase] += took
        stack.close()  # every process stopped before the stores are read
        problems: list[str] = []
        for kind, db in stores:
            chats = [chat for leg in legs if leg.store == db for chat in leg.players + leg.flat]
            problems += [f"{kind}: {problem}" for problem in intact(db, chats)]
    return report(legs, args, databases is not None, problems)


def report(
    legs: Sequence[Leg], args: argparse.Namespace, postgres: bool, problems: list[str]
) -> int:
    direct = legs[0]

    def ms(leg: Leg, phase: str, fraction: float) -> float:
        return percentile(leg.first_bytes(phase), fraction) * 1000

    print(
        f"bench_cluster: {args.chats} players' chats (then {args.chats * FLAT_OUT} flat out),"
        f" {args.rounds} rounds of {args.seconds:g} s per leg, upstream pace"
        f" {args.pace * 1000:g} ms; two processes share one store, requests round robin"
    )
    if not postgres:
        print("PostgreSQL legs left out: no server binaries (make postgresql) and no --postgres")
    for leg in legs:
        added = ""
        if leg is not direct:
            p50 = ms(leg, "players", 0.5) - ms(direct, "players", 0.5)
            p99 = ms(leg, "players", 0.99) - ms(direct, "players", 0.99)
            added = f"   added p50 {p50:+6.2f} p99 {p99:+6.2f}"
        print(
            f"cluster {leg.name:14} players: first byte p50 {ms(leg, 'players', 0.5):6.2f}"
            f" p99 {ms(leg, 'players', 0.99):6.2f} ms{added}"
            f"   flat out: {leg.rate('flat'):6.1f} requests/s, p99 {ms(leg, 'flat', 0.99):7.2f} ms"
        )
    errors = [error for leg in legs for error in leg.errors]
    replies = sum(len(chat.replies) for leg in legs[1:] for chat in leg.players + leg.flat)
    return outcome(errors, "", problems, f"({replies} replies through gmtags)")


if __name__ == "__main__":
    raise SystemExit(main())
