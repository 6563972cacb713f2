"""The `gmtags` command line (SPEC §1): process, validate, demo, and the subcommands.

Exit codes: 0 ok, 1 invalid input (ruleset, state, file), 2 usage. Every
expected failure is one clear line on stderr, never a traceback.

`gmtags --help` and `gmtags --version` answer quickly (SPEC §14): this module
imports click and nothing of the ruleset machinery. The commands defined here
import what they use when they run; the others live in their own modules,
listed in `SUBCOMMANDS` with their one-line help and imported only when one is
run or asked for its own help (`LazyGroup`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING, Any

import click

from gmtags.commands.common import fail as _fail
from gmtags.commands.common import layers_option, rulesets_option, with_layers, write_out
from gmtags.commands.common import read_ruleset as _ruleset
from gmtags.commands.common import read_snapshot as _snapshot
from gmtags.commands.common import read_text as _read_text
from gmtags.commands.common import write_state as _write_state
from gmtags.errors import GmtagsError

if TYPE_CHECKING:
    from gmtags.process import ProcessResult
    from gmtags.state.snapshot import Snapshot


@dataclass(frozen=True, slots=True)
class Subcommand:
    """A command that lives in another module: where, and the one line `gmtags --help` shows
    for it (kept here so listing the commands imports none of them)."""

    module: str
    attribute: str
    short_help: str


SUBCOMMANDS: dict[str, Subcommand] = {
    "character": Subcommand(
        "gmtags.commands.build",
        "character",
        "Build a character with the ruleset's guided builder.",
    ),
    "roll": Subcommand(
        "gmtags.commands.roll",
        "roll_command",
        'Roll named symbol dice, like "2 ability 1 proficiency vs 2 difficulty".',
    ),
    "serve": Subcommand(
        "gmtags.commands.serve",
        "serve_command",
        "Serve /v1/chat/completions with the GM instructions added and the replies ruled.",
    ),
    "sillytavern": Subcommand(
        "gmtags.commands.sillytavern",
        "sillytavern",
        "Play inside SillyTavern with the gmtags extension.",
    ),
    "stream": Subcommand(
        "gmtags.commands.stream",
        "stream_command",
        "Process a model reply from stdin as it streams, flushing output as it goes.",
    ),
    "transcript": Subcommand(
        "gmtags.commands.transcript",
        "transcript",
        "Reprocess, rebuild and read saved chats (SillyTavern or role/content JSONL).",
    ),
}
"""The subcommands defined outside this module, by name."""


class LazyGroup(click.Group):
    """A group whose `lazy` commands are imported on first use: when one is run, asked for
    its help, or completed. Listing them (`--help`) reads their line from the table."""

    def __init__(
        self, *args: Any, lazy: Mapping[str, Subcommand] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = super().get_command(ctx, cmd_name)
        if found is not None or cmd_name not in self.lazy:
            return found
        where = self.lazy[cmd_name]
        command = getattr(import_module(where.module), where.attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{where.module}.{where.attribute} is not a click command")
        self.add_command(command, cmd_name)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = []
        for name in names:
            loaded = self.commands.get(name)
            if loaded is None:  # shortened as click shortens a loaded command's help
                loaded = click.Command(name, help=self.lazy[name].short_help)
            if not loaded.hidden:
                rows.append((name, loaded.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """`--version`: `gmtags <version>`, from the installed distribution's metadata."""
    if not value or ctx.resilient_parsing:
        return
    import gmtags

    click.echo(f"gmtags {gmtags.__version__}")
    ctx.exit()


@click.group(
    cls=LazyGroup,
    lazy=SUBCOMMANDS,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Print the version and exit.",
)
@click.option("-v", "--verbose", is_flag=True, help="Log every applied command to stderr.")
def main(verbose: bool) -> None:
    """gmtags: make an AI game master play by the rules."""
    import logging

    from gmtags import log

    log.configure(logging.INFO if verbose else logging.WARNING)


