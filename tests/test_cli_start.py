"""gmtags/cli.py and gmtags/__init__.py: `gmtags --help` and `--version` answer quickly,
with nothing of the ruleset machinery imported (SPEC §14), and the public names still
import as SPEC §1 lists them."""

from __future__ import annotations

import importlib
import subprocess
import sys
import time
import types

import click

import gmtags
from gmtags.cli import SUBCOMMANDS, LazyGroup, main

HEAVY = ("lark", "pydantic", "pydantic_settings", "starlette", "httpx", "uvicorn", "structlog")
"""What `--help` and `--version` must not import (the ruleset models, the grammar, the server)."""

REPORT = (
    "import sys\n"
    "from gmtags.cli import main\n"
    "try:\n"
    "    main()\n"
    "except SystemExit:\n"
    "    pass\n"
    "heavy = {heavy!r}\n"
    "sys.stderr.write(' '.join(sorted(m for m in sys.modules if m.split('.')[0] in heavy)))\n"
)


def imported_by(*args: str) -> tuple[str, list[str]]:
    """What `gmtags ARGS` prints, and the heavy modules it imported (a fresh interpreter)."""
    done = subprocess.run(
        [sys.executable, "-c", REPORT.format(heavy=HEAVY), *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout, done.stderr.split()


class TestQuickStart:
    def test_help_imports_no_ruleset_machinery(self) -> None:
        """`gmtags --help` lists every command without importing pydantic, lark or the server."""
        out, heavy = imported_by("--help")
        assert heavy == []
        for name in [*SUBCOMMANDS, "process", "validate", "prompt", "schema", "demo"]:
            assert f"\n  {name} " in out

    def test_version_imports_no_ruleset_machinery(self) -> None:
        """`gmtags --version` prints `gmtags <version>` and imports nothing heavy."""
        out, heavy = imported_by("--version")
        assert heavy == []
        assert out == f"gmtags {gmtags.__version__}\n"

    def test_a_subcommand_is_imported_when_run(self) -> None:
        """`gmtags serve --help` does import its module (the lazy table is only a listing)."""
        out, heavy = imported_by("serve", "--help")
        assert "--upstream" in out and "starlette" in heavy

    def test_help_answers_in_well_under_a_second(self) -> None:
        """`python -m gmtags.cli --help` takes a fraction of a second (the best of three, with a
        bound loose enough for a busy CI machine; benchmarks/bench_cli_start.py measures it)."""
        times = []
        for _ in range(3):
            started = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "gmtags.cli", "--help"],
                capture_output=True,
                check=True,
                timeout=60,
            )
            times.append(time.perf_counter() - started)
        assert min(times) < 1.0, times


class TestLazyGroup:
    def test_the_table_shows_what_each_command_says(self) -> None:
        """Each lazily loaded command's line in the table is its own short help."""
        ctx = click.Context(main)
        for name, where in SUBCOMMANDS.items():
            command = main.get_command(ctx, name)
            assert command is not None and command.name == name
            table = click.Command(name, help=where.short_help).get_short_help_str(200)
            assert command.get_short_help_str(200) == table, name

    def test_unknown_command(self) -> None:
        """A name neither defined here nor in the table is no command."""
        group = LazyGroup("g", lazy={})
        assert group.get_command(click.Context(group), "nope") is None


class TestPublicNames:
    def test_every_public_name_resolves(self) -> None:
        """Each name of `gmtags.__all__` is the object of the module it lives in."""
        from gmtags.process import ProcessResult, process
        from gmtags.ruleset import load_ruleset
        from gmtags.state.snapshot import Snapshot

        for name in gmtags.__all__:
            assert getattr(gmtags, name) is not None
        assert (gmtags.process, gmtags.ProcessResult) == (process, ProcessResult)
        assert (gmtags.Snapshot, gmtags.load_ruleset) == (Snapshot, load_ruleset)

    def test_the_process_function_is_never_the_submodule(self) -> None:
        """Importing the submodule `gmtags.process` keeps `gmtags.process` the function."""
        importlib.import_module("gmtags.process")
        assert isinstance(gmtags.process, types.FunctionType)
        code = "import gmtags.process, gmtags; print(type(gmtags.process).__name__)"
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
        )
        assert done.stdout.strip() == "function"

    def test_an_unknown_name_is_an_attribute_error(self) -> None:
        """A name gmtags does not export raises AttributeError (so `hasattr` works)."""
        assert not hasattr(gmtags, "no_such_name")
