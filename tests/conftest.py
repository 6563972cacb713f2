"""Shared fixtures: paths to the repository's fixtures and the reference rulesets."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from gmtags import Ruleset, Snapshot, load_ruleset
from tests.postgres import PostgresServer, bindir, throwaway_server

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
# Unmodified copies of shared/reference/rulesets (licences inside each file; see SOURCES.md).
REFERENCE_RULESETS = FIXTURES / "rulesets" / "reference"


def sound_combat(**keys: Any) -> dict[str, Any]:
    """The smallest valid attack-vs-defense `combat` (SCHEMA-NOTES §11) for a sheet with the
    live pool `grit` (`fixtures/rulesets/sheet-base.json`), with `keys` added (None deletes
    one); `kind="dice-pool"` swaps `attackRoll` for the `pool` that kind needs."""
    found: dict[str, Any] = {
        "kind": "attack-vs-defense",
        "health": {"pool": "grit"},
        "defense": {"const": 10},
        "initiative": {"dice": {"count": 1, "sides": 20}},
        "attackRoll": {"dice": {"count": 1, "sides": 20}},
        "economy": {"budgets": [{"id": "act", "label": "Act", "per": "turn", "count": 1}]},
    }
    if keys.get("kind") == "dice-pool":
        found |= {"attackRoll": None, "pool": {"advantage": True}}
    found.update(keys)
    return {key: value for key, value in found.items() if value is not None}


@pytest.fixture(scope="session")
def clocks_ruleset() -> Ruleset:
    """A minimal ruleset with the default clocks (`"clocks": {}`)."""
    return load_ruleset(FIXTURES / "rulesets" / "clocks-default.json")


@dataclass(frozen=True, slots=True)
class Ran:
    """What a command printed and how it ended, like `subprocess.CompletedProcess`."""

    returncode: int
    stdout: str
    stderr: str


def invoke(command: click.Command, *args: str | Path, stdin: str = "") -> Ran:
    """Run a click command in this process (click's `CliRunner`); a crash fails the test."""
    result = CliRunner().invoke(
        command, [str(arg) for arg in args], input=stdin, catch_exceptions=False
    )
    return Ran(result.exit_code, result.stdout, result.stderr)


@dataclass(frozen=True, slots=True)
class Hostile:
    """A hostile file written for a test: where, what it holds, what its refusal must say."""

    file: Path
    text: str
    message: str
    place: str | None
    """The line and column the refusal names (None: the module works it out)."""


def count_snapshot_reads(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """From now on in the test, every `Snapshot.model_validate` call's data, in order."""
    read: list[object] = []
    validate = Snapshot.model_validate

    def counted(data: object) -> Snapshot:
        read.append(data)
        return validate(data)

    monkeypatch.setattr(Snapshot, "model_validate", counted)
    return read


def hostile_files(cases: Mapping[str, tuple[str, str, str | None]], name: str) -> Any:
    """A fixture giving each case of `cases` (text, message, place) written to `name` in the
    test's own folder, one test per case (its id the case's name)."""

    @pytest.fixture(params=list(cases))
    def hostile(request: pytest.FixtureRequest, tmp_path: Path) -> Hostile:
        text, message, place = cases[request.param]
        file = tmp_path / name
        file.write_text(text, encoding="utf-8")
        return Hostile(file, text, message, place)

    return hostile


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """A real PostgreSQL server of this test session's own (tests/postgres.py)."""
    binaries = bindir()
    if binaries is None:
        pytest.fail(
            "PostgreSQL's binaries are missing: `make test` installs them (make postgresql)"
        )
    with throwaway_server(binaries) as server:
        yield server