@main.command("process")
@click.option("--ruleset", "ruleset_path", required=True, help="The ruleset JSON file.")
@click.option("--state", "state_path", help="The snapshot JSON to start from (default: empty).")
@click.option("--seed", type=int, help="Seed for the dice (default: a fresh one).")
@click.option("--state-out", "state_out", help="Write the snapshot after the reply here.")
@click.option("--display", is_flag=True, help="Print the narration with tags hidden.")
@click.option("--cards", is_flag=True, help="Print the narration with a card per tag.")
@layers_option
@rulesets_option
@click.argument("file", required=False)
def process_command(
    ruleset_path: str,
    state_path: str | None,
    seed: int | None,
    state_out: str | None,
    display: bool,
    cards: bool,
    layers: str | None,
    rulesets: tuple[str, ...],
    file: str | None,
) -> None:
    """Process one model reply (FILE or stdin) and print it with receipts."""
    from gmtags.process import process

    if display and cards:
        raise click.UsageError("--display and --cards are two views: choose one")
    ruleset = _ruleset(ruleset_path, rulesets)
    snapshot = with_layers(ruleset, _snapshot(state_path), layers)
    result = process(_read_text(file), ruleset, snapshot, seed=seed)
    if state_out:
        _write_state(state_out, result.snapshot)
    click.echo(result.display if display else result.cards if cards else result.text, nl=False)


@main.command("prompt")
@click.option("--ruleset", "ruleset_path", required=True, help="The ruleset JSON file.")
@click.option("--state", "state_path", help="The snapshot JSON (default: empty).")
@click.option("--budget", type=click.IntRange(min=1), help="Characters for the system part.")
@click.option("--tokens", is_flag=True, help="Print the instructions' size in tokens instead.")
@layers_option
@rulesets_option
def prompt_command(
    ruleset_path: str,
    state_path: str | None,
    budget: int | None,
    tokens: bool,
    layers: str | None,
    rulesets: tuple[str, ...],
) -> None:
    """Print the GM instructions: the system part, then the per-turn reminder (`--tokens`:
    their size, an estimate within 10% for the common tokenizers)."""
    from gmtags.prompt import gm_instructions
    from gmtags.prompt.tokens import estimate_tokens

    ruleset = _ruleset(ruleset_path, rulesets)
    snapshot = with_layers(ruleset, _snapshot(state_path), layers)
    instructions = gm_instructions(ruleset, snapshot, budget=budget)
    if tokens:
        system, reminder = (
            estimate_tokens(instructions.system),
            estimate_tokens(instructions.reminder),
        )
        click.echo(f"tokens: {system + reminder} (system {system}, reminder {reminder})")
        return
    click.echo("=== System ===")
    click.echo(instructions.system)
    click.echo("=== Turn reminder ===")
    click.echo(instructions.reminder)


@main.command("validate")
@click.argument("ruleset_path", metavar="RULESET")
@rulesets_option
def validate_command(ruleset_path: str, rulesets: tuple[str, ...]) -> None:
    """Check that a ruleset imports; print every problem with its JSON path, and what its
    borrowed catalogs left out (`--rulesets`: where their lenders are installed)."""
    ruleset = _ruleset(ruleset_path, rulesets)
    click.echo(f"ok: {ruleset.name} ({ruleset.id} v{ruleset.version})")
    for note in ruleset.borrow_notes:
        click.echo(f"  borrowed: {note}")


@main.command("schema")
@click.option("--out", "out_path", help="Write the schema to this file instead of stdout.")
def schema_command(out_path: str | None) -> None:
    """Print the JSON Schema of the ruleset file, for an editor to check it as it is typed."""
    from gmtags.ruleset.schema import ruleset_schema_json

    write_out(out_path, ruleset_schema_json(), "schema")


def _demo_report(result: ProcessResult, before: Snapshot) -> str:
    def clocks(snapshot: Snapshot) -> str:
        rows = [f"  {c.name}: {c.filled}/{c.size}" for c in snapshot.ruleset_clocks]
        return "\n".join(rows) if rows else "  (none)"

    def live(snapshot: Snapshot) -> str:
        rows = [
            f"  {name}: {entry.model_dump(exclude_defaults=True)}"
            for name, entry in snapshot.ruleset_live.items()
        ]
        return "\n".join(rows) if rows else "  (nothing moved from its start)"

    rule = "-" * 72
    return "\n".join(
        [
            rule,
            "What the player reads (tags hidden):",
            rule,
            result.display.rstrip("\n"),
            rule,
            "The same reply with a card for each tag (gmtags process --cards):",
            rule,
            result.cards.rstrip("\n"),
            rule,
            "Saved with receipts (gmtags process):",
            rule,
            result.text.rstrip("\n"),
            rule,
            "Clocks before:",
            clocks(before),
            "Clocks after:",
            clocks(result.snapshot),
            "Live values after (only what moved from its start is stored):",
            live(result.snapshot),
            "",
        ]
    )


