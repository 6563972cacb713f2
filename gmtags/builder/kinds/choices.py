"""The `choices` step's view (004, "Elecciones"): the entry choices the picks grant, shown
here (`gmtags.builder.view` adds one per slot); a step with none says why."""

from __future__ import annotations

from gmtags.builder.controls import Control, Look, Note
from gmtags.builder.state import State
from gmtags.ruleset.builder.steps import ChoicesStep


def run(state: State, step: ChoicesStep) -> None:
    """The step shows the entry choices the picks grant (worked out once every step has run,
    `gmtags.builder.steps.Walk.finish`)."""
    state.blank_entry(step.id, step.kind)


def view(look: Look, step: ChoicesStep) -> list[Control]:
    if look.entry.get("choices"):
        return []
    return [Note("Nothing to choose here: picks in earlier steps grant these choices.")]
