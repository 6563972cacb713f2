"""gmtags: makes an AI game master play by the rules.

The public interface of SPEC §1: load a ruleset, hold a snapshot, process a
response, whole (`process`) or as it streams (`StreamProcessor`); build a character
with the ruleset's guided builder (`build_character`, SPEC §10).

Every name is imported on first use (module `__getattr__`, PEP 562), so
`import gmtags` and `gmtags --help` stay quick (SPEC §14): the ruleset models,
the grammar and the engine load when a program first asks for one of them.
"""

from __future__ import annotations

import sys
from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gmtags.builder.build import BuildResult, build_character
    from gmtags.errors import AnswersError, Problem, RulesetError, SnapshotError
    from gmtags.limits import Limits
    from gmtags.process import ProcessResult, process
    from gmtags.ruleset import Ruleset, load_ruleset
    from gmtags.state.snapshot import Snapshot
    from gmtags.stream import StreamProcessor
    from gmtags.tags.receipt import Receipt

_HOMES = {
    "AnswersError": "gmtags.errors",
    "BuildResult": "gmtags.builder.build",
    "Limits": "gmtags.limits",
    "Problem": "gmtags.errors",
    "ProcessResult": "gmtags.process",
    "Receipt": "gmtags.tags.receipt",
    "Ruleset": "gmtags.ruleset",
    "RulesetError": "gmtags.errors",
    "Snapshot": "gmtags.state.snapshot",
    "SnapshotError": "gmtags.errors",
    "StreamProcessor": "gmtags.stream",
    "build_character": "gmtags.builder.build",
    "load_ruleset": "gmtags.ruleset",
    "process": "gmtags.process",
}
"""Each public name and the module it lives in."""

__all__ = [
    "AnswersError",
    "BuildResult",
    "Limits",
    "Problem",
    "ProcessResult",
    "Receipt",
    "Ruleset",
    "RulesetError",
    "Snapshot",
    "SnapshotError",
    "StreamProcessor",
    "build_character",
    "load_ruleset",
    "process",
]


def __getattr__(name: str) -> Any:
    """A public name, imported from its home on first use and kept (PEP 562); `__version__`
    from the installed distribution's metadata."""
    if name == "__version__":
        return _version()
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'gmtags' has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, "__version__"})


class _Package(ModuleType):
    """The `gmtags` module: importing the submodule `gmtags.process` never hides the function
    `gmtags.process` (the import system binds a submodule on its package; with the names
    imported on first use, that binding could come first)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "process" and isinstance(value, ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def _version() -> str:
    """The installed gmtags' version (`unknown` when run from files no installer recorded)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("gmtags")
    except PackageNotFoundError:
        return "unknown"