@main.command("demo")
@click.option("--seed", type=int, default=7, show_default=True, help="Seed for the dice.")
@click.option("--serve", is_flag=True, help="Serve the proxy against a scripted model.")
@click.option("--host", default="127.0.0.1", show_default=True, help="With --serve: address.")
@click.option(
    "--port", type=click.IntRange(0, 65535), default=8787, show_default=True, help="With --serve."
)
@click.option(
    "--ruleset",
    "ruleset_path",
    help="With --serve: serve this ruleset instead of the bundled one (its chats start empty).",
)
@click.option(
    "--token",
    envvar="GMTAGS_TOKEN",
    help="With --serve: required by every route (needed to listen beyond loopback).",
)
@click.option(
    "--allow-origin",
    "allow_origins",
    multiple=True,
    metavar="ORIGIN",
    help="With --serve: a web page origin allowed to call it, such as SillyTavern's"
    " http://127.0.0.1:8000 (for the SillyTavern extension). Repeatable.",
)
def demo_command(
    seed: int,
    serve: bool,
    host: str,
    port: int,
    ruleset_path: str | None,
    token: str | None,
    allow_origins: tuple[str, ...],
) -> None:
    """Process the bundled example reply and show it as a player sees it (or --serve it)."""
    for given, option in (
        (ruleset_path is not None, "--ruleset"),
        (allow_origins, "--allow-origin"),
    ):
        if given and not serve:
            raise click.UsageError(f"{option} goes with --serve")
    if serve:
        from gmtags.commands.serve import check_origins, token_for
        from gmtags.server.demo import serve_demo

        token_for(host, token)
        check_origins(allow_origins)
        ruleset = _ruleset(ruleset_path) if ruleset_path else None
        serve_demo(host, port, ruleset, token, allow_origins)
        return
    from gmtags.demo import demo_file
    from gmtags.process import process
    from gmtags.ruleset.load import load_ruleset
    from gmtags.state.snapshot import load_snapshot

    ruleset = load_ruleset(json.loads(demo_file("ruleset.json").read_text(encoding="utf-8")))
    state: Any = json.loads(demo_file("state.json").read_text(encoding="utf-8"))
    before = load_snapshot(state)
    reply = demo_file("reply.txt").read_text(encoding="utf-8")
    click.echo(f"gmtags demo: ruleset {ruleset.name!r}, seed {seed}")
    click.echo(_demo_report(process(reply, ruleset, before, seed=seed), before), nl=False)
    click.echo(_demo_character(seed), nl=False)


def _demo_character(seed: int) -> str:
    """The second half of the demo: a character built from an answers file with the bundled
    5e builder (`gmtags character build`), shown as the GM's sheet block shows it, then
    playing a check on a skill the builder trained."""
    from gmtags.builder.build import build_character
    from gmtags.demo import demo_file
    from gmtags.process import process
    from gmtags.prompt.reminder import character_block
    from gmtags.ruleset.load import load_ruleset
    from gmtags.state.snapshot import Snapshot

    ruleset = load_ruleset(json.loads(demo_file("builder-ruleset.json").read_text("utf-8")))
    answers = json.loads(demo_file("builder-answers.json").read_text(encoding="utf-8"))
    built = build_character(ruleset, answers)
    name = "Ilse"
    state = Snapshot.model_validate({"gameCharacterCards": {name: built.card}})
    later = [
        f"{s['id']} ({s['kind']})"
        for s in built.steps
        if any("not built yet" in reason for reason in s["reasons"])
    ]
    pending = [f"{step}: {count}" for step, count in built.pending.items() if count]
    check = f'Ilse studies the runes. [skill_check: skill="Arcana" dc="12" who="{name}"]'
    played = process(check, ruleset, state, seed=seed)
    rule = "-" * 72
    return "\n".join(
        [
            rule,
            f"A character built from answers (gmtags character build), ruleset {ruleset.name!r}:",
            rule,
            *character_block(ruleset, state, name),
            "Badges: " + (", ".join(pending) if pending else "every step done"),
            *(["Steps not built yet in this version: " + ", ".join(later)] if later else []),
            rule,
            "The built character plays a check on a skill the builder trained:",
            rule,
            played.text,
            "",
        ]
    )


def run() -> None:
    """Entry point that turns any unexpected library error into one line and exit 1."""
    try:
        main(standalone_mode=True)
    except GmtagsError as error:
        _fail(str(error))


if __name__ == "__main__":
    run()
