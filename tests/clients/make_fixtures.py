"""Writes the receipts the extension's node tests read, with the real engine.

Each golden case under `fixtures/cases/{skill_check,clock,sheet}` is run
through `gmtags process` (its ruleset, snapshot and seed) and what the engine
printed is written to `tests/clients/fixtures/<folder>-<file>.txt`, one case
after a `=== <title>` line. Run it again after an engine change:

    .venv/bin/python tests/clients/make_fixtures.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from gmtags.testing import GoldenCase, read_cases

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(__file__).resolve().parent / "fixtures"
FOLDERS = ("skill_check", "clock", "sheet")
GMTAGS = Path(sys.executable).with_name("gmtags")


def processed(case: GoldenCase, scratch: Path) -> str:
    """What `gmtags process` prints for the case's input."""
    ruleset = ROOT / "fixtures/rulesets" / case.meta["ruleset"]
    command = [str(GMTAGS), "process", "--ruleset", str(ruleset), "--seed", str(case.seed)]
    if "snapshot" in case.sections:
        state = scratch / "state.json"
        state.write_text(json.dumps(case.json_section("snapshot")), encoding="utf-8")
        command += ["--state", str(state)]
    done = subprocess.run(
        command, input=case.sections["input"], capture_output=True, text=True, check=True
    )
    return done.stdout.rstrip("\n")


def main() -> None:
    """Write one fixture file per golden case file."""
    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        for folder in FOLDERS:
            for path in sorted((ROOT / "fixtures/cases" / folder).glob("*.md")):
                blocks = [
                    f"=== {case.title}\n{processed(case, Path(scratch))}\n"
                    for case in read_cases(path)
                ]
                (OUT / f"{folder}-{path.stem}.txt").write_text("".join(blocks), encoding="utf-8")


if __name__ == "__main__":
    main()
