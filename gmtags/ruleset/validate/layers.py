"""002 and 000: a layer's `difficultyLadder` fits the resolution."""

from __future__ import annotations

from pydantic import ValidationError

from gmtags.errors import Problem
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.resolution import (
    ladder_adapter,
)
from gmtags.ruleset.validate.index import SheetIndex
from gmtags.ruleset.validate.resolution import below, invalid


def check_layer_ladders(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """SCHEMA-NOTES §12: a layer's `difficultyLadder` replaces the base one, in the kind's shape.

    Each rung is checked like the resolution's own (000: a pool rung's
    target only when the target can move; dice-highest `dc` up to keep ×
    sides; symbol-pool `dc` up to difficulty.max).
    """
    rules = ruleset.resolution_rules
    problems: list[Problem] = []
    for position, layer in enumerate(ruleset.layers or []):
        ladder = layer.get("difficultyLadder")
        if ladder is None:
            continue
        at = f"layers.{position}.difficultyLadder"
        try:
            rungs = ladder_adapter(rules.rung).validate_python(ladder)
        except ValidationError as error:
            problems += invalid(error, at)
            continue
        problems += below(at, rules.ladder_rules(rungs))
    return problems
