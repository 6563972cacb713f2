"""Helpers for tests: the reader of golden case files under `fixtures/cases/`.

A case file holds one or more cases a person can read side by side:

    # Title of the case
    - ruleset: clocks-default.json
    - seed: 1

    ## snapshot
    ```json
    {}
    ```
    ## input
    ```text
    The reply the model wrote.
    ```
    ## text
    ```text
    The reply with receipts.
    ```

Sections: `snapshot` (start state, default empty), `input` (required), then
any of `text`, `display`, `cards` and `snapshot after` as expectations. A
fenced block's content is its lines joined by newlines, without a final one.
A section opened with N backticks (N ≥ 3) closes only at a line of exactly N
backticks, so a reply that holds a code fence is fenced with a longer one:

    ## input
    ````text
    He reads the sign.
    ```
    [skill_check: skill="Ward" dc="2"]
    ```
    ````
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_FENCE = re.compile(r"`{3,}")
"""A section's opening line: a run of at least three backticks (then an info string)."""


@dataclass(frozen=True)
class GoldenCase:
    """One golden case: where it came from, its settings and its sections."""

    path: Path
    title: str
    meta: dict[str, str]
    sections: dict[str, str] = field(default_factory=dict)

    @property
    def id(self) -> str:
        """A short id for pytest: the file stem and the title."""
        return f"{self.path.parent.name}/{self.path.stem}: {self.title}"

    @property
    def seed(self) -> int:
        """The seed the case is processed with (default 1)."""
        return int(self.meta.get("seed", "1"))

    def json_section(self, name: str) -> Any:
        """A section read as JSON."""
        return json.loads(self.sections[name])


def read_cases(path: Path) -> list[GoldenCase]:
    """Every case in one golden file, in order."""
    cases: list[GoldenCase] = []
    lines = path.read_text(encoding="utf-8").split("\n")
    title: str | None = None
    meta: dict[str, str] = {}
    sections: dict[str, str] = {}
    section: str | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("# "):
            if title is not None:
                cases.append(GoldenCase(path, title, meta, sections))
            title, meta, sections, section = line[2:].strip(), {}, {}, None
        elif line.startswith("## "):
            section = line[3:].strip()
        elif line.startswith("- ") and ":" in line and section is None:
            key, value = line[2:].split(":", 1)
            meta[key.strip()] = value.strip()
        elif section is not None and (fence := _FENCE.match(line)) is not None:
            end = lines.index(fence[0], i + 1)
            sections[section] = "\n".join(lines[i + 1 : end])
            section, i = None, end
        i += 1
    if title is not None:
        cases.append(GoldenCase(path, title, meta, sections))
    return cases


def all_cases(root: Path) -> list[GoldenCase]:
    """Every case under `root`, file by file in name order."""
    return [case for path in sorted(root.rglob("*.md")) for case in read_cases(path)]
