"""Rewrite the golden GM prompts (fixtures/prompts/*.md): `python -m tests.prompt.regen`.

Only the `system` and `reminder` sections are written; the title, the ruleset
line and the snapshot stay as a person wrote them. Read the diff by eye before
committing it: these files are the reviewed text the model is given.
"""

from __future__ import annotations

import re
import sys

from gmtags import Snapshot, load_ruleset
from gmtags.prompt import gm_instructions
from gmtags.testing import read_cases
from tests.conftest import FIXTURES

PROMPTS = FIXTURES / "prompts"


def _replace_section(text: str, name: str, body: str) -> str:
    """`text` with the fenced block under `## name` replaced by `body`."""
    pattern = re.compile(rf"(^## {re.escape(name)}\n(`{{3,}})[^\n]*\n)(.*?)(\n\2$)", re.M | re.S)
    found = pattern.search(text)
    if found is None:
        raise ValueError(f"no fenced section {name!r}")
    return text[: found.start(3)] + body + text[found.end(3) :]


def regenerate() -> list[str]:
    """Rewrite every golden prompt file; the names of those that changed."""
    changed = []
    for path in sorted(PROMPTS.glob("*.md")):
        (case,) = read_cases(path)
        ruleset = load_ruleset(FIXTURES / "rulesets" / case.meta["ruleset"])
        snapshot = Snapshot.model_validate(case.json_section("snapshot"))
        instructions = gm_instructions(ruleset, snapshot)
        old = path.read_text(encoding="utf-8")
        new = _replace_section(old, "system", instructions.system)
        new = _replace_section(new, "reminder", instructions.reminder)
        if new != old:
            path.write_text(new, encoding="utf-8")
            changed.append(path.name)
    return changed


if __name__ == "__main__":
    for name in regenerate():
        sys.stdout.write(f"rewrote {name}\n")
