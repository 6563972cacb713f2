"""The library's own error types.

Bad model output is never an exception (it becomes a refused receipt); a bad
ruleset or snapshot is, and it lists every problem found, each with its path.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with an input file, at a JSON path like `resolution.cancel.upTo`."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class GmtagsError(Exception):
    """Base class of every error gmtags raises on purpose."""


class RulesetError(GmtagsError):
    """A ruleset that does not import; `problems` holds every problem, not just the first."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        super().__init__(self._summary())

    def _summary(self) -> str:
        count = len(self.problems)
        head = f"ruleset is invalid ({count} problem{'s' if count != 1 else ''})"
        return "\n".join([head, *(f"  {p}" for p in self.problems)])


class SnapshotError(GmtagsError):
    """A snapshot (game state) file that cannot be read."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        lines = [f"  {p}" for p in self.problems]
        super().__init__("\n".join(["snapshot is invalid", *lines]))


class AnswersError(GmtagsError):
    """A builder answers document that is not the shape SPEC §10 gives; every problem, each
    at its JSON path (`steps.scores.rolls.str.faces.2`)."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        lines = [f"  {p}" for p in self.problems]
        super().__init__("\n".join(["answers are invalid", *lines]))


def json_path(loc: Iterable[int | str]) -> str:
    """Join a pydantic error location into a dotted path; `(root)` when empty."""
    parts = [str(part) for part in loc]
    return ".".join(parts) if parts else "(root)"
