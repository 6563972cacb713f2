"""GM instructions: the stable system part and the per-turn reminder (issue: GM prompt)."""

from __future__ import annotations

from dataclasses import dataclass

from gmtags.prompt.reminder import turn_reminder
from gmtags.prompt.system import system_prompt
from gmtags.ruleset.model import Ruleset
from gmtags.state.snapshot import Snapshot


@dataclass(frozen=True, slots=True)
class Instructions:
    """What the GM model is told: `system` once per request, `reminder` every turn."""

    system: str
    reminder: str


def gm_instructions(
    ruleset: Ruleset, snapshot: Snapshot | None = None, *, budget: int | None = None
) -> Instructions:
    """The GM instructions for `ruleset` and `snapshot` (the system part within `budget`)."""
    state = Snapshot() if snapshot is None else snapshot
    return Instructions(system_prompt(ruleset, budget), turn_reminder(ruleset, state))


__all__ = ["Instructions", "gm_instructions"]
