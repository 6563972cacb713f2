"""The `trained` step's view (004, "Entrenamiento"): what the character is trained in so far;
the training choices it shows follow (`gmtags.builder.view`). What the step does in the walk
is `gmtags.builder.steps.Walk._trained`."""

from __future__ import annotations

from collections.abc import Mapping

from gmtags.builder.controls import Control, Look, Note
from gmtags.ruleset.builder.steps import TrainedStep


def view(look: Look, step: TrainedStep) -> list[Control]:
    tiers = look.ruleset.resolution_common.proficiency_tiers
    untrained = tiers[0].id if tiers else None
    labels = {tier.id: tier.label for tier in tiers}
    skills = look.card.get("skills") or {}
    trained = []
    for name, value in skills.items():
        tier = value.get("tier") if isinstance(value, Mapping) else value
        if tier != untrained:
            trained.append(f"{look.label(name)} ({labels.get(str(tier), tier)})")
    if trained:
        return [Note("Trained so far: " + ", ".join(trained))]
    if look.entry.get("choices"):
        return []
    return [Note("Nothing to choose here yet: picks in earlier steps offer training.")]
