"""The `gmtags` command line (SPEC §1): process, validate, demo.

Exit codes: 0 ok, 1 invalid input (ruleset, state, file), 2 usage. Every
expected failure is one clear line on stderr, never a traceback.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click

from gmtags import log
from gmtags.demo import demo_file
from gmtags.errors import GmtagsError, RulesetError, SnapshotError
from gmtags.process import ProcessResult, process
from gmtags.prompt import gm_instructions
from gmtags.ruleset.load import load_ruleset
from gmtags.ruleset.model import Ruleset
from gmtags.state.snapshot import Snapshot, load_snapshot

T = TypeVar("T")


def _fail(message: str) -> NoReturn:
    click.echo(f"gmtags: {message}", err=True)
    sys.exit(1)


def _guard(what: str, path: str, load: Callable[[], T]) -> T:
    """Run a loader; a missing file, bad JSON or invalid content exits 1 with the reason."""
    try:
        return load()
    except (RulesetError, SnapshotError) as error:
        lines = [f"  {problem}" for problem in error.problems]
        _fail("\n".join([f"{what} {path} is invalid:", *lines]))
    except FileNotFoundError:
        _fail(f"{what} file not found: {path}")
    except IsADirectoryError:
        _fail(f"{what} path is a folder, not a file: {path}")
    except UnicodeDecodeError:
        _fail(f"{what} file is not UTF-8 text: {path}")
    except OSError as error:
        _fail(f"cannot read {what} file {path}: {error.strerror}")


def _ruleset(path: str) -> Ruleset:
    return _guard("ruleset", path, lambda: load_ruleset(path))


def _snapshot(path: str | None) -> Snapshot:
    if path is None:
        return Snapshot()
    return _guard("state", path, lambda: load_snapshot(path))


def _read_text(path: str | None) -> str:
    if path is None or path == "-":
        return sys.stdin.read()
    return _guard("input", path, lambda: Path(path).read_text(encoding="utf-8"))


def _write_state(path: str, snapshot: Snapshot) -> None:
    try:
        Path(path).write_text(snapshot.to_json(indent=2) + "\n", encoding="utf-8")
    except OSError as error:
        _fail(f"cannot write state file {path}: {error.strerror}")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-v", "--verbose", is_flag=True, help="Log every applied command to stderr.")
def main(verbose: bool) -> None:
    """gmtags: make an AI game master play by the rules."""
    log.configure(logging.INFO if verbose else logging.WARNING)


@main.command("process")
@click.option("--ruleset", "ruleset_path", required=True, help="The ruleset JSON file.")
@click.option("--state", "state_path", help="The snapshot JSON to start from (default: empty).")
@click.option("--seed", type=int, help="Seed for the dice (default: a fresh one).")
@click.option("--state-out", "state_out", help="Write the snapshot after the reply here.")
@click.option("--display", is_flag=True, help="Print the narration with tags hidden.")
@click.option("--cards", is_flag=True, help="Print the narration with a card per tag.")
@click.argument("file", required=False)
def process_command(
    ruleset_path: str,
    state_path: str | None,
    seed: int | None,
    state_out: str | None,
    display: bool,
    cards: bool,
    file: str | None,
) -> None:
    """Process one model reply (FILE or stdin) and print it with receipts."""
    if display and cards:
        raise click.UsageError("--display and --cards are two views: choose one")
    ruleset = _ruleset(ruleset_path)
    snapshot = _snapshot(state_path)
    result = process(_read_text(file), ruleset, snapshot, seed=seed)
    if state_out:
        _write_state(state_out, result.snapshot)
    click.echo(result.display if display else result.cards if cards else result.text, nl=False)


@main.command("prompt")
@click.option("--ruleset", "ruleset_path", required=True, help="The ruleset JSON file.")
@click.option("--state", "state_path", help="The snapshot JSON (default: empty).")
@click.option("--budget", type=click.IntRange(min=1), help="Characters for the system part.")
def prompt_command(ruleset_path: str, state_path: str | None, budget: int | None) -> None:
    """Print the GM instructions: the system part, then the per-turn reminder."""
    instructions = gm_instructions(_ruleset(ruleset_path), _snapshot(state_path), budget=budget)
    click.echo("=== System ===")
    click.echo(instructions.system)
    click.echo("=== Turn reminder ===")
    click.echo(instructions.reminder)


@main.command("validate")
@click.argument("ruleset_path", metavar="RULESET")
def validate_command(ruleset_path: str) -> None:
    """Check that a ruleset imports; print every problem with its JSON path."""
    ruleset = _ruleset(ruleset_path)
    click.echo(f"ok: {ruleset.name} ({ruleset.id} v{ruleset.version})")


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
def demo_command(seed: int) -> None:
    """Process the bundled example reply and show it as a player sees it."""
    ruleset = load_ruleset(json.loads(demo_file("ruleset.json").read_text(encoding="utf-8")))
    state: Any = json.loads(demo_file("state.json").read_text(encoding="utf-8"))
    before = load_snapshot(state)
    reply = demo_file("reply.txt").read_text(encoding="utf-8")
    click.echo(f"gmtags demo: ruleset {ruleset.name!r}, seed {seed}")
    click.echo(_demo_report(process(reply, ruleset, before, seed=seed), before), nl=False)


def run() -> None:
    """Entry point that turns any unexpected library error into one line and exit 1."""
    try:
        main(standalone_mode=True)
    except GmtagsError as error:
        _fail(str(error))
