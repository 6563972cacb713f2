"""The views of a build: for each step whose kind gives one (`StepKind.view`), the controls
a player uses it by (`gmtags.builder.controls`), made once from a finished build.

The builder page asks for them with its build (`"view": true`) and draws those steps from
them alone; the terminal wizard prints the same views (`gmtags.builder.wizard_view`).
"""

from __future__ import annotations

from typing import Any

from gmtags.builder.build import BuildResult
from gmtags.builder.controls import Control, Look, as_json
from gmtags.builder.party import party_of, party_view
from gmtags.builder.steps import KINDS
from gmtags.ruleset.builder import Builder
from gmtags.ruleset.model import Ruleset


def step_view(
    ruleset: Ruleset, builder: Builder, result: BuildResult, step_id: str
) -> list[Control] | None:
    """The controls of step `step_id`, or None when its kind gives no view."""
    step = next((s for s in builder.steps if s.id == step_id), None)
    kind = KINDS.get(step.kind) if step is not None else None
    if step is None or kind is None or kind.view is None:
        return None
    entry = next((e for e in result.steps if e["id"] == step_id), {})
    look = Look(ruleset, result.answers, result.card, entry)
    return list(kind.view(look, step))


def views(
    ruleset: Ruleset, result: BuildResult, party: bool = False
) -> dict[str, list[dict[str, Any]]]:
    """Every viewed step's controls as JSON, by step id (module doc), of the character
    builder or, with `party`, the party sheet's."""
    builder = party_of(ruleset).builder_model if party else ruleset.sheet.builder_model
    if party:
        ruleset = party_view(ruleset)
    if builder is None:
        return {}
    found: dict[str, list[dict[str, Any]]] = {}
    for step in builder.steps:
        controls = step_view(ruleset, builder, result, step.id)
        if controls is not None:
            found[step.id] = as_json(controls)
    return found


__all__ = ["step_view", "views"]
