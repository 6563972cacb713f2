"""The bundled example: a small ruleset, a starting state and a GM reply."""

from __future__ import annotations

from importlib import resources
from importlib.abc import Traversable


def demo_file(name: str) -> Traversable:
    """One of the bundled demo files: ruleset.json, state.json or reply.txt."""
    return resources.files("gmtags.demo").joinpath(name)
