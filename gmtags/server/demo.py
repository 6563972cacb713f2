"""`gmtags demo --serve`: the proxy against the scripted upstream, no model needed (issue 7).

The demo serves the bundled ruleset with a small character builder of its own
(`DEMO_BUILDER`: the bundled ruleset has none, so its builder page was a 404),
and makes the chat `DEMO_CHAT` before it serves, so every page it prints
answers at once: the chat list, the demo chat's state page, its builder page,
and the proxy (also as a base URL that names the demo chat, for clients that
can set no header).

`--ruleset PATH` serves that ruleset instead of the bundled one (to try the
builder page on a bigger builder: `gmtags demo --serve --ruleset
fixtures/rulesets/builder/5e-builder.json`). Its chats start empty: the
bundled state is written for the bundled ruleset only, and the scripted
replies play that ruleset's characters, so with another ruleset they are only
narration with checks on characters it may not have.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import click
import uvicorn

from gmtags.demo import demo_file
from gmtags.ruleset.load import load_ruleset
from gmtags.ruleset.model import Ruleset
from gmtags.server.app import create_app
from gmtags.server.background import BackgroundServer
from gmtags.server.config import ServerConfig
from gmtags.server.demo_upstream import MODEL, ScriptedUpstream
from gmtags.server.protocol import Protocol
from gmtags.state.snapshot import load_snapshot

DEMO_CHAT = "lantern-watch"
"""The chat `gmtags demo --serve` makes before it serves, named after the bundled ruleset."""

DEMO_BUILDER: dict[str, Any] = {
    "tier": "trained",
    "steps": [
        {
            "id": "stats",
            "label": "Nerve and Hands",
            "kind": "abilities",
            "methods": {
                "pointBuy": {"budget": 4, "costs": [[0, 0], [1, 1], [2, 2], [3, 3], [4, 5]]}
            },
        },
        {
            "id": "training",
            "label": "Training",
            "kind": "trained",
            "choose": [{"id": "watch", "what": "skills", "count": 1}],
        },
    ],
}
"""The demo's character builder for the bundled ruleset: Nerve and Hands bought with four
points, one skill trained (Bram the Quiet, of the bundled state, is one of its results)."""


def demo_ruleset(builder: bool = False) -> Ruleset:
    """The bundled ruleset; with `builder`, with `DEMO_BUILDER` as its character builder."""
    data = json.loads(demo_file("ruleset.json").read_text(encoding="utf-8"))
    if builder:
        data["sheet"] = {**data["sheet"], "builder": DEMO_BUILDER}
    return load_ruleset(data)


def demo_config(
    upstream: str,
    ruleset: Ruleset | None = None,
    token: str | None = None,
    builder: bool = False,
) -> ServerConfig:
    """The proxy settings of the demo: the bundled ruleset (with `builder`, the demo's
    builder too) and state, history in memory; another `ruleset` starts its chats empty
    (module doc); `token` as `gmtags serve`'s."""
    if ruleset is not None:
        return ServerConfig(ruleset=ruleset, upstream=upstream, db=":memory:", token=token)
    start = load_snapshot(json.loads(demo_file("state.json").read_text(encoding="utf-8")))
    return ServerConfig(
        ruleset=demo_ruleset(builder),
        upstream=upstream,
        db=":memory:",
        start=start,
        token=token,
    )


def demo_urls(host: str, port: int, ruleset: Ruleset) -> list[tuple[str, str]]:
    """What `gmtags demo --serve` serves, each with its URL: the proxy, the demo chat
    through the proxy, the chat list, the demo chat's page and, when the ruleset has a
    character builder, its builder page."""
    base = f"http://{f'[{host}]' if ':' in host else host}:{port}"
    urls = [
        ("proxy, an OpenAI-compatible base URL (any API key)", f"{base}/v1"),
        ("the same, naming the demo chat (for clients that send no header)",
         f"{base}/c/{DEMO_CHAT}/v1"),
        ("the chats", f"{base}/gmtags/"),
        ("the demo chat's state", f"{base}/gmtags/chats/{DEMO_CHAT}"),
    ]  # fmt: skip
    if ruleset.sheet.builder_model is not None:
        urls.append(("the character builder", f"{base}/gmtags/builder?chat={DEMO_CHAT}"))
    return urls


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
        config = demo_config(f"{upstream.url}/v1", ruleset, token, builder=ruleset is None)
        config = replace(config, host=host, allow_origins=allow_origins)
        app = create_app(config)
        app.state.book.store.ensure_chat(DEMO_CHAT, config.start)
        click.echo(f"gmtags demo: serving {config.ruleset.name!r} against a scripted model")
        for what, url in demo_urls(host, port, config.ruleset):
            click.echo(f"  {what}: {url}")
        click.echo(f"  the scripted model: {upstream.url}/v1 (model {MODEL!r})")
        if token is not None:
            click.echo("  (every page asks for the token once; clients send it as X-Gmtags-Token)")
        uvicorn.run(app, host=host, port=port, log_level="warning", http=Protocol)
