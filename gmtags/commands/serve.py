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
them) and builds the same app from the settings this process was given, passed
down in `GMTAGS_SERVE_OPTIONS` (the token, when there is one, in `GMTAGS_TOKEN`).

Every flag can also come from the environment or a TOML file (SPEC §14,
`gmtags.server.settings`): this command hands the flags given on its command
line to `load_settings` (a flag's click default is only what `--help` shows)
and builds the `ServerConfig` from the settings in force.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
from typing import Any

import click
import uvicorn
from click.core import ParameterSource
from starlette.applications import Starlette
from uvicorn.supervisors import Multiprocess

from gmtags.commands.common import (
    fail,
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
from gmtags.server.protocol import Protocol
from gmtags.server.settings import (
    MAX_WORKERS,
    ServeSettings,
    SettingsError,
    env_of,
    load_settings,
    masked_url,
)

CONFIG_ENV = "GMTAGS_CONFIG"
"""Where `--config` is also read from (a container's settings file)."""

OPTIONS_ENV = "GMTAGS_SERVE_OPTIONS"
"""Where a worker process finds the settings `gmtags serve` was started with."""
TOKEN_ENV = env_of("token")


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


def _default(name: str) -> Any:
    """A setting's default, as the flag's help shows it (the model holds it, once)."""
    return ServeSettings.model_fields[name].default


@click.command("serve")
@click.option("--ruleset", metavar="FILE", help="The ruleset JSON file (required).")
@click.option(
    "--upstream",
    metavar="URL",
    help="The model server's base URL, with or without /v1 (required).",
)
@click.option(
    "--host", default=_default("host"), show_default=True, help="The address to listen on."
)
@click.option("--port", type=click.IntRange(0, 65535), default=_default("port"), show_default=True)
@click.option(
    "--db",
    default=_default("db"),
    show_default=True,
    help="The SQLite file, or postgresql:// database, that keeps each chat's snapshot history.",
)
@click.option(
    "--state", metavar="FILE", help="The snapshot a new chat starts from (default: empty)."
)
@click.option(
    "--display",
    type=click.Choice(DISPLAYS),
    default=_default("display"),
    show_default=True,
    is_flag=False,
    flag_value="hidden",
    help="What the client receives where a command stood: its receipt, a one-line card, or"
    " nothing; a bare --display means hidden.",
)
@click.option(
    "--token",
    help="Required by every /gmtags/ route and the proxy (X-Gmtags-Token); needed to listen"
    " beyond loopback.",
)
@click.option(
    "--public-host",
    multiple=True,
    metavar="NAME",
    help="Another name clients reach this server by (a LAN name, the name behind a reverse"
    " proxy); requests naming any other host are refused. Repeatable.",
)
@click.option(
    "--allow-origin",
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
    default=_default("workers"),
    show_default=True,
    help="Worker processes serving the same port and history file.",
)
@click.option(
    "--upstream-key-env",
    metavar="NAME",
    help="The environment variable holding the upstream's API key: gmtags sends it, and"
    " clients need no key of their own (the key itself is never a flag).",
)
@click.option(
    "--prompt-marker",
    default=_default("prompt_marker"),
    show_default=True,
    help="Where a text prompt takes the GM instructions (else they open the prompt).",
)
@click.option(
    "--turn-marker",
    default=_default("turn_marker"),
    show_default=True,
    help="Where a text prompt takes the turn reminder (else it follows the instructions).",
)
@click.option(
    "--max-body",
    type=int,
    metavar="BYTES",
    default=_default("max_body"),
    show_default=True,
    help="The largest request body accepted.",
)
@click.option(
    "--upstream-timeout",
    type=float,
    metavar="SECONDS",
    default=_default("upstream_timeout"),
    show_default=True,
    help="How long to wait for the upstream to connect, answer or send more of a reply.",
)
@click.option(
    "--config",
    "config_file",
    metavar="FILE",
    envvar=CONFIG_ENV,
    help="A TOML file of settings, keyed as the options in snake_case (upstream_key_env ="
    f' "OPENAI_API_KEY"); also read from {CONFIG_ENV}.',
)
@click.option(
    "--print-config",
    is_flag=True,
    help="Print the settings in force, where each came from (secrets masked), and exit.",
)
def serve_command(config_file: str | None, print_config: bool, **given: Any) -> None:
    """Serve /v1/chat/completions with the GM instructions added and the replies ruled.

    Every option can also be set in the environment, as GMTAGS_ and the option's name in
    capitals with - as _ (GMTAGS_UPSTREAM, GMTAGS_UPSTREAM_KEY_ENV), or in a --config file;
    a flag wins over the environment, which wins over the file.
    """
    ctx = click.get_current_context()
    flags = {
        name: value
        for name, value in given.items()
        if ctx.get_parameter_source(name) is ParameterSource.COMMANDLINE
    }
    try:
        loaded = load_settings(flags, config_file)
    except SettingsError as error:
        if error.exit_code == 1:
            fail(str(error))
        raise click.UsageError(str(error)) from None
    if print_config:
        click.echo(loaded.report())
        return
    settings = loaded.settings
    config = server_config(settings)  # a bad ruleset or state stops here, once
    host, port, db = settings.host, settings.port, settings.db
    if db != ":memory:":
        try:
            HistoryStore(db).close()  # made or migrated once, before any worker opens it
        except HistoryError as error:
            raise click.ClickException(str(error)) from None
        except sqlite3.Error as error:
            raise click.ClickException(f"cannot open the history store {db}: {error}") from None
    upstream = masked_url(settings.upstream)
    click.echo(f"gmtags serve: http://{host}:{port}/v1 -> {upstream}", err=True)
    if settings.workers == 1:
        app = create_app(config)
        settle(config)
        uvicorn.run(app, host=host, port=port, log_level="warning", http=Protocol)
        return
    os.environ[OPTIONS_ENV] = settings.model_dump_json(exclude={"token"})
    if settings.token_text is not None:
        os.environ[TOKEN_ENV] = settings.token_text
    serve_workers(host, port, settings.workers)


def server_config(settings: ServeSettings) -> ServerConfig:
    """The proxy's configuration from its settings: the ruleset and start state read (a bad
    one exits 1 naming it), the upstream's key read from its variable."""
    ruleset = read_ruleset(settings.ruleset, settings.rulesets)
    start = with_layers(ruleset, read_snapshot(settings.state), settings.layers)
    return ServerConfig(
        ruleset=ruleset,
        upstream=settings.upstream,
        db=settings.db,
        start=start,
        display=settings.display,
        merge_instructions=settings.merge_instructions,
        token=settings.token_text,
        host=settings.host,
        public_hosts=settings.public_host,
        allow_origins=settings.allow_origin,
        max_body=settings.max_body,
        upstream_timeout=settings.upstream_timeout,
        upstream_key=settings.upstream_key(),
        prompt_marker=settings.prompt_marker,
        turn_marker=settings.turn_marker,
    )


def worker_app() -> Starlette:
    """The app of one worker process, from the settings its parent left in the environment
    (the token in its own variable, the upstream's key in the one its setting names)."""
    given = json.loads(os.environ[OPTIONS_ENV])
    settings = ServeSettings(**given, token=os.environ.get(TOKEN_ENV))
    config = server_config(settings)
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
        http=Protocol,
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
