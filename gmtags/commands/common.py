"""What every `gmtags` subcommand shares: one-line errors and the file loaders.

Exit codes (SPEC §1): 1 for invalid input (a ruleset, state or file), with one
clear line on stderr, never a traceback. The loaders import the ruleset and
snapshot models when first called, so a command's `--help` stays quick (SPEC §14).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TypeVar

import click

from gmtags.errors import RulesetError, SnapshotError

if TYPE_CHECKING:
    from gmtags.ruleset.model import Ruleset
    from gmtags.state.snapshot import Snapshot

T = TypeVar("T")


def fail(message: str) -> NoReturn:
    click.echo(f"gmtags: {message}", err=True)
    sys.exit(1)


def guard(what: str, path: str, load: Callable[[], T]) -> T:
    """Run a loader; a missing file, bad JSON or invalid content exits 1 with the reason."""
    try:
        return load()
    except (RulesetError, SnapshotError) as error:
        lines = [f"  {problem}" for problem in error.problems]
        fail("\n".join([f"{what} {path} is invalid:", *lines]))
    except FileNotFoundError:
        fail(f"{what} file not found: {path}")
    except IsADirectoryError:
        fail(f"{what} path is a folder, not a file: {path}")
    except UnicodeDecodeError:
        fail(f"{what} file is not UTF-8 text: {path}")
    except OSError as error:
        fail(f"cannot read {what} file {path}: {error.strerror}")


def read_ruleset(path: str, rulesets: Sequence[str] = ()) -> Ruleset:
    """`--ruleset`: a hostile file (too large, too deep, NaN, huge numbers) exits 1 naming it.

    `rulesets` are the `--rulesets` folders its borrowed catalogs' lenders are found in
    (004, "Catálogos prestados"); what they leave out is logged as a warning on stderr.
    """
    from gmtags.ruleset.load import load_ruleset

    return guard("ruleset", path, lambda: load_ruleset(path, library=rulesets))


def write_out(path: str | None, text: str, what: str) -> None:
    """`text` to the file `path` (stdout without one); a file that cannot be written exits 1
    naming it (`what`: "card", "schema", …)."""
    if path is None:
        click.echo(text, nl=False)
        return
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as error:
        fail(f"cannot write {what} file {path}: {error.strerror}")


def read_snapshot(path: str | None) -> Snapshot:
    """`--state`: the empty snapshot without one; a hostile file exits 1 naming the place."""
    from gmtags.state.snapshot import Snapshot, load_snapshot

    if path is None:
        return Snapshot()
    return guard("state", path, lambda: load_snapshot(path))


def read_text(path: str | None) -> str:
    """A reply's text from `path` (None or `-`: stdin), its line endings as they are: no
    newline translation, so narration outside tags survives byte for byte."""
    if path is None or path == "-":
        return guard("input", "stdin", lambda: sys.stdin.buffer.read().decode("utf-8"))
    return guard("input", path, lambda: Path(path).read_bytes().decode("utf-8"))


def write_state(path: str, snapshot: Snapshot) -> None:
    """Write `--state-out`: strict UTF-8 JSON (issue 11, through `Snapshot.to_json`: no NaN
    or infinity, a lone surrogate half as its escape), so gmtags can read it back as `--state`."""
    try:
        Path(path).write_text(snapshot.to_json(indent=2) + "\n", encoding="utf-8")
    except OSError as error:
        fail(f"cannot write state file {path}: {error.strerror}")


layers_option = click.option(
    "--layers",
    help="Layer ids (a,b) a new game plays: set as the start's rulesetLayers when it names none.",
)
"""`--layers` on `process`, `stream`, `prompt`, `transcript` and `serve` (SPEC §4)."""


def with_layers(ruleset: Ruleset, snapshot: Snapshot, layers: str | None) -> Snapshot:
    """`--layers` set on the start snapshot; an unknown or conflicting id exits 1 naming it."""
    from gmtags.ruleset.played import LayerChoiceError
    from gmtags.state.layers import layered_start

    try:
        return layered_start(ruleset, snapshot, layers)
    except LayerChoiceError as error:
        fail(str(error))


rulesets_option = click.option(
    "--rulesets",
    "rulesets",
    multiple=True,
    metavar="DIR",
    type=click.Path(exists=True, file_okay=False),
    help="A folder of installed rulesets the ruleset's borrowed catalogs are read from "
    "(repeatable).",
)
"""`--rulesets DIR` on every command that loads a ruleset (`validate`, `process`, `stream`,
`prompt`, `transcript`, `serve`, `character`): the library `load_ruleset` finds lenders in."""
