"""`gmtags serve` (SPEC §7): the OpenAI-compatible proxy between a chat UI and a model server.

`--db` is the history: an SQLite file (the default), or a PostgreSQL database
(`postgresql://…`, SPEC §12) that any number of `gmtags serve` processes on any
machines share. It is opened (and migrated) once here before serving, so a
store that cannot be opened stops the command with its reason.

`--workers N` serves with N uvicorn worker processes on one listening socket
(SPEC §12: every process its own connection to the history, each write a
transaction; a page open on one worker follows replies made in another through
`gmtags.server.watch`). The socket is bound here, with its protocol named, so
every worker's connections send each small SSE chunk at once (see
`gmtags.server.background`); each worker is a fresh interpreter (uvicorn spawns
them) and builds the same app from the options this process was given, passed
down in `GMTAGS_SERVE_OPTIONS` (the token, when there is one, in `GMTAGS_TOKEN`).
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
from typing import Any

import click
import uvicorn
from starlette.applications import Starlette
from uvicorn.supervisors import Multiprocess

from gmtags.cli_common import (
    layers_option,
    read_ruleset,
    read_snapshot,
    rulesets_option,
    with_layers,
)
from gmtags.history.records import HistoryError
from gmtags.history.store import HistoryStore
from gmtags.server.app import create_app, settle
from gmtags.server.auth import needs_token
from gmtags.server.config import DISPLAYS, ServerConfig
from gmtags.server.guard import origin_problem

DEFAULT_DB = "gmtags-history.sqlite3"
OPTIONS_ENV = "GMTAGS_SERVE_OPTIONS"
"""Where a worker process finds the options `gmtags serve` was started with."""
TOKEN_ENV = "GMTAGS_TOKEN"
MAX_WORKERS = 64


def token_for(host: str, token: str | None) -> None:
    """`--token`: never blank, and given whenever `host` lets other machines in (SPEC §11)."""
    if token is not None and not token.strip():
        raise click.BadParameter("must not be blank", param_hint="--token")
    if token is None and needs_token(host):
        raise click.UsageError(
            f"--host {host} lets other machines in: start it with --token T (or GMTAGS_TOKEN)"
        )


def check_origins(origins: tuple[str, ...]) -> None:
    """`--allow-origin`: each one an origin (`scheme://host[:port]`), never `*`."""
    for origin in origins:
        problem = origin_problem(origin)
        if problem is not None:
            raise click.BadParameter(f"{origin!r} {problem}", param_hint="--allow-origin")


@click.command("serve")
@click.option("--ruleset", "ruleset_path", required=True, help="The ruleset JSON file.")
@click.option("--upstream", required=True, help="The model server's base URL including /v1.")
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8787, show_default=True)
@click.option(
    "--db",
    default=DEFAULT_DB,
    show_default=True,
    help="The SQLite file, or postgresql:// database, that keeps each chat's snapshot history.",
)
@click.option("--state", "state_path", help="The snapshot a new chat starts from (default: empty).")
@click.option(
    "--display",
    type=click.Choice(DISPLAYS),
    default="receipts",
    show_default=True,
    is_flag=False,
    flag_value="hidden",
    help="What the client receives where a command stood: its receipt, a one-line card, or"
    " nothing; a bare --display means hidden.",
)
@click.option(
    "--token",
    envvar=TOKEN_ENV,
    help="Required by every /gmtags/ route and the proxy (X-Gmtags-Token); needed to listen"
    " beyond loopback. Also read from GMTAGS_TOKEN.",
)
@click.option(
    "--public-host",
    "public_hosts",
    multiple=True,
    metavar="NAME",
    help="Another name clients reach this server by (a LAN name, the name behind a reverse"
    " proxy); requests naming any other host are refused. Repeatable.",
)
@click.option(
    "--allow-origin",
    "allow_origins",
    multiple=True,
    metavar="ORIGIN",
    help="A web page origin allowed to call this server from the browser (CORS), such as"
    " SillyTavern's http://127.0.0.1:8000. Repeatable.",
)
@layers_option
@rulesets_option
@click.option(
    "--merge-instructions",
    is_flag=True,
    help="Always append the turn reminder to the last user message, never a system message.",
)
@click.option(
    "--workers",
    type=click.IntRange(1, MAX_WORKERS),
    default=1,
    show_default=True,
    help="Worker processes serving the same port and history file.",
)
def serve_command(
    ruleset_path: str,
    upstream: str,
    host: str,
    port: int,
    db: str,
    state_path: str | None,
    display: str,
    layers: str | None,
    rulesets: tuple[str, ...],
    merge_instructions: bool,
    token: str | None,
    workers: int,
    public_hosts: tuple[str, ...],
    allow_origins: tuple[str, ...],
) -> None:
    """Serve /v1/chat/completions with the GM instructions added and the replies ruled."""
    token_for(host, token)
    check_origins(allow_origins)
    if not upstream.startswith(("http://", "https://")):
        raise click.BadParameter("must be an http:// or https:// URL", param_hint="--upstream")
    if workers > 1 and db == ":memory:":
        raise click.BadParameter("several workers share a history file, not :memory:")
    options = {
        "ruleset_path": ruleset_path,
        "rulesets": list(rulesets),
        "state_path": state_path,
        "layers": layers,
        "upstream": upstream,
        "db": db,
        "display": display,
        "merge_instructions": merge_instructions,
        "host": host,
        "public_hosts": list(public_hosts),
        "allow_origins": list(allow_origins),
    }
    config = server_config(options, token)  # a bad ruleset or state stops here, once
    if db != ":memory:":
        try:
            HistoryStore(db).close()  # made or migrated once, before any worker opens it
        except HistoryError as error:
            raise click.ClickException(str(error)) from None
        except sqlite3.Error as error:
            raise click.ClickException(f"cannot open the history store {db}: {error}") from None
    click.echo(f"gmtags serve: http://{host}:{port}/v1 -> {upstream}", err=True)
    if workers == 1:
        app = create_app(config)
        settle(config)
        uvicorn.run(app, host=host, port=port, log_level="warning")
        return
    os.environ[OPTIONS_ENV] = json.dumps(options)
    if token is not None:
        os.environ[TOKEN_ENV] = token
    serve_workers(host, port, workers)


def server_config(options: dict[str, Any], token: str | None) -> ServerConfig:
    """The proxy's settings from the command line's options."""
    ruleset = read_ruleset(options["ruleset_path"], tuple(options["rulesets"]))
    start = with_layers(ruleset, read_snapshot(options["state_path"]), options["layers"])
    return ServerConfig(
        ruleset=ruleset,
        upstream=options["upstream"],
        db=options["db"],
        start=start,
        display=_display(options["display"]),
        merge_instructions=options["merge_instructions"],
        token=token,
        host=options.get("host", "127.0.0.1"),
        public_hosts=tuple(options.get("public_hosts", ())),
        allow_origins=tuple(options.get("allow_origins", ())),
    )


def _display(value: object) -> str:
    """`--display` as SPEC §7.3 names it (options an older gmtags wrote held a bool)."""
    if isinstance(value, bool):
        return "hidden" if value else "receipts"
    if value not in DISPLAYS:
        raise click.BadParameter(f"must be one of {', '.join(DISPLAYS)}", param_hint="--display")
    return str(value)


def worker_app() -> Starlette:
    """The app of one worker process, from the options its parent left in the environment."""
    config = server_config(json.loads(os.environ[OPTIONS_ENV]), os.environ.get(TOKEN_ENV))
    app = create_app(config)
    settle(config)
    return app


def serve_workers(host: str, port: int, workers: int) -> None:
    """Serve `worker_app` from `workers` processes on one socket until interrupted."""
    config = uvicorn.Config(
        f"{__name__}:worker_app",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level="warning",
    )
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
    except OSError as error:
        raise click.ClickException(f"cannot listen on {host}:{port}: {error.strerror}") from None
    listener.set_inheritable(True)
    try:
        Multiprocess(config, sockets=[listener]).run()
    except KeyboardInterrupt:
        pass
    finally:
        listener.close()
