"""The `trained` step's view (004, "Entrenamiento"): what the character is trained in so far;
the training choices it shows follow (`gmtags.builder.view`). What the step does in the walk
is `run` below."""

from __future__ import annotations

from collections.abc import Mapping

from gmtags.builder.controls import Control, Look, Note
from gmtags.builder.kinds.catalog import slot
from gmtags.builder.state import State
from gmtags.ruleset.builder.steps import TrainedStep


def run(state: State, step: TrainedStep) -> None:
    """The step's own training choices, each a slot worked out once every step has run."""
    state.blank_entry(step.id, step.kind)
    for n, choice in enumerate(step.choose or ()):
        key = f"{step.id}/{choice.id}" if choice.id else f"{step.id}/choose.{n}"
        state.training_slots.append((step.id, slot(state, key, choice, None)))


def view(look: Look, step: TrainedStep) -> list[Control]:
    tiers = look.ruleset.resolution_common.proficiency_tiers
    untrained = tiers[0].id if tiers else None
    skills = look.card.get("skills") or {}
    trained = []
    for name, value in skills.items():
        tier = value.get("tier") if isinstance(value, Mapping) else value
        if tier != untrained:
            trained.append(f"{look.label(name)} ({look.tier_label(tier)})")
    if trained:
        return [Note("Trained so far: " + ", ".join(trained))]
    if look.entry.get("choices"):
        return []
    return [Note("Nothing to choose here yet: picks in earlier steps offer training.")]
