"""`gmtags serve` (SPEC §7): the OpenAI-compatible proxy between a chat UI and a model server."""

from __future__ import annotations

import click
import uvicorn

from gmtags.cli_common import (
    layers_option,
    read_ruleset,
    read_snapshot,
    rulesets_option,
    with_layers,
)
from gmtags.server.app import create_app
from gmtags.server.auth import needs_token
from gmtags.server.config import ServerConfig

DEFAULT_DB = "gmtags-history.sqlite3"


def token_for(host: str, token: str | None) -> None:
    """`--token`: never blank, and given whenever `host` lets other machines in (SPEC §11)."""
    if token is not None and not token.strip():
        raise click.BadParameter("must not be blank", param_hint="--token")
    if token is None and needs_token(host):
        raise click.UsageError(
            f"--host {host} lets other machines in: start it with --token T (or GMTAGS_TOKEN)"
        )


@click.command("serve")
@click.option("--ruleset", "ruleset_path", required=True, help="The ruleset JSON file.")
@click.option("--upstream", required=True, help="The model server's base URL including /v1.")
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8787, show_default=True)
@click.option(
    "--db",
    default=DEFAULT_DB,
    show_default=True,
    help="The SQLite file that keeps each chat's snapshot history.",
)
@click.option("--state", "state_path", help="The snapshot a new chat starts from (default: empty).")
@click.option("--display", is_flag=True, help="Reply with the narration with tags hidden.")
@click.option(
    "--token",
    envvar="GMTAGS_TOKEN",
    help="Required by every /gmtags/ route and the proxy (X-Gmtags-Token); needed to listen"
    " beyond loopback. Also read from GMTAGS_TOKEN.",
)
@layers_option
@rulesets_option
@click.option(
    "--merge-instructions",
    is_flag=True,
    help="Always append the turn reminder to the last user message, never a system message.",
)
def serve_command(
    ruleset_path: str,
    upstream: str,
    host: str,
    port: int,
    db: str,
    state_path: str | None,
    display: bool,
    layers: str | None,
    rulesets: tuple[str, ...],
    merge_instructions: bool,
    token: str | None,
) -> None:
    """Serve /v1/chat/completions with the GM instructions added and the replies ruled."""
    token_for(host, token)
    if not upstream.startswith(("http://", "https://")):
        raise click.BadParameter("must be an http:// or https:// URL", param_hint="--upstream")
    ruleset = read_ruleset(ruleset_path, rulesets)
    start = with_layers(ruleset, read_snapshot(state_path), layers)
    config = ServerConfig(
        ruleset=ruleset,
        upstream=upstream,
        db=db,
        start=start,
        display=display,
        merge_instructions=merge_instructions,
        token=token,
    )
    click.echo(f"gmtags serve: http://{host}:{port}/v1 -> {upstream}", err=True)
    uvicorn.run(create_app(config), host=host, port=port, log_level="warning")
