"""GM instructions: the stable system part and the per-turn reminder (issue: GM prompt).

Both are written for the ruleset the game plays: the snapshot's active layers
applied (`effective_ruleset`, SPEC §4), so their ladder, enum values, hidden
entries and GM guidance are what the GM is told.
"""

from __future__ import annotations

from dataclasses import dataclass

from gmtags.prompt.reminder import turn_reminder
from gmtags.prompt.system import system_prompt
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.played import effective_ruleset
from gmtags.state.snapshot import Snapshot


@dataclass(frozen=True, slots=True)
class Instructions:
    """What the GM model is told: `system` once per request, `reminder` every turn."""

    system: str
    reminder: str


def gm_instructions(
    ruleset: Ruleset, snapshot: Snapshot | None = None, *, budget: int | None = None
) -> Instructions:
    """The GM instructions for `ruleset` and `snapshot` (the system part within `budget`),
    with the layers the snapshot's `rulesetLayers` make active."""
    state = Snapshot() if snapshot is None else snapshot
    played = effective_ruleset(ruleset, state.ruleset_layers)
    return Instructions(system_prompt(played, budget), turn_reminder(played, state))


__all__ = ["Instructions", "gm_instructions"]
