"""`gmtags demo --serve`: the proxy against the scripted upstream, no model needed (issue 7).

`--ruleset PATH` serves that ruleset instead of the bundled one (to try the
builder page on a ruleset with a builder: `gmtags demo --serve --ruleset
fixtures/rulesets/builder/5e-builder.json`). Its chats start empty: the
bundled state is written for the bundled ruleset only, and the scripted
replies play that ruleset's characters, so with another ruleset they are only
narration with checks on characters it may not have.
"""

from __future__ import annotations

import json
from dataclasses import replace

import click
import uvicorn

from gmtags.demo import demo_file
from gmtags.ruleset.load import load_ruleset
from gmtags.ruleset.model import Ruleset
from gmtags.server.app import create_app
from gmtags.server.background import BackgroundServer
from gmtags.server.config import ServerConfig
from gmtags.server.demo_upstream import MODEL, ScriptedUpstream
from gmtags.state.snapshot import load_snapshot


def demo_config(
    upstream: str, ruleset: Ruleset | None = None, token: str | None = None
) -> ServerConfig:
    """The proxy settings of the demo: the bundled ruleset and state, history in memory;
    another `ruleset` starts its chats empty (module doc); `token` as `gmtags serve`'s."""
    if ruleset is not None:
        return ServerConfig(ruleset=ruleset, upstream=upstream, db=":memory:", token=token)
    ruleset = load_ruleset(json.loads(demo_file("ruleset.json").read_text(encoding="utf-8")))
    start = load_snapshot(json.loads(demo_file("state.json").read_text(encoding="utf-8")))
    return ServerConfig(ruleset=ruleset, upstream=upstream, db=":memory:", start=start, token=token)


def serve_demo(
    host: str,
    port: int,
    ruleset: Ruleset | None = None,
    token: str | None = None,
    allow_origins: tuple[str, ...] = (),
) -> None:
    """Serve the proxy on `host`:`port` against the scripted upstream on a free loopback port
    (with `ruleset` instead of the bundled one: module doc).

    Runs until interrupted (Ctrl-C); the upstream stops with it.
    """
    with BackgroundServer(ScriptedUpstream().app) as upstream:
        config = demo_config(f"{upstream.url}/v1", ruleset, token)
        app = create_app(replace(config, host=host, allow_origins=allow_origins))
        click.echo(f"gmtags demo: scripted upstream on {upstream.url}/v1 (model {MODEL!r})")
        click.echo(f"gmtags demo: point your chat UI at http://{host}:{port}/v1 (any API key)")
        uvicorn.run(app, host=host, port=port, log_level="warning")
