"""The step kinds built in modules of their own: one module per kind, named as the kind.

A module here exposes `run(state, step)`, called when its step's turn comes in the walk
(`gmtags.builder.steps.Walk.run_step`); work that needs every step done first goes in
`state.finishers`. A kind of `LATER` with no module is listed by the build as "not built
yet" and changes nothing (absent, and said to be absent); every one has its module now.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

LATER = ("allocate", "spend", "rows", "roll", "initialize")
"""004's step kinds built here, each `gmtags.builder.kinds.<kind>` once it lands."""

Runner = Callable[[Any, Any], None]


def runner(kind: str) -> Runner | None:
    """`run` of the kind's module, or None while it has none."""
    if kind not in LATER:
        return None
    name = f"{__name__}.{kind}"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name == name:
            return None
        raise
    run: Runner = module.run
    return run


__all__ = ["LATER", "Runner", "runner"]
