"""The `choices` step's view (004, "Elecciones"): the entry choices the picks grant, shown
here (`gmtags.builder.view` adds one per slot); a step with none says why."""

from __future__ import annotations

from gmtags.builder.controls import Control, Look, Note
from gmtags.ruleset.builder.steps import ChoicesStep


def view(look: Look, step: ChoicesStep) -> list[Control]:
    if look.entry.get("choices"):
        return []
    return [Note("Nothing to choose here: picks in earlier steps grant these choices.")]
